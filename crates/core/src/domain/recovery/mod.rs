//! The billing team's recovery picture (issue 36): of the invoices whose payment failed in
//! a month, how many came back, how (a retry on the same payment method, a new method,
//! paid outside Stripe), how fast, and which failures never do; plus the checks made from
//! the same rows: leaks ([`leaks`]) and the wrong card ([`wrong_card`]). Pure: rows of the
//! snapshot, the window and the zone in, rows out (RULES.md, "Recovery").
//!
//! - [`history`] finds each invoice's payment attempts and its first failure;
//! - [`outcome`] decides how the invoice ended and, when paid, by which way;
//! - [`cohorts`] groups the invoices by month of first failure, currency and first decline.

pub mod cohorts;
pub mod history;
pub mod leaks;
pub mod outcome;
pub mod wrong_card;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

use jiff::tz::TimeZone;

/// The tables the recovery picture is built from (the others may be empty): what a cached
/// read for it loads, and what the SQL views `recovery` and `recovery_invoices` read.
pub const READS: [crate::model::Table; 6] = {
    use crate::model::Table::*;
    [
        Invoices,
        InvoicePayments,
        PaymentIntents,
        Charges,
        Customers,
        Subscriptions,
    ]
};

use crate::model::AccountData;
use crate::money::{Currency, Money};
use crate::time::Month;

pub use cohorts::{Cohort, DeclineRate, MedianDays, WayShare, cohorts, decline_rates, way_shares};
pub use history::{FailedAttempt, RecoveryAttempt};
pub use leaks::{Leak, LeakKind, leaks};
pub use outcome::{Outcome, Via};
pub use wrong_card::{WrongCard, wrong_cards};

/// The months whose failures the picture covers: `months` calendar months in `tz`, the
/// last one the month of `now`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    pub first: Month,
    pub last: Month,
    /// `[start, end)` in unix seconds: the first instant of `first`, the first of the month
    /// after `last`.
    pub start: i64,
    pub end: i64,
    /// The first instant of the month before `first`: the earliest an invoice that first
    /// failed at the window's start may have been created (Stripe's retries run for weeks),
    /// so the paid, void and failed invoices and the charges the picture needs are those
    /// created from here on. A default sync reads settled invoices from exactly here.
    pub reads_from: i64,
}

impl Window {
    /// The `months` months ending with `now`'s (at least one).
    pub fn ending_at(now: i64, months: u32, tz: &TimeZone) -> Window {
        let last = Month::of(now, tz);
        let mut first = last;
        for _ in 1..months.max(1) {
            first = first.prev();
        }
        Window {
            first,
            last,
            start: first.range(tz).0,
            end: last.range(tz).1,
            reads_from: first.prev().range(tz).0,
        }
    }

    /// What `meta`'s data lacks to tell how this window's failures ended, in words (`None`
    /// when nothing): the paid and void invoices since [`Window::reads_from`]. A read that
    /// did not ask for them (or a cache written before tieout recorded it) would show every
    /// failure as still open or lost, a recovery rate of 0% that is not true.
    pub fn settled_gap(&self, meta: &crate::model::SnapshotMeta) -> Option<String> {
        let from = crate::time::iso_utc(self.reads_from);
        match meta.settled_invoices_since {
            Some(t) if t <= self.reads_from => None,
            Some(t) => Some(format!(
                "the data holds paid and void invoices created since {}, not since {from}: failures of {} may show as not recovered",
                crate::time::iso_utc(t),
                self.first
            )),
            None => Some(format!(
                "the data holds no paid or void invoices (read by a command that did not need them, or cached before tieout recorded it): every failure since {from} would show as not recovered"
            )),
        }
    }

    pub fn contains(&self, ts: i64) -> bool {
        self.start <= ts && ts < self.end
    }
}

