use std::collections::BTreeMap;

use jiff::tz::TimeZone;
use proptest::prelude::*;

use super::*;
use crate::domain::tieout::testdata::{at, cur, line, month};
use crate::model::rows::{BalanceTxnRow, FeeDetailRow};
use crate::money::Currency;

fn txn(id: &str, cat: &str, amount: i64, fee: i64, created: &str, avail: &str) -> BalanceTxnRow {
    let mut l = line(id, "po_x", cat, cat, amount, fee);
    l.payout = None;
    l.created = at(created);
    l.available_on = at(avail);
    l
}

fn sample() -> Vec<BalanceTxnRow> {
    vec![
        txn(
            "t1",
            "charge",
            10_000,
            320,
            "2026-09-20T10:00:00Z",
            "2026-09-22T00:00:00Z",
        ),
        txn(
            "t2",
            "payout",
            -9_680,
            0,
            "2026-10-02T10:00:00Z",
            "2026-10-02T10:00:00Z",
        ),
        txn(
            "t3",
            "charge",
            5_000,
            175,
            "2026-10-10T10:00:00Z",
            "2026-10-12T00:00:00Z",
        ),
        txn(
            "t4",
            "refund",
            -1_000,
            0,
            "2026-10-15T10:00:00Z",
            "2026-10-15T10:00:00Z",
        ),
        txn(
            "t5",
            "charge",
            2_000,
            88,
            "2026-10-31T20:00:00Z",
            "2026-11-02T00:00:00Z",
        ),
        txn(
            "t6",
            "fee",
            -500,
            0,
            "2026-10-20T00:00:00Z",
            "2026-10-20T00:00:00Z",
        ),
        txn(
            "t7",
            "charge",
            7_000,
            233,
            "2026-11-03T10:00:00Z",
            "2026-11-05T00:00:00Z",
        ),
    ]
}

#[test]
fn october_rolls_forward_from_the_summed_opening() {
    let r = roll_forward(&sample(), month("2026-10"), &TimeZone::UTC, true, None);
    assert_eq!(r.len(), 1);
    let r = &r[0];
    assert_eq!(r.opening, 9_680);
    assert_eq!(r.opening_source, OpeningSource::Summed);
    assert_eq!(r.payouts, -9_680);
    assert_eq!(r.activity, 4_825 - 1_000 + 1_912 - 500);
    assert_eq!(r.closing, r.opening + r.activity + r.payouts);
    assert_eq!(r.closing_pending, 1_912);
    assert_eq!(r.closing_available, r.closing - 1_912);
    assert_eq!(r.stripe_balance, None);
    assert!(r.ties());
}

#[test]
fn the_derived_opening_agrees_with_the_summed_one_and_the_current_month_ties() {
    let lines = sample();
    let balance = StripeBalance {
        read_at: at("2026-11-04T00:00:00Z"),
        amounts: BTreeMap::from([(Currency::USD, (5_237, 6_767))]),
    };
    let oct = roll_forward(
        &lines,
        month("2026-10"),
        &TimeZone::UTC,
        true,
        Some(&balance),
    );
    assert_eq!(oct[0].opening_source, OpeningSource::Both);
    assert_eq!(oct[0].opening_derived, Some(9_680));
    assert_eq!(oct[0].opening_difference, None);
    assert_eq!(oct[0].stripe_balance, None, "a past month is not compared");
    let nov = roll_forward(
        &lines,
        month("2026-11"),
        &TimeZone::UTC,
        false,
        Some(&balance),
    );
    let n = &nov[0];
    assert_eq!(n.opening_source, OpeningSource::Derived);
    assert_eq!(n.opening, oct[0].closing);
    assert_eq!(
        n.closing_pending, 6_767,
        "pending as of now, not the month's end"
    );
    assert_eq!(n.stripe_balance, Some(n.closing));
    assert_eq!(n.difference, Some(0));
    assert!(n.ties());
}

#[test]
fn a_balance_that_does_not_match_is_a_difference() {
    let balance = StripeBalance {
        read_at: at("2026-11-04T00:00:00Z"),
        amounts: BTreeMap::from([(Currency::USD, (1, 2)), (cur("eur"), (50, 0))]),
    };
    let nov = roll_forward(
        &sample(),
        month("2026-11"),
        &TimeZone::UTC,
        true,
        Some(&balance),
    );
    assert_eq!(
        nov.len(),
        2,
        "a currency Stripe holds but no line has still shows"
    );
    let usd = &nov[1];
    assert_eq!(usd.currency, Currency::USD);
    assert!(usd.opening_difference.is_some());
    assert_eq!(usd.difference, Some(usd.closing - 3));
    assert!(!usd.ties());
    assert_eq!(nov[0].difference, Some(-50));
}

