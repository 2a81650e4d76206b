//! The Refunds pane over the suggest fixture (`tests/fixtures/suggest`, one ticket per
//! rule): it agrees with `tieout suggest` (the same JSON lines as the command's golden
//! file), snapshots at 80x24 and 120x40 loading, empty, loaded and failed, the evidence
//! drill-down, and the paste-ready copy.

use std::path::Path;

use crate::domain::refunds::assess;
use crate::model::rows::{
    ChargeRow, CustomerRow, DisputeRow, InvoicePaymentRow, RefundRow, SubscriptionRow,
};
use crate::model::{AccountData, Mode, Origin, SnapshotMeta};
use crate::report::refunds::json_line;
use crate::stripe::models;
use crate::tui::action::Action;
use crate::tui::harness::{Harness, test_settings};
use crate::tui::msg::Effect;
use crate::tui::state::Startup;
use crate::tui::workspace::{LoadError, LoadState, Workspace, parse_tickets_csv};

use super::*;

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/suggest")
        .join(name);
    std::fs::read_to_string(&path).expect("fixture file")
}

fn rows<M: serde::de::DeserializeOwned, R: for<'a> From<&'a M>>(name: &str) -> Vec<R> {
    let models: Vec<M> = serde_json::from_str(&fixture(name)).expect("Stripe objects");
    models.iter().map(R::from).collect()
}

fn account() -> AccountData {
    let mut d = AccountData::empty(SnapshotMeta {
        account_id: "acct_1SuggestFixture00".into(),
        account_name: Some("Suggest fixture".into()),
        mode: Mode::Test,
        origin: Origin::Demo,
        api_version: crate::stripe::API_VERSION.into(),
        fetched_at: crate::tui::sample::NOW,
        window_start: 0,
        window_end: crate::tui::sample::NOW,
        default_currency: None,
        payment_methods: Default::default(),
        settled_invoices_since: None,
        balance: None,
        lines_complete: false,
        lines_since: None,
        fraud_warnings: Default::default(),
    });
    d.customers = rows::<models::Customer, CustomerRow>("customers.json");
    d.charges = rows::<models::Charge, ChargeRow>("charges.json");
    d.refunds = rows::<models::Refund, RefundRow>("refunds.json");
    d.disputes = rows::<models::Dispute, DisputeRow>("disputes.json");
    d.subscriptions = rows::<models::Subscription, SubscriptionRow>("subscriptions.json");
    d.invoice_payments = rows::<models::InvoicePayment, InvoicePaymentRow>("invoice_payments.json");
    d
}

fn workspace() -> Workspace {
    let tickets = parse_tickets_csv(&fixture("tickets.csv")).expect("tickets");
    Workspace::new(account(), tickets)
}

fn harness(ws: Workspace, (w, h): (u16, u16)) -> Harness {
    let mut h = Harness::with_tabs(
        test_settings(Startup::Demo),
        vec![pane()],
        Box::new(move |_| Ok(ws.clone())),
        w,
        h,
    );
    h.start();
    h
}

fn name(what: &str, (w, h): (u16, u16)) -> String {
    format!("refunds_{what}_{w}x{h}")
}

fn pane_rows(h: &Harness) -> Vec<String> {
    let table = h.state.focused().and_then(|p| p.table()).expect("table");
    (0..table.total())
        .map(|r| table.row_fields(r))
        .map(|f| {
            f.into_iter()
                .map(|(_, v)| v)
                .collect::<Vec<_>>()
                .join(" | ")
        })
        .collect()
}

#[test]
fn the_pane_agrees_with_the_suggest_command() {
    let ws = workspace();
    let got: Vec<String> = assess_all(
        &ws.data,
        None,
        &ws.tickets,
        &Policy::default_policy(),
        crate::tui::sample::NOW,
        &TimeZone::UTC,
    )
    .iter()
    .map(|a| json_line(&a.suggestion))
    .collect();
    // The command's golden output for the same fixture and clock.
    let golden = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden/suggest/fixture/refund-suggestions.jsonl"),
    )
    .expect("golden");
    assert_eq!(got, golden.lines().collect::<Vec<_>>());
    // And the queue shows those rows.
    let h = harness(ws, (120, 40));
    let shown = pane_rows(&h);
    assert_eq!(shown.len(), 14);
    assert!(
        shown[8].starts_with("T-09 | partial | 20.990 KWD | annual-prorate"),
        "{}",
        shown[8]
    );
}

#[test]
fn snapshot_loaded() {
    for size in SIZES {
        let mut h = harness(workspace(), size);
        insta::assert_snapshot!(name("loaded", size), h.frame());
    }
    // An annual plan's proration, a dispute and a partially refunded charge.
    let mut h = harness(workspace(), (120, 40));
    for _ in 0..8 {
        h.action(Action::Down);
    }
    insta::assert_snapshot!(name("annual_prorate", (120, 40)), h.frame());
    h.action(Action::Up);
    h.action(Action::Up);
    h.action(Action::Up);
    insta::assert_snapshot!(name("disputed", (120, 40)), h.frame());
    let mut h = harness(workspace(), (80, 24));
    for _ in 0..12 {
        h.action(Action::Down);
    }
    insta::assert_snapshot!(name("partially_refunded", (80, 24)), h.frame());
}

