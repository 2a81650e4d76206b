//! `tieout dunning` end to end through the binary on the demo account: golden files of the
//! three exports and the channel post, the worklist agreeing through the fake Stripe
//! server, every decline code in the demo mapping to the action Stripe's guidance gives,
//! and the exit codes (2 for a bad format, 1 for a refused overwrite).
//!
//! Regenerate the goldens after an intended change with `UPDATE_GOLDEN=1 cargo test --test
//! it dunning` and review the diff.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

const NOW: &str = "2026-11-30T12:00:00Z";
const FILES: [&str; 3] = [
    "failed-payments.csv",
    "failed-payments.md",
    "failed-payments.json",
];

fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/dunning")
        .join(name)
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn tieout(args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::cargo_bin("tieout").expect("binary");
    cmd.env_remove("STRIPE_API_KEY").env_remove("TIEOUT_API_BASE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.args(args).output().expect("run tieout");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn dunning_demo(out: &Path, extra: &[&str]) -> Run {
    let out = out.to_str().expect("utf8 path");
    let mut args = vec!["--demo", "--now", NOW, "dunning", "--out", out];
    args.extend_from_slice(extra);
    tieout(&args, &[])
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
            "no golden file {}: run UPDATE_GOLDEN=1 cargo test --test it dunning",
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

fn read_json(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("failed-payments.json")).expect("json"))
        .expect("parse json")
}

#[test]
fn demo_exports_match_their_golden_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dunning_demo(dir.path(), &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for name in FILES {
        let bytes = std::fs::read(dir.path().join(name)).expect("file written");
        check_golden(&golden(name), &bytes);
    }
    let shown = run
        .stdout
        .replace(&dir.path().display().to_string(), "<OUT>");
    check_golden(&golden("stdout.txt"), shown.as_bytes());
}

#[test]
fn the_demo_worklist_is_substantial_and_consistent() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dunning_demo(dir.path(), &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json = read_json(dir.path());
    let rows = json["rows"].as_array().expect("rows");
    assert!(rows.len() >= 20, "the demo has a real worklist: {}", rows.len());
    // The CSV has the contract's header and one line per JSON row, same order.
    let mut reader =
        csv::Reader::from_path(dir.path().join("failed-payments.csv")).expect("csv");
    let header: Vec<String> = reader
        .headers()
        .expect("header")
        .iter()
        .map(str::to_string)
        .collect();
    assert_eq!(
        header.join(","),
        "invoice_id,invoice_number,customer_id,customer_email,customer_name,currency,amount_remaining,attempt_count,next_payment_attempt_utc,retries_left,due_date_utc,days_past_due,subscription_id,decline_code,failure_code,outcome_reason,advice_code,action,hosted_invoice_url"
    );
    let records: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("row")).collect();
    assert_eq!(records.len(), rows.len());
    for (rec, row) in records.iter().zip(rows) {
        assert_eq!(&rec[0], row["invoice_id"].as_str().expect("id"));
        let cur = tieout::money::Currency::parse(&rec[5]).expect("currency");
        let minor = tieout::money::parse_major(&rec[6], cur).expect("amount");
        assert_eq!(Some(minor), row["amount_remaining"].as_i64());
        assert!(minor > 0);
        assert_eq!(&rec[9], if row["retries_left"] == true { "yes" } else { "no" });
        if rec[13].is_empty() {
            assert!(row["decline_code"].is_null());
        }
    }
    // Sorted: currencies by outstanding, amounts descending within each.
    let totals = json["totals_by_currency"].as_array().expect("totals");
    let order: Vec<&str> = totals.iter().map(|t| t["currency"].as_str().expect("c")).collect();
    let mut seen: Vec<&str> = Vec::new();
    for pair in rows.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        if a["currency"] == b["currency"] {
            assert!(a["amount_remaining"].as_i64() >= b["amount_remaining"].as_i64());
        }
    }
    for r in rows {
        let c = r["currency"].as_str().expect("c");
        if seen.last() != Some(&c) {
            seen.push(c);
        }
    }
    assert_eq!(seen, order, "rows grouped by currency in the totals' order");
    // The totals add up.
    for t in totals {
        let c = t["currency"].as_str().expect("c");
        let sum: i64 = rows
            .iter()
            .filter(|r| r["currency"] == c)
            .filter_map(|r| r["amount_remaining"].as_i64())
            .sum();
        assert_eq!(t["amount_remaining"].as_i64(), Some(sum), "{c}");
        let no_retry: i64 = rows
            .iter()
            .filter(|r| r["currency"] == c && r["retries_left"] == false)
            .filter_map(|r| r["amount_remaining"].as_i64())
            .sum();
        assert_eq!(t["no_retry_left_amount"].as_i64(), Some(no_retry), "{c}");
    }
    let by_code: i64 = json["totals_by_decline_code"]
        .as_array()
        .expect("codes")
        .iter()
        .filter_map(|t| t["invoices"].as_i64())
        .sum();
    assert_eq!(by_code as usize, rows.len());
    // Never an invented code: a row without a decline code names its failure code.
    for r in rows {
        if r["decline_code"].is_null() && r["failure_code"].is_string() {
            let code = r["failure_code"].as_str().expect("code");
            assert!(
                json["totals_by_decline_code"]
                    .as_array()
                    .expect("codes")
                    .iter()
                    .any(|t| t["label"] == format!("{code} (no decline code returned)")),
                "{code}"
            );
        }
    }
}

