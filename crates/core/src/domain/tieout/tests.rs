//! Unit and property tests of the tie-out.

use jiff::tz::TimeZone;
use proptest::prelude::*;

use super::testdata::*;
use super::*;
use crate::model::rows::{BalanceTxnRow, PayoutRow};
use crate::model::status::{PayoutStatus, ReconciliationStatus};
use crate::money::Currency;
use crate::time::parse_tz;

fn oct() -> MonthTieOut<'static> {
    let p = payout("po_1", 9_000, "2026-10-05T00:00:00Z");
    let txns = vec![
        line("txn_a", "po_1", "charge", "charge", 10_000, 320),
        line("txn_b", "po_1", "refund", "refund", -1_000, 0),
        line("txn_c", "po_1", "stripe_fee", "fee", 320, 0),
        own(&p),
    ];
    tie_out_month(&[p], &txns, month("2026-10"), &TimeZone::UTC).into_owned()
}

#[test]
fn a_payout_whose_lines_sum_to_it_ties_out() {
    let m = oct();
    assert_eq!(m.payouts.len(), 1);
    let r = &m.payouts[0];
    assert_eq!(r.verdict, Verdict::Tied, "{:?}", r.notes);
    let it = r.itemisation.as_ref().expect("itemised");
    assert_eq!(
        it.lines.len(),
        3,
        "the payout's own transaction is not a line"
    );
    assert_eq!(it.own.as_ref().map(|o| o.id.as_str()), Some("txn_own_po_1"));
    assert_eq!(it.lines_net, 9_000);
    assert_eq!(it.difference, 0);
    let cats: Vec<_> = it
        .by_category
        .iter()
        .map(|c| {
            (
                c.reporting_category.as_str(),
                c.count,
                c.gross,
                c.fee,
                c.net,
            )
        })
        .collect();
    assert_eq!(
        cats,
        [
            ("charge", 1, 10_000, 320, 9_680),
            ("refund", 1, -1_000, 0, -1_000),
            ("fee", 1, 320, 0, 320),
        ]
    );
    assert!(m.ties_out());
    assert_eq!(m.counts.tied, 1);
    let t = &m.totals[0];
    assert_eq!(
        (t.payouts_amount, t.lines_net, t.fee, t.refunds),
        (9_000, 9_000, 320, -1_000)
    );
}

#[test]
fn a_missing_line_is_a_difference_with_both_numbers() {
    let p = payout("po_1", 9_000, "2026-10-05T00:00:00Z");
    let txns = vec![
        line("txn_a", "po_1", "charge", "charge", 10_000, 320),
        own(&p),
    ];
    let m = tie_out_month(&[p], &txns, month("2026-10"), &TimeZone::UTC);
    let r = &m.payouts[0];
    assert_eq!(r.verdict, Verdict::Difference);
    assert_eq!(r.lines_net(), Some(9_680));
    assert_eq!(r.difference(), Some(680));
    assert!(
        r.note().contains("96.80 USD but the payout is 90.00 USD"),
        "{}",
        r.note()
    );
    assert!(!m.ties_out());
    assert_eq!(m.differences().count(), 1);
}

#[test]
fn a_line_with_broken_arithmetic_is_named() {
    let p = payout("po_1", 9_680, "2026-10-05T00:00:00Z");
    let mut bad = line("txn_a", "po_1", "charge", "charge", 10_000, 320);
    bad.fee = 300; // net still 9_680: the sum ties, the line does not.
    let txns = [bad, own(&p)];
    let m = tie_out_month(
        std::slice::from_ref(&p),
        &txns,
        month("2026-10"),
        &TimeZone::UTC,
    );
    let r = &m.payouts[0];
    assert_eq!(r.verdict, Verdict::Difference);
    assert_eq!(r.difference(), Some(0));
    let it = r.itemisation.as_ref().expect("itemised");
    assert!(matches!(&it.problems[..], [Problem::LineArithmetic { txn, .. }] if txn == "txn_a"));
    assert!(
        r.note()
            .contains("Line txn_a: net 96.80 is not amount 100.00 minus fee 3.00")
    );
}

#[test]
fn the_own_transaction_is_checked() {
    let p = payout("po_1", 9_680, "2026-10-05T00:00:00Z");
    let mut o = own(&p);
    o.net = -9_000;
    let txns = vec![line("txn_a", "po_1", "charge", "charge", 10_000, 320), o];
    let m = tie_out_month(&[p], &txns, month("2026-10"), &TimeZone::UTC);
    let r = &m.payouts[0];
    assert_eq!(r.verdict, Verdict::Difference);
    assert!(
        r.note()
            .contains("own transaction txn_own_po_1 has net -90.00 USD"),
        "{}",
        r.note()
    );
}

