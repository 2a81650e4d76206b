//! A batch of refunds approved together (README, "Approving several refunds at once"):
//! the items (each a frozen [`Proposal`] and where it came from), who signs them off, and
//! one hash over every item's charge, amount, currency, idempotency key and source, the
//! approver and the preview's validity. The preview shows each item's checks
//! ([`Batch::checks`]); a confirmation is bound to the hash and refused once the preview
//! has expired ([`Batch::check_confirm`]). Pure: `app::refund_batch` carries it out, item
//! by item, through the same gate as a single refund.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::domain::refund_approval::{RefundSource, Signoff};
use crate::domain::refund_gate::{GatePolicy, Proposal, Refusal, Rule, STRIPE_REASONS};
use crate::money::{Currency, format_major};

/// One refund of a batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchItem {
    pub source: RefundSource,
    pub proposal: Proposal,
}

impl BatchItem {
    /// The item for a proposal, its source read from the proposal's key.
    pub fn of(proposal: Proposal) -> Self {
        Self {
            source: RefundSource::of_key(&proposal.ticket),
            proposal,
        }
    }
}

/// One check of one item as the preview shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemCheck {
    /// `amount`, `currency`, `tier`, `budget`.
    pub name: &'static str,
    pub passed: bool,
    /// What was checked, or the refusal's reason.
    pub says: String,
}

/// The batch as previewed: exactly what a confirmation carries out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Batch {
    pub items: Vec<BatchItem>,
    pub signoff: Signoff,
    /// Unix seconds.
    pub created_at: i64,
    pub expires_at: i64,
}

impl Batch {
    /// A batch previewed at `now`, valid `expiry_minutes`.
    pub fn new(items: Vec<BatchItem>, signoff: Signoff, now: i64, expiry_minutes: i64) -> Self {
        Self {
            items,
            signoff,
            created_at: now,
            expires_at: now.saturating_add(expiry_minutes.saturating_mul(60)),
        }
    }

    /// SHA-256 (hex) over every item's (charge, amount, currency, idempotency key,
    /// source), the approver and tier, and the preview's times; each field length-prefixed.
    pub fn digest(&self) -> String {
        let mut h = Sha256::new();
        let mut field = |name: &str, value: &str| {
            h.update(name.as_bytes());
            h.update((value.len() as u64).to_be_bytes());
            h.update(value.as_bytes());
        };
        field("items", &self.items.len().to_string());
        for item in &self.items {
            let p = &item.proposal;
            field("charge", &p.charge);
            field("amount", &p.amount.to_string());
            field("currency", p.currency.as_str());
            field("idempotency_key", &p.idempotency_key());
            field("source", &item.source.tag());
        }
        field("approver", &self.signoff.approver);
        field("tier", self.signoff.tier.as_deref().unwrap_or(""));
        field("created_at", &self.created_at.to_string());
        field("expires_at", &self.expires_at.to_string());
        hex::encode(h.finalize())
    }

    /// The first 16 hex digits of the digest: what an operator reads and types.
    pub fn short_digest(&self) -> String {
        self.digest()[..16].to_string()
    }

    /// Ok when `confirmed` is this batch's digest (in full, or at least its first 16 hex
    /// digits) and the preview has not expired at `now`.
    pub fn check_confirm(&self, confirmed: &str, now: i64) -> Result<(), Refusal> {
        let digest = self.digest();
        let c = confirmed.trim().to_ascii_lowercase();
        if c.len() < 16 || !digest.starts_with(&c) {
            return Err(Refusal::new(
                Rule::ApprovalVoid,
                format!(
                    "the confirmation names batch {c}, but the preview is batch {}: review the \
                     preview and confirm its hash",
                    &digest[..16]
                ),
            ));
        }
        if now >= self.expires_at {
            return Err(Refusal::new(
                Rule::BatchExpired,
                format!(
                    "the batch preview expired at {} ({} min after it was made): preview the \
                     batch again and confirm the new hash",
                    crate::time::iso_utc(self.expires_at),
                    (self.expires_at - self.created_at) / 60
                ),
            ));
        }
        Ok(())
    }

    /// Total per currency (never added across currencies).
    pub fn totals(&self) -> BTreeMap<Currency, i64> {
        let mut out = BTreeMap::new();
        for item in &self.items {
            *out.entry(item.proposal.currency).or_insert(0) += item.proposal.amount;
        }
        out
    }

