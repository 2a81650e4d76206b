//! `tieout journal` end to end: golden files of every format and both styles for the demo
//! months, the journals checked by `bean-check` and `hledger check` (said loudly when a
//! tool is missing, and a failure under `CI=true`), the clearing account netting to zero
//! over each itemised payout, an unmapped category and a malformed map refused with their
//! names, `init-accounts` never replacing a map without `--force`, and a month that does
//! not tie out written with its difference in suspense and exit 5.
//!
//! Regenerate the goldens after an intended change with
//! `UPDATE_GOLDEN=1 cargo test --test it journal` and review the diff.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::process::Command;

use crate::support::{FakeConfig, RunOutput, Tieout, assert_golden_dir, start_fake};

use tieout_core::journal::{AccountMap, DEFAULT_MAP, Style, build};

const MONTHS: [&str; 2] = ["2026-10", "2026-11"];
const ALL: &str = "beancount,hledger,ledger,qbo-journal,xero-journal,qbo-bank,xero-bank";

fn journal(t: &Tieout, month: &str, style: &str, out: &str, extra: &[&str]) -> RunOutput {
    let mut args = vec![
        "journal", "--month", month, "--style", style, "--format", ALL, "--out", out,
    ];
    args.extend_from_slice(extra);
    t.run(&args)
}

#[test]
fn demo_months_match_the_goldens_in_every_format_and_style() {
    let t = Tieout::demo();
    for month in MONTHS {
        for style in ["daily", "per-payout"] {
            let out = format!("{month}-{style}");
            let run = journal(&t, month, style, &out, &[]);
            run.success();
            assert!(
                run.stdout.contains(&format!("{style} style")),
                "{}",
                run.stdout
            );
            assert_golden_dir(
                &format!("journal/{month}/{style}"),
                &t.work_dir().join(&out),
            );
        }
    }
}

