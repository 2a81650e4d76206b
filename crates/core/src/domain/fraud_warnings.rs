//! The early fraud warnings queue (RULES.md, "Fraud warnings"), pure: which warnings still
//! call for a decision, what each choice costs, and what the policy's `[fraud_warnings]`
//! section recommends, with the rule id and the reason as every suggestion has.
//!
//! A warning is on the queue unless its charge is fully refunded or disputed (there is
//! nothing left to decide). A warning whose charge is not in the data is kept, for review.
//! Refunding now costs the amount left on the charge, and the fee Stripe kept on it (not
//! returned by a refund); waiting costs that amount too if the dispute comes (and is
//! lost), the dispute fee of its currency and one more dispute on the account's rate.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::domain::refunds::FraudPolicy;
use crate::model::AccountData;
use crate::model::rows::{ChargeRow, FraudWarningRow};
use crate::model::status::FraudType;
use crate::money::{Currency, format_major};

/// What the policy recommends for one warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Recommendation {
    /// Refund the charge now, before the dispute.
    Refund,
    /// A person decides.
    Review,
}

impl Recommendation {
    /// As the exports write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Recommendation::Refund => "refund",
            Recommendation::Review => "review",
        }
    }
}

/// One warning on the queue, with its costs and the recommendation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuedWarning {
    pub warning_id: String,
    pub charge_id: Option<String>,
    pub customer_id: Option<String>,
    pub created: i64,
    pub fraud_type: FraudType,
    pub actionable: bool,
    /// Whole days from the warning to now.
    pub age_days: i64,
    /// The charge's currency; `None` when the charge is not in the data.
    pub currency: Option<Currency>,
    /// The charge's amount (minor units; 0 when unknown).
    pub amount: i64,
    /// How much of it is refunded already.
    pub refunded_amount: i64,
    /// What is left to refund or lose: captured less refunded.
    pub at_stake: i64,
    /// The fee Stripe kept on the charge, when known (a refund does not return it).
    pub fee: Option<i64>,
    /// The policy's dispute fee in the charge's currency, when it names one.
    pub dispute_fee: Option<i64>,
    pub recommendation: Recommendation,
    pub rule: String,
    pub reason: String,
    /// The ids behind the row (charge, customer).
    pub evidence: Vec<String>,
}

impl QueuedWarning {
    /// Refunding now, in minor units: the amount at stake and the fee Stripe keeps.
    pub fn refund_cost(&self) -> i64 {
        self.at_stake.saturating_add(self.fee.unwrap_or(0))
    }

    /// Waiting for a dispute that is lost, in minor units: the amount, the fee Stripe
    /// kept and the dispute fee (plus one dispute on the account's rate, not money).
    pub fn wait_cost(&self) -> i64 {
        self.refund_cost()
            .saturating_add(self.dispute_fee.unwrap_or(0))
    }
}

/// The queue and what was left off it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Queue {
    /// Oldest warning first (nearest to becoming a dispute), ties by id.
    pub rows: Vec<QueuedWarning>,
    /// Warnings off the queue: their charge is fully refunded.
    pub refunded: usize,
    /// Warnings off the queue: their charge is disputed.
    pub disputed: usize,
}

impl Queue {
    /// Per currency: rows, amount at stake, and the at-stake of the rows to refund now.
    pub fn totals(&self) -> BTreeMap<Currency, (usize, i64, i64)> {
        let mut out: BTreeMap<Currency, (usize, i64, i64)> = BTreeMap::new();
        for r in &self.rows {
            let Some(c) = r.currency else { continue };
            let e = out.entry(c).or_default();
            e.0 += 1;
            e.1 = e.1.saturating_add(r.at_stake);
            if r.recommendation == Recommendation::Refund {
                e.2 = e.2.saturating_add(r.at_stake);
            }
        }
        out
    }
}

/// Whether a warning on `charge` is still to decide: the charge is neither fully refunded
/// nor disputed (`disputed`: a dispute names it, or Stripe's flag says so).
pub fn on_queue(charge: &ChargeRow, disputed: bool) -> bool {
    !(disputed || charge.disputed || charge.refunded || charge.refundable() == 0)
}

