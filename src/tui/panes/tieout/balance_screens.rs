//! The Balance view's drill-down: one currency's month by reporting category (the rows of
//! `balance-activity.csv`: count, gross, fee, net, as `report::balance::ACTIVITY_FIELDS`
//! declares them), with "all lines" last; Enter on a category lists its balance
//! transactions in the payouts view's [`LinesScreen`] (and a line there opens its source,
//! as everywhere in the tab).
//!
//! A screen is a snapshot of what was opened: a refresh of the account closes it.

use std::sync::Arc;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::LinesScreen;
use super::balance::{amount_cell, grouped};
use super::screens::ALL_LINES;
use crate::domain::balance::{ActivityRow, Rollforward};
use crate::domain::tieout::category;
use crate::model::AccountData;
use crate::model::rows::BalanceTxnRow;
use crate::report::balance::{ACTIVITY_FIELDS, BalanceReport};
use crate::report::fields;
use crate::time::Month;
use crate::tui::action::Action;
use crate::tui::pane::{Cx, Handled, Pane, ViewCx};
use crate::tui::theme::Role;
use crate::tui::widgets::facts::{facts_width, render_facts_over_table, wrapped_height};
use crate::tui::widgets::table::{Cell, ColumnDef, DataTable, RowsSource, cell_of, col};
use crate::tui::workspace::Workspace;

/// The category table's columns: a field of `report::balance::ACTIVITY_FIELDS` and the
/// most it is drawn wide (the view's own "What it is" follows them).
pub(super) const ACTIVITY_SHOWN: &[(&str, u16)] = &[
    ("reporting_category", 30),
    ("count", 6),
    ("gross", 18),
    ("fee", 16),
    ("net", 18),
];

/// One currency's month by reporting category.
pub struct ActivityScreen {
    figures: Rollforward,
    month: Month,
    /// The categories, then "all lines".
    rows: Vec<ActivityRow>,
    data: Arc<AccountData>,
    table: DataTable,
}

impl ActivityScreen {
    pub fn new(figures: &Rollforward, report: &BalanceReport, data: Arc<AccountData>) -> Self {
        let c = figures.currency;
        let mut rows: Vec<ActivityRow> = report
            .activity
            .iter()
            .filter(|a| a.currency == c)
            .cloned()
            .collect();
        if !rows.is_empty() {
            let mut all = ActivityRow {
                currency: c,
                reporting_category: ALL_LINES.to_string(),
                count: 0,
                gross: 0,
                fee: 0,
                net: 0,
            };
            for r in &rows {
                all.count += r.count;
                all.gross += r.gross;
                all.fee += r.fee;
                all.net += r.net;
            }
            rows.push(all);
        }
        let mut columns: Vec<ColumnDef<ActivityRow>> = ACTIVITY_SHOWN
            .iter()
            .filter_map(|&(name, width)| {
                let field = fields::field(ACTIVITY_FIELDS, name)?;
                let get = match name {
                    "gross" => cell_of(|r: &ActivityRow| amount_cell(r.gross, r.currency)),
                    "fee" => cell_of(|r: &ActivityRow| amount_cell(r.fee, r.currency)),
                    "net" => cell_of(|r: &ActivityRow| amount_cell(r.net, r.currency)),
                    _ => cell_of(move |r: &ActivityRow| {
                        crate::tui::widgets::table::field_cell(field, r)
                    }),
                };
                Some(ColumnDef {
                    title: field.pane_title(),
                    max_width: width,
                    get,
                })
            })
            .collect();
        columns.push(col("What it is", 48, |r: &ActivityRow| {
            Cell::opt(category::describe(&r.reporting_category))
        }));
        let source = RowsSource::new(rows.clone(), columns)
            .with_row_role(|r| (r.reporting_category == ALL_LINES).then_some(Role::Title));
        let table = DataTable::new(
            format!("{} {} by reporting category", c.upper(), report.month),
            format!(
                "No {} line was created in {}.",
                c.upper(),
                report.month.title()
            ),
            Arc::new(source),
        );
        ActivityScreen {
            figures: figures.clone(),
            month: report.month,
            rows,
            data,
            table,
        }
    }

    fn facts(&self, cx: &ViewCx<'_>) -> Vec<Line<'static>> {
        let theme = cx.theme;
        let f = &self.figures;
        let c = f.currency;
        let g = |v: i128| grouped(v, c);
        let mut lines = vec![Line::from(vec![
            Span::styled(
                format!("{} {} ", c.upper(), self.month.title()),
                theme.style(Role::Title),
            ),
            Span::styled(
                format!(
                    "opening {} + activity {} + payouts {} = closing {} {c}",
                    g(f.opening),
                    g(f.activity),
                    g(f.payouts),
                    g(f.closing)
                ),
                theme.style(Role::Text),
            ),
        ])];
        let n = self.rows.last().map_or(0, |r| r.count);
        lines.push(Line::styled(
            format!(
                "{n} lines created in the month, by reporting category: their net, {} {c}, is \
the month's change in the balance",
                g(f.activity + f.payouts)
            ),
            theme.style(Role::Muted),
        ));
        lines
    }

    /// Enter: the selected category's lines of the month (every line for "all lines").
    fn open(&mut self, cx: &mut Cx<'_>) {
        let Some(row) = self.table.selected_row().and_then(|i| self.rows.get(i)) else {
            return;
        };
        let c = self.figures.currency;
        let (start, end) = self.month.range(cx.tz());
        let all = row.reporting_category == ALL_LINES;
        let lines: Vec<BalanceTxnRow> = self
            .data
            .balance_transactions
            .iter()
            .filter(|l| l.currency == c && l.created >= start && l.created < end)
            .filter(|l| all || l.reporting_category.as_str() == row.reporting_category)
            .cloned()
            .collect();
        let title = format!("{} {} › {}", c.upper(), self.month, row.reporting_category);
        cx.push(Box::new(LinesScreen::new(
            title,
            lines,
            Vec::new(),
            c,
            Arc::clone(&self.data),
        )));
    }
}

impl Pane for ActivityScreen {
    fn title(&self) -> String {
        format!("Balance {} {}", self.figures.currency.upper(), self.month)
    }

    fn on_data(&mut self, _ws: &Workspace, _cx: &mut Cx<'_>) -> bool {
        false
    }

    fn handle(&mut self, action: Action, cx: &mut Cx<'_>) -> Handled {
        match action {
            Action::Open => {
                self.open(cx);
                Handled::Yes
            }
            _ => Handled::No,
        }
    }

    fn table(&self) -> Option<&DataTable> {
        Some(&self.table)
    }

    fn table_mut(&mut self) -> Option<&mut DataTable> {
        Some(&mut self.table)
    }

    fn render(&mut self, area: Rect, buf: &mut Buffer, cx: &ViewCx<'_>) {
        let lines = self.facts(cx);
        let want = wrapped_height(&lines, facts_width(area));
        let h = want.min(area.height / 2);
        render_facts_over_table(lines, h, &mut self.table, area, buf, cx);
    }

    fn hints(&self) -> Vec<Action> {
        vec![Action::Open, Action::Back, Action::Sort, Action::CopyCell]
    }
}
