//! A month's tie-out: the payouts whose `arrival_date` falls in the month (in the chosen
//! time zone), each tied out, with counts and per-currency totals. Currencies are never
//! added together.

use std::collections::BTreeMap;

use foldhash::HashMap;
use rayon::prelude::*;

use jiff::tz::TimeZone;
use serde::Serialize;

use super::payout::{PayoutTieOut, Related, Verdict, tie_out_with};
use crate::model::rows::{BalanceTxnRow, PayoutRow};
use crate::money::Currency;
use crate::time::Month;

/// What an empty month says.
pub const EMPTY_MONTH: &str = "No payouts arrived in this month.";

/// How many payouts ended in each verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub payouts: usize,
    pub tied: usize,
    pub differences: usize,
    pub not_itemisable: usize,
    pub in_progress: usize,
    /// Payouts that failed or were canceled (and whose lines show no difference).
    pub failed_or_canceled: usize,
    /// Payouts that reached the bank and were reversed (and whose lines show no
    /// difference). The reversing payout is counted by its own verdict.
    pub reversed: usize,
}

impl Counts {
    fn add(&mut self, v: Verdict) {
        self.payouts += 1;
        match v {
            Verdict::Tied => self.tied += 1,
            Verdict::Difference => self.differences += 1,
            Verdict::NotItemisable => self.not_itemisable += 1,
            Verdict::InProgress => self.in_progress += 1,
            Verdict::Failed | Verdict::Canceled => self.failed_or_canceled += 1,
            Verdict::Reversed => self.reversed += 1,
        }
    }
}

/// The month's figures in one currency (minor units).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CurrencyTotals {
    pub currency: Currency,
    pub counts: Counts,
    /// Every payout's amount, whatever its status.
    pub payouts_amount: i64,
    /// The amounts of payouts that failed or were canceled (their funds went back).
    pub failed_or_canceled_amount: i64,
    /// Amounts of the payouts that were itemised (automatic, reconciliation completed).
    pub itemised_amount: i64,
    /// Sums over the itemised payouts' lines in this currency.
    pub lines_net: i64,
    pub gross: i64,
    pub fee: i64,
    /// Net of the `refund` lines (negative: money sent back).
    pub refunds: i64,
    /// Net of the `dispute` lines (negative: money taken back by disputes, with their fees).
    pub disputes: i64,
    /// `lines_net - itemised_amount`.
    pub difference: i64,
}

impl CurrencyTotals {
    fn new(currency: Currency) -> Self {
        Self {
            currency,
            counts: Counts::default(),
            payouts_amount: 0,
            failed_or_canceled_amount: 0,
            itemised_amount: 0,
            lines_net: 0,
            gross: 0,
            fee: 0,
            refunds: 0,
            disputes: 0,
            difference: 0,
        }
    }
}

/// The tie-out of one month.
///
/// Its payouts' lines borrow the balance transactions tied out (`'a`);
/// [`MonthTieOut::into_owned`] copies them when the result must outlive those rows.
#[derive(Debug, Clone, PartialEq)]
pub struct MonthTieOut<'a> {
    pub month: Month,
    /// `[start, end)` of the month in the time zone, unix seconds.
    pub start: i64,
    pub end: i64,
    /// In order of arrival, then id.
    pub payouts: Vec<PayoutTieOut<'a>>,
    pub counts: Counts,
    /// One entry per currency, alphabetical.
    pub totals: Vec<CurrencyTotals>,
}

impl<'a> MonthTieOut<'a> {
    /// The same tie-out owning its lines (a pane keeps it across frames).
    pub fn into_owned(self) -> MonthTieOut<'static> {
        MonthTieOut {
            month: self.month,
            start: self.start,
            end: self.end,
            payouts: self
                .payouts
                .into_iter()
                .map(PayoutTieOut::into_owned)
                .collect(),
            counts: self.counts,
            totals: self.totals,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.payouts.is_empty()
    }

    /// True when no payout shows a difference (not itemisable and in progress are not
    /// differences).
    pub fn ties_out(&self) -> bool {
        self.counts.differences == 0
    }

    /// The payouts that do not tie out.
    pub fn differences(&self) -> impl Iterator<Item = &PayoutTieOut<'a>> {
        self.payouts
            .iter()
            .filter(|p| p.verdict == Verdict::Difference)
    }

    pub fn find(&self, payout_id: &str) -> Option<&PayoutTieOut<'a>> {
        self.payouts.iter().find(|p| p.payout.id == payout_id)
    }
}

/// Ties out every payout arriving in `month` (in `tz`).
///
/// `txns` are the balance transactions at hand; each payout's lines are those whose
/// `payout` field names it (the listing that returned them).
pub fn tie_out_month<'a>(
    payouts: &[PayoutRow],
    txns: &'a [BalanceTxnRow],
    month: Month,
    tz: &TimeZone,
) -> MonthTieOut<'a> {
    tie_out_months(payouts, txns, &[month], tz)
        .pop()
        .unwrap_or_else(|| month_of(month, tz, Vec::new()))
}

