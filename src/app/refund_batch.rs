//! Carrying out a batch of approved refunds (README, "Approving several refunds at
//! once"): the confirmation must name the preview's hash before it expires; then each item
//! goes through the same gate as a single refund ([`Gate::execute_stamped`]: fresh checks,
//! the approver's tier, the idempotent `POST /v1/refunds`, the read-back), one after the
//! other. The first failure stops the batch: the items before it stay done, the rest are
//! not attempted, and the report says which is which. An item the audit log already shows
//! created is never posted again.

use serde::Serialize;

use crate::app::audit::{AuditError, Entry, Event};
use crate::app::refund_exec::{Gate, Outcome, Stamp};
use crate::domain::refund_approval::{RefundSource, Signoff, explain_note};
use crate::domain::refund_batch::{Batch, BatchItem};
use crate::domain::refund_gate::{Proposal, Refusal};
use crate::domain::refunds::{Assessment, Recommendation};

/// How one item of a batch ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum ItemResult {
    /// Created now: verified, or pending until it settles.
    Done { outcome: Outcome },
    /// The audit log shows it created earlier: not posted again.
    AlreadyDone { refund_id: String },
    /// Refused by the gate or by Stripe: the batch stopped here.
    Failed { outcome: Outcome },
    /// After a failure (or a refused batch): nothing was sent for it.
    NotAttempted,
}

/// One item's line of the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ItemReport {
    pub source: RefundSource,
    pub proposal: Proposal,
    pub result: ItemResult,
}

impl ItemReport {
    /// The refund's id, when one exists.
    pub fn refund_id(&self) -> Option<&str> {
        match &self.result {
            ItemResult::Done {
                outcome: Outcome::Verified { refund_id } | Outcome::Unverifiable { refund_id, .. },
            }
            | ItemResult::AlreadyDone { refund_id } => Some(refund_id),
            _ => None,
        }
    }

    /// `T-1  done      Refunded 20.00 USD on ch_… (re_…), rule …, approved by …`.
    pub fn line(&self, by: &Signoff) -> String {
        let p = &self.proposal;
        let (word, text) = match (&self.result, self.refund_id()) {
            (ItemResult::Done { .. } | ItemResult::AlreadyDone { .. }, Some(id)) => {
                let mut note = explain_note(p.amount, p.currency, &p.charge, id, &p.rule, by);
                if matches!(self.result, ItemResult::AlreadyDone { .. }) {
                    note.push_str(" (done earlier: not sent again)");
                }
                if let ItemResult::Done {
                    outcome: o @ Outcome::Unverifiable { .. },
                } = &self.result
                {
                    note.push_str(&format!(" ({})", o.summary()));
                }
                ("done", note)
            }
            (ItemResult::Failed { outcome }, _) => ("failed", failure_text(outcome)),
            _ => (
                "not done",
                format!("{} on {}: not attempted", p.amount_display(), p.charge),
            ),
        };
        format!("{:<12} {word:<9} {text}", self.source.id())
    }
}

/// Why an item failed, without the leading `failed: ` its summary has.
pub fn failure_text(o: &Outcome) -> String {
    let s = o.summary();
    s.strip_prefix("failed: ")
        .map_or_else(|| s.clone(), str::to_string)
}

/// What a confirmed batch did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BatchReport {
    /// The batch's short hash.
    pub batch: String,
    pub signoff: Signoff,
    /// Why the whole batch was refused before anything was sent (expired, wrong hash).
    pub refused: Option<Refusal>,
    pub items: Vec<ItemReport>,
}

impl BatchReport {
    pub fn done(&self) -> usize {
        self.items
            .iter()
            .filter(|i| {
                matches!(
                    i.result,
                    ItemResult::Done { .. } | ItemResult::AlreadyDone { .. }
                )
            })
            .count()
    }

    /// Whether every item is done.
    pub fn complete(&self) -> bool {
        self.refused.is_none() && self.done() == self.items.len()
    }

