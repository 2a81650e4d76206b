//! The messages that change state and the effects `update` asks the runtime to perform.
//!
//! [`Msg`]: sent by the runtime (terminal events, finished work) and by scripted tests;
//! handled only by `update::update`. [`Effect`]: returned by `update` (panes add them
//! through `Cx`); performed only by `runtime::effects`, whose results come back as `Msg`s
//! tagged with the [`RequestId`] they answer. A result whose request is no longer pending
//! (cancelled, superseded, its screen closed) is dropped: latest wins.

use std::any::Any;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use jiff::tz::TimeZone;

use super::action::Action;
use super::keymap::Key;
use super::workspace::{LoadError, LoadKind, Workspace};
use crate::model::AccountData;
use crate::time::Month;

pub use super::request::{Owner, RequestId};

/// What a finished job hands back; the owner downcasts it to the type it asked for.
pub type JobOutput = Box<dyn Any + Send>;

/// The output of a job that panicked: the shell shows the message and drops the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobFailed(pub String);

/// Set when a job's result is no longer wanted; long jobs check it and stop early.
#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// CPU work to run off the UI task (sorting a large table, computing a tie-out).
pub struct Job {
    /// Shown next to the spinner while it runs ("sorting", "tying out").
    pub label: String,
    pub(crate) run: Box<dyn FnOnce(&CancelFlag) -> JobOutput + Send>,
}

impl Job {
    pub fn new<T: Send + 'static>(
        label: impl Into<String>,
        f: impl FnOnce(&CancelFlag) -> T + Send + 'static,
    ) -> Self {
        Job {
            label: label.into(),
            run: Box::new(move |c| Box::new(f(c)) as JobOutput),
        }
    }

    /// Runs the job on the current thread (the runtime calls this on a worker thread;
    /// tests call it directly).
    pub fn run(self, cancel: &CancelFlag) -> JobOutput {
        (self.run)(cancel)
    }
}

impl fmt::Debug for Job {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Job({:?})", self.label)
    }
}

impl PartialEq for Job {
    fn eq(&self, other: &Self) -> bool {
        self.label == other.label
    }
}

/// A mouse event, already reduced to what the shell cares about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MouseInput {
    ScrollUp { col: u16, row: u16 },
    ScrollDown { col: u16, row: u16 },
    Click { col: u16, row: u16 },
}

/// Holds a staged load's rest back while the first tab builds its first frame, so the two
/// do not share the cores (on two cores the rest's million rows would double the first
/// frame's wait). The loader waits until the hold is released, i.e. dropped: the shell
/// drops it once the first part's jobs are done, or when the load is replaced; the
/// loader also stops waiting after [`RestHold::AT_MOST`].
#[derive(Debug, Default)]
pub struct RestHold {
    /// Never sent on: dropping it is the release.
    _release: Option<std::sync::mpsc::Sender<()>>,
}

impl RestHold {
    /// The longest a loader waits for the release.
    pub const AT_MOST: std::time::Duration = std::time::Duration::from_secs(2);

    /// A hold and what the loader waits on.
    pub fn new() -> (Self, RestWait) {
        let (tx, rx) = std::sync::mpsc::channel();
        (Self { _release: Some(tx) }, RestWait(rx))
    }
}

/// The loader's side of a [`RestHold`].
pub struct RestWait(std::sync::mpsc::Receiver<()>);

impl RestWait {
    /// Waits until the hold is released (or [`RestHold::AT_MOST`] has passed); returns
    /// whether it was released.
    pub fn wait(&self) -> bool {
        self.wait_at_most(RestHold::AT_MOST)
    }

    /// [`Self::wait`] with a bound of `at_most`.
    pub fn wait_at_most(&self, at_most: std::time::Duration) -> bool {
        matches!(
            self.0.recv_timeout(at_most),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) | Ok(())
        )
    }
}

