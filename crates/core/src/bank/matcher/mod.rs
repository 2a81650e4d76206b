//! Pairs each payout with the bank line(s) it became, in deterministic passes that each
//! consume what they match:
//!
//! 1. **reference**: the line's text or reference names the payout's trace id or its `po_`
//!    id (compared without case, spaces or punctuation). Payouts and lines joined by such
//!    names match when their sums agree, even outside the date window; when they do not,
//!    the payouts go to review as an amount mismatch (never a fall-through).
//! 2. **failed**: a failed payout is paired with its credit and the debit that took it
//!    back; nothing on the statement is what a failed payout should show.
//! 3. **exact**: same currency and signed amount, the line's date in the window around
//!    `arrival_date` (one day before to three business days after by default), and the
//!    pair unique both ways; repeated until nothing changes.
//! 4. **aggregate**: one line equal to the sum of a few payouts in its window, or one
//!    payout equal to the sum of a few lines, when exactly one subset fits and no other
//!    proposal wants the same payout or line.
//! 5. everything else: `review` with ranked candidates and the reason, `pending` when the
//!    window has not closed yet, `missing` when it has and nothing is near.
//!
//! A line that repeats a line of an earlier file ([`super::duplicates`]) is taken out
//! first: one deposit given twice would otherwise send its payout to review. The rest are
//! sorted by their file and place, and a pass accepts a pair only when it is unique
//! whatever the order, so the matches never depend on the input order (only which copy of
//! a repeated line is called the duplicate does: the later file's).
//!
//! Each pass has a room of its own (`reference`, `failed`, `exact`, `aggregate`,
//! `review`); `window`, `text` and `state` hold the date window, the text comparison and
//! the working state they share. This room holds the vocabulary and the entry point.

use std::collections::{BTreeMap, BTreeSet};

use jiff::civil::Date;

use super::BankLine;
use super::duplicates::{Duplicate, split_duplicates};
use crate::model::rows::PayoutRow;
use crate::model::status::PayoutStatus;
use crate::money::Currency;

mod aggregate;
mod exact;
mod failed;
mod reference;
mod review;
mod state;
mod text;
mod window;

use aggregate::aggregate_pass;
use exact::exact_pass;
use failed::failed_pass;
use reference::reference_pass;
use review::review_pass;
use state::State;
use text::{descriptors, looks_like_stripe};
pub use window::add_business_days;
use window::{add_days, days_between};

/// What the matcher needs of a payout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayoutKey {
    pub id: String,
    /// Signed minor units, as Stripe gives them.
    pub amount: i64,
    pub currency: Currency,
    /// `arrival_date`, as a UTC day.
    pub arrival: Date,
    pub status: PayoutStatus,
    pub failure_code: Option<String>,
    /// `trace_id.value` when Stripe has one.
    pub trace_id: Option<String>,
    pub statement_descriptor: Option<String>,
}

impl PayoutKey {
    /// The key of a payout row.
    pub fn from_row(row: &PayoutRow) -> Self {
        let arrival = jiff::Timestamp::from_second(row.arrival_date)
            .map(|t| t.to_zoned(jiff::tz::TimeZone::UTC).date())
            .unwrap_or_default();
        Self {
            id: row.id.clone(),
            amount: row.amount,
            currency: row.currency,
            arrival,
            status: row.status.clone(),
            failure_code: row.failure_code.clone(),
            trace_id: row.trace_id.clone().filter(|t| !t.trim().is_empty()),
            statement_descriptor: row.statement_descriptor.clone(),
        }
    }
}

/// The matcher's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchOptions {
    /// How many calendar days before `arrival_date` a deposit may be booked.
    pub days_before: i64,
    /// How many business days (Monday to Friday) after `arrival_date`.
    pub business_days_after: i64,
    /// How many business days after `arrival_date` a failed payout's debit-back may come.
    pub return_business_days: i64,
    /// The largest number of payouts (or lines) an aggregate may join.
    pub max_subset: usize,
    /// Today (UTC): a payout whose window ends on or after it is not due yet.
    pub today: Date,
    /// The days whose unmatched Stripe-looking lines are listed (a statement often covers
    /// more than the month matched); all days when `None`.
    pub listed_days: Option<(Date, Date)>,
}

