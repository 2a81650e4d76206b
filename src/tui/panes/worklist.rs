//! The Worklist tab (owned by the dunning work): until the dunning pane lands, the
//! account's invoices as a plain table.

use std::sync::Arc;

use crate::money::Money;
use crate::source::rows::InvoiceRow;
use crate::stripe::models::InvoiceStatus;
use crate::tui::pane::Pane;
use crate::tui::theme::Role;
use crate::tui::widgets::table::{Cell, RowsSource, TableSource, col};
use crate::tui::workspace::Workspace;

use super::table_pane::TablePane;

pub fn pane() -> Box<dyn Pane> {
    Box::new(TablePane::new(
        "Worklist",
        "Invoices",
        "No invoices in this account.",
        build,
    ))
}

fn status(r: &InvoiceRow) -> Cell<'_> {
    let role = match r.status {
        InvoiceStatus::Open if r.attempt_count > 0 => Role::Failed,
        InvoiceStatus::Open => Role::Pending,
        InvoiceStatus::Paid => Role::Ok,
        InvoiceStatus::Uncollectible => Role::Error,
        _ => Role::Muted,
    };
    Cell::Tag(r.status.as_str().into(), role)
}

fn build(ws: &Workspace) -> Arc<dyn TableSource> {
    Arc::new(RowsSource::new(
        ws.data.invoices.clone(),
        vec![
            col("Invoice", 30, |r: &InvoiceRow| Cell::text(&r.id)),
            col("Number", 14, |r| Cell::opt(r.number.as_deref())),
            col("Customer", 26, |r| {
                Cell::opt(r.customer_name.as_deref().or(r.customer_email.as_deref()))
            }),
            col("Status", 14, status),
            col("Remaining", 18, |r| {
                Cell::Money(Money::new(r.amount_remaining, r.currency))
            }),
            col("Due", 18, |r| {
                Cell::Money(Money::new(r.amount_due, r.currency))
            }),
            col("Attempts", 9, |r| Cell::Int(r.attempt_count)),
            col("Next attempt", 17, |r| {
                Cell::DateTime(r.next_payment_attempt)
            }),
            col("Due date", 11, |r| Cell::Date(r.due_date)),
            col("Email", 30, |r| Cell::opt(r.customer_email.as_deref())),
            col("Subscription", 30, |r| Cell::opt(r.subscription.as_deref())),
            col("Created", 11, |r| Cell::Date(Some(r.created))),
        ],
    ))
}
