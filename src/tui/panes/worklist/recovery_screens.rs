//! The Recovery view's drill-down: a cohort (its numbers above its invoices, each with how
//! it ended), then one invoice (how it ended above its payment attempts, oldest first).
//! Screens are snapshots of what was opened: a refresh of the account closes them.

use std::collections::{HashMap, HashSet};

use super::recovery::{shows_way, way_word};
use super::*;
use crate::domain::recovery::cohorts::{decline_label, percent};
use crate::domain::recovery::{Cohort, InvoiceRecovery, Outcome, RecoveryAttempt, Via};
use crate::model::AccountData;
use crate::report::fields;
use crate::report::recovery::INVOICE_FIELDS;
use crate::tui::widgets::facts::{facts_width, render_facts_over_table, wrapped_height};
use crate::tui::widgets::table::{ColumnDef, cell_of, field_col};

/// `1 invoice`, `3 invoices`.
fn invoices(n: usize) -> String {
    if n == 1 {
        "1 invoice".to_string()
    } else {
        format!("{n} invoices")
    }
}

fn amount(minor: i64, c: Currency) -> String {
    money(Money::new(minor, c))
}

/// How an invoice stands, as a coloured cell.
fn outcome_cell(o: Outcome) -> Cell<'static> {
    match o {
        Outcome::Recovered(_) => Cell::Tag("recovered".into(), Role::Matched),
        Outcome::WrittenOff => Cell::Tag("written off".into(), Role::Failed),
        Outcome::Voided => Cell::Tag("voided".into(), Role::Muted),
        Outcome::StillOpen => Cell::Tag("still open".into(), Role::Pending),
    }
}

/// An invoice of a cohort with the customer as people know them.
#[derive(Debug, Clone)]
struct InvoiceLine {
    inv: InvoiceRecovery,
    customer: String,
}

/// The customer's name, else email, else id, from the invoice's own copy.
fn customers(data: Option<&AccountData>, ids: &[&str]) -> HashMap<String, String> {
    let Some(d) = data else {
        return HashMap::new();
    };
    // A set: the account's invoices are many, a cohort's may be too.
    let ids: HashSet<&str> = ids.iter().copied().collect();
    d.invoices
        .iter()
        .filter(|i| ids.contains(i.id.as_str()))
        .filter_map(|i| {
            let who = i.customer_name.as_deref().or(i.customer_email.as_deref())?;
            Some((i.id.to_string(), who.to_string()))
        })
        .collect()
}

/// The invoice table's columns, in order: a field of the invoice row's one declaration
/// (`report::recovery::INVOICE_FIELDS`, the columns of `recovery-invoices.csv`) and the
/// most it is drawn wide; `customer` (the name, else the email) is the screen's own.
pub(super) const INVOICES_SHOWN: &[(&str, u16)] = &[
    ("invoice_id", 28),
    ("customer", 20),
    ("amount_due", 16),
    ("outcome", 11),
    ("recovered_via", 13),
    ("days_to_outcome", 5),
    ("first_failed_at_utc", 12),
    ("outcome_at_utc", 10),
    ("attempts", 8),
    ("first_decline_code", 22),
    ("customer_id", 20),
];

/// One cohort: its numbers above its invoices; Enter opens an invoice's attempts.
pub struct CohortScreen {
    cohort: Cohort,
    invoices: Vec<InvoiceLine>,
    table: DataTable,
}

impl CohortScreen {
    /// The cohort `c` of `all` (the picture's invoices): those whose first failure falls
    /// in its month, in its currency, with its first decline. `data` names the customers.
    pub fn new(c: &Cohort, all: &[InvoiceRecovery], data: Option<&AccountData>) -> Self {
        let label = decline_label(&c.decline);
        let mine: Vec<&InvoiceRecovery> = all
            .iter()
            .filter(|i| {
                i.cohort == c.month
                    && i.currency == c.currency
                    && decline_label(&i.first_failure.decline) == label
            })
            .collect();
        let ids: Vec<&str> = mine.iter().map(|i| i.invoice_id.as_str()).collect();
        let names = customers(data, &ids);
        let invoices: Vec<InvoiceLine> = mine
            .into_iter()
            .map(|i| InvoiceLine {
                customer: names
                    .get(&i.invoice_id)
                    .cloned()
                    .or_else(|| i.customer_id.clone())
                    .unwrap_or_default(),
                inv: i.clone(),
            })
            .collect();
        let columns = INVOICES_SHOWN
            .iter()
            .filter_map(|&(name, width)| {
                if name == "customer" {
                    return Some(ColumnDef {
                        title: "Customer",
                        max_width: width,
                        get: cell_of(|l: &InvoiceLine| Cell::text(&l.customer)),
                    });
                }
                let field = fields::field(INVOICE_FIELDS, name)?;
                Some(match name {
                    "outcome" => ColumnDef {
                        title: field.pane_title(),
                        max_width: width,
                        get: cell_of(|l: &InvoiceLine| outcome_cell(l.inv.outcome)),
                    },
                    "recovered_via" => ColumnDef {
                        title: field.pane_title(),
                        max_width: width,
                        get: cell_of(|l: &InvoiceLine| Cell::opt(l.inv.via().map(way_word))),
                    },
                    _ => field_col(*field, width, |l: &InvoiceLine| &l.inv),
                })
            })
            .collect();
        let source = RowsSource::new(invoices.clone(), columns);
        CohortScreen {
            cohort: c.clone(),
            invoices,
            table: DataTable::new(
                "Invoices of the cohort",
                "No invoice in this cohort.",
                Arc::new(source),
            ),
        }
    }

