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

/// One tab of the registry.
pub struct Tab {
    /// The name of the tab's keymap layer (`[keys.<key>]`) and of its context.
    pub key: &'static str,
    /// The tab's title: its pane's `title()` (a test checks) and its name in the help
    /// ("go to the Worklist tab").
    pub title: &'static str,
    /// Builds the tab's pane.
    pub make: fn() -> Box<dyn Pane>,
}

/// The tabs, in order: the tab line, the `tab_1`, `tab_2`, ... actions and the keymap
/// layers follow this list. Add a tab by adding its entry here (and its digit key to the
/// keymap's global layer).
pub const TABS: &[Tab] = &[
    Tab {
        key: "worklist",
        title: "Worklist",
        make: worklist::pane,
    },
    Tab {
        key: "tieout",
        title: "Tie-out",
        make: tieout::pane,
    },
    Tab {
        key: "refunds",
        title: "Refunds",
        make: refunds::pane,
    },
    Tab {
        key: "query",
        title: "Query",
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
    TABS.iter().find(|t| t.title == title).map(|t| t.key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_tab_has_its_title_and_its_own_key() {
        for (i, t) in TABS.iter().enumerate() {
            assert_eq!((t.make)().title(), t.title);
            assert!(
                TABS[..i]
                    .iter()
                    .all(|u| u.key != t.key && u.title != t.title)
            );
            assert_eq!(context_of((t.make)().as_ref()), Some(t.key));
        }
    }
}
