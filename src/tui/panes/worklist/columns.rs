//! The Worklist table's columns: what each shows of a worklist row (for plain rows and
//! for rows carrying a "since" marker), and the roles that colour the action and retry.

use super::*;
use crate::report::dunning::FIELDS;
use crate::report::fields;
use crate::tui::widgets::table::{ColumnDef, cell_of, field_col};

pub(super) fn action_role(a: Todo) -> Role {
    match a {
        Todo::DoNotRetry => Role::Failed,
        Todo::RetryLater => Role::Pending,
        Todo::UpdatePaymentMethod
        | Todo::CustomerMustAuthenticate
        | Todo::CheckDuplicate
        | Todo::SubscriptionOldCard => Role::Warning,
        Todo::ContactCustomer => Role::Text,
        Todo::Review => Role::Muted,
    }
}

/// What the table's columns read a worklist row from (the row itself, or the row with its
/// "since" marker).
pub(super) trait AsWorkRow {
    fn work(&self) -> &WorkRow;
}

impl AsWorkRow for WorkRow {
    fn work(&self) -> &WorkRow {
        self
    }
}

/// The next retry as the pane shows it: the date Stripe will try again while retries are
/// left, else a red `none` (a date Stripe still holds for an invoice with no retry left is
/// not a retry anyone can wait for).
pub(super) fn next_retry(r: &WorkRow) -> Cell<'_> {
    match (r.retries_left, r.next_payment_attempt) {
        (true, Some(ts)) => Cell::Date(Some(ts)),
        _ => Cell::Tag("none".into(), Role::Failed),
    }
}

pub(super) fn source(rows: Vec<WorkRow>) -> RowsSource<WorkRow> {
    RowsSource::new(rows, columns::<WorkRow>())
}

/// The pane's columns, in order: a field of the worklist row's one declaration
/// (`report::dunning::FIELDS`) and the most it is drawn wide.
const SHOWN: &[(&str, u16)] = &[
    ("customer", 14),
    ("amount_remaining", 14),
    ("decline", 18),
    ("attempt_count", 4),
    ("next_retry", 10),
    ("action", 12),
    ("action_in_full", 26),
    ("days_past_due", 9),
    ("invoice_id", 30),
    ("invoice_number", 14),
    ("customer_email", 30),
    ("subscription_id", 30),
    ("outcome_reason", 24),
    ("advice_code", 18),
];

/// The worklist's columns, for plain rows and for rows with a marker: each a declared
/// field under its (short) title; the next retry and the action drawn with the role that
/// colours them (the action in its short form), the decline as its label alone (the
/// Markdown's cell adds the outcome or advice it rests on; the pane has those columns).
pub(super) fn columns<R: AsWorkRow + 'static>() -> Vec<ColumnDef<R>> {
    SHOWN
        .iter()
        .filter_map(|&(name, width)| {
            let field = fields::field(FIELDS, name)?;
            Some(match name {
                "next_retry" => ColumnDef {
                    title: field.pane_title(),
                    max_width: width,
                    get: cell_of(|r: &R| next_retry(r.work())),
                },
                "decline" => ColumnDef {
                    title: field.pane_title(),
                    max_width: width,
                    get: cell_of(|r: &R| Cell::owned(r.work().decline_label())),
                },
                "action" => ColumnDef {
                    title: field.pane_title(),
                    max_width: width,
                    get: cell_of(|r: &R| {
                        let a = r.work().action();
                        Cell::Tag(a.short().into(), action_role(a))
                    }),
                },
                _ => field_col(*field, width, |r: &R| r.work()),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_column_of_the_pane_is_a_declared_field() {
        for (name, _) in SHOWN {
            assert!(fields::field(FIELDS, name).is_some(), "{name}");
        }
        assert_eq!(columns::<WorkRow>().len(), SHOWN.len());
    }
}
