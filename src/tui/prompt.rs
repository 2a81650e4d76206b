//! The one-line prompts at the bottom of the screen (filter, go to, a month or a folder for
//! the Tie-out): which is open and what was typed. An action that needs an argument opens
//! one, from its key or from the command palette alike. Vocabulary shared by the shell's
//! state and the panes that open a prompt.

/// Which line prompt is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    /// Filter the focused table as you type.
    Filter,
    /// Jump to a row number or an id.
    Goto,
    /// The folder to write the month's close packet into (the Tie-out pane answers).
    PacketDir,
    /// The month to show, `YYYY-MM` (the Tie-out pane answers).
    Month,
    /// Who approves the marked refunds: a name from the gate policy's approvers (the
    /// Refunds pane answers).
    Approver,
    /// The name to save the tab's view under (the shell answers: `update::views`).
    SaveView,
    /// The saved view to open (the shell answers).
    OpenView,
}

/// A one-line text prompt at the bottom of the screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub kind: PromptKind,
    pub text: String,
    /// The filter before the prompt opened (restored on Esc).
    pub before: String,
}
