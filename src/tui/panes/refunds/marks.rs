//! The Refunds pane's marks and batches: `toggle_mark` marks an approve/partial ticket (or,
//! in the Fraud warnings view, a warning to refund; one batch may hold both),
//! `approve_marked` asks who approves (when the gate policy names approvers) and opens
//! the batch preview ([`super::batch`]), and the batch's report marks each ticket.

use super::batch::BatchOverlay;
use super::{RefundsPane, approval};
use crate::app::fraud_warnings;
use crate::app::refund_batch::ItemResult;
use crate::app::refund_exec::Outcome;
use crate::domain::refund_batch::Batch;
use crate::tui::action::Action;
use crate::tui::msg::{BatchDone, RequestId};
use crate::tui::pane::Cx;
use crate::tui::prompt::PromptKind;

impl RefundsPane {
    /// Marks or unmarks the selected ticket for a batch (approve and partial only).
    pub(super) fn toggle_mark(&mut self, cx: &mut Cx<'_>) {
        let Some(a) = self.selected() else {
            return;
        };
        if let Err(why) = approval::proposal_for(a) {
            cx.toast_error(why);
            return;
        }
        let key = approval::ticket_key(a);
        if !self.marked.remove(&key) {
            self.marked.insert(key);
        }
        self.rebuild(cx);
        self.table.handle(Action::Down, cx);
    }

    /// Marks or unmarks the selected fraud warning for a batch (only one the policy says
    /// to refund, with its charge in the data).
    pub(super) fn toggle_mark_warning(&mut self, cx: &mut Cx<'_>) {
        let Some(w) = self.fraud.selected() else {
            return;
        };
        if let Err(why) = fraud_warnings::proposal_for(w) {
            return cx.toast_error(why);
        }
        let key = w.warning_id.clone();
        if !self.marked.remove(&key) {
            self.marked.insert(key);
        }
        self.rebuild(cx);
        self.fraud.table.handle(Action::Down, cx);
    }

    /// `approve_marked`: asks who approves when the policy names approvers, else opens
    /// the batch preview at once (the OS user approves).
    pub(super) fn approve_marked(&mut self, cx: &mut Cx<'_>) {
        self.single = None;
        if self.marked.is_empty() {
            cx.toast_error(
                "mark the approve/partial tickets (or warnings to refund) with space first",
            );
        } else if self.gate_policy.approval.names_approvers() {
            cx.prompt(PromptKind::Approver, "");
        } else {
            self.open_batch(None, cx);
        }
    }

    /// `approve_refund` when the gate policy names approvers: the selected ticket as a
    /// batch of one, after asking who approves (the single preview has no approver).
    pub(super) fn approve_one_named(&mut self, cx: &mut Cx<'_>) {
        let Some(a) = self.selected() else {
            return cx.toast_error("no ticket selected");
        };
        if let Err(why) = approval::proposal_for(a) {
            return cx.toast_error(why);
        }
        self.single = Some(approval::ticket_key(a));
        cx.prompt(PromptKind::Approver, "");
    }

    /// Opens the batch preview of the marked tickets in queue order, then the marked
    /// warnings in theirs (or of the one ticket `approve_refund` named).
    pub(super) fn open_batch(&mut self, name: Option<&str>, cx: &mut Cx<'_>) {
        let (tickets, warnings): (Vec<String>, Vec<String>) = match self.single.take() {
            Some(one) => (vec![one], Vec::new()),
            None => (
                (self.rows.iter())
                    .map(approval::ticket_key)
                    .filter(|k| self.marked.contains(k))
                    .collect(),
                (self.fraud.queue().rows.iter())
                    .map(|w| w.warning_id.clone())
                    .filter(|k| self.marked.contains(k))
                    .collect(),
            ),
        };
        let mut items = Vec::new();
        if !tickets.is_empty() {
            match crate::app::refund_batch::items_for(&self.rows, &tickets) {
                Ok(i) => items.extend(i),
                Err(why) => return cx.toast_error(why),
            }
        }
        if !warnings.is_empty() {
            match fraud_warnings::items_for(self.fraud.queue(), &warnings) {
                Ok(i) => items.extend(i),
                Err(why) => return cx.toast_error(why),
            }
        }
        if items.is_empty() {
            return cx.toast_error("the marked tickets and warnings are no longer on the queue");
        }
        let approval = &self.gate_policy.approval;
        let signoff = match approval.signoff(name, &crate::app::audit::os_user()) {
            Ok(s) => s,
            Err(r) => return cx.toast_error(r.reason),
        };
        let b = Batch::new(items, signoff, cx.wall_now(), approval.batch_expiry_minutes);
        let blocked = self.data.as_deref().and_then(approval::blocked_reason);
        let overlay = BatchOverlay::new(b, &self.gate_policy, blocked);
        overlay.audit_opened(cx);
        self.batch = Some(overlay);
    }

    /// The batch's report: each refund done or failed marks its ticket; done ones are
    /// unmarked, the rest stay marked for a new preview.
    pub(super) fn batch_done(&mut self, req: RequestId, done: BatchDone, cx: &mut Cx<'_>) {
        match &done.outcome {
            Ok(r) => {
                for item in &r.items {
                    let key = item.proposal.ticket.clone();
                    let outcome = match &item.result {
                        ItemResult::Done { outcome } | ItemResult::Failed { outcome } => {
                            outcome.clone()
                        }
                        ItemResult::AlreadyDone { refund_id } => Outcome::Verified {
                            refund_id: refund_id.clone(),
                        },
                        ItemResult::NotAttempted => continue,
                    };
                    if !matches!(item.result, ItemResult::Failed { .. }) {
                        self.marked.remove(&key);
                    }
                    self.executed.insert(key, Ok(outcome));
                }
                let head = r.lines().into_iter().next().unwrap_or_default();
                if r.complete() {
                    cx.toast(head);
                } else {
                    cx.toast_error(head);
                }
            }
            Err(e) => cx.toast_error(format!("batch not sent: {e}")),
        }
        if let Some(o) = &mut self.batch {
            o.answered(req, &done);
        }
        self.rebuild(cx);
    }
}
