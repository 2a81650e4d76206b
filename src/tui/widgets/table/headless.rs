//! A table without a terminal: a context with a clock and a zone only, for the headless
//! exports that write what a pane's table shows (`tieout dunning --view`). Its view is
//! computed inline (no job, no status line).

use super::*;
use crate::tui::request::RequestId;

/// The context of a table built for a file, not a screen.
pub struct Headless {
    tz: TimeZone,
    now: i64,
}

impl Headless {
    pub fn new(tz: TimeZone, now: i64) -> Self {
        Headless { tz, now }
    }
}

impl Work for Headless {
    fn now(&self) -> i64 {
        self.now
    }
    fn tz(&self) -> &TimeZone {
        &self.tz
    }
    fn compute(&mut self, _job: Job) -> RequestId {
        // Never asked: a headless table has no sync limit (`DataTable::headless`).
        RequestId(0)
    }
    fn cancel(&mut self, _req: RequestId) {}
    fn toast(&mut self, _text: String) {}
    fn toast_error(&mut self, _text: String) {}
    fn copy(&mut self, _text: String) {}
}

impl DataTable {
    /// A table over `source` with `view` applied, as a pane shows it, computed inline;
    /// refused when the view names a column the rows do not have.
    pub fn headless(
        title: &str,
        source: Arc<dyn TableSource>,
        view: &TableView,
        cx: &mut Headless,
    ) -> Result<DataTable, String> {
        let mut table = DataTable::new(title, "", source).with_sync_limit(usize::MAX);
        table.check_view(view)?;
        table.apply_table_view(view, cx);
        Ok(table)
    }
}
