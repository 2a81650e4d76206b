//! Generator tests: byte-determinism, the committed demo being the generator's output,
//! and a self-check of the demo's numbers recomputed from the JSON alone.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use serde_json::Value;

use super::clock::{DAY, DEMO_NOW};
use super::*;

const FILES: &[&str] = &[
    "account.json",
    "balance.json",
    "meta.json",
    "payouts.json",
    "payout_lines.json",
    "balance_transactions.json",
    "invoices.json",
    "invoice_payments.json",
    "payment_intents.json",
    "charges.json",
    "refunds.json",
    "disputes.json",
    "customers.json",
    "subscriptions.json",
    "payment_methods.json",
    "early_fraud_warnings.json",
    "tickets.csv",
    "bank-usd.csv",
    "bank-eur.csv",
    "bank-jpy.csv",
];

fn read(dir: &Path, file: &str) -> Vec<u8> {
    std::fs::read(dir.join(file)).expect("read generated file")
}

#[test]
fn the_same_seed_gives_the_same_bytes() {
    let a = tempfile::tempdir().expect("tempdir");
    let b = tempfile::tempdir().expect("tempdir");
    generate(DEMO_SEED, DEMO_SCALE, a.path()).expect("generate a");
    generate(DEMO_SEED, DEMO_SCALE, b.path()).expect("generate b");
    for f in FILES {
        assert!(
            read(a.path(), f) == read(b.path(), f),
            "{f} differs between two runs"
        );
    }
    let c = tempfile::tempdir().expect("tempdir");
    generate(DEMO_SEED + 1, DEMO_SCALE, c.path()).expect("generate c");
    assert!(
        read(a.path(), "charges.json") != read(c.path(), "charges.json"),
        "another seed must give another account"
    );
}

#[test]
fn the_committed_demo_is_what_the_generator_writes() {
    let dir = tempfile::tempdir().expect("tempdir");
    generate(DEMO_SEED, DEMO_SCALE, dir.path()).expect("generate");
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/demo");
    for f in FILES {
        let want = read(dir.path(), f);
        let have = std::fs::read(committed.join(f)).unwrap_or_default();
        assert!(
            want == have,
            "fixtures/demo/{f} is not what the generator writes: never edit the demo by hand; \
             regenerate it with `cargo run -p tieout-testkit --bin gen-demo -- --seed 7 --scale 1 --out fixtures/demo`"
        );
    }
}

fn json(file: &str) -> Value {
    let text = tieout_io::source::demo::demo_file(file).expect("demo file embedded");
    serde_json::from_str(text).expect("demo JSON parses")
}

fn arr(v: &Value) -> &Vec<Value> {
    v.as_array().expect("a JSON array")
}

fn int(v: &Value, k: &str) -> i64 {
    v[k].as_i64()
        .unwrap_or_else(|| panic!("{k} is an integer in {v}"))
}

fn s<'a>(v: &'a Value, k: &str) -> &'a str {
    v[k].as_str().unwrap_or("")
}

/// Recomputes every payout's tie-out from the committed JSON alone.
#[test]
fn every_automatic_payout_ties_out_in_the_json() {
    let payouts = json("payouts.json");
    let bts = json("balance_transactions.json");
    let lines = json("payout_lines.json");
    let by_id: HashMap<&str, &Value> = arr(&bts).iter().map(|t| (s(t, "id"), t)).collect();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut automatic = 0;
    for p in arr(&payouts) {
        let id = s(p, "id");
        let amount = int(p, "amount");
        if !p["automatic"].as_bool().unwrap_or(false) {
            assert!(lines.get(id).is_none(), "manual payout {id} has no lines");
            assert_eq!(s(p, "reconciliation_status"), "not_applicable");
            continue;
        }
        automatic += 1;
        let ids: Vec<&str> = lines[id]
            .as_array()
            .unwrap_or_else(|| panic!("{id} has lines"))
            .iter()
            .map(|x| x.as_str().unwrap_or(""))
            .collect();
        let own = s(p, "balance_transaction");
        assert_eq!(
            ids.last().copied(),
            Some(own),
            "{id}: its own transaction comes last"
        );
        let mut sum = 0;
        for t in &ids {
            assert!(seen.insert(t), "{t} is paid out twice");
            let bt = by_id.get(t).unwrap_or_else(|| panic!("{t} of {id} exists"));
            assert_eq!(s(bt, "currency"), s(p, "currency"), "{t} in {id}");
            if *t == own {
                assert_eq!(s(bt, "type"), "payout");
                assert_eq!(int(bt, "net"), -amount);
                assert_eq!(s(bt, "source"), id);
            } else {
                assert_ne!(s(bt, "type"), "payout", "{t} in {id}");
                assert!(
                    int(bt, "available_on") <= int(p, "created"),
                    "{t} available before {id}"
                );
                sum += int(bt, "net");
            }
        }
        assert_eq!(sum, amount, "payout {id} does not tie out");
        assert!(amount > 0);
    }
    assert!(automatic >= 85, "{automatic} automatic payouts");
    for t in arr(&bts) {
        assert_eq!(
            int(t, "net"),
            int(t, "amount") - int(t, "fee"),
            "{}",
            s(t, "id")
        );
        let fees: i64 = t["fee_details"]
            .as_array()
            .map(|f| f.iter().map(|d| int(d, "amount")).sum())
            .unwrap_or(0);
        assert_eq!(
            fees,
            int(t, "fee"),
            "{}: fee_details add up to fee",
            s(t, "id")
        );
    }
}

