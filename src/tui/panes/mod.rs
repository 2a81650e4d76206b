//! The tabs and drill-down screens. Each tab lives in its own file and is registered in
//! [`TABS`] (the order is the tab order and the `tab_1`, `tab_2`, ... keys). Generic pieces:
//! [`table_pane::TablePane`] (a tab that is one table built from the workspace) and
//! [`detail::RowDetail`] (the default drill-down: every field of the selected row).

pub mod detail;
pub mod query;
pub mod refunds;
pub mod table_pane;
pub mod tieout;
pub mod worklist;

use super::pane::Pane;
use super::tabs::{self, TabName};

/// One tab of the registry.
pub struct Tab {
    /// Its key and title (`tui::tabs`).
    pub name: TabName,
    /// Builds the tab's pane.
    pub make: fn() -> Box<dyn Pane>,
}

/// The tabs, in the order of [`tabs::ALL`]: each name with the pane that draws it. Add a
/// tab by adding its name to `tui::tabs`, its entry here (and its digit key to the
/// keymap's global layer).
pub const TABS: &[Tab] = &[
    Tab {
        name: tabs::WORKLIST,
        make: worklist::pane,
    },
    Tab {
        name: tabs::TIEOUT,
        make: tieout::pane,
    },
    Tab {
        name: tabs::REFUNDS,
        make: refunds::pane,
    },
    Tab {
        name: tabs::QUERY,
        make: query::pane,
    },
];

/// The registered tabs' panes, in order.
pub fn tabs() -> Vec<Box<dyn Pane>> {
    TABS.iter().map(|t| (t.make)()).collect()
}

/// The registry key (keymap layer) of a tab's pane, found by its title.
pub fn context_of(pane: &dyn Pane) -> Option<&'static str> {
    let title = pane.title();
    TABS.iter()
        .find(|t| t.name.title == title)
        .map(|t| t.name.key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_tab_has_its_title_and_its_own_key() {
        let names: Vec<TabName> = TABS.iter().map(|t| t.name).collect();
        assert_eq!(names, tabs::ALL, "the registry follows tui::tabs, in order");
        for (i, t) in TABS.iter().enumerate() {
            assert_eq!((t.make)().title(), t.name.title);
            assert!(
                TABS[..i]
                    .iter()
                    .all(|u| u.name.key != t.name.key && u.name.title != t.name.title)
            );
            assert_eq!(context_of((t.make)().as_ref()), Some(t.name.key));
        }
    }
}
