//! Row builders for tests of the tie-out and of what renders it.

use crate::model::rows::{BalanceTxnRow, FeeParts, PayoutRow};
use crate::model::status::{PayoutStatus, ReconciliationStatus};
use crate::money::Currency;
use crate::time::{Month, parse_instant};

pub fn cur(code: &str) -> Currency {
    Currency::parse(code).expect("currency")
}

pub fn at(text: &str) -> i64 {
    parse_instant(text).expect("instant")
}

pub fn month(text: &str) -> Month {
    text.parse().expect("month")
}

pub fn payout(id: &str, amount: i64, arrival: &str) -> PayoutRow {
    PayoutRow {
        id: id.into(),
        amount,
        currency: Currency::USD,
        arrival_date: at(arrival),
        created: at(arrival) - 2 * 86_400,
        status: PayoutStatus::Paid,
        automatic: true,
        method: "standard".into(),
        reconciliation_status: ReconciliationStatus::Completed,
        failure_code: None,
        failure_message: None,
        balance_transaction: Some(format!("txn_own_{id}")),
        failure_balance_transaction: None,
        description: Some("STRIPE PAYOUT".into()),
        statement_descriptor: None,
        original_payout: None,
        reversed_by: None,
        trace_id: None,
        trace_id_status: None,
    }
}

pub fn line(id: &str, payout: &str, kind: &str, cat: &str, amount: i64, fee: i64) -> BalanceTxnRow {
    BalanceTxnRow {
        id: id.into(),
        payout: Some(payout.into()),
        kind: kind.into(),
        reporting_category: cat.into(),
        source: Some(format!("src_{id}").into()),
        created: 1_790_000_000,
        available_on: 1_790_100_000,
        currency: Currency::USD,
        amount,
        fee,
        net: amount - fee,
        description: None,
        status: "available".into(),
        fee_details: FeeParts::NONE,
        exchange_rate: Default::default(),
    }
}

pub fn own(p: &PayoutRow) -> BalanceTxnRow {
    BalanceTxnRow {
        id: format!("txn_own_{}", p.id).into(),
        payout: Some(p.id.as_str().into()),
        kind: "payout".into(),
        reporting_category: "payout".into(),
        source: Some(p.id.as_str().into()),
        created: p.created,
        available_on: p.created,
        currency: p.currency,
        amount: -p.amount,
        fee: 0,
        net: -p.amount,
        description: Some("STRIPE PAYOUT".into()),
        status: "available".into(),
        fee_details: FeeParts::NONE,
        exchange_rate: Default::default(),
    }
}

/// A month with one payout of every kind of outcome, in two currencies: a tied payout
/// with a refund, a dispute and a minimum-balance hold; a payout missing a line; a manual
/// payout; one still being reconciled; a failed one; a tied JPY payout whose description
/// looks like a formula.
pub fn sample_month() -> super::MonthTieOut<'static> {
    let (payouts, txns) = sample_rows();
    super::tie_out_month(&payouts, &txns, month("2026-10"), &jiff::tz::TimeZone::UTC).into_owned()
}

/// The rows behind [`sample_month`] (all arriving in October 2026, UTC).
pub fn sample_rows() -> (Vec<PayoutRow>, Vec<BalanceTxnRow>) {
    use crate::model::status::{PayoutStatus as S, ReconciliationStatus as R};
    let mut payouts = Vec::new();
    let mut txns = Vec::new();

    let p1 = payout("po_tied", 78_364, "2026-10-02T00:00:00Z");
    txns.extend([
        line("txn_c1", "po_tied", "charge", "charge", 50_000, 1_480),
        line("txn_c2", "po_tied", "charge", "charge", 42_000, 1_248),
        line("txn_r1", "po_tied", "refund", "refund", -5_000, 0),
        line("txn_d1", "po_tied", "adjustment", "dispute", -2_000, 1_500),
        line(
            "txn_h1",
            "po_tied",
            "payout_minimum_balance_hold",
            "other_adjustment",
            -1_000,
            0,
        ),
        line("txn_f1", "po_tied", "stripe_fee", "fee", -1_408, 0),
    ]);
    // 48_520 + 40_752 - 5_000 - 3_500 - 1_000 - 1_408 = 78_364
    txns.push(own(&p1));
    payouts.push(p1);

    let p2 = payout("po_short", 20_000, "2026-10-09T00:00:00Z");
    txns.push(line("txn_c3", "po_short", "charge", "charge", 15_000, 465));
    txns.push(own(&p2));
    payouts.push(p2);

    let mut p3 = payout("po_manual", 12_345, "2026-10-12T00:00:00Z");
    p3.automatic = false;
    p3.reconciliation_status = R::NotApplicable;
    payouts.push(p3);

    let mut p4 = payout("po_inprog", 7_000, "2026-10-30T00:00:00Z");
    p4.status = S::InTransit;
    p4.reconciliation_status = R::InProgress;
    payouts.push(p4);

    let mut p5 = payout("po_failed", 9_535, "2026-10-16T00:00:00Z");
    p5.status = S::Failed;
    p5.failure_code = Some("account_closed".into());
    p5.failure_message = Some("The bank account has been closed.".into());
    p5.failure_balance_transaction = Some("txn_pf".into());
    txns.push(line("txn_c4", "po_failed", "charge", "charge", 10_000, 465));
    txns.push(own(&p5));
    payouts.push(p5);

    let mut p6 = payout("po_yen", 4_860, "2026-10-20T00:00:00Z");
    p6.currency = cur("jpy");
    let mut y = line("txn_y1", "po_yen", "charge", "charge", 5_000, 140);
    y.currency = cur("jpy");
    y.description = Some("=HYPERLINK(\"http://x\")\nsecond line".into());
    txns.push(y);
    txns.push(own(&p6));
    payouts.push(p6);

    let mut pf = line(
        "txn_pf",
        "po_next",
        "payout_failure",
        "payout_reversal",
        9_535,
        0,
    );
    pf.source = Some("po_failed".into());
    txns.push(pf);
    (payouts, txns)
}

/// A reversed payout and the payout that reverses it, both arriving in October 2026
/// (UTC): `po_orig` (automatic, its lines tie, `reversed_by` po_rev) and `po_rev`
/// (Stripe's reversing payout: manual, negative, reconciliation not applicable,
/// `original_payout` po_orig). The demo generator makes no reversals; this is their shape
/// as Stripe's API reference shows it.
pub fn reversal_rows() -> (Vec<PayoutRow>, Vec<BalanceTxnRow>) {
    use crate::model::status::ReconciliationStatus as R;
    let mut orig = payout("po_orig", 9_000, "2026-10-05T00:00:00Z");
    orig.reversed_by = Some("po_rev".into());
    let mut rev = payout("po_rev", -9_000, "2026-10-09T00:00:00Z");
    rev.automatic = false;
    rev.reconciliation_status = R::NotApplicable;
    rev.original_payout = Some("po_orig".into());
    let txns = vec![
        line("txn_a", "po_orig", "charge", "charge", 9_300, 300),
        own(&orig),
    ];
    (vec![orig, rev], txns)
}
