//! Refund execution behind the approval gate (RULES.md, "The rules of each job"): records the proposal and
//! the approval, re-reads the charge and its disputes, runs the gate's checks
//! ([`crate::domain::refund_gate::check`]), sends the one idempotent `POST /v1/refunds`
//! through the [`RefundWriter`], reads the refund back, and writes every step to the
//! [`AuditLog`] before moving on (a step that cannot be audited does not happen).

use std::path::Path;

use jiff::tz::TimeZone;
use serde::Serialize;

use crate::app::audit::{AuditError, AuditLog, Entry, Event, spent_on_day};
use crate::app::toml_file;
use crate::domain::refund_approval::{RefundSource, Signoff};
use crate::domain::refund_gate::{
    self, Approval, FreshCharge, GatePolicy, GatePolicyFile, Proposal, Refusal, Rule,
};
use crate::failure::Failure;
use crate::money::Currency;
use crate::stripe::models::Refund;
use crate::stripe::refund_writer::{RefundRequest, RefundWriter, WriterError};

/// How one execution ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Read back as `succeeded`.
    Verified { refund_id: String },
    /// Read back as `pending`/`requires_action`: re-check later ([`Gate::recheck`]).
    Unverifiable { refund_id: String, status: String },
    /// Stripe refused the call, or the refund read back as `failed`/`canceled`.
    Failed {
        refund_id: Option<String>,
        reason: String,
    },
    /// A gate rule refused before any write.
    Refused(Refusal),
}

impl Outcome {
    /// One line for the pane and the CLI.
    pub fn summary(&self) -> String {
        match self {
            Outcome::Verified { refund_id } => format!("verified: {refund_id} succeeded"),
            Outcome::Unverifiable { refund_id, status } => {
                format!("unverifiable until it settles: {refund_id} is {status} (re-check later)")
            }
            Outcome::Failed { refund_id, reason } => match refund_id {
                Some(id) => format!("failed: {id}: {reason}"),
                None => format!("failed: {reason}"),
            },
            Outcome::Refused(r) => r.to_string(),
        }
    }
}

/// Loads the gate policy: `TIEOUT_GATE_POLICY` (a TOML file) when set, else
/// `<data dir>/refund_gate.toml` when it exists, else the default (500.00 USD a day).
pub fn load_policy() -> Result<GatePolicy, String> {
    let path = match std::env::var_os("TIEOUT_GATE_POLICY").filter(|p| !p.is_empty()) {
        Some(p) => Some(std::path::PathBuf::from(p)),
        None => crate::source::cache::data_root()
            .ok()
            .map(|d| d.join("refund_gate.toml"))
            .filter(|p| p.exists()),
    };
    match path {
        None => Ok(GatePolicy::default()),
        Some(p) => policy_from_file(&p).map_err(|f| f.message),
    }
}

/// The gate policy in the file at `path`, read by the strict reader ([`toml_file`]):
/// bounded, UTF-8 only, no unknown keys, and never empty (an empty file would allow no
/// currency at all; removing it gives the default).
fn policy_from_file(path: &Path) -> Result<GatePolicy, Failure> {
    let doc = toml_file::GATE_POLICY;
    let origin = path.display().to_string();
    let text = toml_file::read(path, doc)?.ok_or_else(|| {
        Failure::usage(format!(
            "{} {origin} does not exist: fix TIEOUT_GATE_POLICY, or unset it for the default (500.00 USD a day)",
            doc.what
        ))
    })?;
    if toml_file::is_blank(&text) {
        return Err(Failure::usage(format!(
            "{} {origin} is empty (only blank lines or comments): write e.g. `[daily_budget]` then `usd = \"500.00\"`, or remove the file (and unset TIEOUT_GATE_POLICY) for the default, 500.00 USD a day; {}",
            doc.what,
            doc.see()
        )));
    }
    let file: GatePolicyFile = toml_file::parse(&text, &origin, doc)?;
    GatePolicy::from_file(&file).map_err(|e| {
        Failure::usage(format!(
            "{} {origin} is not valid: {e}. Expected e.g. `[daily_budget]` then `usd = \"500.00\"`; {}",
            doc.what,
            doc.see()
        ))
    })
}