#[test]
fn foreign_currency_lines_are_flagged_and_left_out() {
    let p = payout("po_1", 9_680, "2026-10-05T00:00:00Z");
    let mut eur = line("txn_e", "po_1", "charge", "charge", 500, 0);
    eur.currency = cur("eur");
    let txns = vec![
        line("txn_a", "po_1", "charge", "charge", 10_000, 320),
        eur,
        own(&p),
    ];
    let m = tie_out_month(&[p], &txns, month("2026-10"), &TimeZone::UTC);
    let r = &m.payouts[0];
    assert_eq!(r.verdict, Verdict::Difference);
    assert_eq!(r.lines_net(), Some(9_680));
    assert!(r.note().contains("Line txn_e is in EUR"), "{}", r.note());
    assert_eq!(m.totals.len(), 1, "no EUR total appears from a stray line");
}

#[test]
fn manual_and_instant_payouts_are_not_itemisable_never_a_difference() {
    let mut manual = payout("po_m", 5_000, "2026-10-06T00:00:00Z");
    manual.automatic = false;
    let mut instant = payout("po_i", 2_000, "2026-10-07T00:00:00Z");
    instant.automatic = false;
    instant.method = "instant".into();
    // Even a stray listing for the manual payout is not used.
    let txns = vec![line("txn_x", "po_m", "charge", "charge", 1, 0)];
    let m = tie_out_month(&[manual, instant], &txns, month("2026-10"), &TimeZone::UTC);
    assert_eq!(m.counts.not_itemisable, 2);
    assert!(m.ties_out());
    let r = &m.payouts[0];
    assert_eq!(r.kind, PayoutKind::Manual);
    assert_eq!(r.lines_net(), None);
    assert_eq!(r.difference(), None);
    assert!(r.note().starts_with(MANUAL_REASON));
    assert_eq!(m.payouts[1].kind, PayoutKind::Instant);
    assert!(m.payouts[1].note().starts_with(INSTANT_REASON));
}

#[test]
fn payouts_not_yet_reconciled_are_in_progress() {
    let mut a = payout("po_a", 5_000, "2026-10-06T00:00:00Z");
    a.reconciliation_status = ReconciliationStatus::InProgress;
    a.status = PayoutStatus::InTransit;
    let mut b = payout("po_b", 5_000, "2026-10-07T00:00:00Z");
    b.reconciliation_status = ReconciliationStatus::NotApplicable;
    let m = tie_out_month(&[a, b], &[], month("2026-10"), &TimeZone::UTC);
    assert_eq!(m.counts.in_progress, 2);
    assert!(m.ties_out());
    assert!(m.payouts[0].note().contains("still reconciling"));
    assert!(m.payouts[0].note().contains("status in transit"));
    assert!(m.payouts[1].note().contains("not_applicable"));
}

#[test]
fn a_failed_payout_says_where_its_funds_went() {
    let mut p = payout("po_f", 9_680, "2026-10-08T00:00:00Z");
    p.status = PayoutStatus::Failed;
    p.failure_code = Some("account_closed".into());
    p.failure_message = Some("The bank account has been closed.".into());
    p.failure_balance_transaction = Some("txn_fail".into());
    let mut back = line(
        "txn_fail",
        "po_later",
        "payout_failure",
        "payout_reversal",
        9_680,
        0,
    );
    back.source = Some("po_f".into());
    let txns = vec![
        line("txn_a", "po_f", "charge", "charge", 10_000, 320),
        own(&p),
        back,
    ];
    let m = tie_out_month(&[p.clone()], &txns, month("2026-10"), &TimeZone::UTC);
    let r = &m.payouts[0];
    // Its lines tie, but it is shown as what it is: failed, never "tied".
    assert_eq!(r.verdict, Verdict::Failed);
    assert_eq!(r.difference(), Some(0));
    assert_eq!(m.counts.failed_or_canceled, 1);
    assert_eq!(m.counts.tied, 0);
    assert!(m.ties_out(), "a failed payout is not a difference");
    let note = r.note();
    assert!(
        note.contains("This payout failed (account_closed: The bank account has been closed.)"),
        "{note}"
    );
    assert!(
        note.contains("payout_failure transaction txn_fail (96.80 USD)"),
        "{note}"
    );
    assert_eq!(m.totals[0].failed_or_canceled_amount, 9_680);

    // A difference in a failed payout's lines is still a difference.
    let short = vec![
        line("txn_a", "po_f", "charge", "charge", 9_000, 320),
        own(&p),
    ];
    let d = tie_out_month(&[p.clone()], &short, month("2026-10"), &TimeZone::UTC);
    assert_eq!(d.payouts[0].verdict, Verdict::Difference);

    // A canceled payout says canceled.
    let mut c = p;
    c.status = PayoutStatus::Canceled;
    let m = tie_out_month(&[c], &txns, month("2026-10"), &TimeZone::UTC);
    assert_eq!(m.payouts[0].verdict, Verdict::Canceled);
    assert_eq!(m.payouts[0].verdict.label(), "canceled");
}