/// [`tie_out_month`] for several months at once (e.g. every month of a cache), reading
/// the transactions once rather than once per month. One result per month, in order.
pub fn tie_out_months<'a>(
    payouts: &[PayoutRow],
    txns: &'a [BalanceTxnRow],
    months: &[Month],
    tz: &TimeZone,
) -> Vec<MonthTieOut<'a>> {
    let ranges: Vec<(i64, i64)> = months.iter().map(|m| m.range(tz)).collect();
    months
        .iter()
        .zip(tie_out_ranges(payouts, txns, &ranges))
        .map(|(month, results)| month_of(*month, tz, results))
        .collect()
}

/// The payouts arriving at or after the end of `month` (in `tz`), tied out, in order of
/// arrival: the later payouts the month's journal accrues the lines of (those created by
/// the month's end that they pay out).
pub fn tie_out_after<'a>(
    payouts: &[PayoutRow],
    txns: &'a [BalanceTxnRow],
    month: Month,
    tz: &TimeZone,
) -> Vec<PayoutTieOut<'a>> {
    let (_, end) = month.range(tz);
    tie_out_ranges(payouts, txns, &[(end, i64::MAX)])
        .pop()
        .unwrap_or_default()
}

/// The payouts arriving in each `[start, end)` range, tied out: one list per range, each in
/// order of arrival, then id.
fn tie_out_ranges<'a>(
    payouts: &[PayoutRow],
    txns: &'a [BalanceTxnRow],
    ranges: &[(i64, i64)],
) -> Vec<Vec<PayoutTieOut<'a>>> {
    let chosen: Vec<Vec<&PayoutRow>> = ranges
        .iter()
        .map(|&(start, end)| {
            let mut chosen: Vec<&PayoutRow> = payouts
                .iter()
                .filter(|p| p.arrival_date >= start && p.arrival_date < end)
                .collect();
            chosen.sort_by(|a, b| {
                a.arrival_date
                    .cmp(&b.arrival_date)
                    .then_with(|| a.id.cmp(&b.id))
            });
            chosen.dedup_by(|a, b| a.id == b.id);
            chosen
        })
        .collect();

    // Only the chosen payouts' listings are gathered (one pass, hashed).
    let mut by_payout: HashMap<&str, Vec<&'a BalanceTxnRow>> = chosen
        .iter()
        .flatten()
        .map(|p| (p.id.as_str(), Vec::new()))
        .collect();
    for t in txns {
        if let Some(list) = t.payout.as_deref().and_then(|p| by_payout.get_mut(p)) {
            list.push(t);
        }
    }
    // The same transaction listed twice (e.g. two overlapping pages) counts once.
    by_payout.par_iter_mut().for_each(|(_, list)| {
        list.sort_by(|a, b| a.id.cmp(&b.id));
        list.dedup_by(|a, b| a.id == b.id);
    });

    // Each payout's tie-out reads only its own lines and the related index: on all cores,
    // in the chosen order.
    let related = Related::new(chosen.iter().flatten().copied(), txns);
    chosen
        .into_iter()
        .map(|chosen| {
            chosen
                .into_par_iter()
                .map(|p| {
                    let listed = by_payout
                        .get(p.id.as_str())
                        .map(Vec::as_slice)
                        .unwrap_or(&[]);
                    tie_out_with(p, listed, &related)
                })
                .collect()
        })
        .collect()
}

/// A month's tie-out from its payouts' results: counts and per-currency totals.
fn month_of<'a>(month: Month, tz: &TimeZone, results: Vec<PayoutTieOut<'a>>) -> MonthTieOut<'a> {
    let (start, end) = month.range(tz);
    let mut counts = Counts::default();
    let mut totals: BTreeMap<Currency, CurrencyTotals> = BTreeMap::new();
    for r in &results {
        counts.add(r.verdict);
        let t = totals
            .entry(r.currency())
            .or_insert_with(|| CurrencyTotals::new(r.currency()));
        t.counts.add(r.verdict);
        t.payouts_amount = t.payouts_amount.saturating_add(r.payout.amount);
        if matches!(
            r.payout.status,
            crate::model::status::PayoutStatus::Failed
                | crate::model::status::PayoutStatus::Canceled
        ) {
            t.failed_or_canceled_amount =
                t.failed_or_canceled_amount.saturating_add(r.payout.amount);
        }
        if let Some(it) = &r.itemisation {
            t.itemised_amount = t.itemised_amount.saturating_add(r.payout.amount);
            t.lines_net = t.lines_net.saturating_add(it.lines_net);
            t.gross = t.gross.saturating_add(it.lines_gross);
            t.fee = t.fee.saturating_add(it.lines_fee);
            for s in &it.by_category {
                match s.reporting_category.as_str() {
                    "refund" => t.refunds = t.refunds.saturating_add(s.net),
                    "dispute" => t.disputes = t.disputes.saturating_add(s.net),
                    _ => {}
                }
            }
            t.difference = t.difference.saturating_add(it.difference);
        }
    }
    MonthTieOut {
        month,
        start,
        end,
        payouts: results,
        counts,
        totals: totals.into_values().collect(),
    }
}
