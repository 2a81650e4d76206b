//! The Refunds pane's approval overlay (RULES.md, "Refund execution"): a frozen
//! preview of the refund a suggestion proposes (ticket, charge, amount and currency,
//! Stripe reason, evidence ids, rule, and the digest the approval will be bound to), a
//! deliberate typed confirmation ([`CONFIRM_WORD`] then `submit`, Enter by default; no
//! single key sends), then the gate's outcome. Its keys are the keymap's `[keys.confirm]`
//! mode layer: a user may rebind them (`submit`, `cancel`, `delete_back`, `clear_line`),
//! never the rule that the word is typed first.
//!
//! The overlay only decides *whether* to ask; the gate (`refund_exec::Gate`, run by the
//! runtime for `Effect::ExecuteRefund`) re-reads the charge and re-checks every rule, and
//! refuses any key that is not test-mode before a request is made.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

use crate::app::refund_exec::Outcome;
use crate::domain::refund_gate::Proposal;
use crate::domain::refunds::Recommendation;
use crate::model::{AccountData, Mode, Origin};
use crate::tui::action::Action;
use crate::tui::keymap::{self, Input};
use crate::tui::msg::{Effect, PreviewEvent, RefundDone, RequestId};
use crate::tui::pane::{Cx, ViewCx};
use crate::tui::theme::Role;

/// What the operator types (then `submit`, Enter by default) to send the refund.
pub const CONFIRM_WORD: &str = "yes";

pub use crate::app::refund_batch::{STRIPE_REASON, proposal_for, ticket_key};

/// Why this account cannot take a refund from tieout at all (shown instead of the
/// confirmation; nothing is sent).
pub fn blocked_reason(data: &AccountData) -> Option<String> {
    if data.meta.origin == Origin::Demo {
        return Some(
            "This is the demo account: no Stripe account is behind it, so nothing can be \
             sent. Refund execution needs a test-mode key (sk_test_/rk_test_) against a \
             Stripe test account or the fake server (cargo run --bin fake_stripe)."
                .into(),
        );
    }
    if data.meta.mode == Mode::Live {
        return Some(
            "This account was read with a live key: tieout creates refunds only in test \
             mode (sk_test_/rk_test_ keys) and refuses live keys. Nothing is sent."
                .into(),
        );
    }
    None
}

/// Where the overlay is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stage {
    /// The frozen preview, waiting for the typed confirmation.
    Preview { typed: String, nudge: bool },
    /// Sent to the gate; waiting for its outcome.
    Sending { req: RequestId },
    /// The gate's answer.
    Done(Result<Outcome, String>),
}

/// What a key did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyOutcome {
    Stay,
    Close,
}

impl KeyOutcome {
    /// A key once the refund (or batch) was sent: `cancel` closes the overlay while it
    /// runs (the outcome still marks the rows), `cancel` or `submit` once it `answered`.
    pub fn after_send(answered: bool, cancel: bool, submit: bool) -> Self {
        if cancel || (answered && submit) {
            KeyOutcome::Close
        } else {
            KeyOutcome::Stay
        }
    }
}

/// A typing key on the confirmation word: delete, clear, or a character (at most 12).
pub fn edit_typed(typed: &mut String, input: Input) {
    match input {
        Input::Action(Action::DeleteBack) => {
            typed.pop();
        }
        Input::Action(Action::ClearLine) => typed.clear(),
        Input::Char(c) if typed.chars().count() < 12 => typed.push(c),
        _ => {}
    }
}

