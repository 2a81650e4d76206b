//! Which columns the table shows: `hide_column` hides the selected one, `show_columns`
//! brings every column back, and a saved view names the columns it keeps. The table
//! draws, sorts, filters and copies a projection of its rows without the hidden columns
//! ([`Projected`]), so everything that leaves the table is what is on screen. Also the
//! table's part of a saved view ([`TableView`]): its filter, sort and visible columns,
//! all by column title so a view survives new data.

use super::*;
use crate::app::views::{Direction, SavedView, Sort};

/// The table's part of a saved view.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableView {
    pub filter: String,
    /// The sort column's title and the direction.
    pub sort: Option<(String, SortDir)>,
    /// The visible columns' titles, in order; empty: every column.
    pub columns: Vec<String>,
}

impl TableView {
    /// A saved view's table part.
    pub fn of_saved(v: &SavedView) -> TableView {
        TableView {
            filter: v.filter.clone(),
            sort: v.sort.as_ref().map(|s| {
                (
                    s.column.clone(),
                    match s.direction {
                        Direction::Asc => SortDir::Asc,
                        Direction::Desc => SortDir::Desc,
                    },
                )
            }),
            columns: v.columns.clone(),
        }
    }

    /// As a saved view (no name or tab yet: the shell fills them in).
    pub fn to_saved(self) -> SavedView {
        SavedView {
            filter: self.filter,
            columns: self.columns,
            sort: self.sort.map(|(column, d)| Sort {
                column,
                direction: match d {
                    SortDir::Asc => Direction::Asc,
                    SortDir::Desc => Direction::Desc,
                },
            }),
            ..SavedView::default()
        }
    }
}

/// A source's rows with only some of its columns.
struct Projected {
    inner: Arc<dyn TableSource>,
    /// Indices into the inner source's columns, in order.
    keep: Vec<usize>,
    columns: Vec<Column>,
}

impl TableSource for Projected {
    fn columns(&self) -> &[Column] {
        &self.columns
    }
    fn len(&self) -> usize {
        self.inner.len()
    }
    fn cell(&self, row: usize, col: usize) -> Cell<'_> {
        match self.keep.get(col) {
            Some(c) => self.inner.cell(row, *c),
            None => Cell::Text(Cow::Borrowed("")),
        }
    }
    fn row_role(&self, row: usize) -> Option<Role> {
        self.inner.row_role(row)
    }
}

/// `base` without the columns titled in `hidden` (itself when none is hidden; never
/// without every column: a source whose columns are all hidden is shown whole).
pub(super) fn project(base: &Arc<dyn TableSource>, hidden: &[String]) -> Arc<dyn TableSource> {
    let cols = base.columns();
    let keep: Vec<usize> = (0..cols.len())
        .filter(|c| !hidden.contains(&cols[*c].title))
        .collect();
    if keep.len() == cols.len() || keep.is_empty() {
        return Arc::clone(base);
    }
    let columns = keep.iter().map(|c| cols[*c].clone()).collect();
    Arc::new(Projected {
        inner: Arc::clone(base),
        keep,
        columns,
    })
}

impl DataTable {
    /// The titles of the hidden columns.
    pub fn hidden_columns(&self) -> &[String] {
        &self.hidden
    }

    /// Hides the columns titled `hidden` (and shows the others), keeping the sort and
    /// the selected column when they are still shown.
    pub fn set_hidden(&mut self, hidden: Vec<String>, cx: &mut dyn Work) {
        let sort = self.sort.map(|(c, d)| (self.column_title(c), d));
        let col = self.column_title(self.col);
        self.hidden = hidden;
        self.source = project(&self.base, &self.hidden);
        let find = |t: &str| self.source.columns().iter().position(|c| c.title == t);
        self.sort = sort.and_then(|(t, d)| find(&t).map(|c| (c, d)));
        // The column hidden: its neighbour (the next, else the one before) is selected.
        let at = self.col.min(self.source.columns().len().saturating_sub(1));
        self.col = find(&col).unwrap_or(at);
        self.recompute(cx);
    }

    /// Hides the selected column (never the last one shown).
    pub fn hide_selected_column(&mut self, cx: &mut dyn Work) {
        if self.source.columns().len() <= 1 {
            cx.toast_error("the last column shown stays".into());
            return;
        }
        let title = self.column_title(self.col);
        let mut hidden = self.hidden.clone();
        hidden.push(title.clone());
        self.set_hidden(hidden, cx);
        cx.toast(format!("hid {title} (show_columns brings it back)"));
    }

    /// The filter, sort and visible columns, by title.
    pub fn table_view(&self) -> TableView {
        if let Some(view) = &self.pending {
            return view.clone();
        }
        TableView {
            filter: self.filter.clone(),
            sort: self.sort.map(|(c, d)| (self.column_title(c), d)),
            columns: if self.hidden.is_empty() {
                Vec::new()
            } else {
                self.source
                    .columns()
                    .iter()
                    .map(|c| c.title.clone())
                    .collect()
            },
        }
    }

