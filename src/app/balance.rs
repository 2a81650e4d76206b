//! The month's balance roll-forward as a use case (issue 33): reads every table the close
//! reads and builds the roll-forward, activity and fee statement with the core's rules.
//! The opening is summed when the lines reach back to the account's first line (the demo,
//! a fresh read, which lists every line) and derived back from Stripe's balance when it
//! was read (both when both: they must agree); the month that holds the instant the
//! balance was read is compared with it. A cache of an older sync has only its payouts'
//! lines, and the report says so.

use crate::app::ReadRequest;
use crate::app::load::{self, Need};
use crate::domain::balance::{
    activity, conversion_pairs, conversions, fee_statement, roll_forward,
};
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
    let lines = &data.balance_transactions;
    let complete = data.meta.lines_complete;
    let conversions = conversions(lines, &data.charges, &data.refunds, month, &ctx.tz);
    BalanceReport {
        conversion_pairs: conversion_pairs(&conversions),
        conversions,
        month,
        rollforward: roll_forward(lines, month, &ctx.tz, complete, data.meta.balance.as_ref()),
        activity: activity(lines, month, &ctx.tz),
        fees: fee_statement(lines, month, &ctx.tz),
        complete,
        balance_read_at: data.meta.balance.as_ref().map(|b| b.read_at),
    }
}
