//! The Tie-out pane driven through the harness: snapshots at 80x24 and 120x40 (loading,
//! failed, empty, loaded, each drill-down level), the month selector, the latest-wins
//! rule for its tie-out jobs, and an export that matches the command's files byte for byte.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::*;
use crate::domain::tieout::testdata::sample_rows;
use crate::domain::tieout::{EMPTY_MONTH, tie_out_month};
use crate::model::rows::{ChargeRow, CustomerRow, DisputeRow, RefundRow};
use crate::model::{AccountData, Origin};
use crate::money::Currency;
use crate::report::reconciliation::ReportHeader;
use crate::stripe::models::{ChargeStatus, DisputeStatus, RefundStatus};
use crate::tui::harness::{Harness, test_settings};
use crate::tui::msg::{Effect, Msg, PacketResult};
use crate::tui::sample;
use crate::tui::state::Startup;
use crate::tui::workspace::{LoadError, Workspace};

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

fn charge() -> ChargeRow {
    ChargeRow {
        id: "ch_1Beans".into(),
        customer: Some("cus_Ada".into()),
        payment_intent: Some("pi_1Beans".into()),
        amount: 50_000,
        amount_captured: 50_000,
        amount_refunded: 5_000,
        currency: Currency::USD,
        status: ChargeStatus::Succeeded,
        created: 1_790_000_000,
        description: Some("Annual beans plan".into()),
        metadata: [("order_id", "ORD-7")].into_iter().collect(),
        disputed: false,
        refunded: false,
        failure_code: None,
        failure_message: None,
        outcome_type: Some("authorized".into()),
        outcome_reason: None,
        outcome_network_status: Some("approved_by_network".into()),
        outcome_advice_code: None,
        outcome_seller_message: Some("Payment complete.".into()),
        balance_transaction: Some("txn_c1".into()),
        receipt_email: Some("ada@example.com".into()),
        billing_email: None,
        payment_method: None,
    }
}

/// The sample month's rows, with real source objects behind three lines.
pub(crate) fn account() -> AccountData {
    let (payouts, mut txns) = sample_rows();
    for t in &mut txns {
        match t.id.as_str() {
            "txn_c1" => t.source = Some("ch_1Beans".into()),
            "txn_r1" => t.source = Some("re_1Beans".into()),
            "txn_d1" => t.source = Some("dp_1Beans".into()),
            _ => {}
        }
    }
    let mut d = AccountData::empty(sample::meta(Origin::Demo));
    d.payouts = payouts;
    d.balance_transactions = txns;
    d.charges = vec![charge()];
    d.refunds = vec![RefundRow {
        id: "re_1Beans".into(),
        charge: Some("ch_1Beans".into()),
        payment_intent: Some("pi_1Beans".into()),
        amount: 5_000,
        currency: Currency::USD,
        status: RefundStatus::Succeeded,
        reason: Some("requested_by_customer".into()),
        failure_reason: None,
        created: 1_790_000_000,
    }];
    d.disputes = vec![DisputeRow {
        id: "dp_1Beans".into(),
        charge: Some("ch_1Other".into()),
        payment_intent: None,
        amount: 2_000,
        currency: Currency::USD,
        status: DisputeStatus::Lost,
        reason: Some("fraudulent".into()),
        created: 1_790_000_000,
        is_charge_refundable: false,
    }];
    d.customers = vec![CustomerRow {
        id: "cus_Ada".into(),
        email: Some("ada@example.com".into()),
        name: Some("Ada Lovelace".into()),
        created: 1_780_000_000,
        deleted: false,
        invoice_default_payment_method: None,
        invoice_default_created: None,
        default_source: None,
    }];
    d
}

fn harness(data: AccountData, (w, h): (u16, u16)) -> Harness {
    let ws = Workspace::new(data, Vec::new());
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
    format!("tieout_{what}_{w}x{h}")
}

