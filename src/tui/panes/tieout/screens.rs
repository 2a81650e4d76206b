//! The Tie-out drill-down: a payout (its facts, notes and lines by category), the lines of
//! one category (or all), and one balance transaction with its source object (charge,
//! refund, dispute or payout) showing the fields a bookkeeper checks.
//!
//! Screens are snapshots of what was opened: a refresh of the account closes them.

use std::sync::Arc;

use jiff::tz::TimeZone;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::txn_fields::txn_fields;
use super::verdict_cell;
use crate::domain::tieout::{CategorySubtotal, PayoutTieOut, Problem, category, status_label};
use crate::model::AccountData;
use crate::model::rows::BalanceTxnRow;
use crate::money::{Currency, Money, format_major_grouped};
use crate::tui::action::Action;
use crate::tui::pane::{Cx, Handled, Pane, Place, ViewCx};
use crate::tui::panes::detail::RowDetail;
use crate::tui::theme::Role;
use crate::tui::widgets::facts::{facts_width, render_facts_over_table, wrapped_height};
use crate::tui::widgets::table::{Cell, DataTable, RowsSource, col};
use crate::tui::workspace::Workspace;

/// What shows "all lines" in the category tables (a payout's, a currency's month).
pub(super) const ALL_LINES: &str = "all lines";

pub(super) fn money(minor: i64, c: Currency) -> String {
    format!("{} {c}", format_major_grouped(minor, c))
}

pub(super) fn datetime(ts: i64, tz: &TimeZone) -> String {
    jiff::Timestamp::from_second(ts)
        .map(|t| {
            t.to_zoned(tz.clone())
                .strftime("%Y-%m-%d %H:%M %Z")
                .to_string()
        })
        .unwrap_or_default()
}

/// One row of the category table.
#[derive(Debug, Clone)]
struct CatRow {
    sub: CategorySubtotal,
    currency: Currency,
}

/// A payout: facts and notes above its lines grouped by category.
pub struct PayoutScreen {
    payout: PayoutTieOut<'static>,
    data: Arc<AccountData>,
    table: DataTable,
}

impl PayoutScreen {
    pub fn new(payout: PayoutTieOut<'static>, data: Arc<AccountData>) -> Self {
        let cur = payout.currency();
        let mut rows: Vec<CatRow> = Vec::new();
        let empty = match &payout.itemisation {
            Some(it) => {
                rows = it
                    .by_category
                    .iter()
                    .map(|s| CatRow {
                        sub: s.clone(),
                        currency: cur,
                    })
                    .collect();
                if !it.lines.is_empty() {
                    rows.push(CatRow {
                        sub: CategorySubtotal {
                            reporting_category: ALL_LINES.into(),
                            count: it.by_category.iter().map(|c| c.count).sum(),
                            gross: it.lines_gross,
                            fee: it.lines_fee,
                            net: it.lines_net,
                        },
                        currency: cur,
                    });
                }
                "No lines were listed for this payout."
            }
            None => "No lines: Stripe does not itemise this payout (see the note above).",
        };
        let source = RowsSource::new(
            rows,
            vec![
                col("Category", 32, |r: &CatRow| {
                    Cell::text(&r.sub.reporting_category)
                }),
                col("Lines", 6, |r| Cell::Int(r.sub.count as i64)),
                col("Gross", 18, |r| {
                    Cell::Money(Money::new(r.sub.gross, r.currency))
                }),
                col("Fees", 16, |r| {
                    Cell::Money(Money::new(r.sub.fee, r.currency))
                }),
                col("Net", 18, |r| {
                    Cell::Money(Money::new(r.sub.net, r.currency))
                }),
                col("What it is", 48, |r| {
                    Cell::opt(category::describe(&r.sub.reporting_category))
                }),
            ],
        )
        .with_row_role(|r| (r.sub.reporting_category == ALL_LINES).then_some(Role::Title));
        let table = DataTable::new(
            format!("{} by category", payout.payout.id),
            empty,
            Arc::new(source),
        );
        PayoutScreen {
            payout,
            data,
            table,
        }
    }

