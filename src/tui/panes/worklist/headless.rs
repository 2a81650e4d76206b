//! The Worklist as a saved view shows it, without a terminal: the same rows (facets,
//! text filter, sort) in the same columns, built by the same table. `tieout dunning
//! --view NAME` writes these, so the file holds exactly what the pane shows.

use jiff::tz::TimeZone;

use super::*;
use crate::app::views::SavedView;
use crate::tui::context::Work;
use crate::tui::request::RequestId as Req;

/// A context with a clock and a zone only: the table's view is computed inline (no job,
/// no status line).
struct Headless {
    tz: TimeZone,
    now: i64,
}

impl Work for Headless {
    fn now(&self) -> i64 {
        self.now
    }
    fn tz(&self) -> &TimeZone {
        &self.tz
    }
    fn compute(&mut self, _job: Job) -> Req {
        // Never asked: the sync limit is unbounded below.
        Req(0)
    }
    fn cancel(&mut self, _req: Req) {}
    fn toast(&mut self, _text: String) {}
    fn toast_error(&mut self, _text: String) {}
    fn copy(&mut self, _text: String) {}
}

/// The Worklist table of worklist `w` with `view` applied, as the pane shows it.
pub fn view_table(w: &Worklist, view: &SavedView, tz: &TimeZone) -> Result<DataTable, String> {
    let filter = view.facets.to_filter()?;
    let rows: Vec<WorkRow> = filter
        .apply(w)
        .into_iter()
        .filter_map(|i| w.rows.get(i).cloned())
        .collect();
    let mut cx = Headless {
        tz: tz.clone(),
        now: w.now,
    };
    let mut table =
        DataTable::new("Failed payments", EMPTY_TEXT, empty_source()).with_sync_limit(usize::MAX);
    table.set_source(Arc::new(source(rows)), &mut cx);
    table.apply_table_view(
        &crate::tui::widgets::table::TableView::of_saved(view),
        &mut cx,
    );
    Ok(table)
}
