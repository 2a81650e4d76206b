//! `tieout balance` end to end through the binary (issue 33): golden files of the five
//! exports on the demo account, and the roll-forward's identities over the demo's months.
//!
//! Regenerate the goldens after an intended change with `UPDATE_GOLDEN=1 cargo test --test
//! it balance` and review the diff.

use std::collections::BTreeMap;

use crate::support::cli::Tieout;
use crate::support::golden::{assert_golden, assert_golden_bytes};

const FILES: [&str; 6] = [
    "balance-rollforward.csv",
    "balance-activity.csv",
    "fees.csv",
    "conversions.csv",
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

/// The rows of `balance-rollforward.csv` by currency, each cell as written.
fn rollforward_rows(t: &Tieout) -> BTreeMap<String, Vec<String>> {
    read(t, "balance-rollforward.csv")
        .lines()
        .skip(1)
        .map(|row| {
            let c: Vec<String> = row.trim_end().split(',').map(str::to_string).collect();
            (c[0].clone(), c)
        })
        .collect()
}

/// The demo's current month (November 2026, its balance read at its clock) closes at
/// Stripe's balance in every currency: stripe_balance is the closing, the difference 0,
/// and the opening is both summed and derived.
#[test]
fn the_demo_current_month_closes_at_stripes_balance() {
    let t = Tieout::demo();
    t.run(&["balance", "--month", "2026-11", "--format", "csv"])
        .success();
    let rows = rollforward_rows(&t);
    assert_eq!(rows.len(), 3, "{rows:?}");
    for (c, r) in &rows {
        assert_eq!(r[7], r[4], "{c}: stripe_balance is the closing: {r:?}");
        assert_eq!(minor(&r[8]), 0, "{c}: {r:?}");
        assert_eq!(r[9], "summed_and_derived", "{c}: {r:?}");
        assert_eq!(r[10], "", "{c}: the two openings agree: {r:?}");
    }
}

/// The fake Stripe serves the demo's balance; a fresh read lists every line and reads
/// `GET /v1/balance`, so the current month is compared with Stripe's figure and ties.
#[test]
fn a_fresh_read_through_the_fake_compares_the_month_with_stripes_balance() {
    use crate::support::{FakeConfig, start_fake};
    let fake = start_fake(FakeConfig::default());
    let t = Tieout::against(&fake).now(Some("2026-11-30T12:00:00Z"));
    let run = t.run(&["balance", "--month", "2026-11", "--format", "csv"]);
    run.success();
    let rows = rollforward_rows(&t);
    let demo: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(tieout_testkit::fake_stripe::demo_fixtures().join("balance.json"))
            .expect("balance.json"),
    )
    .expect("json");
    let usd = &rows["usd"];
    let want: i128 = ["available", "pending"]
        .iter()
        .flat_map(|k| demo[k].as_array().expect("list").iter())
        .filter(|e| e["currency"] == "usd")
        .map(|e| i128::from(e["amount"].as_i64().expect("amount")))
        .sum();
    assert_eq!(minor(&usd[7]), want, "{usd:?}");
    assert_eq!(usd[4], usd[7], "{usd:?}");
    assert_eq!(minor(&usd[8]), 0, "{usd:?}");
    assert_eq!(usd[9], "summed_and_derived", "{usd:?}");
    assert!(run.stdout.contains("Stripe's balance"), "{}", run.stdout);
    // Read-only: the balance once, every line listed without a filter.
    let log = fake.requests();
    assert!(log.iter().all(|r| r.method == "GET"));
    assert_eq!(log.iter().filter(|r| r.path == "/v1/balance").count(), 1);
    assert!(
        log.iter()
            .any(|r| r.path == "/v1/balance_transactions" && r.param("payout").is_none()),
        "every line is listed"
    );
}