    fn facts(&self, cx: &ViewCx<'_>) -> Vec<Line<'static>> {
        let theme = cx.theme;
        let p = &self.payout;
        let cur = p.currency();
        let mark = verdict_cell(p.verdict);
        let (mark_text, mark_role) = match &mark {
            Cell::Tag(t, r) => (t.to_string(), *r),
            _ => (String::new(), Role::Text),
        };
        let mut lines = vec![Line::from(vec![
            Span::styled(format!("{} ", p.payout.id), theme.style(Role::Title)),
            Span::styled(mark_text, theme.style(mark_role)),
            Span::styled(
                format!(
                    "  {} · {} payout · arrives {}",
                    status_label(&p.payout.status),
                    p.kind.as_str(),
                    crate::time::date_in(p.payout.arrival_date, cx.tz)
                ),
                theme.style(Role::Text),
            ),
        ])];
        let mut second = vec![Span::styled(
            format!("Amount {}", money(p.payout.amount, cur)),
            theme.style(Role::Text),
        )];
        if let Some(it) = &p.itemisation {
            second.push(Span::styled(
                format!(
                    " · lines' net {} ({} lines)",
                    money(it.lines_net, cur),
                    it.lines.len()
                ),
                theme.style(Role::Text),
            ));
            if it.difference != 0 {
                second.push(Span::styled(
                    format!(" · difference {}", money(it.difference, cur)),
                    theme.style(Role::Difference),
                ));
            }
            if let Some(own) = &it.own {
                second.push(Span::styled(
                    format!(" · own transaction {}", own.id),
                    theme.style(Role::Muted),
                ));
            }
        }
        lines.push(Line::from(second));
        if !p.notes.is_empty() {
            lines.push(Line::styled(p.note(), theme.style(Role::Muted)));
        }
        lines
    }

    fn open(&mut self, cx: &mut Cx<'_>) {
        if let Some(screen) = self.lines_screen() {
            cx.push(Box::new(screen));
        }
    }

    /// The lines of the selected category (or all of them, on the last row).
    fn lines_screen(&self) -> Option<LinesScreen> {
        let it = self.payout.itemisation.as_ref()?;
        let row = self.table.selected_row()?;
        let cats: Vec<&str> = it
            .by_category
            .iter()
            .map(|c| c.reporting_category.as_str())
            .collect();
        let chosen = cats.get(row).copied();
        let lines: Vec<BalanceTxnRow> = match chosen {
            Some(cat) => it.lines_in(cat).cloned().collect(),
            None => it.lines.to_vec(),
        };
        let title = format!(
            "{} › {}",
            self.payout.payout.id,
            chosen.unwrap_or(ALL_LINES)
        );
        Some(LinesScreen::new(
            title,
            lines,
            it.problems.clone(),
            self.payout.currency(),
            Arc::clone(&self.data),
        ))
    }

    /// A jump to `category` (the last row for all lines): selected here, and with a
    /// line `txn`, its lines with `txn` selected (`None` when there is no such line).
    pub fn reveal_line(&mut self, category: &str, txn: Option<&str>) -> Option<LinesScreen> {
        let it = self.payout.itemisation.as_ref()?;
        let row = match (it.by_category.iter()).position(|c| c.reporting_category == category) {
            Some(row) => row,
            None if category == ALL_LINES => it.by_category.len(),
            None => return None,
        };
        self.table.select_source_row(row);
        let mut lines = self.lines_screen()?;
        let at = lines.lines.iter().position(|l| Some(&*l.id) == txn)?;
        lines.table.select_source_row(at);
        Some(lines)
    }

    /// The category selected here (`all lines` on the last row).
    fn selected_category(&self) -> Option<String> {
        let it = self.payout.itemisation.as_ref()?;
        let row = self.table.selected_row()?;
        Some(match it.by_category.get(row) {
            Some(c) => c.reporting_category.to_string(),
            None => ALL_LINES.to_string(),
        })
    }
}

impl Pane for PayoutScreen {
    fn title(&self) -> String {
        format!("Payout {}", self.payout.payout.id)
    }