#[test]
fn snapshots_loading_and_failed() {
    for size in SIZES {
        let ws = Workspace::new(account(), Vec::new());
        let mut h = Harness::with_tabs(
            test_settings(Startup::Demo),
            vec![pane()],
            Box::new(move |_| Ok(ws.clone())),
            size.0,
            size.1,
        );
        h.auto = false;
        h.start();
        insta::assert_snapshot!(name("loading", size), h.frame());

        let mut h = Harness::with_tabs(
            test_settings(Startup::Demo),
            vec![pane()],
            Box::new(|_| Err(LoadError::new("The demo account could not be read."))),
            size.0,
            size.1,
        );
        h.start();
        insta::assert_snapshot!(name("failed", size), h.frame());
    }
}

#[test]
fn snapshots_empty_month() {
    for size in SIZES {
        let mut h = harness(AccountData::empty(sample::meta(Origin::Demo)), size);
        let frame = h.frame();
        assert!(frame.contains("November 2026"), "{frame}");
        assert!(frame.contains(EMPTY_MONTH), "{frame}");
        insta::assert_snapshot!(name("empty", size), frame);
    }
}

#[test]
fn snapshots_loaded_month_and_drill_down() {
    for size in SIZES {
        let mut h = harness(account(), size);
        let frame = h.frame();
        assert!(
            frame.contains("October 2026"),
            "opens on the latest month with payouts"
        );
        assert!(frame.contains("po_tied"), "{frame}");
        insta::assert_snapshot!(name("loaded", size), frame);

        // Payout -> categories.
        h.keys("enter");
        assert_eq!(h.state.screens.len(), 1);
        let frame = h.frame();
        assert!(frame.contains("payout_minimum_balance_hold"), "{frame}");
        insta::assert_snapshot!(name("payout", size), frame);

        // Category -> its lines.
        h.keys("enter");
        let frame = h.frame();
        assert!(
            frame.contains("txn_c1") && frame.contains("txn_c2"),
            "{frame}"
        );
        assert!(!frame.contains("txn_r1"), "only the charge lines: {frame}");
        insta::assert_snapshot!(name("lines", size), frame);

        // Line -> the balance transaction and its charge.
        h.keys("enter");
        let frame = h.frame();
        assert!(frame.contains("ch_1Beans"), "{frame}");
        insta::assert_snapshot!(name("txn", size), frame);

        h.keys("esc esc esc");
        assert!(h.state.screens.is_empty());
    }
}

#[test]
fn a_refund_line_shows_its_refund_and_all_lines_are_reachable() {
    let mut h = harness(account(), (120, 40));
    h.keys("enter down enter");
    let frame = h.frame();
    assert!(frame.contains("po_tied › refund"), "{frame}");
    h.keys("enter");
    let frame = h.frame();
    assert!(frame.contains("refund re_1Beans"), "{frame}");
    assert!(frame.contains("requested_by_customer"), "{frame}");
    assert!(
        frame.contains(
            "ch_1Beans · 500.00 USD · cus_Ada Ada Lovelace <ada@example.com> · Annual beans plan"
        ),
        "the refunded charge: {frame}"
    );
    h.keys("esc esc end enter");
    let frame = h.frame();
    assert!(frame.contains("po_tied › all lines"), "{frame}");
    for id in ["txn_c1", "txn_c2", "txn_r1", "txn_d1", "txn_h1", "txn_f1"] {
        assert!(frame.contains(id), "{id}: {frame}");
    }
}

#[test]
fn a_not_itemisable_payout_says_why_and_has_no_lines() {
    let mut h = harness(account(), (120, 40));
    h.keys("g");
    h.type_text("po_manual");
    h.keys("enter enter");
    let frame = h.frame();
    assert!(
        frame.contains("Stripe cannot itemise manual payouts"),
        "{frame}"
    );
    assert!(
        frame.contains("No lines: Stripe does not itemise this payout"),
        "{frame}"
    );
    insta::assert_snapshot!("tieout_not_itemisable_120x40", frame);
}

