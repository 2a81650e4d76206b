//! The month's balance roll-forward as a use case (issue 33): reads every table the close
//! reads and builds the roll-forward, activity and fee statement with the core's rules.
//! Until the sync reads lines by `created` and `GET /v1/balance`, the lines read are not
//! known to reach back to the account's first line, and the report says so.

use crate::app::ReadRequest;
use crate::app::load::{self, Need};
use crate::domain::balance::{activity, fee_statement, roll_forward};
use crate::failure::Failure;
use crate::model::AccountData;
use crate::report::balance::BalanceReport;
use crate::time::Month;

/// The account data the roll-forward needs, from the demo, the cache or Stripe.
pub fn load(ctx: &ReadRequest, month: Month) -> Result<AccountData, Failure> {
    load::load(ctx, Need::Close(month))
}

/// The month's balance figures on `data`.
pub fn build(ctx: &ReadRequest, data: &AccountData, month: Month) -> BalanceReport {
    let lines = &data.balance_transactions;
    let complete = false;
    BalanceReport {
        month,
        rollforward: roll_forward(lines, month, &ctx.tz, complete, None),
        activity: activity(lines, month, &ctx.tz),
        fees: fee_statement(lines, month, &ctx.tz),
        complete,
    }
}