    /// A headline, then one line per item.
    pub fn lines(&self) -> Vec<String> {
        let n = self.items.len();
        let head = match &self.refused {
            Some(r) => format!("Batch {} refused, nothing sent: {r}", self.batch),
            None if self.complete() => format!("Batch {}: all {n} refund(s) done", self.batch),
            None => {
                let failed = self
                    .items
                    .iter()
                    .filter(|i| matches!(i.result, ItemResult::Failed { .. }))
                    .count();
                let not = n - self.done() - failed;
                format!(
                    "Batch {} stopped: {} done, {failed} failed, {not} not attempted (confirm a new preview of the rest to carry them out)",
                    self.batch,
                    self.done()
                )
            }
        };
        std::iter::once(head)
            .chain(
                self.items
                    .iter()
                    .map(|i| format!("  {}", i.line(&self.signoff))),
            )
            .collect()
    }
}

fn stamp(b: &Batch) -> Stamp {
    Stamp {
        signoff: Some(b.signoff.clone()),
        batch: Some(b.short_digest()),
    }
}

/// The refund the audit log shows created for exactly this proposal, if any.
fn created_earlier(entries: &[Entry], p: &Proposal) -> Option<String> {
    let digest = p.digest();
    entries
        .iter()
        .rev()
        .filter(|e| e.digest == digest)
        .find(|e| e.event == Event::Created && e.refund_id.is_some())
        .and_then(|e| e.refund_id.clone())
}

impl Gate {
    /// Records that the batch's preview was shown: a proposal per item, stamped with the
    /// approver and the batch.
    pub fn propose_batch(&self, b: &Batch, now: i64) -> Result<(), AuditError> {
        let st = stamp(b);
        b.items
            .iter()
            .try_for_each(|i| self.propose_stamped(&i.proposal, &st, now))
    }

    /// Records that the batch's preview was closed unsent.
    pub fn cancel_batch(&self, b: &Batch, now: i64) -> Result<(), AuditError> {
        let st = stamp(b);
        b.items
            .iter()
            .try_for_each(|i| self.cancel_stamped(&i.proposal, &st, now))
    }

    /// Carries out `b` once `confirmed` names its hash before it expired: item by item,
    /// stopping at the first failure. `Err` only when the audit log cannot be written
    /// (then nothing further is sent).
    pub async fn execute_batch(
        &self,
        b: &Batch,
        confirmed: &str,
        now: impl Fn() -> i64,
    ) -> Result<BatchReport, AuditError> {
        let st = stamp(b);
        let mut report = BatchReport {
            batch: b.short_digest(),
            signoff: b.signoff.clone(),
            refused: None,
            items: Vec::with_capacity(b.items.len()),
        };
        let not_attempted = |i: &BatchItem| ItemReport {
            source: i.source.clone(),
            proposal: i.proposal.clone(),
            result: ItemResult::NotAttempted,
        };
        if let Err(r) = b.check_confirm(confirmed, now()) {
            for i in &b.items {
                self.refuse_stamped(&i.proposal, r.clone(), &st, now())?;
            }
            report.items = b.items.iter().map(not_attempted).collect();
            report.refused = Some(r);
            return Ok(report);
        }
        let mut stopped = false;
        for item in &b.items {
            if stopped {
                report.items.push(not_attempted(item));
                continue;
            }
            let p = &item.proposal;
            let result = match created_earlier(&self.audit.read()?, p) {
                Some(refund_id) => ItemResult::AlreadyDone { refund_id },
                None => {
                    let approval = self.approve_stamped(p, &st, now())?;
                    match self.execute_stamped(p, &approval, &st, now()).await? {
                        o @ (Outcome::Verified { .. } | Outcome::Unverifiable { .. }) => {
                            ItemResult::Done { outcome: o }
                        }
                        o => {
                            stopped = true;
                            ItemResult::Failed { outcome: o }
                        }
                    }
                }
            };
            report.items.push(ItemReport {
                source: item.source.clone(),
                proposal: p.clone(),
                result,
            });
        }
        Ok(report)
    }
}

/// The note to paste into the ticket for a refund the audit log shows created (an entry
/// of event `created` with a refund id); `None` for any other entry.
pub fn note_of(e: &Entry) -> Option<String> {
    if e.event != Event::Created {
        return None;
    }
    let id = e.refund_id.as_deref()?;
    let by = Signoff {
        approver: e.approver.clone().unwrap_or_else(|| e.user.clone()),
        tier: e.tier.clone(),
    };
    Some(explain_note(
        e.amount, e.currency, &e.charge, id, &e.rule, &by,
    ))
}

