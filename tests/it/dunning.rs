//! `tieout dunning` end to end through the binary on the demo account: golden files of the
//! three exports and the channel post, the worklist agreeing through the fake Stripe
//! server, every decline code in the demo mapping to the action Stripe's guidance gives,
//! and the exit codes (2 for a bad format or a refused overwrite).
//!
//! Regenerate the goldens after an intended change with `UPDATE_GOLDEN=1 cargo test --test
//! it dunning` and review the diff.

use std::collections::BTreeSet;
use std::path::Path;

use crate::support::TEST_KEY;
use crate::support::cli::{RunOutput, Tieout};
use crate::support::fake::start_fake;
use crate::support::golden::{assert_golden, assert_golden_bytes};
use tieout_testkit::fake_stripe::FakeConfig;

const FILES: [&str; 4] = [
    "failed-payments.csv",
    "failed-payments.md",
    "failed-payments.json",
    "expiring-cards.csv",
];

/// `tieout --demo dunning <extra>` in a sealed environment; files land in its work dir.
fn dunning(t: &Tieout, extra: &[&str]) -> RunOutput {
    let mut args = vec!["dunning"];
    args.extend_from_slice(extra);
    t.run(&args)
}

fn read_json(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("failed-payments.json")).expect("json"))
        .expect("parse json")
}

#[test]
fn demo_exports_match_their_golden_files() {
    let t = Tieout::demo();
    let run = dunning(&t, &[]);
    run.success();
    for name in FILES {
        let bytes = std::fs::read(t.work_dir().join(name)).expect("file written");
        assert_golden_bytes(&format!("dunning/{name}"), &bytes);
    }
    assert_golden("dunning/stdout.txt", &run.stdout);
}

