//! A jump to an id lands in the Tie-out ([`Place::Payout`], [`Place::PayoutLine`]): the
//! payout's month, its row selected, and for a line the payout's category drill-down with
//! the line selected. A month tied out in the background finishes the jump when it is
//! done.

use std::sync::Arc;

use super::TieOutPane;
use super::screens::PayoutScreen;
use crate::time::Month;
use crate::tui::pane::{Cx, Place, Reveal};

impl TieOutPane {
    /// Shows `place` if it is a payout or a line of one this account holds.
    pub(super) fn reveal_place(&mut self, place: &Place, cx: &mut Cx<'_>) -> Reveal {
        let (payout, arrival) = match place {
            Place::Payout { payout, arrival }
            | Place::PayoutLine {
                payout, arrival, ..
            }
            | Place::PayoutCategory {
                payout, arrival, ..
            } => (payout, *arrival),
            _ => return Reveal::No,
        };
        let Some(data) = &self.data else {
            return Reveal::No;
        };
        if !data.payouts.iter().any(|p| p.id == *payout) {
            return Reveal::No;
        }
        self.balance.on = false;
        let month = Month::of(arrival, cx.tz());
        self.reveal = Some(place.clone());
        if self.month != Some(month) || self.result.is_none() {
            self.month = Some(month);
            self.recompute(cx);
        } else {
            self.finish_reveal(cx);
        }
        if self.reveal.is_some() {
            Reveal::Later
        } else {
            Reveal::Shown
        }
    }

    /// Selects the place a jump asked for, once the month is on screen (called when a
    /// tie-out is shown).
    pub(super) fn finish_reveal(&mut self, cx: &mut Cx<'_>) {
        let (Some(place), Some(t), Some(data)) = (self.reveal.take(), &self.result, &self.data)
        else {
            return;
        };
        let (Place::Payout { payout, .. }
        | Place::PayoutLine { payout, .. }
        | Place::PayoutCategory { payout, .. }) = &place
        else {
            return;
        };
        let Some(i) = t.payouts.iter().position(|p| p.payout.id == *payout) else {
            return;
        };
        if !self.table.select_source_row(i) {
            self.table.set_filter("", cx);
            self.table.select_source_row(i);
        }
        let (category, txn) = match &place {
            Place::PayoutLine { category, txn, .. } => (category, Some(txn)),
            Place::PayoutCategory { category, .. } => (category, None),
            _ => return,
        };
        let mut screen = PayoutScreen::new(t.payouts[i].clone(), Arc::clone(data));
        let lines = screen.reveal_line(category, txn.map(String::as_str));
        cx.push(Box::new(screen));
        if let Some(lines) = lines {
            cx.push(Box::new(lines));
        }
    }

    /// The payout selected on screen, as a place (a refresh keeps it).
    pub(super) fn place_on_screen(&self) -> Option<Place> {
        if self.balance.on {
            return None;
        }
        let t = self.result.as_ref()?;
        let p = t.payouts.get(self.table.selected_row()?)?;
        Some(Place::Payout {
            payout: p.payout.id.clone(),
            arrival: p.payout.arrival_date,
        })
    }
}
