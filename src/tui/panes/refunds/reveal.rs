//! A jump to an id lands on the Refunds tab ([`Place::Ticket`], [`Place::TicketOfCharge`]):
//! the ticket's row selected, or the row of the ticket matched to the charge.

use super::super::refunds::RefundsPane;
use crate::tui::pane::{Cx, Place, Reveal};

impl RefundsPane {
    /// Shows `place` if it is a ticket of the queue, or a charge one of them matched.
    pub(super) fn reveal_place(&mut self, place: &Place, cx: &mut Cx<'_>) -> Reveal {
        let found = match place {
            Place::Ticket { ticket } => self.rows.iter().position(|a| {
                (a.ticket.ticket_id.as_deref()).is_some_and(|t| t.eq_ignore_ascii_case(ticket))
            }),
            Place::TicketOfCharge { charge } => (self.rows.iter())
                .position(|a| a.matched.charge().is_some_and(|c| &*c.id == charge)),
            _ => None,
        };
        let Some(row) = found else {
            return Reveal::No;
        };
        self.fraud_shown = false;
        if !self.table.select_source_row(row) {
            self.table.set_filter("", cx);
            self.table.select_source_row(row);
        }
        Reveal::Shown
    }
}