/// The notes of every refund the log shows created for `ticket`, oldest first, each
/// refund once.
pub fn notes_for(entries: &[Entry], ticket: &str) -> Vec<String> {
    let mut seen = std::collections::BTreeSet::new();
    entries
        .iter()
        .filter(|e| e.ticket == ticket)
        .filter(|e| {
            e.refund_id
                .as_ref()
                .is_some_and(|id| seen.insert(id.clone()))
        })
        .filter_map(note_of)
        .collect()
}

/// The Stripe refund reason tieout sends for a policy-approved ticket.
pub const STRIPE_REASON: &str = "requested_by_customer";

/// The ticket's key in the audit log and on the queue: its id, else email/order.
pub fn ticket_key(a: &Assessment) -> String {
    match a.suggestion.ticket_id.as_deref().map(str::trim) {
        Some(id) if !id.is_empty() => id.to_string(),
        _ => format!("{}/{}", a.ticket.email.trim(), a.ticket.order_id.trim()),
    }
}

/// The refund a suggestion proposes, or why it proposes none.
pub fn proposal_for(a: &Assessment) -> Result<Proposal, String> {
    let s = &a.suggestion;
    let ticket = ticket_key(a);
    if !matches!(
        s.recommendation,
        Recommendation::Approve | Recommendation::Partial
    ) {
        return Err(format!(
            "nothing to refund: {ticket} is {} (only approve and partial are)",
            s.recommendation.as_str()
        ));
    }
    let (Some(charge), Some(currency)) = (a.matched.charge(), s.currency) else {
        return Err(format!(
            "{ticket}: no single charge matched; nothing to refund"
        ));
    };
    if s.amount <= 0 {
        return Err(format!(
            "{ticket}: the suggested amount is 0; nothing to refund"
        ));
    }
    Ok(Proposal {
        ticket,
        charge: charge.id.to_string(),
        amount: s.amount,
        currency,
        reason: STRIPE_REASON.to_string(),
        evidence: s.evidence.clone(),
        rule: s.rule.clone(),
    })
}

/// The items for the tickets named in `keys` (by [`ticket_key`]), in that order: each
/// must be on the queue with an approve or partial suggestion.
pub fn items_for(assessed: &[Assessment], keys: &[String]) -> Result<Vec<BatchItem>, String> {
    if keys.is_empty() {
        return Err("name at least one ticket to approve".into());
    }
    let mut out: Vec<BatchItem> = Vec::with_capacity(keys.len());
    for key in keys {
        let a = assessed
            .iter()
            .find(|a| ticket_key(a) == *key)
            .ok_or_else(|| format!("ticket {key} is not in the tickets decided"))?;
        let item = BatchItem::of(proposal_for(a)?);
        if out
            .iter()
            .any(|i| i.proposal.ticket == item.proposal.ticket)
        {
            return Err(format!("ticket {key} is named twice"));
        }
        out.push(item);
    }
    Ok(out)
}

impl crate::app::refund_exec::GateSession {
    /// Records that a batch preview was shown.
    pub fn batch_opened(&self, b: &Batch) -> Result<(), String> {
        self.gate
            .propose_batch(b, self.clock())
            .map_err(|e| e.to_string())
    }

    /// Records that a batch preview was closed unsent.
    pub fn batch_cancelled(&self, b: &Batch) -> Result<(), String> {
        self.gate
            .cancel_batch(b, self.clock())
            .map_err(|e| e.to_string())
    }

    /// Carries out a confirmed batch, blocking on the network.
    pub fn execute_batch_blocking(
        &self,
        b: &Batch,
        confirmed: &str,
    ) -> Result<BatchReport, String> {
        crate::stripe::blocking::block_on(self.gate.execute_batch(b, confirmed, || self.clock()))
            .map_err(|e| format!("could not start the network runtime: {e}"))?
            .map_err(|e| e.to_string())
    }
}
