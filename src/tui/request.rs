//! How the UI names a piece of work it asked for: a [`RequestId`] (larger is newer, so
//! the latest request wins) and its [`Owner`] (so the result goes back there, and is
//! cancelled when that screen closes). The bottom of the TUI's vocabulary: it imports
//! nothing of the TUI.

/// Identifies one piece of background work. Allocated from a counter (deterministic in
/// tests); larger is newer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(pub u64);

/// Who asked for a piece of work, so its result goes back there and is cancelled when
/// that screen closes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Owner {
    /// The shell itself (loading the account).
    Shell,
    /// A tab, by position in the pane list.
    Tab(usize),
    /// A drill-down screen, by its id.
    Screen(u64),
}