const SAYS_REFUND: &str = "An actionable warning within the policy's refund limit is refunded before it becomes a dispute.";
const SAYS_REVIEW: &str =
    "A warning that is not actionable, or above or without a refund limit, goes to a person.";

/// The recommendation for a warning on `charge` (or on a charge not in the data), with
/// its rule id and its reason: the rule's sentence and one of facts.
pub fn recommend(
    w: &FraudWarningRow,
    charge: Option<&ChargeRow>,
    policy: &FraudPolicy,
) -> (Recommendation, String, String) {
    let review = |facts: String| {
        (
            Recommendation::Review,
            policy.review_rule.clone(),
            format!("{SAYS_REVIEW} {facts}"),
        )
    };
    let Some(c) = charge else {
        let id = w.charge.as_deref().unwrap_or("none");
        return review(format!(
            "Its charge ({id}) is not in the data read, so its amount is unknown."
        ));
    };
    let left = c.refundable();
    let cur = c.currency;
    let amount = format!("{} {}", format_major(left, cur), cur.upper());
    if !w.actionable {
        return review(format!(
            "Stripe marks it not actionable, with {amount} left on the charge."
        ));
    }
    match policy.refund_up_to.get(&cur) {
        None => review(format!(
            "The policy names no refund limit for {}.",
            cur.upper()
        )),
        Some(&limit) if left > limit => review(format!(
            "{amount} is above the policy's limit of {} {}.",
            format_major(limit, cur),
            cur.upper()
        )),
        Some(&limit) => (
            Recommendation::Refund,
            policy.refund_rule.clone(),
            format!(
                "{SAYS_REFUND} {amount} is within the limit of {} {}.",
                format_major(limit, cur),
                cur.upper()
            ),
        ),
    }
}

/// The queue of `data`'s warnings at `now` under `policy`.
pub fn queue(data: &AccountData, policy: &FraudPolicy, now: i64) -> Queue {
    let charges: HashMap<&str, &ChargeRow> =
        data.charges.iter().map(|c| (c.id.as_str(), c)).collect();
    let disputed: HashSet<&str> = data
        .disputes
        .iter()
        .filter_map(|d| d.charge.as_deref())
        .collect();
    let fees: HashMap<&str, i64> = data
        .balance_transactions
        .iter()
        .map(|t| (t.id.as_str(), t.fee))
        .collect();
    let mut q = Queue::default();
    for w in &data.fraud_warnings {
        let charge = w.charge.as_deref().and_then(|id| charges.get(id).copied());
        if let Some(c) = charge {
            let is_disputed = disputed.contains(c.id.as_str()) || c.disputed;
            if !on_queue(c, is_disputed) {
                if is_disputed {
                    q.disputed += 1;
                } else {
                    q.refunded += 1;
                }
                continue;
            }
        }
        let (recommendation, rule, reason) = recommend(w, charge, policy);
        let customer_id = charge.and_then(|c| c.customer.as_ref().map(|s| s.to_string()));
        let fee = w.charge_fee.or_else(|| {
            charge
                .and_then(|c| c.balance_transaction.as_deref())
                .and_then(|bt| fees.get(bt).copied())
        });
        let currency = charge.map(|c| c.currency);
        let mut evidence: Vec<String> = w.charge.iter().cloned().collect();
        evidence.extend(customer_id.iter().cloned());
        q.rows.push(QueuedWarning {
            warning_id: w.id.clone(),
            charge_id: w.charge.clone(),
            customer_id,
            created: w.created,
            fraud_type: w.fraud_type.clone(),
            actionable: w.actionable,
            age_days: ((now - w.created) / 86_400).max(0),
            currency,
            amount: charge.map_or(0, |c| c.amount),
            refunded_amount: charge.map_or(0, |c| c.amount_refunded),
            at_stake: charge.map_or(0, ChargeRow::refundable),
            fee,
            dispute_fee: currency.and_then(|c| policy.dispute_fee.get(&c).copied()),
            recommendation,
            rule,
            reason,
            evidence,
        });
    }
    q.rows
        .sort_by(|a, b| (a.created, &a.warning_id).cmp(&(b.created, &b.warning_id)));
    q
}

#[cfg(test)]
#[path = "fraud_warnings_tests.rs"]
mod tests;