/// Everything execution needs.
#[derive(Debug, Clone)]
pub struct Gate {
    pub writer: RefundWriter,
    pub audit: AuditLog,
    pub policy: GatePolicy,
    /// The days the budget is counted in.
    pub tz: TimeZone,
    /// The OS user (see [`crate::app::audit::os_user`]).
    pub user: String,
}

/// Who signed a refund off and the batch it was approved in: stamped on every audit
/// entry of its execution and sent in the refund's metadata.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stamp {
    /// `None`: the OS user approves (a policy that names no approvers).
    pub signoff: Option<Signoff>,
    /// The batch's short hash, when approved in a batch.
    pub batch: Option<String>,
}

fn status_of(r: &Refund) -> String {
    r.status
        .as_ref()
        .map_or_else(|| "unknown".to_string(), |s| s.as_str().to_string())
}

fn writer_failure(e: &WriterError) -> Option<Refusal> {
    match e {
        WriterError::LiveModeSeen { .. } | WriterError::Disabled => {
            Some(Refusal::new(Rule::WriterDisabled, e.to_string()))
        }
        WriterError::NotTestKey { .. } => Some(Refusal::new(Rule::KeyNotTest, e.to_string())),
        WriterError::Stripe(_) => None,
    }
}

impl Gate {
    fn log(&self, e: &Entry) -> Result<(), AuditError> {
        self.audit.append(e)
    }

    /// An entry about `p` with the OS user and the stamp's approver, tier and batch.
    fn entry(&self, event: Event, p: &Proposal, now: i64, st: &Stamp) -> Entry {
        let mut e = Entry::about(event, p, now, &self.user);
        let s = self.signoff_of(st);
        e.approver = Some(s.approver);
        e.tier = s.tier;
        e.batch.clone_from(&st.batch);
        e
    }

    /// Who approves when no name was given: the OS user, with no tier.
    fn signoff_of(&self, st: &Stamp) -> Signoff {
        st.signoff.clone().unwrap_or_else(|| Signoff {
            approver: self.user.clone(),
            tier: None,
        })
    }

    /// Records that `p` was shown, stamped (a batch preview).
    pub fn propose_stamped(&self, p: &Proposal, st: &Stamp, now: i64) -> Result<(), AuditError> {
        self.log(&self.entry(Event::Proposal, p, now, st))
    }

    /// Records that the preview of `p` was closed unsent, stamped.
    pub fn cancel_stamped(&self, p: &Proposal, st: &Stamp, now: i64) -> Result<(), AuditError> {
        self.log(&self.entry(Event::Cancelled, p, now, st))
    }

    /// Records that `p` was shown to the operator.
    pub fn propose(&self, p: &Proposal, now: i64) -> Result<(), AuditError> {
        self.log(&Entry::about(Event::Proposal, p, now, &self.user))
    }

    /// Records that the operator closed the preview of `p` without sending it.
    pub fn cancel(&self, p: &Proposal, now: i64) -> Result<(), AuditError> {
        self.log(&Entry::about(Event::Cancelled, p, now, &self.user))
    }

    /// Records that `p` was shown unless the log's latest entry about exactly `p` already
    /// says so (the preview recorded it when it opened).
    pub fn ensure_proposed(&self, p: &Proposal, now: i64) -> Result<(), AuditError> {
        let digest = p.digest();
        let entries = self.audit.read()?;
        let shown = entries
            .iter()
            .rev()
            .find(|e| e.digest == digest)
            .is_some_and(|e| e.event == Event::Proposal);
        if shown { Ok(()) } else { self.propose(p, now) }
    }

