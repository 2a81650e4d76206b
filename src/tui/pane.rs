//! The extension point: a [`Pane`] is one tab (Worklist, Tie-out, Refunds) or one
//! drill-down screen pushed on top of them. Panes hold their own UI state, compute views
//! from the [`Workspace`], and ask for work through [`Cx`]; they own no channels and do no
//! IO. See the module doc of `tui` for a walk-through.

use std::collections::BTreeMap;

use jiff::tz::TimeZone;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::action::Action;
pub use super::context::{Handled, Reveal, ViewCx, Work};
use super::keymap::Input;
use super::msg::{Effect, Job, JobOutput, Owner, RequestId};
use super::prompt::{Prompt, PromptKind};
use super::widgets::table::{DataTable, TableView};
use super::workspace::Workspace;
use crate::app::settings::CopyFormat;
pub use crate::domain::locate::Place;

/// One tab or drill-down screen.
pub trait Pane {
    /// The tab or screen title ("Tie-out", "Payout po_123").
    fn title(&self) -> String;

    /// The account was loaded or refreshed: rebuild what the pane shows. Called once per
    /// load for tabs; screens get it too so they can refresh (or close themselves by
    /// returning `false` when what they showed is gone).
    fn on_data(&mut self, ws: &Workspace, cx: &mut Cx<'_>) -> bool;

    /// Whether this tab is shown from the first part of a load in two parts (the tables
    /// `source::load::FIRST_PART` reads: the Worklist's). Tabs that need more (payouts,
    /// balance transactions, refunds) get `on_data` once the rest has arrived.
    fn shows_first_part(&self) -> bool {
        false
    }

    /// An action while this pane has focus. Return `Handled::No` to let the shell apply
    /// its default (most panes only handle `Open`).
    fn handle(&mut self, _action: Action, _cx: &mut Cx<'_>) -> Handled {
        Handled::No
    }

    /// A job this pane asked for (through `Cx::compute`) finished. Results for the pane's
    /// table (sort/filter of large tables) are routed to the table before this is called.
    fn on_computed(&mut self, _req: RequestId, _output: JobOutput, _cx: &mut Cx<'_>) {}

    /// The pane's main table, if it has one: the shell then handles moving, filter, sort,
    /// goto, copy, export and mouse for it, and shows its position in the status bar.
    fn table(&self) -> Option<&DataTable> {
        None
    }
    fn table_mut(&mut self) -> Option<&mut DataTable> {
        None
    }

    /// Draws the pane into `area`. `&mut self` so tables can keep their scroll offset.
    /// By default: the pane's table over the whole area (nothing for a pane without one).
    fn render(&mut self, area: Rect, buf: &mut Buffer, cx: &ViewCx<'_>) {
        if let Some(table) = self.table_mut() {
            table.render(area, buf, cx);
        }
    }

    /// A jump to an id (`goto`, see `crate::domain::locate`) asks this tab to show
    /// `place`: select its row and push the drill-down screens that give it context.
    /// A tab that does not show such a place, or does not hold this one, answers
    /// [`Reveal::No`] and changes nothing.
    fn reveal(&mut self, _place: &Place, _cx: &mut Cx<'_>) -> Reveal {
        Reveal::No
    }

    /// Where the user is in this tab or screen, as a place [`Pane::reveal`] can show
    /// again after new data (a refresh keeps it). `None`: nothing worth keeping.
    fn place(&self) -> Option<Place> {
        None
    }

    /// What the pane shows, as a saved view (`save_view`; the shell fills in its name and
    /// tab): by default its table's filter, sort and visible columns. `Err`: why this
    /// cannot be saved (no table, a view the file does not keep).
    fn view_state(&self) -> Result<crate::app::views::SavedView, String> {
        match self.table() {
            Some(t) => Ok(t.table_view().to_saved()),
            None => Err("this screen has no table to save".into()),
        }
    }

    /// Shows a saved view (`open_view`, `tieout --view NAME`): by default its filter,
    /// sort and columns on the pane's table. Called before the data came, too: the pane
    /// keeps what it cannot show yet.
    fn apply_view(
        &mut self,
        view: &crate::app::views::SavedView,
        cx: &mut Cx<'_>,
    ) -> Result<(), String> {
        match self.table_mut() {
            Some(t) => {
                let view = TableView::of_saved(view);
                t.check_view(&view)?;
                t.apply_table_view(&view, cx);
                Ok(())
            }
            None => Err("this tab has no table to show a view in".into()),
        }
    }

    /// The user answered a prompt this pane opened with [`Cx::prompt`] (Enter).
    fn on_prompt(&mut self, _kind: PromptKind, _text: &str, _cx: &mut Cx<'_>) {}

    /// Actions worth advertising on the hint line while this pane has focus (the keys are
    /// looked up in the keymap).
    fn hints(&self) -> Vec<Action> {
        vec![Action::Open, Action::Filter, Action::Sort, Action::CopyRow]
    }

    /// The keymap mode layer ([`INPUT`](super::keymap::INPUT),
    /// [`CONFIRM`](super::keymap::CONFIRM)) while the pane reads typed text (an editor, a
    /// typed confirmation): keys then resolve in that layer alone and come to
    /// [`Pane::input`], as its typing actions or as text. `None` (the default): keys are
    /// actions of the global and tab layers.
    fn key_mode(&self) -> Option<&'static str> {
        None
    }

    /// What the pane reads, so a resource the key could not read marks only the panes
    /// (and columns) that need it. By default: nothing (never marked).
    fn reads(&self) -> Reads {
        Reads::default()
    }

    /// True while the pane reads typed text ([`Pane::key_mode`] is set).
    fn captures_keys(&self) -> bool {
        self.key_mode().is_some()
    }

    /// A typing action of the pane's mode layer, or a character typed, while
    /// [`Pane::key_mode`] is set.
    fn input(&mut self, _input: Input, _cx: &mut Cx<'_>) {}
}

/// What a pane reads from the account (see [`Pane::reads`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Reads {
    /// Without these the pane has nothing true to show.
    pub needs: &'static [crate::model::Resource],
    /// These feed only some columns or screens: the resource and what it feeds.
    pub partly: &'static [(crate::model::Resource, &'static str)],
}