    /// Shows `view`: its columns (a title the table does not have is ignored), its sort
    /// (off when its column is not shown) and its filter.
    pub fn apply_table_view(&mut self, view: &TableView, cx: &mut dyn Work) {
        if self.base.columns().is_empty() {
            // No rows yet (the account is loading): shown when they come.
            self.pending = Some(view.clone());
            self.filter = view.filter.clone();
            return;
        }
        let hidden = if view.columns.is_empty() {
            Vec::new()
        } else {
            self.base
                .columns()
                .iter()
                .filter(|c| !view.columns.contains(&c.title))
                .map(|c| c.title.clone())
                .collect()
        };
        self.hidden = hidden;
        self.source = project(&self.base, &self.hidden);
        self.sort = view.sort.as_ref().and_then(|(t, d)| {
            let c = self.source.columns().iter().position(|c| &c.title == t)?;
            Some((c, *d))
        });
        self.col = self.col.min(self.source.columns().len().saturating_sub(1));
        self.filter = view.filter.clone();
        self.recompute(cx);
    }

    /// Ok when every column `view` names (to show, or to sort by) is a column of the rows,
    /// or when no rows came yet; else which are not, and the columns there are.
    pub fn check_view(&self, view: &TableView) -> Result<(), String> {
        let have = self.all_columns();
        if have.is_empty() {
            return Ok(());
        }
        let named = (view.columns.iter()).chain(view.sort.as_ref().map(|(t, _)| t));
        let unknown: Vec<&str> = named
            .filter(|t| !have.contains(t))
            .map(String::as_str)
            .collect();
        if unknown.is_empty() {
            return Ok(());
        }
        Err(format!(
            "no column {} in the {} table (its columns: {})",
            unknown
                .iter()
                .map(|t| format!("\"{t}\""))
                .collect::<Vec<_>>()
                .join(", "),
            self.title(),
            have.join(", ")
        ))
    }

    /// The titles of every column the rows have, hidden or not.
    pub fn all_columns(&self) -> Vec<String> {
        self.base
            .columns()
            .iter()
            .map(|c| c.title.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::money::Currency;
    use crate::tui::msg::Owner;
    use crate::tui::pane::{Core, Cx};

    fn source() -> Arc<dyn TableSource> {
        let rows: Vec<(i64, &'static str)> = vec![(300, "b"), (100, "a"), (200, "c")];
        Arc::new(RowsSource::new(
            rows,
            vec![
                col("Name", 10, |r: &(i64, &'static str)| Cell::text(r.1)),
                col("Amount", 12, |r: &(i64, &'static str)| {
                    Cell::Money(Money::new(r.0, Currency::USD))
                }),
                col("Note", 10, |_: &(i64, &'static str)| Cell::text("x")),
            ],
        ))
    }

    #[test]
    fn a_hidden_column_leaves_the_copies_and_the_sort_follows_its_title() {
        let mut core = Core::new(0, TimeZone::UTC);
        let mut cx = Cx::new(&mut core, Owner::Tab(0));
        let mut t = DataTable::new("t", "none", source());
        t.handle(Action::Right, &mut cx);
        t.handle(Action::Sort, &mut cx);
        t.handle(Action::Right, &mut cx);
        t.handle(Action::HideColumn, &mut cx);
        assert_eq!(t.hidden_columns(), ["Note".to_string()]);
        let csv = String::from_utf8(t.to_csv()).expect("utf8");
        assert_eq!(
            csv.lines().next(),
            Some("Name,Amount,Amount currency"),
            "{csv}"
        );
        assert_eq!(
            t.table_view(),
            TableView {
                filter: String::new(),
                sort: Some(("Amount".into(), SortDir::Asc)),
                columns: vec!["Name".into(), "Amount".into()],
            }
        );
        // Hiding the sort column turns the sort off; the last column always stays.
        assert_eq!(t.selected_col(), 1, "the neighbour of the column hidden");
        t.handle(Action::HideColumn, &mut cx);
        assert_eq!(t.sort(), None);
        t.handle(Action::HideColumn, &mut cx);
        assert_eq!(t.source().columns().len(), 1);
        t.handle(Action::ShowColumns, &mut cx);
        assert_eq!(t.source().columns().len(), 3);
        // A view applied before the rows come waits for them.
        let view = t.table_view();
        let mut later =
            DataTable::new("t", "none", Arc::new(RowsSource::<()>::new(vec![], vec![])));
        let want = TableView {
            filter: "a".into(),
            sort: Some(("Amount".into(), SortDir::Desc)),
            columns: vec!["Amount".into(), "Name".into()],
        };
        later.apply_table_view(&want, &mut cx);
        later.set_source(source(), &mut cx);
        assert_eq!(later.hidden_columns(), ["Note".to_string()]);
        assert_eq!(later.sort(), Some((1, SortDir::Desc)));
        assert_eq!(later.visible(), 1);
        assert_eq!(
            view.columns,
            Vec::<String>::new(),
            "every column shown: none listed"
        );
    }
}
