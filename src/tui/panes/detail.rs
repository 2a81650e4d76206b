//! The default drill-down screen: every field of the row that was open, one per line.
//! Panes with richer drill-downs push their own screens instead.

use std::sync::Arc;

use crate::tui::action::Action;
use crate::tui::pane::{Cx, Handled, Pane};
use crate::tui::widgets::table::{Cell, DataTable, RowsSource, col};
use crate::tui::workspace::Workspace;

/// A row's fields as a two-column table.
pub struct RowDetail {
    title: String,
    table: DataTable,
}

impl RowDetail {
    /// `title` names the row ("Invoices › in_123"); `fields` are (column, value) pairs.
    pub fn new(title: String, fields: Vec<(String, String)>) -> Self {
        let source = Arc::new(RowsSource::new(
            fields,
            vec![
                col("Field", 24, |r: &(String, String)| Cell::text(&r.0)),
                col("Value", 200, |r| Cell::text(&r.1)),
            ],
        ));
        RowDetail {
            table: DataTable::new(title.clone(), "No fields.", source),
            title,
        }
    }
}

impl Pane for RowDetail {
    fn title(&self) -> String {
        self.title.clone()
    }

    fn on_data(&mut self, _ws: &Workspace, _cx: &mut Cx<'_>) -> bool {
        // A snapshot of one row: it would be stale after a refresh, so close.
        false
    }

    fn handle(&mut self, action: Action, _cx: &mut Cx<'_>) -> Handled {
        // Nothing deeper to open from a single row.
        if action == Action::Open {
            Handled::Yes
        } else {
            Handled::No
        }
    }

    fn table(&self) -> Option<&DataTable> {
        Some(&self.table)
    }

    fn table_mut(&mut self) -> Option<&mut DataTable> {
        Some(&mut self.table)
    }

    fn hints(&self) -> Vec<Action> {
        vec![Action::Back, Action::CopyCell]
    }
}