/// Where an overlay `w` wide holding `lines` lines (and its border) is drawn: centred in
/// `area`, as tall as it needs up to the area's height.
pub fn centred(area: Rect, w: u16, lines: usize) -> Rect {
    let want = u16::try_from(lines.saturating_add(2)).unwrap_or(u16::MAX);
    let h = want.min(area.height);
    Rect {
        x: area.x + area.width.saturating_sub(w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// The open overlay.
#[derive(Debug, Clone)]
pub struct ApprovalOverlay {
    /// Frozen when the overlay opened; exactly what is approved and sent.
    pub proposal: Proposal,
    pub recommendation: Recommendation,
    pub blocked: Option<String>,
    pub stage: Stage,
    /// What an earlier execution of this ticket in this session ended with.
    pub earlier: Option<String>,
}

impl ApprovalOverlay {
    pub fn new(
        proposal: Proposal,
        recommendation: Recommendation,
        blocked: Option<String>,
        earlier: Option<String>,
    ) -> Self {
        Self {
            proposal,
            recommendation,
            blocked,
            stage: Stage::Preview {
                typed: String::new(),
                nudge: false,
            },
            earlier,
        }
    }

    /// Records in the audit log that the preview was shown (the proposal), when this
    /// account can take a refund at all; call once, when it opens.
    pub fn audit_opened(&self, cx: &mut Cx<'_>) {
        if self.blocked.is_none() {
            cx.effect(Effect::AuditPreview {
                proposal: self.proposal.clone(),
                event: PreviewEvent::Opened,
            });
        }
    }

    /// Closing the overlay: a preview still waiting for its confirmation is recorded as
    /// cancelled (once sent, the gate's own entries tell the rest).
    pub fn audit_closed(&self, cx: &mut Cx<'_>) {
        if self.blocked.is_none() && matches!(self.stage, Stage::Preview { .. }) {
            cx.effect(Effect::AuditPreview {
                proposal: self.proposal.clone(),
                event: PreviewEvent::Cancelled,
            });
        }
    }

    /// A key of the `[keys.confirm]` layer: a typing action or a character typed. Only
    /// [`CONFIRM_WORD`] followed by `submit` sends the refund; `submit` after anything
    /// else clears what was typed and sends nothing.
    pub fn input(&mut self, input: Input, cx: &mut Cx<'_>) -> KeyOutcome {
        let cancel = input == Input::Action(Action::Cancel);
        let submit = input == Input::Action(Action::Submit);
        match &mut self.stage {
            Stage::Preview { typed, nudge } => {
                if cancel {
                    return KeyOutcome::Close;
                }
                if self.blocked.is_some() {
                    return if submit {
                        KeyOutcome::Close
                    } else {
                        KeyOutcome::Stay
                    };
                }
                match input {
                    Input::Action(Action::Submit) if typed.as_str() == CONFIRM_WORD => {
                        let req = cx.execute_refund(self.proposal.clone());
                        self.stage = Stage::Sending { req };
                    }
                    Input::Action(Action::Submit) => {
                        typed.clear();
                        *nudge = true;
                    }
                    other => edit_typed(typed, other),
                }
                KeyOutcome::Stay
            }
            // Closing while it runs is fine: the outcome still marks the row.
            Stage::Sending { .. } => KeyOutcome::after_send(false, cancel, submit),
            Stage::Done(_) => KeyOutcome::after_send(true, cancel, submit),
        }
    }

    /// The gate answered; true when it was this overlay's request.
    pub fn answered(&mut self, req: RequestId, done: &RefundDone) -> bool {
        if self.stage == (Stage::Sending { req }) {
            self.stage = Stage::Done(done.outcome.clone());
            true
        } else {
            false
        }
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer, cx: &ViewCx<'_>) {
        let w = area.width.saturating_sub(4).min(84);
        let inner_w = usize::from(w.saturating_sub(2));
        let lines = self.lines(cx, inner_w);
        let rect = centred(area, w, lines.len());
        Clear.render(rect, buf);
        let title = format!(
            " Refund {} · {} ",
            self.proposal.ticket,
            self.recommendation.as_str()
        );
        let block = Block::bordered()
            .title(Span::styled(title, cx.theme.style(Role::Title)))
            .border_style(cx.theme.style(Role::Title))
            .style(cx.theme.style(Role::Text));
        Paragraph::new(lines).block(block).render(rect, buf);
    }

    fn lines(&self, cx: &ViewCx<'_>, width: usize) -> Vec<Line<'static>> {
        let p = &self.proposal;
        let mut out: Vec<Line<'static>> = Vec::new();
        let field = |out: &mut Vec<Line<'static>>, label: &str, value: &str, role: Role| {
            super::push_field(out, label, value, width, cx, role);
        };
        field(&mut out, "Ticket", &p.ticket, Role::Text);
        field(&mut out, "Charge", &p.charge, Role::Text);
        field(
            &mut out,
            "Amount",
            &p.amount_display(),
            Role::AmountPositive,
        );
        field(&mut out, "Reason", &p.reason, Role::Text);
        field(&mut out, "Evidence", &p.evidence.join(" "), Role::Muted);
        field(&mut out, "Rule", &p.rule, Role::Text);
        field(
            &mut out,
            "Approval",
            &format!("bound to sha256 {}…", &p.digest()[..16]),
            Role::Muted,
        );
        if let Some(e) = &self.earlier {
            field(&mut out, "Earlier", e, Role::Warning);
        }
        out.push(Line::default());
        let say = |out: &mut Vec<Line<'static>>, text: &str, role: Role| {
            for part in super::wrap(text, width) {
                out.push(Line::from(Span::styled(part, cx.theme.style(role))));
            }
        };
        let (submit, cancel) = (key_name(cx, Action::Submit), key_name(cx, Action::Cancel));
        match (&self.stage, &self.blocked) {
            (Stage::Preview { .. }, Some(why)) => {
                say(&mut out, why, Role::Warning);
                say(&mut out, &format!("{cancel} closes."), Role::Muted);
            }
            (Stage::Preview { typed, nudge }, None) => {
                say(
                    &mut out,
                    "Sends POST /v1/refunds (test mode only) with exactly these arguments. \
                     The gate first re-reads the charge and re-checks the amount left, \
                     disputes, currency and today's budget; then it reads the refund back.",
                    Role::Text,
                );
                out.push(Line::from(vec![
                    Span::styled("Type ", cx.theme.style(Role::Text)),
                    Span::styled(CONFIRM_WORD, cx.theme.style(Role::Title)),
                    Span::styled(" then press ", cx.theme.style(Role::Text)),
                    Span::styled(submit.clone(), cx.theme.style(Role::Title)),
                    Span::styled(" to send it · ", cx.theme.style(Role::Text)),
                    Span::styled(cancel.clone(), cx.theme.style(Role::Title)),
                    Span::styled(" cancels", cx.theme.style(Role::Text)),
                ]));
                out.push(Line::from(vec![
                    Span::styled("> ", cx.theme.style(Role::Muted)),
                    Span::styled(typed.clone(), cx.theme.style(Role::Title)),
                    Span::styled("_", cx.theme.style(Role::Muted)),
                ]));
                if *nudge {
                    say(
                        &mut out,
                        &format!("Not sent: type {CONFIRM_WORD} exactly, then {submit}."),
                        Role::Warning,
                    );
                }
            }
            (Stage::Sending { .. }, _) => {
                say(
                    &mut out,
                    "Sending: checking the charge, POST /v1/refunds, reading it back…",
                    Role::Pending,
                );
                say(
                    &mut out,
                    &format!("{cancel} hides this; the outcome still marks the ticket."),
                    Role::Muted,
                );
            }
            (Stage::Done(result), _) => {
                let (text, role) = outcome_text(result);
                say(&mut out, &text, role);
                say(
                    &mut out,
                    &format!(
                        "Every step is in the audit log (tieout audit). {submit} or {cancel} closes."
                    ),
                    Role::Muted,
                );
            }
        }
        out
    }
}

/// The first key of the confirmation's `action` as the overlay writes it (`Enter`, `Esc`,
/// `Ctrl-s`; a single character as it is); the action's name if it has no key.
fn key_name(cx: &ViewCx<'_>, action: Action) -> String {
    match cx.keymap.key_in(Some(keymap::CONFIRM), action) {
        Some(k) if k.chars().count() == 1 => k,
        Some(k) => capitalised(&k),
        None => action.name().to_string(),
    }
}

/// The outcome in words, and how it is coloured.
pub fn outcome_text(result: &Result<Outcome, String>) -> (String, Role) {
    match result {
        Ok(o @ Outcome::Verified { .. }) => (capitalised(&o.summary()), Role::Ok),
        Ok(o @ Outcome::Unverifiable { .. }) => (capitalised(&o.summary()), Role::Pending),
        Ok(o @ Outcome::Failed { .. }) => (capitalised(&o.summary()), Role::Failed),
        Ok(o @ Outcome::Refused(_)) => (capitalised(&o.summary()), Role::Warning),
        Err(e) => (format!("Not sent: {e}"), Role::Failed),
    }
}

/// The short mark the queue shows for a ticket after execution.
pub fn mark(result: &Result<Outcome, String>) -> (&'static str, Role) {
    match result {
        Ok(Outcome::Verified { .. }) => ("refunded", Role::Ok),
        Ok(Outcome::Unverifiable { .. }) => ("pending", Role::Pending),
        Ok(Outcome::Failed { .. }) => ("failed", Role::Failed),
        Ok(Outcome::Refused(_)) => ("refused", Role::Warning),
        Err(_) => ("not sent", Role::Failed),
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}