/// A Stripe balance a cent off the lines is never hidden: `tieout balance` writes the
/// files, shows the cent in the difference column and on stdout, and exits 5.
#[test]
fn a_stripe_balance_a_cent_off_exits_5_and_shows_the_difference() {
    use crate::support::{FakeConfig, start_fake};
    let fixtures = crate::support::fake::demo_fixtures_copy();
    let path = fixtures.path().join("balance.json");
    let mut balance: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("balance.json")).expect("json");
    let usd = balance["available"]
        .as_array_mut()
        .expect("available")
        .iter_mut()
        .find(|e| e["currency"] == "usd")
        .expect("a usd entry");
    let amount = usd["amount"].as_i64().expect("amount");
    usd["amount"] = serde_json::json!(amount + 1);
    std::fs::write(&path, serde_json::to_vec(&balance).expect("json")).expect("write");

    let fake = start_fake(FakeConfig {
        fixtures: fixtures.path().to_path_buf(),
        ..FakeConfig::default()
    });
    let t = Tieout::against(&fake).now(Some("2026-11-30T12:00:00Z"));
    let run = t.run(&["balance", "--month", "2026-11"]);
    run.code(5);
    for name in FILES {
        assert!(t.work_dir().join(name).is_file(), "{name} still written");
    }
    let rows = rollforward_rows(&t);
    assert_eq!(rows["usd"][8], "-0.01", "{:?}", rows["usd"]);
    assert_eq!(
        rows["usd"][10], "-0.01",
        "the openings disagree too: {:?}",
        rows["usd"]
    );
    assert_eq!(minor(&rows["eur"][8]), 0, "{:?}", rows["eur"]);
    assert!(run.stdout.contains("difference -0.01"), "{}", run.stdout);
    assert!(run.stderr.contains("does not tie"), "{}", run.stderr);
}

/// A restricted key without Balance read is refused with the permission named, as every
/// other missing read is.
#[test]
fn a_key_without_balance_read_is_told_which_permission_is_missing() {
    use crate::support::{FakeConfig, start_fake};
    let fake = start_fake(FakeConfig {
        denied: [("*".to_string(), ["rak_balance_read".to_string()].into())].into(),
        ..FakeConfig::default()
    });
    let t = Tieout::against(&fake).now(Some("2026-11-30T12:00:00Z"));
    let run = t.run(&["balance", "--month", "2026-11"]);
    run.code(3);
    assert!(run.stderr.contains("rak_balance_read"), "{}", run.stderr);
    assert!(run.stderr.contains("Balance"), "{}", run.stderr);
}

/// Every `manifest.json` under `dir`.
fn manifests(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(manifests(&p));
        } else if p.file_name().is_some_and(|n| n == "manifest.json") {
            out.push(p);
        }
    }
    out
}

/// A sync keeps Stripe's balance with the instant it was read and every line since the
/// window's start (the payouts' lines and those not paid out yet), and `--cached` compares
/// the current month with it (the opening derived from it, as the demo sums it); a cache
/// saved before tieout listed the lines, or read the balance, still loads and says so.
#[test]
fn the_cache_keeps_the_balance_and_an_older_cache_loads_without_it() {
    use crate::support::{FakeConfig, start_fake};
    let fake = start_fake(FakeConfig::default());
    let t = Tieout::against(&fake).now(Some("2026-11-30T12:00:00Z"));
    t.run(&["sync", "--months", "1"]).success();
    let found = manifests(t.root());
    assert_eq!(found.len(), 1, "{found:?}");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&found[0]).expect("manifest")).expect("json");
    assert_eq!(manifest["balance"]["read_at"], 1_796_040_000, "{manifest}");

    // Every line since the window's start is in the cache, paid out or not.
    assert_eq!(manifest["lines_since"], 1_793_491_200, "{manifest}");
    t.run(&[
        "--cached", "balance", "--month", "2026-11", "--format", "csv,md",
    ])
    .success();
    let rows = rollforward_rows(&t);
    assert_eq!(rows["usd"][9], "derived_from_stripe_balance", "{rows:?}");
    assert_eq!(rows["usd"][4], rows["usd"][7], "{rows:?}");
    assert!(!read(&t, "balance.md").contains("Lines incomplete"));
    // With the lines not yet paid out, the derived opening, activity, payouts and closing
    // are the demo's, which sums them from the account's first line.
    let demo = Tieout::demo();
    demo.run(&["balance", "--month", "2026-11", "--format", "csv"])
        .success();
    let whole = rollforward_rows(&demo);
    for cur in ["eur", "jpy", "usd"] {
        assert_eq!(rows[cur][..7], whole[cur][..7], "{cur}: {rows:?} {whole:?}");
    }

    // A cache from before tieout listed the window's lines: the payouts' lines only, so
    // the opening is not derived from the balance (it would miss the unpaid lines), and
    // the report says the lines are incomplete until the next sync.
    let mut older = manifest.clone();
    older.as_object_mut().expect("object").remove("lines_since");
    std::fs::write(&found[0], serde_json::to_vec_pretty(&older).expect("json")).expect("write");
    t.run(&[
        "--cached", "balance", "--month", "2026-11", "--format", "csv,md", "--force",
    ])
    .success();
    let rows = rollforward_rows(&t);
    assert_eq!(rows["usd"][9], "summed", "{rows:?}");
    assert!(read(&t, "balance.md").contains("Lines incomplete"));

    // The same cache as an older tieout wrote it: no balance in the manifest.
    let mut old = manifest.clone();
    old.as_object_mut().expect("object").remove("balance");
    std::fs::write(&found[0], serde_json::to_vec_pretty(&old).expect("json")).expect("write");
    t.run(&[
        "--cached", "balance", "--month", "2026-11", "--format", "csv", "--force",
    ])
    .success();
    let rows = rollforward_rows(&t);
    assert_eq!(
        rows["usd"][7], "",
        "no Stripe figure without the balance: {rows:?}"
    );
    assert_eq!(rows["usd"][9], "summed", "{rows:?}");
}