impl Reads {
    /// The lines that mark a pane for the resources `gaps` could not read: what is
    /// missing and what to do, and for a resource only some columns need, which.
    /// Whether the pane reads `r` at all (a pane that declares nothing may read anything).
    pub fn touches(&self, r: crate::model::Resource) -> bool {
        (self.needs.is_empty() && self.partly.is_empty())
            || self.needs.contains(&r)
            || self.partly.iter().any(|(p, _)| *p == r)
    }

    /// The resources of `gaps` the pane is marked for that a retry may bring (they failed;
    /// a missing permission needs the key changed): what its `refresh` reads again.
    pub fn retryable(&self, gaps: &[crate::tui::workspace::Gap]) -> crate::model::Parts {
        crate::model::Parts::of(
            gaps.iter()
                .filter(|g| g.retryable())
                .filter(|g| {
                    self.needs.contains(&g.resource)
                        || self.partly.iter().any(|(r, _)| *r == g.resource)
                })
                .map(|g| g.resource),
        )
    }

    pub fn marks(&self, gaps: &[crate::tui::workspace::Gap]) -> Vec<String> {
        let mut out = Vec::new();
        for g in gaps {
            if self.needs.contains(&g.resource) {
                out.push(g.message());
            } else if let Some((_, what)) = self.partly.iter().find(|(r, _)| *r == g.resource) {
                out.push(format!("{what}: {}", g.message()));
            }
        }
        out
    }
}

/// A short-lived message at the bottom of the screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toast {
    pub text: String,
    pub error: bool,
}

/// The parts of the state panes may reach while handling a message.
pub struct Core {
    pub now: i64,
    /// See `Settings::clock_runs`.
    pub clock_runs: bool,
    pub tz: TimeZone,
    pub workspace: Option<Workspace>,
    next_req: u64,
    /// Work in flight: who asked and what it is (shown next to the spinner).
    pub(crate) pending: BTreeMap<RequestId, (Owner, String)>,
    pub(crate) effects: Vec<Effect>,
    pub(crate) pushed: Vec<Box<dyn Pane>>,
    pub(crate) toast: Option<Toast>,
    pub(crate) close_self: bool,
    /// A prompt a pane asked to open (the shell opens it after the action).
    pub(crate) prompt: Option<Prompt>,
    /// The format table rows are copied in (`copy_format` in settings.toml).
    pub copy_format: CopyFormat,
}

impl Core {
    pub fn new(now: i64, tz: TimeZone) -> Self {
        Core {
            now,
            clock_runs: false,
            tz,
            workspace: None,
            next_req: 1,
            pending: BTreeMap::new(),
            effects: Vec::new(),
            pushed: Vec::new(),
            toast: None,
            close_self: false,
            prompt: None,
            copy_format: CopyFormat::default(),
        }
    }

    /// A fresh request id, recorded as pending for `owner`.
    pub(crate) fn request(&mut self, owner: Owner, label: impl Into<String>) -> RequestId {
        let req = RequestId(self.next_req);
        self.next_req += 1;
        self.pending.insert(req, (owner, label.into()));
        req
    }

    /// Cancels a pending request (its result, if any, will be dropped).
    pub(crate) fn cancel(&mut self, req: RequestId) {
        if self.pending.remove(&req).is_some() {
            self.effects.push(Effect::Cancel(req));
        }
    }

    /// Cancels everything `owner` asked for (its screen closed).
    pub(crate) fn cancel_owned_by(&mut self, owner: Owner) {
        let reqs: Vec<RequestId> = self
            .pending
            .iter()
            .filter(|(_, (o, _))| *o == owner)
            .map(|(r, _)| *r)
            .collect();
        for r in reqs {
            self.cancel(r);
        }
    }
}

