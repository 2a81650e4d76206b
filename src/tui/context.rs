//! What a pane or a widget is handed: [`Work`] while it handles a message (the clock and
//! zone, jobs off the UI task, toasts, the clipboard), [`ViewCx`] while it draws, and
//! [`Handled`], whether it used an action. The pane's own context (`pane::Cx`) implements
//! [`Work`], so a widget such as the virtualised table works for any pane without knowing
//! panes exist.

use jiff::tz::TimeZone;

use super::keymap::Keymap;
use super::msg::Job;
use super::request::RequestId;
use super::theme::Theme;
use crate::app::settings::CopyFormat;

/// Whether a pane used an action; if not, the shell applies its own meaning (table moves,
/// filter, sort, copy, open a row detail, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handled {
    Yes,
    No,
}

/// What a tab did when a jump asked it to show a place (see `Pane::reveal`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reveal {
    /// It shows the place (and pushed the screens that give it context).
    Shown,
    /// It will, once a computation it started is done (a month's tie-out).
    Later,
    /// It does not show this place.
    No,
}

/// The work a widget may ask for while handling a message; everything asked is recorded
/// as data and performed after `update` returns.
pub trait Work {
    /// The run's clock (unix seconds; `--now` in tests).
    fn now(&self) -> i64;
    /// The time zone dates are shown in (`--tz`).
    fn tz(&self) -> &TimeZone;
    /// Runs `job` off the UI task; its output comes back with the returned id.
    fn compute(&mut self, job: Job) -> RequestId;
    /// Drops a request; its result will be ignored.
    fn cancel(&mut self, req: RequestId);
    /// Shows a short message in the status line.
    fn toast(&mut self, text: String);
    /// Shows a short error message in the status line.
    fn toast_error(&mut self, text: String);
    /// Puts text on the clipboard.
    fn copy(&mut self, text: String);
    /// The format rows are copied in (`copy_format` in settings.toml).
    fn copy_format(&self) -> CopyFormat {
        CopyFormat::Tsv
    }
    /// Puts a copy of rows on the clipboard; when it cannot go there it is written to a
    /// file with extension `ext` instead (the status line says where).
    fn copy_doc(&mut self, text: String, _ext: &'static str) {
        self.copy(text);
    }
}

/// What a pane gets while drawing.
pub struct ViewCx<'a> {
    pub theme: &'a Theme,
    pub keymap: &'a Keymap,
    pub tz: &'a TimeZone,
    pub now: i64,
    /// Whether the account is still loading / failed (panes show it in their body).
    pub load: &'a super::workspace::LoadState,
}
