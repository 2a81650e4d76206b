//! The Refunds tab: the support tickets as a queue, each with its recommendation and
//! amount (the default refund policy, `domain::refunds`), and below the queue the selected
//! ticket in full: the customer's message, the matched charge, its refunds and disputes,
//! the subscription period, the rule that applied and the reason.
//!
//! Keys: `enter` opens the ticket's trail ([`trail_screen`]: the Stripe requests, what
//! matching found, each candidate charge and each rule up to the deciding one, the lines
//! `suggest --explain` writes), `enter` there its evidence (every id the suggestion
//! relied on, with Dashboard addresses for the account read, a connected account's
//! included) and `enter` again one evidence object with all its fields; `Y` (copy row) copies the
//! suggestion ready to paste into a reply or an internal note: recommendation and amount,
//! the reason, and the evidence ids; `a` (approve_refund) on an approve/partial suggestion
//! opens the frozen refund preview ([`approval`]): typing `yes` then Enter sends it through
//! the gate (test mode only), and the outcome marks the ticket. While the preview is open
//! keys are those of the keymap's `[keys.confirm]` mode layer. `w` (fraud_view) switches
//! to the early fraud warnings queue ([`fraud_view`]) and back.
//!
//! The suggestions are computed when the account (re)loads: at once for a small queue,
//! off the UI task for a large one.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use jiff::tz::TimeZone;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};
use serde::Serialize;

use crate::app::refund_exec::Outcome;
use crate::domain::refund_gate::GatePolicy;
use crate::domain::refunds::matching::{OrderMatch, PeriodLink};
use crate::domain::refunds::{Assessment, Facts, Policy};
use crate::model::AccountData;
use crate::money::{Money, format_major};
use crate::time::date_in;
use crate::tui::action::Action;
use crate::tui::keymap::{self, Input};
use crate::tui::msg::{BatchDone, Job, JobOutput, RefundDone, RequestId};
use crate::tui::pane::{Cx, Handled, Pane, Reads, Reveal, ViewCx};
use crate::tui::panes::detail::RowDetail;
use crate::tui::prompt::PromptKind;
use crate::tui::theme::Role;
use crate::tui::widgets::table::{Cell, DataTable, RowsSource, TableSource};
use crate::tui::workspace::Workspace;

mod detail;
mod evidence;
mod fraud_view;
mod reveal;
mod trail_screen;

use detail::*;
pub use evidence::{EvidenceRow, EvidenceScreen, evidence_row};
pub use trail_screen::TrailScreen;

/// The work ([`work`]) up to which the queue is decided on the UI task (the demo's 20
/// tickets over its 1,600 rows); above it the work runs as a background job.
const INLINE_WORK: usize = 4_000;

/// What deciding `tickets` tickets over `data` costs, in rows read: matching indexes the
/// rows once (`Facts`), then each ticket is a few look-ups and its customers' charges
/// (counted as 20 rows a ticket).
fn work(data: &AccountData, tickets: usize) -> usize {
    let rows = data.customers.len()
        + data.charges.len()
        + data.refunds.len()
        + data.disputes.len()
        + data.subscriptions.len()
        + data.invoice_payments.len();
    rows.saturating_add(tickets.saturating_mul(20))
}

pub fn pane() -> Box<dyn Pane> {
    Box::new(RefundsPane::new(Policy::default_policy()))
}

pub mod approval;
pub mod batch;
mod headless;
mod marks;
mod queue_table;

pub use headless::view_table;
pub use queue_table::{QueueRow, paste_text};
use queue_table::{columns, rec_role};

use approval::{ApprovalOverlay, KeyOutcome};
use batch::BatchOverlay;

/// The Refunds tab.
pub struct RefundsPane {
    policy: Policy,
    table: DataTable,
    rows: Arc<Vec<Assessment>>,
    data: Option<Arc<AccountData>>,
    /// The connected account the data was read from (`--stripe-account`), if any.
    connected: Option<String>,
    pending: Option<RequestId>,
    /// The refund preview / confirmation / outcome overlay, when open.
    approval: Option<ApprovalOverlay>,
    /// What executing a ticket's refund ended with in this session, by ticket key.
    executed: BTreeMap<String, Result<Outcome, String>>,
    /// Tickets whose refund is being sent (no second preview until it answers).
    in_flight: BTreeSet<String>,
    /// Tickets and fraud warnings marked for a batch (`toggle_mark`), by ticket key or
    /// warning id.
    marked: BTreeSet<String>,
    /// The one ticket `approve_refund` previews as a batch once the approver is named.
    single: Option<String>,
    /// The batch preview / confirmation / report overlay, when open.
    batch: Option<BatchOverlay>,
    gate_policy: Arc<GatePolicy>,
    /// The early fraud warnings queue, and whether it is shown instead of the tickets.
    fraud: fraud_view::FraudView,
    fraud_shown: bool,
}

