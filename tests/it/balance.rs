//! `tieout balance` end to end through the binary (issue 33): golden files of the five
//! exports on the demo account, and the roll-forward's identities over the demo's months.
//!
//! Regenerate the goldens after an intended change with `UPDATE_GOLDEN=1 cargo test --test
//! it balance` and review the diff.

use std::collections::BTreeMap;

use crate::support::cli::Tieout;
use crate::support::golden::{assert_golden, assert_golden_bytes};

const FILES: [&str; 5] = [
    "balance-rollforward.csv",
    "balance-activity.csv",
    "fees.csv",
    "balance.md",
    "balance.json",
];

fn read(t: &Tieout, name: &str) -> String {
    std::fs::read_to_string(t.work_dir().join(name)).expect(name)
}

#[test]
fn demo_exports_match_their_golden_files() {
    let t = Tieout::demo();
    let run = t.run(&["balance", "--month", "2026-10"]);
    run.success();
    for name in FILES {
        let bytes = std::fs::read(t.work_dir().join(name)).expect("file written");
        assert_golden_bytes(&format!("balance/{name}"), &bytes);
    }
    assert_golden("balance/stdout.txt", &run.stdout);
}

/// Minor units of a major-unit cell, exactly (no floats).
fn minor(cell: &str) -> i128 {
    let neg = cell.starts_with('-');
    let digits: String = cell.chars().filter(char::is_ascii_digit).collect();
    let v: i128 = digits.parse().expect("number");
    if neg { -v } else { v }
}

/// Every demo month rolls forward, each month opens where the last one closed, and the
/// closing splits into available and pending.
#[test]
fn the_demo_months_roll_forward_into_each_other() {
    let mut prev: BTreeMap<String, i128> = BTreeMap::new();
    for m in ["2026-08", "2026-09", "2026-10", "2026-11"] {
        let t = Tieout::demo();
        t.run(&["balance", "--month", m, "--format", "csv"])
            .success();
        let csv = read(&t, "balance-rollforward.csv");
        for row in csv.lines().skip(1) {
            let c: Vec<&str> = row.split(',').collect();
            let [open, act, pay, close, avail, pend] =
                [c[1], c[2], c[3], c[4], c[5], c[6]].map(minor);
            assert_eq!(open + act + pay, close, "{m} {row}");
            assert_eq!(avail + pend, close, "{m} {row}");
            if let Some(p) = prev.get(c[0]) {
                assert_eq!(*p, open, "{m} opens where the month before closed: {row}");
            }
            prev.insert(c[0].to_string(), close);
        }
    }
}

/// The fee statement's total per currency is the month's line fees plus the fee lines,
/// summed apart from the activity file.
#[test]
fn the_fee_statement_totals_what_the_activity_shows() {
    let t = Tieout::demo();
    t.run(&["balance", "--month", "2026-10", "--format", "csv"])
        .success();
    let mut fees: BTreeMap<String, i128> = BTreeMap::new();
    for row in read(&t, "fees.csv").lines().skip(1) {
        let c: Vec<&str> = row.split(',').collect();
        *fees.entry(c[0].to_string()).or_default() += minor(c[4]);
    }
    let mut independent: BTreeMap<String, i128> = BTreeMap::new();
    for row in read(&t, "balance-activity.csv").lines().skip(1) {
        let c: Vec<&str> = row.split(',').collect();
        let e = independent.entry(c[0].to_string()).or_default();
        if c[1] == "fee" {
            *e -= minor(c[5]);
        } else {
            *e += minor(c[4]);
        }
    }
    assert!(!fees.is_empty());
    assert_eq!(fees, independent);
}
