//! The Refunds tab's Fraud warnings view (`w`, `fraud_view`, beside the tickets): the early
//! fraud warnings whose charge is neither fully refunded nor disputed, oldest first, each
//! with its recommendation under the policy's `[fraud_warnings]` section, and below the
//! queue the selected warning in full: what refunding now and waiting cost, the rule and the
//! reason (README.md, "Fraud warnings"). Computed when the account (re)loads, like the
//! tickets; the same queue `tieout suggest --fraud-warnings` writes.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

use super::approval;
use super::detail::push_field;
use crate::app::refund_exec::Outcome;
use crate::domain::fraud_warnings::{self, Queue, QueuedWarning, Recommendation};
use crate::domain::refunds::Policy;
use crate::model::AccountData;
use crate::money::Money;
use crate::report::fraud_warnings::{read_note, refund_cost_text, wait_cost_text};
use crate::tui::pane::{Cx, ViewCx};
use crate::tui::theme::Role;
use crate::tui::widgets::table::{Cell, ColumnDef, DataTable, RowsSource, cell_of};

/// What the pane knows about its marks: the keys marked for a batch, and how each refund
/// tried ended (by ticket key or warning id).
pub struct Marks<'a> {
    pub marked: &'a BTreeSet<String>,
    pub executed: &'a BTreeMap<String, Result<Outcome, String>>,
}

/// The view's queue and its table.
pub struct FraudView {
    pub table: DataTable,
    queue: Arc<Queue>,
    /// Why the warnings are missing, when they were not read.
    note: Option<String>,
}

/// One row of the table: the warning, whether it is marked for a batch, and how its
/// refund ended when one was tried (`refunded`, `failed`, …).
#[derive(Clone)]
pub struct WarningRow {
    pub w: QueuedWarning,
    pub marked: bool,
    pub mark: Option<(&'static str, Role)>,
}

fn rec_cell(r: &WarningRow) -> Cell<'_> {
    let word = r.w.recommendation.as_str();
    match (r.mark, r.marked) {
        (Some((text, role)), _) => Cell::Tag(text.into(), role),
        (None, true) => Cell::Tag(format!("● {word}").into(), Role::Title),
        (None, false) => Cell::Tag(
            word.into(),
            match r.w.recommendation {
                Recommendation::Refund => Role::Ok,
                Recommendation::Review => Role::Warning,
            },
        ),
    }
}

fn wcol(
    title: &'static str,
    width: u16,
    get: fn(&QueuedWarning) -> Cell<'_>,
) -> ColumnDef<WarningRow> {
    ColumnDef {
        title,
        max_width: width,
        get: cell_of(move |r: &WarningRow| get(&r.w)),
    }
}

fn columns() -> Vec<ColumnDef<WarningRow>> {
    vec![
        wcol("Warning", 14, |r| Cell::text(&r.warning_id)),
        ColumnDef {
            title: "Suggest",
            max_width: 8,
            get: cell_of(rec_cell),
        },
        wcol("Amount", 16, |r| {
            r.currency
                .map_or(Cell::Empty, |c| Cell::Money(Money::new(r.at_stake, c)))
        }),
        wcol("Age (d)", 7, |r| Cell::Int(r.age_days)),
        wcol("Fraud type", 26, |r| Cell::text(r.fraud_type.as_str())),
        wcol("Actionable", 10, |r| {
            Cell::text(if r.actionable { "yes" } else { "no" })
        }),
        wcol("Charge", 28, |r| Cell::opt(r.charge_id.as_deref())),
        wcol("Customer", 20, |r| Cell::opt(r.customer_id.as_deref())),
        wcol("Rule", 24, |r| Cell::text(&r.rule)),
    ]
}

impl FraudView {
    pub fn new() -> Self {
        FraudView {
            table: DataTable::new(
                "Fraud warnings",
                "No early fraud warning calls for a decision.",
                Arc::new(RowsSource::<WarningRow>::new(Vec::new(), columns())),
            ),
            queue: Arc::new(Queue::default()),
            note: None,
        }
    }

    /// Builds the queue of `data` at `now` under `policy` (marks as `marks` says).
    pub fn load(
        &mut self,
        data: &AccountData,
        policy: &Policy,
        now: i64,
        marks: &Marks<'_>,
        cx: &mut Cx<'_>,
    ) {
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
        self.queue = Arc::new(q);
        self.remark(marks, cx);
    }

    /// Gives the table its rows again with the marks and refund outcomes of `marks`.
    pub fn remark(&mut self, marks: &Marks<'_>, cx: &mut Cx<'_>) {
        let rows: Vec<WarningRow> = (self.queue.rows.iter())
            .map(|w| WarningRow {
                marked: marks.marked.contains(&w.warning_id),
                mark: marks.executed.get(&w.warning_id).map(approval::mark),
                w: w.clone(),
            })
            .collect();
        self.table
            .set_source(Arc::new(RowsSource::new(rows, columns())), cx);
    }

    /// The queue as last built.
    pub fn queue(&self) -> &Queue {
        &self.queue
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
