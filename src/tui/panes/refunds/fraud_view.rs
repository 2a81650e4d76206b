//! The Refunds tab's Fraud warnings view (`w`, `fraud_view`, beside the tickets): the early
//! fraud warnings whose charge is neither fully refunded nor disputed, oldest first, each
//! with its recommendation under the policy's `[fraud_warnings]` section, and below the
//! queue the selected warning in full: what refunding now and waiting cost, the rule and the
//! reason (README.md, "Fraud warnings"). Computed when the account (re)loads, like the
//! tickets; the same queue `tieout suggest --fraud-warnings` writes.

use std::sync::Arc;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

use super::detail::push_field;
use crate::domain::fraud_warnings::{self, Queue, QueuedWarning, Recommendation};
use crate::domain::refunds::Policy;
use crate::model::AccountData;
use crate::money::Money;
use crate::report::fraud_warnings::{read_note, refund_cost_text, wait_cost_text};
use crate::tui::pane::{Cx, ViewCx};
use crate::tui::theme::Role;
use crate::tui::widgets::table::{Cell, ColumnDef, DataTable, RowsSource, cell_of, col};

/// The view's queue and its table.
pub struct FraudView {
    pub table: DataTable,
    queue: Arc<Queue>,
    /// Why the warnings are missing, when they were not read.
    note: Option<String>,
}

fn rec_cell(r: &QueuedWarning) -> Cell<'_> {
    let role = match r.recommendation {
        Recommendation::Refund => Role::Ok,
        Recommendation::Review => Role::Warning,
    };
    Cell::Tag(r.recommendation.as_str().into(), role)
}

fn columns() -> Vec<ColumnDef<QueuedWarning>> {
    vec![
        col("Warning", 14, |r| Cell::text(&r.warning_id)),
        ColumnDef {
            title: "Suggest",
            max_width: 8,
            get: cell_of(rec_cell),
        },
        col("Amount", 16, |r| {
            r.currency
                .map_or(Cell::Empty, |c| Cell::Money(Money::new(r.at_stake, c)))
        }),
        col("Age (d)", 7, |r| Cell::Int(r.age_days)),
        col("Fraud type", 26, |r| Cell::text(r.fraud_type.as_str())),
        col("Actionable", 10, |r| {
            Cell::text(if r.actionable { "yes" } else { "no" })
        }),
        col("Charge", 28, |r| Cell::opt(r.charge_id.as_deref())),
        col("Customer", 20, |r| Cell::opt(r.customer_id.as_deref())),
        col("Rule", 24, |r| Cell::text(&r.rule)),
    ]
}

impl FraudView {
    pub fn new() -> Self {
        FraudView {
            table: DataTable::new(
                "Fraud warnings",
                "No early fraud warning calls for a decision.",
                Arc::new(RowsSource::<QueuedWarning>::new(Vec::new(), columns())),
            ),
            queue: Arc::new(Queue::default()),
            note: None,
        }
    }

    /// Builds the queue of `data` at `now` under `policy`.
    pub fn load(&mut self, data: &AccountData, policy: &Policy, now: i64, cx: &mut Cx<'_>) {
        let q = fraud_warnings::queue(data, &policy.fraud_warnings, now);
        self.note = read_note(&data.meta);
        if let Some(note) = &self.note {
            self.table.set_empty_text(note.clone());
        }
        self.table.set_title(format!(
            "Fraud warnings ({} off the list: {} refunded, {} disputed)",
            q.refunded + q.disputed,
            q.refunded,
            q.disputed
        ));
        let source = RowsSource::new(q.rows.clone(), columns());
        self.queue = Arc::new(q);
        self.table.set_source(Arc::new(source), cx);
    }

    pub fn selected(&self) -> Option<&QueuedWarning> {
        self.table
            .selected_row()
            .and_then(|r| self.queue.rows.get(r))
    }

    /// The selected warning as text to paste into a note.
    pub fn paste_text(&self) -> Option<String> {
        let r = self.selected()?;
        Some(format!(
            "{}: {} ({})\n{}\nRefund now: {}\nWait: {}",
            r.warning_id,
            r.recommendation.as_str(),
            r.rule,
            r.reason,
            refund_cost_text(r),
            wait_cost_text(r)
        ))
    }

    pub fn render(&mut self, area: Rect, buf: &mut Buffer, cx: &ViewCx<'_>) {
        let detail_min: u16 = if area.height >= 30 { 12 } else { 9 };
        let wanted = u16::try_from(self.queue.rows.len().saturating_add(3)).unwrap_or(u16::MAX);
        let table_h = wanted
            .min(area.height.saturating_sub(detail_min))
            .max(5)
            .min(area.height);
        let [top, bottom] =
            Layout::vertical([Constraint::Length(table_h), Constraint::Min(0)]).areas(area);
        self.table.render(top, buf, cx);
        let block = Block::bordered().border_style(cx.theme.style(Role::Border));
        let Some(r) = self.selected() else {
            let text = self.note.clone().unwrap_or_else(|| {
                "Select a warning to see what refunding now and waiting cost.".to_string()
            });
            Paragraph::new(Span::styled(text, cx.theme.style(Role::Muted)))
                .block(block.title(Span::styled(" Warning ", cx.theme.style(Role::Title))))
                .render(bottom, buf);
            return;
        };
        let width = usize::from(bottom.width.saturating_sub(2));
        let mut lines: Vec<Line<'static>> = Vec::new();
        let role = match r.recommendation {
            Recommendation::Refund => Role::Ok,
            Recommendation::Review => Role::Warning,
        };
        push_field(
            &mut lines,
            "Refund",
            &refund_cost_text(r),
            width,
            cx,
            Role::Text,
        );
        push_field(
            &mut lines,
            "Wait",
            &wait_cost_text(r),
            width,
            cx,
            Role::Text,
        );
        push_field(
            &mut lines,
            "Suggest",
            &format!("{} ({})", r.recommendation.as_str(), r.rule),
            width,
            cx,
            role,
        );
        push_field(&mut lines, "Reason", &r.reason, width, cx, Role::Text);
        let title = Span::styled(
            format!(" {} · {} ", r.warning_id, r.fraud_type.as_str()),
            cx.theme.style(Role::Title),
        );
        Paragraph::new(lines)
            .block(block.title(title))
            .render(bottom, buf);
    }
}