    fn place(&self) -> Option<Place> {
        Some(Place::PayoutCategory {
            payout: self.payout.payout.id.clone(),
            arrival: self.payout.payout.arrival_date,
            category: self.selected_category()?,
        })
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
        vec![Action::Open, Action::Back, Action::CopyCell]
    }
}

/// One line with what its checks said.
#[derive(Debug, Clone)]
struct LineRow {
    txn: BalanceTxnRow,
    check: Option<String>,
}

/// The lines of one category of a payout (or all of them).
pub struct LinesScreen {
    title: String,
    lines: Vec<BalanceTxnRow>,
    data: Arc<AccountData>,
    table: DataTable,
}

impl LinesScreen {
    pub fn new(
        title: String,
        lines: Vec<BalanceTxnRow>,
        problems: Vec<Problem>,
        payout_currency: Currency,
        data: Arc<AccountData>,
    ) -> Self {
        let rows: Vec<LineRow> = lines
            .iter()
            .cloned()
            .map(|txn| {
                let mut checks = Vec::new();
                for p in &problems {
                    match p {
                        Problem::LineArithmetic { txn: id, .. } if *id == txn.id => {
                            checks.push("net ≠ gross − fee")
                        }
                        Problem::ForeignCurrency { txn: id, .. } if *id == txn.id => {
                            checks.push("not the payout's currency")
                        }
                        _ => {}
                    }
                }
                if txn.currency != payout_currency && checks.is_empty() {
                    checks.push("not the payout's currency");
                }
                LineRow {
                    txn,
                    check: (!checks.is_empty()).then(|| checks.join(", ")),
                }
            })
            .collect();
        let source = RowsSource::new(
            rows,
            vec![
                col("Balance transaction", 30, |r: &LineRow| {
                    Cell::text(&r.txn.id)
                }),
                col("Net", 18, |r| {
                    Cell::Money(Money::new(r.txn.net, r.txn.currency))
                }),
                col("Gross", 18, |r| {
                    Cell::Money(Money::new(r.txn.amount, r.txn.currency))
                }),
                col("Fee", 14, |r| {
                    Cell::Money(Money::new(r.txn.fee, r.txn.currency))
                }),
                col("Check", 26, |r| match &r.check {
                    Some(c) => Cell::Tag(c.as_str().into(), Role::Difference),
                    None => Cell::Tag("✓".into(), Role::Matched),
                }),
                col("Type", 22, |r| Cell::text(&r.txn.kind)),
                col("Category", 22, |r| Cell::text(&r.txn.reporting_category)),
                col("Created", 17, |r| Cell::DateTime(Some(r.txn.created))),
                col("Source", 30, |r| Cell::opt(r.txn.source.as_deref())),
                col("Available", 11, |r| Cell::Date(Some(r.txn.available_on))),
                col("Description", 60, |r| {
                    Cell::opt(r.txn.description.as_deref())
                }),
            ],
        )
        .with_row_role(|r| r.check.is_some().then_some(Role::Difference));
        LinesScreen {
            table: DataTable::new(title.clone(), "No lines.", Arc::new(source)),
            title,
            lines,
            data,
        }
    }
}

impl Pane for LinesScreen {
    fn title(&self) -> String {
        self.title
            .rsplit(" › ")
            .next()
            .unwrap_or(&self.title)
            .to_string()
    }

    fn place(&self) -> Option<Place> {
        let (payout, category) = self.title.split_once(" › ")?;
        let p = self.data.payouts.iter().find(|p| p.id == payout)?;
        let txn = self.lines.get(self.table.selected_row()?)?;
        Some(Place::PayoutLine {
            payout: p.id.clone(),
            arrival: p.arrival_date,
            category: category.to_string(),
            txn: txn.id.to_string(),
        })
    }

    fn on_data(&mut self, _ws: &Workspace, _cx: &mut Cx<'_>) -> bool {
        false
    }

    fn handle(&mut self, action: Action, cx: &mut Cx<'_>) -> Handled {
        if action != Action::Open {
            return Handled::No;
        }
        if let Some(txn) = self.table.selected_row().and_then(|r| self.lines.get(r)) {
            let fields = txn_fields(txn, &self.data, cx.tz());
            cx.push(Box::new(RowDetail::new(txn.id.to_string(), fields)));
        }
        Handled::Yes
    }

    fn table(&self) -> Option<&DataTable> {
        Some(&self.table)
    }

    fn table_mut(&mut self) -> Option<&mut DataTable> {
        Some(&mut self.table)
    }

    fn hints(&self) -> Vec<Action> {
        vec![
            Action::Open,
            Action::Back,
            Action::Sort,
            Action::Filter,
            Action::CopyCell,
        ]
    }
}