#[test]
fn the_special_payouts_are_there() {
    let payouts = json("payouts.json");
    let bts = json("balance_transactions.json");
    let lines = json("payout_lines.json");
    let ps = arr(&payouts);
    let count = |f: &dyn Fn(&Value) -> bool| ps.iter().filter(|p| f(p)).count();
    assert_eq!(count(&|p| s(p, "method") == "instant"), 1);
    assert_eq!(
        count(&|p| !p["automatic"].as_bool().unwrap_or(true) && s(p, "method") == "standard"),
        1
    );
    assert_eq!(
        count(&|p| s(p, "status") == "in_transit" && s(p, "reconciliation_status") == "in_progress"),
        1
    );
    let failed: Vec<&Value> = ps.iter().filter(|p| s(p, "status") == "failed").collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(s(failed[0], "failure_code"), "account_closed");
    let fbt = s(failed[0], "failure_balance_transaction");
    let paid_in: Vec<&String> = lines
        .as_object()
        .expect("map")
        .iter()
        .filter(|(_, v)| {
            v.as_array()
                .is_some_and(|a| a.iter().any(|x| x.as_str() == Some(fbt)))
        })
        .map(|(k, _)| k)
        .collect();
    assert_eq!(
        paid_in.len(),
        1,
        "the payout_failure credit is paid out by a later payout"
    );
    let kinds: BTreeMap<&str, usize> = arr(&bts).iter().fold(BTreeMap::new(), |mut m, t| {
        *m.entry(s(t, "type")).or_default() += 1;
        m
    });
    for k in [
        "charge",
        "refund",
        "adjustment",
        "stripe_fee",
        "payout",
        "payout_failure",
        "payout_minimum_balance_hold",
        "payout_minimum_balance_release",
    ] {
        assert!(
            kinds.contains_key(k),
            "a {k} balance transaction: {kinds:?}"
        );
    }
    let cats: HashSet<&str> = arr(&bts)
        .iter()
        .map(|t| s(t, "reporting_category"))
        .collect();
    for c in [
        "charge",
        "refund",
        "dispute",
        "dispute_reversal",
        "fee",
        "other_adjustment",
        "payout_reversal",
    ] {
        assert!(cats.contains(c), "reporting_category {c}");
    }
    let most = lines
        .as_object()
        .expect("map")
        .values()
        .map(|v| v.as_array().map_or(0, Vec::len))
        .max();
    assert!(most.unwrap_or(0) >= 200, "one payout has hundreds of lines");
    for c in ["usd", "eur", "jpy"] {
        assert!(ps.iter().any(|p| s(p, "currency") == c), "{c} payouts");
    }
    for p in ps {
        let arrival = int(p, "arrival_date");
        assert!(
            (super::clock::utc(2026, 9, 1, 0, 0)..=DEMO_NOW).contains(&arrival),
            "{}",
            s(p, "id")
        );
    }
}

