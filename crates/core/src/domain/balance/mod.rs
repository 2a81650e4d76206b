//! The Stripe balance as an asset account, pure: a month's roll-forward per currency
//! (opening + activity + payouts = closing, split into pending and available, against
//! `GET /v1/balance` for the month that holds "now"), the month's activity by reporting
//! category, the fee statement and the conversions (lines with an exchange rate). Rows
//! and the clock in, figures out; sums are i128 so
//! no total ever saturates.

pub mod activity;
pub mod conversions;
pub mod fees;
pub mod rollforward;

#[cfg(test)]
mod tests;

pub use activity::{ActivityRow, activity};
pub use conversions::{ConversionPair, ConversionRow, conversion_pairs, conversions};
pub use fees::{FeeRow, FeeSource, fee_statement, fee_totals};
pub use rollforward::{
    Figure, OpeningSource, Rollforward, StripeBalance, is_payout_category, roll_forward,
};