    /// The operator approved `p` (after the deliberate confirmation): binds and records it.
    pub fn approve(&self, p: &Proposal, now: i64) -> Result<Approval, AuditError> {
        self.approve_stamped(p, &Stamp::default(), now)
    }

    /// The named approver (or the OS user) approved `p`: binds and records it.
    pub fn approve_stamped(
        &self,
        p: &Proposal,
        st: &Stamp,
        now: i64,
    ) -> Result<Approval, AuditError> {
        let a = Approval::new(p, &self.signoff_of(st).approver, now);
        let mut e = self.entry(Event::Approval, p, a.approved_at, st);
        e.digest.clone_from(&a.digest);
        self.log(&e)?;
        Ok(a)
    }

    fn refuse(
        &self,
        p: &Proposal,
        r: Refusal,
        now: i64,
        st: &Stamp,
    ) -> Result<Outcome, AuditError> {
        let mut e = self.entry(Event::Refusal, p, now, st);
        e.refused_by = Some(r.rule.id().to_string());
        e.detail = Some(r.reason.clone());
        self.log(&e)?;
        Ok(Outcome::Refused(r))
    }

    /// Records a refusal that stopped `p` before anything ran (a batch refused whole).
    pub fn refuse_stamped(
        &self,
        p: &Proposal,
        r: Refusal,
        st: &Stamp,
        now: i64,
    ) -> Result<Outcome, AuditError> {
        self.refuse(p, r, now, st)
    }

    fn failed(
        &self,
        p: &Proposal,
        refund_id: Option<String>,
        reason: String,
        now: i64,
        st: &Stamp,
    ) -> Result<Outcome, AuditError> {
        let mut e = self.entry(Event::CallFailed, p, now, st);
        e.refund_id.clone_from(&refund_id);
        e.detail = Some(reason.clone());
        self.log(&e)?;
        Ok(Outcome::Failed { refund_id, reason })
    }

    /// What tieout refunded today in `currency` (from the audit log).
    pub fn spent_today(&self, currency: Currency, now: i64) -> Result<i64, AuditError> {
        let entries = self.audit.read()?;
        Ok(spent_on_day(
            &entries,
            currency,
            &crate::time::date_in(now, &self.tz),
            &self.tz,
        ))
    }

    /// Runs an approved proposal: checks, the call, the read-back. Returns Err only when
    /// the audit log cannot be written (then nothing further is sent).
    pub async fn execute(
        &self,
        p: &Proposal,
        approval: &Approval,
        now: i64,
    ) -> Result<Outcome, AuditError> {
        self.execute_stamped(p, approval, &Stamp::default(), now)
            .await
    }