#[test]
fn amounts_follow_each_currencys_exponent() {
    for file in [
        "charges.json",
        "invoices.json",
        "refunds.json",
        "payment_intents.json",
        "disputes.json",
    ] {
        for o in arr(&json(file)) {
            let c = s(o, "currency");
            assert!(
                c.len() == 3 && c.chars().all(|x| x.is_ascii_lowercase()),
                "{c} in {file}"
            );
            let amount = o["amount"]
                .as_i64()
                .or_else(|| o["amount_due"].as_i64())
                .unwrap_or(0);
            if c == "kwd" {
                assert_eq!(amount % 10, 0, "{} in {file}", s(o, "id"));
            }
        }
    }
}

#[test]
fn the_ticket_scenarios_are_at_their_boundaries() {
    let charges = json("charges.json");
    let order = |o: &str| -> Vec<&Value> {
        arr(&charges)
            .iter()
            .filter(|c| c["metadata"]["order_id"].as_str() == Some(o))
            .collect()
    };
    assert_eq!(int(order("ORD-7080")[0], "created"), DEMO_NOW - 30 * DAY);
    assert_eq!(int(order("ORD-7090")[0], "created"), DEMO_NOW - 31 * DAY);
    assert_eq!(order("ORD-7030").len(), 2);
    let failed = order("ORD-7021");
    assert_eq!(failed.len(), 1, "ORD-7021 exists only as a failed charge");
    assert_eq!(s(failed[0], "status"), "failed");
    let partial = order("ORD-7130")[0];
    assert_eq!(
        (
            int(partial, "amount_captured"),
            int(partial, "amount_refunded")
        ),
        (12_000, 2_000)
    );
    assert!(order("ORD-7050")[0]["disputed"].as_bool().unwrap_or(false));
    let kwd = order("ORD-7110")[0];
    assert_eq!((s(kwd, "currency"), int(kwd, "amount")), ("kwd", 45_250));
    let customers = json("customers.json");
    let shared = arr(&customers)
        .iter()
        .filter(|c| s(c, "email") == "accounts@bluefinch.example.com")
        .count();
    assert_eq!(shared, 2);
    assert_eq!(tickets::TICKETS.len(), 20);
    assert_eq!(tickets::EXPECTED.len(), 20);
    let rules: HashSet<&str> = tickets::EXPECTED.iter().map(|e| e.rule).collect();
    for r in [
        "no-customer",
        "no-charge",
        "ambiguous-charge",
        "already-refunded",
        "disputed",
        "refund-pattern",
        "first-purchase-window",
        "annual-prorate",
        "outside-window",
    ] {
        assert!(rules.contains(r), "a ticket hits {r}");
    }
}

/// A larger account keeps the same rules (scale 2: 20 days, ten currencies).
#[test]
fn a_scaled_account_ties_out_too() {
    let dir = tempfile::tempdir().expect("tempdir");
    let stats = generate(DEMO_SEED, 2, dir.path()).expect("generate");
    assert_eq!(stats.by_currency("payouts").len(), 10);
    let data = tieout_io::source::demo::load_dir(dir.path()).expect("load");
    let mut net: HashMap<&str, i64> = HashMap::new();
    for t in &data.balance_transactions {
        if let Some(p) = t.payout.as_deref().filter(|_| t.kind != "payout") {
            *net.entry(p).or_default() += t.net;
        }
    }
    let auto: Vec<_> = data.payouts.iter().filter(|p| p.automatic).collect();
    assert!(auto.len() >= 150, "{} payouts", auto.len());
    for p in auto {
        assert_eq!(net.get(p.id.as_str()).copied(), Some(p.amount), "{}", p.id);
    }
    assert!(data.balance_transactions.len() > 15_000);
    assert_eq!(stats.by_currency("worklist").values().sum::<u64>(), 200);
}
#[test]
fn a_generated_folder_loads_the_same_as_the_embedded_demo() {
    let dir = tempfile::tempdir().expect("tempdir");
    crate::generator::generate(
        crate::generator::DEMO_SEED,
        crate::generator::DEMO_SCALE,
        dir.path(),
    )
    .expect("generate");
    let from_dir = tieout_io::source::demo::load_dir(dir.path()).expect("load_dir");
    assert!(
        from_dir == tieout_io::source::demo::load_demo().expect("the demo loads"),
        "load_dir and load_demo disagree (regenerate fixtures/demo?)"
    );
    assert_eq!(
        tieout_io::source::demo::tickets_csv_in(dir.path()).expect("tickets"),
        tieout_io::source::demo::demo_tickets_csv()
    );
}