#[test]
fn activity_sums_the_month_by_category() {
    let rows = activity(&sample(), month("2026-10"), &TimeZone::UTC);
    let charge = rows
        .iter()
        .find(|r| r.reporting_category == "charge")
        .expect("charge");
    assert_eq!(
        (charge.count, charge.gross, charge.fee, charge.net),
        (2, 7_000, 263, 6_737)
    );
    let net: i128 = rows.iter().map(|r| r.net).sum();
    let r = &roll_forward(&sample(), month("2026-10"), &TimeZone::UTC, true, None)[0];
    assert_eq!(net, r.activity + r.payouts);
}

fn part(kind: &str, amount: i64) -> FeeDetailRow {
    FeeDetailRow {
        kind: kind.into(),
        amount,
        currency: Currency::USD,
        description: None,
        application: None,
    }
}

#[test]
fn the_fee_statement_totals_line_fees_and_fee_lines() {
    let mut lines = sample();
    lines[2].fee_details = vec![part("stripe_fee", 150), part("tax", 25)].into();
    let rows = fee_statement(&lines, month("2026-10"), &TimeZone::UTC);
    let get = |s: FeeSource, t: &str| {
        rows.iter()
            .find(|r| r.source == s && r.fee_type == t)
            .map(|r| (r.count, r.amount))
    };
    assert_eq!(get(FeeSource::LineFee, "stripe_fee"), Some((1, 150)));
    assert_eq!(get(FeeSource::LineFee, "tax"), Some((1, 25)));
    assert_eq!(get(FeeSource::LineFee, "unitemised"), Some((1, 88)));
    assert_eq!(get(FeeSource::FeeLine, "fee"), Some((1, 500)));
    // Independent sum: every month line's fee plus what fee lines took.
    let (start, end) = month("2026-10").range(&TimeZone::UTC);
    let independent: i128 = lines
        .iter()
        .filter(|l| l.created >= start && l.created < end)
        .map(|l| {
            if l.reporting_category.as_str() == "fee" {
                -i128::from(l.net)
            } else {
                i128::from(l.fee)
            }
        })
        .sum();
    assert_eq!(fee_totals(&rows).get(&Currency::USD), Some(&independent));
}

fn arb_lines() -> impl Strategy<Value = Vec<BalanceTxnRow>> {
    let base = at("2026-01-01T00:00:00Z");
    prop::collection::vec(
        (
            0i64..(365 * 86_400),
            0i64..(10 * 86_400),
            -1_000_000i64..1_000_000,
            0i64..5_000,
            prop::sample::select(vec!["charge", "refund", "payout", "payout_reversal", "fee"]),
            prop::bool::ANY,
        ),
        0..60,
    )
    .prop_map(move |v| {
        v.into_iter()
            .enumerate()
            .map(|(i, (c, a, amount, fee, cat, eur))| {
                let mut l = line(&format!("t{i}"), "po", cat, cat, amount, fee);
                l.created = base + c;
                l.available_on = base + c + a;
                if eur {
                    l.currency = Currency::EUR;
                }
                l
            })
            .collect()
    })
}