impl MatchOptions {
    pub fn new(today: Date) -> Self {
        Self {
            days_before: 1,
            business_days_after: 3,
            return_business_days: 10,
            max_subset: 4,
            today,
            listed_days: None,
        }
    }

    /// Lists only the unmatched lines a payout arriving from `first` to `last` could have
    /// become: from the day before `first` to the end of `last`'s window.
    pub fn listing(mut self, first: Date, last: Date) -> Self {
        self.listed_days = Some((
            add_days(first, -self.days_before),
            add_business_days(last, self.business_days_after),
        ));
        self
    }
}

/// A payout's bank status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BankStatus {
    /// Paired with its deposit by a rule.
    Matched,
    /// No deposit yet, and the window has not closed.
    Pending,
    /// No deposit and nothing near it, and the window has closed.
    Missing,
    /// Candidates that no rule may accept alone: a person decides.
    Review,
    /// A failed payout with nothing on the statement (none expected).
    Failed,
    /// A failed payout whose credit and debit-back are both on the statement.
    DebitedBack,
    /// A canceled payout: nothing expected.
    Canceled,
    /// No statement given covers the payout's currency.
    NoStatement,
}

impl BankStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Matched => "matched",
            Self::Pending => "pending",
            Self::Missing => "missing",
            Self::Review => "review",
            Self::Failed => "failed",
            Self::DebitedBack => "debited_back",
            Self::Canceled => "canceled",
            Self::NoStatement => "no_statement",
        }
    }

    /// What the status means, for the reports' legends.
    pub fn meaning(self) -> &'static str {
        match self {
            Self::Matched => "paired with its deposit by the rule in match_rule",
            Self::Pending => "no deposit yet, but the arrival window has not closed",
            Self::Missing => "no deposit and nothing near it after the arrival window closed",
            Self::Review => "candidates no rule may accept alone; the note gives the reason",
            Self::Failed => "the payout failed at Stripe and nothing reached the statement",
            Self::DebitedBack => {
                "the payout failed; its credit and the debit-back are both on the statement"
            }
            Self::Canceled => "the payout was canceled; nothing is expected",
            Self::NoStatement => "no statement given covers this currency",
        }
    }

    pub const ALL: [BankStatus; 8] = [
        Self::Matched,
        Self::Pending,
        Self::Missing,
        Self::Review,
        Self::Failed,
        Self::DebitedBack,
        Self::Canceled,
        Self::NoStatement,
    ];
}

/// The rule that paired a payout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchRule {
    Reference,
    Exact,
    Aggregate,
    /// A failed payout's credit and debit-back.
    Return,
}

impl MatchRule {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Reference => "reference",
            Self::Exact => "exact",
            Self::Aggregate => "aggregate",
            Self::Return => "return",
        }
    }
}

/// A bank line offered to a person for a payout under review, with why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub line: BankLine,
    pub reason: String,
}

/// One payout's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayoutMatch {
    pub payout: PayoutKey,
    pub status: BankStatus,
    pub rule: Option<MatchRule>,
    /// The line(s) it was paired with (several for a split or a debit-back).
    pub lines: Vec<BankLine>,
    /// For a review: the candidates, best first (at most three).
    pub candidates: Vec<Candidate>,
    pub note: String,
}

impl PayoutMatch {
    /// Calendar days from `arrival_date` to the (last) bank line.
    pub fn days_offset(&self) -> Option<i64> {
        self.lines
            .iter()
            .map(|l| days_between(self.payout.arrival, l.date))
            .max()
    }

    /// Whether a person must look: a review, or a due payout with no deposit.
    pub fn needs_attention(&self) -> bool {
        matches!(self.status, BankStatus::Review | BankStatus::Missing)
    }
}