#[test]
fn a_reversed_payout_and_its_reversal_are_shown_as_what_they_are() {
    let (payouts, txns) = reversal_rows();
    let m = tie_out_month(&payouts, &txns, month("2026-10"), &TimeZone::UTC);
    let orig = m.find("po_orig").expect("po_orig");
    // Its lines tie, but it is shown as reversed, naming the reversing payout.
    assert_eq!(orig.verdict, Verdict::Reversed, "{:?}", orig.notes);
    assert_eq!(orig.verdict.as_str(), "reversed");
    assert_eq!(orig.difference(), Some(0));
    assert!(
        orig.note().contains(
            "This payout was reversed by payout po_rev: Stripe debited its 90.00 USD back from the bank account"
        ),
        "{}",
        orig.note()
    );
    let rev = m.find("po_rev").expect("po_rev");
    assert_eq!(rev.verdict, Verdict::NotItemisable);
    assert_eq!(
        rev.notes,
        vec![
            REVERSAL_REASON.to_string(),
            "This payout is the reversal of payout po_orig: it debits 90.00 USD from the bank account back into the Stripe balance.".to_string(),
        ]
    );
    assert_eq!(m.counts.reversed, 1);
    assert_eq!(m.counts.not_itemisable, 1);
    assert_eq!(m.counts.tied, 0);
    assert_eq!(m.totals[0].counts.reversed, 1);
    assert!(m.ties_out(), "a reversal is not a difference");
    // The bank got the original and was debited the reversal: they cancel out, and
    // neither is a failed payout whose money never reached the bank.
    assert_eq!(m.totals[0].payouts_amount, 0);
    assert_eq!(m.totals[0].failed_or_canceled_amount, 0);

    // A difference in a reversed payout's lines is still a difference.
    let short: Vec<BalanceTxnRow> = txns
        .iter()
        .cloned()
        .map(|mut t| {
            if t.id == "txn_a" {
                t.amount -= 100;
                t.net -= 100;
            }
            t
        })
        .collect();
    let d = tie_out_month(&payouts, &short, month("2026-10"), &TimeZone::UTC);
    let orig = d.find("po_orig").expect("po_orig");
    assert_eq!(orig.verdict, Verdict::Difference);
    assert!(orig.note().contains("reversed by payout po_rev"));
    assert_eq!(d.counts.reversed, 0);
    assert_eq!(d.counts.differences, 1);

    // A failed payout stays failed even if Stripe also names a reversal.
    let mut failed = payouts[0].clone();
    failed.status = PayoutStatus::Failed;
    let f = tie_out_month(&[failed], &txns, month("2026-10"), &TimeZone::UTC);
    assert_eq!(f.payouts[0].verdict, Verdict::Failed);
}

#[test]
fn minimum_balance_holds_are_their_own_category() {
    let p = payout("po_1", 90_000, "2026-10-05T00:00:00Z");
    let txns = vec![
        line("txn_a", "po_1", "charge", "charge", 100_000, 0),
        line(
            "txn_h",
            "po_1",
            "payout_minimum_balance_hold",
            "other_adjustment",
            -10_000,
            0,
        ),
        own(&p),
    ];
    let m = tie_out_month(&[p], &txns, month("2026-10"), &TimeZone::UTC);
    let r = &m.payouts[0];
    assert_eq!(r.verdict, Verdict::Tied);
    let it = r.itemisation.as_ref().expect("itemised");
    assert_eq!(
        it.by_category[1].reporting_category,
        "payout_minimum_balance_hold"
    );
    assert!(r.note().contains("withheld 100.00 USD"), "{}", r.note());
}