    fn facts(&self, cx: &ViewCx<'_>) -> Vec<Line<'static>> {
        let theme = cx.theme;
        let c = &self.cohort;
        let cur = c.currency;
        let rate = percent(c.recovered.count, c.failed.count)
            .map(|p| format!(" ({p}%)"))
            .unwrap_or_default();
        let median = c
            .median_days_to_recover
            .map(|m| format!(" · median {m} days to recover"))
            .unwrap_or_default();
        let ways: Vec<String> = Via::ALL
            .iter()
            .filter(|v| shows_way(**v, c.via(**v).count))
            .map(|v| format!("{} {}", way_word(*v), c.via(*v).count))
            .collect();
        vec![
            Line::from(vec![
                Span::styled(
                    format!("Failed first in {} ", c.month),
                    theme.style(Role::Title),
                ),
                Span::styled(
                    format!(
                        "· {} · first decline {}",
                        cur.upper(),
                        decline_label(&c.decline)
                    ),
                    theme.style(Role::Text),
                ),
            ]),
            Line::styled(
                format!(
                    "{} failed, {} · recovered {}{rate}, {}{median}",
                    invoices(c.failed.count),
                    amount(c.failed.amount, cur),
                    c.recovered.count,
                    amount(c.recovered.amount, cur),
                ),
                theme.style(Role::Text),
            ),
            Line::styled(
                format!(
                    "Recovered by {} · written off {} · voided {} · still open {}",
                    ways.join(", "),
                    c.written_off.count,
                    c.voided.count,
                    c.still_open.count
                ),
                theme.style(Role::Muted),
            ),
        ]
    }
}

impl Pane for CohortScreen {
    fn title(&self) -> String {
        format!(
            "Recovery {} {} {}",
            self.cohort.month,
            self.cohort.currency.upper(),
            decline_label(&self.cohort.decline)
        )
    }

    fn on_data(&mut self, _ws: &Workspace, _cx: &mut Cx<'_>) -> bool {
        false
    }

    fn handle(&mut self, action: Action, cx: &mut Cx<'_>) -> Handled {
        if action != Action::Open {
            return Handled::No;
        }
        if let Some(l) = self.table.selected_row().and_then(|r| self.invoices.get(r)) {
            cx.push(Box::new(AttemptsScreen::new(l, cx.tz())));
        }
        Handled::Yes
    }

    fn table(&self) -> Option<&DataTable> {
        Some(&self.table)
    }

    fn table_mut(&mut self) -> Option<&mut DataTable> {
        Some(&mut self.table)
    }

    fn render(&mut self, area: Rect, buf: &mut Buffer, cx: &ViewCx<'_>) {
        let lines = self.facts(cx);
        let h = wrapped_height(&lines, facts_width(area)).min(area.height / 2);
        render_facts_over_table(lines, h, &mut self.table, area, buf, cx);
    }

