//! The Refunds queue as a saved view shows it, without a terminal: the tickets decided,
//! with the view's text filter, sort and visible columns, built by the pane's own table.
//! `tieout suggest --tickets FILE --view NAME` writes these, so the file holds exactly what
//! the pane shows with that view open.

use std::sync::Arc;

use jiff::tz::TimeZone;

use super::queue_table::{QueueRow, columns};
use crate::app::views::SavedView;
use crate::domain::refunds::Assessment;
use crate::tui::widgets::table::{DataTable, Headless, RowsSource, TableView};

/// The queue's table of `assessed` with `view` applied, as the pane shows it at `now`;
/// refused when the view names a column the queue does not have.
pub fn view_table(
    assessed: Vec<Assessment>,
    view: &SavedView,
    tz: &TimeZone,
    now: i64,
) -> Result<DataTable, String> {
    let rows: Vec<QueueRow> = (assessed.into_iter())
        .map(|a| QueueRow {
            a,
            mark: None,
            marked: false,
        })
        .collect();
    let mut cx = Headless::new(tz.clone(), now);
    DataTable::headless(
        "Tickets",
        Arc::new(RowsSource::new(rows, columns())),
        &TableView::of_saved(view),
        &mut cx,
    )
}
