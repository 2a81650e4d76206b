//! A tab that is one table built from the workspace: the simplest pane. Give it a title, an
//! empty-state text and a function that builds the table's rows; the shell does the rest
//! (moving, filter, sort, copy, export, open a row's detail).

use std::sync::Arc;

use crate::tui::pane::{Cx, Pane};
use crate::tui::widgets::table::{DataTable, RowsSource, TableSource};
use crate::tui::workspace::Workspace;

/// Builds a table's rows from the workspace.
pub type BuildFn = fn(&Workspace) -> Arc<dyn TableSource>;

/// A tab showing one table.
pub struct TablePane {
    tab: &'static str,
    build: BuildFn,
    table: DataTable,
}

impl TablePane {
    /// `tab` is the tab title, `table_title` the table's own title.
    pub fn new(
        tab: &'static str,
        table_title: &'static str,
        empty: &'static str,
        build: BuildFn,
    ) -> Self {
        let empty_source: Arc<dyn TableSource> =
            Arc::new(RowsSource::<()>::new(Vec::new(), Vec::new()));
        TablePane {
            tab,
            build,
            table: DataTable::new(table_title, empty, empty_source),
        }
    }
}

impl Pane for TablePane {
    fn title(&self) -> String {
        self.tab.to_string()
    }

    fn on_data(&mut self, ws: &Workspace, cx: &mut Cx<'_>) -> bool {
        self.table.set_source((self.build)(ws), cx);
        true
    }

    fn table(&self) -> Option<&DataTable> {
        Some(&self.table)
    }

    fn table_mut(&mut self) -> Option<&mut DataTable> {
        Some(&mut self.table)
    }
}
