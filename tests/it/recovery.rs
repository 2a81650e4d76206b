//! `tieout recovery` end to end through the binary (issue 36): golden files of the four
//! exports (and the JSON) on the demo account, the wrong card and each leak kind read
//! through the fake Stripe server, a cached run that sends no request, and the exit codes.
//!
//! Regenerate the goldens after an intended change with `UPDATE_GOLDEN=1 cargo test --test
//! it recovery` and review the diff.

use crate::support::cli::{RunOutput, Tieout};
use crate::support::fake::start_fake;
use crate::support::golden::{assert_golden, assert_golden_bytes};
use tieout_testkit::fake_stripe::FakeConfig;

const FILES: [&str; 5] = [
    "recovery.csv",
    "recovery-invoices.csv",
    "recovery-leaks.csv",
    "recovery.md",
    "recovery.json",
];

fn recovery(t: &Tieout, extra: &[&str]) -> RunOutput {
    let mut args = vec!["recovery"];
    args.extend_from_slice(extra);
    t.run(&args)
}

fn read(t: &Tieout, name: &str) -> String {
    std::fs::read_to_string(t.work_dir().join(name)).expect(name)
}

#[test]
fn demo_exports_match_their_golden_files() {
    let t = Tieout::demo();
    let run = recovery(&t, &[]);
    run.success();
    for name in FILES {
        let bytes = std::fs::read(t.work_dir().join(name)).expect("file written");
        assert_golden_bytes(&format!("recovery/{name}"), &bytes);
    }
    assert_golden("recovery/stdout.txt", &run.stdout);
}

/// Every ending is in the demo, in three currencies or more, and the Markdown says each
/// currency's outcomes tie to what failed.
#[test]
fn the_demo_ends_every_way_in_three_currencies() {
    let t = Tieout::demo();
    recovery(&t, &["--format", "csv,md"]).success();
    let invoices = read(&t, "recovery-invoices.csv");
    for ending in [
        ",recovered,",
        ",written_off,",
        ",voided,",
        ",still_open,",
        ",retry,",
        ",new_method,",
        ",out_of_band,",
    ] {
        let currencies: std::collections::BTreeSet<String> = invoices
            .lines()
            .filter(|l| l.contains(ending))
            .filter_map(|l| l.split(',').nth(2).map(str::to_owned))
            .collect();
        assert!(currencies.len() >= 3, "{ending:?} in {currencies:?} only");
    }
    let md = read(&t, "recovery.md");
    assert!(!md.contains("DOES NOT TIE"), "{md}");
    assert_eq!(md.matches(": ties.").count(), 5, "{md}");
}

#[test]
fn bad_arguments_exit_2_and_an_earlier_different_file_is_kept() {
    let t = Tieout::demo();
    recovery(&t, &["--months", "0"]).code(2);
    recovery(&t, &["--format", "xml"]).code(2);
    recovery(&t, &["--months", "1", "--format", "csv"]).success();
    let before = read(&t, "recovery.csv");
    let out = recovery(&t, &["--months", "6", "--format", "csv"]);
    out.code(2);
    assert!(out.stderr.contains("--force"), "{}", out.stderr);
    assert_eq!(read(&t, "recovery.csv"), before);
    recovery(&t, &["--months", "6", "--format", "csv", "--force"]).success();
    assert_ne!(read(&t, "recovery.csv"), before);
}

/// Through the fake Stripe server: each leak kind is found from what a fresh read
/// fetches, and a cached run after a sync finds the same and sends no request.
#[test]
fn leaks_through_the_fake_server_and_a_cached_run_sends_nothing() {
    let fake = start_fake(FakeConfig::default().account_readable_by_restricted_keys(true));
    let t = Tieout::against(&fake);
    recovery(&t, &["--format", "csv"]).success();
    let leaks = read(&t, "recovery-leaks.csv");
    for kind in [
        "retry_on_canceled_subscription,",
        "same_email_customers,",
        "paid_another_invoice,",
    ] {
        assert!(leaks.contains(kind), "{kind} missing from\n{leaks}");
    }
    // The fresh read finds what the demo holds: the same cohorts, invoices and leaks.
    let demo = Tieout::demo();
    recovery(&demo, &["--format", "csv"]).success();
    for name in [
        "recovery.csv",
        "recovery-invoices.csv",
        "recovery-leaks.csv",
    ] {
        assert_eq!(read(&t, name), read(&demo, name), "{name}: fresh vs demo");
    }

    t.run(&["sync"]).success();
    fake.clear_requests();
    recovery(&t, &["--cached", "--format", "csv", "--force"]).success();
    assert!(fake.requests().is_empty(), "{:?}", fake.requests());
    assert_eq!(read(&t, "recovery-leaks.csv"), leaks);

    // The sync read the paid and void invoices for the default six months only: a year's
    // picture from that cache is refused (exit 5) instead of reporting the older failures
    // as never recovered, and the files already written stay as they were.
    let run = recovery(
        &t,
        &["--cached", "--months", "12", "--format", "csv", "--force"],
    );
    run.code(5);
    assert!(
        run.stderr.contains("paid and void invoices created since")
            && run.stderr.contains("tieout sync"),
        "{}",
        run.stderr
    );
    assert_eq!(read(&t, "recovery-leaks.csv"), leaks);
}