/// The same account through the fake Stripe server (the real HTTP client, pagination and
/// all) gives the same worklist: identical CSV, identical JSON rows and totals, and
/// Markdown that differs only in where the data came from.
#[test]
fn the_fake_server_gives_the_same_worklist_as_the_demo() {
    let demo = Tieout::demo();
    dunning(&demo, &[]).success();
    // The account is readable, as the demo's is: both then know its default currency
    // (USD), which orders the currencies.
    let fake = start_fake(FakeConfig::default().account_readable_by_restricted_keys(true));
    let live = Tieout::against(&fake);
    let run = dunning(&live, &[]);
    run.success();
    let read = |t: &Tieout, name: &str| std::fs::read(t.work_dir().join(name)).expect(name);
    let (csv_demo, csv_live) = (
        String::from_utf8(read(&demo, "failed-payments.csv")).expect("utf8"),
        String::from_utf8(read(&live, "failed-payments.csv")).expect("utf8"),
    );
    for (a, b) in csv_demo.lines().zip(csv_live.lines()) {
        assert_eq!(a, b, "demo vs fake server");
    }
    assert_eq!(csv_demo.len(), csv_live.len());
    let mut a = read_json(&demo.work_dir());
    let mut b = read_json(&live.work_dir());
    assert_eq!(a["source"]["origin"], "demo");
    assert_eq!(b["source"]["origin"], "live");
    assert_eq!(a["source"]["account_id"], b["source"]["account_id"]);
    a["source"] = serde_json::Value::Null;
    b["source"] = serde_json::Value::Null;
    let rows = |v: &serde_json::Value| v["rows"].as_array().cloned().unwrap_or_default();
    for (ra, rb) in rows(&a).iter().zip(rows(&b).iter()) {
        assert_eq!(ra, rb, "demo vs fake server");
    }
    assert_eq!(a, b);
    let md = |t: &Tieout| {
        String::from_utf8(read(t, "failed-payments.md"))
            .expect("utf8")
            .lines()
            .filter(|l| !l.starts_with("Computed at "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(md(&demo), md(&live));
    // The channel post differs only in its first line (which names the data's origin):
    // a fresh read gets last month's recovery line too, the demo's to the cent (it reads
    // the paid and void invoices and the charges since the month before last).
    let after_first = |s: &str| s.lines().skip(1).collect::<Vec<_>>().join("\n");
    let again = dunning(&demo, &[]);
    again.success();
    assert!(
        run.stdout.starts_with("Failed payments: "),
        "{}",
        run.stdout
    );
    assert_eq!(
        again
            .stdout
            .lines()
            .filter(|l| l.starts_with("Last month (2026-10): "))
            .count(),
        1,
        "{}",
        again.stdout
    );
    assert_eq!(after_first(&run.stdout), after_first(&again.stdout));
}

#[test]
fn the_demo_worklist_is_substantial_and_consistent() {
    let t = Tieout::demo();
    dunning(&t, &[]).success();
    let dir = t.work_dir();
    let json = read_json(&dir);
    let rows = json["rows"].as_array().expect("rows");
    assert!(
        rows.len() >= 20,
        "the demo has a real worklist: {}",
        rows.len()
    );
    // The CSV has the contract's header and one line per JSON row, same order.
    let mut reader = csv::Reader::from_path(dir.join("failed-payments.csv")).expect("csv");
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
        assert_eq!(
            &rec[9],
            if row["retries_left"] == true {
                "yes"
            } else {
                "no"
            }
        );
        if rec[13].is_empty() {
            assert!(row["decline_code"].is_null());
        }
    }
    // Sorted: currencies by outstanding, amounts descending within each.
    let totals = json["totals_by_currency"].as_array().expect("totals");
    let order: Vec<&str> = totals
        .iter()
        .map(|t| t["currency"].as_str().expect("c"))
        .collect();
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
        "expired_card"
        | "incorrect_number"
        | "incorrect_cvc"
        | "invalid_cvc"
        | "incorrect_zip"
        | "incorrect_address"
        | "invalid_number"
        | "invalid_expiry_month"
        | "invalid_expiry_year"
        | "pin_try_exceeded"
        | "new_account_information_available"
        | "testmode_decline" => "update_payment_method",
        "stolen_card"
        | "lost_card"
        | "fraudulent"
        | "pickup_card"
        | "merchant_blacklist"
        | "restricted_card"
        | "revocation_of_authorization"
        | "revocation_of_all_authorizations"
        | "stop_payment_order"
        | "do_not_try_again" => "do_not_retry",
        "authentication_required" | "authentication_not_handled" => "customer_must_authenticate",
        "generic_decline"
        | "do_not_honor"
        | "call_issuer"
        | "card_not_supported"
        | "currency_not_supported"
        | "invalid_account"
        | "invalid_amount"
        | "no_action_taken"
        | "not_permitted"
        | "security_violation"
        | "service_not_allowed"
        | "transaction_not_allowed" => "contact_customer",
        "duplicate_transaction" => "check_duplicate",
        _ => return None,
    })
}

#[test]
fn every_demo_decline_code_maps_to_stripes_guidance() {
    let t = Tieout::demo();
    dunning(&t, &["--format", "json"]).success();
    let json = read_json(&t.work_dir());
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
            Some(
                "previously_declined_do_not_retry"
                    | "highest_risk_level"
                    | "rule"
                    | "elevated_risk_level"
            )
        );
        if matches!(advice, Some("do_not_try_again"))
            || matches!(
                reason,
                Some("previously_declined_do_not_retry" | "highest_risk_level")
            )
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