#[test]
fn month_boundaries_follow_the_time_zone() {
    // 23:30 UTC on 31 October is 00:30 on 1 November in Berlin.
    let late = payout("po_late", 100, "2026-10-31T23:30:00Z");
    let first = payout("po_first", 100, "2026-10-01T00:00:00Z");
    let next = payout("po_next", 100, "2026-11-01T00:00:00Z");
    let all = [late, first, next];
    let utc = tie_out_month(&all, &[], month("2026-10"), &TimeZone::UTC);
    let ids: Vec<_> = utc.payouts.iter().map(|p| p.payout.id.as_str()).collect();
    assert_eq!(
        ids,
        ["po_first", "po_late"],
        "first instant in, next month's out"
    );
    let berlin = parse_tz("Europe/Berlin").expect("tz");
    let b = tie_out_month(&all, &[], month("2026-11"), &berlin);
    let ids: Vec<_> = b.payouts.iter().map(|p| p.payout.id.as_str()).collect();
    assert_eq!(ids, ["po_late", "po_next"]);
}

#[test]
fn an_empty_month_is_empty() {
    let m = oct();
    let empty = tie_out_month(
        &m.payouts
            .iter()
            .map(|p| p.payout.clone())
            .collect::<Vec<_>>(),
        &[],
        month("2026-12"),
        &TimeZone::UTC,
    );
    assert!(empty.is_empty());
    assert!(empty.ties_out());
    assert!(empty.totals.is_empty());
    assert_eq!(EMPTY_MONTH, "No payouts arrived in this month.");
}

#[test]
fn no_listing_at_all_is_a_difference_that_says_so() {
    let p = payout("po_1", 9_000, "2026-10-05T00:00:00Z");
    let m = tie_out_month(&[p], &[], month("2026-10"), &TimeZone::UTC);
    let r = &m.payouts[0];
    assert_eq!(r.verdict, Verdict::Difference);
    assert_eq!(r.difference(), Some(-9_000));
    assert!(r.note().contains("returned nothing"));
}

// ---- properties ----

fn any_currency() -> impl Strategy<Value = Currency> {
    prop::sample::select(vec!["usd", "eur", "jpy", "kwd", "gbp"]).prop_map(cur)
}

fn any_line() -> impl Strategy<Value = (String, String, i64, i64)> {
    (
        prop::sample::select(vec![
            ("charge", "charge"),
            ("refund", "refund"),
            ("adjustment", "dispute"),
            ("stripe_fee", "fee"),
            ("payout_minimum_balance_hold", "other_adjustment"),
            ("payout_failure", "payout_reversal"),
        ]),
        -1_000_000i64..1_000_000,
        0i64..50_000,
    )
        .prop_map(|((k, c), amount, fee)| (k.to_string(), c.to_string(), amount, fee))
}

fn build(cur: Currency, specs: &[(String, String, i64, i64)]) -> (PayoutRow, Vec<BalanceTxnRow>) {
    let lines: Vec<BalanceTxnRow> = specs
        .iter()
        .enumerate()
        .map(|(i, (k, c, a, f))| {
            let mut l = line(&format!("txn_{i:04}"), "po_p", k, c, *a, *f);
            l.currency = cur;
            l.created += i as i64;
            l
        })
        .collect();
    let mut p = payout(
        "po_p",
        lines.iter().map(|l| l.net).sum(),
        "2026-10-15T00:00:00Z",
    );
    p.currency = cur;
    let mut txns = lines;
    txns.push(own(&p));
    (p, txns)
}

