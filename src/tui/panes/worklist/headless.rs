//! The Worklist as a saved view shows it, without a terminal: the same rows (facets,
//! text filter, sort) in the same columns, built by the same table. `tieout dunning
//! --view NAME` writes these, so the file holds exactly what the pane shows.

use jiff::tz::TimeZone;

use super::*;
use crate::app::views::SavedView;
use crate::tui::widgets::table::{Headless, TableView};

/// The Worklist table of worklist `w` with `view` applied, as the pane shows it.
pub fn view_table(w: &Worklist, view: &SavedView, tz: &TimeZone) -> Result<DataTable, String> {
    let filter = view.facets.to_filter()?;
    let rows: Vec<WorkRow> = filter
        .apply(w)
        .into_iter()
        .filter_map(|i| w.rows.get(i).cloned())
        .collect();
    let mut cx = Headless::new(tz.clone(), w.now);
    DataTable::headless(
        "Failed payments",
        Arc::new(source(rows)),
        &TableView::of_saved(view),
        &mut cx,
    )
}