/// One invoice with at least one failed payment attempt, and how it ended: a row of
/// `recovery-invoices.csv`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvoiceRecovery {
    pub invoice_id: String,
    pub customer_id: Option<String>,
    pub subscription_id: Option<String>,
    pub currency: Currency,
    pub amount_due: i64,
    /// The first failed attempt (when it was made, its decline, its payment method).
    pub first_failure: FailedAttempt,
    /// The month of the first failed attempt, in the run's zone.
    pub cohort: Month,
    /// Every attempt found, oldest first (failed and succeeded charges, and the failures
    /// known only from a payment intent's error).
    pub attempts: Vec<RecoveryAttempt>,
    pub outcome: Outcome,
    /// When it ended (paid, voided, written off); `None` when still open or when Stripe
    /// sent no time.
    pub outcome_at: Option<i64>,
}

impl InvoiceRecovery {
    pub fn money(&self) -> Money {
        Money::new(self.amount_due, self.currency)
    }

    /// Whole days from the first failed attempt to the outcome (floor); `None` when still
    /// open or the outcome's time is unknown. Negative when the data dates the outcome
    /// before the failure: shown as it is, not clamped to 0 (which would pull the median
    /// down unseen).
    pub fn days_to_outcome(&self) -> Option<i64> {
        self.outcome_at
            .map(|t| crate::time::days_between(self.first_failure.at, t))
    }

    /// How many attempts the data holds for the invoice, failed or succeeded.
    pub fn attempt_count(&self) -> usize {
        self.attempts.len()
    }

    /// The way it was recovered, when recovered.
    pub fn via(&self) -> Option<Via> {
        match self.outcome {
            Outcome::Recovered(v) => Some(v),
            _ => None,
        }
    }
}

/// The whole picture for a window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovery {
    pub window: Window,
    /// The invoices whose first failed attempt falls in the window, by cohort month, then
    /// currency, then first failure time, then id.
    pub invoices: Vec<InvoiceRecovery>,
    /// One per (month, currency, first decline), in that order.
    pub cohorts: Vec<Cohort>,
    /// The leaks found over the whole snapshot (not only the window).
    pub leaks: Vec<Leak>,
}

/// The recovery picture of `data` for `window`, months cut in `tz`.
pub fn build(data: &AccountData, window: &Window, tz: &TimeZone) -> Recovery {
    let ix = history::Index::new(data);
    let invoices = failed_in(data, window, tz, &ix);
    let cohorts = cohorts::cohorts(&invoices);
    let leaks = leaks::leaks(data, &ix);
    Recovery {
        window: window.clone(),
        invoices,
        cohorts,
        leaks,
    }
}

/// The invoices of `data` whose first failure is in `window`, how each ended, in the
/// picture's order: what the morning line needs, without the cohorts and the leaks.
pub fn failed_invoices(data: &AccountData, window: &Window, tz: &TimeZone) -> Vec<InvoiceRecovery> {
    failed_in(data, window, tz, &history::Index::new(data))
}

fn failed_in(
    data: &AccountData,
    window: &Window,
    tz: &TimeZone,
    ix: &history::Index<'_>,
) -> Vec<InvoiceRecovery> {
    let mut invoices: Vec<InvoiceRecovery> = data
        .invoices
        .iter()
        // An invoice created before `reads_from` may have failed before the charges a
        // fresh read holds: its first failure would be a later retry in a fresh run and
        // the real one in a cached run. Left out of both, so they agree.
        .filter(|inv| inv.created >= window.reads_from)
        .filter_map(|inv| {
            let h = history::of(inv, ix)?;
            if !window.contains(h.first_failure.at) {
                return None;
            }
            let (outcome, outcome_at) = outcome::decide(inv, &h, ix);
            Some(InvoiceRecovery {
                invoice_id: inv.id.to_string(),
                customer_id: inv.customer.as_deref().map(str::to_owned),
                subscription_id: inv.subscription.as_deref().map(str::to_owned),
                currency: inv.currency,
                amount_due: inv.amount_due,
                cohort: Month::of(h.first_failure.at, tz),
                first_failure: h.first_failure,
                attempts: h.attempts,
                outcome,
                outcome_at,
            })
        })
        .collect();
    invoices.sort_by(|a, b| {
        (
            a.cohort,
            a.currency.as_str(),
            a.first_failure.at,
            &a.invoice_id,
        )
            .cmp(&(
                b.cohort,
                b.currency.as_str(),
                b.first_failure.at,
                &b.invoice_id,
            ))
    });
    invoices
}
