//! The one vocabulary of user intent. Keys map to an [`Action`] through the keymap; the
//! keymap file names actions by their snake_case name; the help overlay and the key-hint
//! line are generated from [`Action::all`] and each action's description.
//!
//! The [`Group::Typing`] actions (`submit`, `cancel`, `delete_back`, ...) are the editing
//! and confirming keys of the modes that read typed text (the prompts, the SQL editor,
//! the refund confirmation): they are bound in the keymap's mode layers
//! (`[keys.input]`, `[keys.confirm]`) and nowhere else.
//!
//! Who sends it: the keymap (via `update` on a key press), mouse translation, scripted
//! tests. Who handles it: `update::update`, which first offers it to the focused pane or
//! screen and then applies the shell's meaning.

use std::borrow::Cow;

use super::tabs;

macro_rules! actions {
    (
        $( $(#[$m:meta])* $variant:ident => $name:literal, $desc:literal, $group:ident; )*
        @tabs;
        $( $(#[$m2:meta])* $variant2:ident => $name2:literal, $desc2:literal, $group2:ident; )*
    ) => {
        /// A user intent. The name (snake_case) is what keymap files use.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Action {
            $( $(#[$m])* $variant, )*
            /// Go to a tab: its index in the tab list ([`tabs::ALL`]), named
            /// `tab_1`, `tab_2`, ... in keymap files.
            Tab(u8),
            $( $(#[$m2])* $variant2, )*
        }

        impl Action {
            /// Every action, in help order: the tab actions come from the tab list.
            pub fn all() -> Vec<Action> {
                let mut all = vec![$(Action::$variant,)*];
                all.extend((0..tabs::ALL.len()).filter_map(|i| u8::try_from(i).ok()).map(Action::Tab));
                all.extend([$(Action::$variant2,)*]);
                all
            }

            /// The snake_case name used in keymap files.
            pub fn name(self) -> &'static str {
                match self {
                    $(Action::$variant => $name,)*
                    Action::Tab(i) => TAB_NAMES.get(usize::from(i)).copied().unwrap_or("tab"),
                    $(Action::$variant2 => $name2,)*
                }
            }

            /// One line for the help overlay.
            pub fn desc(self) -> Cow<'static, str> {
                match self {
                    $(Action::$variant => Cow::Borrowed($desc),)*
                    Action::Tab(i) => Cow::Owned(format!(
                        "go to the {} tab",
                        tabs::ALL.get(usize::from(i)).map_or("?", |t| t.title)
                    )),
                    $(Action::$variant2 => Cow::Borrowed($desc2),)*
                }
            }

            /// Which help section the action belongs to.
            pub fn group(self) -> Group {
                match self {
                    $(Action::$variant => Group::$group,)*
                    Action::Tab(_) => Group::General,
                    $(Action::$variant2 => Group::$group2,)*
                }
            }
        }
    };
}

/// The keymap names of the tab actions, by registry index (a tab's digit key).
const TAB_NAMES: [&str; 9] = [
    "tab_1", "tab_2", "tab_3", "tab_4", "tab_5", "tab_6", "tab_7", "tab_8", "tab_9",
];

/// Sections of the help overlay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Group {
    General,
    Move,
    Table,
    /// Editing and confirming typed text: the keymap's mode layers take only these.
    Typing,
}

impl Group {
    pub const ALL: [Group; 4] = [Group::General, Group::Move, Group::Table, Group::Typing];
    pub fn title(self) -> &'static str {
        match self {
            Group::General => "General",
            Group::Move => "Moving around",
            Group::Table => "Tables",
            Group::Typing => "Typing",
        }
    }
}

actions! {
    Quit => "quit", "quit tieout", General;
    Help => "help", "show or hide this help", General;
    Palette => "palette", "open the command palette (run an action by name)", General;
    NextTab => "next_tab", "next tab", General;
    PrevTab => "prev_tab", "previous tab", General;
    @tabs;
    Open => "open", "open the selected row (drill in)", General;
    Back => "back", "go back one screen / close the prompt", General;
    Refresh => "refresh", "reload the account (retry after an error)", General;
    CycleTheme => "cycle_theme", "switch to the next colour theme", General;
    Up => "up", "previous row", Move;
    Down => "down", "next row", Move;
    Left => "left", "previous column (scrolls wide tables)", Move;
    Right => "right", "next column (scrolls wide tables)", Move;
    PageUp => "page_up", "one page up", Move;
    PageDown => "page_down", "one page down", Move;
    HalfPageUp => "half_page_up", "half a page up", Move;
    HalfPageDown => "half_page_down", "half a page down", Move;
    Top => "top", "first row", Move;
    Bottom => "bottom", "last row", Move;
    Goto => "goto", "jump to a row number or an id (asks for it)", Move;
    Filter => "filter", "filter rows as you type (all columns)", Table;
    ClearFilter => "clear_filter", "remove the filter", Table;
    Sort => "sort", "sort by this column: ascending, descending, off", Table;
    CopyCell => "copy_cell", "copy the selected cell", Table;
    CopyRow => "copy_row", "copy the selected row (TSV, or copy_format in settings.toml)", Table;
    CopyTable => "copy_table", "copy every row the table shows, filtered and sorted (TSV, Markdown or JSON)", Table;
    Export => "export", "write the rows on screen to a CSV file", Table;
    HideColumn => "hide_column", "hide the selected column (show_columns brings every column back)", Table;
    ShowColumns => "show_columns", "show every column again", Table;
    SaveView => "save_view", "save what this tab shows (filter, facets, sort, columns, month) as a named view in views.toml", Table;
    OpenView => "open_view", "open a saved view by name (views.toml; tieout --view NAME at start)", Table;
    Facets => "facets", "Worklist: filter by retries left, decline, currency or action", Table;
    RecoveryView => "recovery_view", "Worklist: switch between the failed invoices and the recovery picture (what came back, how, how fast)", Table;
    PrevMonth => "prev_month", "Tie-out: show the month before", Table;
    NextMonth => "next_month", "Tie-out: show the month after", Table;
    ChooseMonth => "choose_month", "Tie-out: show the month typed (YYYY-MM)", Table;
    BalanceView => "balance_view", "Tie-out: switch between the payouts and the Stripe balance roll-forward per currency (opening, activity, payouts, closing against Stripe's balance)", Table;
    ApproveRefund => "approve_refund", "Refunds: preview the suggested refund to approve and send it (test mode)", Table;
    ToggleMark => "toggle_mark", "Refunds: mark or unmark the selected approve/partial ticket for a batch", Table;
    ApproveMarked => "approve_marked", "Refunds: preview the marked refunds as one batch to approve and send (asks who approves)", Table;
    FraudView => "fraud_view", "Refunds: switch between the tickets and the early fraud warnings queue (refund now or wait, and what each costs)", Table;
    CopyUrl => "copy_url", "Refunds evidence: copy the selected id's Stripe Dashboard address", Table;
    OpenUrl => "open_url", "Refunds evidence: open the selected id in the Stripe Dashboard (system browser)", Table;
    ExportPacket => "export_packet", "Tie-out: write the month's close packet (asks for the folder)", Table;
    OverwritePacket => "overwrite_packet", "Tie-out: overwrite the packet export found", Table;
    ExportJournal => "export_journal", "Tie-out: write the month's journal for the books into journal-YYYY-MM (formats: [close] in accounts.toml)", Table;
    OverwriteJournal => "overwrite_journal", "Tie-out: overwrite the journal files the export found", Table;
    EditQuery => "edit_query", "Query: edit the SQL (enter runs, up/down history, esc leaves)", Table;
    SavedQuery => "saved_query", "Query: put the next saved query in the editor", Table;
    ExportQuery => "export_query", "Query: write the whole result to query-result.csv/.md/.json", Table;
    Submit => "submit", "accept what was typed (a refund only after yes)", Typing;
    Cancel => "cancel", "leave without accepting (a filter is undone)", Typing;
    DeleteBack => "delete_back", "delete the character before the cursor", Typing;
    DeleteForward => "delete_forward", "delete the character under the cursor", Typing;
    CursorLeft => "cursor_left", "move the cursor one character left", Typing;
    CursorRight => "cursor_right", "move the cursor one character right", Typing;
    LineStart => "line_start", "move the cursor to the start of the line", Typing;
    LineEnd => "line_end", "move the cursor to the end of the line", Typing;
    PrevHistory => "prev_history", "previous query in the history", Typing;
    NextHistory => "next_history", "next query in the history", Typing;
    ClearLine => "clear_line", "clear the text typed", Typing;
    Newline => "newline", "SQL editor: start a new line (expands the editor)", Typing;
    ToggleMultiline => "toggle_multiline", "SQL editor: switch between one line and several rows", Typing;
}

impl Action {
    /// Looks an action up by its keymap name.
    pub fn from_name(name: &str) -> Option<Action> {
        Action::all().into_iter().find(|a| a.name() == name)
    }

    /// Whether this is an editing or confirming action, bound only in a mode layer.
    pub fn is_typing(self) -> bool {
        self.group() == Group::Typing
    }

    /// The names the global and pane layers take (every action but the typing ones),
    /// comma-separated, for error messages.
    pub fn valid_names() -> String {
        Action::all()
            .iter()
            .filter(|a| !a.is_typing())
            .map(|a| a.name())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A short label for the key-hint line.
    pub fn hint(self) -> &'static str {
        match self {
            Action::Quit => "quit",
            Action::Help => "help",
            Action::Palette => "commands",
            Action::NextTab => "next tab",
            Action::Open => "open",
            Action::Back => "back",
            Action::Filter => "filter",
            Action::Sort => "sort",
            Action::Goto => "goto",
            Action::CopyCell => "copy cell",
            Action::CopyRow => "copy",
            Action::CopyTable => "copy table",
            Action::Refresh => "refresh",
            Action::CycleTheme => "theme",
            Action::Export => "export",
            Action::HideColumn => "hide column",
            Action::ShowColumns => "all columns",
            Action::SaveView => "save view",
            Action::OpenView => "open view",
            Action::RecoveryView => "recovery",
            Action::PrevMonth => "month -",
            Action::NextMonth => "month +",
            Action::ChooseMonth => "month",
            Action::BalanceView => "balance",
            Action::ApproveRefund => "approve",
            Action::ToggleMark => "mark",
            Action::ApproveMarked => "approve marked",
            Action::FraudView => "fraud warnings",
            Action::CopyUrl => "url",
            Action::OpenUrl => "stripe",
            Action::ExportPacket => "packet",
            Action::OverwritePacket => "overwrite",
            Action::ExportJournal => "journal",
            Action::OverwriteJournal => "overwrite journal",
            Action::EditQuery => "edit",
            Action::SavedQuery => "saved",
            Action::ExportQuery => "export all",
            // A typed confirmation's way out, on its hint line.
            Action::Cancel => "back",
            other => other.name(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for a in Action::all() {
            assert_eq!(Action::from_name(a.name()), Some(a));
        }
        assert_eq!(Action::from_name("tab_1"), Some(Action::Tab(0)));
        assert!(tabs::ALL.len() <= TAB_NAMES.len(), "one digit key per tab");
        assert_eq!(Action::from_name("launch_rockets"), None);
        assert!(Action::valid_names().contains("copy_row"));
        // The typing actions are named, but only the mode layers take them.
        assert_eq!(Action::from_name("submit"), Some(Action::Submit));
        assert!(Action::Submit.is_typing() && !Action::Open.is_typing());
        assert!(!Action::valid_names().contains("submit"));
    }
}