    fn hints(&self) -> Vec<Action> {
        vec![Action::Open, Action::Back, Action::Sort, Action::CopyCell]
    }
}

/// An attempt with the invoice's currency (attempts are made in it).
#[derive(Debug, Clone)]
struct AttemptLine {
    a: RecoveryAttempt,
    currency: Currency,
}

/// One invoice of a cohort: how it ended above its payment attempts, oldest first.
pub struct AttemptsScreen {
    line: InvoiceLine,
    /// How it ended, in words (with dates in the run's zone).
    ended: String,
    table: DataTable,
}

/// `recovered by a new payment method on 2026-10-15, 12 days after the first failure`.
fn ended_text(inv: &InvoiceRecovery, tz: &jiff::tz::TimeZone) -> String {
    let when = inv
        .outcome_at
        .map(|t| format!(" on {}", crate::time::date_in(t, tz)))
        .unwrap_or_default();
    let after = inv
        .days_to_outcome()
        .map(|d| format!(", {d} days after the first failure"))
        .unwrap_or_default();
    match inv.outcome {
        Outcome::Recovered(v) => format!("Recovered by {}{when}{after}", v.title()),
        Outcome::WrittenOff => format!("Written off{when}{after}"),
        Outcome::Voided => format!("Voided{when}{after}"),
        Outcome::StillOpen => "Still open".to_string(),
    }
}

impl AttemptsScreen {
    fn new(l: &InvoiceLine, tz: &jiff::tz::TimeZone) -> Self {
        let rows: Vec<AttemptLine> = l
            .inv
            .attempts
            .iter()
            .map(|a| AttemptLine {
                a: a.clone(),
                currency: l.inv.currency,
            })
            .collect();
        let source = RowsSource::new(
            rows,
            vec![
                col("When", 16, |r: &AttemptLine| Cell::DateTime(Some(r.a.at))),
                col("Status", 10, |r| {
                    let role = if r.a.failed {
                        Role::Failed
                    } else if r.a.status == "succeeded" {
                        Role::Matched
                    } else {
                        Role::Pending
                    };
                    Cell::Tag(r.a.status.as_str().into(), role)
                }),
                col("Amount", 16, |r| {
                    Cell::Money(Money::new(r.a.amount, r.currency))
                }),
                col("Decline", 26, |r| {
                    if r.a.failed {
                        Cell::owned(decline_label(&r.a.decline))
                    } else {
                        Cell::Empty
                    }
                }),
                col("Payment method", 28, |r| {
                    Cell::opt(r.a.payment_method.as_deref())
                }),
                col("Charge", 28, |r| Cell::opt(r.a.charge.as_deref())),
                col("Payment intent", 28, |r| {
                    Cell::opt(r.a.payment_intent.as_deref())
                }),
            ],
        );
        AttemptsScreen {
            ended: ended_text(&l.inv, tz),
            line: l.clone(),
            table: DataTable::new(
                "Payment attempts, oldest first",
                "No attempt was found in the data.",
                Arc::new(source),
            ),
        }
    }

    fn facts(&self, cx: &ViewCx<'_>) -> Vec<Line<'static>> {
        let theme = cx.theme;
        let inv = &self.line.inv;
        let mut who: Vec<&str> = [
            Some(self.line.customer.as_str()),
            inv.customer_id.as_deref(),
        ]
        .into_iter()
        .flatten()
        .filter(|s| !s.is_empty())
        .collect();
        who.dedup();
        let first = &inv.first_failure;
        let on = first
            .payment_method
            .as_deref()
            .map(|m| format!(" on {m}"))
            .unwrap_or_default();
        vec![
            Line::from(vec![
                Span::styled(format!("{} ", inv.invoice_id), theme.style(Role::Title)),
                Span::styled(
                    format!("· {} · {}", who.join(" "), money(inv.money())),
                    theme.style(Role::Text),
                ),
            ]),
            Line::styled(
                format!(
                    "First failed {}{on}: {} · {} found",
                    crate::time::date_in(first.at, cx.tz),
                    decline_label(&first.decline),
                    match inv.attempt_count() {
                        1 => "1 attempt".to_string(),
                        n => format!("{n} attempts"),
                    }
                ),
                theme.style(Role::Text),
            ),
            Line::styled(
                self.ended.clone(),
                theme.style(match inv.outcome {
                    Outcome::Recovered(_) => Role::Matched,
                    Outcome::WrittenOff => Role::Failed,
                    Outcome::Voided => Role::Muted,
                    Outcome::StillOpen => Role::Pending,
                }),
            ),
        ]
    }
}

impl Pane for AttemptsScreen {
    fn title(&self) -> String {
        self.line.inv.invoice_id.clone()
    }

    fn on_data(&mut self, _ws: &Workspace, _cx: &mut Cx<'_>) -> bool {
        false
    }

    fn handle(&mut self, action: Action, _cx: &mut Cx<'_>) -> Handled {
        // Nothing deeper to open from an attempt; `y` copies its ids.
        if action == Action::Open {
            Handled::Yes
        } else {
            Handled::No
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
        let h = wrapped_height(&lines, facts_width(area)).min(area.height / 2);
        render_facts_over_table(lines, h, &mut self.table, area, buf, cx);
    }

    fn hints(&self) -> Vec<Action> {
        vec![Action::Back, Action::CopyCell, Action::Sort]
    }
}
