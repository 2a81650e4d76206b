//! Runs `Effect::ExecuteRefund` off the UI task: records the proposal and the operator's
//! approval (bound to exactly the previewed arguments), then [`Gate::execute`] (fresh
//! checks, the one idempotent `POST /v1/refunds`, the read-back), each step in the audit
//! log. The outcome comes back as `Msg::RefundExecuted`.

use std::sync::Arc;

use tokio::sync::mpsc::Sender;

use super::effects::{Loader, spawn};
use crate::app::refund_exec::{Gate, Outcome};
use crate::domain::refund_gate::Proposal;
use crate::tui::msg::{Msg, RefundDone, RequestId};

/// The gate of this TUI session (one writer, so a `livemode: true` answer disables it for
/// the rest of the session) and its clock.
#[derive(Debug, Clone)]
pub struct GateSession {
    pub gate: Gate,
    /// `--now` when given (reproducible runs); else the system clock at each step.
    pub now: Option<i64>,
}

impl GateSession {
    fn now(&self) -> i64 {
        self.now.unwrap_or_else(crate::time::now_unix)
    }
}

/// Proposes, approves and executes `p` through `session`. `Err` only when nothing could
/// be recorded (the audit log could not be written: then nothing is sent).
pub async fn execute(session: &GateSession, p: &Proposal) -> Result<Outcome, String> {
    let g = &session.gate;
    g.propose(p, session.now()).map_err(|e| e.to_string())?;
    let approval = g.approve(p, session.now()).map_err(|e| e.to_string())?;
    g.execute(p, &approval, session.now())
        .await
        .map_err(|e| e.to_string())
}

fn run_blocking(loader: &dyn Loader, p: &Proposal) -> Result<Outcome, String> {
    let session = loader.refund_gate()?;
    crate::stripe::blocking::block_on(execute(&session, p))
        .map_err(|e| format!("could not start the network runtime: {e}"))?
}

/// Runs the refund on a worker thread and sends its outcome back.
pub fn spawn_execute(
    req: RequestId,
    proposal: Proposal,
    loader: Arc<dyn Loader>,
    tx: &Sender<Msg>,
) {
    let tx = tx.clone();
    spawn(format!("refund-{}", req.0), move || {
        tracing::info!(req = req.0, ticket = %proposal.ticket, "refund execution started");
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_blocking(loader.as_ref(), &proposal)
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
    });
}
