//! The one-line prompts at the bottom of the screen (filter, go to, a folder for the close
//! packet): which is open and what was typed. Vocabulary shared by the shell's state and
//! the panes that open a prompt.

/// Which line prompt is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    /// Filter the focused table as you type.
    Filter,
    /// Jump to a row number or an id.
    Goto,
    /// The folder to write the month's close packet into (the Tie-out pane answers).
    PacketDir,
}

/// A one-line text prompt at the bottom of the screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub kind: PromptKind,
    pub text: String,
    /// The filter before the prompt opened (restored on Esc).
    pub before: String,
}
