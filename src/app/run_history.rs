//! The dunning run history: one small record of the worklist per `tieout dunning` run and
//! per worklist load in the TUI, kept in the data folder (`<data>/runs/<account>-<mode>/`,
//! one JSON file per run, written atomically) and pruned after a number of days; and the
//! use case that compares this run with an earlier record (`--since last|YYYY-MM-DD`),
//! learning the status of the invoices that left the list from the data at hand or, for
//! a fresh read, with one `GET /v1/invoices/{id}` each.

use std::path::{Path, PathBuf};

use crate::domain::dunning::Worklist;
use crate::domain::dunning::since::{self, Departures, RunRecord, Since, SinceOutcome};
use crate::failure::Failure;
use crate::model::AccountData;

/// How many days of records are kept when nothing else is said.
pub const DEFAULT_KEEP_DAYS: u32 = 35;
/// Overrides [`DEFAULT_KEEP_DAYS`] (for the TUI, which has no flag for it).
pub const KEEP_DAYS_ENV: &str = "TIEOUT_RUN_HISTORY_DAYS";

/// The folder of run records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunHistory {
    root: PathBuf,
}

/// The file name of the record taken at `t`: `2026-11-30T12-00-00Z.json` (sorts by time).
fn file_name(t: i64) -> String {
    let stamp = jiff::Timestamp::from_second(t)
        .map(|ts| ts.strftime("%Y-%m-%dT%H-%M-%SZ").to_string())
        .unwrap_or_else(|_| t.to_string());
    format!("{stamp}.json")
}

fn taken_at(name: &str) -> Option<i64> {
    let stem = name.strip_suffix("Z.json")?;
    jiff::civil::DateTime::strptime("%Y-%m-%dT%H-%M-%S", stem)
        .ok()?
        .to_zoned(jiff::tz::TimeZone::UTC)
        .ok()
        .map(|z| z.timestamp().as_second())
}

