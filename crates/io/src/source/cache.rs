//! The on-disk cache of a sync: one folder per account and mode, one Parquet file per
//! table, and a `manifest.json` that says what the cache holds.
//!
//! Layout under the data directory (`TIEOUT_DATA_DIR`, else the platform data dir of
//! `directories::ProjectDirs::from("", "", "tieout")`):
//!
//! ```text
//! accounts/<acct>_<mode>/manifest.json          what is cached, and which generation
//! accounts/<acct>_<mode>/gen-000007/<table>.parquet
//! profiles/<profile>.json                        the account and mode a profile last used
//! ```
//!
//! Writes are atomic per generation: a save writes every table into a fresh temporary
//! folder (each file fsynced), renames it to the next `gen-N` folder, and only then
//! switches the manifest to it (temp file, fsync, rename): that rename is the one step
//! that changes what `load` sees. A save interrupted anywhere before it leaves the
//! previous manifest pointing at the previous, untouched generation; the debris
//! (temporary or orphaned generation folders) is removed by the next successful save.
//! The key is never written here, only account ids, modes and the data read with it.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use polars::prelude::{DataFrame, ParquetCompression, ParquetWriter};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::source::tables::Snapshot;
use tieout_core::model::{AccountData, Mode, Origin, SnapshotMeta, Table};

mod generation;
pub use generation::Generation;
use generation::{biggest_first, parquet_file, read_table};

/// Bumped when the layout or the tables' columns change incompatibly; a cache of
/// another format is refused with advice to sync again.
pub const CACHE_FORMAT: u32 = 1;

/// The environment variable that moves the data directory (tests, portable installs).
pub const DATA_DIR_ENV: &str = "TIEOUT_DATA_DIR";

/// Rows per Parquet row group (polars evens a table's groups out near it): a table of more is read back a row group at a time
/// (`generation::read_table_in_slices`), so this bounds the frame decoded beside a
/// table's rows. 65,536 rows of the widest table (the charges, about 550 bytes a row
/// decoded) are about 36 MB; polars' default of 262,144 made the charges one 110 MB frame.
/// A cache written with other row groups is still read a row group at a time, whatever
/// their size.
const ROW_GROUP_ROWS: usize = 1 << 16;

const MANIFEST: &str = "manifest.json";
const GEN_PREFIX: &str = "gen-";
const TMP_PREFIX: &str = ".tmp-";

/// Why the cache could not be read or written. Each message says what, where, and what
/// to do.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error(
        "no data directory could be found for this user; set {DATA_DIR_ENV} to a folder tieout may write to"
    )]
    NoDataDir,
    #[error(
        "there is no cache for account {account} ({mode} mode) at {dir}; run `tieout sync` first"
    )]
    Missing {
        account: String,
        mode: &'static str,
        dir: PathBuf,
    },
    #[error("the cache at {path} is unreadable ({why}); run `tieout sync` to rebuild it")]
    Unreadable { path: PathBuf, why: String },
    #[error(
        "could not write the cache at {path} ({why}); check the folder's permissions and free space, or set {DATA_DIR_ENV} to another folder. The previous cache is unchanged"
    )]
    Write { path: PathBuf, why: String },
}

impl CacheError {
    fn unreadable(path: &Path, why: impl ToString) -> Self {
        Self::Unreadable {
            path: path.to_path_buf(),
            why: why.to_string(),
        }
    }

    fn write(path: &Path, why: impl ToString) -> Self {
        Self::Write {
            path: path.to_path_buf(),
            why: why.to_string(),
        }
    }
}