/// The action Stripe's published guidance (docs.stripe.com/declines/codes, Smart Retries)
/// gives each decline code, written out independently of tieout's table.
fn stripe_guidance(code: &str) -> Option<&'static str> {
    Some(match code {
        "insufficient_funds"
        | "processing_error"
        | "issuer_not_available"
        | "reenter_transaction"
        | "try_again_later"
        | "approve_with_id"
        | "card_velocity_exceeded"
        | "withdrawal_count_limit_exceeded" => "retry_later",
        "expired_card" | "incorrect_number" | "incorrect_cvc" | "invalid_cvc"
        | "incorrect_zip" | "incorrect_address" | "invalid_number" | "invalid_expiry_month"
        | "invalid_expiry_year" | "pin_try_exceeded" | "new_account_information_available"
        | "testmode_decline" => "update_payment_method",
        "stolen_card" | "lost_card" | "fraudulent" | "pickup_card" | "merchant_blacklist"
        | "restricted_card" | "revocation_of_authorization"
        | "revocation_of_all_authorizations" | "stop_payment_order" | "do_not_try_again" => {
            "do_not_retry"
        }
        "authentication_required" | "authentication_not_handled" => {
            "customer_must_authenticate"
        }
        "generic_decline" | "do_not_honor" | "call_issuer" | "card_not_supported"
        | "currency_not_supported" | "invalid_account" | "invalid_amount" | "no_action_taken"
        | "not_permitted" | "security_violation" | "service_not_allowed"
        | "transaction_not_allowed" => "contact_customer",
        "duplicate_transaction" => "check_duplicate",
        _ => return None,
    })
}

#[test]
fn every_demo_decline_code_maps_to_stripes_guidance() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dunning_demo(dir.path(), &["--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json = read_json(dir.path());
    let mut codes = BTreeSet::new();
    for r in json["rows"].as_array().expect("rows") {
        let action = r["action"].as_str().expect("action");
        let advice = r["advice_code"].as_str();
        let reason = r["outcome_reason"].as_str();
        let overridden = matches!(
            advice,
            Some("do_not_try_again" | "confirm_card_data" | "try_again_later")
        ) || matches!(
            reason,
            Some("previously_declined_do_not_retry" | "highest_risk_level" | "rule" | "elevated_risk_level")
        );
        if matches!(advice, Some("do_not_try_again"))
            || matches!(reason, Some("previously_declined_do_not_retry" | "highest_risk_level"))
        {
            assert_eq!(action, "do_not_retry", "{}", r["invoice_id"]);
            assert_eq!(r["retries_left"], false, "{}", r["invoice_id"]);
        }
        let Some(code) = r["decline_code"].as_str() else {
            continue;
        };
        codes.insert(code.to_string());
        let want = stripe_guidance(code);
        if let Some(want) = want {
            if !overridden || want == "do_not_retry" {
                assert_eq!(action, want, "{} declined {code}", r["invoice_id"]);
            }
        } else {
            assert_eq!(action, "review", "an unknown code {code} is review");
        }
    }
    assert!(
        codes.len() >= 8,
        "the demo exercises many decline codes: {codes:?}"
    );
}

#[test]
fn formats_and_overwrites() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dunning_demo(dir.path(), &["--format", "csv"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let names: BTreeSet<String> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, BTreeSet::from(["failed-payments.csv".to_string()]));
    // The same run again is harmless.
    assert_eq!(dunning_demo(dir.path(), &["--format", "csv"]).code, 0);
    // A different earlier file is not replaced without --force.
    std::fs::write(dir.path().join("failed-payments.csv"), "mine\n").expect("write");
    let run = dunning_demo(dir.path(), &["--format", "csv"]);
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("--force"), "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("failed-payments.csv")).expect("read"),
        "mine\n"
    );
    let run = dunning_demo(dir.path(), &["--format", "csv", "--force"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // A bad format is a usage error and writes nothing.
    let empty = tempfile::tempdir().expect("tempdir");
    let run = dunning_demo(empty.path(), &["--format", "xlsx"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("unknown format 'xlsx'"), "{}", run.stderr);
    assert_eq!(std::fs::read_dir(empty.path()).expect("dir").count(), 0);
}
