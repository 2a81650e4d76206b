//! The workbench with a restricted key that lacks a permission, through the fake Stripe
//! and the real client: only the panes (and columns) that need the missing resource are
//! marked, with the permission to add; the other panes load fresh.

use jiff::tz::TimeZone;
use tieout::secrets::ApiKey;
use tieout::source::progress::SyncEvent;
use tieout::stripe::{Client, ClientConfig, RateConfig};
use tieout::tui::harness::{Harness, test_settings};
use tieout::tui::state::Startup;
use tieout::tui::workspace::{LoadError, LoadKind, Workspace};

use crate::support::{FakeConfig, RunningFake, TEST_KEY, start_fake};

/// The TUI opened on the fake: no cache yet, then the fresh read of the workbench.
fn open(fake: &RunningFake) -> Harness {
    let base = fake.base_url();
    let loader = Box::new(move |kind: LoadKind| match kind {
        LoadKind::Cache => Err(LoadError {
            message: "there is no cache yet".into(),
            missing_cache: true,
        }),
        _ => {
            let key = ApiKey::parse(TEST_KEY).expect("key");
            let mut cfg = ClientConfig::new(base.clone(), key);
            cfg.rate = RateConfig::unthrottled();
            let client = Client::new(cfg).expect("client");
            let quiet = |_: SyncEvent| {};
            tieout::app::pane_reads::read(
                &client,
                None,
                (tieout::tui::sample::NOW, &TimeZone::UTC),
                None,
                "default",
                None,
                &quiet,
            )
            .map(|r| Workspace::new(r.data, Vec::new()).with_gaps(r.gaps))
            .map_err(LoadError::new)
        }
    });
    let mut h = Harness::new(test_settings(Startup::CacheThenFresh), loader, 120, 40);
    h.start();
    h
}

/// The frame without the status line's clock-free parts that vary (none here) and with
/// the marks' wrapping undone, for substring checks.
fn flat(frame: &str) -> String {
    frame
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("")
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