fn empty_source() -> Arc<dyn TableSource> {
    Arc::new(RowsSource::<QueueRow>::new(Vec::new(), columns()))
}

impl RefundsPane {
    pub fn new(policy: Policy) -> Self {
        RefundsPane {
            policy,
            table: DataTable::new("Tickets", "No refund tickets loaded.", empty_source()),
            rows: Arc::new(Vec::new()),
            data: None,
            connected: None,
            pending: None,
            approval: None,
            executed: BTreeMap::new(),
            in_flight: BTreeSet::new(),
            marked: BTreeSet::new(),
            single: None,
            batch: None,
            gate_policy: Arc::new(GatePolicy::default()),
            fraud: fraud_view::FraudView::new(),
            fraud_shown: false,
        }
    }

    /// Whether the Fraud warnings view is shown (else the tickets).
    pub fn fraud_shown(&self) -> bool {
        self.fraud_shown
    }

    fn show(&mut self, rows: Vec<Assessment>, cx: &mut Cx<'_>) {
        self.rows = Arc::new(rows);
        self.rebuild(cx);
    }

    /// Gives the table the rows again, with the execution marks.
    fn rebuild(&mut self, cx: &mut Cx<'_>) {
        let rows: Vec<QueueRow> = self
            .rows
            .iter()
            .map(|a| QueueRow {
                mark: self
                    .executed
                    .get(&approval::ticket_key(a))
                    .map(approval::mark),
                marked: self.marked.contains(&approval::ticket_key(a)),
                a: a.clone(),
            })
            .collect();
        let source = RowsSource::new(rows, columns());
        self.table.set_source(Arc::new(source), cx);
        let marks = fraud_view::Marks {
            marked: &self.marked,
            executed: &self.executed,
        };
        self.fraud.remark(&marks, cx);
    }

    /// Opens the frozen refund preview for the selected ticket.
    fn open_approval(&mut self, cx: &mut Cx<'_>) {
        if self.gate_policy.approval.names_approvers() {
            return self.approve_one_named(cx);
        }
        let Some(a) = self.selected() else {
            cx.toast_error("no ticket selected");
            return;
        };
        let proposal = match approval::proposal_for(a) {
            Ok(p) => p,
            Err(why) => {
                cx.toast_error(why);
                return;
            }
        };
        if self.in_flight.contains(&proposal.ticket) {
            cx.toast_error(format!(
                "{} is being sent: wait for its outcome",
                proposal.ticket
            ));
            return;
        }
        let blocked = self.data.as_deref().and_then(approval::blocked_reason);
        let earlier = self
            .executed
            .get(&proposal.ticket)
            .map(|r| approval::outcome_text(r).0);
        let overlay = ApprovalOverlay::new(proposal, a.suggestion.recommendation, blocked, earlier);
        overlay.audit_opened(cx);
        self.approval = Some(overlay);
    }

    /// The gate's outcome for a refund this pane sent.
    fn refund_done(&mut self, req: RequestId, done: RefundDone, cx: &mut Cx<'_>) {
        let (text, role) = approval::outcome_text(&done.outcome);
        let text = format!("{}: {text}", done.ticket);
        if matches!(role, Role::Ok | Role::Pending) {
            cx.toast(text);
        } else {
            cx.toast_error(text);
        }
        if let Some(o) = &mut self.approval {
            o.answered(req, &done);
        }
        self.in_flight.remove(&done.ticket);
        self.executed.insert(done.ticket, done.outcome);
        self.rebuild(cx);
    }

    fn selected(&self) -> Option<&Assessment> {
        self.table.selected_row().and_then(|r| self.rows.get(r))
    }
}

/// The facts of the account read, with the connected account it was read from (where
/// its ids open in the Dashboard): what the pane decides and links over.
pub fn facts<'a>(data: &'a AccountData, connected: Option<&'a str>) -> Facts<'a> {
    Facts::of(data).connected(connected)
}

/// Decides every ticket (the job the pane runs off the UI task): the use case
/// `tieout suggest` runs too.
pub use crate::app::suggest::assess_all;

impl Pane for RefundsPane {
    fn title(&self) -> String {
        "Refunds".to_string()
    }

    fn reads(&self) -> Reads {
        use crate::model::Resource as R;
        // Every rule reads these; a suggestion without one of them could be wrong.
        Reads {
            needs: &[
                R::Customers,
                R::Charges,
                R::Refunds,
                R::Disputes,
                R::Subscriptions,
            ],
            partly: &[],
        }
    }

