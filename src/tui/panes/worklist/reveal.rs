//! A jump to an id lands on the Worklist ([`Place::Invoice`], [`Place::Customer`]): the
//! invoice's row (or the customer's first) selected in the failed-payments table, the
//! facets and filter that hid it cleared.

use super::WorklistPane;
use crate::domain::dunning::Filter;
use crate::tui::pane::{Cx, Place, Reveal};

impl WorklistPane {
    /// Shows `place` if it is an invoice (or a customer) on the list.
    pub(super) fn reveal_place(&mut self, place: &Place, cx: &mut Cx<'_>) -> Reveal {
        if !matches!(place, Place::Invoice { .. } | Place::Customer { .. }) {
            return Reveal::No;
        }
        if self.req.is_some() {
            // The list is being computed (new data): shown when it arrives.
            self.reveal = Some(place.clone());
            return Reveal::Later;
        }
        let Some(w) = self.worklist.clone() else {
            return Reveal::No;
        };
        let found = match place {
            Place::Invoice { invoice } => w.rows.iter().position(|r| r.invoice_id == *invoice),
            Place::Customer { customer } => {
                (w.rows.iter()).position(|r| r.customer_id.as_deref() == Some(customer.as_str()))
            }
            _ => None,
        };
        let Some(i) = found else {
            return Reveal::No;
        };
        self.picker = None;
        self.recovery_view = false;
        let hidden = !self.shown.contains(&i);
        if self.cards_view || hidden {
            self.cards_view = false;
            if hidden {
                self.filter = Filter::default();
                self.changed_only = false;
            }
            self.rebuild(cx);
        }
        let Some(row) = self.shown.iter().position(|s| *s == i) else {
            return Reveal::No;
        };
        if !self.table.select_source_row(row) {
            self.table.set_filter("", cx);
            self.table.select_source_row(row);
        }
        Reveal::Shown
    }
}
