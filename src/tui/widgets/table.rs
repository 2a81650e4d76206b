//! The data table every pane uses: virtualised (only the visible rows are built), sortable
//! by any column, filtered as you type, with a frozen first column, horizontal scrolling,
//! money right-aligned and coloured by sign, copy and export of what is on screen, and
//! mouse selection.
//!
//! Rows come from a [`TableSource`] (usually a [`RowsSource`] over a `Vec` of rows with one
//! accessor per column). The table keeps a view index (`Vec<u32>`: which rows, in which
//! order); sort and filter compute a new index, inline for small tables and as a background
//! job (with the spinner) above [`SYNC_LIMIT`] rows.
//!
//! The rooms: `source` (cells, columns, row sources), `view` (the filter and sort that make
//! the view index), `render` (drawing) and `copy` (the CSV export and the copies as TSV,
//! Markdown or JSON); this file holds the table's state and its keys.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::sync::Arc;

use jiff::tz::TimeZone;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Widget};

use crate::money::{Money, format_major, format_major_grouped};
use crate::report::csv_out::CsvDoc;
use crate::report::fields::{Field, Value};
use crate::tui::action::Action;
use crate::tui::context::{Handled, ViewCx, Work};
use crate::tui::msg::{CancelFlag, Job, JobOutput, RequestId};
use crate::tui::theme::Role;

use super::text::{contains_ci, fit, width};

mod columns;
mod copy;
mod headless;
mod render;
mod source;
mod view;

pub use columns::TableView;
pub use headless::Headless;
pub use source::{
    Cell, CellOf, Column, ColumnDef, RowsSource, TableSource, cell_of, col, field_cell, field_col,
    money_role,
};
use view::*;
pub use view::{SortDir, compute_view};

/// Above this many rows, sort and filter run off the UI task.
pub const SYNC_LIMIT: usize = 50_000;

/// The table's state: the source, the view index, selection and scroll.
pub struct DataTable {
    title: String,
    empty_text: String,
    /// The rows as the pane gave them, every column.
    base: Arc<dyn TableSource>,
    /// What is drawn, sorted, filtered and copied: `base` without the hidden columns.
    source: Arc<dyn TableSource>,
    /// The titles of the columns hidden (`hide_column`, a saved view).
    hidden: Vec<String>,
    /// A saved view opened before the rows came (shown on the first rows).
    pending: Option<TableView>,
    view: Vec<u32>,
    selected: usize,
    offset: usize,
    col: usize,
    col_offset: usize,
    sort: Option<(usize, SortDir)>,
    filter: String,
    busy: Option<RequestId>,
    tz: TimeZone,
    sync_limit: usize,
    /// Set while drawing: where the rows were drawn (for mouse hits) and the page size.
    rows_area: Rect,
    page: usize,
}

impl DataTable {
    /// A table titled `title` over `source`; `empty_text` is shown when it has no rows.
    pub fn new(
        title: impl Into<String>,
        empty_text: impl Into<String>,
        source: Arc<dyn TableSource>,
    ) -> Self {
        let n = source.len().min(u32::MAX as usize);
        let view = (0..n)
            .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
            .collect();
        DataTable {
            title: title.into(),
            empty_text: empty_text.into(),
            base: Arc::clone(&source),
            source,
            hidden: Vec::new(),
            pending: None,
            view,
            selected: 0,
            offset: 0,
            col: 0,
            col_offset: 1,
            sort: None,
            filter: String::new(),
            busy: None,
            tz: TimeZone::UTC,
            sync_limit: SYNC_LIMIT,
            rows_area: Rect::default(),
            page: 10,
        }
    }

    /// Sets the row count above which sort/filter run in the background (tests).
    pub fn with_sync_limit(mut self, limit: usize) -> Self {
        self.sync_limit = limit;
        self
    }

    pub fn title(&self) -> &str {
        &self.title
    }
    pub fn set_title(&mut self, title: impl Into<String>) {
        self.title = title.into();
    }
    /// What the table says when it has no rows.
    pub fn set_empty_text(&mut self, text: impl Into<String>) {
        self.empty_text = text.into();
    }

    /// Replaces the rows (new data), keeping filter, sort and the selected row if it is
    /// still there.
    pub fn set_source(&mut self, source: Arc<dyn TableSource>, cx: &mut dyn Work) {
        self.base = source;
        if !self.base.columns().is_empty()
            && let Some(view) = self.pending.take()
        {
            self.apply_table_view(&view, cx);
            return;
        }
        self.source = columns::project(&self.base, &self.hidden);
        let ncols = self.source.columns().len();
        if self.sort.is_some_and(|(c, _)| c >= ncols) {
            self.sort = None;
        }
        self.col = self.col.min(ncols.saturating_sub(1));
        self.recompute(cx);
    }

