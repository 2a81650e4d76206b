//! `tieout reconcile` end to end through the binary on the demo account: golden files of
//! the three exports for each demo month and an empty one, the bookkeeper's check (a
//! payout's CSV `net` column sums to the Markdown figure and the payout amount), exit
//! codes (2 for a bad month or a refused overwrite, 5 for a difference).
//!
//! Regenerate the goldens after an intended change with `UPDATE_GOLDEN=1 cargo test --test
//! it reconcile` and review the diff.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

use tieout::money::{Currency, parse_major};

const NOW: &str = "2026-11-30T12:00:00Z";
/// The demo months with payouts, and one with none.
const MONTHS: [&str; 4] = ["2026-09", "2026-10", "2026-11", "2026-12"];
const FILES: [&str; 3] = [
    "payout-reconciliation.csv",
    "reconciliation.md",
    "reconciliation.json",
];

fn golden_dir(month: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/reconcile")
        .join(month)
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn tieout(args: &[&str]) -> Run {
    let out = Command::cargo_bin("tieout")
        .expect("binary")
        .env_remove("STRIPE_API_KEY")
        .env_remove("TIEOUT_API_BASE")
        .args(args)
        .output()
        .expect("run tieout");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn reconcile_demo(month: &str, out: &Path, extra: &[&str]) -> Run {
    let out = out.to_str().expect("utf8 path");
    let mut args = vec![
        "--demo", "--now", NOW, "reconcile", "--month", month, "--out", out,
    ];
    args.extend_from_slice(extra);
    tieout(&args)
}

/// Compares `actual` with the golden file, or writes it under UPDATE_GOLDEN=1.
fn check_golden(path: &Path, actual: &[u8]) {
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, actual).expect("write golden");
        return;
    }
    let expected = std::fs::read(path).unwrap_or_else(|_| {
        panic!(
            "no golden file {}: run UPDATE_GOLDEN=1 cargo test --test it reconcile",
            path.display()
        )
    });
    if expected != actual {
        let exp = String::from_utf8_lossy(&expected);
        let act = String::from_utf8_lossy(actual);
        let first = exp
            .lines()
            .zip(act.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(exp.lines().count().min(act.lines().count()));
        panic!(
            "{} differs from the golden file, first at line {}:\n  golden: {:?}\n  actual: {:?}\n(UPDATE_GOLDEN=1 to accept an intended change)",
            path.display(),
            first + 1,
            exp.lines().nth(first),
            act.lines().nth(first)
        );
    }
}

#[test]
fn demo_months_match_their_golden_files() {
    for month in MONTHS {
        let dir = tempfile::tempdir().expect("tempdir");
        let run = reconcile_demo(month, dir.path(), &[]);
        assert!(
            run.code == 0 || run.code == 5,
            "{month}: exit {} {}",
            run.code,
            run.stderr
        );
        for name in FILES {
            let bytes = std::fs::read(dir.path().join(name)).expect("file written");
            check_golden(&golden_dir(month).join(name), &bytes);
        }
        let shown = format!(
            "{}exit: {}\n{}",
            run.stdout.replace(&dir.path().display().to_string(), "<OUT>"),
            run.code,
            run.stderr
        );
        check_golden(&golden_dir(month).join("stdout.txt"), shown.as_bytes());
    }
}

#[test]
fn the_empty_month_says_no_payouts_arrived() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = reconcile_demo("2026-12", dir.path(), &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("No payouts arrived in this month."));
    let md = std::fs::read_to_string(dir.path().join("reconciliation.md")).expect("md");
    assert!(md.contains("No payouts arrived in this month."));
    let csv = std::fs::read_to_string(dir.path().join("payout-reconciliation.csv")).expect("csv");
    assert_eq!(csv.lines().count(), 1, "header only");
}

