//! The refund audit log: one JSON object per line in `<data dir>/audit/refunds.jsonl`,
//! opened append-only, never rewritten, fsynced after every entry. Every proposal,
//! approval, refusal, call and read-back of refund execution lands here, with the OS user
//! and the clock tieout ran with. The daily refund budget is computed from it.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use jiff::tz::TimeZone;
use serde::{Deserialize, Serialize};

use crate::domain::refund_approval::RefundSource;
use crate::domain::refund_gate::{Approval, Proposal, Refusal};
use crate::money::Currency;

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    /// The preview of a refund was shown to the operator (before any confirmation).
    Proposal,
    /// The operator closed the preview without sending it.
    Cancelled,
    Approval,
    Refusal,
    /// About to send `POST /v1/refunds` (written before the request).
    Call,
    /// Stripe created (or replayed) the refund.
    Created,
    /// The call failed (Stripe error, network, livemode).
    CallFailed,
    ReadBack,
}

/// One line of the log. Fields that do not apply are absent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub event: Event,
    /// Unix seconds (the `--now` clock).
    pub at: i64,
    pub at_utc: String,
    pub user: String,
    pub ticket: String,
    pub charge: String,
    pub amount: i64,
    pub currency: Currency,
    pub reason: String,
    pub rule: String,
    pub evidence: Vec<String>,
    /// The proposal's digest the approval is bound to.
    pub digest: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refund_id: Option<String>,
    /// Refund status (`succeeded`, `pending`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// `verified`, `unverifiable`, `failed` on read-back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    /// The refusing rule's id (refusals).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// Who approved (a name from the gate policy's approvers, else the OS user), once
    /// known: on every step of an approved refund.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approver: Option<String>,
    /// The approver's tier (role), when the gate policy names approvers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<String>,
    /// Where the refund came from: `ticket:T-123` or `fraud_warning:issfr_…`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The batch (first 16 hex digits of its hash) the refund was approved in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<String>,
}

impl Entry {
    /// An entry about `p` with nothing but the proposal's fields filled.
    pub fn about(event: Event, p: &Proposal, at: i64, user: &str) -> Self {
        Self {
            event,
            at,
            at_utc: crate::time::iso_utc(at),
            user: user.to_string(),
            ticket: p.ticket.clone(),
            charge: p.charge.clone(),
            amount: p.amount,
            currency: p.currency,
            reason: p.reason.clone(),
            rule: p.rule.clone(),
            evidence: p.evidence.clone(),
            digest: p.digest(),
            idempotency_key: None,
            refund_id: None,
            status: None,
            verdict: None,
            refused_by: None,
            detail: None,
            request_id: None,
            approver: None,
            tier: None,
            source: Some(RefundSource::of_key(&p.ticket).tag()),
            batch: None,
        }
    }

    pub fn approval(p: &Proposal, a: &Approval) -> Self {
        let mut e = Self::about(Event::Approval, p, a.approved_at, &a.approved_by);
        e.digest = a.digest.clone();
        e
    }

    pub fn refusal(p: &Proposal, r: &Refusal, at: i64, user: &str) -> Self {
        let mut e = Self::about(Event::Refusal, p, at, user);
        e.refused_by = Some(r.rule.id().to_string());
        e.detail = Some(r.reason.clone());
        e
    }
}

/// Why the log could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error(
        "the audit log {path} could not be written ({source}): refund execution stops until it can"
    )]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the audit log {path} could not be read ({source})")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the audit log {path} has a broken line {line}: {detail}; it is left as it is")]
    Broken {
        path: PathBuf,
        line: usize,
        detail: String,
    },
    #[error("no data directory: set TIEOUT_DATA_DIR ({0})")]
    NoDataDir(String),
}

/// The OS user running tieout: `USER`/`USERNAME`/`LOGNAME`, else (a service or container
/// may set none of them) the account of the process's user as the OS resolves it
/// (`whoami`: the passwd database on Unix), else `uid N` on Unix, else `unknown`.
pub fn os_user() -> String {
    os_user_with(|v| std::env::var(v).ok())
}

fn os_user_with(env: impl Fn(&str) -> Option<String>) -> String {
    let nonblank = |s: &String| !s.trim().is_empty();
    ["USER", "USERNAME", "LOGNAME"]
        .iter()
        .find_map(|v| env(v).filter(nonblank))
        .or_else(|| whoami::username().ok().filter(nonblank))
        .or_else(process_uid)
        .unwrap_or_else(|| "unknown".to_string())
}

#[cfg(unix)]
fn process_uid() -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let uid = std::fs::metadata("/proc/self").ok()?.uid();
    Some(format!("uid {uid}"))
}

#[cfg(not(unix))]
fn process_uid() -> Option<String> {
    None
}

/// The append-only log file.
#[derive(Debug, Clone)]
pub struct AuditLog {
    path: PathBuf,
}

