//! Runs the refund effects off the UI task, on one worker ([`RefundLane`]) so the audit
//! log gets its entries in the order the operator acted: `Effect::AuditPreview` records
//! the proposal when a preview opens and `cancelled` when it is closed unsent;
//! `Effect::ExecuteRefund` records the operator's approval (bound to exactly the
//! previewed arguments), then `Gate::execute` (fresh checks, the one idempotent
//! `POST /v1/refunds`, the read-back), each step in the audit log. The outcome comes back
//! as `Msg::RefundExecuted`.

use std::sync::Arc;

use tokio::sync::mpsc::Sender;

use super::effects::{Loader, spawn};
use crate::app::refund_exec::Outcome;
use crate::domain::refund_batch::Batch;
use crate::domain::refund_gate::Proposal;
use crate::tui::msg::{BatchDone, Msg, PreviewEvent, RefundDone, RequestId};

fn preview_blocking(loader: &dyn Loader, p: &Proposal, event: PreviewEvent) {
    // Without a gate (the demo, no key, a live key) nothing can be sent, so there is no
    // proposal to record; the preview says why.
    let result = loader.refund_gate().and_then(|session| match event {
        PreviewEvent::Opened => session.preview_opened(p),
        PreviewEvent::Cancelled => session.preview_cancelled(p),
    });
    match result {
        Ok(()) => tracing::info!(ticket = %p.ticket, ?event, "refund preview audited"),
        Err(e) => {
            tracing::warn!(ticket = %p.ticket, ?event, error = %e, "refund preview not audited")
        }
    }
}

/// The one worker that runs this session's refund effects, in the order they came.
pub struct RefundLane {
    tx: std::sync::mpsc::Sender<Task>,
    msgs: Sender<Msg>,
}

enum Task {
    Preview(Proposal, PreviewEvent),
    Execute(RequestId, Proposal),
    BatchPreview(Batch, PreviewEvent),
    Batch(RequestId, Batch, String),
}

fn batch_preview_blocking(loader: &dyn Loader, b: &Batch, event: PreviewEvent) {
    let result = loader.refund_gate().and_then(|session| match event {
        PreviewEvent::Opened => session.batch_opened(b),
        PreviewEvent::Cancelled => session.batch_cancelled(b),
    });
    if let Err(e) = result {
        tracing::warn!(batch = %b.short_digest(), ?event, error = %e, "batch preview not audited");
    }
}

/// Carries out a confirmed batch here (blocking) and sends its report back.
fn batch_and_send(
    req: RequestId,
    b: &Batch,
    confirmed: &str,
    loader: &dyn Loader,
    tx: &Sender<Msg>,
) {
    tracing::info!(req = req.0, batch = %b.short_digest(), "refund batch started");
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        loader
            .refund_gate()
            .and_then(|s| s.execute_batch_blocking(b, confirmed))
    }))
    .unwrap_or_else(|_| {
        Err(
            "tieout hit an internal error during the batch; the audit log says how far it got"
                .into(),
        )
    });
    let _ = tx.blocking_send(Msg::BatchExecuted {
        req,
        done: BatchDone { outcome },
    });
}

impl RefundLane {
    /// Starts the worker; it ends when the lane is dropped.
    pub fn start(loader: Arc<dyn Loader>, msgs: &Sender<Msg>) -> Self {
        let (tx, rx) = std::sync::mpsc::channel::<Task>();
        let worker_msgs = msgs.clone();
        spawn("refunds".into(), move || {
            let msgs = worker_msgs;
            while let Ok(task) = rx.recv() {
                match task {
                    Task::Preview(p, event) => preview_blocking(loader.as_ref(), &p, event),
                    Task::Execute(req, p) => execute_and_send(req, &p, loader.as_ref(), &msgs),
                    Task::BatchPreview(b, event) => {
                        batch_preview_blocking(loader.as_ref(), &b, event)
                    }
                    Task::Batch(req, b, confirmed) => {
                        batch_and_send(req, &b, &confirmed, loader.as_ref(), &msgs)
                    }
                }
            }
        });
        Self {
            tx,
            msgs: msgs.clone(),
        }
    }

    pub fn preview(&self, proposal: Proposal, event: PreviewEvent) {
        if self.tx.send(Task::Preview(proposal, event)).is_err() {
            tracing::error!("the refund worker has stopped; the preview was not audited");
        }
    }

    pub fn batch_preview(&self, batch: Batch, event: PreviewEvent) {
        if self.tx.send(Task::BatchPreview(batch, event)).is_err() {
            tracing::error!("the refund worker has stopped; the batch preview was not audited");
        }
    }

    pub fn batch(&self, req: RequestId, batch: Batch, confirmed: String) {
        if self.tx.send(Task::Batch(req, batch, confirmed)).is_err() {
            let done = BatchDone {
                outcome: Err(
                    "the refund worker has stopped; nothing was sent: restart tieout and try again"
                        .into(),
                ),
            };
            let _ = self.msgs.try_send(Msg::BatchExecuted { req, done });
        }
    }

    pub fn execute(&self, req: RequestId, proposal: Proposal) {
        if let Err(e) = self.tx.send(Task::Execute(req, proposal)) {
            tracing::error!("the refund worker has stopped; nothing was sent");
            if let Task::Execute(req, p) = e.0 {
                let done = RefundDone {
                    ticket: p.ticket,
                    outcome: Err("the refund worker has stopped; nothing was sent: restart tieout and try again".into()),
                };
                let _ = self.msgs.try_send(Msg::RefundExecuted { req, done });
            }
        }
    }
}

fn run_blocking(loader: &dyn Loader, p: &Proposal) -> Result<Outcome, String> {
    loader.refund_gate()?.execute_blocking(p)
}

/// Runs the refund on a worker thread of its own and sends its outcome back.
pub fn spawn_execute(
    req: RequestId,
    proposal: Proposal,
    loader: Arc<dyn Loader>,
    tx: &Sender<Msg>,
) {
    let tx = tx.clone();
    spawn(format!("refund-{}", req.0), move || {
        execute_and_send(req, &proposal, loader.as_ref(), &tx);
    });
}

/// Runs the refund here (blocking) and sends its outcome back.
fn execute_and_send(req: RequestId, proposal: &Proposal, loader: &dyn Loader, tx: &Sender<Msg>) {
    tracing::info!(req = req.0, ticket = %proposal.ticket, "refund execution started");
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_blocking(loader, proposal)
    }))
    .unwrap_or_else(|_| {
        Err(
            "tieout hit an internal error while refunding; the audit log and the log \
             file say how far it got"
                .into(),
        )
    });
    match &outcome {
        Ok(o) => {
            tracing::info!(req = req.0, outcome = %o.summary(), "refund execution finished")
        }
        Err(e) => tracing::warn!(req = req.0, error = %e, "refund execution not sent"),
    }
    let done = RefundDone {
        ticket: proposal.ticket.clone(),
        outcome,
    };
    let _ = tx.blocking_send(Msg::RefundExecuted { req, done });
}