#[test]
fn the_month_selector_moves_and_the_latest_request_wins() {
    let mut h = harness(account(), (120, 40));
    h.keys("]");
    let frame = h.frame();
    assert!(frame.contains("November 2026"), "{frame}");
    assert!(frame.contains(EMPTY_MONTH), "{frame}");
    h.keys("[ [");
    assert!(h.frame().contains("September 2026"));

    // On a large account the tie-out runs as a job: two quick moves, and the first
    // job's late result must not win.
    let ws = Workspace::new(account(), Vec::new());
    let mut h = Harness::with_tabs(
        test_settings(Startup::Demo),
        vec![Box::new(TieOutPane::new().with_sync_limit(0))],
        Box::new(move |_| Ok(ws.clone())),
        120,
        40,
    );
    h.start();
    assert!(h.frame().contains("October 2026"));
    h.auto = false;
    h.keys("[");
    let frame = h.frame();
    assert!(
        frame.contains("September 2026") && frame.contains("tying out…"),
        "{frame}"
    );
    h.settle();
    assert!(h.frame().contains("No payouts arrived"));
    h.keys("]");
    h.keys("]");
    let jobs: Vec<_> = std::mem::take(&mut h.queued);
    assert_eq!(jobs.len(), 2, "{jobs:?}");
    let mut outputs = Vec::new();
    for e in jobs {
        if let Effect::Compute { req, job } = e {
            outputs.push((req, job.run(&crate::tui::msg::CancelFlag::new())));
        }
    }
    // Deliver the newer first, then the stale one.
    outputs.reverse();
    for (req, output) in outputs {
        h.step(Msg::Computed { req, output });
    }
    let frame = h.frame();
    assert!(frame.contains("November 2026"), "{frame}");
    assert!(
        frame.contains(EMPTY_MONTH),
        "the stale October result was dropped: {frame}"
    );
}

