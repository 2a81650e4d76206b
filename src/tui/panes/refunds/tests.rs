//! The Refunds pane over the suggest fixture (`tests/fixtures/suggest`, one ticket per
//! rule): it agrees with `tieout suggest` (the same JSON lines as the command's golden
//! file), snapshots at 80x24 and 120x40 loading, empty, loaded and failed, the evidence
//! drill-down, and the paste-ready copy.

use std::path::Path;

use crate::report::refunds::json_line;
use crate::source::rows::{
    ChargeRow, CustomerRow, DisputeRow, InvoicePaymentRow, RefundRow, SubscriptionRow,
};
use crate::source::{AccountData, Mode, Origin, SnapshotMeta};
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
    assert_eq!(h.state.focused().map(|p| p.title()), Some("Refunds".into()));
}

#[test]
fn a_ticket_without_evidence_says_so_instead_of_drilling() {
    let mut h = harness(workspace(), (80, 24));
    h.action(Action::Open);
    assert_eq!(h.state.focused().map(|p| p.title()), Some("Refunds".into()));
    let frame = h.frame();
    assert!(frame.contains("no evidence: no customer"), "{frame}");
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

#[test]
fn a_large_queue_is_decided_off_the_ui_task() {
    let mut data = account();
    let template = data.charges[0].clone();
    for i in 0..INLINE_WORK / 100 {
        let mut c = template.clone();
        c.id = format!("ch_bulk{i}");
        c.customer = Some(format!("cus_bulk{i}"));
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
