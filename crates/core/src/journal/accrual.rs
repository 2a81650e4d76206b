//! The month-end accrual: the lines created by the month's end that a later payout pays
//! out, booked into the clearing account in the month (so its income and fees fall in the
//! month they happened, and the clearing account holds at month end what Stripe had not
//! yet paid out to the bank), each payout's accrual reversed on the next month's first
//! day (the month its payout arrives in books the lines again, with the payout).
//!
//! The accrual and its reversal are written together, in the month's journal (an
//! auto-reversing journal, as QuickBooks and Xero call it): over a payout's entries the
//! clearing account still nets to zero, and two months' journals together book every line
//! once, whichever data each was made from.

use std::collections::BTreeMap;

use super::lines::{Booking, MonthCut, line_entries, post};
use super::model::{Entry, EntryKind, JournalError, Style};
use crate::domain::tieout::PayoutTieOut;
use crate::money::Currency;
use crate::time::date_in;

/// What the data says Stripe had not paid out at the month's end, per currency: the net
/// of the lines created before `end` that the itemised `later` payouts pay out, and how
/// many lines that is. Straight from the lines, not from the entries.
pub(super) fn not_paid_out(later: &[PayoutTieOut], end: i64) -> (BTreeMap<Currency, i64>, usize) {
    let mut sums = BTreeMap::new();
    let mut n = 0usize;
    for q in later.iter().filter(|q| q.payout.arrival_date >= end) {
        for l in q.itemisation.iter().flat_map(|it| &it.lines) {
            if l.created < end {
                *sums.entry(l.currency).or_insert(0i64) += l.net;
                n += 1;
            }
        }
    }
    (sums, n)
}

/// The accrual entries of later payout `q` (its lines created before `end`) and their
/// reversal, dated the next month's first day. Nothing when the data holds none of its
/// lines (it is not itemised yet) or none were created by then.
pub(super) fn accrue(
    q: &PayoutTieOut,
    end: i64,
    style: Style,
    cut: &mut MonthCut<'_>,
) -> Result<Vec<Entry>, JournalError> {
    let Some(it) = &q.itemisation else {
        return Ok(Vec::new());
    };
    if q.payout.arrival_date < end {
        return Ok(Vec::new());
    }
    let lines: Vec<_> = it.lines.iter().filter(|l| l.created < end).collect();
    if lines.is_empty() {
        return Ok(Vec::new());
    }
    let arrival = date_in(q.payout.arrival_date, cut.tz);
    let mut cleared = BTreeMap::new();
    let mut entries = line_entries(
        q,
        &lines,
        Booking::Accrued,
        cut,
        &mut Vec::new(),
        &mut cleared,
    )?;
    if style == Style::PerPayout && !entries.is_empty() {
        let n = lines.len();
        let narration = format!(
            "accrued at month end: {n} line{} paid out on {arrival}",
            if n == 1 { "" } else { "s" }
        );
        let mut one = super::model::fold(entries, &cut.last_day, narration, None);
        one.kind = EntryKind::Accrual;
        entries = vec![one];
    }
    let mut postings = Vec::new();
    for e in &entries {
        for p in &e.postings {
            post(&mut postings, &p.account, p.currency, -p.amount);
        }
    }
    postings.retain(|p| p.amount != 0);
    if !postings.is_empty() {
        entries.push(Entry {
            date: cut.next_day.clone(),
            payout: q.payout.id.clone(),
            kind: EntryKind::Reversal,
            lines: Vec::new(),
            narration: format!(
                "reversal of the {} accrual: the journal of {} books these lines with their payout",
                cut.month,
                crate::time::Month::of(q.payout.arrival_date, cut.tz)
            ),
            review: None,
            postings,
        });
    }
    Ok(entries)
}