/// What a pane gets while handling a message: the clock, the data, and ways to ask for
/// work. Everything it asks for is recorded as data and performed after `update` returns.
pub struct Cx<'a> {
    pub(crate) core: &'a mut Core,
    pub(crate) owner: Owner,
}

impl<'a> Cx<'a> {
    pub fn new(core: &'a mut Core, owner: Owner) -> Self {
        Cx { core, owner }
    }

    /// The run's clock (unix seconds; `--now` in tests).
    pub fn now(&self) -> i64 {
        self.core.now
    }

    /// The time now: the run's clock when fixed (`--now`, tests), else the system clock
    /// (a refund batch's preview time and expiry).
    pub fn wall_now(&self) -> i64 {
        if self.core.clock_runs {
            crate::time::now_unix()
        } else {
            self.core.now
        }
    }

    /// The time zone dates are shown in (`--tz`).
    pub fn tz(&self) -> &TimeZone {
        &self.core.tz
    }

    /// The loaded account, if any.
    pub fn workspace(&self) -> Option<&Workspace> {
        self.core.workspace.as_ref()
    }

    /// Runs `job` off the UI task; its output comes back to this pane's `on_computed`
    /// with the returned id. The previous request is not cancelled automatically: call
    /// [`Cx::cancel`] when a new request supersedes it.
    pub fn compute(&mut self, job: Job) -> RequestId {
        let req = self.core.request(self.owner, job.label.clone());
        self.core.effects.push(Effect::Compute { req, job });
        req
    }

    /// Whether a request is still wanted (not cancelled or finished).
    pub fn is_pending(&self, req: RequestId) -> bool {
        self.core.pending.contains_key(&req)
    }

    /// Drops a request this pane made; its result will be ignored.
    pub fn cancel(&mut self, req: RequestId) {
        self.core.cancel(req);
    }

    /// Opens a drill-down screen on top of the current one (Esc comes back).
    pub fn push(&mut self, screen: Box<dyn Pane>) {
        self.core.pushed.push(screen);
    }

    /// Closes this screen (drill-downs only; tabs ignore it).
    pub fn close(&mut self) {
        self.core.close_self = true;
    }

    /// Shows a short message in the status line.
    pub fn toast(&mut self, text: impl Into<String>) {
        self.core.toast = Some(Toast {
            text: text.into(),
            error: false,
        });
    }

    /// Shows a short error message in the status line.
    pub fn toast_error(&mut self, text: impl Into<String>) {
        self.core.toast = Some(Toast {
            text: text.into(),
            error: true,
        });
    }

    /// Puts text on the clipboard.
    pub fn copy(&mut self, text: String) {
        self.core.effects.push(Effect::Copy(text));
    }

    /// Puts a copy of table rows on the clipboard, or in a file named `*.ext` when the
    /// clipboard cannot take it.
    pub fn copy_doc(&mut self, text: String, ext: &'static str) {
        self.core.effects.push(Effect::CopyDoc { text, ext });
    }

    /// Sends an approved refund through the gate (see `Effect::ExecuteRefund`); the
    /// outcome comes back to this pane's `on_computed` as a `msg::RefundDone`.
    pub fn execute_refund(&mut self, proposal: crate::domain::refund_gate::Proposal) -> RequestId {
        let req = self
            .core
            .request(self.owner, format!("refunding {}", proposal.ticket));
        self.core
            .effects
            .push(Effect::ExecuteRefund { req, proposal });
        req
    }

    /// Any other effect (e.g. writing an export).
    pub fn effect(&mut self, effect: Effect) {
        self.core.effects.push(effect);
    }

    /// Opens a one-line prompt with `text` filled in; Enter hands the text to this
    /// pane's [`Pane::on_prompt`], Esc closes it.
    pub fn prompt(&mut self, kind: PromptKind, text: impl Into<String>) {
        self.core.prompt = Some(Prompt {
            kind,
            text: text.into(),
            before: String::new(),
        });
    }

    /// Records a piece of work the runtime performs (an export): pending until its
    /// result comes back, shown next to the spinner with `label`.
    pub fn request(&mut self, label: impl Into<String>) -> RequestId {
        self.core.request(self.owner, label)
    }
}

impl Work for Cx<'_> {
    fn now(&self) -> i64 {
        Cx::now(self)
    }
    fn tz(&self) -> &TimeZone {
        Cx::tz(self)
    }
    fn compute(&mut self, job: Job) -> RequestId {
        Cx::compute(self, job)
    }
    fn cancel(&mut self, req: RequestId) {
        Cx::cancel(self, req);
    }
    fn toast(&mut self, text: String) {
        Cx::toast(self, text);
    }
    fn toast_error(&mut self, text: String) {
        Cx::toast_error(self, text);
    }
    fn copy(&mut self, text: String) {
        Cx::copy(self, text);
    }
    fn copy_format(&self) -> CopyFormat {
        self.core.copy_format
    }
    fn copy_doc(&mut self, text: String, ext: &'static str) {
        Cx::copy_doc(self, text, ext);
    }
}
