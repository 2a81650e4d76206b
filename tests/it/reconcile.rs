//! `tieout reconcile` end to end through the binary: golden files of the three exports
//! for each demo month and an empty one (`--demo`), the same goldens through the fake
//! Stripe server (`--api-base`: command and fake agree), the bookkeeper's check (a
//! payout's CSV `net` column sums to the Markdown figure and the payout amount), and the
//! exit codes (2 for a bad month or a refused overwrite, 5 for a payout that does not tie
//! out, with the files still written).
//!
//! Regenerate the goldens after an intended change with
//! `UPDATE_GOLDEN=1 cargo test --test it reconcile` and review the diff.

use std::path::Path;

use crate::support::{FakeConfig, RunOutput, Tieout, assert_golden, assert_golden_dir, start_fake};

use tieout::money::{Currency, format_major, parse_major};

/// The demo months with payouts, and one with none.
const MONTHS: [&str; 4] = ["2026-09", "2026-10", "2026-11", "2026-12"];
const FILES: [&str; 3] = [
    "payout-reconciliation.csv",
    "reconciliation.md",
    "reconciliation.json",
];

fn reconcile(t: &Tieout, month: &str, extra: &[&str]) -> RunOutput {
    let mut args = vec!["reconcile", "--month", month, "--out", month];
    args.extend_from_slice(extra);
    t.run(&args)
}

#[track_caller]
fn tied_or_5(out: &RunOutput) {
    assert!(
        matches!(out.code, Some(0) | Some(5)),
        "exit {:?}\n{}\n{}",
        out.code,
        out.stdout,
        out.stderr
    );
}

#[test]
fn demo_months_match_their_golden_files() {
    let t = Tieout::demo();
    for month in MONTHS {
        let out = reconcile(&t, month, &[]);
        tied_or_5(&out);
        let dir = t.work_dir().join(month);
        assert_golden_dir(&format!("reconcile/{month}/files"), &dir);
        assert_golden(
            &format!("reconcile/{month}/stdout.txt"),
            &format!(
                "{}exit: {:?}\n{}",
                out.stdout,
                out.code.unwrap_or(-1),
                out.stderr
            ),
        );
    }
}

/// The lines that say where the data came from (origin, read time) differ between the
/// bundled demo and a read from the fake; everything else must be identical.
fn without_provenance(name: &str, bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    match name {
        "reconciliation.md" => text
            .lines()
            .filter(|l| !l.starts_with("- **Data:**"))
            .collect::<Vec<_>>()
            .join("\n"),
        "reconciliation.json" => {
            let mut v: serde_json::Value = serde_json::from_str(&text).expect("json");
            for key in ["origin", "read_at_utc"] {
                v[key] = serde_json::Value::Null;
            }
            serde_json::to_string_pretty(&v).expect("json")
        }
        _ => text.into_owned(),
    }
}

#[test]
fn the_fake_stripe_server_gives_the_same_files_as_the_demo() {
    // Let the restricted test key read the account's name, as the demo knows it.
    let fake = start_fake(FakeConfig {
        account_readable_by_restricted_keys: true,
        ..FakeConfig::default()
    });
    let t = Tieout::against(&fake);
    for month in MONTHS {
        let out = reconcile(&t, month, &[]);
        tied_or_5(&out);
        for name in FILES {
            let got = std::fs::read(t.work_dir().join(month).join(name)).expect("written");
            let golden = std::fs::read(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/golden/reconcile")
                    .join(month)
                    .join("files")
                    .join(name),
            )
            .expect("golden file (run the demo golden test first)");
            assert_eq!(
                without_provenance(name, &got),
                without_provenance(name, &golden),
                "{month} {name}: the command through the fake differs from the demo golden"
            );
        }
        let md = std::fs::read_to_string(t.work_dir().join(month).join("reconciliation.md"))
            .expect("md");
        assert!(
            md.contains("- **Data:** read from Stripe at 2026-11-30T12:00:00Z"),
            "{md}"
        );
    }
}

#[test]
fn the_empty_month_says_no_payouts_arrived() {
    let t = Tieout::demo();
    let out = reconcile(&t, "2026-12", &[]);
    out.success();
    assert!(out.stdout.contains("No payouts arrived in this month."));
    let dir = t.work_dir().join("2026-12");
    let md = std::fs::read_to_string(dir.join("reconciliation.md")).expect("md");
    assert!(md.contains("No payouts arrived in this month."));
    let csv = std::fs::read_to_string(dir.join("payout-reconciliation.csv")).expect("csv");
    assert_eq!(csv.lines().count(), 1, "header only");
}

/// A bookkeeper picks any payout in the CSV, sums its `net` column and gets the
/// Markdown's "Lines' net" figure and, when it ties out, the payout amount.
#[test]
fn each_payouts_csv_net_sums_to_the_markdown_figure_and_the_amount() {
    let t = Tieout::demo();
    let mut checked = 0;
    for month in &MONTHS[..3] {
        tied_or_5(&reconcile(&t, month, &[]));
        let dir = t.work_dir().join(month);
        let md = std::fs::read_to_string(dir.join("reconciliation.md")).expect("md");
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("reconciliation.json")).expect("json"))
                .expect("parse json");
        let mut reader =
            csv::Reader::from_path(dir.join("payout-reconciliation.csv")).expect("csv");
        let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("row")).collect();
        for p in json["payouts"].as_array().expect("payouts") {
            let id = p["id"].as_str().expect("id");
            if p["itemised"] != true {
                assert!(
                    p["lines_net"].is_null() && p["difference"].is_null(),
                    "{id}"
                );
                assert!(rows.iter().all(|r| &r[0] != id), "{id} has no CSV rows");
                continue;
            }
            let cur = Currency::parse(p["currency"].as_str().expect("cur")).expect("currency");
            let sum: i64 = rows
                .iter()
                .filter(|r| &r[0] == id && &r[7] == cur.as_str())
                .map(|r| parse_major(&r[10], cur).expect("net"))
                .sum();
            let section = md
                .split("\n### ")
                .find(|s| s.contains(&format!(" · {id} · ")))
                .expect("payout section");
            let figure = format!("- Lines' net: {} {cur}", format_major(sum, cur));
            assert!(
                section.contains(&figure),
                "{month} {id}: {figure}\n{section}"
            );
            let amount = p["amount"].as_i64().expect("amount");
            assert!(section.contains(&format!(
                "- Payout amount: {} {cur}",
                format_major(amount, cur)
            )));
            assert_eq!(p["lines_net"].as_i64(), Some(sum), "{id}");
            if p["result"] == "tied" {
                assert_eq!(sum, amount, "{id} ties out to its amount");
                assert!(!section.contains("**Difference"), "{id}");
            } else {
                assert_eq!(p["difference"].as_i64(), Some(sum - amount), "{id}");
            }
            checked += 1;
        }
    }
    assert!(checked > 0, "the demo has itemised payouts");
}