/// `conversions.csv` lists exactly the month's lines with an exchange rate, as the demo's
/// JSON has them: the rate as Stripe wrote it, the settled side the line's, the presented
/// side the charge's (or the refund's), signed as the line.
#[test]
fn the_conversions_are_exactly_the_lines_with_an_exchange_rate() {
    let t = Tieout::demo();
    t.run(&["balance", "--month", "2026-10", "--format", "csv"])
        .success();
    let dir = tieout_testkit::fake_stripe::demo_fixtures();
    let json = |name: &str| -> Vec<serde_json::Value> {
        serde_json::from_str(&std::fs::read_to_string(dir.join(name)).expect(name)).expect("json")
    };
    let (start, end) = (1_790_812_800_i64, 1_793_491_200_i64); // October 2026, UTC
    let charges: BTreeMap<String, serde_json::Value> = json("charges.json")
        .into_iter()
        .chain(json("refunds.json"))
        .map(|c| (c["id"].as_str().expect("id").to_string(), c))
        .collect();
    let mut want: BTreeMap<String, (String, String, String)> = BTreeMap::new();
    for l in json("balance_transactions.json") {
        let created = l["created"].as_i64().expect("created");
        if created < start || created >= end || l["exchange_rate"].is_null() {
            continue;
        }
        let src = &charges[l["source"].as_str().expect("source")];
        want.insert(
            l["id"].as_str().expect("id").to_string(),
            (
                l["exchange_rate"].to_string(),
                src["currency"].as_str().expect("currency").to_string(),
                l["currency"].as_str().expect("currency").to_string(),
            ),
        );
    }
    assert!(
        want.len() > 10,
        "the demo converts some October lines: {}",
        want.len()
    );
    let csv = read(&t, "conversions.csv");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().map(str::trim_end),
        Some(
            "balance_transaction_id,created_utc,presentment_amount,presentment_currency,settled_amount,settled_currency,exchange_rate"
        )
    );
    let mut got: BTreeMap<String, (String, String, String)> = BTreeMap::new();
    for row in lines {
        let c: Vec<&str> = row.trim_end().split(',').collect();
        assert!(!c[2].is_empty(), "the presented amount is known: {row}");
        assert_eq!(
            c[2].starts_with('-'),
            c[4].starts_with('-'),
            "signed alike: {row}"
        );
        got.insert(
            c[0].to_string(),
            (c[6].to_string(), c[3].to_string(), c[5].to_string()),
        );
    }
    assert_eq!(got, want);
    let md = {
        t.run(&["balance", "--month", "2026-10", "--format", "md", "--force"])
            .success();
        read(&t, "balance.md")
    };
    assert!(md.contains("## Conversions"), "{md}");
    assert!(md.contains("| gbp | usd |"), "{md}");
}
