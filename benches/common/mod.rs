//! What the issue-9 benches share: the cached account they run on.
//!
//! The large account (10,000 payouts, 1,000,000 balance transactions, 100,000 invoices)
//! is made once with
//! `gen-demo --seed 7 --scale 100 --out /work/bench-data/scale100` and cached
//! (Parquet, as `tieout sync` would) by the first bench that finds no cache. Paths:
//!
//! - `TIEOUT_BENCH_CACHE`: the cache's data directory (default
//!   `/work/bench-data/scale100-cache`);
//! - `TIEOUT_BENCH_DATA`: the generated account to cache when the cache is missing
//!   (default `/work/bench-data/scale100`).
//!
//! When neither exists (a fresh clone), a small account (`--scale 2`) is generated and
//! cached under the system's temp folder, so `cargo bench` still runs; the figures then
//! are not issue 9's.

#![allow(dead_code)]

use std::path::PathBuf;

use tieout::app::load::{Need, load_cached};
use tieout::model::{AccountData, Mode};
use tieout::source::cache::Cache;

/// The profile the bench cache is recorded under.
pub const PROFILE: &str = "default";

/// The demo's clock, which the generated accounts are built around.
pub const NOW: i64 = tieout::source::demo::DEMO_NOW;

fn env_path(name: &str, default: &str) -> PathBuf {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from(default), PathBuf::from)
}

/// The bench cache, made first if missing. Prints which account it is.
pub fn cache() -> Cache {
    let large_cache = env_path("TIEOUT_BENCH_CACHE", "/work/bench-data/scale100-cache");
    let large_data = env_path("TIEOUT_BENCH_DATA", "/work/bench-data/scale100");
    let (root, data_dir, scale) = if large_cache.join("profiles").exists() || large_data.exists() {
        (large_cache, large_data, 100)
    } else {
        let tmp = std::env::temp_dir().join("tieout-bench-scale2");
        (tmp.join("cache"), tmp.join("account"), 2)
    };
    let cache = Cache::at(&root);
    let cached = cache.last_used(PROFILE).ok().flatten().is_some();
    if !cached {
        if !data_dir.join("meta.json").exists() {
            eprintln!(
                "generating a scale-{scale} account into {} (once)",
                data_dir.display()
            );
            tieout_testkit::generator::generate(7, scale, &data_dir).expect("generate the account");
        }
        eprintln!(
            "caching {} into {} (once)",
            data_dir.display(),
            root.display()
        );
        tieout::source::demo::cache_from_dir(&data_dir, &cache, PROFILE).expect("cache it");
    }
    let pointer = cache
        .last_used(PROFILE)
        .expect("profile")
        .expect("a cached account");
    let manifest = cache
        .read_manifest(&pointer.account_id, pointer.mode)
        .expect("manifest")
        .expect("manifest present");
    eprintln!(
        "bench account: {} ({}): {:?}",
        root.display(),
        pointer.account_id,
        manifest.row_counts
    );
    cache
}

/// The cached account's rows that `need` reads.
pub fn load(cache: &Cache, need: Need) -> AccountData {
    load_cached(cache, PROFILE, need, &jiff::tz::TimeZone::UTC).expect("load the cache")
}

/// The account id and mode of the bench cache.
pub fn account(cache: &Cache) -> (String, Mode) {
    let p = cache
        .last_used(PROFILE)
        .expect("profile")
        .expect("a cached account");
    (p.account_id, p.mode)
}

/// `VmHWM` (peak resident memory) of this process in MB, where /proc has it.
pub fn peak_rss_mb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}
