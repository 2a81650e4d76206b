//! Performs the effects `update` returns. Loads and jobs run on worker threads (so a
//! loader may block, or start its own async runtime); their results come back on the
//! message channel tagged with their request id. Cancelling sets the job's flag; a result
//! that still arrives is dropped by `update` because its request is no longer pending.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use tokio::sync::mpsc::Sender;

use super::clipboard::{self, Tool};
use super::opener;
use crate::model::AccountData;
use crate::time::Month;
use crate::tui::msg::{
    CancelFlag, Effect, JobFailed, Msg, PacketInput, PacketResult, RequestId, RestHold,
};
use crate::tui::workspace::{LoadError, LoadKind, Workspace};

/// Reads the account for the TUI. Runs on a worker thread; may block.
pub trait Loader: Send + Sync + 'static {
    fn load(
        &self,
        kind: LoadKind,
        progress: &(dyn Fn(String) + Send + Sync),
    ) -> Result<Workspace, LoadError>;

    /// Loads in two parts where `kind` allows it (the cache): the tables the first tab
    /// reads are handed to `first` as soon as they are read (sent as `Msg::LoadedFirst`),
    /// and the rest is returned as [`LoadEnd::Rest`] (sent as `Msg::LoadedRest`). By
    /// default a loader loads in one go ([`LoadEnd::Whole`], never calling `first`).
    fn load_in_parts(
        &self,
        kind: LoadKind,
        progress: &(dyn Fn(String) + Send + Sync),
        _first: &dyn Fn(Workspace),
    ) -> Result<LoadEnd, LoadError> {
        self.load(kind, progress).map(LoadEnd::Whole)
    }

    /// Only the resources in `parts` of `account` (the account on screen), read again
    /// for a pane's retry (`Effect::Retry`): a workspace holding just their tables and
    /// the gaps of those that failed again. Runs on a worker thread.
    fn retry(
        &self,
        parts: crate::model::Parts,
        _account: &crate::model::AccountIdent,
        _progress: &(dyn Fn(String) + Send + Sync),
    ) -> Result<Workspace, LoadError> {
        let what: Vec<&str> = parts.resources().iter().map(|r| r.label()).collect();
        Err(LoadError::new(format!(
            "this run cannot read {} again on its own; restart tieout to read the account again",
            what.join(", ")
        )))
    }

    /// The payouts arriving in `month` and their lines, read for a close packet of a month
    /// outside the data on hand (everything else comes from the data shown). Runs on a
    /// worker thread; reports in words to `progress`.
    fn load_month(
        &self,
        month: Month,
        _progress: &(dyn Fn(String) + Send + Sync),
    ) -> Result<AccountData, String> {
        Err(format!(
            "{month} is outside the data on hand, and this run cannot read more: choose a month inside it"
        ))
    }

    /// The refund gate for `Effect::ExecuteRefund`, or why refunds cannot be sent in this
    /// run (the demo, no key, a live key). Runs on a worker thread.
    fn refund_gate(&self) -> Result<crate::app::refund_exec::GateSession, String> {
        Err("refund execution is not available in this run".into())
    }

    /// The snapshot the cache holds now (a `tieout sync` elsewhere may have written a
    /// newer one than the one on screen), read cheaply from its manifest; `None` when
    /// there is no cache to watch (the demo). Runs on a worker thread.
    fn on_disk(&self) -> Option<crate::app::workbench::OnDisk> {
        None
    }
}

/// How [`Loader::load_in_parts`] ends.
pub enum LoadEnd {
    /// The whole account, in one go.
    Whole(Workspace),
    /// The tables the first part (already handed over) did not hold.
    Rest(Box<AccountData>),
}

/// Runs effects; owned by the runtime loop.
pub struct EffectRunner {
    tx: Sender<Msg>,
    loader: Arc<dyn Loader>,
    running: HashMap<RequestId, CancelFlag>,
    clipboard: Option<Tool>,
    /// Started on the first refund effect.
    refunds: Option<super::refunds::RefundLane>,
}

impl EffectRunner {
    pub fn new(tx: Sender<Msg>, loader: Arc<dyn Loader>) -> Self {
        EffectRunner {
            tx,
            loader,
            running: HashMap::new(),
            clipboard: clipboard::system_tool(),
            refunds: None,
        }
    }

    pub fn run_all(&mut self, effects: Vec<Effect>) {
        for e in effects {
            self.run(e);
        }
    }

    fn refund_lane(&mut self) -> &super::refunds::RefundLane {
        let (loader, tx) = (&self.loader, &self.tx);
        self.refunds
            .get_or_insert_with(|| super::refunds::RefundLane::start(Arc::clone(loader), tx))
    }

    /// Forgets finished requests (called when their message is handled).
    pub fn finished(&mut self, req: RequestId) {
        self.running.remove(&req);
    }