#[test]
fn snapshot_loading_empty_and_failed() {
    for size in SIZES {
        let mut h = Harness::with_tabs(
            test_settings(Startup::Demo),
            vec![pane()],
            Box::new(|_| Ok(workspace())),
            size.0,
            size.1,
        );
        h.auto = false;
        h.start();
        assert!(matches!(h.state.load, LoadState::Loading { .. }));
        insta::assert_snapshot!(name("loading", size), h.frame());

        let empty = Workspace::new(account(), Vec::new());
        let mut h = harness(empty, size);
        insta::assert_snapshot!(name("empty", size), h.frame());

        let mut h = Harness::with_tabs(
            test_settings(Startup::Demo),
            vec![pane()],
            Box::new(|_| Err(LoadError::new("the demo account could not be read"))),
            size.0,
            size.1,
        );
        h.start();
        insta::assert_snapshot!(name("failed", size), h.frame());
    }
}

#[test]
fn enter_drills_into_the_evidence_and_then_one_object() {
    let mut h = harness(workspace(), (80, 24));
    // T-12: an annual plan tied by its invoice: customer, charge, subscription, invoice.
    for _ in 0..11 {
        h.action(Action::Down);
    }
    // Enter: the ticket's trail; enter there: its evidence.
    h.action(Action::Open);
    assert_eq!(
        h.state.focused().map(|p| p.title()),
        Some("T-12 trail".into())
    );
    h.action(Action::Open);
    let ev = h
        .state
        .focused()
        .and_then(|p| p.table())
        .expect("evidence table");
    assert_eq!(ev.total(), 4);
    insta::assert_snapshot!(name("evidence", (80, 24)), h.frame());
    h.action(Action::Down);
    h.action(Action::Open);
    let frame = h.frame();
    assert!(frame.contains("charge ch_SgK1"), "{frame}");
    assert!(frame.contains("amount_captured"), "{frame}");
    insta::assert_snapshot!(name("evidence_charge", (80, 24)), frame);
    h.action(Action::Back);
    h.action(Action::Down);
    h.action(Action::Down);
    h.action(Action::Open);
    assert!(h.frame().contains("invoice in_SgKim"));
    h.action(Action::Back);
    h.action(Action::Back);
    h.action(Action::Back);
    assert_eq!(h.state.focused().map(|p| p.title()), Some("Refunds".into()));
}

#[test]
fn a_ticket_without_evidence_shows_its_trail_and_says_so_instead_of_drilling() {
    let mut h = harness(workspace(), (80, 24));
    h.action(Action::Open);
    let trail = h.state.focused().map(|p| p.title()).unwrap_or_default();
    assert!(trail.ends_with(" trail"), "{trail}");
    h.action(Action::Open);
    assert_eq!(h.state.focused().map(|p| p.title()), Some(trail));
    let frame = h.frame();
    assert!(frame.contains("no evidence: no customer"), "{frame}");
    assert!(
        frame.contains("no-customer: applies, and decides"),
        "{frame}"
    );
}

/// The demo's tickets as the workbench shows them (`tieout demo`).
fn demo_workspace() -> Workspace {
    let data = crate::source::demo::load_demo().expect("demo");
    let tickets = parse_tickets_csv(crate::source::demo::demo_tickets_csv()).expect("demo tickets");
    Workspace::new(data, tickets)
}