#[test]
fn export_writes_the_commands_files_for_the_month_on_screen() {
    let mut h = harness(account(), (120, 40));
    h.keys("e");
    let written: BTreeMap<String, Vec<u8>> = h
        .log
        .iter()
        .filter_map(|e| match e {
            Effect::Write { path, bytes } => Some((path.display().to_string(), bytes.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        written.keys().map(String::as_str).collect::<Vec<_>>(),
        [
            "payout-reconciliation.csv",
            "reconciliation.json",
            "reconciliation.md"
        ]
    );

    // What `tieout reconcile --month 2026-10` writes on the same data.
    let data = account();
    let month: Month = "2026-10".parse().expect("month");
    let t = tie_out_month(
        &data.payouts,
        &data.balance_transactions,
        month,
        &TimeZone::UTC,
    );
    let header = ReportHeader::from_meta(&data.meta, "UTC");
    let dir = tempfile::tempdir().expect("tempdir");
    let all = Formats::parse("md,csv,json").expect("formats");
    let files = crate::report::reconciliation::render(&t, &header, all);
    crate::app::exports::write_exports(dir.path(), &files, false).expect("write");
    for (name, bytes) in &written {
        let cli = std::fs::read(dir.path().join(name)).expect("command's file");
        assert_eq!(&cli, bytes, "{name} differs between pane and command");
    }
}

/// The close packet exports asked for so far: (req, month, dir, force).
fn packet_effects(h: &Harness) -> Vec<(crate::tui::RequestId, Month, PathBuf, bool)> {
    h.log
        .iter()
        .filter_map(|e| match e {
            Effect::ExportPacket {
                req,
                month,
                dir,
                force,
                ..
            } => Some((*req, *month, dir.clone(), *force)),
            _ => None,
        })
        .collect()
}

#[test]
fn export_packet_offers_the_months_folder_then_asks_the_runtime() {
    use crate::tui::state::{Mode, PromptKind};
    let mut h = harness(account(), (80, 24));
    h.keys("P");
    match &h.state.mode {
        Mode::Prompt(p) => {
            assert_eq!(p.kind, PromptKind::PacketDir);
            assert_eq!(p.text, "close-2026-10", "the month on screen");
        }
        other => panic!("no prompt: {other:?}"),
    }
    let frame = h.frame();
    assert!(
        frame.contains("close packet folder: close-2026-10"),
        "{frame}"
    );
    insta::assert_snapshot!("tieout_packet_prompt_80x24", frame);
    assert!(packet_effects(&h).is_empty(), "nothing before Enter");

    // Esc writes nothing.
    h.keys("esc");
    assert_eq!(h.state.mode, Mode::Normal);
    assert!(packet_effects(&h).is_empty());

    // Another month, an edited folder, Enter: one export, not forced.
    h.keys("[ P ctrl-u");
    h.type_text("/srv/books/sep");
    h.keys("enter");
    let asked = packet_effects(&h);
    assert_eq!(asked.len(), 1, "{asked:?}");
    let (req, month, dir, force) = &asked[0];
    assert_eq!(month.to_string(), "2026-09");
    assert_eq!(dir, &PathBuf::from("/srv/books/sep"));
    assert!(!force, "never forced on the first try");
    assert!(h.state.core.pending.contains_key(req), "shown as running");
    // The effect carries the account on screen, the run's clock and zone.
    let input = h
        .log
        .iter()
        .find_map(|e| match e {
            Effect::ExportPacket { input, .. } => Some(input.clone()),
            _ => None,
        })
        .expect("input");
    assert_eq!(input.now, sample::NOW);
    assert_eq!(input.tz, TimeZone::UTC);
    assert_eq!(input.data.payouts, account().payouts);

    // While it runs, a second export is refused.
    h.keys("P");
    assert_eq!(h.state.mode, Mode::Normal);
    assert_eq!(packet_effects(&h).len(), 1);

    // An empty folder is refused.
    h.step(Msg::PacketExported {
        req: *req,
        result: PacketResult::Failed("disk full".into()),
    });
    assert!(h.frame().contains("disk full"));
    h.keys("P ctrl-u enter");
    assert_eq!(packet_effects(&h).len(), 1, "no export without a folder");
    assert!(h.frame().contains("no folder given"));
}

#[test]
fn overwriting_a_packet_needs_the_second_confirmation() {
    let mut h = harness(account(), (120, 40));
    // Nothing found yet: F does nothing.
    h.keys("F");
    assert!(packet_effects(&h).is_empty());
    assert!(h.frame().contains("nothing to overwrite"), "{}", h.frame());

    h.keys("P enter");
    let (req, _, dir, force) = packet_effects(&h).remove(0);
    assert!(!force);
    let abs = PathBuf::from("/books/close-2026-10");
    assert_eq!(dir, PathBuf::from("close-2026-10"));
    h.step(Msg::PacketExported {
        req,
        result: PacketResult::Exists(abs.clone()),
    });
    let frame = h.frame();
    assert!(
        frame.contains("a packet already exists; press F to overwrite /books/close-2026"),
        "{frame}"
    );
    assert!(
        frame.contains("A close packet for 2026-10 already exists at /books/close-2026-10: nothing was changed. F overwrites it."),
        "{frame}"
    );
    assert_eq!(packet_effects(&h).len(), 1, "the refusal forces nothing");

    // The offer is for the month on screen only.
    h.keys("] F");
    assert_eq!(packet_effects(&h).len(), 1, "another month: no overwrite");
    h.keys("[");

    // F: the same folder again, forced this time, once.
    h.keys("F");
    let asked = packet_effects(&h);
    assert_eq!(asked.len(), 2, "{asked:?}");
    let (req2, month, dir2, force2) = asked[1].clone();
    assert_eq!(month.to_string(), "2026-10");
    assert_eq!(dir2, PathBuf::from("close-2026-10"));
    assert!(force2);

    // Progress and the result in the status line.
    h.step(Msg::Progress {
        req: req2,
        text: "writing reconciliation.json (7/10 files)".into(),
    });
    let frame = h.frame();
    assert!(
        frame.contains("writing reconciliation.json (7/10 files)…"),
        "{frame}"
    );
    insta::assert_snapshot!("tieout_packet_progress_120x40", frame);
    h.step(Msg::PacketExported {
        req: req2,
        result: PacketResult::Written { dir: abs, files: 9 },
    });
    let frame = h.frame();
    assert!(
        frame.contains("wrote close packet /books/close-2026-10 (9 files + manifest)"),
        "{frame}"
    );
    assert!(
        frame.contains(
            "Close packet 2026-10: /books/close-2026-10 · 9 files listed in MANIFEST.json"
        ),
        "{frame}"
    );
    assert!(!h.state.core.pending.contains_key(&req2));
    insta::assert_snapshot!("tieout_packet_done_120x40", frame);
    h.keys("F");
    assert_eq!(
        packet_effects(&h).len(),
        2,
        "one confirmation, one overwrite"
    );
}

/// The journal key on the sample month (which does not tie out): `export_journal` runs
/// the export as a job and the status line says what was written and where; the files are
/// the journal `tieout journal` writes in the account map's `[close]` formats; a file
/// changed since is kept until the explicit `overwrite_journal`.
#[test]
fn the_journal_key_writes_the_months_journal_and_keeps_a_changed_file() {
    use tieout_core::journal::{AccountMap, build, render};
    let tmp = tempfile::tempdir().expect("tempdir");
    let ws = Workspace::new(account(), Vec::new());
    let pane = TieOutPane::new().with_journal_dir(tmp.path().to_path_buf());
    let mut h = Harness::with_tabs(
        test_settings(Startup::Demo),
        vec![Box::new(pane)],
        Box::new(move |_| Ok(ws.clone())),
        120,
        40,
    );
    h.start();
    assert!(h.frame().contains("October 2026"), "{}", h.frame());

    // The job is queued (off the UI task), then run.
    h.auto = false;
    h.keys("J");
    assert!(
        h.queued
            .iter()
            .any(|e| matches!(e, Effect::Compute { job, .. } if job.label == "writing the journal of 2026-10")),
        "{:?}",
        h.queued
    );
    h.settle();
    let dir = tmp.path().join("journal-2026-10");
    let frame = h.frame();
    assert!(
        frame.contains(&format!(
            "Journal 2026-10 written, does NOT tie out (1 amount to suspense): {} · 3 files",
            dir.display()
        )),
        "{frame}"
    );
    let shown = frame.replace(&tmp.path().display().to_string(), "<tmp>");
    insta::assert_snapshot!("tieout_journal_done_120x40", shown);

    let map = AccountMap::default_map().expect("map");
    let data = account();
    let t = crate::domain::tieout::tie_out_month(
        &data.payouts,
        &data.balance_transactions,
        "2026-10".parse().expect("month"),
        &TimeZone::UTC,
    );
    let later = crate::domain::tieout::tie_out_after(
        &data.payouts,
        &data.balance_transactions,
        "2026-10".parse().expect("month"),
        &TimeZone::UTC,
    );
    let mut j = build(
        &t,
        &later,
        &map,
        map.close_style().expect("style"),
        &TimeZone::UTC,
    )
    .expect("journal");
    // With its month-end line against the Stripe balance, as `tieout journal` writes it.
    let balance = tieout_core::report::balance::build(&data, t.month, &TimeZone::UTC);
    let tie = tieout_core::journal::balance_tie::BalanceTieInput::of(&data, &balance.rollforward);
    tieout_core::journal::balance_tie::attach(&mut j, &tie, t.month, &TimeZone::UTC);
    let mut expected = Vec::new();
    for f in map.close_formats().expect("formats") {
        expected.extend(render(&j, &map, f).expect("render"));
    }
    assert_eq!(expected.len(), 3, "beancount and one QBO file per currency");
    for (name, bytes) in &expected {
        assert_eq!(&std::fs::read(dir.join(name)).expect(name), bytes, "{name}");
    }

    // A file changed since is kept: nothing is written until the overwrite.
    let (first, bytes) = &expected[0];
    std::fs::write(dir.join(first), "edited by hand\n").expect("edit");
    h.keys("J");
    h.settle();
    let frame = h.frame();
    assert!(
        frame.contains("Journal 2026-10 not written: O overwrites the different files already in"),
        "{frame}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join(first)).expect("kept"),
        "edited by hand\n"
    );
    h.keys("O");
    h.settle();
    assert_eq!(&std::fs::read(dir.join(first)).expect("replaced"), bytes);
    assert!(
        h.frame().contains("Journal 2026-10 written"),
        "{}",
        h.frame()
    );
    // Nothing left to overwrite.
    h.keys("O");
    assert!(h.frame().contains("nothing to overwrite"), "{}", h.frame());
}