    fn run(&mut self, effect: Effect) {
        match effect {
            Effect::Load { req, kind } => {
                let flag = CancelFlag::new();
                self.running.insert(req, flag.clone());
                let tx = self.tx.clone();
                let loader = Arc::clone(&self.loader);
                spawn(format!("load-{}", req.0), move || {
                    tracing::info!(req = req.0, ?kind, "load started");
                    let ptx = tx.clone();
                    // Progress may be reported from inside the loader's own async runtime,
                    // where blocking is not allowed; a full channel just drops an update.
                    let progress = move |text: String| {
                        if !flag.is_cancelled() {
                            let _ = ptx.try_send(Msg::Progress { req, text });
                        }
                    };
                    let sent_first = std::cell::Cell::new(false);
                    let first = |ws: Workspace| {
                        tracing::info!(req = req.0, ?kind, "first part loaded");
                        sent_first.set(true);
                        let (hold, wait) = RestHold::new();
                        if tx
                            .blocking_send(Msg::LoadedFirst {
                                req,
                                kind,
                                ws,
                                hold,
                            })
                            .is_ok()
                            && !wait.wait()
                        {
                            tracing::info!(req = req.0, "the rest loads before the first frame");
                        }
                    };
                    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        loader.load_in_parts(kind, &progress, &first)
                    }))
                    .unwrap_or_else(|panic| {
                        Err(LoadError::new(format!(
                            "tieout hit an internal error while loading ({}); the log has details",
                            panic_text(&panic)
                        )))
                    });
                    match &result {
                        Ok(_) => tracing::info!(req = req.0, ?kind, "load finished"),
                        Err(e) => {
                            tracing::warn!(req = req.0, ?kind, error = %e.message, "load failed")
                        }
                    }
                    let msg = match result {
                        Ok(LoadEnd::Whole(ws)) => Msg::Loaded {
                            req,
                            kind,
                            result: Ok(ws),
                        },
                        Ok(LoadEnd::Rest(rest)) => Msg::LoadedRest {
                            req,
                            result: Ok(rest),
                        },
                        Err(e) if sent_first.get() => Msg::LoadedRest {
                            req,
                            result: Err(e),
                        },
                        Err(e) => Msg::Loaded {
                            req,
                            kind,
                            result: Err(e),
                        },
                    };
                    let _ = tx.blocking_send(msg);
                });
            }
            Effect::Retry {
                req,
                parts,
                account,
            } => {
                let flag = CancelFlag::new();
                self.running.insert(req, flag.clone());
                let tx = self.tx.clone();
                let loader = Arc::clone(&self.loader);
                spawn(format!("retry-{}", req.0), move || {
                    tracing::info!(req = req.0, ?parts, "retry started");
                    let ptx = tx.clone();
                    let progress = move |text: String| {
                        if !flag.is_cancelled() {
                            let _ = ptx.try_send(Msg::Progress { req, text });
                        }
                    };
                    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        loader.retry(parts, &account, &progress)
                    }))
                    .unwrap_or_else(|panic| {
                        Err(LoadError::new(format!(
                            "tieout hit an internal error while reading again ({}); the log has details",
                            panic_text(&panic)
                        )))
                    });
                    let kind = LoadKind::Retry(parts);
                    let _ = tx.blocking_send(Msg::Loaded { req, kind, result });
                });
            }
            Effect::Compute { req, job } => {
                let flag = CancelFlag::new();
                self.running.insert(req, flag.clone());
                let tx = self.tx.clone();
                spawn(format!("job-{}", req.0), move || {
                    let label = job.label.clone();
                    let output =
                        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            job.run(&flag)
                        })) {
                            Ok(output) => output,
                            Err(panic) => {
                                let failed = JobFailed(format!(
                                    "{label} failed: internal error ({})",
                                    panic_text(&panic)
                                ));
                                Box::new(failed)
                            }
                        };
                    if flag.is_cancelled() {
                        tracing::debug!(req = req.0, %label, "job cancelled");
                        return;
                    }
                    let _ = tx.blocking_send(Msg::Computed { req, output });
                });
            }
            Effect::Cancel(req) => {
                if let Some(flag) = self.running.remove(&req) {
                    flag.cancel();
                }
            }
            Effect::Copy(text) => {
                super::copies::copy(self.clipboard.as_ref(), text, "txt", &self.tx)
            }
            Effect::CopyDoc { text, ext } => {
                super::copies::copy(self.clipboard.as_ref(), text, ext, &self.tx)
            }
            Effect::SaveRecent(text) => super::copies::save_recent(text),
            Effect::OpenUrl(url) => match opener::system_opener() {
                Some(program) => {
                    let tx = self.tx.clone();
                    spawn("open".into(), move || {
                        let r = opener::open_with(program, &url).map(|()| program.to_string());
                        let _ = tx.blocking_send(Msg::Opened(r));
                    });
                }
                None => {
                    let _ = self.tx.try_send(Msg::Opened(Err(
                        "no system opener here (over SSH, or no desktop); copy the address with copy_url instead"
                            .to_string(),
                    )));
                }
            },
            Effect::ExecuteRefund { req, proposal } => self.refund_lane().execute(req, proposal),
            Effect::AuditPreview { proposal, event } => self.refund_lane().preview(proposal, event),
            Effect::ExecuteBatch {
                req,
                batch,
                confirmed,
            } => self.refund_lane().batch(req, batch, confirmed),
            Effect::AuditBatch { batch, event } => self.refund_lane().batch_preview(batch, event),
            Effect::Write { path, bytes } => {
                let tx = self.tx.clone();
                spawn("write".into(), move || {
                    let _ = tx
                        .blocking_send(Msg::Written(crate::app::exports::write_new(&path, &bytes)));
                });
            }
            Effect::SaveView(view) => {
                let tx = self.tx.clone();
                spawn("save-view".into(), move || {
                    let name = view.name.clone();
                    let r = crate::app::views::save(view).map(|(_, file)| (name, file.view));
                    let _ = tx.blocking_send(Msg::ViewSaved(r));
                });
            }
            Effect::ExportPacket {
                req,
                month,
                dir,
                force,
                input,
            } => {
                let tx = self.tx.clone();
                let loader = Arc::clone(&self.loader);
                spawn(format!("packet-{}", req.0), move || {
                    let ptx = tx.clone();
                    let progress = move |text: String| {
                        let _ = ptx.try_send(Msg::Progress { req, text });
                    };
                    let result =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(
                            || match with_month(input, month, loader.as_ref(), &progress) {
                                Ok(input) => {
                                    export_packet(&input, month, &dir, force, &mut |t| progress(t))
                                }
                                Err(e) => PacketResult::Failed(e),
                            },
                        ))
                        .unwrap_or_else(|panic| {
                            PacketResult::Failed(format!(
                                "the close packet failed: internal error ({}); nothing was written",
                                panic_text(&panic)
                            ))
                        });
                    tracing::info!(req = req.0, %month, ?result, "close packet export finished");
                    let _ = tx.blocking_send(Msg::PacketExported { req, result });
                });
            }
        }
    }
}

