//! The workbench's tabs by name, in order: each tab's key (its keymap layer `[keys.<key>]`
//! and context) and title. The vocabulary the actions (`tab_1`, `tab_2`, ...) and the
//! keymap read; the pane registry (`panes::TABS`) pairs each name with the pane that
//! draws it, and a test there checks both lists agree.

/// A tab's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TabName {
    /// The name of the tab's keymap layer (`[keys.<key>]`) and of its context.
    pub key: &'static str,
    /// The tab's title: its pane's `title()` and its name in the help ("go to the
    /// Worklist tab").
    pub title: &'static str,
}

impl TabName {
    const fn new(key: &'static str, title: &'static str) -> Self {
        TabName { key, title }
    }
}

pub const WORKLIST: TabName = TabName::new("worklist", "Worklist");
pub const TIEOUT: TabName = TabName::new("tieout", "Tie-out");
pub const REFUNDS: TabName = TabName::new("refunds", "Refunds");
pub const QUERY: TabName = TabName::new("query", "Query");

/// The tabs, in order: the tab line, the `tab_1`, `tab_2`, ... actions and the keymap
/// layers follow this list.
pub const ALL: &[TabName] = &[WORKLIST, TIEOUT, REFUNDS, QUERY];