    /// The checks the preview can run without Stripe, per item: amount, currency,
    /// the approver's tier, and the day's budget counting the items before it
    /// (`spent_today`: what was already refunded today, per currency). The gate runs them
    /// again, with the charge re-read, just before each refund.
    pub fn checks(
        &self,
        policy: &GatePolicy,
        spent_today: &BTreeMap<Currency, i64>,
    ) -> Vec<Vec<ItemCheck>> {
        let mut running = spent_today.clone();
        self.items
            .iter()
            .map(|item| {
                let p = &item.proposal;
                let cur = p.currency.upper();
                let spent = running.entry(p.currency).or_insert(0);
                let checks = vec![
                    amount_check(p),
                    currency_check(p, policy),
                    match policy.approval.check(&self.signoff, p.amount, p.currency) {
                        Ok(()) => ItemCheck {
                            name: "tier",
                            passed: true,
                            says: match &self.signoff.tier {
                                Some(t) => format!("within tier {t}"),
                                None => "no tiers in force".into(),
                            },
                        },
                        Err(r) => refused("tier", &r),
                    },
                    match policy.daily_budget.get(&p.currency) {
                        Some(&budget) if p.amount <= budget - *spent => ItemCheck {
                            name: "budget",
                            passed: true,
                            says: format!(
                                "{} {cur} of today's budget left after it",
                                format_major(budget - *spent - p.amount, p.currency)
                            ),
                        },
                        Some(&budget) => ItemCheck {
                            name: "budget",
                            passed: false,
                            says: format!(
                                "over today's {cur} budget ({} {cur} left)",
                                format_major((budget - *spent).max(0), p.currency)
                            ),
                        },
                        None => ItemCheck {
                            name: "budget",
                            passed: false,
                            says: format!("{cur} has no daily budget"),
                        },
                    },
                ];
                *spent += p.amount;
                checks
            })
            .collect()
    }
}

fn refused(name: &'static str, r: &Refusal) -> ItemCheck {
    ItemCheck {
        name,
        passed: false,
        says: r.reason.clone(),
    }
}

fn amount_check(p: &Proposal) -> ItemCheck {
    let step = p.currency.amount_step();
    let ok = p.amount > 0 && p.amount % step == 0 && STRIPE_REASONS.contains(&p.reason.as_str());
    ItemCheck {
        name: "amount",
        passed: ok,
        says: if ok {
            format!("{} > 0", p.amount_display())
        } else {
            format!(
                "{} is not a whole positive refund amount (or '{}' not a Stripe reason)",
                p.amount, p.reason
            )
        },
    }
}

fn currency_check(p: &Proposal, policy: &GatePolicy) -> ItemCheck {
    let cur = p.currency.upper();
    let ok = policy.allowed.contains(&p.currency);
    ItemCheck {
        name: "currency",
        passed: ok,
        says: if ok {
            format!("{cur} allowed")
        } else {
            format!("{cur} is not an allowed refund currency")
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(ticket: &str, amount: i64) -> BatchItem {
        BatchItem::of(Proposal {
            ticket: ticket.into(),
            charge: format!("ch_{ticket}"),
            amount,
            currency: Currency::USD,
            reason: "requested_by_customer".into(),
            evidence: vec![ticket.into()],
            rule: "first-purchase-window".into(),
        })
    }

    fn batch() -> Batch {
        let s = Signoff {
            approver: "ops".into(),
            tier: None,
        };
        Batch::new(vec![item("T-1", 2_000), item("T-2", 3_000)], s, 1_000, 15)
    }

    #[test]
    fn the_hash_binds_every_item_and_the_approver() {
        let b = batch();
        assert_eq!(b.digest(), batch().digest());
        assert_eq!(b.expires_at, 1_000 + 900);
        let mut c = batch();
        c.items[1].proposal.amount += 10;
        assert_ne!(b.digest(), c.digest());
        let mut c = batch();
        c.items.swap(0, 1);
        assert_ne!(b.digest(), c.digest());
        let mut c = batch();
        c.signoff.approver = "Ana".into();
        assert_ne!(b.digest(), c.digest());
        let mut c = batch();
        c.items[0].source = RefundSource::FraudWarning("T-1".into());
        assert_ne!(b.digest(), c.digest());
    }

    #[test]
    fn a_confirmation_is_bound_to_the_hash_and_expires() {
        let b = batch();
        assert_eq!(b.check_confirm(&b.short_digest(), 1_000), Ok(()));
        assert_eq!(b.check_confirm(&b.digest(), 1_899), Ok(()));
        let rule = |r: Result<(), Refusal>| r.err().map(|e| e.rule);
        assert_eq!(
            rule(b.check_confirm(&b.digest(), 1_900)),
            Some(Rule::BatchExpired)
        );
        assert_eq!(
            rule(b.check_confirm("abc", 1_000)),
            Some(Rule::ApprovalVoid)
        );
        assert_eq!(
            rule(b.check_confirm(&batch_other().short_digest(), 1_000)),
            Some(Rule::ApprovalVoid)
        );
    }

    fn batch_other() -> Batch {
        let mut b = batch();
        b.items.pop();
        b
    }

    #[test]
    fn checks_count_the_budget_across_the_items() {
        let mut b = batch();
        b.items.push(item("T-3", 46_000));
        let spent = BTreeMap::from([(Currency::USD, 1_000)]);
        let checks = b.checks(&GatePolicy::default(), &spent);
        assert!(checks[0].iter().all(|c| c.passed));
        assert!(checks[1].iter().all(|c| c.passed), "{:?}", checks[1]);
        let budget = &checks[2][3];
        assert!(!budget.passed);
        assert!(budget.says.contains("440.00 USD left"), "{}", budget.says);
        assert_eq!(b.totals().get(&Currency::USD), Some(&51_000));
    }
}
