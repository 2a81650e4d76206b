//! The early fraud warnings queue as a use case (RULES.md, "Fraud warnings"): reads what
//! `load::Need::FraudWarnings` names (the warnings, the charges and disputes they are
//! judged by, the balance lines their fees come from), builds the queue with the core's
//! rules under the policy's `[fraud_warnings]` section, renders its two files, and turns
//! the warnings to refund into a batch's items (README, "Approving several refunds at
//! once"). Both shells call it.

use crate::app::ReadRequest;
use crate::app::load::{self, Need};
use crate::domain::fraud_warnings::{self, Queue, QueuedWarning, Recommendation};
use crate::domain::refund_approval::RefundSource;
use crate::domain::refund_batch::BatchItem;
use crate::domain::refund_gate::Proposal;
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

/// The Stripe refund reason for a refund made on an early fraud warning: `fraudulent`
/// tells Stripe (and Radar) the charge was fraud, not a customer's request.
pub const STRIPE_REASON: &str = "fraudulent";

/// The refund a warning proposes (what is left on its charge, reason `fraudulent`), or
/// why it proposes none: only a warning the policy says to refund goes into a batch.
pub fn proposal_for(w: &QueuedWarning) -> Result<Proposal, String> {
    let id = &w.warning_id;
    if w.recommendation != Recommendation::Refund {
        return Err(format!(
            "nothing to refund: {id} is {} (only warnings the policy says to refund are)",
            w.recommendation.as_str()
        ));
    }
    let (Some(charge), Some(currency)) = (w.charge_id.as_deref(), w.currency) else {
        return Err(format!(
            "{id}: its charge is not in the data; nothing to refund"
        ));
    };
    if w.at_stake <= 0 {
        return Err(format!("{id}: nothing is left to refund on {charge}"));
    }
    let mut evidence = vec![id.clone()];
    evidence.extend(w.evidence.iter().filter(|e| *e != id).cloned());
    Ok(Proposal {
        ticket: id.clone(),
        charge: charge.to_string(),
        amount: w.at_stake,
        currency,
        reason: STRIPE_REASON.to_string(),
        evidence,
        rule: w.rule.clone(),
    })
}

/// The batch items for the warnings named in `keys` (`issfr_…`), in that order: each must
/// be on the queue with the recommendation to refund.
pub fn items_for(q: &Queue, keys: &[String]) -> Result<Vec<BatchItem>, String> {
    if keys.is_empty() {
        return Err("name at least one fraud warning to approve".into());
    }
    let mut out: Vec<BatchItem> = Vec::with_capacity(keys.len());
    for key in keys {
        let w = (q.rows.iter())
            .find(|w| w.warning_id == *key)
            .ok_or_else(|| {
                format!("fraud warning {key} is not on the queue (refunded, disputed or unknown)")
            })?;
        if out.iter().any(|i| i.proposal.ticket == *key) {
            return Err(format!("fraud warning {key} is named twice"));
        }
        out.push(BatchItem {
            source: RefundSource::FraudWarning(key.clone()),
            proposal: proposal_for(w)?,
        });
    }
    Ok(out)
}
