//! The Refunds tab (owned by the refunds work): until the refunds pane lands, the support
//! tickets as a plain table.

use std::sync::Arc;

use crate::tui::pane::Pane;
use crate::tui::widgets::table::{Cell, RowsSource, TableSource, col};
use crate::tui::workspace::{Ticket, Workspace};

use super::table_pane::TablePane;

pub fn pane() -> Box<dyn Pane> {
    Box::new(TablePane::new(
        "Refunds",
        "Tickets",
        "No refund tickets loaded.",
        build,
    ))
}

fn build(ws: &Workspace) -> Arc<dyn TableSource> {
    Arc::new(RowsSource::new(
        ws.tickets.as_ref().clone(),
        vec![
            col("Ticket", 12, |r: &Ticket| Cell::text(&r.ticket_id)),
            col("Email", 30, |r| Cell::text(&r.email)),
            col("Order", 16, |r| Cell::text(&r.order_id)),
            col("Message", 80, |r| Cell::text(&r.message)),
        ],
    ))
}