/// Every payment method a subscription or a customer names is in `payment_methods.json`,
/// a walk customer's card is the one its charges show, and the card scenarios renew
/// after their card expires (four) or not.
#[test]
fn the_payment_methods_agree_with_the_charges_and_the_scenarios() {
    let methods = json("payment_methods.json");
    let by_id: std::collections::HashMap<&str, &Value> =
        arr(&methods).iter().map(|m| (s(m, "id"), m)).collect();
    for c in arr(&json("customers.json")) {
        let pm = c["invoice_settings"]["default_payment_method"]
            .as_str()
            .unwrap_or_default();
        assert!(by_id.contains_key(pm), "{} names {pm}", s(c, "id"));
    }
    for sub in arr(&json("subscriptions.json")) {
        if let Some(pm) = sub["default_payment_method"].as_str() {
            assert!(by_id.contains_key(pm), "{} names {pm}", s(sub, "id"));
        }
    }
    let charges = json("charges.json");
    let charge = arr(&charges)
        .iter()
        .find(|c| c["payment_method"].is_string() && s(c, "status") == "succeeded")
        .expect("a succeeded charge");
    let pm = by_id[s(charge, "payment_method")];
    let card = &charge["payment_method_details"]["card"];
    for k in ["brand", "last4", "exp_month", "exp_year"] {
        assert_eq!(pm["card"][k], card[k], "{k} of {}", s(pm, "id"));
    }
    let subs = json("subscriptions.json");
    let scenario_subs = arr(&subs)
        .iter()
        .filter(|s| s["latest_invoice"].is_null() && s["status"] == "active")
        .count();
    assert_eq!(scenario_subs, 8);
    assert!(by_id.values().any(|m| s(m, "type") == "sepa_debit"));
}

/// Every generated account keeps a true ledger (issue 33): for every month from its first
/// line to the one that holds its clock, opening + activity + payouts = closing, each month
/// opens where the last one closed, the opening summed from the lines equals the one
/// derived back from `/v1/balance`, and the current month's closing is the account's
/// balance, split into available and pending as Stripe splits it.
#[test]
fn generated_accounts_roll_forward_to_their_balance() {
    use tieout_core::domain::balance::roll_forward;
    use tieout_core::time::Month;
    let tz = jiff::tz::TimeZone::UTC;
    for seed in [DEMO_SEED, DEMO_SEED + 1, DEMO_SEED + 2] {
        let dir = tempfile::tempdir().expect("tempdir");
        generate(seed, DEMO_SCALE, dir.path()).expect("generate");
        let data = tieout_io::source::demo::load_dir(dir.path()).expect("load");
        let balance = data.meta.balance.clone().expect("the account's balance");
        assert!(data.meta.lines_complete);
        let first = data
            .balance_transactions
            .iter()
            .map(|l| l.created)
            .min()
            .expect("lines");
        let current = Month::of(balance.read_at, &tz);
        let mut m = Month::of(first, &tz);
        let mut prev: BTreeMap<tieout_core::money::Currency, i128> = BTreeMap::new();
        let mut months = 0;
        while m <= current {
            for r in roll_forward(&data.balance_transactions, m, &tz, true, Some(&balance)) {
                let c = r.currency;
                assert_eq!(
                    r.opening + r.activity + r.payouts,
                    r.closing,
                    "{seed} {m} {c}"
                );
                assert_eq!(r.closing_available + r.closing_pending, r.closing);
                assert_eq!(
                    r.opening,
                    prev.get(&c).copied().unwrap_or(0),
                    "{seed} {m} {c}"
                );
                assert_eq!(r.opening_difference, None, "{seed} {m} {c}: {r:?}");
                if m == current {
                    let (a, p) = balance.amounts.get(&c).copied().unwrap_or_default();
                    assert_eq!(r.difference, Some(0), "{seed} {c}: {r:?}");
                    assert_eq!(
                        (r.closing_available, r.closing_pending),
                        (a, p),
                        "{seed} {c}"
                    );
                }
                prev.insert(c, r.closing);
            }
            m = m.next();
            months += 1;
        }
        assert!(months >= 6, "{seed}: {months} months");
        assert!(!balance.amounts.is_empty());
    }
}
