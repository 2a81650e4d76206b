//! The workbench with a restricted key that lacks a permission, through the fake Stripe
//! and the real client: only the panes (and columns) that need the missing resource are
//! marked, with the permission to add; the other panes load fresh.

use jiff::tz::TimeZone;
use tieout::model::{AccountIdent, Parts};
use tieout::secrets::ApiKey;
use tieout::source::progress::SyncEvent;
use tieout::stripe::{Client, ClientConfig, RateConfig};
use tieout::tui::harness::{Harness, test_settings};
use tieout::tui::state::Startup;
use tieout::tui::workspace::{LoadError, LoadKind, Workspace};

use tieout_testkit::fake_stripe::Fault;

use crate::support::{FakeConfig, RunningFake, TEST_KEY, Tieout, start_fake};

/// A client of the fake with the test key, unthrottled.
fn client(base: &str) -> Client {
    let key = ApiKey::parse(TEST_KEY).expect("key");
    let mut cfg = ClientConfig::new(base.to_string(), key);
    cfg.rate = RateConfig::unthrottled();
    Client::new(cfg).expect("client")
}

/// The TUI opened on the fake: no cache yet, then the fresh read of the workbench; a
/// pane's retry reads again through `pane_reads::read_again`, as the real loader does.
fn open(fake: &RunningFake) -> Harness {
    let base = fake.base_url();
    let loader = Box::new(move |kind: LoadKind| match kind {
        LoadKind::Cache => Err(LoadError {
            message: "there is no cache yet".into(),
            missing_cache: true,
        }),
        _ => {
            let quiet = |_: SyncEvent| {};
            tieout::app::pane_reads::read(
                &client(&base),
                None,
                (tieout::tui::sample::NOW, &TimeZone::UTC),
                None,
                "default",
                &quiet,
            )
            .map(|r| Workspace::new(r.data, Vec::new()).with_gaps(r.gaps))
            .map_err(LoadError::new)
        }
    });
    let base = fake.base_url();
    let retry = Box::new(move |parts: Parts, account: &AccountIdent| {
        let quiet = |_: SyncEvent| {};
        tieout::app::pane_reads::read_again(
            &client(&base),
            account,
            (tieout::tui::sample::NOW, &TimeZone::UTC),
            parts,
            &quiet,
        )
        .map(|r| Workspace::new(r.data, Vec::new()).with_gaps(r.gaps))
        .map_err(LoadError::new)
    });
    let mut h =
        Harness::new(test_settings(Startup::CacheThenFresh), loader, 120, 40).with_retry(retry);
    h.start();
    h
}

/// The frame on one line, the marks' wrapping (between words, under the text) undone,
/// for substring checks.
fn flat(frame: &str) -> String {
    frame.lines().map(str::trim).collect::<Vec<_>>().join(" ")
}

#[test]
fn without_disputes_the_worklist_and_tie_out_are_fresh_and_the_dispute_parts_are_marked() {
    let fake = start_fake(FakeConfig::default());
    fake.deny(TEST_KEY, "rak_dispute_read");
    let mut h = open(&fake);
    let lacks = "this key lacks rak_dispute_read: add Read on Disputes in the Dashboard, then run `tieout login` again";

    let worklist = h.frame();
    assert!(!flat(&worklist).contains("lacks"), "{worklist}");
    assert!(worklist.contains("Failed payments"), "{worklist}");
    insta::assert_snapshot!("gaps_no_disputes_worklist_120x40", worklist);

    h.keys("2");
    let tieout = h.frame();
    assert!(
        flat(&tieout).contains(&format!("the dispute behind a line: {lacks}")),
        "{tieout}"
    );
    assert!(tieout.contains("po_"), "the payouts are fresh: {tieout}");
    insta::assert_snapshot!("gaps_no_disputes_tieout_120x40", tieout);

    h.keys("3");
    let refunds = h.frame();
    assert!(flat(&refunds).contains(lacks), "{refunds}");
    insta::assert_snapshot!("gaps_no_disputes_refunds_120x40", refunds);

    // The mark wraps between words, its second line under its text.
    h.keys("2");
    let wide = h.frame();
    assert!(
        wide.contains("then run `tieout\n  login` again\n"),
        "{wide}"
    );
    h.resize(80, 24);
    let narrow = h.frame();
    for line in narrow.lines().skip(1).take(3) {
        assert!(
            !line.ends_with("lo") && !line.starts_with("gin"),
            "{narrow}"
        );
    }
    insta::assert_snapshot!("gaps_no_disputes_tieout_80x24", narrow);
}

#[test]
fn without_payouts_the_tie_out_is_marked_and_the_worklist_is_fresh() {
    let fake = start_fake(FakeConfig::default());
    fake.deny(TEST_KEY, "rak_payout_read");
    let mut h = open(&fake);
    let worklist = h.frame();
    assert!(!flat(&worklist).contains("lacks"), "{worklist}");
    assert!(
        worklist.contains("Showing all"),
        "the worklist is fresh: {worklist}"
    );
    insta::assert_snapshot!("gaps_no_payouts_worklist_120x40", worklist);

    h.keys("2");
    let tieout = h.frame();
    assert!(
        flat(&tieout).contains(
            "this key lacks rak_payout_read: add Read on Payouts in the Dashboard, then run `tieout login` again"
        ),
        "{tieout}"
    );
    insta::assert_snapshot!("gaps_no_payouts_tieout_120x40", tieout);
    // The Refunds pane does not read payouts: not marked.
    h.keys("3");
    assert!(!flat(&h.frame()).contains("lacks"), "{}", h.frame());
}

