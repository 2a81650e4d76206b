//! The Worklist's saved view: the table's filter, sort and columns plus the facets (`f`).
//! The recovery picture and the cards view are not saved (a view is of the invoices).

use super::*;
use crate::app::views::{Facets, SavedView};

/// What the Worklist shows, as a view.
pub(super) fn save(p: &WorklistPane) -> Result<SavedView, String> {
    if p.recovery_view || p.cards_view {
        return Err("a view keeps the invoices; leave the recovery or cards view first".into());
    }
    if p.changed_only {
        return Err("the facet \"new or changed\" is not kept in a view; clear it first".into());
    }
    let mut view = p.table.table_view().to_saved();
    view.facets = Facets::of_filter(&p.filter);
    Ok(view)
}

/// Shows `view`: the invoices with its facets, then its filter, sort and columns.
pub(super) fn apply(p: &mut WorklistPane, view: &SavedView, cx: &mut Cx<'_>) -> Result<(), String> {
    let filter = view.facets.to_filter()?;
    let table_view = crate::tui::widgets::table::TableView::of_saved(view);
    p.table.check_view(&table_view)?;
    p.picker = None;
    p.recovery_view = false;
    p.cards_view = false;
    p.changed_only = false;
    p.filter = filter;
    p.rebuild(cx);
    p.table.apply_table_view(&table_view, cx);
    Ok(())
}
