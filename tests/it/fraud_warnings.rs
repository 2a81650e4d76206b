//! `tieout suggest --fraud-warnings` end to end through the binary (issue 37): golden
//! files of the queue on the demo, the same bytes read fresh through the fake Stripe and
//! from its cache, a key without Radar's read (recorded, never a failed read), and the
//! exit codes of arguments that do not go together.
//!
//! Regenerate the goldens after an intended change with `UPDATE_GOLDEN=1 cargo test --test
//! it fraud_warnings` and review the diff.

use crate::support::cli::Tieout;
use crate::support::fake::start_fake;
use crate::support::golden::{assert_golden, assert_golden_bytes};
use crate::support::{FakeConfig, TEST_KEY};

const FILES: [&str; 2] = ["fraud-warnings.csv", "fraud-warnings.md"];
const RADAR: &str = "rak_radar_early_fraud_warning_read";

fn read(t: &Tieout, name: &str) -> String {
    std::fs::read_to_string(t.work_dir().join(name)).expect(name)
}

#[test]
fn demo_exports_match_their_golden_files() {
    let t = Tieout::demo();
    let run = t.run(&["suggest", "--fraud-warnings"]);
    run.success();
    for name in FILES {
        let bytes = std::fs::read(t.work_dir().join(name)).expect("file written");
        assert_golden_bytes(&format!("suggest/fraud_warnings/{name}"), &bytes);
    }
    assert_golden("suggest/fraud_warnings/stdout.txt", &run.stdout);
}

/// The demo holds every case: two currencies to refund, a warning above the limit, one in
/// a currency with no limit, one not actionable; the refunded and disputed are off it.
#[test]
fn the_demo_queue_holds_every_case() {
    let t = Tieout::demo();
    t.run(&["suggest", "--fraud-warnings"]).success();
    let csv = read(&t, "fraud-warnings.csv");
    let rows: Vec<Vec<String>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    let refund_currencies: std::collections::BTreeSet<&str> = rows
        .iter()
        .filter(|r| r[9] == "refund")
        .map(|r| r[7].as_str())
        .collect();
    assert!(refund_currencies.len() >= 2, "{csv}");
    assert!(
        rows.iter().any(|r| r[5] == "no" && r[9] == "review"),
        "{csv}"
    );
    assert!(csv.contains("is above the policy's limit"), "{csv}");
    let md = read(&t, "fraud-warnings.md");
    assert!(
        md.contains("Off the list: 1 on a fully refunded charge, 1 on a disputed charge."),
        "{md}"
    );
}

/// Read fresh through the fake Stripe (which serves the demo), the queue is the demo's,
/// byte for byte; the warnings list is read once with its charges' fees expanded.
#[test]
fn a_fresh_read_through_the_fake_is_the_demos_queue() {
    let demo = Tieout::demo();
    demo.run(&["suggest", "--fraud-warnings"]).success();
    let fake = start_fake(FakeConfig::default());
    let t = Tieout::against(&fake);
    t.run(&["suggest", "--fraud-warnings"]).success();
    assert_eq!(
        read(&t, "fraud-warnings.csv"),
        read(&demo, "fraud-warnings.csv")
    );
    let reqs = fake.requests();
    let warnings: Vec<_> = reqs
        .iter()
        .filter(|r| r.path == "/v1/radar/early_fraud_warnings")
        .collect();
    assert_eq!(warnings.len(), 1, "one page of eight warnings");
    assert!(
        warnings[0]
            .query
            .contains("data.charge.balance_transaction"),
        "{}",
        warnings[0].query
    );
    assert!(
        reqs.iter()
            .all(|r| r.path != "/v1/invoices" && r.path != "/v1/payouts"),
        "only what the queue needs is read"
    );
}

/// A key without Radar's read still gets the rest: the files say which permission to
/// add, the command succeeds, and the note is on stderr.
#[test]
fn without_radars_read_the_queue_names_the_permission() {
    let fake = start_fake(FakeConfig::default().deny(TEST_KEY, [RADAR]));
    let t = Tieout::against(&fake);
    let run = t.run(&["suggest", "--fraud-warnings"]);
    run.success();
    assert!(run.stderr.contains(RADAR), "{}", run.stderr);
    let md = read(&t, "fraud-warnings.md");
    assert!(md.contains(RADAR) && md.contains("may not read"), "{md}");
    assert_eq!(read(&t, "fraud-warnings.csv").lines().count(), 1);
}

#[test]
fn fraud_warnings_do_not_go_with_a_ticket() {
    let t = Tieout::demo();
    t.run(&["suggest", "--fraud-warnings", "--email", "a@b.c"])
        .code(2);
    t.run(&["suggest", "--fraud-warnings", "--tickets", "x.csv"])
        .code(2);
}
