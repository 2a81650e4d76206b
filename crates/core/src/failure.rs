//! The error vocabulary every floor shares: what kind of failure ended a piece of work and
//! the message that says what happened and what to do. Only the command line turns a
//! [`FailKind`] into an exit code; nothing below it knows the numbers.

/// What kind of failure ended a command; decides the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailKind {
    /// 1: anything else (a file could not be written, ...).
    Other,
    /// 2: the command line or an input file was wrong.
    Usage,
    /// 3: no key, a refused key, or a missing permission.
    Key,
    /// 4: Stripe or the network failed after retries.
    Stripe,
    /// 5: data that could not be tied out or understood.
    Data,
}

/// A failed command: what happened and what to do, and the exit code it maps to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Failure {
    pub kind: FailKind,
    pub message: String,
}

impl Failure {
    pub fn new(kind: FailKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(FailKind::Usage, message)
    }
    pub fn other(message: impl Into<String>) -> Self {
        Self::new(FailKind::Other, message)
    }
    pub fn data(message: impl Into<String>) -> Self {
        Self::new(FailKind::Data, message)
    }
}