/// Everything that can change the state.
pub enum Msg {
    /// A key press (resolved through the keymap, or typed into a prompt).
    Key(Key),
    /// An action directly (scripted tests, mouse translation).
    Action(Action),
    /// Text pasted into the terminal.
    Paste(String),
    Mouse(MouseInput),
    /// The terminal's new size.
    Resize(u16, u16),
    /// The spinner's clock; sent only while work is pending.
    Tick,
    /// The runtime's look at the cache (every few seconds): the snapshot it holds now.
    /// Newer than the data on screen, the status bar offers it (`refresh` loads it).
    SnapshotOnDisk(crate::app::workbench::OnDisk),
    /// A load finished.
    Loaded {
        req: RequestId,
        kind: LoadKind,
        result: Result<Workspace, LoadError>,
    },
    /// The first part of a load in two parts (the cache): the tables the first tab reads
    /// (tabs that say [`super::pane::Pane::shows_first_part`] get it; the others show
    /// that the rest is loading). The request stays pending until `LoadedRest`.
    LoadedFirst {
        req: RequestId,
        kind: LoadKind,
        ws: Workspace,
        /// Holds the loader back from the rest until the first tab's first frame.
        hold: RestHold,
    },
    /// The rest of a load in two parts: the tables its first part lacked (merged into
    /// it, see `source::load::merge_rest`), or why they could not be read.
    LoadedRest {
        req: RequestId,
        result: Result<Box<AccountData>, LoadError>,
    },
    /// A load or job reports how far it got.
    Progress {
        req: RequestId,
        text: String,
    },
    /// A job finished.
    Computed {
        req: RequestId,
        output: JobOutput,
    },
    /// The clipboard copy finished: where it went, or why it failed.
    Copied(Result<String, String>),
    /// An `Effect::OpenUrl` finished: the opener used, or why nothing was opened.
    Opened(Result<String, String>),
    /// A file was written (its path), or why not.
    Written(Result<PathBuf, String>),
    /// A saved view was written (its name, and every view now in the file), or why not.
    ViewSaved(Result<(String, Vec<crate::app::views::SavedView>), String>),
    /// A close packet export finished (its progress came as `Msg::Progress`).
    PacketExported {
        req: RequestId,
        result: PacketResult,
    },
    /// An `Effect::ExecuteRefund` finished: the gate's outcome, or why it could not run
    /// (no test-mode key, the audit log could not be written).
    RefundExecuted {
        req: RequestId,
        done: RefundDone,
    },
    /// An `Effect::ExecuteBatch` finished: the batch's report, or why it could not run.
    BatchExecuted {
        req: RequestId,
        done: BatchDone,
    },
}

/// What comes back from a confirmed batch (handed to the pane that asked, as its
/// `on_computed` output).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchDone {
    pub outcome: Result<crate::app::refund_batch::BatchReport, String>,
}

/// What comes back from an approved refund (handed to the pane that asked, as its
/// `on_computed` output).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundDone {
    pub ticket: String,
    pub outcome: Result<crate::app::refund_exec::Outcome, String>,
}

impl fmt::Debug for Msg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Msg::Key(k) => write!(f, "Key({k})"),
            Msg::Action(a) => write!(f, "Action({})", a.name()),
            Msg::Paste(t) => write!(f, "Paste({} chars)", t.chars().count()),
            Msg::Mouse(m) => write!(f, "{m:?}"),
            Msg::Resize(w, h) => write!(f, "Resize({w}x{h})"),
            Msg::Tick => f.write_str("Tick"),
            Msg::SnapshotOnDisk(d) => write!(f, "SnapshotOnDisk({d:?})"),
            Msg::Loaded { req, kind, result } => write!(
                f,
                "Loaded({req:?}, {kind:?}, {})",
                if result.is_ok() { "ok" } else { "err" }
            ),
            Msg::LoadedFirst { req, kind, .. } => write!(f, "LoadedFirst({req:?}, {kind:?})"),
            Msg::LoadedRest { req, result } => write!(
                f,
                "LoadedRest({req:?}, {})",
                if result.is_ok() { "ok" } else { "err" }
            ),
            Msg::Progress { req, text } => write!(f, "Progress({req:?}, {text})"),
            Msg::Computed { req, .. } => write!(f, "Computed({req:?})"),
            Msg::Copied(r) => write!(f, "Copied({r:?})"),
            Msg::Opened(r) => write!(f, "Opened({r:?})"),
            Msg::Written(r) => write!(f, "Written({r:?})"),
            Msg::ViewSaved(r) => write!(f, "ViewSaved({:?})", r.as_ref().map(|(n, _)| n)),
            Msg::RefundExecuted { req, done } => write!(f, "RefundExecuted({req:?}, {done:?})"),
            Msg::BatchExecuted { req, .. } => write!(f, "BatchExecuted({req:?})"),
            Msg::PacketExported { req, result } => write!(f, "PacketExported({req:?}, {result:?})"),
        }
    }
}

/// What happened to a refund preview, for the audit log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreviewEvent {
    /// The preview was shown (the proposal).
    Opened,
    /// It was closed without sending.
    Cancelled,
}

