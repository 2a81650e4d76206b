//! The Worklist table's columns: what each shows of a worklist row (for plain rows and
//! for rows carrying a "since" marker), and the roles that colour the action and retry.

use super::*;

pub(super) fn action_role(a: Todo) -> Role {
    match a {
        Todo::DoNotRetry => Role::Failed,
        Todo::RetryLater => Role::Pending,
        Todo::UpdatePaymentMethod | Todo::CustomerMustAuthenticate | Todo::CheckDuplicate => {
            Role::Warning
        }
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

pub(super) fn next_retry(r: &WorkRow) -> Cell<'_> {
    match (r.retries_left, r.next_payment_attempt) {
        (true, Some(ts)) => Cell::Date(Some(ts)),
        _ => Cell::Tag("none".into(), Role::Failed),
    }
}

pub(super) fn customer(r: &WorkRow) -> Cell<'_> {
    Cell::opt(
        r.customer_name
            .as_deref()
            .or(r.customer_email.as_deref())
            .or(r.customer_id.as_deref()),
    )
}

pub(super) fn source(rows: Vec<WorkRow>) -> RowsSource<WorkRow> {
    RowsSource::new(rows, columns::<WorkRow>())
}

/// The worklist's columns, for plain rows and for rows with a marker.
pub(super) fn columns<R: AsWorkRow>() -> Vec<crate::tui::widgets::table::ColumnDef<R>> {
    vec![
        col("Customer", 14, |r: &R| customer(r.work())),
        col("Amount", 14, |r: &R| Cell::Money(r.work().money())),
        col("Decline", 18, |r: &R| Cell::owned(r.work().decline_label())),
        col("Att.", 4, |r: &R| Cell::Int(r.work().attempt_count)),
        col("Retry", 10, |r: &R| next_retry(r.work())),
        col("Action", 12, |r: &R| {
            let a = r.work().action();
            Cell::Tag(a.short().into(), action_role(a))
        }),
        col("Action (in full)", 26, |r: &R| {
            Cell::text(r.work().action().label())
        }),
        col("Days late", 9, |r: &R| {
            r.work().days_past_due.map_or(Cell::Empty, Cell::Int)
        }),
        col("Invoice", 30, |r: &R| Cell::text(&r.work().invoice_id)),
        col("Number", 14, |r: &R| {
            Cell::opt(r.work().invoice_number.as_deref())
        }),
        col("Email", 30, |r: &R| {
            Cell::opt(r.work().customer_email.as_deref())
        }),
        col("Subscription", 30, |r: &R| {
            Cell::opt(r.work().subscription_id.as_deref())
        }),
        col("Outcome", 24, |r: &R| {
            Cell::opt(r.work().outcome_reason.as_deref())
        }),
        col("Advice", 18, |r: &R| {
            Cell::opt(r.work().advice_code.as_deref())
        }),
    ]
}