/// What a cache folder holds: `manifest.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// The cache layout version ([`CACHE_FORMAT`]).
    pub format: u32,
    pub account_id: String,
    #[serde(default)]
    pub account_name: Option<String>,
    pub mode: Mode,
    /// The `Stripe-Version` the data was read with.
    pub api_version: String,
    /// Unix seconds when the data was read from Stripe.
    pub fetched_at: i64,
    pub fetched_at_utc: String,
    /// Payouts arriving in `[window_start, window_end)` are included.
    pub window_start: i64,
    pub window_end: i64,
    pub window_start_utc: String,
    pub window_end_utc: String,
    /// The account's default currency, when the key could read the account.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_currency: Option<tieout_core::money::Currency>,
    /// Whether the payment methods subscriptions renew with were read (absent in a
    /// cache written before tieout read them: not read).
    #[serde(default)]
    pub payment_methods: tieout_core::model::MethodsRead,
    /// The paid and void invoices created from this instant (unix seconds) were read;
    /// absent: none were (or a cache written before tieout recorded it), so `recovery
    /// --cached` refuses it rather than report every failure as lost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settled_invoices_since: Option<i64>,
    /// Stripe's balance and when it was read (absent in a cache written before tieout read
    /// it: the roll-forward then has no Stripe figure to compare with).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balance: Option<tieout_core::model::StripeBalance>,
    /// Every balance transaction of the account was read (absent: only the window's
    /// payouts' lines).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lines_complete: bool,
    /// Every balance transaction created since this instant was read (absent: only the
    /// payouts' lines, or every line when `lines_complete`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines_since: Option<i64>,
    /// Whether the early fraud warnings were read (absent in a cache written before
    /// tieout read them: not read).
    #[serde(default)]
    pub fraud_warnings: tieout_core::model::MethodsRead,
    /// The newest Stripe event the snapshot has taken into account: where the next
    /// incremental refresh reads the events from (absent in a cache written before tieout
    /// read events, or by a key that may not read them: the next sync is full).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<tieout_core::model::events::EventCursor>,
    /// Rows per table (a table added later is absent from an older cache's manifest).
    pub row_counts: BTreeMap<String, usize>,
    /// The tieout version that wrote the cache.
    pub tieout_version: String,
    /// Increases by one with every save; names the folder holding the tables.
    pub generation: u64,
}

impl Manifest {
    fn of(
        snapshot: &Snapshot,
        generation: u64,
        events: Option<tieout_core::model::events::EventCursor>,
    ) -> Self {
        let m = &snapshot.meta;
        Self {
            format: CACHE_FORMAT,
            account_id: m.account_id.clone(),
            account_name: m.account_name.clone(),
            mode: m.mode,
            api_version: m.api_version.clone(),
            fetched_at: m.fetched_at,
            fetched_at_utc: tieout_core::time::iso_utc(m.fetched_at),
            window_start: m.window_start,
            window_end: m.window_end,
            window_start_utc: tieout_core::time::iso_utc(m.window_start),
            window_end_utc: tieout_core::time::iso_utc(m.window_end),
            default_currency: m.default_currency,
            payment_methods: m.payment_methods.clone(),
            settled_invoices_since: m.settled_invoices_since,
            balance: m.balance.clone(),
            lines_complete: m.lines_complete,
            lines_since: m.lines_since,
            fraud_warnings: m.fraud_warnings.clone(),
            events,
            row_counts: snapshot.row_counts(),
            tieout_version: env!("CARGO_PKG_VERSION").to_string(),
            generation,
        }
    }

    /// The snapshot's meta as read back from the cache.
    pub fn meta(&self) -> SnapshotMeta {
        SnapshotMeta {
            account_id: self.account_id.clone(),
            account_name: self.account_name.clone(),
            mode: self.mode,
            origin: Origin::Cache,
            api_version: self.api_version.clone(),
            fetched_at: self.fetched_at,
            window_start: self.window_start,
            window_end: self.window_end,
            default_currency: self.default_currency,
            payment_methods: self.payment_methods.clone(),
            settled_invoices_since: self.settled_invoices_since,
            balance: self.balance.clone(),
            lines_complete: self.lines_complete,
            lines_since: self.lines_since,
            fraud_warnings: self.fraud_warnings.clone(),
        }
    }

    /// Seconds since the data was read from Stripe (never negative).
    pub fn age(&self, now: i64) -> i64 {
        (now - self.fetched_at).max(0)
    }

    /// The folder name of this generation's tables.
    pub fn generation_dir(&self) -> String {
        generation_name(self.generation)
    }
}

