//! The journal of a month: entries with postings in minor units per currency, built from
//! the month's tie-out (the payouts arriving in the month and the lines Stripe listed for
//! them) and the later payouts the data holds (for the month-end accrual).
//!
//! `daily`: each payout's lines grouped per day (their `created`, in the zone; a line
//! created before the month on its first day, see [`super::lines`]) and category into the
//! clearing account (amount to the category's account, fee to the fee account), then the
//! payout, dated its `arrival_date`, from clearing to the bank. The lines created by the
//! month's end that a later payout pays out are accrued the same way and reversed on the
//! next month's first day ([`super::accrual`]), so the clearing account's balance at month
//! end is what Stripe had not yet paid out. Over a payout's entries the clearing account
//! nets to zero in every currency; what does not tie out goes to the suspense account and
//! is reported. `per-payout`: the same entries of a payout folded into one, dated
//! `arrival_date`, equal to the deposit (an accrual folded into one on the month's last
//! day). Every entry names its payout; every entry balances per currency; no amount is
//! ever converted.

use std::collections::BTreeMap;

use jiff::tz::TimeZone;

use super::accounts::{AccountMap, Unmapped};
use super::accrual::{accrue, not_paid_out};
use super::lines::{Booking, MonthCut, book_suspense, line_entries, post};
use crate::domain::tieout::{MonthTieOut, PayoutTieOut, Verdict};
use crate::model::status::PayoutStatus;
use crate::money::Currency;
use crate::time::{Month, date_in};

/// How entries are cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Style {
    /// Per day and category into clearing; each payout from clearing to the bank.
    #[default]
    Daily,
    /// One entry per payout, equal to the deposit.
    PerPayout,
}

impl Style {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "daily" => Some(Style::Daily),
            "per-payout" | "per_payout" => Some(Style::PerPayout),
            _ => None,
        }
    }

    pub fn as_str(&self) -> &'static str {
        match self {
            Style::Daily => "daily",
            Style::PerPayout => "per-payout",
        }
    }
}

/// One posting: a signed amount (debit positive) in minor units.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Posting {
    pub account: String,
    pub currency: Currency,
    pub amount: i64,
}

/// What an entry books.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// Lines of a payout arriving in the month, into clearing.
    Lines,
    /// A payout from clearing to the bank (in `per-payout` style, with its lines).
    Payout,
    /// Lines created by the month's end that a later payout pays out, into clearing.
    Accrual,
    /// The next month's first day: a later payout's accrual taken back out.
    Reversal,
}

/// One journal entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// `YYYY-MM-DD` in the zone.
    pub date: String,
    /// The payout the entry belongs to.
    pub payout: String,
    pub kind: EntryKind,
    /// The ids of the balance transactions it books or accrues.
    pub lines: Vec<String>,
    /// What the entry is, in words (no payout id: renderers add it).
    pub narration: String,
    /// Why a person must look at it, when they must.
    pub review: Option<String>,
    pub postings: Vec<Posting>,
}

impl Entry {
    /// The sum of the postings per currency (all zero when the entry balances).
    pub fn sums(&self) -> BTreeMap<Currency, i64> {
        let mut s = BTreeMap::new();
        for p in &self.postings {
            *s.entry(p.currency).or_insert(0) += p.amount;
        }
        s
    }

    pub fn balances(&self) -> bool {
        self.sums().values().all(|v| *v == 0)
    }

    pub fn currencies(&self) -> Vec<Currency> {
        self.sums().into_keys().collect()
    }
}

/// An amount booked to the suspense account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuspenseItem {
    pub payout: String,
    pub currency: Currency,
    /// As posted to suspense (debit positive).
    pub amount: i64,
    pub reason: String,
}

/// The journal of a month.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Journal {
    pub month: Month,
    pub style: Style,
    /// Sorted by date, then in payout order.
    pub entries: Vec<Entry>,
    pub suspense: Vec<SuspenseItem>,
    /// The clearing account's name per currency it is used in.
    pub clearing: BTreeMap<Currency, String>,
    /// The clearing balance at the end of the month per currency, summed from the entries
    /// dated in the month: what the assertions say. It is `not_paid_out` less
    /// `unitemised_out`.
    pub clearing_at_end: BTreeMap<Currency, i64>,
    /// From the data: the net of the lines created by the month's end that payouts arriving
    /// after it pay out (the later payouts the data holds, itemised), per currency.
    pub not_paid_out: BTreeMap<Currency, i64>,
    /// How many lines `not_paid_out` sums, and how many later payouts they are in.
    pub not_paid_out_lines: usize,
    pub accrued_payouts: usize,
    /// The amounts of the month's payouts Stripe could not itemise (or is still
    /// reconciling), per currency: each left clearing with no lines booked for it.
    pub unitemised_out: BTreeMap<Currency, i64>,
    /// The month's first day (`YYYY-MM-DD`).
    pub first_day: String,
    /// The first day after the month (`YYYY-MM-DD`), where beancount asserts balances and
    /// the accruals are reversed.
    pub next_day: String,
    /// The month's last day.
    pub last_day: String,
    /// The clearing balance at the month's end against the Stripe balance, per currency;
    /// empty until [`super::balance_tie::attach`] is given the data.
    pub balance_tie: Vec<super::balance_tie::BalanceTie>,
}