    fn on_data(&mut self, ws: &Workspace, cx: &mut Cx<'_>) -> bool {
        if let Some(old) = self.pending.take() {
            cx.cancel(old);
        }
        self.data = Some(ws.data.clone());
        self.connected = ws.connected.clone();
        self.gate_policy = ws.gate_policy.clone();
        if self
            .batch
            .as_ref()
            .is_some_and(|o| matches!(o.stage, batch::Stage::Preview { .. }))
            && let Some(o) = self.batch.take()
        {
            o.audit_closed(cx);
            cx.toast("batch preview closed: the account was reloaded; review it again");
        }
        // A preview not yet confirmed was built from the old data: review it again.
        if self
            .approval
            .as_ref()
            .is_some_and(|o| matches!(o.stage, approval::Stage::Preview { .. }))
        {
            if let Some(o) = self.approval.take() {
                o.audit_closed(cx);
            }
            cx.toast("refund preview closed: the account was reloaded; review it again");
        }
        let (now, tz) = (cx.now(), cx.tz().clone());
        let marks = fraud_view::Marks {
            marked: &self.marked,
            executed: &self.executed,
        };
        self.fraud.load(&ws.data, &self.policy, now, &marks, cx);
        // A small queue over a small account is decided at once, anything larger off the
        // UI task.
        if work(&ws.data, ws.tickets.len()) <= INLINE_WORK {
            let rows = assess_all(
                &ws.data,
                ws.connected.as_deref(),
                &ws.tickets,
                &self.policy,
                now,
                &tz,
            );
            self.show(rows, cx);
            return true;
        }
        let data = ws.data.clone();
        let connected = ws.connected.clone();
        let tickets = ws.tickets.clone();
        let policy = self.policy.clone();
        let job = Job::new("deciding refund tickets", move |_cancel| {
            assess_all(&data, connected.as_deref(), &tickets, &policy, now, &tz)
        });
        self.pending = Some(cx.compute(job));
        true
    }

    fn on_computed(&mut self, req: RequestId, output: JobOutput, cx: &mut Cx<'_>) {
        let output = match output.downcast::<RefundDone>() {
            Ok(done) => return self.refund_done(req, *done, cx),
            Err(other) => other,
        };
        let output = match output.downcast::<BatchDone>() {
            Ok(done) => return self.batch_done(req, *done, cx),
            Err(other) => other,
        };
        if self.pending != Some(req) {
            return;
        }
        self.pending = None;
        if let Ok(rows) = output.downcast::<Vec<Assessment>>() {
            self.show(*rows, cx);
        }
    }

    fn handle(&mut self, action: Action, cx: &mut Cx<'_>) -> Handled {
        // The overlay is modal: actions (mouse, scripts) do not reach the queue under it.
        if self.approval.is_some() || self.batch.is_some() {
            if action == Action::Back {
                if let Some(o) = self.approval.take() {
                    o.audit_closed(cx);
                }
                if let Some(o) = self.batch.take() {
                    o.audit_closed(cx);
                }
            }
            return Handled::Yes;
        }
        if action == Action::FraudView {
            self.fraud_shown = !self.fraud_shown;
            return Handled::Yes;
        }
        if self.fraud_shown {
            return match action {
                Action::CopyRow => {
                    match self.fraud.paste_text() {
                        Some(text) => cx.copy(text),
                        None => cx.toast_error("nothing to copy"),
                    }
                    Handled::Yes
                }
                Action::ToggleMark => {
                    self.toggle_mark_warning(cx);
                    Handled::Yes
                }
                Action::ApproveMarked => {
                    self.approve_marked(cx);
                    Handled::Yes
                }
                Action::ApproveRefund | Action::Open => Handled::Yes,
                _ => Handled::No,
            };
        }
        match action {
            Action::ApproveRefund => {
                self.open_approval(cx);
                Handled::Yes
            }
            Action::ToggleMark => {
                self.toggle_mark(cx);
                Handled::Yes
            }
            Action::ApproveMarked => {
                self.approve_marked(cx);
                Handled::Yes
            }
            Action::Open => {
                let (Some(a), Some(data)) = (self.selected(), &self.data) else {
                    return Handled::Yes;
                };
                let links = facts(data, self.connected.as_deref()).dashboard();
                cx.push(Box::new(TrailScreen::new(a, data.clone(), links)));
                Handled::Yes
            }
            Action::CopyRow => {
                match self.selected() {
                    Some(a) => cx.copy(paste_text(a)),
                    None => cx.toast_error("nothing to copy"),
                }
                Handled::Yes
            }
            _ => Handled::No,
        }
    }