/// An age in words: `40 s`, `12 min`, `3 h 5 min`, `2 d 4 h`.
pub fn describe_age(secs: i64) -> String {
    let s = secs.max(0);
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min", s / 60),
        3600..86_400 => format!("{} h {} min", s / 3600, (s % 3600) / 60),
        _ => format!("{} d {} h", s / 86_400, (s % 86_400) / 3600),
    }
}

/// Which account and mode a profile last used, so offline commands and the TUI can open
/// its cache without a key. Never holds the key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfilePointer {
    pub account_id: String,
    pub mode: Mode,
    /// Unix seconds of the sync that set it.
    pub updated_at: i64,
}

/// What a save wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Saved {
    /// The account's cache folder (holds `manifest.json`).
    pub dir: PathBuf,
    pub manifest: Manifest,
    /// Bytes of Parquet written.
    pub bytes: u64,
}

/// A step of a save, reported to a test hook so tests can interrupt a save midway.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SaveStep {
    /// A table's Parquet file was written and fsynced in the temporary folder.
    TableWritten(Table),
    /// The new generation folder is in place; the manifest is about to switch to it.
    BeforeSwitch,
}

/// The cache rooted at a data directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cache {
    root: PathBuf,
}

/// The data directory: `TIEOUT_DATA_DIR` when set, else the platform's.
pub fn data_root() -> Result<PathBuf, CacheError> {
    if let Some(dir) = std::env::var_os(DATA_DIR_ENV).filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "tieout")
        .map(|p| p.data_dir().to_path_buf())
        .ok_or(CacheError::NoDataDir)
}

/// Keeps a name safe as one path component: letters, digits, `_`, `-` and `.`; anything
/// else becomes `-` (account ids and profile names are normally already safe).
fn safe_component(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect();
    match s.as_str() {
        "" | "." | ".." => format!("_{s}"),
        _ => s,
    }
}

fn generation_name(generation: u64) -> String {
    format!("{GEN_PREFIX}{generation:06}")
}

fn parse_generation(name: &str) -> Option<u64> {
    name.strip_prefix(GEN_PREFIX)?.parse().ok()
}

