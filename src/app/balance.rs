//! The month's balance roll-forward as a use case (issue 33): reads the lines (every one
//! on a fresh read), Stripe's balance, and the charges and refunds, and builds the
//! roll-forward, activity, fee statement and conversions with the core's rules
//! ([`crate::report::balance::build`], which the close packet uses too). A cache of an
//! older sync has only its payouts' lines, and the report says so.

use crate::app::ReadRequest;
use crate::app::load::{self, Need};
use crate::failure::Failure;
use crate::model::AccountData;
use crate::report::balance::BalanceReport;
use crate::time::Month;

/// The account data the roll-forward needs, from the demo, the cache or Stripe.
pub fn load(ctx: &ReadRequest, month: Month) -> Result<AccountData, Failure> {
    load::load(ctx, Need::Balance(month))
}

/// The month's balance figures on `data`.
pub fn build(ctx: &ReadRequest, data: &AccountData, month: Month) -> BalanceReport {
    crate::report::balance::build(data, month, &ctx.tz)
}