/// The wrong card through the fake Stripe server: the demo's subscription that still
/// charges the customer's old card gets its own action in a fresh run's CSV and Markdown,
/// and a cached run after a sync says the same.
#[test]
fn the_wrong_card_is_named_fresh_and_cached_alike() {
    let fake = start_fake(FakeConfig::default().account_readable_by_restricted_keys(true));
    let t = Tieout::against(&fake);
    t.run(&["dunning", "--format", "csv,md"]).success();
    let csv = read(&t, "failed-payments.csv");
    let rows: Vec<&str> = csv
        .lines()
        .filter(|l| l.contains(",subscription_old_card,"))
        .collect();
    assert_eq!(rows.len(), 1, "{csv}");
    assert!(rows[0].contains("ada.okafor@example.org"), "{}", rows[0]);
    let md = read(&t, "failed-payments.md");
    assert!(
        md.contains("subscription still charges the old card"),
        "{md}"
    );
    t.run(&["sync"]).success();
    t.run(&["--cached", "dunning", "--format", "csv,md", "--force"])
        .success();
    assert_eq!(read(&t, "failed-payments.csv"), csv);
    let demo = Tieout::demo();
    demo.run(&["dunning", "--format", "csv"]).success();
    assert_eq!(read(&demo, "failed-payments.csv"), csv);
}

/// The card the demo's wrong-card customer put on the customer, as the fake serves it.
fn ada_new_card(fake: &tieout_testkit::fake_stripe::FakeStripe) -> serde_json::Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/demo/customers.json");
    let customers: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("customers")).expect("json");
    let ada = customers
        .as_array()
        .expect("a list")
        .iter()
        .find(|c| c["email"] == "ada.okafor@example.org")
        .expect("the wrong-card customer");
    let pm = ada["invoice_settings"]["default_payment_method"]
        .as_str()
        .expect("an invoice default");
    fake.object(pm).expect("the new card")
}

fn old_card_rows(t: &Tieout) -> usize {
    read(t, "failed-payments.csv")
        .lines()
        .filter(|l| l.contains(",subscription_old_card,"))
        .count()
}

/// Only a newer card on the customer makes a wrong card: when the customer's invoice
/// default is older than the subscription's failing card (its date read from the payment
/// intent's `last_payment_error.payment_method`), the subscription's card was chosen on
/// purpose, and neither a fresh run nor a cached one says otherwise.
#[test]
fn an_older_card_on_the_customer_is_not_a_wrong_card_fresh_or_cached() {
    let fake = start_fake(FakeConfig::default().account_readable_by_restricted_keys(true));
    let mut card = ada_new_card(&fake);
    card["created"] = 1_600_000_000.into();
    fake.put(card).expect("put");
    let t = Tieout::against(&fake);
    t.run(&["dunning", "--format", "csv"]).success();
    assert_eq!(old_card_rows(&t), 0);
    t.run(&["sync"]).success();
    t.run(&["--cached", "dunning", "--format", "csv", "--force"])
        .success();
    assert_eq!(old_card_rows(&t), 0);
}

/// A key that may not read payment methods still gets the worklist: the expansions that
/// need it are dropped (the customer and subscription are still expanded), the card's
/// dates are unknown, and the rule falls back to "another card" rather than lose the row.
#[test]
fn without_the_payment_method_read_the_wrong_card_is_still_named() {
    let fake = start_fake(FakeConfig::default().account_readable_by_restricted_keys(true));
    fake.deny(
        tieout_testkit::fake_stripe::TEST_KEY,
        "rak_payment_method_read",
    );
    let t = Tieout::against(&fake);
    t.run(&["dunning", "--format", "csv"]).success();
    assert_eq!(old_card_rows(&t), 1);
    let expanded: Vec<String> = fake
        .requests()
        .iter()
        .filter(|r| r.path == "/v1/invoices" && r.query.contains("status=open"))
        .map(|r| r.query.clone())
        .collect();
    assert_eq!(expanded.len(), 2, "{expanded:?}");
    assert!(
        expanded[1].contains("data.customer") && !expanded[1].contains("default_payment_method"),
        "{expanded:?}"
    );
}

/// Stripe's `attempt_count` counts only the scheduled attempts: an invoice whose first
/// attempt failed and that the customer then paid by hand on the hosted page still says 1.
/// The read keeps it (its charges tell that it failed first), so a fresh run and a cached
/// one count it recovered rather than leave it out of the picture.
#[test]
fn an_invoice_paid_by_hand_after_one_failed_attempt_is_recovered_fresh_and_cached() {
    const ID: &str = "in_x8AGpvY64enQPAIEVDzxMxkx";
    let fake = start_fake(FakeConfig::default().account_readable_by_restricted_keys(true));
    let mut inv = fake.object(ID).expect("the demo's open EUR invoice");
    let due = inv["amount_due"].clone();
    inv["status"] = "paid".into();
    inv["attempt_count"] = 1.into();
    inv["amount_paid"] = due;
    inv["amount_remaining"] = 0.into();
    inv["next_payment_attempt"] = serde_json::Value::Null;
    inv["status_transitions"]["paid_at"] = 1_795_900_000.into();
    fake.put(inv).expect("put");
    let t = Tieout::against(&fake);
    let row = |t: &Tieout| {
        read(t, "recovery-invoices.csv")
            .lines()
            .find(|l| l.starts_with(ID))
            .map(str::to_owned)
    };
    recovery(&t, &["--format", "csv"]).success();
    let fresh = row(&t).expect("in the fresh picture");
    assert!(fresh.contains(",recovered,"), "{fresh}");
    t.run(&["sync"]).success();
    recovery(&t, &["--cached", "--format", "csv", "--force"]).success();
    assert_eq!(row(&t).as_deref(), Some(fresh.as_str()));
}
