//! The bank leg in the Tie-out tab: the summary line counting each bank status, and the
//! drill-down from a payout to the bank line(s) it matched or, for a review, the ranked
//! candidates with why each was offered. `open` on the Bank column opens it.
//!
//! Matching is [`crate::bank::match_month`], the code behind `tieout reconcile --bank`
//! and the close packet; the pane runs it with the tie-out (as a job when large).

use std::sync::Arc;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::columns::bank_role;
use crate::bank::{BankLine, BankMatch, BankStatus, PayoutMatch};
use crate::money::{Money, format_major_grouped};
use crate::tui::action::Action;
use crate::tui::pane::{Cx, Handled, Pane, ViewCx};
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::facts::{facts_width, render_facts_over_table, wrapped_height};
use crate::tui::widgets::table::{Cell, DataTable, RowsSource, col};
use crate::tui::workspace::Workspace;

/// The title of the table column that opens the bank drill-down.
pub const BANK_COLUMN: &str = "Bank";

/// "Bank: 40 matched · 1 pending · 0 missing · 1 review" (the four always, the others when
/// they occur), then the Stripe-looking lines no payout took.
pub fn summary(m: &BankMatch, theme: &Theme) -> Line<'static> {
    let mut spans = vec![Span::styled("Bank: ", theme.style(Role::Title))];
    let always = [
        BankStatus::Matched,
        BankStatus::Pending,
        BankStatus::Missing,
        BankStatus::Review,
    ];
    let mut first = true;
    for (status, n) in m.counts() {
        if n == 0 && !always.contains(&status) {
            continue;
        }
        if !first {
            spans.push(Span::styled(" · ", theme.style(Role::Muted)));
        }
        first = false;
        let role = if n == 0 {
            Role::Muted
        } else {
            bank_role(status)
        };
        spans.push(Span::styled(
            format!("{n} {}", status.as_str()),
            theme.style(role),
        ));
    }
    if !m.unmatched_stripe.is_empty() {
        spans.push(Span::styled(
            format!(
                " · {} Stripe-looking line{} unmatched",
                m.unmatched_stripe.len(),
                if m.unmatched_stripe.len() == 1 {
                    ""
                } else {
                    "s"
                }
            ),
            theme.style(Role::Difference),
        ));
    }
    if !m.duplicates.is_empty() {
        spans.push(Span::styled(
            format!(
                " · {} line{} given twice",
                m.duplicates.len(),
                if m.duplicates.len() == 1 { "" } else { "s" }
            ),
            theme.style(Role::Difference),
        ));
    }
    spans.push(Span::styled(
        format!(" ({} statement lines)", m.lines_read),
        theme.style(Role::Muted),
    ));
    Line::from(spans)
}

/// One row of the drill-down: a matched line or a candidate.
#[derive(Debug, Clone)]
struct BankRow {
    kind: &'static str,
    line: BankLine,
    reason: String,
}

/// A payout's bank lines: what it matched, or the candidates a person decides between.
pub struct BankScreen {
    m: PayoutMatch,
    table: DataTable,
}

impl BankScreen {
    pub fn new(m: PayoutMatch) -> Self {
        let mut rows: Vec<BankRow> = m
            .lines
            .iter()
            .map(|l| BankRow {
                kind: "matched",
                line: l.clone(),
                reason: m.rule.map_or(String::new(), |r| r.as_str().to_string()),
            })
            .collect();
        rows.extend(m.candidates.iter().map(|c| BankRow {
            kind: "candidate",
            line: c.line.clone(),
            reason: c.reason.clone(),
        }));
        let source = RowsSource::new(
            rows,
            vec![
                col("", 10, |r: &BankRow| {
                    Cell::Tag(
                        r.kind.into(),
                        if r.kind == "matched" {
                            Role::Matched
                        } else {
                            Role::Pending
                        },
                    )
                }),
                col("Date", 11, |r| Cell::owned(r.line.date.to_string())),
                col("Amount", 18, |r| {
                    Cell::Money(Money::new(r.line.amount, r.line.currency))
                }),
                col("Text", 48, |r| Cell::owned(r.line.text())),
                col("Line", 28, |r| Cell::owned(r.line.line_id())),
                col("Rule or reason", 60, |r| Cell::text(&r.reason)),
            ],
        );
        let empty = match m.status {
            BankStatus::Pending => "No deposit yet: the arrival window has not closed.",
            BankStatus::Missing => "No deposit and no bank line near it.",
            BankStatus::NoStatement => "No statement given covers this currency.",
            _ => "No bank line for this payout.",
        };
        let table = DataTable::new(format!("{} › bank", m.payout.id), empty, Arc::new(source));
        BankScreen { m, table }
    }

    fn facts(&self, cx: &ViewCx<'_>) -> Vec<Line<'static>> {
        let theme = cx.theme;
        let p = &self.m.payout;
        let mut first = vec![
            Span::styled(format!("{} ", p.id), theme.style(Role::Title)),
            Span::styled(
                self.m.status.as_str().to_string(),
                theme.style(bank_role(self.m.status)),
            ),
            Span::styled(
                format!(
                    "  {} {} · arrives {}",
                    format_major_grouped(p.amount, p.currency),
                    p.currency,
                    p.arrival
                ),
                theme.style(Role::Text),
            ),
        ];
        if let Some(d) = self.m.days_offset() {
            first.push(Span::styled(
                format!(" · booked {d:+} days"),
                theme.style(Role::Muted),
            ));
        }
        let mut lines = vec![Line::from(first)];
        if let Some(t) = &p.trace_id {
            lines.push(Line::styled(
                format!("trace id {t}"),
                theme.style(Role::Muted),
            ));
        }
        lines.push(Line::styled(
            format!("{} — {}", self.m.note, self.m.status.meaning()),
            theme.style(Role::Text),
        ));
        lines
    }
}

impl Pane for BankScreen {
    fn title(&self) -> String {
        format!("{} › bank", self.m.payout.id)
    }

    fn on_data(&mut self, _ws: &Workspace, _cx: &mut Cx<'_>) -> bool {
        false
    }

    fn handle(&mut self, _action: Action, _cx: &mut Cx<'_>) -> Handled {
        Handled::No
    }

    fn table(&self) -> Option<&DataTable> {
        Some(&self.table)
    }

    fn table_mut(&mut self) -> Option<&mut DataTable> {
        Some(&mut self.table)
    }

    fn render(&mut self, area: Rect, buf: &mut Buffer, cx: &ViewCx<'_>) {
        let lines = self.facts(cx);
        // Counted as wrapped (a long line takes more than one row), plus a blank row.
        let h = wrapped_height(&lines, facts_width(area)).saturating_add(1);
        render_facts_over_table(lines, h, &mut self.table, area, buf, cx);
    }

    fn hints(&self) -> Vec<Action> {
        vec![Action::Back, Action::CopyCell, Action::CopyRow]
    }
}