impl Journal {
    /// Whether the month ties out (nothing went to suspense).
    pub fn ties_out(&self) -> bool {
        self.suspense.is_empty()
    }

    /// Every account used, sorted.
    pub fn accounts(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .entries
            .iter()
            .flat_map(|e| e.postings.iter().map(|p| p.account.clone()))
            .chain(self.clearing.values().cloned())
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// Every currency used, sorted.
    pub fn currencies(&self) -> Vec<Currency> {
        let mut v: Vec<Currency> = self
            .entries
            .iter()
            .flat_map(|e| e.postings.iter().map(|p| p.currency))
            .collect();
        v.sort();
        v.dedup();
        v
    }
}

/// Why a journal could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JournalError {
    #[error("{0}")]
    Unmapped(#[from] Unmapped),
}

/// Builds the month's journal from its tie-out and `later`, the payouts arriving after the
/// month that the data holds (see [`crate::domain::tieout::tie_out_after`]): the lines they
/// pay out that were created by the month's end are accrued.
pub fn build(
    t: &MonthTieOut,
    later: &[PayoutTieOut],
    map: &AccountMap,
    style: Style,
    tz: &TimeZone,
) -> Result<Journal, JournalError> {
    let (start, end) = t.month.range(tz);
    let mut cut = MonthCut {
        map,
        tz,
        month: t.month,
        first_day: date_in(start, tz),
        last_day: date_in(end - 1, tz),
        next_day: date_in(end, tz),
        clearing: BTreeMap::new(),
    };
    let mut entries: Vec<(usize, Entry)> = Vec::new();
    let mut suspense = Vec::new();
    let mut unitemised_out: BTreeMap<Currency, i64> = BTreeMap::new();
    for (order, p) in t.payouts.iter().enumerate() {
        let mut own = payout_entries(p, &mut cut, &mut suspense)?;
        if style == Style::PerPayout {
            own = vec![fold_payout(own, p, tz)];
        }
        // A payout whose postings all cancel (a zero payout of nothing) books nothing.
        own.retain(|e| !e.postings.is_empty());
        if p.itemisation.is_none() {
            *unitemised_out.entry(p.currency()).or_insert(0) += p.payout.amount;
        }
        entries.extend(own.into_iter().map(|e| (order, e)));
    }
    let mut accrued_payouts = 0usize;
    for (i, q) in later.iter().enumerate() {
        let own = accrue(q, end, style, &mut cut)?;
        accrued_payouts += usize::from(!own.is_empty());
        entries.extend(own.into_iter().map(|e| (t.payouts.len() + i, e)));
    }
    // By date, then payout order, then as built (stable).
    entries.sort_by(|a, b| a.1.date.cmp(&b.1.date).then(a.0.cmp(&b.0)));
    let entries: Vec<Entry> = entries.into_iter().map(|(_, e)| e).collect();

    let MonthCut {
        first_day,
        last_day,
        next_day,
        clearing: clearing_names,
        ..
    } = cut;
    let mut clearing_at_end = BTreeMap::new();
    for (cur, name) in &clearing_names {
        let sum: i64 = entries
            .iter()
            .filter(|e| e.date < next_day)
            .flat_map(|e| &e.postings)
            .filter(|p| p.currency == *cur && &p.account == name)
            .map(|p| p.amount)
            .sum();
        clearing_at_end.insert(*cur, sum);
    }
    let (not_paid_out, not_paid_out_lines) = not_paid_out(later, end);
    Ok(Journal {
        month: t.month,
        style,
        entries,
        suspense,
        clearing: clearing_names,
        clearing_at_end,
        not_paid_out,
        not_paid_out_lines,
        accrued_payouts,
        unitemised_out,
        first_day,
        next_day,
        last_day,
        balance_tie: Vec::new(),
    })
}

/// The daily entries of one payout: its lines per day and category, then the payout.
fn payout_entries(
    p: &PayoutTieOut,
    cut: &mut MonthCut<'_>,
    suspense: &mut Vec<SuspenseItem>,
) -> Result<Vec<Entry>, JournalError> {
    let po = &p.payout;
    let cur = po.currency;
    let map = cut.map;
    // Clearing per currency over this payout's line entries.
    let mut cleared: BTreeMap<Currency, i64> = BTreeMap::new();
    let mut out = match &p.itemisation {
        Some(it) => {
            let lines: Vec<_> = it.lines.iter().collect();
            line_entries(p, &lines, Booking::Booked, cut, suspense, &mut cleared)?
        }
        None => Vec::new(),
    };

    // The payout itself, from clearing to the bank (or, when it failed or was canceled,
    // to the returned-payouts account, where its funds come back from).
    let clearing = cut.clearing(cur)?;
    let failed = matches!(po.status, PayoutStatus::Failed | PayoutStatus::Canceled);
    let target = if failed {
        map.line_account("payout_failure", "payout_reversal", cur)?
    } else {
        map.bank(cur)?
    };
    let mut postings = Vec::new();
    post(&mut postings, &target, cur, po.amount);
    let mut review = None;
    if p.itemisation.is_some() {
        let mut currencies: Vec<Currency> = cleared.keys().copied().collect();
        if !currencies.contains(&cur) {
            currencies.push(cur);
        }
        for c in currencies {
            let sum = cleared.get(&c).copied().unwrap_or(0);
            post(&mut postings, &map.clearing(c)?, c, -sum);
            let off = if c == cur { sum - po.amount } else { sum };
            let why = || {
                if c == cur {
                    "the lines' net differs from the payout amount".to_string()
                } else {
                    format!("lines in {c}, not the payout's currency")
                }
            };
            book_suspense(&mut postings, suspense, map, &po.id, c, off, why)?;
        }
        if p.verdict == Verdict::Difference {
            review = Some("the payout does not tie out: see the suspense account".to_string());
        }
    } else {
        post(&mut postings, &clearing, cur, -po.amount);
        review = Some(match p.verdict {
            Verdict::InProgress => {
                "Stripe is still reconciling this payout: its lines are not booked yet".to_string()
            }
            _ => "Stripe cannot itemise this payout: book the activity it paid out by hand"
                .to_string(),
        });
    }
    postings.retain(|p| p.amount != 0);
    let what = if failed {
        format!("payout {}, returned to Stripe", po.status.as_str())
    } else if po.amount < 0 {
        "payout debited from the bank".to_string()
    } else {
        "payout to the bank".to_string()
    };
    if !postings.is_empty() {
        out.push(Entry {
            date: date_in(po.arrival_date, cut.tz),
            payout: po.id.clone(),
            kind: EntryKind::Payout,
            lines: Vec::new(),
            narration: what,
            review,
            postings,
        });
    }
    Ok(out)
}

/// Entries folded into one on `date`: postings that cancel (clearing, over an itemised
/// payout's entries) drop out; the posting `first` (currency, amount) leads.
pub(super) fn fold(
    entries: Vec<Entry>,
    date: &str,
    narration: String,
    first: Option<(Currency, i64)>,
) -> Entry {
    let mut postings = Vec::new();
    let mut review: Option<String> = None;
    let mut lines = Vec::new();
    let payout = entries
        .first()
        .map(|e| e.payout.clone())
        .unwrap_or_default();
    for e in &entries {
        for ps in &e.postings {
            post(&mut postings, &ps.account, ps.currency, ps.amount);
        }
        if review.is_none() {
            review.clone_from(&e.review);
        }
        lines.extend(e.lines.iter().cloned());
    }
    let mut keep: Vec<Posting> = postings.into_iter().filter(|p| p.amount != 0).collect();
    if let Some(i) = first.and_then(|(c, a)| {
        keep.iter()
            .position(|ps| ps.currency == c && ps.amount == a)
    }) {
        let d = keep.remove(i);
        keep.insert(0, d);
    }
    Entry {
        date: date.to_string(),
        payout,
        kind: EntryKind::Payout,
        lines,
        narration,
        review,
        postings: keep,
    }
}

/// One payout's entries as one, dated its arrival, the deposit first.
fn fold_payout(entries: Vec<Entry>, p: &PayoutTieOut, tz: &TimeZone) -> Entry {
    let po = &p.payout;
    let n = entries.len().saturating_sub(1);
    let narration = if p.itemisation.is_some() {
        format!(
            "payout summary: {n} day-and-category group{}",
            if n == 1 { "" } else { "s" }
        )
    } else {
        "payout to the bank".to_string()
    };
    let mut e = fold(
        entries,
        &date_in(po.arrival_date, tz),
        narration,
        Some((po.currency, po.amount)),
    );
    e.payout.clone_from(&po.id);
    e
}
