//! The month-end accrual on a small account: October's journal asserts, as the clearing
//! account's balance, what Stripe had not paid out at the end of October (summed here
//! straight from the rows), November's books the lines again with their payout, and the
//! two together book each line once.

use std::collections::BTreeMap;

use jiff::tz::TimeZone;

use super::tests::{map, unpaid_at};
use super::*;
use crate::domain::tieout::testdata::{line, month, own, payout};
use crate::domain::tieout::{tie_out_after, tie_out_month};
use crate::model::rows::{BalanceTxnRow, PayoutRow};
use crate::money::Currency;
use crate::time::parse_instant;

fn at(s: &str) -> i64 {
    parse_instant(s).expect("instant")
}

fn dated(id: &str, po: &str, cat: &str, amount: i64, fee: i64, created: &str) -> BalanceTxnRow {
    let kind = if cat == "refund" { "refund" } else { "charge" };
    let mut l = line(id, po, kind, cat, amount, fee);
    l.created = at(created);
    l
}

/// `po_oct` arrives 2026-10-03 with a line of 30 September and one of 1 October;
/// `po_nov` arrives 2026-11-02 with lines of 30 and 31 October and 1 November;
/// `po_dec` arrives 2026-12-01 with a line of 30 November.
fn account() -> (Vec<PayoutRow>, Vec<BalanceTxnRow>) {
    let lines = [
        dated(
            "txn_a",
            "po_oct",
            "charge",
            10_000,
            320,
            "2026-09-30T20:00:00Z",
        ),
        dated(
            "txn_b",
            "po_oct",
            "charge",
            5_000,
            175,
            "2026-10-01T09:00:00Z",
        ),
        dated(
            "txn_c",
            "po_nov",
            "charge",
            20_000,
            610,
            "2026-10-30T10:00:00Z",
        ),
        dated(
            "txn_d",
            "po_nov",
            "refund",
            -2_500,
            0,
            "2026-10-31T23:30:00Z",
        ),
        dated(
            "txn_e",
            "po_nov",
            "charge",
            4_000,
            146,
            "2026-11-01T00:30:00Z",
        ),
        dated(
            "txn_f",
            "po_dec",
            "charge",
            7_000,
            233,
            "2026-11-30T12:00:00Z",
        ),
    ];
    let mut payouts = Vec::new();
    let mut txns = Vec::new();
    for (id, arrival) in [
        ("po_oct", "2026-10-03T00:00:00Z"),
        ("po_nov", "2026-11-02T00:00:00Z"),
        ("po_dec", "2026-12-01T00:00:00Z"),
    ] {
        let mine: Vec<&BalanceTxnRow> = lines
            .iter()
            .filter(|l| l.payout.as_deref() == Some(id))
            .collect();
        let p = payout(id, mine.iter().map(|l| l.net).sum(), arrival);
        txns.push(own(&p));
        txns.extend(mine.into_iter().cloned());
        payouts.push(p);
    }
    (payouts, txns)
}

fn journal(m: &str, style: Style) -> Journal {
    let (payouts, txns) = account();
    let tz = TimeZone::UTC;
    let t = tie_out_month(&payouts, &txns, month(m), &tz);
    let later = tie_out_after(&payouts, &txns, month(m), &tz);
    build(&t, &later, &map(), style, &tz).expect("journal")
}

#[test]
fn the_month_end_assertion_is_the_balance_not_yet_paid_out() {
    let (payouts, txns) = account();
    for style in [Style::Daily, Style::PerPayout] {
        for m in ["2026-10", "2026-11"] {
            let j = journal(m, style);
            let (_, end) = month(m).range(&TimeZone::UTC);
            let unpaid = unpaid_at(&payouts, &txns, end);
            let usd = unpaid.get(&Currency::USD).copied().unwrap_or(0);
            assert_ne!(usd, 0, "{m}: something is not paid out at the month's end");
            assert_eq!(j.not_paid_out, unpaid, "{m} {style:?}");
            assert_eq!(j.clearing_at_end.get(&Currency::USD), Some(&usd), "{m}");
            // The files say it: beancount's balance and hledger's assertion.
            let bean = String::from_utf8(
                render(&j, &map(), Format::Beancount).expect("bean")[0]
                    .1
                    .clone(),
            )
            .expect("utf8");
            let figure = crate::money::format_major(usd, Currency::USD);
            assert!(
                bean.contains(&format!(
                    "{} balance Assets:Stripe:Clearing {figure} USD",
                    j.next_day
                )),
                "{bean}"
            );
            assert!(
                bean.contains(&format!("{figure} USD not yet paid out to the bank")),
                "{bean}"
            );
            let hl = String::from_utf8(
                render(&j, &map(), Format::Hledger).expect("hledger")[0]
                    .1
                    .clone(),
            )
            .expect("utf8");
            assert!(hl.contains(&format!("= {figure} USD")), "{hl}");
        }
    }
    // October: the 30 and 31 October lines of po_nov (the 1 November one is not yet made).
    assert_eq!(
        journal("2026-10", Style::Daily).not_paid_out,
        BTreeMap::from([(Currency::USD, 20_000 - 610 - 2_500)])
    );
}