    pub fn source(&self) -> &Arc<dyn TableSource> {
        &self.source
    }

    /// Rows in the source.
    pub fn total(&self) -> usize {
        self.source.len()
    }

    /// Rows in the view (after the filter).
    pub fn visible(&self) -> usize {
        self.view.len()
    }

    /// The source indices of the rows in the view (after the filter), in view order.
    pub fn view_rows(&self) -> &[u32] {
        &self.view
    }

    /// `(selected, count)`, 1-based, for the status bar.
    pub fn position(&self) -> Option<(usize, usize)> {
        (!self.view.is_empty()).then(|| (self.selected + 1, self.view.len()))
    }

    /// The source index of the selected row.
    pub fn selected_row(&self) -> Option<usize> {
        self.view.get(self.selected).map(|r| *r as usize)
    }

    /// The selected column.
    pub fn selected_col(&self) -> usize {
        self.col
    }

    pub fn filter(&self) -> &str {
        &self.filter
    }

    pub fn sort(&self) -> Option<(usize, SortDir)> {
        self.sort
    }

    /// Whether a background sort/filter is running.
    pub fn is_busy(&self) -> bool {
        self.busy.is_some()
    }

    /// Selects the view row `i` (clamped).
    pub fn select(&mut self, i: usize) {
        self.selected = i.min(self.view.len().saturating_sub(1));
    }

    /// Selects the row whose source index is `row`, if it is in the view.
    pub fn select_source_row(&mut self, row: usize) -> bool {
        match self.view.iter().position(|r| *r as usize == row) {
            Some(i) => {
                self.selected = i;
                true
            }
            None => false,
        }
    }

    /// Sets the filter (as typed) and recomputes the view.
    pub fn set_filter(&mut self, text: &str, cx: &mut dyn Work) {
        if self.filter != text {
            self.filter = text.to_string();
            self.recompute(cx);
        }
    }

    /// Sorts by `col` in `dir` (or unsorted with `None`).
    pub fn set_sort(&mut self, sort: Option<(usize, SortDir)>, cx: &mut dyn Work) {
        self.sort = sort;
        self.recompute(cx);
    }

    fn recompute(&mut self, cx: &mut dyn Work) {
        self.tz = cx.tz().clone();
        if let Some(old) = self.busy.take() {
            cx.cancel(old);
        }
        if self.source.len() <= self.sync_limit {
            let keep = self.selected_row();
            let view = compute_view(
                self.source.as_ref(),
                &self.filter,
                self.sort,
                &self.tz,
                &CancelFlag::new(),
            );
            self.apply_view(view, keep);
        } else {
            let src = Arc::clone(&self.source);
            let filter = self.filter.clone();
            let sort = self.sort;
            let tz = self.tz.clone();
            let label = if self.filter.is_empty() {
                "sorting"
            } else {
                "filtering"
            };
            let job = Job::new(label, move |cancel| {
                ViewResult(compute_view(src.as_ref(), &filter, sort, &tz, cancel))
            });
            self.busy = Some(cx.compute(job));
        }
    }

    fn apply_view(&mut self, view: Vec<u32>, keep: Option<usize>) {
        self.view = view;
        let found = keep.is_some_and(|r| self.select_source_row(r));
        if !found {
            self.selected = self.selected.min(self.view.len().saturating_sub(1));
        }
    }

    /// Takes a finished background view computation if it is this table's latest;
    /// otherwise hands the output back.
    pub fn take_result(&mut self, req: RequestId, output: JobOutput) -> Option<JobOutput> {
        if self.busy != Some(req) {
            return Some(output);
        }
        match output.downcast::<ViewResult>() {
            Ok(v) => {
                self.busy = None;
                let keep = self.selected_row();
                self.apply_view(v.0, keep);
                None
            }
            Err(other) => Some(other),
        }
    }

