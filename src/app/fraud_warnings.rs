//! The early fraud warnings queue as a use case (RULES.md, "Fraud warnings"): reads what
//! `load::Need::FraudWarnings` names (the warnings, the charges and disputes they are
//! judged by, the balance lines their fees come from), builds the queue with the core's
//! rules under the policy's `[fraud_warnings]` section, and renders its two files. Both
//! shells call it.

use crate::app::ReadRequest;
use crate::app::load::{self, Need};
use crate::domain::fraud_warnings::{self, Queue};
use crate::domain::refunds::Policy;
use crate::failure::Failure;
use crate::model::AccountData;
use crate::model::dashboard::DashboardLinks;
use crate::report::fraud_warnings as export;

/// The account data the queue needs, from the demo, the cache or Stripe.
pub fn load(ctx: &ReadRequest) -> Result<AccountData, Failure> {
    load::load(ctx, Need::FraudWarnings)
}

/// The queue of `data` at the request's clock.
pub fn build(ctx: &ReadRequest, data: &AccountData, policy: &Policy) -> Queue {
    fraud_warnings::queue(data, &policy.fraud_warnings, ctx.now)
}

/// `fraud-warnings.csv` and `fraud-warnings.md`, by name, in that order.
pub fn files(
    ctx: &ReadRequest,
    data: &AccountData,
    q: &Queue,
    policy: &Policy,
) -> Vec<(&'static str, Vec<u8>)> {
    let links = DashboardLinks::new(data.meta.mode, ctx.stripe_account.as_deref());
    vec![
        (export::CSV_FILE, export::csv(q, &links)),
        (
            export::MD_FILE,
            export::markdown(q, &data.meta, &policy.fraud_warnings, ctx.now).into_bytes(),
        ),
    ]
}
