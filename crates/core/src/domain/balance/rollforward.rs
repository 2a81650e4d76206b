//! A month's balance roll-forward per currency.
//!
//! opening = net of every line created before the month's first instant (when the data
//! reaches back to the account's first line), or derived backwards from Stripe's balance
//! now (available + pending, minus the net of every line created since the month's start);
//! payouts = net of the month's `payout`/`payout_reversal` lines; activity = net of the
//! month's other lines; closing = opening + activity + payouts; closing_pending = net of
//! the lines created by the cut-off whose `available_on` is after it. The cut-off is the
//! month's end, or "now" for the month that holds it, so the current month's pending is
//! the one Stripe reports.

use std::collections::{BTreeMap, BTreeSet};

use jiff::tz::TimeZone;
use serde::Serialize;

pub use crate::model::StripeBalance;
use crate::model::rows::BalanceTxnRow;
use crate::money::Currency;
use crate::time::Month;

/// How the opening figure was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OpeningSource {
    /// Summed from the lines created before the month (the data reaches back to the
    /// account's first line).
    Summed,
    /// Derived backwards from `GET /v1/balance`.
    Derived,
    /// Both ways; `opening_difference` says whether they agree.
    Both,
}

/// A figure with the way it was made (for the Markdown and JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Figure {
    pub name: &'static str,
    pub how: &'static str,
}

/// One currency's roll-forward for a month (minor units).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rollforward {
    pub currency: Currency,
    pub opening: i128,
    pub opening_source: OpeningSource,
    /// The opening summed from the lines, when the data reaches back far enough.
    pub opening_summed: Option<i128>,
    /// The opening derived backwards from Stripe's balance, when it was read.
    pub opening_derived: Option<i128>,
    /// summed − derived, when both exist and they differ.
    pub opening_difference: Option<i128>,
    pub activity: i128,
    pub payouts: i128,
    pub closing: i128,
    pub closing_available: i128,
    pub closing_pending: i128,
    /// Stripe's available + pending, for the month that holds "now" only.
    pub stripe_balance: Option<i128>,
    /// closing − stripe_balance, for the month that holds "now" only.
    pub difference: Option<i128>,
}

/// The roll-forward's six figures by their column names in `balance-rollforward.csv` (and
/// the SQL view), in [`Rollforward::figures`]' order.
pub const FIGURE_NAMES: [&str; 6] = [
    "opening_balance",
    "activity",
    "payouts",
    "closing_balance",
    "closing_available",
    "closing_pending",
];

impl Rollforward {
    /// The six figures, named as [`FIGURE_NAMES`].
    pub fn figures(&self) -> [(&'static str, i128); 6] {
        let [opening, activity, payouts, closing, available, pending] = FIGURE_NAMES;
        [
            (opening, self.opening),
            (activity, self.activity),
            (payouts, self.payouts),
            (closing, self.closing),
            (available, self.closing_available),
            (pending, self.closing_pending),
        ]
    }

    /// True when nothing fails to tie: the two openings agree and the closing is Stripe's.
    pub fn ties(&self) -> bool {
        self.opening_difference.is_none() && self.difference.is_none_or(|d| d == 0)
    }
}

/// A line that moves money to or from the bank.
pub fn is_payout_category(category: &str) -> bool {
    matches!(category, "payout" | "payout_reversal")
}

#[derive(Default)]
struct Sums {
    before: i128,
    since_start: i128,
    activity: i128,
    payouts: i128,
    pending: i128,
}

/// The month's roll-forward in every currency that has a line or a Stripe balance.
///
/// `complete` says the lines reach back to the account's first line (so the opening can
/// be summed); `balance` is Stripe's balance read at `balance.read_at`, which is taken as
/// "now". Without either, a currency's opening is 0 and said to be summed from what there
/// is: the caller says the data is incomplete.
pub fn roll_forward(
    lines: &[BalanceTxnRow],
    month: Month,
    tz: &TimeZone,
    complete: bool,
    balance: Option<&StripeBalance>,
) -> Vec<Rollforward> {
    let (start, end) = month.range(tz);
    let current = balance.filter(|b| b.read_at >= start && b.read_at < end);
    let cutoff = current.map_or(end, |b| b.read_at);
    let mut sums: BTreeMap<Currency, Sums> = BTreeMap::new();
    for l in lines {
        let s = sums.entry(l.currency).or_default();
        let net = i128::from(l.net);
        if l.created < start {
            s.before += net;
        } else {
            s.since_start += net;
            if l.created < end {
                if is_payout_category(l.reporting_category.as_str()) {
                    s.payouts += net;
                } else {
                    s.activity += net;
                }
            }
        }
        if l.created < cutoff && l.available_on > cutoff {
            s.pending += net;
        }
    }
    let mut currencies: BTreeSet<Currency> = sums.keys().copied().collect();
    if let Some(b) = balance {
        currencies.extend(b.amounts.keys().copied());
    }
    currencies
        .into_iter()
        .map(|c| {
            let s = sums.remove(&c).unwrap_or_default();
            let summed = complete.then_some(s.before);
            let derived = balance.map(|b| b.total(c).unwrap_or(0) - s.since_start);
            let (opening, opening_source) = match (summed, derived) {
                (Some(o), Some(_)) => (o, OpeningSource::Both),
                (None, Some(d)) => (d, OpeningSource::Derived),
                (Some(o), None) => (o, OpeningSource::Summed),
                (None, None) => (s.before, OpeningSource::Summed),
            };
            let opening_difference = match (summed, derived) {
                (Some(o), Some(d)) if o != d => Some(o - d),
                _ => None,
            };
            let closing = opening + s.activity + s.payouts;
            let stripe_balance = current.map(|b| b.total(c).unwrap_or(0));
            Rollforward {
                currency: c,
                opening,
                opening_source,
                opening_summed: summed,
                opening_derived: derived,
                opening_difference,
                activity: s.activity,
                payouts: s.payouts,
                closing,
                closing_available: closing - s.pending,
                closing_pending: s.pending,
                stripe_balance,
                difference: stripe_balance.map(|sb| closing - sb),
            }
        })
        .collect()
}