/// `input`, with the payouts of `month` read through the loader when the data on hand
/// was read for other months (the packet of any month, as `tieout close`).
fn with_month(
    input: PacketInput,
    month: Month,
    loader: &dyn Loader,
    progress: &(dyn Fn(String) + Send + Sync),
) -> Result<PacketInput, String> {
    let data = crate::app::close::with_month(&input.data, month, &input.tz, || {
        progress(format!("reading the payouts of {month}"));
        loader.load_month(month, progress)
    })?;
    Ok(PacketInput { data, ..input })
}

/// Writes the close packet for `month` into `dir` (made absolute against the current
/// folder) with the same code as `tieout close`, reporting each step in words.
pub fn export_packet(
    input: &PacketInput,
    month: Month,
    dir: &Path,
    force: bool,
    progress: &mut dyn FnMut(String),
) -> PacketResult {
    use crate::app::close::{CloseRequest, absolute, write};
    use crate::report::packet::PacketError;
    let dir = match absolute(dir) {
        Ok(d) => d,
        Err(e) => return PacketResult::Failed(e),
    };
    // The same account map as `tieout close` (the config folder's, else the default).
    let accounts = match crate::app::accounts::read_map(None) {
        Ok((map, _)) => map,
        Err(f) => {
            return PacketResult::Failed(format!(
                "{}; nothing was written: fix the account map",
                f.message
            ));
        }
    };
    let req = CloseRequest {
        month,
        data: &input.data,
        now: input.now,
        tz: &input.tz,
        accounts: &accounts,
        bank: input.bank.as_deref().map(Vec::as_slice),
    };
    match write(&req, &dir, force, progress) {
        Ok(done) => PacketResult::Written {
            dir: done.dir,
            files: done.files,
        },
        Err(PacketError::Exists(d)) => PacketResult::Exists(d),
        Err(PacketError::NotEmpty(d)) => PacketResult::Failed(format!(
            "{} exists, is not empty and holds no close packet; nothing was written: choose a new or empty folder",
            d.display()
        )),
        Err(e) => PacketResult::Failed(e.to_string()),
    }
}

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}

/// Runs effect `name` on the shared runtime's blocking pool (loads and refunds may take
/// minutes, so a pool that grows, not a fixed-size one).
pub(super) fn spawn(name: String, f: impl FnOnce() + Send + 'static) {
    if let Err(e) = crate::app::threads::spawn_blocking(f) {
        tracing::error!("could not start the worker for {name}: {e}");
    }
}