    /// The table's default handling of an action.
    pub fn handle(&mut self, action: Action, cx: &mut dyn Work) -> Handled {
        let n = self.view.len();
        let last = n.saturating_sub(1);
        let page = self.page.max(1);
        match action {
            Action::Up => self.selected = self.selected.saturating_sub(1),
            Action::Down => self.selected = (self.selected + 1).min(last),
            Action::PageUp => self.selected = self.selected.saturating_sub(page),
            Action::PageDown => self.selected = (self.selected + page).min(last),
            Action::HalfPageUp => self.selected = self.selected.saturating_sub(page / 2),
            Action::HalfPageDown => self.selected = (self.selected + page / 2).min(last),
            Action::Top => self.selected = 0,
            Action::Bottom => self.selected = last,
            Action::Left => self.col = self.col.saturating_sub(1),
            Action::Right => {
                self.col = (self.col + 1).min(self.source.columns().len().saturating_sub(1))
            }
            Action::Sort => {
                let next = match self.sort {
                    Some((c, SortDir::Asc)) if c == self.col => Some((c, SortDir::Desc)),
                    Some((c, SortDir::Desc)) if c == self.col => None,
                    _ => Some((self.col, SortDir::Asc)),
                };
                self.set_sort(next, cx);
                let name = self.column_title(self.col);
                match next {
                    Some((_, SortDir::Asc)) => cx.toast(format!("sorted by {name}, ascending")),
                    Some((_, SortDir::Desc)) => cx.toast(format!("sorted by {name}, descending")),
                    None => cx.toast("sort off".into()),
                }
            }
            Action::HideColumn => self.hide_selected_column(cx),
            Action::ShowColumns => {
                self.set_hidden(Vec::new(), cx);
                cx.toast("every column shown".into());
            }
            Action::ClearFilter => {
                self.set_filter("", cx);
                cx.toast("filter cleared".into());
            }
            Action::CopyCell => match self.selected_row() {
                Some(r) => {
                    let text = self.source.cell(r, self.col).export(&self.tz).into_owned();
                    cx.copy(text);
                }
                None => cx.toast_error("nothing to copy".into()),
            },
            Action::CopyRow | Action::CopyTable => {
                let format = cx.copy_format();
                let text = if action == Action::CopyRow {
                    self.copy_row(format)
                } else {
                    self.copy_table(format)
                };
                match text {
                    Some(text) => cx.copy_doc(text, format.extension()),
                    None => cx.toast_error("nothing to copy".into()),
                }
            }
            _ => return Handled::No,
        }
        Handled::Yes
    }

    fn column_title(&self, c: usize) -> String {
        self.source
            .columns()
            .get(c)
            .map(|c| c.title.clone())
            .unwrap_or_default()
    }

    /// Column titles with the selected row's values, for a detail screen.
    pub fn row_fields(&self, r: usize) -> Vec<(String, String)> {
        self.source
            .columns()
            .iter()
            .enumerate()
            .map(|(c, col)| {
                (
                    col.title.clone(),
                    self.source.cell(r, c).display(&self.tz).into_owned(),
                )
            })
            .collect()
    }

    /// Jumps to the first row with a cell equal to `text` (case-insensitive), not a row
    /// number. Returns whether it moved.
    pub fn goto_exact(&mut self, text: &str) -> bool {
        let t = text.trim();
        if t.is_empty() || t.parse::<usize>().is_ok() {
            return false;
        }
        match self.find_row(&t.to_lowercase(), true) {
            Some(i) => {
                self.selected = i;
                true
            }
            None => false,
        }
    }

    /// Jumps to a 1-based row number, or to the first row with a cell equal to `text`
    /// (case-insensitive), else the first containing it. Returns whether it moved.
    pub fn goto(&mut self, text: &str) -> bool {
        let t = text.trim();
        if t.is_empty() || self.view.is_empty() {
            return false;
        }
        if let Ok(n) = t.parse::<usize>() {
            if n >= 1 && n <= self.view.len() {
                self.selected = n - 1;
                return true;
            }
            return false;
        }
        let needle = t.to_lowercase();
        match (self.find_row(&needle, true)).or_else(|| self.find_row(&needle, false)) {
            Some(i) => {
                self.selected = i;
                true
            }
            None => false,
        }
    }

    /// The first view row with a cell equal to (or containing) `needle`, lower case.
    fn find_row(&self, needle: &str, exact: bool) -> Option<usize> {
        let ncols = self.source.columns().len();
        self.view.iter().position(|r| {
            (0..ncols).any(|c| {
                let v = self.source.cell(*r as usize, c);
                let d = v.display(&self.tz);
                if exact {
                    d.to_lowercase() == needle
                } else {
                    contains_ci(&d, needle)
                }
            })
        })
    }

