//! The recovery picture per currency, in a few words: of the amount that failed, how much
//! came back and how fast. The morning summary's line (`tieout dunning`: "Last month
//! (2026-11): 62% of the failed USD amount recovered, 18 days median") and the Worklist's Recovery
//! view both read it; the invoices and their outcomes are `domain::recovery`'s.

use jiff::tz::TimeZone;

use crate::domain::dunning::CurrencyOrder;
use crate::domain::recovery::{self, InvoiceRecovery, MedianDays, Window};
use crate::model::AccountData;
use crate::money::Currency;
use crate::time::Month;

/// One currency's failed invoices and what came back of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CurrencyRecovery {
    pub currency: Currency,
    pub failed_count: usize,
    /// The failed invoices' `amount_due`, minor units.
    pub failed_amount: i64,
    pub recovered_count: usize,
    pub recovered_amount: i64,
    /// The failed invoices still open (in retry or waiting), minor units: what may yet
    /// come back, so a young month's 0% is not read as a loss.
    pub still_open_amount: i64,
    /// Median whole days from the first failure to the payment, over the recovered
    /// invoices whose payment time is known.
    pub median_days: Option<MedianDays>,
}

impl CurrencyRecovery {
    /// The recovered amount as a whole percent of the failed amount, rounded half up
    /// (`None` when nothing failed, or only invoices of zero amount).
    pub fn percent(&self) -> Option<i64> {
        share(self.recovered_amount, self.failed_amount)
    }

    /// The still-open amount as a whole percent of the failed amount, as [`Self::percent`].
    pub fn still_open_percent(&self) -> Option<i64> {
        share(self.still_open_amount, self.failed_amount)
    }
}

/// `part` as a whole percent of `whole`, rounded half up; `None` for no whole.
fn share(part: i64, whole: i64) -> Option<i64> {
    let (part, whole) = (i128::from(part), i128::from(whole));
    (whole > 0)
        .then(|| (part * 200 + whole) / (2 * whole))
        .and_then(|p| i64::try_from(p).ok())
}

/// `invoices` summed per currency, by currency code.
pub fn by_currency<'a>(
    invoices: impl IntoIterator<Item = &'a InvoiceRecovery>,
) -> Vec<CurrencyRecovery> {
    let mut out: Vec<(CurrencyRecovery, Vec<i64>)> = Vec::new();
    for inv in invoices {
        let at = match out.iter().position(|(c, _)| c.currency == inv.currency) {
            Some(i) => i,
            None => {
                out.push((
                    CurrencyRecovery {
                        currency: inv.currency,
                        failed_count: 0,
                        failed_amount: 0,
                        recovered_count: 0,
                        recovered_amount: 0,
                        still_open_amount: 0,
                        median_days: None,
                    },
                    Vec::new(),
                ));
                out.len() - 1
            }
        };
        let (c, days) = &mut out[at];
        c.failed_count += 1;
        c.failed_amount = c.failed_amount.saturating_add(inv.amount_due);
        if inv.via().is_some() {
            c.recovered_count += 1;
            c.recovered_amount = c.recovered_amount.saturating_add(inv.amount_due);
            days.extend(inv.days_to_outcome());
        }
        if inv.outcome == recovery::Outcome::StillOpen {
            c.still_open_amount = c.still_open_amount.saturating_add(inv.amount_due);
        }
    }
    let mut out: Vec<CurrencyRecovery> = out
        .into_iter()
        .map(|(mut c, mut days)| {
            c.median_days = MedianDays::of(&mut days);
            c
        })
        .collect();
    out.sort_by(|a, b| a.currency.as_str().cmp(b.currency.as_str()));
    out
}

/// `62% of the failed USD amount recovered, 18 days median, 20% still open` (the median
/// left out when none was recovered with a known payment time, the open share when none
/// is open).
pub fn phrase(c: &CurrencyRecovery) -> String {
    let pct = c
        .percent()
        .map_or_else(|| "none".to_string(), |p| format!("{p}%"));
    let mut s = format!(
        "{pct} of the failed {} amount recovered",
        c.currency.upper()
    );
    if let Some(m) = c.median_days {
        s.push_str(&format!(", {m} days median"));
    }
    if c.still_open_amount > 0
        && let Some(o) = c.still_open_percent()
    {
        s.push_str(&format!(", {o}% still open"));
    }
    s
}

/// The morning summary's line: the failures of `month` (the month before the run's, as
/// the caller cuts it) among `invoices` (a picture's, for `window`), per currency, in the
/// worklist's currency order, or that none failed. `None` when `month` is not in `window`.
pub fn month_line(
    window: &Window,
    invoices: &[InvoiceRecovery],
    month: Month,
    order: &CurrencyOrder,
) -> Option<String> {
    if month < window.first || month > window.last {
        return None;
    }
    let mut per = by_currency(invoices.iter().filter(|i| i.cohort == month));
    order.sort(&mut per, |c| c.currency);
    let text = if per.is_empty() {
        "no payment failed".to_string()
    } else {
        per.iter().map(phrase).collect::<Vec<_>>().join("; ")
    };
    Some(format!("Last month ({month}): {text}"))
}