/// The whole result: every payout once, and the Stripe-looking lines no payout took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BankMatch {
    pub payouts: Vec<PayoutMatch>,
    /// Lines whose text looks like Stripe (STRIPE or a payout's descriptor) that no payout
    /// was paired with.
    pub unmatched_stripe: Vec<BankLine>,
    /// How many lines the statements had in all (the duplicates included).
    pub lines_read: usize,
    /// Lines that repeat a line of an earlier file, left out of matching.
    pub duplicates: Vec<Duplicate>,
    /// The currencies the statements cover.
    pub currencies: BTreeSet<Currency>,
}

impl BankMatch {
    /// How many payouts have each status (every status, zeros included).
    pub fn counts(&self) -> BTreeMap<BankStatus, usize> {
        let mut c: BTreeMap<BankStatus, usize> = BankStatus::ALL.iter().map(|s| (*s, 0)).collect();
        for p in &self.payouts {
            *c.entry(p.status).or_default() += 1;
        }
        c
    }

    /// The payouts a person must look at.
    pub fn attention(&self) -> impl Iterator<Item = &PayoutMatch> {
        self.payouts.iter().filter(|p| p.needs_attention())
    }
}

/// The accounts' currencies: per statement of each file (a file may hold one statement
/// per account), the currency most of its lines are in (all of them on a tie). A line in
/// another currency is still read, and offered as "currency off".
pub fn statement_currencies(lines: &[&BankLine]) -> BTreeSet<Currency> {
    let mut per_file: BTreeMap<(&str, u32), BTreeMap<Currency, usize>> = BTreeMap::new();
    for l in lines {
        *per_file
            .entry((l.file.as_str(), l.statement))
            .or_default()
            .entry(l.currency)
            .or_default() += 1;
    }
    let mut out = BTreeSet::new();
    for counts in per_file.values() {
        let top = counts.values().copied().max().unwrap_or(0);
        out.extend(counts.iter().filter(|(_, n)| **n == top).map(|(c, _)| *c));
    }
    out
}

/// Matches `payouts` against the statements' `lines`. Every payout appears once in the
/// result, in arrival then id order.
pub fn match_payouts(payouts: &[PayoutKey], lines: &[BankLine], o: &MatchOptions) -> BankMatch {
    let mut payouts: Vec<&PayoutKey> = payouts.iter().collect();
    payouts.sort_by(|a, b| (a.arrival, &a.id).cmp(&(b.arrival, &b.id)));
    let (mut sorted, duplicates) = split_duplicates(lines);
    sorted.sort();
    let currencies = statement_currencies(&sorted);
    let n = payouts.len();
    let mut s = State {
        used: vec![false; sorted.len()],
        lines: sorted,
        result: vec![None; n],
        review: vec![Vec::new(); n],
        payouts,
    };
    for i in 0..n {
        let p = s.payouts[i];
        if !currencies.contains(&p.currency) {
            s.settle(
                i,
                BankStatus::NoStatement,
                format!("no statement in {}", p.currency.upper()),
            );
        } else if p.status == PayoutStatus::Canceled {
            s.settle(
                i,
                BankStatus::Canceled,
                "canceled at Stripe: nothing expected".to_string(),
            );
        }
    }
    reference_pass(&mut s, o);
    failed_pass(&mut s, o);
    exact_pass(&mut s, o);
    aggregate_pass(&mut s, o);
    review_pass(&mut s, o);

    let descriptors = descriptors(&s.payouts);
    let unmatched_stripe = s
        .lines
        .iter()
        .zip(&s.used)
        .filter(|(l, used)| {
            !**used
                && looks_like_stripe(l, &descriptors)
                && o.listed_days
                    .is_none_or(|(lo, hi)| lo <= l.date && l.date <= hi)
        })
        .map(|(l, _)| (*l).clone())
        .collect();
    BankMatch {
        payouts: s.result.into_iter().flatten().collect(),
        unmatched_stripe,
        lines_read: lines.len(),
        duplicates,
        currencies,
    }
}

#[cfg(test)]
mod tests;