#[test]
fn lines_are_booked_in_their_month_accrued_when_paid_out_later_and_reversed_next_day() {
    let oct = journal("2026-10", Style::Daily);
    let nov = journal("2026-11", Style::Daily);
    let summary = |j: &Journal| -> Vec<(String, EntryKind, String, Vec<String>)> {
        j.entries
            .iter()
            .map(|e| (e.date.clone(), e.kind, e.payout.clone(), e.lines.clone()))
            .collect()
    };
    let ids = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let s = |d: &str, k: EntryKind, p: &str, l: &[&str]| (d.to_string(), k, p.to_string(), ids(l));
    assert_eq!(
        summary(&oct),
        vec![
            // The line of 30 September is booked on 1 October (September's journal accrued it).
            s("2026-10-01", EntryKind::Lines, "po_oct", &["txn_a"]),
            s("2026-10-01", EntryKind::Lines, "po_oct", &["txn_b"]),
            s("2026-10-03", EntryKind::Payout, "po_oct", &[]),
            s("2026-10-30", EntryKind::Accrual, "po_nov", &["txn_c"]),
            s("2026-10-31", EntryKind::Accrual, "po_nov", &["txn_d"]),
            s("2026-11-01", EntryKind::Reversal, "po_nov", &[]),
        ]
    );
    assert!(
        oct.entries[0]
            .narration
            .contains("created before 2026-10 (the 2026-09 journal accrues it)"),
        "{}",
        oct.entries[0].narration
    );
    assert_eq!(
        oct.entries[3].narration,
        "accrued: charge: 1 line, paid out on 2026-11-02"
    );
    assert_eq!(
        summary(&nov),
        vec![
            s("2026-11-01", EntryKind::Lines, "po_nov", &["txn_c"]),
            s("2026-11-01", EntryKind::Lines, "po_nov", &["txn_d"]),
            s("2026-11-01", EntryKind::Lines, "po_nov", &["txn_e"]),
            s("2026-11-02", EntryKind::Payout, "po_nov", &[]),
            s("2026-11-30", EntryKind::Accrual, "po_dec", &["txn_f"]),
            s("2026-12-01", EntryKind::Reversal, "po_dec", &[]),
        ]
    );
    // Together, October's and November's journals take from Income:Sales each line's
    // amount once: up to 30 November every line made by then (po_dec's accrued), and
    // with the reversal of 1 December, the lines of the payouts that arrived.
    let sales = |before: &str| -> i64 {
        oct.entries
            .iter()
            .chain(&nov.entries)
            .filter(|e| e.date.as_str() < before)
            .flat_map(|e| &e.postings)
            .filter(|p| p.account == "Income:Sales")
            .map(|p| p.amount)
            .sum()
    };
    assert_eq!(
        sales("2026-12-01"),
        -(10_000 + 5_000 + 20_000 + 4_000 + 7_000)
    );
    assert_eq!(sales("2026-12-02"), -(10_000 + 5_000 + 20_000 + 4_000));
}

#[test]
fn per_payout_accrues_one_entry_on_the_last_day() {
    let j = journal("2026-10", Style::PerPayout);
    let kinds: Vec<(String, EntryKind)> =
        j.entries.iter().map(|e| (e.date.clone(), e.kind)).collect();
    assert_eq!(
        kinds,
        vec![
            ("2026-10-03".to_string(), EntryKind::Payout),
            ("2026-10-31".to_string(), EntryKind::Accrual),
            ("2026-11-01".to_string(), EntryKind::Reversal),
        ]
    );
    assert_eq!(
        j.entries[1].narration,
        "accrued at month end: 2 lines paid out on 2026-11-02"
    );
}