    /// Mouse: a click at terminal cell (`x`, `y`) selects that row. Returns whether it hit.
    pub fn click(&mut self, x: u16, y: u16) -> bool {
        let a = self.rows_area;
        if x < a.x || x >= a.x + a.width || y < a.y || y >= a.y + a.height {
            return false;
        }
        let i = self.offset + usize::from(y - a.y);
        if i < self.view.len() {
            self.selected = i;
            true
        } else {
            false
        }
    }

    /// Mouse: whether (`x`, `y`) is over the table.
    pub fn contains(&self, x: u16, y: u16) -> bool {
        let a = self.rows_area;
        x >= a.x && x < a.x + a.width && y + 1 >= a.y && y < a.y + a.height
    }

    /// Mouse wheel: moves the selection by `delta` rows.
    pub fn scroll(&mut self, delta: isize) {
        let last = self.view.len().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(delta).min(last);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::money::Currency;
    use crate::tui::msg::{Effect, Owner};
    use crate::tui::pane::{Core, Cx};

    struct Row {
        id: String,
        amount: i64,
        note: Option<&'static str>,
    }

    fn source(n: usize) -> Arc<dyn TableSource> {
        let rows = (0..n)
            .map(|i| Row {
                id: format!("row_{i:07}"),
                amount: if i % 3 == 0 {
                    -(i as i64) * 10
                } else {
                    (i as i64) * 7
                },
                note: if i % 2 == 0 { Some("even Acme") } else { None },
            })
            .collect();
        Arc::new(RowsSource::new(
            rows,
            vec![
                col("Id", 12, |r: &Row| Cell::text(&r.id)),
                col("Amount", 16, |r: &Row| {
                    Cell::Money(Money::new(r.amount, Currency::USD))
                }),
                col("Note", 20, |r: &Row| Cell::opt(r.note)),
            ],
        ))
    }

    fn core() -> Core {
        Core::new(0, TimeZone::UTC)
    }

    #[test]
    fn sort_cycles_asc_desc_off_and_keeps_the_selected_row() {
        let mut core = core();
        let mut cx = Cx::new(&mut core, Owner::Tab(0));
        let mut t = DataTable::new("t", "none", source(10));
        t.select(4);
        t.handle(Action::Right, &mut cx);
        t.handle(Action::Sort, &mut cx);
        assert_eq!(t.sort(), Some((1, SortDir::Asc)));
        assert_eq!(t.selected_row(), Some(4), "selection follows the row");
        // Ascending amounts: the most negative first.
        t.select(0);
        assert_eq!(t.selected_row(), Some(9));
        t.handle(Action::Sort, &mut cx);
        assert_eq!(t.sort(), Some((1, SortDir::Desc)));
        t.select(0);
        assert_eq!(t.selected_row(), Some(8));
        t.handle(Action::Sort, &mut cx);
        assert_eq!(t.sort(), None);
    }

    #[test]
    fn blanks_sort_last_both_ways() {
        let mut core = core();
        let mut cx = Cx::new(&mut core, Owner::Tab(0));
        let mut t = DataTable::new("t", "none", source(6));
        t.set_sort(Some((2, SortDir::Asc)), &mut cx);
        t.select(5);
        assert_eq!(
            t.source().cell(t.selected_row().expect("row"), 2),
            Cell::Empty
        );
        t.set_sort(Some((2, SortDir::Desc)), &mut cx);
        t.select(5);
        assert_eq!(
            t.source().cell(t.selected_row().expect("row"), 2),
            Cell::Empty
        );
    }

    #[test]
    fn filter_is_case_insensitive_across_columns() {
        let mut core = core();
        let mut cx = Cx::new(&mut core, Owner::Tab(0));
        let mut t = DataTable::new("t", "none", source(10));
        t.set_filter("ACME", &mut cx);
        assert_eq!(t.visible(), 5);
        t.set_filter("row_0000007", &mut cx);
        assert_eq!(t.visible(), 1);
        // Money is matched as shown.
        t.set_filter("-0.30", &mut cx);
        assert_eq!(t.visible(), 1);
        t.set_filter("", &mut cx);
        assert_eq!(t.visible(), 10);
    }

    #[test]
    fn large_tables_sort_in_the_background_and_latest_wins() {
        let mut core = core();
        let mut t = DataTable::new("t", "none", source(100)).with_sync_limit(10);
        let (first, second) = {
            let mut cx = Cx::new(&mut core, Owner::Tab(0));
            t.set_filter("acme", &mut cx);
            let first = t.busy.expect("background job");
            t.set_filter("acme x", &mut cx);
            (first, t.busy.expect("second job"))
        };
        let mut effects = std::mem::take(&mut core.effects);
        assert!(matches!(effects[0], Effect::Compute { req, .. } if req == first));
        assert_eq!(effects[1], Effect::Cancel(first));
        let Effect::Compute { req, job } = effects.remove(2) else {
            panic!("expected the second job");
        };
        assert_eq!(req, second);
        // A stale result is handed back untouched.
        let stale = Box::new(ViewResult(vec![1, 2, 3])) as JobOutput;
        assert!(t.take_result(first, stale).is_some());
        assert_eq!(t.visible(), 100);
        let out = job.run(&CancelFlag::new());
        assert!(t.take_result(req, out).is_none());
        assert_eq!(t.visible(), 0, "nothing matches 'acme x'");
        assert!(!t.is_busy());
    }

    #[test]
    fn a_million_rows_only_builds_the_visible_ones() {
        use std::sync::atomic::{AtomicUsize, Ordering as AO};
        struct Counting(AtomicUsize);
        impl TableSource for Counting {
            fn columns(&self) -> &[Column] {
                static COLS: std::sync::OnceLock<Vec<Column>> = std::sync::OnceLock::new();
                COLS.get_or_init(|| {
                    vec![Column {
                        title: "n".into(),
                        max_width: 10,
                    }]
                })
            }
            fn len(&self) -> usize {
                1_000_000
            }
            fn cell(&self, row: usize, _col: usize) -> Cell<'_> {
                self.0.fetch_add(1, AO::Relaxed);
                Cell::Int(row as i64)
            }
        }
        let src = Arc::new(Counting(AtomicUsize::new(0)));
        let mut t = DataTable::new("big", "none", src.clone());
        let theme = crate::tui::theme::Theme::mono();
        let keymap = crate::tui::keymap::Keymap::default_keys();
        let load = crate::tui::workspace::LoadState::Loaded;
        let vcx = ViewCx {
            theme: &theme,
            keymap: &keymap,
            tz: &TimeZone::UTC,
            now: 0,
            load: &load,
        };
        let mut buf = Buffer::empty(Rect::new(0, 0, 40, 12));
        t.select(999_999);
        t.render(Rect::new(0, 0, 40, 12), &mut buf, &vcx);
        assert!(
            src.0.load(AO::Relaxed) <= 9,
            "built {} cells",
            src.0.load(AO::Relaxed)
        );
        assert_eq!(t.position(), Some((1_000_000, 1_000_000)));
    }