/// The frame's text inside the screen's border, lines trimmed, joined by spaces (a
/// wrapped line joins up again).
fn screen_text(frame: &str) -> String {
    frame
        .lines()
        .filter_map(|l| l.strip_prefix('│'))
        .map(|l| l.trim_end_matches('│').trim())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Enter on a demo ticket shows the lines `suggest --explain` writes for it (the one
/// renderer, `trail::section`), wrapped; the moving keys scroll it; esc goes back.
#[test]
fn enter_on_a_demo_ticket_shows_its_explain_trail_and_scrolls() {
    for size in SIZES {
        let mut h = harness(demo_workspace(), size);
        // T-1003: charged twice for one order, two candidate charges.
        h.action(Action::Down);
        h.action(Action::Down);
        let a = h
            .state
            .focused()
            .and_then(|p| p.table())
            .and_then(|t| t.selected_row())
            .expect("a ticket");
        assert_eq!(a, 2);
        h.action(Action::Open);
        assert_eq!(
            h.state.focused().map(|p| p.title()),
            Some("T-1003 trail".into())
        );
        let frame = h.frame();
        insta::assert_snapshot!(name("trail_demo", size), frame);
        if size == (120, 40) {
            // All of it fits: every line of the Markdown section is on the screen.
            let data = crate::source::demo::load_demo().expect("demo");
            let tickets =
                parse_tickets_csv(crate::source::demo::demo_tickets_csv()).expect("demo tickets");
            let facts = Facts::of(&data);
            let policy = Policy::default_policy();
            let a = assess(
                &tickets[2],
                &facts,
                &policy,
                crate::tui::sample::NOW,
                &TimeZone::UTC,
            );
            let text = screen_text(&frame);
            for line in crate::domain::refunds::trail::section(&a.trail) {
                assert!(text.contains(line.trim()), "{line:?} not in {frame}");
            }
        }
    }
    // At 80x24 the trail is longer than the screen: down and end scroll it, home back.
    let mut h = harness(demo_workspace(), (80, 24));
    h.action(Action::Down);
    h.action(Action::Down);
    h.action(Action::Open);
    let top = h.frame();
    assert!(!top.contains("Decided by: ambiguous-charge"), "{top}");
    h.action(Action::Bottom);
    let bottom = h.frame();
    assert!(bottom.contains("Decided by: ambiguous-charge"), "{bottom}");
    assert!(!bottom.contains("Stripe requests:"), "{bottom}");
    h.action(Action::Down);
    assert_eq!(
        h.frame(),
        bottom,
        "the end does not scroll past the last line"
    );
    h.action(Action::Top);
    assert_eq!(h.frame(), top);
    h.action(Action::Down);
    assert_ne!(h.frame(), top);
    h.action(Action::Back);
    assert_eq!(h.state.focused().map(|p| p.title()), Some("Refunds".into()));
}

/// Read through Connect (`--stripe-account`), the pane's Dashboard addresses are the
/// connected account's, as the command's `evidence_urls` are: the screen's `u`/`o` and
/// the suggestions use the one rule.
#[test]
fn a_connected_account_s_evidence_opens_under_that_account() {
    let ws = workspace().with_connected(Some("acct_1Connected".into()));
    let h = copy_and_open_t12_charge(ws.clone());
    let url = "https://dashboard.stripe.com/acct_1Connected/test/payments/ch_SgK1".to_string();
    let asked: Vec<&String> = h
        .log
        .iter()
        .filter_map(|e| match e {
            Effect::Copy(t) | Effect::OpenUrl(t) => Some(t),
            _ => None,
        })
        .collect();
    assert_eq!(asked, [&url, &url]);
    // The same addresses as the suggestion's evidence_urls (what the JSON and CSV carry).
    let rows = assess_all(
        &ws.data,
        ws.connected.as_deref(),
        &ws.tickets,
        &Policy::default_policy(),
        crate::tui::sample::NOW,
        &TimeZone::UTC,
    );
    assert!(
        rows[11].suggestion.evidence_urls.contains(&url),
        "{:?}",
        rows[11].suggestion
    );
    let links = facts(&ws.data, Some("acct_1Connected")).dashboard();
    for (id, want) in rows[11]
        .suggestion
        .evidence
        .iter()
        .filter_map(|id| links.url(id).map(|u| (id, u)))
    {
        let row = evidence_row(id, &ws.data, &links, &TimeZone::UTC);
        assert_eq!(row.url.as_deref(), Some(want.as_str()));
        assert!(rows[11].suggestion.evidence_urls.contains(&want));
    }
}

#[test]
fn copy_row_copies_the_suggestion_ready_to_paste() {
    let mut h = harness(workspace(), (80, 24));
    h.action(Action::Down);
    h.action(Action::CopyRow);
    let copied: Vec<&String> = h
        .log
        .iter()
        .filter_map(|e| match e {
            Effect::Copy(t) => Some(t),
            _ => None,
        })
        .collect();
    assert_eq!(
        copied,
        [&"T-02: approve 49.00 USD (first-purchase-window)\n\
           Full refund within 30 days of the charge on a first purchase. ch_SgA1 (49.00 USD, 2026-11-20, found by metadata.order_id) is the customer's first purchase, 10 days ago; refund 49.00 USD.\n\
           Evidence: cus_SgAnn ch_SgA1"
            .to_string()]
    );
}

/// T-12's trail, its evidence, its charge: `copy_url` then `open_url` there.
fn copy_and_open_t12_charge(ws: Workspace) -> Harness {
    let mut h = harness(ws, (80, 24));
    for _ in 0..11 {
        h.action(Action::Down);
    }
    h.action(Action::Open);
    h.action(Action::Open);
    h.action(Action::Down);
    h.action(Action::CopyUrl);
    h.action(Action::OpenUrl);
    h
}

/// Evidence opens in the Dashboard: `copy_url` and `open_url` on the evidence screen only
/// ask the runtime (a copy, an open), with the test-mode address of the selected id.
#[test]
fn evidence_is_copied_and_opened_as_its_dashboard_address() {
    let h = copy_and_open_t12_charge(workspace());
    let asked: Vec<(&str, &String)> = h
        .log
        .iter()
        .filter_map(|e| match e {
            Effect::Copy(t) => Some(("copy", t)),
            Effect::OpenUrl(u) => Some(("open", u)),
            _ => None,
        })
        .collect();
    let url = "https://dashboard.stripe.com/test/payments/ch_SgK1".to_string();
    assert_eq!(asked, [("copy", &url), ("open", &url)]);
}

#[test]
fn a_large_queue_is_decided_off_the_ui_task() {
    let mut data = account();
    let template = data.charges[0].clone();
    for i in 0..INLINE_WORK {
        let mut c = template.clone();
        c.id = format!("ch_bulk{i}").into();
        c.customer = Some(format!("cus_bulk{i}").into());
        data.charges.push(c);
    }
    let mut tickets = parse_tickets_csv(&fixture("tickets.csv")).expect("tickets");
    while tickets.len() < 100 {
        tickets.extend(tickets.clone());
    }
    let ws = Workspace::new(data, tickets);
    let loaded = ws.clone();
    let mut h = Harness::with_tabs(
        test_settings(Startup::Demo),
        vec![pane()],
        Box::new(move |_| Ok(ws.clone())),
        80,
        24,
    );
    h.auto = false;
    h.start();
    // Deliver the load by hand so the job it starts stays queued.
    let Some(Effect::Load { req, kind }) = h.queued.pop() else {
        panic!("a load was asked for: {:?}", h.queued);
    };
    h.step(crate::tui::msg::Msg::Loaded {
        req,
        kind,
        result: Ok(loaded),
    });
    assert!(
        h.queued.iter().any(
            |e| matches!(e, Effect::Compute { job, .. } if job.label == "deciding refund tickets")
        ),
        "{:?}",
        h.queued
    );
    assert!(h.frame().contains("Deciding the tickets"));
    h.settle();
    let table = h.state.focused().and_then(|p| p.table()).expect("table");
    assert!(table.total() >= 100);
    assert!(h.frame().contains("T-01 review · no-customer"));
}

// ------------------------------------------------------------------ approval flow

use crate::app::refund_exec::Outcome;
use crate::domain::refund_gate::{Proposal, Refusal, Rule};
use crate::money::Currency;
use crate::tui::msg::{Msg, PreviewEvent, RefundDone};

/// The fixture as if read from a Stripe test account (the demo cannot take refunds).
fn test_account_workspace(origin: Origin, mode: Mode) -> Workspace {
    let mut data = account();
    data.meta.origin = origin;
    data.meta.mode = mode;
    let tickets = parse_tickets_csv(&fixture("tickets.csv")).expect("tickets");
    Workspace::new(data, tickets)
}

/// The queue's line for a ticket, its cells separated by single spaces.
fn queue_line(frame: &str, ticket: &str) -> String {
    frame
        .lines()
        .find(|l| l.trim_start_matches('│').starts_with(ticket))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn executed(h: &Harness) -> Vec<(crate::tui::msg::RequestId, Proposal)> {
    h.log
        .iter()
        .filter_map(|e| match e {
            Effect::ExecuteRefund { req, proposal } => Some((*req, proposal.clone())),
            _ => None,
        })
        .collect()
}

/// T-02: approve 49.00 USD on ch_SgA1 (first purchase within the window).
fn at_t02(size: (u16, u16)) -> Harness {
    let mut h = harness(test_account_workspace(Origin::Cache, Mode::Test), size);
    h.action(Action::Down);
    h
}

fn t02_proposal() -> Proposal {
    Proposal {
        ticket: "T-02".into(),
        charge: "ch_SgA1".into(),
        amount: 4_900,
        currency: Currency::USD,
        reason: "requested_by_customer".into(),
        evidence: vec!["cus_SgAnn".into(), "ch_SgA1".into()],
        rule: "first-purchase-window".into(),
    }
}

fn previews(h: &Harness) -> Vec<(PreviewEvent, Proposal)> {
    h.log
        .iter()
        .filter_map(|e| match e {
            Effect::AuditPreview { proposal, event } => Some((*event, proposal.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn a_preview_opened_and_cancelled_is_audited_as_a_proposal_then_cancelled() {
    let mut h = at_t02((80, 24));
    h.keys("a");
    assert_eq!(previews(&h), [(PreviewEvent::Opened, t02_proposal())]);
    h.keys("esc");
    assert!(h.state.focused().is_some_and(|p| !p.captures_keys()));
    assert_eq!(
        previews(&h),
        [
            (PreviewEvent::Opened, t02_proposal()),
            (PreviewEvent::Cancelled, t02_proposal())
        ]
    );
    assert!(executed(&h).is_empty());
    // Sent, then closed: the gate records the rest, not a cancellation.
    h.keys("a");
    h.type_text("yes");
    h.keys("enter");
    assert_eq!(executed(&h).len(), 1);
    h.keys("esc");
    let events: Vec<PreviewEvent> = previews(&h).into_iter().map(|(e, _)| e).collect();
    assert_eq!(
        events,
        [
            PreviewEvent::Opened,
            PreviewEvent::Cancelled,
            PreviewEvent::Opened
        ]
    );
    // The demo cannot take a refund: its preview proposes nothing to the audit log.
    let mut demo = harness(test_account_workspace(Origin::Demo, Mode::Test), (80, 24));
    demo.action(Action::Down);
    demo.keys("a");
    demo.keys("esc");
    assert!(previews(&demo).is_empty(), "{:?}", demo.log);
}

#[test]
fn a_single_key_never_sends_and_the_typed_sequence_sends_the_frozen_proposal() {
    let mut h = at_t02((80, 24));
    h.keys("a");
    assert!(h.state.focused().is_some_and(|p| p.captures_keys()));
    assert!(executed(&h).is_empty(), "opening the preview sends nothing");
    // Enter alone, the opening key again, a wrong word: nothing is sent.
    h.keys("enter");
    h.keys("a");
    h.keys("enter");
    h.type_text("yes!");
    h.keys("enter");
    h.type_text("y");
    h.keys("enter");
    assert!(executed(&h).is_empty(), "{:?}", h.log);
    let frame = h.frame();
    assert!(frame.contains("Not sent: type yes exactly"), "{frame}");
    // `q` typed into the confirmation does not quit; `y`/`e` do not copy or export.
    h.type_text("qye");
    assert!(!h.state.quit);
    assert!(
        h.log.iter().all(|e| matches!(
            e,
            Effect::Cancel(_) | Effect::ExecuteRefund { .. } | Effect::AuditPreview { .. }
        )),
        "{:?}",
        h.log
    );
    h.keys("ctrl-u"); // not text: ignored
    for _ in 0..3 {
        h.keys("backspace");
    }
    h.type_text("yes");
    h.keys("enter");
    let sent = executed(&h);
    assert_eq!(sent.len(), 1, "{:?}", h.log);
    assert_eq!(sent[0].1, t02_proposal());
    // While it runs, more keys send nothing more.
    h.type_text("yes");
    h.keys("enter");
    assert_eq!(executed(&h).len(), 1);
}

#[test]
fn a_rebound_submit_key_sends_and_still_only_after_yes_is_typed() {
    let mut settings = test_settings(Startup::Demo);
    settings
        .keymap
        .apply_toml(
            "[keys.confirm]\n\"ctrl-s\" = \"submit\"\n\"enter\" = \"none\"\n\"ctrl-w\" = \"clear_line\"\n",
            "keymap.toml",
        )
        .expect("a valid mode layer");
    let ws = test_account_workspace(Origin::Cache, Mode::Test);
    let mut h = Harness::with_tabs(
        settings,
        vec![pane()],
        Box::new(move |_| Ok(ws.clone())),
        80,
        24,
    );
    h.start();
    h.action(Action::Down);
    h.keys("a");
    assert!(h.state.focused().is_some_and(|p| p.captures_keys()));
    let frame = h.frame();
    assert!(
        frame.contains("Type yes then press Ctrl-s to send it · Esc cancels"),
        "the overlay names the rebound key: {frame}"
    );
    // The new submit key alone, the old one after the word (unbound now: neither submit
    // nor text), the word cleared then submit, wrong words then submit: nothing is sent.
    h.keys("ctrl-s");
    h.type_text("yes");
    h.keys("enter");
    h.keys("ctrl-w");
    h.keys("ctrl-s");
    h.type_text("no");
    h.keys("ctrl-s");
    h.type_text("yess");
    h.keys("ctrl-s");
    h.type_text("ye");
    h.keys("ctrl-s");
    assert!(executed(&h).is_empty(), "{:?}", h.log);
    let frame = h.frame();
    assert!(
        frame.contains("Not sent: type yes exactly, then Ctrl-s."),
        "{frame}"
    );
    // Only the word, then the rebound submit key, sends the frozen proposal.
    h.type_text("yes");
    h.keys("ctrl-s");
    let sent = executed(&h);
    assert_eq!(sent.len(), 1, "{:?}", h.log);
    assert_eq!(sent[0].1, t02_proposal());
}

#[test]
fn esc_cancels_the_preview_and_actions_do_not_reach_the_queue_under_it() {
    let mut h = at_t02((80, 24));
    h.keys("a");
    h.action(Action::Down);
    h.type_text("yes");
    h.keys("esc");
    assert!(!h.state.focused().is_some_and(|p| p.captures_keys()));
    assert!(executed(&h).is_empty());
    // Still on T-02: the Down under the overlay did not move the queue.
    let frame = h.frame();
    assert!(frame.contains("T-02 approve 49.00 USD"), "{frame}");
    // Back (Esc from a script or the mouse) closes it too.
    h.keys("a");
    h.action(Action::Back);
    assert!(!h.state.focused().is_some_and(|p| p.captures_keys()));
}

#[test]
fn only_approve_and_partial_suggestions_open_a_preview() {
    // T-01 is review (no customer).
    let mut h = harness(test_account_workspace(Origin::Cache, Mode::Test), (120, 40));
    h.keys("a");
    assert!(!h.state.focused().is_some_and(|p| p.captures_keys()));
    let frame = h.frame();
    assert!(
        frame.contains("nothing to refund: T-01 is review"),
        "{frame}"
    );
}

#[test]
fn snapshot_the_preview_sending_and_verified_outcome() {
    for size in SIZES {
        let mut h = at_t02(size);
        h.keys("a");
        h.type_text("ye");
        insta::assert_snapshot!(name("approve_preview", size), h.frame());
    }
    let mut h = at_t02((120, 40));
    h.keys("a");
    h.type_text("yes");
    h.keys("enter");
    insta::assert_snapshot!(name("approve_sending", (120, 40)), h.frame());
    let (req, _) = executed(&h)[0].clone();
    h.step(Msg::RefundExecuted {
        req,
        done: RefundDone {
            ticket: "T-02".into(),
            outcome: Ok(Outcome::Verified {
                refund_id: "re_3TestVerified01".into(),
            }),
        },
    });
    let frame = h.frame();
    assert!(
        frame.contains("Verified: re_3TestVerified01 succeeded"),
        "{frame}"
    );
    insta::assert_snapshot!(name("approve_verified", (120, 40)), frame);
    // Closing shows the queue with the ticket marked and the outcome in its details.
    h.keys("enter");
    let frame = h.frame();
    assert!(!h.state.focused().is_some_and(|p| p.captures_keys()));
    assert!(
        queue_line(&frame, "T-02").starts_with("│T-02 │ refunded 49.00 USD"),
        "{frame}"
    );
    assert!(
        frame.contains("Refund   Verified: re_3TestVerified01"),
        "{frame}"
    );
    insta::assert_snapshot!(name("approve_marked", (120, 40)), frame);
}

#[test]
fn snapshot_a_refusal_with_its_rule_and_reason() {
    let mut h = at_t02((80, 24));
    h.keys("a");
    h.type_text("yes");
    h.keys("enter");
    let (req, _) = executed(&h)[0].clone();
    h.step(Msg::RefundExecuted {
        req,
        done: RefundDone {
            ticket: "T-02".into(),
            outcome: Ok(Outcome::Refused(Refusal::new(
                Rule::DailyBudget,
                "49.00 USD is over today's remaining USD refund budget (20.00 USD left of \
                 500.00 USD)",
            ))),
        },
    });
    let frame = h.frame();
    assert!(frame.contains("Refused by rule daily_budget"), "{frame}");
    insta::assert_snapshot!(name("approve_refused", (80, 24)), frame);
    h.keys("esc");
    assert!(queue_line(&h.frame(), "T-02").starts_with("│T-02 │ refused"));
}

#[test]
fn the_demo_explains_instead_of_confirming_and_sends_nothing() {
    let mut h = harness(workspace(), (80, 24)); // the fixture is Origin::Demo
    h.action(Action::Down);
    h.keys("a");
    let frame = h.frame();
    assert!(frame.contains("This is the demo account"), "{frame}");
    assert!(frame.contains("test-mode key"), "{frame}");
    insta::assert_snapshot!(name("approve_demo", (80, 24)), frame);
    h.type_text("yes");
    h.keys("enter");
    assert!(executed(&h).is_empty());
    assert!(!h.state.focused().is_some_and(|p| p.captures_keys()));
}

#[test]
fn an_account_read_with_a_live_key_is_refused_in_the_preview() {
    let mut h = harness(test_account_workspace(Origin::Cache, Mode::Live), (80, 24));
    h.action(Action::Down);
    h.keys("a");
    let frame = h.frame();
    assert!(frame.contains("read with a live key"), "{frame}");
    h.type_text("yes");
    h.keys("enter");
    assert!(executed(&h).is_empty());
}

#[test]
fn a_gate_that_could_not_start_says_why_on_the_ticket() {
    let mut h = at_t02((80, 24));
    h.keys("a");
    h.type_text("yes");
    h.keys("enter");
    let (req, _) = executed(&h)[0].clone();
    h.step(Msg::RefundExecuted {
        req,
        done: RefundDone {
            ticket: "T-02".into(),
            outcome: Err(
                "refund execution needs a test-mode key (sk_test_... or rk_test_...), \
                          and rk_live_...WXYZ is a restricted live key"
                    .into(),
            ),
        },
    });
    let frame = h.frame();
    assert!(
        frame.contains("Not sent: refund execution needs a test-mode key"),
        "{frame}"
    );
    h.keys("esc");
    assert!(queue_line(&h.frame(), "T-02").starts_with("│T-02 │ not sent"));
}

#[test]
fn a_ticket_being_sent_cannot_be_previewed_again_until_it_answers() {
    let mut h = at_t02((120, 40));
    h.keys("a");
    h.type_text("yes");
    h.keys("enter");
    h.keys("esc"); // hide the overlay while it runs
    h.keys("a");
    assert!(!h.state.focused().is_some_and(|p| p.captures_keys()));
    assert!(h.frame().contains("T-02 is being sent"), "{}", h.frame());
    let (req, _) = executed(&h)[0].clone();
    h.step(Msg::RefundExecuted {
        req,
        done: RefundDone {
            ticket: "T-02".into(),
            outcome: Ok(Outcome::Unverifiable {
                refund_id: "re_3TestPending01".into(),
                status: "pending".into(),
            }),
        },
    });
    assert!(
        queue_line(&h.frame(), "T-02").starts_with("│T-02 │ pending"),
        "{}",
        h.frame()
    );
    // Answered: the same preview again re-checks it (the gate reads the refund back).
    h.keys("a");
    let frame = h.frame();
    assert!(
        frame.contains("Earlier  Unverifiable until it settles"),
        "{frame}"
    );
    h.type_text("yes");
    h.keys("enter");
    assert_eq!(executed(&h).len(), 2);
    assert_eq!(executed(&h)[1].1, t02_proposal());
}

#[test]
fn a_reload_closes_an_unconfirmed_preview() {
    let mut h = at_t02((120, 40));
    h.keys("a");
    h.type_text("ye");
    h.action(Action::Refresh);
    assert!(!h.state.focused().is_some_and(|p| p.captures_keys()));
    let frame = h.frame();
    assert!(frame.contains("refund preview closed"), "{frame}");
    assert!(executed(&h).is_empty());
}

// Batches (issue 37): marks, the approver prompt, the preview bound to one hash, the
// report.

use crate::app::refund_batch::{BatchReport, ItemReport, ItemResult};
use crate::domain::refund_approval::Signoff;
use crate::domain::refund_batch::Batch;
use crate::domain::refund_gate::GatePolicy;
use crate::tui::msg::BatchDone;

const BATCH_POLICY: &str = "[daily_budget]\nusd = \"500.00\"\n\n[approval]\napprovers = [{ name = \"Ana\", role = \"agent\" }, { name = \"Bo\", role = \"lead\" }]\n";

/// A test account previewed against a policy naming Ana (agent) and Bo (lead), with
/// T-02 (49.00 USD), T-12 (60.00 USD) and T-13 (50.00 USD) marked.
fn marked_three(size: (u16, u16)) -> Harness {
    let ws = test_account_workspace(Origin::Cache, Mode::Test)
        .with_gate_policy(GatePolicy::from_toml(BATCH_POLICY).expect("policy"));
    let mut h = harness(ws, size);
    h.action(Action::Down);
    h.keys("space"); // T-02, then the selection moves on to T-03
    for _ in 0..9 {
        h.action(Action::Down);
    }
    h.keys("space"); // T-12
    h.keys("space"); // T-13
    h
}

fn batches(h: &Harness) -> Vec<(RequestId, Batch, String)> {
    h.log
        .iter()
        .filter_map(|e| match e {
            Effect::ExecuteBatch {
                req,
                batch,
                confirmed,
            } => Some((*req, batch.clone(), confirmed.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn marks_the_approver_prompt_and_the_typed_confirmation_send_one_batch() {
    let mut h = marked_three((120, 40));
    let frame = h.frame();
    for t in ["T-02", "T-12", "T-13"] {
        assert!(queue_line(&frame, t).contains("●"), "{t} marked: {frame}");
    }
    assert!(!queue_line(&frame, "T-08").contains("●"));
    // A decline cannot be marked.
    h.action(Action::Top);
    h.keys("space");
    assert!(!queue_line(&h.frame(), "T-01").contains("●"));

    // An unknown approver is refused with the names; nothing opens.
    h.keys("A");
    h.type_text("Zed");
    h.keys("enter");
    let frame = h.frame();
    assert!(frame.contains("Ana, Bo"), "{frame}");
    assert!(h.state.focused().is_some_and(|p| !p.captures_keys()));

    h.keys("A");
    h.type_text("ana");
    h.keys("enter");
    assert!(h.state.focused().is_some_and(|p| p.captures_keys()));
    let opened: Vec<&Batch> = h
        .log
        .iter()
        .filter_map(|e| match e {
            Effect::AuditBatch { batch, event } if *event == PreviewEvent::Opened => Some(batch),
            _ => None,
        })
        .collect();
    assert_eq!(opened.len(), 1);
    let b = opened[0].clone();
    let tickets: Vec<&str> = b.items.iter().map(|i| i.proposal.ticket.as_str()).collect();
    assert_eq!(tickets, ["T-02", "T-12", "T-13"]);
    assert_eq!(
        b.signoff,
        Signoff {
            approver: "Ana".into(),
            tier: Some("agent".into())
        }
    );
    assert_eq!(b.expires_at - b.created_at, 15 * 60);

    // Enter alone sends nothing; yes then Enter sends the batch bound to its hash.
    h.keys("enter");
    assert!(batches(&h).is_empty());
    h.type_text("yes");
    h.keys("enter");
    let sent = batches(&h);
    assert_eq!(sent.len(), 1, "{:?}", h.log);
    assert_eq!(sent[0].1, b);
    assert_eq!(sent[0].2, b.digest());

    // The second fails: the first is marked refunded, the second failed, the third stays
    // marked and unsent.
    let (req, batch, _) = sent[0].clone();
    let item = |i: usize, result: ItemResult| ItemReport {
        source: batch.items[i].source.clone(),
        proposal: batch.items[i].proposal.clone(),
        result,
    };
    let report = BatchReport {
        batch: batch.short_digest(),
        signoff: batch.signoff.clone(),
        refused: None,
        items: vec![
            item(
                0,
                ItemResult::Done {
                    outcome: Outcome::Verified {
                        refund_id: "re_Batch1".into(),
                    },
                },
            ),
            item(
                1,
                ItemResult::Failed {
                    outcome: Outcome::Failed {
                        refund_id: None,
                        reason: "Stripe refused the refund: too old".into(),
                    },
                },
            ),
            item(2, ItemResult::NotAttempted),
        ],
    };
    h.step(Msg::BatchExecuted {
        req,
        done: BatchDone {
            outcome: Ok(report),
        },
    });
    let frame = h.frame();
    assert!(
        frame.contains("1 done, 1 failed, 1 not attempted"),
        "{frame}"
    );
    assert!(frame.contains("not attempted"), "{frame}");
    h.keys("esc");
    let frame = h.frame();
    assert!(queue_line(&frame, "T-02").contains("refunded"), "{frame}");
    assert!(queue_line(&frame, "T-12").contains("failed"), "{frame}");
    assert!(queue_line(&frame, "T-13").contains("● approve"), "{frame}");
}

#[test]
fn an_expired_preview_is_refused_in_the_overlay() {
    let mut h = marked_three((80, 24));
    h.keys("A");
    h.type_text("Bo");
    h.keys("enter");
    h.state.core.now += 15 * 60;
    h.type_text("yes");
    h.keys("enter");
    assert!(batches(&h).is_empty());
    let frame = h.frame();
    assert!(frame.contains("expired"), "{frame}");
}

#[test]
fn a_refund_above_the_approvers_tier_blocks_the_batch_preview() {
    let ws = test_account_workspace(Origin::Cache, Mode::Test).with_gate_policy(
        GatePolicy::from_toml(
            "[daily_budget]\nusd = \"500.00\"\n\n[approval]\napprovers = [{ name = \"Ana\", role = \"agent\" }]\ntiers = [{ role = \"agent\", up_to = { usd = 5000 } }]\n",
        )
        .expect("policy"),
    );
    let mut h = harness(ws, (120, 40));
    for _ in 0..11 {
        h.action(Action::Down);
    }
    h.keys("space"); // T-12, 60.00 USD over the 50.00 tier
    h.keys("A");
    h.type_text("Ana");
    h.keys("enter");
    let frame = h.frame();
    assert!(frame.contains("tier agent"), "{frame}");
    assert!(frame.contains("Not sendable: T-12"), "{frame}");
    h.type_text("yes");
    h.keys("enter");
    assert!(batches(&h).is_empty());
}

#[test]
fn snapshot_the_batch_preview() {
    for size in SIZES {
        let mut h = marked_three(size);
        h.keys("A");
        h.type_text("Ana");
        h.keys("enter");
        h.type_text("ye");
        insta::assert_snapshot!(name("batch_preview", size), h.frame());
    }
}

#[test]
fn with_approvers_named_a_single_approval_asks_who_and_previews_a_batch_of_one() {
    let ws = test_account_workspace(Origin::Cache, Mode::Test)
        .with_gate_policy(GatePolicy::from_toml(BATCH_POLICY).expect("policy"));
    let mut h = harness(ws, (120, 40));
    h.action(Action::Down);
    h.keys("a");
    h.type_text("Bo");
    h.keys("enter");
    let frame = h.frame();
    assert!(frame.contains("Approve 1 refund(s)"), "{frame}");
    assert!(frame.contains("Bo (lead)"), "{frame}");
    h.type_text("yes");
    h.keys("enter");
    let sent = batches(&h);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].1.items[0].proposal, t02_proposal());
    assert!(executed(&h).is_empty(), "no approver-less single refund");
}