#[test]
fn a_bad_month_is_a_usage_error_and_writes_nothing() {
    let t = Tieout::demo();
    for bad in ["2026-13", "october", "2026-1"] {
        let out = reconcile(&t, bad, &[]);
        out.code(2);
        assert!(
            out.stderr
                .contains(&format!("'{bad}' is not a month: write it as YYYY-MM")),
            "{}",
            out.stderr
        );
    }
    assert_eq!(
        std::fs::read_dir(t.work_dir()).expect("dir").count(),
        0,
        "nothing written"
    );
}

#[test]
fn a_different_earlier_export_is_not_replaced_without_force() {
    let t = Tieout::demo();
    let out = |extra: &[&str], month: &str| {
        let mut args = vec!["reconcile", "--month", month, "--out", "same"];
        args.extend_from_slice(extra);
        t.run(&args)
    };
    let first = out(&[], "2026-10");
    tied_or_5(&first);
    let md = t.work_dir().join("same/reconciliation.md");
    let before = std::fs::read(&md).expect("md");
    let again = out(&[], "2026-10");
    assert_eq!(again.code, first.code, "the same run again is harmless");
    assert!(again.stdout.contains("unchanged"), "{}", again.stdout);
    let other = out(&[], "2026-09");
    other.code(2);
    assert!(other.stderr.contains("pass --force"), "{}", other.stderr);
    assert_eq!(std::fs::read(&md).expect("md"), before, "nothing replaced");
    let forced = out(&["--force"], "2026-09");
    tied_or_5(&forced);
    assert_ne!(std::fs::read(&md).expect("md"), before);
}

/// A copy of the demo fixtures with one line taken out of a tied payout's listing: the
/// fake then answers `?payout=` without it. The command exits 5, names the payout and
/// the exact difference, and still writes the files.
#[test]
fn a_line_missing_from_stripes_listing_exits_5_and_still_writes() {
    let (fixtures, victim, line) = crate::support::fake::demo_fixtures_missing_one_line();

    let fake = start_fake(FakeConfig {
        fixtures: fixtures.path().to_path_buf(),
        ..FakeConfig::default()
    });
    let t = Tieout::against(&fake);
    let out = reconcile(&t, "2026-10", &[]);
    out.code(5);
    let expected = format!(
        "{} (difference {} {})",
        victim,
        format_major(-line.net, line.currency),
        line.currency
    );
    assert!(out.stderr.contains(&expected), "{}", out.stderr);
    assert!(out.stdout.contains("1 with a difference"), "{}", out.stdout);
    for name in FILES {
        assert!(
            t.work_dir().join("2026-10").join(name).exists(),
            "{name} still written"
        );
    }
    let md = std::fs::read_to_string(t.work_dir().join("2026-10/reconciliation.md")).expect("md");
    assert!(md.contains(&format!(
        "- **Difference: {} {}**",
        format_major(-line.net, line.currency),
        line.currency
    )));
}

/// A disk that fills while `reconcile --force` writes a set over an earlier month's: the
/// process may write at most 120 blocks per file (`ulimit -f`, the shell's file size
/// limit; writes past it fail with "File too large" as a full disk fails them). The new
/// month's CSV and Markdown fit, its JSON does not: every file is still the earlier
/// month's, nothing half-written is left beside them, and the message names the file and
/// says nothing changed.
#[cfg(unix)]
#[test]
fn a_write_that_fails_part_way_leaves_the_earlier_set_whole() {
    let t = Tieout::demo();
    tied_or_5(&t.run(&["reconcile", "--month", "2026-10", "--out", "same"]));
    let dir = t.work_dir().join("same");
    let before: Vec<Vec<u8>> = FILES
        .iter()
        .map(|f| std::fs::read(dir.join(f)).expect("written"))
        .collect();

    let cmd = t.command(&[
        "reconcile",
        "--month",
        "2026-09",
        "--out",
        "same",
        "--force",
    ]);
    let mut limited = std::process::Command::new("sh");
    limited
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 120; exec \"$@\"")
        .arg("sh")
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .env_clear()
        .envs(cmd.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .current_dir(t.work_dir());
    let out = limited.output().expect("sh runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("reconciliation.json") && stderr.contains("no file was changed"),
        "{stderr}"
    );
    for (name, was) in FILES.iter().zip(&before) {
        assert_eq!(
            &std::fs::read(dir.join(name)).expect("still there"),
            was,
            "{name} is still October's"
        );
    }
    let left: Vec<String> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| !FILES.contains(&n.as_str()))
        .collect();
    assert!(left.is_empty(), "nothing staged is left: {left:?}");
}