    /// [`Gate::execute`] for a named approver (and batch): the approver must be one the
    /// policy names, within their tier; both go on every audit entry and in the refund's
    /// metadata.
    pub async fn execute_stamped(
        &self,
        p: &Proposal,
        approval: &Approval,
        st: &Stamp,
        now: i64,
    ) -> Result<Outcome, AuditError> {
        if let Err(r) = approval.covers(p) {
            return self.refuse(p, r, now, st);
        }
        let signoff = self.signoff_of(st);
        if let Err(r) = self.policy.approval.check(&signoff, p.amount, p.currency) {
            return self.refuse(p, r, now, st);
        }
        if self.writer.is_disabled() {
            return self.refuse(
                p,
                Refusal::new(Rule::WriterDisabled, WriterError::Disabled.to_string()),
                now,
                st,
            );
        }
        let entries = self.audit.read()?;
        let digest = p.digest();
        // A second press of the same approval: the refund exists; read it back, do not
        // ask Stripe again (the idempotency key would make that harmless anyway).
        if let Some(done) = entries
            .iter()
            .rev()
            .find(|e| e.event == Event::Created && e.digest == digest && e.refund_id.is_some())
            && let Some(id) = done.refund_id.clone()
        {
            return self.read_back(p, &id, now, st).await;
        }
        let fresh = match self.fresh(p).await {
            Ok(f) => f,
            Err(e) => {
                return match writer_failure(&e) {
                    Some(r) => self.refuse(p, r, now, st),
                    None => self.failed(
                        p,
                        None,
                        format!("could not re-read the charge before refunding: {e}"),
                        now,
                        st,
                    ),
                };
            }
        };
        let spent = spent_on_day(
            &entries,
            p.currency,
            &crate::time::date_in(now, &self.tz),
            &self.tz,
        );
        if let Err(r) = refund_gate::check(p, &fresh, &self.policy, spent) {
            return self.refuse(p, r, now, st);
        }
        let key = p.idempotency_key();
        let mut call = self.entry(Event::Call, p, now, st);
        call.idempotency_key = Some(key.clone());
        self.log(&call)?;
        let req = RefundRequest {
            charge: p.charge.clone(),
            amount: p.amount,
            reason: p.reason.clone(),
            metadata: metadata(p, &signoff, st, &digest),
        };
        let created = match self.writer.create(&req, &key).await {
            Ok(c) => c,
            Err(
                e @ WriterError::LiveModeSeen {
                    refund_id: Some(_), ..
                },
            ) => return self.created_live(p, &key, &e, now, st),
            Err(e) => {
                return match writer_failure(&e) {
                    Some(r) => self.refuse(p, r, now, st),
                    None => {
                        self.failed(p, None, format!("Stripe refused the refund: {e}"), now, st)
                    }
                };
            }
        };
        let id = created.refund.id.clone();
        let mut e = self.entry(Event::Created, p, now, st);
        e.idempotency_key = Some(key);
        e.refund_id = Some(id.clone());
        e.status = Some(status_of(&created.refund));
        e.request_id = created.request_id;
        if created.replayed {
            e.detail =
                Some("replayed: Stripe returned the refund of an earlier identical call".into());
        }
        self.log(&e)?;
        self.read_back(p, &id, now, st).await
    }

    /// Stripe created a refund but answered `livemode: true`: the writer has disabled
    /// itself; the refund exists all the same, so it is audited as created (with the id
    /// Stripe returned, counted against the budget) and reported as failed, to be checked
    /// in the Dashboard. Nothing more is sent (no read-back).
    fn created_live(
        &self,
        p: &Proposal,
        key: &str,
        e: &WriterError,
        now: i64,
        st: &Stamp,
    ) -> Result<Outcome, AuditError> {
        let WriterError::LiveModeSeen {
            refund_id, status, ..
        } = e
        else {
            return self.failed(p, None, e.to_string(), now, st);
        };
        let mut entry = self.entry(Event::Created, p, now, st);
        entry.idempotency_key = Some(key.to_string());
        entry.refund_id.clone_from(refund_id);
        entry.status.clone_from(status);
        entry.detail = Some(e.to_string());
        self.log(&entry)?;
        Ok(Outcome::Failed {
            refund_id: refund_id.clone(),
            reason: e.to_string(),
        })
    }

    /// Re-reads a refund created earlier (e.g. one left pending) and records the verdict.
    pub async fn recheck(
        &self,
        p: &Proposal,
        refund_id: &str,
        now: i64,
    ) -> Result<Outcome, AuditError> {
        self.read_back(p, refund_id, now, &Stamp::default()).await
    }