/// A bookkeeper picks any payout in the CSV, sums its `net` column and gets the
/// Markdown's "Lines' net" figure and, when it ties out, the payout amount.
#[test]
fn each_payouts_csv_net_sums_to_the_markdown_figure_and_the_amount() {
    let mut checked = 0;
    for month in &MONTHS[..3] {
        let dir = tempfile::tempdir().expect("tempdir");
        let run = reconcile_demo(month, dir.path(), &["--format", "csv,md,json"]);
        assert!(run.code == 0 || run.code == 5, "{}", run.stderr);
        let md = std::fs::read_to_string(dir.path().join("reconciliation.md")).expect("md");
        let json: serde_json::Value = serde_json::from_slice(
            &std::fs::read(dir.path().join("reconciliation.json")).expect("json"),
        )
        .expect("parse json");
        let mut reader = csv::Reader::from_path(dir.path().join("payout-reconciliation.csv"))
            .expect("csv");
        let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("row")).collect();
        for p in json["payouts"].as_array().expect("payouts") {
            if p["itemised"] != true {
                assert!(p["lines_net"].is_null() && p["difference"].is_null());
                continue;
            }
            let id = p["id"].as_str().expect("id");
            let cur = Currency::parse(p["currency"].as_str().expect("cur")).expect("currency");
            let sum: i64 = rows
                .iter()
                .filter(|r| &r[0] == id && &r[7] == cur.as_str())
                .map(|r| parse_major(&r[10], cur).expect("net"))
                .sum();
            let figure = format!(
                "- Lines' net: {} {cur}",
                tieout::money::format_major(sum, cur)
            );
            let section = md
                .split("\n### ")
                .find(|s| s.contains(&format!(" · {id} · ")))
                .expect("payout section");
            assert!(section.contains(&figure), "{month} {id}: {figure}");
            let amount = p["amount"].as_i64().expect("amount");
            assert_eq!(p["lines_net"].as_i64(), Some(sum), "{id}");
            if p["result"] == "tied" {
                assert_eq!(sum, amount, "{id} ties out to its amount");
                assert!(!section.contains("**Difference"));
            } else {
                assert_eq!(p["difference"].as_i64(), Some(sum - amount));
            }
            checked += 1;
        }
    }
    assert!(checked > 0, "the demo has itemised payouts");
}

#[test]
fn a_bad_month_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    for bad in ["2026-13", "october", "2026-1"] {
        let run = reconcile_demo(bad, dir.path(), &[]);
        assert_eq!(run.code, 2, "{bad}");
        assert!(
            run.stderr
                .contains(&format!("'{bad}' is not a month: write it as YYYY-MM")),
            "{}",
            run.stderr
        );
    }
    assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 0);
}

#[test]
fn a_different_earlier_export_is_not_replaced_without_force() {
    let dir = tempfile::tempdir().expect("tempdir");
    let first = reconcile_demo("2026-10", dir.path(), &[]);
    assert!(first.code == 0 || first.code == 5, "{}", first.stderr);
    let before = std::fs::read(dir.path().join("reconciliation.md")).expect("md");
    let again = reconcile_demo("2026-10", dir.path(), &[]);
    assert_eq!(again.code, first.code, "the same run is harmless");
    assert!(again.stdout.contains("unchanged"));
    let other = reconcile_demo("2026-09", dir.path(), &[]);
    assert_eq!(other.code, 2, "{}", other.stderr);
    assert!(other.stderr.contains("pass --force"), "{}", other.stderr);
    assert_eq!(
        std::fs::read(dir.path().join("reconciliation.md")).expect("md"),
        before
    );
    let forced = reconcile_demo("2026-09", dir.path(), &["--force"]);
    assert!(forced.code == 0 || forced.code == 5, "{}", forced.stderr);
    assert_ne!(
        std::fs::read(dir.path().join("reconciliation.md")).expect("md"),
        before
    );
}

/// Doctor the demo: drop one line of a tied payout. The command exits 5, names the
/// payout and the exact difference, and still writes the files.
#[test]
fn a_doctored_difference_exits_5_and_still_writes() {
    use tieout::cli::{Formats, GlobalArgs, reconcile};
    let mut data = tieout::source::demo::load_demo().expect("demo");
    let month: tieout::time::Month = "2026-10".parse().expect("month");
    let tz = jiff::tz::TimeZone::UTC;
    let clean = tieout::domain::tieout::tie_out_month(
        &data.payouts,
        &data.balance_transactions,
        month,
        &tz,
    );
    let victim = clean
        .payouts
        .iter()
        .find(|p| {
            p.verdict == tieout::domain::tieout::Verdict::Tied
                && p.itemisation.as_ref().is_some_and(|i| !i.lines.is_empty())
        })
        .expect("a tied payout with lines");
    let line = victim.itemisation.as_ref().expect("lines").lines[0].clone();
    data.balance_transactions
        .retain(|t| !(t.id == line.id && t.payout == line.payout));

    let ctx = tieout::cli::Ctx {
        global: demo_global(),
        now: tieout::time::parse_instant(NOW).expect("now"),
        tz,
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let formats = Formats::parse("md,csv,json").expect("formats");
    let f = reconcile::run_on(&ctx, month, &data, dir.path(), formats, false)
        .expect_err("a difference");
    assert_eq!(f.kind.code(), 5);
    let expected = format!(
        "{} (difference {} {})",
        victim.payout.id,
        tieout::money::format_major(-line.net, line.currency),
        line.currency
    );
    assert!(f.message.contains(&expected), "{}", f.message);
    for name in FILES {
        assert!(dir.path().join(name).exists(), "{name} still written");
    }
    fn demo_global() -> GlobalArgs {
        use clap::Parser;
        tieout::cli::Cli::parse_from(["tieout", "--demo", "--now", NOW]).global
    }
}