    fn reveal(&mut self, place: &crate::tui::pane::Place, cx: &mut Cx<'_>) -> Reveal {
        self.reveal_place(place, cx)
    }

    fn place(&self) -> Option<crate::tui::pane::Place> {
        let ticket = self.selected()?.ticket.ticket_id.clone()?;
        Some(crate::tui::pane::Place::Ticket { ticket })
    }

    fn table(&self) -> Option<&DataTable> {
        Some(if self.fraud_shown {
            &self.fraud.table
        } else {
            &self.table
        })
    }

    fn table_mut(&mut self) -> Option<&mut DataTable> {
        Some(if self.fraud_shown {
            &mut self.fraud.table
        } else {
            &mut self.table
        })
    }

    fn render(&mut self, area: Rect, buf: &mut Buffer, cx: &ViewCx<'_>) {
        if self.fraud_shown && self.approval.is_none() {
            self.fraud.render(area, buf, cx);
            if let Some(o) = &self.batch {
                o.render(area, buf, cx);
            }
            return;
        }
        // The queue gets what the selected ticket's details leave over (all of it when
        // the tickets fit).
        let detail_min: u16 = if area.height >= 30 { 16 } else { 13 };
        let wanted = u16::try_from(self.rows.len().saturating_add(3)).unwrap_or(u16::MAX);
        let table_h = wanted
            .min(area.height.saturating_sub(detail_min))
            .max(5)
            .min(area.height);
        let [top, bottom] =
            Layout::vertical([Constraint::Length(table_h), Constraint::Min(0)]).areas(area);
        self.table.render(top, buf, cx);
        let block = Block::bordered().border_style(cx.theme.style(Role::Border));
        let Some(a) = self.selected() else {
            let text = if self.pending.is_some() {
                "Deciding the tickets…"
            } else {
                "Select a ticket to see its charge, refunds, disputes and the reason."
            };
            Paragraph::new(Span::styled(text, cx.theme.style(Role::Muted)))
                .block(block.title(Span::styled(" Ticket ", cx.theme.style(Role::Title))))
                .render(bottom, buf);
            return;
        };
        let title = detail_title(a, cx);
        let inner_w = usize::from(bottom.width.saturating_sub(2));
        let mut lines = detail_lines(a, cx, inner_w);
        if let Some(result) = self.executed.get(&approval::ticket_key(a)) {
            let (text, role) = approval::outcome_text(result);
            push_field(&mut lines, "Refund", &text, inner_w, cx, role);
        }
        Paragraph::new(lines)
            .block(block.title(title))
            .render(bottom, buf);
        if let Some(o) = &self.approval {
            o.render(area, buf, cx);
        }
        if let Some(o) = &self.batch {
            o.render(area, buf, cx);
        }
    }

    fn hints(&self) -> Vec<Action> {
        if self.approval.is_some() || self.batch.is_some() {
            return vec![Action::Cancel];
        }
        if self.fraud_shown {
            return vec![
                Action::FraudView,
                Action::ToggleMark,
                Action::ApproveMarked,
                Action::CopyRow,
                Action::Filter,
            ];
        }
        if !self.marked.is_empty() {
            return vec![
                Action::ToggleMark,
                Action::ApproveMarked,
                Action::Open,
                Action::Filter,
            ];
        }
        vec![
            Action::Open,
            Action::ApproveRefund,
            Action::FraudView,
            Action::CopyRow,
            Action::Filter,
            Action::Sort,
        ]
    }

    fn key_mode(&self) -> Option<&'static str> {
        (self.approval.is_some() || self.batch.is_some()).then_some(keymap::CONFIRM)
    }

    fn on_prompt(&mut self, kind: PromptKind, text: &str, cx: &mut Cx<'_>) {
        if kind == PromptKind::Approver {
            self.open_batch(Some(text), cx);
        }
    }

    fn input(&mut self, input: Input, cx: &mut Cx<'_>) {
        if let Some(o) = &mut self.batch {
            if o.input(input, cx) == KeyOutcome::Close {
                o.audit_closed(cx);
                self.batch = None;
            }
            return;
        }
        let Some(o) = &mut self.approval else {
            return;
        };
        let closed = o.input(input, cx) == KeyOutcome::Close;
        if matches!(o.stage, approval::Stage::Sending { .. }) {
            self.in_flight.insert(o.proposal.ticket.clone());
        }
        if closed {
            o.audit_closed(cx);
            self.approval = None;
        }
    }
}

#[cfg(test)]
mod fraud_view_tests;
#[cfg(test)]
mod tests;