/// Side effects as data; the runtime performs them.
#[derive(Debug, PartialEq)]
pub enum Effect {
    /// Load the account (demo, cache, or fresh from Stripe) off the UI task.
    Load { req: RequestId, kind: LoadKind },
    /// Read again from Stripe only the resources in `parts` of `account` (those the
    /// focused pane shows failed), off the UI task; the answer comes back as
    /// `Msg::Loaded` with `LoadKind::Retry(parts)` and is merged into the data on screen.
    Retry {
        req: RequestId,
        parts: crate::model::Parts,
        account: crate::model::AccountIdent,
    },
    /// Run CPU work off the UI task; the result comes back as `Msg::Computed`.
    Compute { req: RequestId, job: Job },
    /// The result of this request is no longer wanted: stop it if possible.
    Cancel(RequestId),
    /// Put text on the clipboard (system clipboard, else OSC 52; a file when it is too
    /// big for OSC 52 or cannot be put there); answered by `Msg::Copied`.
    Copy(String),
    /// Put a copy of table rows (TSV, Markdown or JSON) on the clipboard as `Copy` does;
    /// the fallback file gets the extension `ext`.
    CopyDoc { text: String, ext: &'static str },
    /// Keep the command palette's recent actions (one name a line) for the next session:
    /// `palette-recent.txt` in the data folder, silently (a failure is only logged).
    SaveRecent(String),
    /// Open a Stripe Dashboard address with the system's opener (none over SSH or without
    /// a desktop: the status line says so); answered by `Msg::Opened`.
    OpenUrl(String),
    /// Write a file atomically (refusing to replace a different file).
    Write { path: PathBuf, bytes: Vec<u8> },
    /// Put a saved view in `views.toml` (read again, the view replaced or added, written
    /// atomically); answered by `Msg::ViewSaved`.
    SaveView(crate::app::views::SavedView),
    /// Send the approved refund through the gate (approve, execute; the proposal too if
    /// its preview did not record it) off the UI task, the approval bound to exactly this
    /// proposal; answered by `Msg::RefundExecuted`.
    ExecuteRefund {
        req: RequestId,
        proposal: crate::domain::refund_gate::Proposal,
    },
    /// Record in the refund audit log that the preview of `proposal` was opened or
    /// cancelled (in order with the executions; nothing comes back).
    AuditPreview {
        proposal: crate::domain::refund_gate::Proposal,
        event: PreviewEvent,
    },
    /// Carry out a confirmed batch (`confirmed`: the hash the preview showed) through the
    /// gate off the UI task, item by item; answered by `Msg::BatchExecuted`.
    ExecuteBatch {
        req: RequestId,
        batch: crate::domain::refund_batch::Batch,
        confirmed: String,
    },
    /// Record in the audit log that a batch preview was opened or cancelled.
    AuditBatch {
        batch: crate::domain::refund_batch::Batch,
        event: PreviewEvent,
    },
    /// Write the month-end close packet for `month` into the folder `dir` off the UI task
    /// (the same code as `tieout close`); progress comes back as `Msg::Progress`, the end
    /// as `Msg::PacketExported`. An existing packet is replaced only with `force`.
    ExportPacket {
        req: RequestId,
        month: Month,
        dir: PathBuf,
        force: bool,
        input: PacketInput,
    },
}

/// The data a close packet is built from: the account on screen, the clock and the zone.
#[derive(Clone)]
pub struct PacketInput {
    pub data: Arc<AccountData>,
    pub now: i64,
    pub tz: TimeZone,
    /// The bank statement loaded in the Tie-out tab, if any: the packet gains the bank leg.
    pub bank: Option<Arc<Vec<crate::bank::BankLine>>>,
}

impl fmt::Debug for PacketInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "PacketInput({}, now {}, {})",
            self.data.meta.account_id,
            self.now,
            self.tz.iana_name().unwrap_or("?")
        )
    }
}

impl PartialEq for PacketInput {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.data, &other.data)
            && self.now == other.now
            && self.tz == other.tz
            && self.bank == other.bank
    }
}

/// How a close packet export ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PacketResult {
    /// Written to `dir` (absolute); `files` is how many files the manifest lists.
    Written { dir: PathBuf, files: usize },
    /// A packet is already there and `force` was not given: nothing was changed.
    Exists(PathBuf),
    /// Anything else, in words (nothing half-written is left behind).
    Failed(String),
}