/// Runs an external checker when it is installed. A missing tool is said on stderr and
/// fails the test under `CI=true` (CI installs both), so it never passes silently there.
pub(crate) fn external_check(tool: &str, args: &[&str], file: &Path) {
    let found = Command::new(tool).arg("--version").output().is_ok();
    if !found {
        let msg = format!(
            "{tool} is not installed: {} was NOT checked by it (install it: see .ci/run)",
            file.display()
        );
        // Straight to stderr, past the test harness's capture, so it shows on a pass too.
        let _ = writeln!(std::io::stderr(), "SKIPPED: {msg}");
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "under CI=true every checker must run: {msg}"
        );
        return;
    }
    let out = Command::new(tool)
        .args(args)
        .arg(file)
        .output()
        .expect("run the checker");
    assert!(
        out.status.success(),
        "{tool} rejects {}:\n{}\n{}",
        file.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn check_with_tools(dir: &Path, month: &str) {
    external_check(
        "bean-check",
        &[],
        &dir.join(format!("journal-{month}.beancount")),
    );
    hledger_check(&dir.join(format!("journal-{month}.hledger.journal")));
}

/// `hledger -f FILE check` (the file must come before the command's name), when hledger is
/// installed (as [`external_check`] says when it is not).
pub(crate) fn hledger_check(file: &Path) {
    let found = Command::new("hledger").arg("--version").output().is_ok();
    if found {
        let out = Command::new("hledger")
            .arg("-f")
            .arg(file)
            .arg("check")
            .output()
            .expect("run hledger");
        assert!(
            out.status.success(),
            "hledger check rejects {}:\n{}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    } else {
        external_check("hledger", &[], file);
    }
}

#[test]
fn bean_check_and_hledger_check_accept_the_demo_journals() {
    let t = Tieout::demo();
    for month in MONTHS {
        for style in ["daily", "per-payout"] {
            let out = format!("{month}-{style}");
            journal(&t, month, style, &out, &[]).success();
            check_with_tools(&t.work_dir().join(&out), month);
        }
    }
}

#[test]
fn clearing_nets_to_zero_over_each_itemised_payout_of_the_demo_and_holds_what_was_not_paid_out() {
    let data = tieout::source::demo::load_demo().expect("demo");
    let map = AccountMap::parse(DEFAULT_MAP).expect("map");
    for month in MONTHS {
        let m: tieout::time::Month = month.parse().expect("month");
        let tz = jiff::tz::TimeZone::UTC;
        let t = tieout::domain::tieout::tie_out_month(
            &data.payouts,
            &data.balance_transactions,
            m,
            &tz,
        );
        let later = tieout::domain::tieout::tie_out_after(
            &data.payouts,
            &data.balance_transactions,
            m,
            &tz,
        );
        let j = build(&t, &later, &map, Style::Daily, &tz).expect("journal");
        assert!(j.ties_out(), "{month} ties out");
        // The month-end balance is what Stripe had not paid out: the net of the lines
        // created by the month's end that a later reconciled payout pays out, summed here
        // from the rows, less the month's payouts Stripe could not itemise.
        let (_, end) = m.range(&tz);
        let mut unpaid: BTreeMap<_, i64> = BTreeMap::new();
        for p in data.payouts.iter().filter(|p| {
            p.arrival_date >= end
                && p.automatic
                && p.method != "instant"
                && p.reconciliation_status
                    == tieout_core::model::status::ReconciliationStatus::Completed
        }) {
            for l in data.balance_transactions.iter().filter(|l| {
                l.payout.as_deref() == Some(p.id.as_str())
                    && l.created < end
                    && p.balance_transaction.as_deref() != Some(l.id.as_str())
            }) {
                *unpaid.entry(l.currency).or_insert(0) += l.net;
            }
        }
        for (c, v) in &j.clearing_at_end {
            let out: i64 = t
                .payouts
                .iter()
                .filter(|p| p.itemisation.is_none() && p.currency() == *c)
                .map(|p| p.payout.amount)
                .sum();
            assert_eq!(*v, unpaid.get(c).copied().unwrap_or(0) - out, "{month} {c}");
        }
        if month == "2026-10" {
            assert!(
                unpaid.values().any(|v| *v != 0),
                "October's end has lines November pays out"
            );
        }
        let mut by: BTreeMap<&str, i64> = BTreeMap::new();
        for e in &j.entries {
            assert!(e.balances(), "{e:?}");
            for p in &e.postings {
                if j.clearing.get(&p.currency) == Some(&p.account) {
                    *by.entry(e.payout.as_str()).or_insert(0) += p.amount;
                }
            }
        }
        for p in &t.payouts {
            let sum = by.get(p.payout.id.as_str()).copied().unwrap_or(0);
            if p.itemisation.is_some() {
                assert_eq!(sum, 0, "{month} {}", p.payout.id);
            } else {
                assert_eq!(sum, -p.payout.amount, "{month} {}", p.payout.id);
            }
        }
        // A later payout's accrual and its reversal cancel in clearing.
        for q in &later {
            let sum = by.get(q.payout.id.as_str()).copied().unwrap_or(0);
            assert_eq!(sum, 0, "{month} accrual of {}", q.payout.id);
        }
    }
}

#[test]
fn an_unmapped_category_and_a_malformed_map_are_named() {
    let t = Tieout::demo();
    let dir = t.work_dir();
    let no_refund = DEFAULT_MAP.replace("refund = \"Income:Sales:Refunds\"\n", "");
    let path = dir.join("no-refund.toml");
    std::fs::write(&path, no_refund).expect("write map");
    let run = journal(
        &t,
        "2026-10",
        "daily",
        "x",
        &["--accounts", path.to_str().expect("utf8")],
    );
    run.code(2);
    assert!(
        run.stderr.contains("reporting category 'refund'"),
        "{}",
        run.stderr
    );

    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        "[accounts]\nclearing = \"Assets:Stripe:Clearing\"\nsuspense = oops\n",
    )
    .expect("write map");
    let run = journal(
        &t,
        "2026-10",
        "daily",
        "y",
        &["--accounts", bad.to_str().expect("utf8")],
    );
    run.code(2);
    assert!(run.stderr.contains("line 3, column 12"), "{}", run.stderr);
}

#[test]
fn init_accounts_writes_the_default_and_never_replaces_without_force() {
    let t = Tieout::demo();
    let path = t.home().join(".config/tieout/accounts.toml");
    t.run(&["init-accounts"]).success();
    assert_eq!(std::fs::read_to_string(&path).expect("map"), DEFAULT_MAP);
    // The same content again is fine.
    t.run(&["init-accounts"]).success();
    std::fs::write(&path, "# mine\n").expect("edit");
    let run = t.run(&["init-accounts"]);
    run.code(2);
    assert_eq!(std::fs::read_to_string(&path).expect("map"), "# mine\n");
    t.run(&["init-accounts", "--force"]).success();
    assert_eq!(std::fs::read_to_string(&path).expect("map"), DEFAULT_MAP);
    // The journal reads the map in the config folder.
    std::fs::write(
        &path,
        DEFAULT_MAP.replace("Income:Sales\"", "Income:Revenue\""),
    )
    .expect("edit");
    journal(&t, "2026-10", "daily", "z", &[]).success();
    let text = std::fs::read_to_string(t.work_dir().join("z/journal-2026-10.beancount"))
        .expect("beancount");
    assert!(text.contains("Income:Revenue"));
}

/// The demo fixtures with one line taken out of a tied payout's listing: the journal is
/// written with the difference in suspense, it still passes the checkers, and exits 5.
#[test]
fn a_month_that_does_not_tie_out_books_suspense_and_exits_5() {
    let (fixtures, victim, line) = crate::support::fake::demo_fixtures_missing_one_line();

    let fake = start_fake(FakeConfig {
        fixtures: fixtures.path().to_path_buf(),
        ..FakeConfig::default()
    });
    let t = Tieout::against(&fake);
    let run = journal(&t, "2026-10", "daily", "out", &[]);
    run.code(5);
    let amount = tieout::money::format_major(-line.net, line.currency);
    let named = format!("{victim} {amount} {}", line.currency);
    assert!(run.stderr.contains(&named), "{named} in {}", run.stderr);
    let dir = t.work_dir().join("out");
    let text =
        std::fs::read_to_string(dir.join("journal-2026-10.beancount")).expect("still written");
    assert!(text.contains("DOES NOT TIE OUT"), "{text}");
    assert!(text.contains("Assets:Stripe:Suspense"));
    check_with_tools(&dir, "2026-10");
}
