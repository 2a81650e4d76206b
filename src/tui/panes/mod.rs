//! The tabs and drill-down screens. Each tab lives in its own file and is registered in
//! [`tabs`] (the order is the tab order and the `tab_1..tab_3` keys). Generic pieces:
//! [`table_pane::TablePane`] (a tab that is one table built from the workspace) and
//! [`detail::RowDetail`] (the default drill-down: every field of the selected row).

pub mod detail;
pub mod refunds;
pub mod table_pane;
pub mod tieout;
pub mod worklist;

use super::pane::Pane;

/// The tabs, in order. Add a tab by adding its constructor here.
pub fn tabs() -> Vec<Box<dyn Pane>> {
    vec![worklist::pane(), tieout::pane(), refunds::pane()]
}