fn fsync_dir(dir: &Path) {
    // Directories cannot be opened for syncing on every platform; best effort.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

impl Cache {
    /// The cache in the default data directory.
    pub fn open_default() -> Result<Self, CacheError> {
        Ok(Self::at(data_root()?))
    }

    /// The cache under `root` (a data directory).
    pub fn at(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `accounts/<acct>_<mode>/`.
    pub fn account_dir(&self, account_id: &str, mode: Mode) -> PathBuf {
        self.root
            .join("accounts")
            .join(format!("{}_{}", safe_component(account_id), mode.as_str()))
    }

    fn profile_path(&self, profile: &str) -> PathBuf {
        self.root
            .join("profiles")
            .join(format!("{}.json", safe_component(profile)))
    }

    /// The manifest of an account's cache; `None` when there is no cache yet.
    pub fn read_manifest(
        &self,
        account_id: &str,
        mode: Mode,
    ) -> Result<Option<Manifest>, CacheError> {
        let path = self.account_dir(account_id, mode).join(MANIFEST);
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(CacheError::unreadable(&path, e)),
        };
        let manifest: Manifest =
            serde_json::from_slice(&bytes).map_err(|e| CacheError::unreadable(&path, e))?;
        if manifest.format != CACHE_FORMAT {
            return Err(CacheError::unreadable(
                &path,
                format!(
                    "it was written in cache format {} by tieout {}, this tieout reads format {CACHE_FORMAT}",
                    manifest.format, manifest.tieout_version
                ),
            ));
        }
        Ok(Some(manifest))
    }

    /// Loads an account's cached snapshot (its meta says `Origin::Cache`).
    pub fn load(&self, account_id: &str, mode: Mode) -> Result<Snapshot, CacheError> {
        self.load_tables(account_id, mode, &|_| true)
    }

    /// [`Self::load`] reading only the tables `wanted` names (the others are left as
    /// empty frames without columns, which read back as no rows). The files are read in
    /// parallel.
    pub fn load_tables(
        &self,
        account_id: &str,
        mode: Mode,
        wanted: &(dyn Fn(Table) -> bool + Sync),
    ) -> Result<Snapshot, CacheError> {
        let (manifest, gen_dir) = self.current(account_id, mode)?;
        let tables: BTreeMap<Table, DataFrame> = biggest_first(&manifest)
            .into_par_iter()
            .map(|table| read_table(&manifest, &gen_dir, table, wanted).map(|df| (table, df)))
            .collect::<Result<_, _>>()?;
        Snapshot::from_tables(manifest.meta(), tables)
            .map_err(|e| CacheError::unreadable(&gen_dir, e))
    }

    /// The rows of the tables `wanted` names (the others empty), each table read from
    /// Parquet, turned into rows and dropped in turn (see
    /// [`crate::source::tables::data_from_tables`]): faster than [`Self::load_tables`]
    /// then `into_data`, and the account is never in memory twice.
    pub fn load_data(
        &self,
        account_id: &str,
        mode: Mode,
        wanted: &(dyn Fn(Table) -> bool + Sync),
    ) -> Result<AccountData, CacheError> {
        self.generation(account_id, mode)?.load_data(wanted)
    }

    /// The account's current cache generation, to read in several parts that all come
    /// from the same sync (a sync saving meanwhile does not mix generations: reading the
    /// old one then fails, and the new one is what the caller is about to get anyway).
    pub fn generation(&self, account_id: &str, mode: Mode) -> Result<Generation, CacheError> {
        let (manifest, dir) = self.current(account_id, mode)?;
        Ok(Generation { manifest, dir })
    }

    /// The manifest and the folder of the current generation.
    fn current(&self, account_id: &str, mode: Mode) -> Result<(Manifest, PathBuf), CacheError> {
        let dir = self.account_dir(account_id, mode);
        let manifest =
            self.read_manifest(account_id, mode)?
                .ok_or_else(|| CacheError::Missing {
                    account: account_id.to_string(),
                    mode: mode.as_str(),
                    dir: dir.clone(),
                })?;
        let gen_dir = dir.join(manifest.generation_dir());
        Ok((manifest, gen_dir))
    }

    /// Saves a snapshot as the account's new cache generation, atomically.
    pub fn save(&self, snapshot: &Snapshot) -> Result<Saved, CacheError> {
        self.save_with(snapshot, &mut |_| Ok(()))
    }

    /// [`Self::save`] with a hook called after each step; an error from the hook aborts
    /// the save as a failed write would.
    pub(crate) fn save_with(
        &self,
        snapshot: &Snapshot,
        hook: &mut dyn FnMut(SaveStep) -> io::Result<()>,
    ) -> Result<Saved, CacheError> {
        self.save_inner(snapshot, None, hook)
    }

    /// [`Self::save`], recording in the manifest the newest event the snapshot has taken
    /// into account (where the next incremental refresh starts).
    pub fn save_at(
        &self,
        snapshot: &Snapshot,
        events: Option<tieout_core::model::events::EventCursor>,
    ) -> Result<Saved, CacheError> {
        self.save_inner(snapshot, events, &mut |_| Ok(()))
    }

    fn save_inner(
        &self,
        snapshot: &Snapshot,
        events: Option<tieout_core::model::events::EventCursor>,
        hook: &mut dyn FnMut(SaveStep) -> io::Result<()>,
    ) -> Result<Saved, CacheError> {
        let meta = &snapshot.meta;
        let dir = self.account_dir(&meta.account_id, meta.mode);
        fs::create_dir_all(&dir).map_err(|e| CacheError::write(&dir, e))?;

        // One save at a time per account: a second sync waits for the first.
        let lock_path = dir.join(".lock");
        let lock = File::create(&lock_path).map_err(|e| CacheError::write(&lock_path, e))?;
        lock.lock().map_err(|e| CacheError::write(&lock_path, e))?;

        // The next generation is above both the manifest's and any folder left behind.
        let current = self
            .read_manifest(&meta.account_id, meta.mode)
            .ok()
            .flatten()
            .map_or(0, |m| m.generation);
        let highest_on_disk = fs::read_dir(&dir)
            .map_err(|e| CacheError::write(&dir, e))?
            .filter_map(Result::ok)
            .filter_map(|e| parse_generation(&e.file_name().to_string_lossy()))
            .max()
            .unwrap_or(0);
        let generation = current.max(highest_on_disk) + 1;
        let manifest = Manifest::of(snapshot, generation, events);

        let tmp = tempfile::Builder::new()
            .prefix(TMP_PREFIX)
            .tempdir_in(&dir)
            .map_err(|e| CacheError::write(&dir, e))?;
        let mut bytes = 0u64;
        for (table, df) in snapshot.tables() {
            let path = tmp.path().join(parquet_file(table));
            bytes += write_parquet(&path, df)?;
            hook(SaveStep::TableWritten(table)).map_err(|e| CacheError::write(&path, e))?;
        }
        fsync_dir(tmp.path());
        let gen_dir = dir.join(manifest.generation_dir());
        let tmp_path = tmp.keep();
        if let Err(e) = fs::rename(&tmp_path, &gen_dir) {
            let _ = fs::remove_dir_all(&tmp_path);
            return Err(CacheError::write(&gen_dir, e));
        }
        fsync_dir(&dir);
        hook(SaveStep::BeforeSwitch).map_err(|e| CacheError::write(&gen_dir, e))?;

        // The switch: from here on `load` sees the new generation.
        let manifest_path = dir.join(MANIFEST);
        let json = serde_json::to_vec_pretty(&manifest)
            .map_err(|e| CacheError::write(&manifest_path, e))?;
        crate::files::write_atomic(&manifest_path, &json, true)
            .map_err(|e| CacheError::write(&manifest_path, e))?;

        // Old generations and debris of interrupted saves; failures here are harmless.
        if let Ok(entries) = fs::read_dir(&dir) {
            for entry in entries.filter_map(Result::ok) {
                let name = entry.file_name().to_string_lossy().to_string();
                let stale_gen = parse_generation(&name).is_some_and(|g| g != generation);
                if stale_gen || name.starts_with(TMP_PREFIX) {
                    let _ = fs::remove_dir_all(entry.path());
                }
            }
        }
        drop(lock);
        Ok(Saved {
            dir,
            manifest,
            bytes,
        })
    }

    /// The account and mode `profile` last synced, if any.
    pub fn last_used(&self, profile: &str) -> Result<Option<ProfilePointer>, CacheError> {
        let path = self.profile_path(profile);
        match fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| CacheError::unreadable(&path, e)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(CacheError::unreadable(&path, e)),
        }
    }

    /// Records that `profile` uses this account and mode.
    pub fn set_last_used(&self, profile: &str, pointer: &ProfilePointer) -> Result<(), CacheError> {
        let path = self.profile_path(profile);
        let json = serde_json::to_vec_pretty(pointer).map_err(|e| CacheError::write(&path, e))?;
        crate::files::write_atomic(&path, &json, true).map_err(|e| CacheError::write(&path, e))?;
        Ok(())
    }
}

