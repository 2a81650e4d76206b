//! The invoices of the picture summed: by cohort (month of the first failed attempt,
//! currency, first decline), the recovery rate of each decline across cohorts, and the
//! share of each way of recovery. Amounts are summed per currency, never across.

use std::collections::BTreeMap;

use crate::domain::dunning::DeclineKey;
use crate::money::Currency;
use crate::time::Month;

use super::InvoiceRecovery;
use super::outcome::{Outcome, Via};

/// A count of invoices and their `amount_due`, in one currency.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub count: usize,
    pub amount: i64,
}

impl Tally {
    fn add(&mut self, amount: i64) {
        self.count += 1;
        // An account's dues cannot reach i64::MAX minor units; saturating keeps a damaged
        // amount from wrapping to a plausible figure.
        self.amount = self.amount.saturating_add(amount);
    }
}

/// A median of whole days, kept in half days so the median of an even count is exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct MedianDays {
    pub half_days: i64,
}

impl MedianDays {
    /// The median of `days` (`None` when empty).
    pub fn of(days: &mut [i64]) -> Option<MedianDays> {
        if days.is_empty() {
            return None;
        }
        days.sort_unstable();
        let n = days.len();
        let half_days = if n % 2 == 1 {
            2 * days[n / 2]
        } else {
            days[n / 2 - 1] + days[n / 2]
        };
        Some(MedianDays { half_days })
    }
}

impl std::fmt::Display for MedianDays {
    /// `18`, or `18.5` for a median between two days.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let whole = self.half_days.div_euclid(2);
        if self.half_days.rem_euclid(2) == 0 {
            write!(f, "{whole}")
        } else {
            write!(f, "{whole}.5")
        }
    }
}

/// One row of `recovery.csv`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cohort {
    pub month: Month,
    pub currency: Currency,
    pub decline: DeclineKey,
    pub failed: Tally,
    pub recovered: Tally,
    pub by_retry: Tally,
    pub by_new_method: Tally,
    pub out_of_band: Tally,
    /// Paid with no paying charge in view ([`Via::Other`]).
    pub other: Tally,
    pub written_off: Tally,
    pub voided: Tally,
    pub still_open: Tally,
    /// Median whole days from first failure to payment, over the recovered invoices whose
    /// payment time is known.
    pub median_days_to_recover: Option<MedianDays>,
}

impl Cohort {
    fn new(month: Month, currency: Currency, decline: DeclineKey) -> Self {
        Cohort {
            month,
            currency,
            decline,
            failed: Tally::default(),
            recovered: Tally::default(),
            by_retry: Tally::default(),
            by_new_method: Tally::default(),
            out_of_band: Tally::default(),
            other: Tally::default(),
            written_off: Tally::default(),
            voided: Tally::default(),
            still_open: Tally::default(),
            median_days_to_recover: None,
        }
    }

    /// The tally of one way of recovery.
    pub fn via(&self, via: Via) -> Tally {
        match via {
            Via::Retry => self.by_retry,
            Via::NewMethod => self.by_new_method,
            Via::OutOfBand => self.out_of_band,
            Via::Other => self.other,
        }
    }

    fn add(&mut self, inv: &InvoiceRecovery) {
        let a = inv.amount_due;
        self.failed.add(a);
        match inv.outcome {
            Outcome::Recovered(via) => {
                self.recovered.add(a);
                match via {
                    Via::Retry => self.by_retry.add(a),
                    Via::NewMethod => self.by_new_method.add(a),
                    Via::OutOfBand => self.out_of_band.add(a),
                    Via::Other => self.other.add(a),
                }
            }
            Outcome::WrittenOff => self.written_off.add(a),
            Outcome::Voided => self.voided.add(a),
            Outcome::StillOpen => self.still_open.add(a),
        }
    }
}

/// The label of a decline as the picture shows it: the decline code, else the failure
/// code with "(no decline code returned)", else "(no code returned)".
pub fn decline_label(key: &DeclineKey) -> String {
    let l = crate::domain::dunning::decline_label(
        key.decline_code.as_deref(),
        key.failure_code.as_deref(),
    );
    if l.is_empty() {
        "(no code returned)".to_string()
    } else {
        l
    }
}

