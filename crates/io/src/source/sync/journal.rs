//! The journal of a sync in progress: every answer it has read, kept on disk next to the
//! cache until the sync's new cache generation is saved, so a sync killed at any point
//! (Ctrl-C, a crash, Stripe giving up on it) and started again reads from Stripe only
//! what it had not read yet.
//!
//! The journal is a folder `accounts/<acct>_<mode>/journal/` beside the generations:
//! `plan.json` (what the sync reads and when it started) and one file per answered GET,
//! named by the SHA-256 of its path and query (the key is never part of either), each
//! written to a temporary file and renamed, so an entry is whole or absent. A sync
//! follows the same requests in the same order given the same answers, so replaying the
//! kept answers brings it back to where it stopped. An endpoint's kept answers are replayed
//! only once that endpoint has answered live in this run (the first of them, and those
//! sent with it, are read again): a key that lost a permission meanwhile is still refused,
//! as on a fresh sync. The cache itself is untouched until
//! the save, which stays atomic ([`crate::source::cache`]): it is loadable at every
//! moment. A journal of other options, or older than [`MAX_AGE`] by the sync's clock,
//! is dropped and the sync starts afresh; a successful save removes it.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::SyncOptions;
use crate::source::cache::Cache;
use crate::stripe::client::Journal;
use tieout_core::model::Mode;

/// The folder's name inside an account's cache folder.
pub const JOURNAL_DIR: &str = "journal";
/// An interrupted sync older than this (seconds, by the sync's clock) starts afresh: its
/// answers would be too stale to continue from.
pub const MAX_AGE: i64 = 3600;
const PLAN: &str = "plan.json";

/// What a journal was written for: a resumed sync must read the same things.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Plan {
    /// The options but the clock, and the API version.
    reads: String,
    /// The sync's clock when it started, unix seconds.
    started_at: i64,
}

impl Plan {
    fn of(opts: &SyncOptions) -> Self {
        Plan {
            reads: format!(
                "{:?} window {:?} charges since {} api {}{}{}",
                opts.parts,
                opts.window,
                opts.charges_since,
                crate::stripe::API_VERSION,
                // Only when set, so the journals of the reads before it still continue.
                if opts.all_lines { " all lines" } else { "" },
                opts.lines_since
                    .map(|t| format!(" lines since {t}"))
                    .unwrap_or_default()
            ),
            started_at: opts.now,
        }
    }

    fn continues(&self, fresh: &Plan) -> bool {
        let age = fresh.started_at - self.started_at;
        self.reads == fresh.reads && (0..=MAX_AGE).contains(&age)
    }
}

/// A sync's journal on disk.
#[derive(Debug)]
pub struct DiskJournal {
    dir: PathBuf,
    /// Answers already kept when the sync started (0: a fresh start).
    resumed: usize,
    /// Endpoints (ids folded) that answered live in this run: only theirs are replayed.
    verified: Mutex<HashSet<String>>,
}

/// `/v1/payment_intents/pi_1?expand[]=x` -> `/v1/payment_intents/{id}`.
fn endpoint(request: &str) -> String {
    crate::stripe::stats::endpoint_of(request.split('?').next().unwrap_or(request))
}

/// Writes `bytes` to a private temporary file beside `path` and renames it over `path`
/// (whole or absent; not fsynced: see [`DiskJournal::keep`]).
fn write_entry(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

fn entry_name(request: &str) -> String {
    format!("{}.json", hex::encode(Sha256::digest(request.as_bytes())))
}

fn count_entries(dir: &Path) -> usize {
    fs::read_dir(dir).map_or(0, |entries| {
        entries
            .filter_map(Result::ok)
            .filter(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.ends_with(".json") && name != PLAN
            })
            .count()
    })
}

impl DiskJournal {
    /// The journal of a sync of `account` in `mode` with `opts`: the interrupted one's
    /// when it read the same things recently enough, else a new, empty one.
    pub fn open(
        cache: &Cache,
        account: &str,
        mode: Mode,
        opts: &SyncOptions,
    ) -> std::io::Result<Arc<Self>> {
        Self::open_for(cache, account, mode, opts, "")
    }

