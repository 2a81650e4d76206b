//! The Refunds pane's batch overlay (README, "Approving several refunds at once"): the
//! tickets marked with `toggle_mark`, previewed as one batch after `approve_marked` (and,
//! when the gate policy names approvers, the approver's name asked in a prompt): who
//! approves under which tier, the hash the confirmation is bound to and when the preview
//! expires, each refund with its checks, and the total per currency. Typing `yes` then
//! `submit` sends the batch; after the expiry the overlay refuses and asks for a new
//! preview (the gate refuses it too, by its own clock). Then the report: which refunds are
//! done, which failed, which were not attempted.

use std::collections::BTreeMap;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

use super::approval::{CONFIRM_WORD, KeyOutcome, centred, edit_typed};
use crate::app::refund_batch::{BatchReport, ItemResult};
use crate::domain::refund_batch::{Batch, ItemCheck};
use crate::domain::refund_gate::GatePolicy;
use crate::money::format_major;
use crate::tui::action::Action;
use crate::tui::keymap::Input;
use crate::tui::msg::{BatchDone, Effect, PreviewEvent, RequestId};
use crate::tui::pane::{Cx, ViewCx};
use crate::tui::theme::Role;

/// Where the overlay is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stage {
    Preview {
        typed: String,
        nudge: Option<String>,
    },
    Sending {
        req: RequestId,
    },
    Done(Result<BatchReport, String>),
}

/// The open batch overlay.
#[derive(Debug, Clone)]
pub struct BatchOverlay {
    /// Frozen when the overlay opened; exactly what is confirmed and sent.
    pub batch: Batch,
    checks: Vec<Vec<ItemCheck>>,
    pub blocked: Option<String>,
    pub stage: Stage,
}

impl BatchOverlay {
    pub fn new(batch: Batch, policy: &GatePolicy, blocked: Option<String>) -> Self {
        // The pane cannot read the audit log: the budget is shown against the whole day's,
        // and the gate counts today's earlier refunds before each one.
        let checks = batch.checks(policy, &BTreeMap::new());
        let failing = batch
            .items
            .iter()
            .zip(&checks)
            .filter(|(_, c)| c.iter().any(|c| !c.passed))
            .map(|(i, _)| i.source.id().to_string())
            .collect::<Vec<_>>();
        let blocked = blocked.or_else(|| {
            (!failing.is_empty()).then(|| {
                format!(
                    "Not sendable: {} fail(s) a check below. Unmark it (space) or ask a higher tier, then preview again.",
                    failing.join(", ")
                )
            })
        });
        Self {
            batch,
            checks,
            blocked,
            stage: Stage::Preview {
                typed: String::new(),
                nudge: None,
            },
        }
    }

    fn audit(&self, cx: &mut Cx<'_>, event: PreviewEvent) {
        cx.effect(Effect::AuditBatch {
            batch: self.batch.clone(),
            event,
        });
    }

    /// Records the preview in the audit log (when the account can take refunds at all).
    pub fn audit_opened(&self, cx: &mut Cx<'_>) {
        if self.blocked.is_none() {
            self.audit(cx, PreviewEvent::Opened);
        }
    }

    /// Records a preview closed unsent.
    pub fn audit_closed(&self, cx: &mut Cx<'_>) {
        if self.blocked.is_none() && matches!(self.stage, Stage::Preview { .. }) {
            self.audit(cx, PreviewEvent::Cancelled);
        }
    }

    /// A key of the `[keys.confirm]` layer.
    pub fn input(&mut self, input: Input, cx: &mut Cx<'_>) -> KeyOutcome {
        let cancel = input == Input::Action(Action::Cancel);
        let submit = input == Input::Action(Action::Submit);
        match &mut self.stage {
            Stage::Preview { typed, nudge } => {
                if cancel || (submit && self.blocked.is_some()) {
                    return KeyOutcome::Close;
                }
                if self.blocked.is_some() {
                    return KeyOutcome::Stay;
                }
                match input {
                    Input::Action(Action::Submit) if typed.as_str() == CONFIRM_WORD => {
                        let digest = self.batch.digest();
                        if let Err(r) = self.batch.check_confirm(&digest, cx.wall_now()) {
                            typed.clear();
                            *nudge = Some(format!("Not sent: {}", r.reason));
                        } else {
                            let req = cx.request(format!(
                                "refunding a batch of {}",
                                self.batch.items.len()
                            ));
                            cx.effect(Effect::ExecuteBatch {
                                req,
                                batch: self.batch.clone(),
                                confirmed: digest,
                            });
                            self.stage = Stage::Sending { req };
                        }
                    }
                    Input::Action(Action::Submit) => {
                        typed.clear();
                        *nudge = Some(format!(
                            "Not sent: type {CONFIRM_WORD} exactly, then submit."
                        ));
                    }
                    other => edit_typed(typed, other),
                }
                KeyOutcome::Stay
            }
            Stage::Sending { .. } => KeyOutcome::after_send(false, cancel, submit),
            Stage::Done(_) => KeyOutcome::after_send(true, cancel, submit),
        }
    }

    /// The batch's report came back; true when it was this overlay's request.
    pub fn answered(&mut self, req: RequestId, done: &BatchDone) -> bool {
        if self.stage == (Stage::Sending { req }) {
            self.stage = Stage::Done(done.outcome.clone());
            true
        } else {
            false
        }
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer, cx: &ViewCx<'_>) {
        let w = area.width.saturating_sub(4).min(100);
        let inner_w = usize::from(w.saturating_sub(2));
        let lines = self.lines(cx, inner_w);
        let rect = centred(area, w, lines.len());
        Clear.render(rect, buf);
        let title = format!(
            " Approve {} refund(s) · batch {} ",
            self.batch.items.len(),
            self.batch.short_digest()
        );
        let block = Block::bordered()
            .title(Span::styled(title, cx.theme.style(Role::Title)))
            .border_style(cx.theme.style(Role::Title))
            .style(cx.theme.style(Role::Text));
        Paragraph::new(lines).block(block).render(rect, buf);
    }