impl AuditLog {
    pub fn at(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    /// `<data dir>/audit/refunds.jsonl` (`TIEOUT_DATA_DIR` or the platform's data dir).
    pub fn default_location() -> Result<Self, AuditError> {
        let root =
            crate::source::cache::data_root().map_err(|e| AuditError::NoDataDir(e.to_string()))?;
        Ok(Self::at(root.join("audit").join("refunds.jsonl")))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one entry and fsyncs it before returning.
    pub fn append(&self, entry: &Entry) -> Result<(), AuditError> {
        let err = |source| AuditError::Write {
            path: self.path.clone(),
            source,
        };
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(err)?;
        }
        let mut line =
            serde_json::to_string(entry).map_err(|e| err(std::io::Error::other(e.to_string())))?;
        line.push('\n');
        let mut file = OpenOptions::new()
            .append(true)
            .create(true)
            .open(&self.path)
            .map_err(err)?;
        file.write_all(line.as_bytes()).map_err(err)?;
        file.sync_data().map_err(err)?;
        Ok(())
    }

    /// Every entry, oldest first (an absent log is empty).
    pub fn read(&self) -> Result<Vec<Entry>, AuditError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(AuditError::Read {
                    path: self.path.clone(),
                    source,
                });
            }
        };
        text.lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| {
                serde_json::from_str(l).map_err(|e| AuditError::Broken {
                    path: self.path.clone(),
                    line: i + 1,
                    detail: e.to_string(),
                })
            })
            .collect()
    }
}

/// What tieout refunded on `day` (`YYYY-MM-DD` in `tz`) in `currency`: each refund id
/// counted once (a replayed call is the same refund), by its latest known status;
/// failed and canceled refunds do not count.
pub fn spent_on_day(entries: &[Entry], currency: Currency, day: &str, tz: &TimeZone) -> i64 {
    let mut refunds: BTreeMap<&str, (i64, Option<&str>)> = BTreeMap::new();
    for e in entries {
        if e.currency != currency {
            continue;
        }
        let Some(id) = e.refund_id.as_deref() else {
            continue;
        };
        match e.event {
            Event::Created if crate::time::date_in(e.at, tz) == day => {
                refunds.entry(id).or_insert((e.amount, None)).1 = e.status.as_deref();
            }
            Event::ReadBack => {
                if let Some(r) = refunds.get_mut(id) {
                    r.1 = e.status.as_deref();
                }
            }
            _ => {}
        }
    }
    refunds
        .values()
        .filter(|(_, status)| !matches!(status, Some("failed" | "canceled")))
        .map(|(amount, _)| amount)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proposal(amount: i64) -> Proposal {
        Proposal {
            ticket: "T-1".into(),
            charge: "ch_1".into(),
            amount,
            currency: Currency::USD,
            reason: "requested_by_customer".into(),
            evidence: vec!["T-1".into()],
            rule: "r".into(),
        }
    }

    fn created(amount: i64, id: &str, status: &str, at: i64) -> Entry {
        let mut e = Entry::about(Event::Created, &proposal(amount), at, "u");
        e.refund_id = Some(id.into());
        e.status = Some(status.into());
        e
    }

    #[test]
    fn the_user_comes_from_the_environment_else_from_the_os() {
        let env = |v: &str| (v == "LOGNAME").then(|| "ops".to_string());
        assert_eq!(os_user_with(env), "ops");
        let blank = |_: &str| Some("  ".to_string());
        let from_os = os_user_with(blank);
        assert_ne!(from_os, "unknown");
        assert!(!from_os.trim().is_empty());
        if let Ok(name) = whoami::username() {
            assert_eq!(from_os, name);
        }
        assert_ne!(os_user(), "");
    }

    #[test]
    fn appends_and_reads_back_without_rewriting() {
        let dir = tempfile::tempdir().expect("tmp");
        let log = AuditLog::at(dir.path().join("a/refunds.jsonl"));
        assert!(log.read().expect("empty").is_empty());
        log.append(&Entry::about(Event::Proposal, &proposal(1), 5, "u"))
            .expect("append");
        let first = std::fs::read_to_string(log.path()).expect("read");
        log.append(&created(1, "re_1", "succeeded", 6))
            .expect("append");
        let both = std::fs::read_to_string(log.path()).expect("read");
        assert!(both.starts_with(&first), "earlier lines kept as they were");
        let entries = log.read().expect("read");
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[1].refund_id.as_deref(), Some("re_1"));
    }

    #[test]
    fn budget_counts_each_refund_once_and_skips_failed_ones() {
        let tz = TimeZone::UTC;
        let day = 1_790_000_000; // 2026-09-21
        let today = crate::time::date_in(day, &tz);
        let mut failed_later = created(500, "re_3", "pending", day);
        failed_later.event = Event::Created;
        let mut readback = created(500, "re_3", "failed", day + 10);
        readback.event = Event::ReadBack;
        let entries = vec![
            created(2000, "re_1", "succeeded", day),
            created(2000, "re_1", "succeeded", day + 5), // replay of the same refund
            created(700, "re_2", "pending", day),
            failed_later,
            readback,
            created(9999, "re_4", "succeeded", day - 86_400), // yesterday
        ];
        assert_eq!(spent_on_day(&entries, Currency::USD, &today, &tz), 2700);
        assert_eq!(spent_on_day(&entries, Currency::EUR, &today, &tz), 0);
    }
}
