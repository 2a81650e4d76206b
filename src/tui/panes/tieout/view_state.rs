//! The Tie-out's saved view: the month on screen with the payouts table's filter, sort
//! and columns. The Balance view is not saved (a view is of the payouts).

use super::*;
use crate::app::views::SavedView;

/// What the Tie-out shows, as a view.
pub(super) fn save(p: &TieOutPane) -> Result<SavedView, String> {
    if p.balance.on {
        return Err("a view keeps the payouts; leave the Balance view first".into());
    }
    let mut view = p.table.table_view().to_saved();
    view.month = p.month.map(|m| m.to_string());
    Ok(view)
}

/// Shows `view`: its month (kept until the account is loaded), then the payouts with
/// its filter, sort and columns.
pub(super) fn apply(p: &mut TieOutPane, view: &SavedView, cx: &mut Cx<'_>) -> Result<(), String> {
    let month = match &view.month {
        Some(m) => Some(m.trim().parse::<Month>().map_err(|_| {
            format!("month = \"{m}\" is not a month (write it as YYYY-MM, e.g. 2026-10)")
        })?),
        None => None,
    };
    let table_view = crate::tui::widgets::table::TableView::of_saved(view);
    p.table.check_view(&table_view)?;
    p.balance.on = false;
    p.table.apply_table_view(&table_view, cx);
    if let Some(m) = month {
        p.month = Some(m);
        p.recompute(cx);
    }
    Ok(())
}