/// A fake whose payouts fail for good: a 503 that Stripe says not to retry, until cleared.
fn payouts_failing() -> RunningFake {
    let fake = start_fake(FakeConfig::default());
    fake.inject(Fault::Status {
        path_prefix: "/v1/payouts".into(),
        status: 503,
        times: Fault::ALWAYS,
        should_retry: Some(false),
    });
    fake
}

/// Payouts failing for good (a 503 Stripe says not to retry) mark the Tie-out with the
/// error, not "no payouts arrived"; once Stripe recovers, `r` there reads the payouts
/// alone (the fake's log shows no other request, not even the account's), and the pane
/// is fresh while the Worklist keeps what it had.
#[test]
fn refresh_on_a_pane_whose_resource_failed_reads_that_resource_alone() {
    let fake = payouts_failing();
    let mut h = open(&fake);
    let worklist = h.frame();
    assert!(worklist.contains("Showing all 45 invoices"), "{worklist}");
    h.keys("2");
    let failed = flat(&h.frame());
    assert!(failed.contains("! payouts could not be read:"), "{failed}");
    assert!(
        failed.contains("The payouts could not be read (the error is above; r reads them again)"),
        "the month says why, not that none arrived: {failed}"
    );
    assert!(!failed.contains("No payouts arrived"), "{failed}");
    h.keys("P");
    let refused = flat(&h.frame());
    assert!(
        refused.contains("Close packet 2026-11 not written: it holds every part of the account, and payouts could not be read:"),
        "{refused}"
    );
    assert!(
        refused.contains("Press r to read payouts again."),
        "{refused}"
    );

    fake.clear_faults();
    fake.clear_requests();
    h.keys("r");
    let paths: Vec<String> = fake.requests().into_iter().map(|r| r.path).collect();
    assert!(!paths.is_empty(), "the retry read nothing");
    assert!(
        paths
            .iter()
            // The payouts resource: the payouts, their lines and the balance (issue 33).
            .all(|p| p == "/v1/payouts" || p == "/v1/balance_transactions" || p == "/v1/balance"),
        "the retry read more than the payouts: {paths:?}"
    );
    let fresh = h.frame();
    assert!(!flat(&fresh).contains("could not be read"), "{fresh}");
    assert!(
        !flat(&fresh).contains("not written"),
        "the refusal went with the gap: {fresh}"
    );
    insta::assert_snapshot!("gaps_payouts_retried_tieout_120x40", fresh);
    h.keys("1");
    let after = h.frame();
    assert!(after.contains("Showing all 45 invoices"), "{after}");
}

/// Read again and failing again: the mark stays, with the new error, and the status line
/// says the payouts still could not be read.
#[test]
fn a_retry_that_fails_again_keeps_the_mark() {
    let fake = payouts_failing();
    let mut h = open(&fake);
    h.keys("2");
    fake.clear_requests();
    h.keys("r");
    let mut paths: Vec<String> = fake.requests().into_iter().map(|r| r.path).collect();
    // The payouts and the balance, read side by side with the same permission.
    paths.sort();
    assert_eq!(
        paths,
        vec!["/v1/balance".to_string(), "/v1/payouts".to_string()],
        "{paths:?}"
    );
    let frame = flat(&h.frame());
    assert!(frame.contains("! payouts could not be read:"), "{frame}");
    assert!(frame.contains("payouts still could not be read"), "{frame}");
}

/// With a key that lacks disputes the Tie-out's close packet key writes nothing: the
/// packet would hold an empty disputes.csv. It says what could not be read and what to
/// do, as `tieout close` with the same key does (exit 3, naming the permission, no
/// folder).
#[test]
fn without_disputes_the_close_packet_is_refused_as_tieout_close_refuses_it() {
    let fake = start_fake(FakeConfig::default());
    fake.deny(TEST_KEY, "rak_dispute_read");
    let mut h = open(&fake);
    h.keys("2");
    h.keys("P");
    assert!(
        !matches!(h.state.mode, tieout::tui::state::Mode::Prompt(_)),
        "no folder is offered"
    );
    assert!(
        !h.log
            .iter()
            .any(|e| matches!(e, tieout::tui::msg::Effect::ExportPacket { .. })),
        "{:?}",
        h.log
    );
    let frame = h.frame();
    let text = flat(&frame);
    assert!(
        text.contains("Close packet 2026-11 not written: it holds every part of the account, and this key lacks rak_dispute_read: add Read on Disputes in the Dashboard"),
        "{frame}"
    );
    insta::assert_snapshot!("gaps_no_disputes_packet_refused_120x40", frame);

    let t = Tieout::against(&fake);
    let out = t.run(&["close", "--month", "2026-11", "--out", "packet"]);
    assert_eq!(out.code, Some(3), "{}", out.stderr);
    assert!(out.stderr.contains("rak_dispute_read"), "{}", out.stderr);
    assert!(!t.work_dir().join("packet").exists());
}

/// Without payouts the Tie-out's reports (reconciliation files, journal) are refused,
/// saying why, instead of writing a month with no payouts.
#[test]
fn without_payouts_the_tie_out_exports_nothing() {
    let fake = start_fake(FakeConfig::default());
    fake.deny(TEST_KEY, "rak_payout_read");
    let mut h = open(&fake);
    h.keys("2");
    for key in ["e", "J"] {
        h.keys(key);
        let frame = flat(&h.frame());
        assert!(
            frame.contains("nothing was exported: this key lacks rak_payout_read"),
            "{key}: {frame}"
        );
    }
    assert!(
        !h.log
            .iter()
            .any(|e| matches!(e, tieout::tui::msg::Effect::Write { .. })),
        "{:?}",
        h.log
    );
}