    /// As [`DiskJournal::open`], for a read told apart by `tag` (an incremental refresh
    /// names the event cursor it reads from): a journal of another tag starts afresh.
    pub fn open_for(
        cache: &Cache,
        account: &str,
        mode: Mode,
        opts: &SyncOptions,
        tag: &str,
    ) -> std::io::Result<Arc<Self>> {
        let dir = cache.account_dir(account, mode).join(JOURNAL_DIR);
        let mut fresh = Plan::of(opts);
        fresh.reads.push_str(tag);
        let old: Option<Plan> = fs::read(dir.join(PLAN))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        let resumed = match old {
            Some(old) if old.continues(&fresh) => count_entries(&dir),
            _ => {
                if dir.exists() {
                    fs::remove_dir_all(&dir)?;
                }
                fs::create_dir_all(&dir)?;
                let json = serde_json::to_vec_pretty(&fresh).map_err(std::io::Error::other)?;
                write_entry(&dir.join(PLAN), &json)?;
                0
            }
        };
        Ok(Arc::new(DiskJournal {
            dir,
            resumed,
            verified: Mutex::new(HashSet::new()),
        }))
    }

    /// Answers an interrupted sync had read (0 for a fresh start).
    pub fn resumed(&self) -> usize {
        self.resumed
    }

    /// Removes the journal (the sync's cache generation is saved).
    pub fn finish(&self) {
        if let Err(e) = fs::remove_dir_all(&self.dir) {
            tracing::warn!(dir = %self.dir.display(), error = %e, "could not remove the sync journal");
        }
    }
}

impl Journal for DiskJournal {
    fn kept(&self, request: &str) -> Option<Vec<u8>> {
        let verified = self
            .verified
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains(&endpoint(request));
        if !verified {
            return None;
        }
        fs::read(self.dir.join(entry_name(request))).ok()
    }

    fn keep(&self, request: &str, body: &[u8]) {
        self.verified
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(endpoint(request));
        // Not fsynced: a killed process loses nothing; after a power cut a damaged entry
        // is simply read again.
        let path = self.dir.join(entry_name(request));
        if let Err(e) = write_entry(&path, body) {
            tracing::warn!(path = %path.display(), error = %e, "could not keep an answer in the sync journal");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(now: i64) -> SyncOptions {
        SyncOptions::for_months(now, &jiff::tz::TimeZone::UTC, 3)
    }

    #[test]
    fn a_journal_resumes_only_the_same_recent_sync() {
        let root = tempfile::tempdir().expect("tmp");
        let cache = Cache::at(root.path());
        let now = 1_790_000_000;
        let j = DiskJournal::open(&cache, "acct_1", Mode::Test, &opts(now)).expect("open");
        assert_eq!(j.resumed(), 0);
        j.keep("/v1/payouts?limit=100", b"{\"data\":[]}");
        j.keep("/v1/charges?limit=100", b"{}");
        assert_eq!(
            j.kept("/v1/payouts?limit=100").as_deref(),
            Some(&b"{\"data\":[]}"[..])
        );
        assert_eq!(j.kept("/v1/refunds?limit=100"), None);

        // The same sync a little later: resumed with both answers, each endpoint's
        // replayed once it has answered live again.
        let again = DiskJournal::open(&cache, "acct_1", Mode::Test, &opts(now + 60)).expect("open");
        assert_eq!(again.resumed(), 2);
        assert_eq!(
            again.kept("/v1/charges?limit=100"),
            None,
            "not verified yet"
        );
        again.keep("/v1/charges?limit=100&starting_after=ch_9", b"{}");
        assert!(again.kept("/v1/charges?limit=100").is_some());
        assert_eq!(again.kept("/v1/payouts?limit=100"), None);
        // Too late, or other options: a fresh start.
        let stale = DiskJournal::open(&cache, "acct_1", Mode::Test, &opts(now + MAX_AGE + 1))
            .expect("open");
        assert_eq!(stale.resumed(), 0);
        assert_eq!(stale.kept("/v1/charges?limit=100"), None);
        stale.keep("/v1/charges?limit=100", b"{}");
        let mut other = opts(now + MAX_AGE + 1);
        other.window.0 -= 86_400;
        let other = DiskJournal::open(&cache, "acct_1", Mode::Test, &other).expect("open");
        assert_eq!(other.resumed(), 0);
        other.finish();
        assert!(
            !cache
                .account_dir("acct_1", Mode::Test)
                .join(JOURNAL_DIR)
                .exists()
        );
    }
}
