//! Jump to an id: `goto` with text that is not a row number looks the text up in every
//! table of the snapshot ([`crate::domain::locate`]) and asks the tabs, place by place
//! (best first), to show it ([`Pane::reveal`](super::super::pane::Pane::reveal)). The
//! tab that does becomes the active one, with the drill-down screens it opened; the
//! status line says what the id is, where it landed and where else it appears.

use super::super::msg::Owner;
use super::super::pane::{Place, Reveal, Toast};
use super::super::state::State;
use crate::domain::locate::{Located, Lookup, locate};

/// Jumps to what `text` names. Returns `false` when no id of the snapshot is or starts
/// with `text` (the caller then looks in the table on screen).
pub(super) fn jump(state: &mut State, text: &str) -> bool {
    let Some(ws) = state.core.workspace.clone() else {
        return false;
    };
    let located = match locate(&ws.data, &ws.tickets, text) {
        Lookup::NotFound => return false,
        Lookup::Ambiguous { count, first } => {
            let more = if count > first.len() { ", …" } else { "" };
            state.core.toast = Some(Toast {
                text: format!(
                    "{count} ids start with {}: {}{more} (type more of it)",
                    text.trim(),
                    first.join(", ")
                ),
                error: true,
            });
            return true;
        }
        Lookup::Found(l) => *l,
    };
    for place in &located.places {
        for tab in 0..state.tabs.len() {
            let shown = state
                .with_owner(Owner::Tab(tab), |pane, cx| pane.reveal(place, cx))
                .unwrap_or(Reveal::No);
            if shown == Reveal::No {
                continue;
            }
            // The jump replaces the drill-down on screen with the one the tab opened.
            let opened = std::mem::take(&mut state.core.pushed);
            state.pop_all_screens();
            state.active = tab;
            state.core.pushed = opened;
            state.apply_navigation(Owner::Tab(tab));
            state.core.toast = Some(Toast {
                text: landed(&located, place, state.tabs[tab].title()),
                error: false,
            });
            return true;
        }
    }
    state.core.toast = Some(Toast {
        text: nowhere(&located),
        error: false,
    });
    true
}

/// "txn_… (balance transaction): Tie-out, payout po_… lines · also in: …".
fn landed(l: &Located, place: &Place, tab: String) -> String {
    let at = match place {
        Place::Payout { payout, .. } => format!("{tab}, payout {payout}"),
        Place::PayoutLine {
            payout, category, ..
        }
        | Place::PayoutCategory {
            payout, category, ..
        } => format!("{tab}, payout {payout} › {category}"),
        Place::Invoice { .. } | Place::Customer { .. } => format!("{tab}, failed payments"),
        Place::Ticket { ticket } => format!("{tab}, ticket {ticket}"),
        Place::TicketOfCharge { .. } => format!("{tab}, the ticket it matched"),
    };
    let also = l.also_in_text();
    let also = if also.is_empty() {
        String::new()
    } else {
        format!(" · {also}")
    };
    format!("{} ({}): {at}{also}", l.id, l.kind.label())
}

/// What a found id that no tab shows is, and where it is.
fn nowhere(l: &Located) -> String {
    let tables: Vec<String> = (l.also_in.iter())
        .map(|(t, n)| format!("{t} ({n})"))
        .collect();
    format!(
        "{} ({}) is in {}; no tab shows it (tieout query can)",
        l.id,
        l.kind.label(),
        tables.join(", ")
    )
}

#[cfg(test)]
#[path = "jump_tests.rs"]
mod tests;