    #[test]
    fn goto_by_number_or_id_and_csv_export() {
        let mut core = core();
        let mut cx = Cx::new(&mut core, Owner::Tab(0));
        let mut t = DataTable::new("t", "none", source(5));
        assert!(t.goto("3"));
        assert_eq!(t.selected_row(), Some(2));
        assert!(t.goto("ROW_0000004"));
        assert_eq!(t.selected_row(), Some(4));
        assert!(!t.goto("99"));
        t.set_filter("acme", &mut cx);
        let csv = String::from_utf8(t.to_csv()).expect("utf8");
        assert_eq!(
            csv,
            "Id,Amount,Amount currency,Note\r\nrow_0000000,0.00,USD,even Acme\r\nrow_0000002,0.14,USD,even Acme\r\nrow_0000004,0.28,USD,even Acme\r\n"
        );
    }

    #[test]
    fn copy_cell_and_row_emit_copy_effects() {
        let mut core = core();
        let mut t = DataTable::new("t", "none", source(5));
        {
            let mut cx = Cx::new(&mut core, Owner::Tab(0));
            t.select(3);
            t.handle(Action::Right, &mut cx);
            t.handle(Action::CopyCell, &mut cx);
            t.handle(Action::CopyRow, &mut cx);
        }
        assert_eq!(
            core.effects,
            vec![
                Effect::Copy("-0.30".into()),
                Effect::CopyDoc {
                    text: "row_0000003\t-0.30\tUSD\t".into(),
                    ext: "tsv"
                }
            ]
        );
    }

    /// A table filtered to the Acme rows, by amount, largest first.
    fn acme_by_amount(core: &mut Core) -> DataTable {
        let mut cx = Cx::new(core, Owner::Tab(0));
        let mut t = DataTable::new("t", "none", source(5));
        t.set_filter("acme", &mut cx);
        t.set_sort(Some((1, SortDir::Desc)), &mut cx);
        t
    }