    async fn read_back(
        &self,
        p: &Proposal,
        id: &str,
        now: i64,
        st: &Stamp,
    ) -> Result<Outcome, AuditError> {
        let refund = match self.writer.refund(id).await {
            Ok(r) => r,
            Err(e) => {
                let reason = format!("could not read refund {id} back: {e}");
                let mut entry = self.entry(Event::ReadBack, p, now, st);
                entry.refund_id = Some(id.to_string());
                entry.verdict = Some("unverifiable".into());
                entry.detail = Some(reason.clone());
                self.log(&entry)?;
                return Ok(match writer_failure(&e) {
                    Some(r) => Outcome::Refused(r),
                    None => Outcome::Unverifiable {
                        refund_id: id.to_string(),
                        status: "unknown (read-back failed)".into(),
                    },
                });
            }
        };
        let status = status_of(&refund);
        let (verdict, outcome) = match status.as_str() {
            "succeeded" => (
                "verified",
                Outcome::Verified {
                    refund_id: id.to_string(),
                },
            ),
            "failed" | "canceled" => (
                "failed",
                Outcome::Failed {
                    refund_id: Some(id.to_string()),
                    reason: format!(
                        "Stripe says the refund {status}: {}",
                        refund
                            .failure_reason
                            .as_deref()
                            .unwrap_or("no reason given")
                    ),
                },
            ),
            _ => (
                "unverifiable",
                Outcome::Unverifiable {
                    refund_id: id.to_string(),
                    status: status.clone(),
                },
            ),
        };
        let mut entry = self.entry(Event::ReadBack, p, now, st);
        entry.refund_id = Some(id.to_string());
        entry.status = Some(status);
        entry.verdict = Some(verdict.into());
        entry.detail = refund
            .failure_reason
            .clone()
            .or_else(|| refund.pending_reason.clone());
        self.log(&entry)?;
        Ok(outcome)
    }

    async fn fresh(&self, p: &Proposal) -> Result<FreshCharge, WriterError> {
        let charge = self.writer.charge(&p.charge).await?;
        let disputes = self.writer.disputes(&p.charge).await?;
        Ok(FreshCharge {
            id: charge.id.clone(),
            currency: charge
                .currency
                .as_deref()
                .and_then(|c| Currency::parse(c).ok()),
            amount_captured: charge.amount_captured.unwrap_or(0),
            amount_refunded: charge.amount_refunded.unwrap_or(0),
            disputed: charge.disputed,
            disputes: disputes.into_iter().map(|d| d.id).collect(),
        })
    }
}

/// The refund's metadata: where it came from, the rule, who approved it under which
/// tier (`none`: no tiers in force), and the approval (and batch) it was sent under.
fn metadata(p: &Proposal, s: &Signoff, st: &Stamp, digest: &str) -> Vec<(String, String)> {
    let mut m = vec![
        ("tieout_ticket".to_string(), p.ticket.clone()),
        (
            "tieout_source".into(),
            RefundSource::of_key(&p.ticket).tag(),
        ),
        ("tieout_rule".into(), p.rule.clone()),
        ("tieout_approver".into(), s.approver.clone()),
        (
            "tieout_tier".into(),
            s.tier.clone().unwrap_or_else(|| "none".into()),
        ),
        ("tieout_approval".into(), digest[..16].to_string()),
    ];
    if let Some(b) = &st.batch {
        m.push(("tieout_batch".into(), b.clone()));
    }
    m
}

/// The gate of one workbench session (one writer, so a `livemode: true` answer disables
/// it for the rest of the session) and its clock.
#[derive(Debug, Clone)]
pub struct GateSession {
    pub gate: Gate,
    /// `--now` when given (reproducible runs); else the system clock at each step.
    pub now: Option<i64>,
}

/// The refund gate for `req`'s profile: a test-mode key only (refused before any request
/// otherwise), with the same client configuration as every other read.
pub fn session(req: &super::ReadRequest, now: Option<i64>) -> Result<GateSession, String> {
    let (key, _) = crate::secrets::resolve_key(&req.profile, req.allow_secret_key)
        .map_err(|e| crate::failure::Failure::from(e).message)?;
    let config = super::client_config(req, key).map_err(|f| f.message)?;
    let writer = RefundWriter::new(config).map_err(|e| e.to_string())?;
    Ok(GateSession {
        gate: Gate {
            writer,
            audit: crate::app::audit::AuditLog::default_location().map_err(|e| e.to_string())?,
            policy: load_policy()?,
            tz: req.tz.clone(),
            user: crate::app::audit::os_user(),
        },
        now,
    })
}

impl GateSession {
    fn now(&self) -> i64 {
        self.now.unwrap_or_else(crate::time::now_unix)
    }