/// The cohorts of `invoices`, by month, then currency (by code), then decline label.
pub fn cohorts(invoices: &[InvoiceRecovery]) -> Vec<Cohort> {
    let mut by: BTreeMap<(Month, &str, String), (Cohort, Vec<i64>)> = BTreeMap::new();
    for inv in invoices {
        let key = (
            inv.cohort,
            inv.currency.as_str(),
            decline_label(&inv.first_failure.decline),
        );
        let (c, days) = by.entry(key).or_insert_with(|| {
            (
                Cohort::new(inv.cohort, inv.currency, inv.first_failure.decline.clone()),
                Vec::new(),
            )
        });
        c.add(inv);
        if inv.via().is_some()
            && let Some(d) = inv.days_to_outcome()
        {
            days.push(d);
        }
    }
    by.into_values()
        .map(|(mut c, mut days)| {
            c.median_days_to_recover = MedianDays::of(&mut days);
            c
        })
        .collect()
}

/// The recovery of one decline in one currency, across the window's cohorts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclineRate {
    pub currency: Currency,
    pub decline: DeclineKey,
    pub failed: Tally,
    pub recovered: Tally,
}

impl DeclineRate {
    /// Recovered invoices as a whole percent of the failed, rounded half up; `None` when
    /// none failed.
    pub fn percent(&self) -> Option<u64> {
        percent(self.recovered.count, self.failed.count)
    }
}

/// `part` of `whole` as a whole percent, rounded half up (`None` when `whole` is zero).
pub fn percent(part: usize, whole: usize) -> Option<u64> {
    (whole > 0).then(|| ((part as u64) * 200 + whole as u64) / (2 * whole as u64))
}

/// The recovery rate of each decline per currency, across cohorts: by currency code, then
/// most failed invoices first, ties by label.
pub fn decline_rates(cohorts: &[Cohort]) -> Vec<DeclineRate> {
    let mut by: BTreeMap<(&str, String), DeclineRate> = BTreeMap::new();
    for c in cohorts {
        let r = by
            .entry((c.currency.as_str(), decline_label(&c.decline)))
            .or_insert_with(|| DeclineRate {
                currency: c.currency,
                decline: c.decline.clone(),
                failed: Tally::default(),
                recovered: Tally::default(),
            });
        merge(&mut r.failed, c.failed);
        merge(&mut r.recovered, c.recovered);
    }
    let mut rates: Vec<DeclineRate> = by.into_values().collect();
    rates.sort_by(|a, b| {
        a.currency
            .as_str()
            .cmp(b.currency.as_str())
            .then(b.failed.count.cmp(&a.failed.count))
            .then_with(|| decline_label(&a.decline).cmp(&decline_label(&b.decline)))
    });
    rates
}

fn merge(into: &mut Tally, t: Tally) {
    into.count += t.count;
    into.amount = into.amount.saturating_add(t.amount);
}

/// The share of one way of recovery in one currency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WayShare {
    pub currency: Currency,
    pub via: Via,
    pub tally: Tally,
    /// All recovered invoices of the currency.
    pub recovered: Tally,
}

/// For each currency (by code) with a recovered invoice, each way in [`Via::ALL`]'s order.
pub fn way_shares(cohorts: &[Cohort]) -> Vec<WayShare> {
    let mut by: BTreeMap<&str, (Currency, [Tally; Via::ALL.len()], Tally)> = BTreeMap::new();
    for c in cohorts {
        let e = by.entry(c.currency.as_str()).or_insert((
            c.currency,
            [Tally::default(); Via::ALL.len()],
            Tally::default(),
        ));
        for (i, via) in Via::ALL.iter().enumerate() {
            merge(&mut e.1[i], c.via(*via));
        }
        merge(&mut e.2, c.recovered);
    }
    by.into_values()
        .filter(|(_, _, rec)| rec.count > 0)
        .flat_map(|(currency, ways, recovered)| {
            Via::ALL.iter().zip(ways).map(move |(via, tally)| WayShare {
                currency,
                via: *via,
                tally,
                recovered,
            })
        })
        .collect()
}