/// A refused overwrite is all or nothing: when one file of the set would replace a
/// different earlier file, none of the set is written (no mix of two runs' files), and
/// the exit is 2 (usage: pass --force), as for `reconcile`.
#[test]
fn a_refused_overwrite_writes_none_of_the_files() {
    let first = Tieout::demo();
    let dir = first.root().join("shared-out");
    let d = dir.to_str().expect("utf8");
    dunning(&first, &["--out", d]).success();
    std::fs::write(dir.join("failed-payments.csv"), "mine\n").expect("write");
    let md_before = std::fs::read(dir.join("failed-payments.md")).expect("md");
    // A later run (another clock, so every file's content differs).
    let later = Tieout::demo().now(Some("2026-12-01T12:00:00Z"));
    let run = dunning(&later, &["--out", d]);
    run.code(2);
    assert!(run.stderr.contains("--force"), "{}", run.stderr);
    assert_eq!(
        std::fs::read(dir.join("failed-payments.md")).expect("md"),
        md_before,
        "the md file of the earlier run was replaced although the run was refused"
    );
    dunning(&later, &["--out", d, "--force"]).success();
    assert_ne!(
        std::fs::read(dir.join("failed-payments.md")).expect("md"),
        md_before
    );
}

#[test]
fn formats_and_overwrites() {
    let t = Tieout::demo();
    let dir = t.work_dir();
    dunning(&t, &["--format", "csv"]).success();
    let names: BTreeSet<String> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        BTreeSet::from([
            "expiring-cards.csv".to_string(),
            "failed-payments.csv".to_string()
        ]),
        "csv: the worklist and the cards that will fail"
    );
    // The same run again is harmless.
    dunning(&t, &["--format", "csv"]).success();
    // A different earlier file is not replaced without --force.
    std::fs::write(dir.join("failed-payments.csv"), "mine\n").expect("write");
    let run = dunning(&t, &["--format", "csv"]);
    run.code(2);
    assert!(run.stderr.contains("--force"), "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.join("failed-payments.csv")).expect("read"),
        "mine\n"
    );
    dunning(&t, &["--format", "csv", "--force"]).success();
    // --out puts the files elsewhere.
    let out = t.root().join("elsewhere");
    let out_s = out.to_str().expect("utf8");
    let run = dunning(&t, &["--out", out_s, "--format", "md,json"]);
    run.success();
    assert!(
        run.stdout.contains(&format!("{out_s}/failed-payments.md")),
        "{}",
        run.stdout
    );
    assert!(out.join("failed-payments.json").exists());
    // A bad format is a usage error and writes nothing.
    let empty = Tieout::demo();
    let run = dunning(&empty, &["--format", "xlsx"]);
    run.code(2);
    assert!(
        run.stderr.contains("unknown format 'xlsx'"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read_dir(empty.work_dir()).expect("dir").count(), 0);
}

/// Last month's recovery line from the cache a sync wrote of the fake server (which serves
/// the demo account): the sync read the paid and void invoices and the charges, so the
/// cached run says what the demo says, to the cent and the day.
#[test]
fn a_syncs_cache_gives_the_same_recovery_line_as_the_demo() {
    let line = |stdout: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with("Last month ("))
            .map(str::to_owned)
    };
    let demo = Tieout::demo();
    let from_demo = dunning(&demo, &[]);
    from_demo.success();
    let want = line(&from_demo.stdout).expect("the demo's line");
    assert!(want.contains("recovered"), "{want}");
    let fake = start_fake(FakeConfig::default().account_readable_by_restricted_keys(true));
    let t = Tieout::against(&fake);
    t.run(&["sync"]).success();
    let cached = t.run(&["--cached", "dunning"]);
    cached.success();
    assert_eq!(line(&cached.stdout).as_deref(), Some(want.as_str()));

    // A key that may not read charges still gets the worklist fresh, without the line,
    // and stderr says why instead of a line saying nothing came back. (Without a cache:
    // after the sync above, the morning dunning would refresh the cache from the events
    // instead, and take the line from the refreshed snapshot; tests/it/dunning_refresh.rs.)
    fake.deny(TEST_KEY, "rak_charge_read");
    let fresh = Tieout::against(&fake).run(&["dunning", "--format", "csv", "--force"]);
    fresh.success();
    assert_eq!(line(&fresh.stdout), None, "{}", fresh.stdout);
    assert!(
        fresh.stderr.contains("no line on last month's recovery")
            && fresh.stderr.contains("rak_charge_read"),
        "{}",
        fresh.stderr
    );
}