/// The morning summary's line for the run at `now`: the failures of the month before
/// `now`'s (in `tz`) and what came back of them, per currency in `order`. `data` must hold
/// how failures ended (the paid and void invoices with their charges), which the caller
/// decides. Only the failed invoices are worked out, not the cohorts or the leaks.
pub fn last_month_line(
    data: &AccountData,
    now: i64,
    tz: &TimeZone,
    order: &CurrencyOrder,
) -> Option<String> {
    // Two months ending with now's: last month's failures are all in it.
    let window = Window::ending_at(now, 2, tz);
    let invoices = recovery::failed_invoices(data, &window, tz);
    month_line(&window, &invoices, window.first, order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::dunning::DeclineKey;
    use crate::domain::recovery::{FailedAttempt, Outcome, Recovery, Via};

    /// 2026-11-30T12:00:00Z.
    const NOW: i64 = 1_796_040_000;
    const DAY: i64 = 86_400;

    fn inv(
        id: &str,
        cur: Currency,
        amount: i64,
        at: i64,
        ended: Option<(Outcome, i64)>,
    ) -> InvoiceRecovery {
        InvoiceRecovery {
            invoice_id: id.into(),
            customer_id: None,
            subscription_id: None,
            currency: cur,
            amount_due: amount,
            first_failure: FailedAttempt {
                at,
                charge: None,
                decline: DeclineKey::of(Some("insufficient_funds"), None),
                payment_method: None,
            },
            cohort: Month::of(at, &TimeZone::UTC),
            attempts: Vec::new(),
            outcome: ended.map_or(Outcome::StillOpen, |e| e.0),
            outcome_at: ended.map(|e| e.1),
        }
    }

    fn picture(invoices: Vec<InvoiceRecovery>) -> Recovery {
        Recovery {
            window: Window::ending_at(NOW + 5 * DAY, 6, &TimeZone::UTC),
            invoices,
            cohorts: Vec::new(),
            leaks: Vec::new(),
        }
    }

    #[test]
    fn last_months_line_gives_each_currency_its_recovered_share_and_median() {
        let nov = NOW - 20 * DAY; // 2026-11-10
        let oct = NOW - 46 * DAY;
        let paid = |days| Some((Outcome::Recovered(Via::Retry), nov + days * DAY));
        let r = picture(vec![
            // USD: 100 + 300 of 500 came back, after 10 and 27 days (median 18.5).
            inv("in_1", Currency::USD, 10_000, nov, paid(10)),
            inv(
                "in_2",
                Currency::USD,
                30_000,
                nov,
                Some((Outcome::Recovered(Via::NewMethod), nov + 27 * DAY)),
            ),
            inv("in_3", Currency::USD, 10_000, nov, None),
            // EUR: written off; nothing came back, no median.
            inv(
                "in_4",
                Currency::EUR,
                5_000,
                nov,
                Some((Outcome::WrittenOff, nov + 3 * DAY)),
            ),
            // October's failures are another month's line.
            inv("in_5", Currency::USD, 99_000, oct, paid(1)),
        ]);
        let order = CurrencyOrder::new(Some(Currency::EUR), [(Currency::USD, 3)]);
        let nov_m = Month::of(nov, &TimeZone::UTC);
        assert_eq!(
            month_line(&r.window, &r.invoices, nov_m, &order).as_deref(),
            Some(
                "Last month (2026-11): 0% of the failed EUR amount recovered; 80% of the failed USD amount recovered, 18.5 days median, 20% still open"
            )
        );
        let none = picture(vec![]);
        assert_eq!(
            month_line(&none.window, &none.invoices, nov_m, &order).as_deref(),
            Some("Last month (2026-11): no payment failed")
        );
        // A month outside the picture's window has no line.
        let before = Month::of(NOW - 400 * DAY, &TimeZone::UTC);
        assert_eq!(month_line(&r.window, &r.invoices, before, &order), None);
    }

    #[test]
    fn percent_rounds_half_up_and_needs_a_failed_amount() {
        let c = |rec, failed| CurrencyRecovery {
            currency: Currency::USD,
            failed_count: 1,
            failed_amount: failed,
            recovered_count: 1,
            recovered_amount: rec,
            still_open_amount: 0,
            median_days: None,
        };
        assert_eq!(c(1, 8).percent(), Some(13)); // 12.5 → 13
        assert_eq!(c(62, 100).percent(), Some(62));
        assert_eq!(c(i64::MAX, i64::MAX).percent(), Some(100));
        assert_eq!(c(0, 0).percent(), None);
    }
}