    fn lines(&self, cx: &ViewCx<'_>, width: usize) -> Vec<Line<'static>> {
        let b = &self.batch;
        let mut out: Vec<Line<'static>> = Vec::new();
        let field = |out: &mut Vec<Line<'static>>, label: &str, value: &str, role: Role| {
            super::push_field(out, label, value, width, cx, role);
        };
        let say = |out: &mut Vec<Line<'static>>, text: &str, role: Role| {
            for part in super::wrap(text, width) {
                out.push(Line::from(Span::styled(part, cx.theme.style(role))));
            }
        };
        let approver = match &b.signoff.tier {
            Some(_) => b.signoff.label(),
            None => format!("{} (no tiers in force)", b.signoff.approver),
        };
        field(&mut out, "Approver", &approver, Role::Text);
        let minutes = (b.expires_at - b.created_at) / 60;
        field(
            &mut out,
            "Bound to",
            &format!(
                "sha256 {}… · expires {} ({minutes} min)",
                b.short_digest(),
                crate::time::iso_utc(b.expires_at)
            ),
            Role::Muted,
        );
        let totals: Vec<String> = b
            .totals()
            .into_iter()
            .map(|(c, m)| format!("{} {}", format_major(m, c), c.upper()))
            .collect();
        field(&mut out, "Total", &totals.join(" · "), Role::AmountPositive);
        out.push(Line::default());
        let results = match &self.stage {
            Stage::Done(Ok(r)) => Some(r),
            _ => None,
        };
        for (i, (item, checks)) in b.items.iter().zip(&self.checks).enumerate() {
            let p = &item.proposal;
            out.push(Line::from(vec![
                Span::styled(
                    format!("{:<8} ", item.source.id()),
                    cx.theme.style(Role::Title),
                ),
                Span::styled(p.amount_display(), cx.theme.style(Role::AmountPositive)),
                Span::styled(
                    format!(" on {} · {}", p.charge, p.rule),
                    cx.theme.style(Role::Text),
                ),
            ]));
            let line = match results.and_then(|r| r.items.get(i)) {
                Some(report) => result_line(&report.result),
                None => (checks_text(checks), checks_role(checks)),
            };
            let mut parts = super::wrap(&line.0, width.saturating_sub(super::LABEL_W)).into_iter();
            if let Some(first) = parts.next() {
                out.push(Line::from(vec![
                    Span::raw(" ".repeat(super::LABEL_W)),
                    Span::styled(first, cx.theme.style(line.1)),
                ]));
            }
            for rest in parts {
                out.push(Line::from(vec![
                    Span::raw(" ".repeat(super::LABEL_W)),
                    Span::styled(rest, cx.theme.style(line.1)),
                ]));
            }
        }
        out.push(Line::default());
        match (&self.stage, &self.blocked) {
            (Stage::Preview { .. }, Some(why)) => say(&mut out, why, Role::Warning),
            (Stage::Preview { typed, nudge }, None) => {
                say(
                    &mut out,
                    "Each refund goes through the gate in turn (charge re-read, checks, tier, \
                     idempotency key, read-back); the first failure stops the batch.",
                    Role::Text,
                );
                out.push(Line::from(vec![
                    Span::styled("Type ", cx.theme.style(Role::Text)),
                    Span::styled(CONFIRM_WORD, cx.theme.style(Role::Title)),
                    Span::styled(
                        " then Enter to send all · Esc cancels  > ",
                        cx.theme.style(Role::Text),
                    ),
                    Span::styled(typed.clone(), cx.theme.style(Role::Title)),
                    Span::styled("_", cx.theme.style(Role::Muted)),
                ]));
                if let Some(n) = nudge {
                    say(&mut out, n, Role::Warning);
                }
            }
            (Stage::Sending { .. }, _) => say(
                &mut out,
                "Sending the batch, one refund after the other…",
                Role::Pending,
            ),
            (Stage::Done(Ok(r)), _) => {
                let role = if r.complete() { Role::Ok } else { Role::Failed };
                let head = r.lines().into_iter().next().unwrap_or_default();
                say(&mut out, &head, role);
                say(
                    &mut out,
                    "Every step is in the audit log (tieout audit).",
                    Role::Muted,
                );
            }
            (Stage::Done(Err(e)), _) => say(&mut out, &format!("Not sent: {e}"), Role::Failed),
        }
        out
    }
}

fn checks_text(checks: &[ItemCheck]) -> String {
    match checks.iter().find(|c| !c.passed) {
        Some(c) => format!("✗ {}: {}", c.name, c.says),
        None => checks
            .iter()
            .map(|c| format!("✓ {}", c.name))
            .collect::<Vec<_>>()
            .join("  "),
    }
}

fn checks_role(checks: &[ItemCheck]) -> Role {
    if checks.iter().all(|c| c.passed) {
        Role::Ok
    } else {
        Role::Failed
    }
}

fn result_line(r: &ItemResult) -> (String, Role) {
    match r {
        ItemResult::Done { outcome } => (outcome.summary(), Role::Ok),
        ItemResult::AlreadyDone { refund_id } => (
            format!("done earlier: {refund_id} (not sent again)"),
            Role::Ok,
        ),
        ItemResult::Failed { outcome } => (
            format!(
                "failed: {}",
                crate::app::refund_batch::failure_text(outcome)
            ),
            Role::Failed,
        ),
        ItemResult::NotAttempted => ("not attempted".into(), Role::Muted),
    }
}