/// Writes one table as zstd-compressed Parquet and fsyncs it; returns its size.
fn write_parquet(path: &Path, df: &DataFrame) -> Result<u64, CacheError> {
    let mut file = File::create(path).map_err(|e| CacheError::write(path, e))?;
    let mut df = df.clone();
    ParquetWriter::new(&mut file)
        .with_compression(ParquetCompression::Zstd(None))
        .with_row_group_size(Some(ROW_GROUP_ROWS))
        .finish(&mut df)
        .map_err(|e| CacheError::write(path, e))?;
    file.sync_all().map_err(|e| CacheError::write(path, e))?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    Ok(len)
}

/// The manifest of an account's cache in the default data directory.
pub fn read_manifest(account_id: &str, mode: Mode) -> Result<Option<Manifest>, CacheError> {
    Cache::open_default()?.read_manifest(account_id, mode)
}

/// Loads an account's cache from the default data directory.
pub fn load(account_id: &str, mode: Mode) -> Result<Snapshot, CacheError> {
    Cache::open_default()?.load(account_id, mode)
}

/// Saves a snapshot into the default data directory.
pub fn save(snapshot: &Snapshot) -> Result<Saved, CacheError> {
    Cache::open_default()?.save(snapshot)
}

/// The account and mode a profile last used, from the default data directory.
pub fn last_used(profile: &str) -> Result<Option<ProfilePointer>, CacheError> {
    Cache::open_default()?.last_used(profile)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::testdata::random_data;

    fn snapshot(seed: u64, n: usize) -> Snapshot {
        let mut data = random_data(seed, n);
        data.meta.account_id = "acct_1TEST".into();
        data.meta.mode = Mode::Test;
        data.meta.fetched_at = 1_796_000_000;
        data.meta.window_start = 1_790_000_000;
        data.meta.window_end = 1_797_000_000;
        Snapshot::from_data(&data).expect("frames")
    }

    fn gens(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .expect("dir")
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().to_string())
            .filter(|n| n.starts_with(GEN_PREFIX) || n.starts_with(TMP_PREFIX))
            .collect();
        names.sort();
        names
    }

    #[test]
    fn save_then_load_gives_the_same_rows_and_a_manifest() {
        let root = tempfile::tempdir().expect("tmp");
        let cache = Cache::at(root.path());
        let snap = snapshot(11, 40);
        assert!(
            cache
                .read_manifest("acct_1TEST", Mode::Test)
                .expect("read")
                .is_none()
        );
        let saved = cache.save(&snap).expect("save");
        assert_eq!(saved.dir, root.path().join("accounts/acct_1TEST_test"));
        assert_eq!(saved.manifest.generation, 1);
        assert!(saved.bytes > 0);

        let manifest = cache
            .read_manifest("acct_1TEST", Mode::Test)
            .expect("read")
            .expect("present");
        assert_eq!(manifest, saved.manifest);
        assert_eq!(manifest.row_counts.get("balance_transactions"), Some(&40));
        assert_eq!(
            manifest.fetched_at_utc,
            tieout_core::time::iso_utc(1_796_000_000)
        );
        assert_eq!(manifest.age(1_796_000_090), 90);

        let back = cache.load("acct_1TEST", Mode::Test).expect("load");
        assert_eq!(back.meta.origin, Origin::Cache);
        let mut expected = snap.to_data().expect("rows");
        expected.meta.origin = Origin::Cache;
        assert_eq!(back.to_data().expect("rows"), expected);
        // The other mode of the same account is a different cache.
        assert!(matches!(
            cache.load("acct_1TEST", Mode::Live),
            Err(CacheError::Missing { .. })
        ));
    }

    /// A cache written before tieout read payment methods: its manifest names neither
    /// the card read nor the `renewal_methods` table, and it has no file for it.
    #[test]
    fn a_cache_from_before_the_card_read_still_loads() {
        let root = tempfile::tempdir().expect("tmp");
        let cache = Cache::at(root.path());
        let snap = snapshot(5, 6);
        assert_eq!(
            snap.meta.payment_methods,
            tieout_core::model::MethodsRead::Read
        );
        let saved = cache.save(&snap).expect("save");
        let back = cache.load("acct_1TEST", Mode::Test).expect("load");
        assert_eq!(
            back.meta.payment_methods,
            tieout_core::model::MethodsRead::Read
        );
        assert_eq!(back.to_data().expect("rows").renewal_methods.len(), 6);
        let path = saved.dir.join(MANIFEST);
        let mut json: serde_json::Value =
            serde_json::from_slice(&fs::read(&path).expect("manifest")).expect("json");
        let obj = json.as_object_mut().expect("object");
        obj.remove("payment_methods");
        obj["row_counts"]
            .as_object_mut()
            .expect("counts")
            .remove("renewal_methods");
        fs::write(&path, serde_json::to_vec(&json).expect("json")).expect("write");
        fs::remove_file(saved.dir.join("gen-000001/renewal_methods.parquet")).expect("rm");
        let old = cache
            .load("acct_1TEST", Mode::Test)
            .expect("an old cache loads");
        assert_eq!(
            old.meta.payment_methods,
            tieout_core::model::MethodsRead::NotRead
        );
        let data = old.to_data().expect("rows");
        assert!(data.renewal_methods.is_empty());
        assert_eq!(data.invoices.len(), 6);
    }

    /// A cache written before tieout read early fraud warnings: no `fraud_warnings` in
    /// its manifest, no table file. It loads, the table empty and marked not read.
    #[test]
    fn a_cache_from_before_the_fraud_warnings_still_loads_them_as_not_read() {
        let root = tempfile::tempdir().expect("tmp");
        let cache = Cache::at(root.path());
        let mut snap = snapshot(5, 6);
        snap.meta.fraud_warnings = tieout_core::model::MethodsRead::Read;
        let saved = cache.save(&snap).expect("save");
        let path = saved.dir.join(MANIFEST);
        let mut json: serde_json::Value =
            serde_json::from_slice(&fs::read(&path).expect("manifest")).expect("json");
        assert_eq!(json["fraud_warnings"]["state"], "read");
        let obj = json.as_object_mut().expect("object");
        obj.remove("fraud_warnings");
        obj["row_counts"]
            .as_object_mut()
            .expect("counts")
            .remove("fraud_warnings");
        fs::write(&path, serde_json::to_vec(&json).expect("json")).expect("write");
        fs::remove_file(saved.dir.join("gen-000001/fraud_warnings.parquet")).expect("rm");
        let old = cache
            .load("acct_1TEST", Mode::Test)
            .expect("an old cache loads");
        assert_eq!(
            old.meta.fraud_warnings,
            tieout_core::model::MethodsRead::NotRead
        );
        let data = old.to_data().expect("rows");
        assert!(data.fraud_warnings.is_empty());
        assert_eq!(data.invoices.len(), 6);
    }

    #[test]
    fn a_second_save_replaces_the_first_and_removes_it() {
        let root = tempfile::tempdir().expect("tmp");
        let cache = Cache::at(root.path());
        cache.save(&snapshot(1, 5)).expect("save 1");
        let second = snapshot(2, 7);
        let saved = cache.save(&second).expect("save 2");
        assert_eq!(saved.manifest.generation, 2);
        assert_eq!(gens(&saved.dir), vec!["gen-000002".to_string()]);
        let back = cache.load("acct_1TEST", Mode::Test).expect("load");
        assert_eq!(back.frame(Table::Payouts).height(), 7);

        // An account with nothing in it is a valid cache too.
        let empty = snapshot(3, 0);
        cache.save(&empty).expect("save empty");
        let back = cache.load("acct_1TEST", Mode::Test).expect("load empty");
        assert!(back.row_counts().values().all(|&n| n == 0));
        assert_eq!(back.to_data().expect("rows").payouts, Vec::new());
    }

    #[test]
    fn an_interrupted_save_leaves_the_previous_generation_loadable() {
        let root = tempfile::tempdir().expect("tmp");
        let cache = Cache::at(root.path());
        let first = snapshot(1, 5);
        cache.save(&first).expect("save 1");
        let first_rows = cache
            .load("acct_1TEST", Mode::Test)
            .expect("load")
            .to_data();

        // Fails after three tables were written.
        let mut written = 0;
        let err = cache
            .save_with(&snapshot(2, 9), &mut |step| {
                if let SaveStep::TableWritten(_) = step {
                    written += 1;
                    if written == 3 {
                        return Err(io::Error::other("disk full (simulated)"));
                    }
                }
                Ok(())
            })
            .expect_err("interrupted");
        let text = err.to_string();
        assert!(text.contains("disk full (simulated)"), "{text}");
        assert!(text.contains("The previous cache is unchanged"), "{text}");
        let after = cache.load("acct_1TEST", Mode::Test).expect("load");
        assert_eq!(after.to_data().expect("rows"), first_rows.expect("rows"));

        // Interrupted just before the switch: the new generation is on disk, unused.
        let err = cache
            .save_with(&snapshot(3, 9), &mut |step| match step {
                SaveStep::BeforeSwitch => Err(io::Error::other("killed (simulated)")),
                _ => Ok(()),
            })
            .expect_err("interrupted");
        assert!(err.to_string().contains("killed"));
        let dir = cache.account_dir("acct_1TEST", Mode::Test);
        assert_eq!(gens(&dir), vec!["gen-000001", "gen-000002"]);
        let after = cache.load("acct_1TEST", Mode::Test).expect("load");
        assert_eq!(after.frame(Table::Payouts).height(), 5);

        // A crash that left a temporary folder behind, then a good save cleans up.
        fs::create_dir(dir.join(".tmp-crashed")).expect("debris");
        let saved = cache.save(&snapshot(4, 3)).expect("save");
        assert_eq!(saved.manifest.generation, 3);
        assert_eq!(gens(&dir), vec!["gen-000003"]);
        assert_eq!(
            cache
                .load("acct_1TEST", Mode::Test)
                .expect("load")
                .frame(Table::Payouts)
                .height(),
            3
        );
    }

    #[test]
    fn a_damaged_cache_is_reported_with_its_path_and_the_fix() {
        let root = tempfile::tempdir().expect("tmp");
        let cache = Cache::at(root.path());
        let saved = cache.save(&snapshot(5, 4)).expect("save");
        let file = saved.dir.join("gen-000001").join("charges.parquet");
        fs::write(&file, b"not parquet").expect("damage");
        let err = cache
            .load("acct_1TEST", Mode::Test)
            .expect_err("damaged")
            .to_string();
        assert!(
            err.starts_with(&format!("the cache at {} is unreadable (", file.display())),
            "{err}"
        );
        assert!(err.ends_with("run `tieout sync` to rebuild it"), "{err}");

        fs::write(saved.dir.join(MANIFEST), b"{").expect("damage");
        let err = cache
            .read_manifest("acct_1TEST", Mode::Test)
            .expect_err("damaged");
        assert!(matches!(err, CacheError::Unreadable { .. }));

        let missing = Cache::at(root.path())
            .load("acct_other", Mode::Live)
            .expect_err("none");
        assert!(missing.to_string().contains("run `tieout sync` first"));
    }

    #[test]
    fn a_row_count_that_disagrees_with_the_manifest_is_refused() {
        let root = tempfile::tempdir().expect("tmp");
        let cache = Cache::at(root.path());
        let saved = cache.save(&snapshot(5, 4)).expect("save");
        let mut m = saved.manifest.clone();
        m.row_counts.insert("refunds".into(), 5);
        fs::write(
            saved.dir.join(MANIFEST),
            serde_json::to_vec(&m).expect("json"),
        )
        .expect("w");
        let err = cache
            .load("acct_1TEST", Mode::Test)
            .expect_err("mismatch")
            .to_string();
        assert!(
            err.contains("refunds.parquet is unreadable (it holds 4 rows, the manifest says 5)"),
            "{err}"
        );
    }

    #[test]
    fn profile_pointer_round_trips_and_names_are_kept_safe() {
        let root = tempfile::tempdir().expect("tmp");
        let cache = Cache::at(root.path());
        assert_eq!(cache.last_used("default").expect("read"), None);
        let p = ProfilePointer {
            account_id: "acct_1".into(),
            mode: Mode::Live,
            updated_at: 5,
        };
        cache.set_last_used("../evil name", &p).expect("write");
        assert!(root.path().join("profiles/..-evil-name.json").exists());
        assert_eq!(cache.last_used("../evil name").expect("read"), Some(p));
        assert_eq!(safe_component(".."), "_..");
        assert_eq!(
            cache.account_dir("acct/../x", Mode::Test),
            root.path().join("accounts/acct-..-x_test")
        );
    }

    #[test]
    fn ages_read_naturally() {
        assert_eq!(describe_age(-5), "0 s");
        assert_eq!(describe_age(59), "59 s");
        assert_eq!(describe_age(600), "10 min");
        assert_eq!(describe_age(3 * 3600 + 5 * 60), "3 h 5 min");
        assert_eq!(describe_age(2 * 86_400 + 4 * 3600), "2 d 4 h");
    }
}
