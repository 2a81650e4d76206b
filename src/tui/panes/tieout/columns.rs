//! The Tie-out table's rows and columns: one row per payout, with its bank result when a
//! statement is loaded (then a Bank column follows Result), and the marks and colours of
//! each verdict and bank status.

use std::sync::Arc;

use crate::bank::{BankMatch, BankStatus, PayoutMatch};
use crate::domain::tieout::{MonthTieOut, PayoutTieOut, Verdict, status_label};
use crate::money::Money;
use crate::tui::theme::Role;
use crate::tui::widgets::table::{Cell, ColumnDef, RowsSource, TableSource, col};

/// A row of the table: the payout's tie-out and, with a statement, its bank match.
#[derive(Debug, Clone)]
pub struct TieRow {
    pub p: PayoutTieOut<'static>,
    pub bank: Option<PayoutMatch>,
}

/// The mark and colour of a verdict.
pub(crate) fn verdict_cell(v: Verdict) -> Cell<'static> {
    match v {
        Verdict::Tied => Cell::Tag("✓ tied".into(), Role::Matched),
        Verdict::Difference => Cell::Tag("≠ difference".into(), Role::Difference),
        Verdict::NotItemisable => Cell::Tag("– not itemisable".into(), Role::Muted),
        Verdict::InProgress => Cell::Tag("… in progress".into(), Role::Pending),
        Verdict::Failed => Cell::Tag("✗ failed".into(), Role::Failed),
        Verdict::Canceled => Cell::Tag("✗ canceled".into(), Role::Failed),
        Verdict::Reversed => Cell::Tag("↩ reversed".into(), Role::Failed),
    }
}

/// The colour of a bank status.
pub(crate) fn bank_role(s: BankStatus) -> Role {
    match s {
        BankStatus::Matched | BankStatus::DebitedBack => Role::Matched,
        BankStatus::Pending => Role::Pending,
        BankStatus::Missing | BankStatus::Review => Role::Difference,
        BankStatus::Failed | BankStatus::Canceled | BankStatus::NoStatement => Role::Muted,
    }
}

/// The mark and colour of a bank status.
pub(crate) fn bank_cell(s: BankStatus) -> Cell<'static> {
    let mark = match s {
        BankStatus::Matched => "✓",
        BankStatus::Pending => "…",
        BankStatus::Missing => "✗",
        BankStatus::Review => "?",
        BankStatus::DebitedBack => "↩",
        _ => "–",
    };
    Cell::Tag(format!("{mark} {}", s.as_str()).into(), bank_role(s))
}

fn status_cell<'s>(p: &'s PayoutTieOut<'static>) -> Cell<'s> {
    use crate::model::status::PayoutStatus as S;
    let role = match p.payout.status {
        S::Paid => Role::Ok,
        S::Failed | S::Canceled => Role::Failed,
        _ => Role::Pending,
    };
    Cell::Tag(status_label(&p.payout.status).into(), role)
}

fn money_opt(v: Option<i64>, p: &PayoutTieOut) -> Cell<'static> {
    v.map_or(Cell::Empty, |m| Cell::Money(Money::new(m, p.currency())))
}

/// The rows of `t`, each with its bank match from `bank` (the same order as `t.payouts`).
pub fn rows(t: &MonthTieOut<'static>, bank: Option<&BankMatch>) -> Vec<TieRow> {
    let by_id: std::collections::HashMap<&str, &PayoutMatch> = bank
        .map(|m| {
            m.payouts
                .iter()
                .map(|b| (b.payout.id.as_str(), b))
                .collect()
        })
        .unwrap_or_default();
    t.payouts
        .iter()
        .map(|p| TieRow {
            p: p.clone(),
            bank: by_id.get(p.payout.id.as_str()).map(|b| (*b).clone()),
        })
        .collect()
}

/// The table: the Bank column only when a statement was matched.
pub fn rows_source(t: &MonthTieOut<'static>, bank: Option<&BankMatch>) -> Arc<dyn TableSource> {
    let mut defs: Vec<ColumnDef<TieRow>> = vec![
        col("Arrival", 11, |r: &TieRow| {
            Cell::Date(Some(r.p.payout.arrival_date))
        }),
        col("Payout", 30, |r| Cell::text(&r.p.payout.id)),
        col("Result", 17, |r| verdict_cell(r.p.verdict)),
        col("Amount", 18, |r| Cell::Money(r.p.payout.money())),
        col("Lines' net", 18, |r| money_opt(r.p.lines_net(), &r.p)),
        col("Difference", 16, |r| money_opt(r.p.difference(), &r.p)),
        col("Status", 11, |r| status_cell(&r.p)),
        col("Kind", 10, |r| Cell::text(r.p.kind.as_str())),
        col("Lines", 6, |r| {
            r.p.itemisation
                .as_ref()
                .map_or(Cell::Empty, |i| Cell::Int(i.lines.len() as i64))
        }),
        col("Note", 80, |r| Cell::owned(r.p.note())),
    ];
    if bank.is_some() {
        defs.insert(
            3,
            col("Bank", 15, |r: &TieRow| {
                r.bank.as_ref().map_or(Cell::Empty, |b| bank_cell(b.status))
            }),
        );
    }
    Arc::new(
        RowsSource::new(rows(t, bank), defs)
            .with_row_role(|r| (r.p.verdict == Verdict::Difference).then_some(Role::Difference)),
    )
}