proptest! {
    #[test]
    fn a_payout_built_from_its_lines_always_ties(
        cur in any_currency(),
        specs in prop::collection::vec(any_line(), 0..40),
    ) {
        let (p, txns) = build(cur, &specs);
        let m = tie_out_month(&[p], &txns, month("2026-10"), &TimeZone::UTC);
        let r = &m.payouts[0];
        prop_assert_eq!(r.verdict, Verdict::Tied);
        prop_assert_eq!(r.difference(), Some(0));
        let it = r.itemisation.as_ref().expect("itemised");
        prop_assert_eq!(it.lines.len(), specs.len());
        let by_cat: i64 = it.by_category.iter().map(|c| c.net).sum();
        prop_assert_eq!(by_cat, r.payout.amount);
        let count: usize = it.by_category.iter().map(|c| c.count).sum();
        prop_assert_eq!(count, specs.len());
    }

    #[test]
    fn a_removed_line_is_a_difference_of_exactly_its_net(
        cur in any_currency(),
        specs in prop::collection::vec(any_line(), 1..40),
        pick in any::<prop::sample::Index>(),
    ) {
        let (p, mut txns) = build(cur, &specs);
        let i = pick.index(specs.len());
        let removed = txns.remove(i);
        let m = tie_out_month(&[p], &txns, month("2026-10"), &TimeZone::UTC);
        let r = &m.payouts[0];
        prop_assert_eq!(r.difference(), Some(-removed.net));
        prop_assert_eq!(r.verdict == Verdict::Tied, removed.net == 0);
        prop_assert_eq!(m.ties_out(), removed.net == 0);
    }

    #[test]
    fn an_altered_line_is_a_difference_of_exactly_the_change(
        cur in any_currency(),
        specs in prop::collection::vec(any_line(), 1..40),
        pick in any::<prop::sample::Index>(),
        delta in -100_000i64..100_000,
    ) {
        let (p, mut txns) = build(cur, &specs);
        let i = pick.index(specs.len());
        txns[i].amount += delta;
        txns[i].net += delta;
        let m = tie_out_month(&[p], &txns, month("2026-10"), &TimeZone::UTC);
        prop_assert_eq!(m.payouts[0].difference(), Some(delta));
        prop_assert_eq!(m.payouts[0].verdict == Verdict::Tied, delta == 0);
    }

    #[test]
    fn sums_never_mix_currencies(
        payouts in prop::collection::vec((any_currency(), prop::collection::vec((any_line(), any_currency()), 0..12)), 1..8),
    ) {
        let mut all_payouts = Vec::new();
        let mut all_txns = Vec::new();
        for (n, (pc, specs)) in payouts.iter().enumerate() {
            let pid = format!("po_{n}");
            let mut p = payout(&pid, 0, "2026-10-15T00:00:00Z");
            p.currency = *pc;
            p.balance_transaction = None;
            for (i, ((k, c, a, f), lc)) in specs.iter().enumerate() {
                let mut l = line(&format!("txn_{n}_{i}"), &pid, k, c, *a, *f);
                l.currency = *lc;
                p.amount += if lc == pc { l.net } else { 0 };
                all_txns.push(l);
            }
            all_payouts.push(p);
        }
        let m = tie_out_month(&all_payouts, &all_txns, month("2026-10"), &TimeZone::UTC);
        for r in &m.payouts {
            let expected: i64 = all_txns
                .iter()
                .filter(|t| t.payout.as_deref() == Some(r.payout.id.as_str()) && t.currency == r.payout.currency)
                .map(|t| t.net)
                .sum();
            prop_assert_eq!(r.lines_net(), Some(expected));
            let foreign = all_txns.iter().any(|t| t.payout.as_deref() == Some(r.payout.id.as_str()) && t.currency != r.payout.currency);
            prop_assert_eq!(r.verdict == Verdict::Tied, !foreign);
        }
        for t in &m.totals {
            let amount: i64 = all_payouts.iter().filter(|p| p.currency == t.currency).map(|p| p.amount).sum();
            prop_assert_eq!(t.payouts_amount, amount);
            prop_assert_eq!(t.lines_net, amount);
            prop_assert_eq!(t.difference, 0);
        }
        let currencies: std::collections::BTreeSet<_> = all_payouts.iter().map(|p| p.currency).collect();
        prop_assert_eq!(m.totals.len(), currencies.len());
    }
}

#[test]
fn funds_of_a_failed_payout_paid_out_again_are_named_and_holds_are_not_reversals() {
    let p = payout("po_next", 10_000, "2026-10-20T00:00:00Z");
    let mut back = line(
        "txn_pf",
        "po_next",
        "payout_failure",
        "payout_reversal",
        9_000,
        0,
    );
    back.source = Some("po_failed".into());
    let mut hold = line(
        "txn_h",
        "po_next",
        "payout_minimum_balance_hold",
        "payout_minimum_balance_hold",
        -1_000,
        0,
    );
    hold.source = Some("po_next".into());
    let txns = vec![
        line("txn_a", "po_next", "charge", "charge", 2_000, 0),
        back,
        hold,
        own(&p),
    ];
    let m = tie_out_month(&[p], &txns, month("2026-10"), &TimeZone::UTC);
    let r = &m.payouts[0];
    assert_eq!(r.verdict, Verdict::Tied, "{}", r.note());
    let note = r.note();
    assert!(
        note.contains(
            "Includes 90.00 USD that came back from payout po_failed (txn_pf payout_failure)"
        ),
        "{note}"
    );
    assert!(note.contains("withheld 10.00 USD"), "{note}");
    assert!(
        !note.contains("moved this payout's funds back"),
        "a hold is not a reversal: {note}"
    );
}