proptest! {
    #[test]
    fn every_month_rolls_forward_and_the_current_one_is_stripes(
        lines in arb_lines(), now_offset in 0i64..(365 * 86_400)
    ) {
        let tz = TimeZone::UTC;
        let now = at("2026-01-01T00:00:00Z") + now_offset;
        let known: Vec<_> = lines.iter().filter(|l| l.created < now).cloned().collect();
        let mut amounts: BTreeMap<Currency, (i128, i128)> = BTreeMap::new();
        for l in &known {
            let e = amounts.entry(l.currency).or_default();
            if l.available_on > now { e.1 += i128::from(l.net) } else { e.0 += i128::from(l.net) }
        }
        let balance = StripeBalance { read_at: now, amounts };
        let mut m = month("2026-01");
        let mut prev: BTreeMap<Currency, i128> = BTreeMap::new();
        let current = crate::time::Month::of(now, &tz);
        while m <= current {
            for r in roll_forward(&known, m, &tz, true, Some(&balance)) {
                prop_assert_eq!(r.closing, r.opening + r.activity + r.payouts);
                prop_assert_eq!(r.closing, r.closing_available + r.closing_pending);
                prop_assert_eq!(r.opening, prev.get(&r.currency).copied().unwrap_or(0));
                prop_assert_eq!(r.opening_summed, r.opening_derived);
                if m == current {
                    // The current month's closing is the account's balance, split alike.
                    let (a, p) = balance.amounts.get(&r.currency).copied().unwrap_or_default();
                    prop_assert_eq!(r.stripe_balance, Some(a + p));
                    prop_assert_eq!(r.difference, Some(0));
                    prop_assert_eq!((r.closing_available, r.closing_pending), (a, p));
                    prop_assert!(r.ties());
                } else {
                    prop_assert_eq!(r.stripe_balance, None);
                }
                prev.insert(r.currency, r.closing);
            }
            m = m.next();
        }
        // A balance a cent off is never hidden: the current month shows the cent, and the
        // opening summed from the lines and the one derived from the balance disagree.
        if let Some((c, _)) = balance.amounts.iter().next().map(|(c, v)| (*c, *v)) {
            let mut off = balance.clone();
            if let Some(e) = off.amounts.get_mut(&c) {
                e.0 += 1;
            }
            let rows = roll_forward(&known, current, &tz, true, Some(&off));
            let r = rows.iter().find(|r| r.currency == c);
            prop_assert!(r.is_some());
            if let Some(r) = r {
                prop_assert_eq!(r.difference, Some(-1));
                prop_assert_eq!(r.opening_difference, Some(-1));
                prop_assert!(!r.ties());
            }
        }
    }
}

#[test]
fn conversions_are_the_lines_with_a_rate_and_sum_per_pair() {
    use crate::model::rate::ExchangeRate;
    use crate::model::rows::{ChargeRow, RefundRow};
    let tz = TimeZone::UTC;
    let gbp: Currency = "gbp".parse().expect("gbp");
    let mut lines = sample();
    // t3 was a GBP charge settled in USD; t4 refunds part of it; t5 has a rate but its
    // charge was not read; t1 (September) is out of the month.
    for (i, rate) in [(0, "1.27"), (2, "1.27"), (3, "1.265"), (4, "0.5")] {
        lines[i].exchange_rate = ExchangeRate::parse(rate).expect("rate");
    }
    lines[2].source = Some("ch_gbp".into());
    lines[3].source = Some("re_gbp".into());
    lines[4].source = Some("ch_unread".into());
    let mut charge: ChargeRow = serde_json::from_value(serde_json::json!({
        "id": "ch_gbp", "amount": 3937, "amount_captured": 3937, "amount_refunded": 0,
        "currency": "gbp", "status": "succeeded", "created": 0, "metadata": {},
        "disputed": false, "refunded": false,
    }))
    .expect("charge");
    charge.currency = gbp;
    let refund: RefundRow = serde_json::from_value(serde_json::json!({
        "id": "re_gbp", "charge": "ch_gbp", "amount": 790, "currency": "gbp",
        "status": "succeeded", "created": 0,
    }))
    .expect("refund");
    let rows = conversions(&lines, &[charge], &[refund], month("2026-10"), &tz);
    let ids: Vec<&str> = rows
        .iter()
        .map(|r| r.balance_transaction_id.as_str())
        .collect();
    assert_eq!(ids, ["t3", "t4", "t5"]);
    assert_eq!(
        (rows[0].presentment_amount, rows[0].presentment_currency),
        (Some(3937), Some(gbp))
    );
    assert_eq!(
        (rows[1].presentment_amount, rows[1].settled_amount),
        (Some(-790), -1_000)
    );
    assert_eq!(rows[1].exchange_rate.to_string(), "1.265");
    assert_eq!(
        (rows[2].presentment_amount, rows[2].presentment_currency),
        (None, None)
    );
    let pairs = conversion_pairs(&rows);
    assert_eq!(pairs.len(), 2);
    assert_eq!(pairs[0].presentment_currency, None);
    assert_eq!(
        (
            pairs[1].count,
            pairs[1].presentment_amount,
            pairs[1].settled_amount
        ),
        (2, 3147, 4_000)
    );
}