    /// The session's clock: `--now` when given, else the system clock.
    pub fn clock(&self) -> i64 {
        self.now()
    }

    /// Approves and executes `p` (proposing it first unless its preview recorded it),
    /// blocking on the network. `Err` only when nothing could be recorded (the audit log
    /// could not be written: then nothing is sent).
    pub fn execute_blocking(&self, p: &Proposal) -> Result<Outcome, String> {
        crate::stripe::blocking::block_on(self.execute(p))
            .map_err(|e| format!("could not start the network runtime: {e}"))?
    }

    /// Approves and executes `p` (proposing it first unless its preview recorded it).
    pub async fn execute(&self, p: &Proposal) -> Result<Outcome, String> {
        let g = &self.gate;
        g.ensure_proposed(p, self.now())
            .map_err(|e| e.to_string())?;
        let approval = g.approve(p, self.now()).map_err(|e| e.to_string())?;
        g.execute(p, &approval, self.now())
            .await
            .map_err(|e| e.to_string())
    }

    /// Records that the preview of `p` was opened (the proposal).
    pub fn preview_opened(&self, p: &Proposal) -> Result<(), String> {
        self.gate.propose(p, self.now()).map_err(|e| e.to_string())
    }

    /// Records that the preview of `p` was closed unsent.
    pub fn preview_cancelled(&self, p: &Proposal) -> Result<(), String> {
        self.gate.cancel(p, self.now()).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate_file(text: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("refund_gate.toml");
        std::fs::write(&path, text).expect("write");
        (dir, path)
    }

    #[test]
    fn a_gate_policy_is_read_strictly() {
        let (_dir, path) = gate_file(b"[daily_budget]\nusd = \"100.00\"\n");
        let p = policy_from_file(&path).expect("valid");
        assert_eq!(p.daily_budget.get(&Currency::USD), Some(&10_000));

        let (_dir, path) = gate_file(b"[daily_budgets]\nusd = \"100.00\"\n");
        let e = policy_from_file(&path).expect_err("unknown table");
        assert!(
            e.message.contains("line 1, column 2")
                && e.message.contains("did you mean `daily_budget`?")
                && e.message
                    .contains("see the README's \"The refund gate's budget\""),
            "{}",
            e.message
        );

        let (_dir, path) = gate_file(b"# to do\n\n");
        let e = policy_from_file(&path).expect_err("empty");
        assert!(
            e.message.contains("is empty") && e.message.contains("500.00 USD a day"),
            "{}",
            e.message
        );

        // The approval section: a typo is named with its line and column, a role with
        // no tier with what is wrong.
        let (_dir, path) =
            gate_file(b"[daily_budget]\nusd = \"100.00\"\n[approval]\napprover = []\n");
        let e = policy_from_file(&path).expect_err("unknown key");
        assert!(e.message.contains("line 4, column 1"), "{}", e.message);
        let (_dir, path) = gate_file(
            b"[daily_budget]\nusd = \"100.00\"\n[approval]\napprovers = [{ name = \"A\", role = \"boss\" }]\n",
        );
        let e = policy_from_file(&path).expect_err("no tier");
        assert!(
            e.message.contains("role 'boss' has no tier"),
            "{}",
            e.message
        );
        let (_dir, path) = gate_file(
            b"[daily_budget]\nusd = \"100.00\"\n[approval]\napprovers = [{ name = \"Ana\", role = \"agent\" }]\n",
        );
        let p = policy_from_file(&path).expect("valid");
        assert_eq!(p.approval.approvers.len(), 1);
        assert_eq!(p.approval.batch_expiry_minutes, 15);

        let (_dir, path) = gate_file(b"[daily_budget]\nusd = \"1\xe900\"\n");
        let e = policy_from_file(&path).expect_err("not UTF-8");
        assert!(
            e.message.contains("line 2, column 9") && e.message.contains("not UTF-8"),
            "{}",
            e.message
        );
    }
}