/// The folder name of one account and mode (kept safe as one path component).
fn account_dir(account_id: &str, mode: &str) -> String {
    format!("{account_id}-{mode}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// How many days records are kept: `TIEOUT_RUN_HISTORY_DAYS`, else the default.
pub fn keep_days_from_env() -> u32 {
    std::env::var(KEEP_DAYS_ENV)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(DEFAULT_KEEP_DAYS)
}

impl RunHistory {
    pub fn at(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// `<data dir>/runs` (`TIEOUT_DATA_DIR` or the platform's data folder, as the cache
    /// and the audit log).
    pub fn default_location() -> Result<Self, Failure> {
        let root = crate::source::cache::data_root().map_err(|e| {
            Failure::other(format!(
                "no folder to keep the run history in ({e}); set TIEOUT_DATA_DIR"
            ))
        })?;
        Ok(Self::at(root.join("runs")))
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn dir(&self, account_id: &str, mode: &str) -> PathBuf {
        self.root.join(account_dir(account_id, mode))
    }

    /// The times of the records kept for the account, oldest first.
    pub fn taken(&self, account_id: &str, mode: &str) -> Vec<i64> {
        let Ok(entries) = std::fs::read_dir(self.dir(account_id, mode)) else {
            return Vec::new();
        };
        let mut v: Vec<i64> = entries
            .filter_map(Result::ok)
            .filter_map(|e| taken_at(&e.file_name().to_string_lossy()))
            .collect();
        v.sort_unstable();
        v
    }

    /// The record taken at `t`; `None` if it is gone, unreadable or of another version
    /// (a damaged record is skipped, never fatal).
    pub fn load(&self, account_id: &str, mode: &str, t: i64) -> Option<RunRecord> {
        let path = self.dir(account_id, mode).join(file_name(t));
        let bytes = std::fs::read(path).ok()?;
        serde_json::from_slice::<RunRecord>(&bytes)
            .ok()
            .filter(|r| r.version == since::RECORD_VERSION)
    }

    /// Keeps `record` (atomically; a record of the same second is replaced).
    pub fn save(&self, record: &RunRecord) -> Result<PathBuf, Failure> {
        let path = self
            .dir(&record.account_id, &record.mode)
            .join(file_name(record.taken_at));
        let mut bytes = serde_json::to_vec(record)
            .map_err(|e| Failure::other(format!("could not encode the run record: {e}")))?;
        bytes.push(b'\n');
        crate::files::write_atomic(&path, &bytes, true).map_err(|e| {
            Failure::other(format!(
                "{e}; the run history could not be kept (the exports are unaffected); check that the data folder is writable"
            ))
        })?;
        Ok(path)
    }

    /// Deletes the account's records taken more than `keep_days` days before `now`.
    /// Returns how many were deleted.
    pub fn prune(&self, account_id: &str, mode: &str, now: i64, keep_days: u32) -> usize {
        let cutoff = now - i64::from(keep_days) * 86_400;
        let dir = self.dir(account_id, mode);
        self.taken(account_id, mode)
            .into_iter()
            .filter(|t| *t < cutoff)
            .filter(|t| std::fs::remove_file(dir.join(file_name(*t))).is_ok())
            .count()
    }
}

/// How the statuses of invoices that left the list are learned, beyond the data at hand.
pub trait StatusLookup: Send + Sync {
    /// The current status of each invoice in `ids` that could be read.
    fn statuses(&self, ids: &[String]) -> Departures;
}

/// No lookup beyond the data (the demo, a whole cache).
pub struct NoLookup;

impl StatusLookup for NoLookup {
    fn statuses(&self, _ids: &[String]) -> Departures {
        Departures::new()
    }
}

/// The statuses from the cache generation the data was read from (a staged open's first
/// part holds only the invoices the worklist reads, not the paid or voided ones that left
/// it). A generation that can no longer be read (a sync replaced it meanwhile) leaves the
/// invoices `left` with status unknown, and says so in the log.
pub struct CachedLookup {
    pub generation: crate::source::cache::Generation,
}

impl StatusLookup for CachedLookup {
    fn statuses(&self, ids: &[String]) -> Departures {
        match self.generation.invoice_statuses(ids) {
            Ok(found) => found.into_iter().collect(),
            Err(e) => {
                tracing::warn!(error = %e, "the statuses of invoices that left the worklist could not be read from the cache");
                Departures::new()
            }
        }
    }
}

/// One `GET /v1/invoices/{id}` per invoice (read permission on invoices, which every
/// run has). An invoice that cannot be read keeps the status `unknown` and is listed
/// as `left`; a warning names the first error.
pub struct StripeLookup {
    pub client: crate::stripe::Client,
}

impl StatusLookup for StripeLookup {
    fn statuses(&self, ids: &[String]) -> Departures {
        let mut out = Departures::new();
        let mut first_error: Option<String> = None;
        for id in ids {
            let path = format!("/v1/invoices/{id}");
            let got = crate::stripe::blocking::run(
                self.client
                    .get::<crate::stripe::models::Invoice>(&path, &[]),
            );
            match got {
                Ok(Ok(inv)) => {
                    if let Some(s) = inv.status {
                        out.insert(id.clone(), s.as_str().to_string());
                    }
                }
                Ok(Err(e)) | Err(e) => {
                    first_error.get_or_insert_with(|| e.to_string());
                }
            }
        }
        if let Some(e) = first_error {
            tracing::warn!(error = %e, "an invoice that left the worklist could not be read");
            eprintln!(
                "warning: an invoice that left the worklist could not be read ({e}); it is listed as `left` with status unknown"
            );
        }
        out
    }
}

/// The statuses of `ids`: from the invoices in `data` first, the rest from `lookup`.
pub fn departures(data: &AccountData, ids: &[String], lookup: &dyn StatusLookup) -> Departures {
    let mut out = Departures::new();
    let mut missing = Vec::new();
    // One pass over the invoices, not one per departed id (a whole account holds 100,000).
    let wanted: std::collections::HashSet<&str> = ids.iter().map(String::as_str).collect();
    let mut status: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    for inv in data
        .invoices
        .iter()
        .filter(|i| wanted.contains(i.id.as_str()))
    {
        status.entry(inv.id.as_str()).or_insert(inv.status.as_str());
    }
    for id in ids {
        match status.get(id.as_str()) {
            Some(s) => {
                out.insert(id.clone(), (*s).to_string());
            }
            None => missing.push(id.clone()),
        }
    }
    if !missing.is_empty() {
        out.extend(lookup.statuses(&missing));
    }
    out
}

/// Compares this run's worklist `w` with the earlier record `asked` names (the latest
/// taken strictly before this run, so a run never compares with itself).
pub fn compare(
    history: &RunHistory,
    data: &AccountData,
    w: &Worklist,
    asked: Since,
    lookup: &dyn StatusLookup,
) -> SinceOutcome {
    let meta = &data.meta;
    let taken = history.taken(&meta.account_id, meta.mode.as_str());
    let before = since::pick(&taken, asked, w.now)
        .and_then(|t| history.load(&meta.account_id, meta.mode.as_str(), t));
    match before {
        Some(before) => compare_with(&before, data, w, lookup),
        None => SinceOutcome::NoEarlierRun { asked },
    }
}

/// Compares worklist `w` with the record `before`.
pub fn compare_with(
    before: &RunRecord,
    data: &AccountData,
    w: &Worklist,
    lookup: &dyn StatusLookup,
) -> SinceOutcome {
    let now = record_of(data, w);
    let ids = before.departed(&now);
    let departed = departures(data, &ids, lookup);
    SinceOutcome::Compared(since::diff(before, &now, &departed))
}

fn record_of(data: &AccountData, w: &Worklist) -> RunRecord {
    let meta = &data.meta;
    RunRecord::of(
        w,
        &meta.account_id,
        meta.mode.as_str(),
        meta.origin.as_str(),
    )
}

/// Keeps this run's record and prunes the account's records older than `keep_days`.
/// Best effort: a folder that cannot be written is a warning on stderr, never a failed
/// run (the exports are already written).
pub fn record(history: &RunHistory, data: &AccountData, w: &Worklist, keep_days: u32) {
    let meta = &data.meta;
    if let Err(e) = history.save(&record_of(data, w)) {
        tracing::warn!(error = %e.message, "the run record could not be kept");
        eprintln!("warning: {}", e.message);
    }
    history.prune(&meta.account_id, meta.mode.as_str(), w.now, keep_days);
}

/// The run history as the TUI uses it: the store, how departed invoices are looked up
/// (Stripe for a fresh read, nothing for the demo or the cache) and how long records are
/// kept. The baseline of a session is the latest record before its first load, kept for
/// every reload, so the markers say what changed since the last session, not since the
/// last reload.
#[derive(Clone)]
pub struct Session {
    pub store: RunHistory,
    pub lookup: std::sync::Arc<dyn StatusLookup>,
    pub keep_days: u32,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Session({}, {} days)",
            self.store.root.display(),
            self.keep_days
        )
    }
}

/// What one load of a session found: the session's baseline and the comparison with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionResult {
    pub baseline: Option<RunRecord>,
    pub outcome: SinceOutcome,
}

impl Session {
    /// Compares `w` with the session's `baseline` (the latest earlier record of the
    /// account on its first load), then records `w`.
    pub fn compare_and_record(
        &self,
        data: &AccountData,
        w: &Worklist,
        baseline: Option<&RunRecord>,
    ) -> SessionResult {
        let meta = &data.meta;
        let same_account =
            |r: &&RunRecord| r.account_id == meta.account_id && r.mode == meta.mode.as_str();
        let baseline = baseline.filter(same_account).cloned().or_else(|| {
            let taken = self.store.taken(&meta.account_id, meta.mode.as_str());
            since::pick(&taken, Since::Last, w.now)
                .and_then(|t| self.store.load(&meta.account_id, meta.mode.as_str(), t))
        });
        let outcome = match &baseline {
            Some(b) => compare_with(b, data, w, self.lookup.as_ref()),
            None => SinceOutcome::NoEarlierRun { asked: Since::Last },
        };
        record(&self.store, data, w, self.keep_days);
        SessionResult { baseline, outcome }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::dunning;

    fn demo() -> AccountData {
        crate::source::demo::load_demo().expect("demo")
    }

    #[test]
    fn names_sort_by_time_and_parse_back() {
        let t = 1_796_040_000;
        assert_eq!(file_name(t), "2026-11-30T12-00-00Z.json");
        assert_eq!(taken_at(&file_name(t)), Some(t));
        assert_eq!(taken_at("notes.txt"), None);
        assert_eq!(account_dir("acct_1/..", "test"), "acct_1----test");
    }

    #[test]
    fn a_run_is_recorded_compared_with_the_last_and_old_ones_pruned() {
        let root = tempfile::tempdir().expect("tmp");
        let h = RunHistory::at(root.path());
        let data = demo();
        let day = 86_400;
        let t0 = 1_796_040_000;
        let w0 = dunning::build(&data, t0).expect("w0");
        let first = compare(&h, &data, &w0, Since::Last, &NoLookup);
        assert_eq!(first, SinceOutcome::NoEarlierRun { asked: Since::Last });
        record(&h, &data, &w0, 10);
        let id = (&data.meta.account_id, data.meta.mode.as_str());
        assert_eq!(h.taken(id.0, id.1), vec![t0]);
        // The same data a second later: compared, nothing changed.
        let w1 = dunning::build(&data, t0 + 1).expect("w1");
        match compare(&h, &data, &w1, Since::Last, &NoLookup) {
            SinceOutcome::Compared(c) => {
                assert_eq!(c.since, t0);
                assert!(c.changes.is_empty(), "{:?}", c.changes);
            }
            other => panic!("{other:?}"),
        }
        // The run itself is never its own baseline.
        assert!(matches!(
            compare(&h, &data, &w0, Since::Last, &NoLookup),
            SinceOutcome::NoEarlierRun { .. }
        ));
        record(&h, &data, &w1, 10);
        // A date picks the latest record before that day's end.
        assert!(
            matches!(compare(&h, &data, &w1, Since::Until(t0 + 1), &NoLookup), SinceOutcome::Compared(c) if c.since == t0)
        );
        // Eleven days on, both earlier records are pruned after the comparison.
        let w2 = dunning::build(&data, t0 + 11 * day).expect("w2");
        let out = compare(&h, &data, &w2, Since::Last, &NoLookup);
        assert!(matches!(out, SinceOutcome::Compared(c) if c.since == t0 + 1));
        record(&h, &data, &w2, 10);
        assert_eq!(h.taken(id.0, id.1), vec![t0 + 11 * day]);
        // A damaged record is skipped, not fatal.
        std::fs::write(
            root.path()
                .join(account_dir(id.0, id.1))
                .join(file_name(t0 + 12 * day)),
            b"{not json",
        )
        .expect("write");
        assert_eq!(h.load(id.0, id.1, t0 + 12 * day), None);
    }

    #[test]
    fn departures_come_from_the_data_then_the_lookup() {
        struct Fixed;
        impl StatusLookup for Fixed {
            fn statuses(&self, ids: &[String]) -> Departures {
                ids.iter()
                    .map(|i| (i.clone(), "void".to_string()))
                    .collect()
            }
        }
        let data = demo();
        let known = data.invoices[0].clone();
        let ids = vec![known.id.to_string(), "in_elsewhere".to_string()];
        let d = departures(&data, &ids, &Fixed);
        assert_eq!(d[known.id.as_str()], known.status.as_str());
        assert_eq!(d["in_elsewhere"], "void");
        assert!(departures(&data, &["in_x".into()], &NoLookup).is_empty());
    }
}