    #[test]
    fn copy_table_takes_every_row_shown_in_each_format() {
        use crate::app::settings::CopyFormat;
        let mut core = core();
        let t = acme_by_amount(&mut core);
        assert_eq!(
            t.copy_table(CopyFormat::Tsv).as_deref(),
            Some(
                "Id\tAmount\tAmount currency\tNote\n\
                 row_0000004\t0.28\tUSD\teven Acme\n\
                 row_0000002\t0.14\tUSD\teven Acme\n\
                 row_0000000\t0.00\tUSD\teven Acme\n"
            )
        );
        assert_eq!(
            t.copy_table(CopyFormat::Markdown).as_deref(),
            Some(
                "| Id | Amount | Amount currency | Note |\n\
                 | --- | ---: | --- | --- |\n\
                 | row_0000004 | 0.28 | USD | even Acme |\n\
                 | row_0000002 | 0.14 | USD | even Acme |\n\
                 | row_0000000 | 0.00 | USD | even Acme |\n"
            )
        );
        assert_eq!(
            t.copy_table(CopyFormat::Json).as_deref(),
            Some(
                "[\n  {\"Id\": \"row_0000004\", \"Amount\": \"0.28\", \"Amount currency\": \"USD\", \"Note\": \"even Acme\"},\n  \
                 {\"Id\": \"row_0000002\", \"Amount\": \"0.14\", \"Amount currency\": \"USD\", \"Note\": \"even Acme\"},\n  \
                 {\"Id\": \"row_0000000\", \"Amount\": \"0.00\", \"Amount currency\": \"USD\", \"Note\": \"even Acme\"}\n]\n"
            )
        );
        // The CSV export has the same columns.
        let csv = String::from_utf8(t.to_csv()).expect("utf8");
        assert!(csv.starts_with("Id,Amount,Amount currency,Note\r\nrow_0000004,0.28,USD,"));
    }

    #[test]
    fn copy_row_is_one_line_of_tsv_a_table_of_one_row_or_one_object() {
        use crate::app::settings::CopyFormat;
        let mut core = core();
        let mut t = DataTable::new("t", "none", source(5));
        t.select(3);
        assert_eq!(
            t.copy_row(CopyFormat::Tsv).as_deref(),
            Some("row_0000003\t-0.30\tUSD\t")
        );
        assert_eq!(
            t.copy_row(CopyFormat::Markdown).as_deref(),
            Some(
                "| Id | Amount | Amount currency | Note |\n| --- | ---: | --- | --- |\n\
                 | row_0000003 | -0.30 | USD |  |\n"
            )
        );
        assert_eq!(
            t.copy_row(CopyFormat::Json).as_deref(),
            Some(
                r#"{"Id": "row_0000003", "Amount": "-0.30", "Amount currency": "USD", "Note": null}"#
            )
        );
        // Nothing shown, nothing to copy.
        let mut cx = Cx::new(&mut core, Owner::Tab(0));
        t.set_filter("no such row", &mut cx);
        assert_eq!(t.copy_row(CopyFormat::Tsv), None);
        assert_eq!(t.copy_table(CopyFormat::Json), None);
    }

    #[test]
    fn tabs_newlines_and_pipes_inside_cells_are_escaped() {
        use crate::app::settings::CopyFormat;
        struct Note(&'static str, i64);
        let rows = vec![Note("a\tb", 1), Note("one\ntwo | x\\y\r", 22)];
        let src: Arc<dyn TableSource> = Arc::new(RowsSource::new(
            rows,
            vec![
                col("Note", 20, |r: &Note| Cell::text(r.0)),
                col("Count", 6, |r: &Note| Cell::Int(r.1)),
            ],
        ));
        let t = DataTable::new("t", "none", src);
        assert_eq!(
            t.copy_table(CopyFormat::Tsv).as_deref(),
            Some("Note\tCount\na\\tb\t1\none\\ntwo | x\\\\y\\r\t22\n")
        );
        assert_eq!(
            t.copy_table(CopyFormat::Markdown).as_deref(),
            Some("| Note | Count |\n| --- | ---: |\n| a\tb | 1 |\n| one two \\| x\\y  | 22 |\n")
        );
        assert_eq!(
            t.copy_table(CopyFormat::Json).as_deref(),
            Some(
                "[\n  {\"Note\": \"a\\tb\", \"Count\": 1},\n  {\"Note\": \"one\\ntwo | x\\\\y\\r\", \"Count\": 22}\n]\n"
            )
        );
    }
}
