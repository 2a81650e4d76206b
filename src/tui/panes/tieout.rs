//! The Tie-out tab (owned by the tie-out work): until the tie-out pane lands, the
//! account's payouts as a plain table.

use std::sync::Arc;

use crate::source::rows::PayoutRow;
use crate::stripe::models::PayoutStatus;
use crate::tui::pane::Pane;
use crate::tui::theme::Role;
use crate::tui::widgets::table::{Cell, RowsSource, TableSource, col};
use crate::tui::workspace::Workspace;

use super::table_pane::TablePane;

pub fn pane() -> Box<dyn Pane> {
    Box::new(TablePane::new(
        "Tie-out",
        "Payouts",
        "No payouts in this account.",
        build,
    ))
}

fn status(r: &PayoutRow) -> Cell<'_> {
    let role = match r.status {
        PayoutStatus::Paid => Role::Ok,
        PayoutStatus::Failed | PayoutStatus::Canceled => Role::Failed,
        _ => Role::Pending,
    };
    Cell::Tag(r.status.as_str().into(), role)
}

fn build(ws: &Workspace) -> Arc<dyn TableSource> {
    Arc::new(RowsSource::new(
        ws.data.payouts.clone(),
        vec![
            col("Payout", 30, |r: &PayoutRow| Cell::text(&r.id)),
            col("Arrival", 11, |r| Cell::Date(Some(r.arrival_date))),
            col("Amount", 18, |r| Cell::Money(r.money())),
            col("Status", 11, status),
            col("Type", 10, |r| {
                Cell::text(if r.automatic { "automatic" } else { "manual" })
            }),
            col("Method", 9, |r| Cell::text(&r.method)),
            col("Reconciliation", 15, |r| {
                Cell::text(r.reconciliation_status.as_str())
            }),
            col("Failure", 20, |r| Cell::opt(r.failure_code.as_deref())),
            col("Description", 30, |r| Cell::opt(r.description.as_deref())),
            col("Created", 11, |r| Cell::Date(Some(r.created))),
        ],
    ))
}
