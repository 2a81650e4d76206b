//! Payout tie-out: each payout of a month against the balance transactions it paid out.
//!
//! For every payout whose `arrival_date` falls in the month (in the chosen time zone):
//! automatic payouts that Stripe finished reconciling are itemised (their `?payout=`
//! listing, minus their own `type=payout` transaction) and checked: the lines' `net` sums
//! to the payout `amount`, each line has `net = amount - fee`, every line is in the
//! payout's currency. Manual and instant payouts are "not itemisable" (Stripe answers 400
//! for them), payouts still being reconciled are "in progress"; neither is ever a
//! difference. Pure: rows in, a [`MonthTieOut`] out; the reports and the pane render it.

pub mod category;
pub mod lines;
pub mod month;
pub mod payout;

/// Rows for tests, shared with the upper floors' tests through the `testdata` feature.
#[cfg(any(test, feature = "testdata"))]
pub mod testdata;
#[cfg(test)]
mod tests;

pub use lines::Lines;
pub use month::{
    Counts, CurrencyTotals, EMPTY_MONTH, MonthTieOut, tie_out_after, tie_out_month, tie_out_months,
};
pub use payout::{
    CategorySubtotal, INSTANT_REASON, Itemisation, MANUAL_REASON, PayoutKind, PayoutTieOut,
    Problem, REVERSAL_REASON, Verdict, status_label,
};
