//! The incremental refresh against a slow Stripe (issue 39, item 3): per account, the fake
//! Stripe in-process with 300 ms latency per request and the client at the default budget
//! (`RateConfig::default()`, Stripe's test mode: 20 req/s), then
//!
//! a. a full sync into an empty cache (as `tieout sync` runs it: it records the event
//!    cursor), its wall time, the requests the fake saw and the objects stored;
//! b. the generator's next day applied to the fake's store (`next_day`: new charges,
//!    refunds, invoices paid, failed or written off, a payout paid, as events);
//! c. the incremental refresh (`tieout sync` again, eight hours later): its wall time,
//!    requests, the events it read and the objects they changed; it must be a refresh,
//!    not a fallback to a full sync;
//! d. with `REFRESH_BENCH_FULL_AFTER=1`, a full sync of the next day's state into another
//!    empty cache, for comparison.
//!
//! It ends with a Markdown table (one row per account) for BENCHMARKS.md §11: both
//! syncs' requests and wall time, their ratios, and whether the refresh stayed within
//! the bound of 2 requests per changed object plus one page per 100 events.
//!
//! Environment: `REFRESH_BENCH_DATA` a comma-separated list of `gen-demo` output
//! directories (default: the bundled demo, `fixtures/demo`); `REFRESH_BENCH_LATENCY_MS`
//! (default 300); `REFRESH_BENCH_FULL_LATENCY_MS` and `REFRESH_BENCH_FULL_RATE` the full
//! syncs' own, when a large account's full sync at 300 ms would take too long (the table
//! says so); `REFRESH_BENCH_RATE` the client's budget in req/s (default: the
//! client's default); `REFRESH_BENCH_SEED` the next day's seed (default 7). Make the
//! accounts with
//! `cargo run --release -p tieout-testkit --bin gen-demo -- --seed 7 --scale 10 --out /work/bench-data/sync-10`
//! and run with `cargo bench --bench refresh`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tieout::model::AccountData;
use tieout::secrets::ApiKey;
use tieout::source::cache::Cache;
use tieout::source::progress::Quiet;
use tieout::source::sync::{self, How, SyncOptions, SyncReport};
use tieout::stripe::{Client, ClientConfig, RateConfig};
use tieout_testkit::fake_stripe::{FakeConfig, FakeStripe, TEST_KEY};
use tieout_testkit::generator::next_day;

/// The demo's clock (the generator's fixed "now"): the first sync's.
const NOW: &str = "2026-11-30T12:00:00Z";
/// How long the generated day lasts: the refresh runs this much later, in the same month
/// (so the same window: a new month would need a full sync).
const DAY_SECS: i64 = 8 * 3600;

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

fn data_dirs() -> Vec<PathBuf> {
    let listed: Vec<PathBuf> = std::env::var("REFRESH_BENCH_DATA")
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .collect();
    if listed.is_empty() {
        vec![tieout_testkit::fake_stripe::demo_fixtures()]
    } else {
        listed
    }
}

fn client(fake: &FakeStripe, budget: u32) -> Client {
    let key = ApiKey::parse(TEST_KEY).expect("test key");
    let mut cfg = ClientConfig::new(fake.base_url(), key);
    cfg.rate.per_second = budget;
    Client::new(cfg).expect("client")
}

/// Objects a sync stored (each row is one Stripe object read).
fn objects(d: &AccountData) -> usize {
    d.payouts.len()
        + d.balance_transactions.len()
        + d.invoices.len()
        + d.invoice_payments.len()
        + d.payment_intents.len()
        + d.charges.len()
        + d.refunds.len()
        + d.disputes.len()
        + d.customers.len()
        + d.subscriptions.len()
        + d.renewal_methods.len()
        + d.fraud_warnings.len()
}

/// One timed `tieout sync` (incremental unless `full`): the report, how it went, its wall
/// time and the requests the fake saw.
async fn timed_sync(
    fake: &FakeStripe,
    budget: u32,
    cache: &Cache,
    now: i64,
    full: bool,
) -> (SyncReport, How, Duration, usize) {
    let opts = SyncOptions::for_months(now, &jiff::tz::TimeZone::UTC, 3);
    let c = client(fake, budget);
    fake.clear_requests();
    let started = Instant::now();
    let (report, how) = sync::sync_incremental(&c, None, &opts, cache, "bench", full, &Quiet)
        .await
        .expect("sync");
    let wall = started.elapsed();
    (report, how, wall, fake.requests().len())
}

/// What one account's run measured.
struct Row {
    account: String,
    objects: usize,
    full_requests: usize,
    full_wall: Duration,
    /// The generator's day: events logged and distinct objects changed.
    day_events: usize,
    day_objects: usize,
    /// What the refresh read: events, and objects the planner applied or read again.
    events: usize,
    changed: usize,
    refresh_requests: usize,
    refresh_wall: Duration,
    full_after: Option<(usize, Duration)>,
}

impl Row {
    /// The bound: 2 requests per changed object plus one page per 100 events.
    fn bound(&self) -> usize {
        2 * self.day_objects + self.day_events.div_ceil(100)
    }
}

/// The latency and budget of the full syncs (steps a and d), when they are not the
/// refresh's: `REFRESH_BENCH_FULL_LATENCY_MS` and `REFRESH_BENCH_FULL_RATE` (a large
/// account's full sync at 300 ms runs for most of an hour; its request count does not
/// depend on either).
#[derive(Debug, Clone, Copy, PartialEq)]
struct FullAt {
    latency: Duration,
    budget: u32,
}

async fn one_account(
    dir: &Path,
    latency: Duration,
    budget: u32,
    full_at: FullAt,
    seed: u64,
) -> Row {
    let now = tieout::time::parse_instant(NOW).expect("now");
    let later = now + DAY_SECS;
    let fake =
        FakeStripe::start(FakeConfig::default().fixtures(dir).latency(full_at.latency)).await;
    let root = tempfile::tempdir().expect("tmp");
    let cache = Cache::at(root.path().join("cache"));

    let (report, how, full_wall, full_requests) =
        timed_sync(&fake, full_at.budget, &cache, now, false).await;
    fake.set_latency(latency);
    println!(
        "  a. full sync: {full_requests} requests, {:.1} s, {} objects ({how:?})",
        full_wall.as_secs_f64(),
        objects(&report.data)
    );
    let day = fake
        .with_store(|s| next_day(s, seed, now, later))
        .expect("a next day");
    println!(
        "  b. next day (seed {seed}): {} events, {} objects changed",
        day.events, day.objects
    );
    let (refreshed, how, refresh_wall, refresh_requests) =
        timed_sync(&fake, budget, &cache, later, false).await;
    let How::Refreshed {
        events,
        objects: changed,
    } = how
    else {
        panic!("the refresh fell back to a full sync: {how:?}");
    };
    let by: Vec<String> = refreshed
        .stats
        .by_endpoint
        .iter()
        .map(|(e, n)| format!("{e} {n}"))
        .collect();
    println!(
        "  c. refresh: {refresh_requests} requests, {:.1} s, {events} events, {changed} changed objects\n     requests by endpoint: {}",
        refresh_wall.as_secs_f64(),
        by.join(", ")
    );
    let full_after = if env_num("REFRESH_BENCH_FULL_AFTER", 0) == 1 {
        let other = Cache::at(root.path().join("full-after"));
        fake.set_latency(full_at.latency);
        let (_, _, wall, requests) = timed_sync(&fake, full_at.budget, &other, later, true).await;
        println!(
            "  d. full sync of the next day: {requests} requests, {:.1} s",
            wall.as_secs_f64()
        );
        Some((requests, wall))
    } else {
        None
    };
    fake.shutdown().await;
    Row {
        account: name(dir),
        objects: objects(&report.data),
        full_requests,
        full_wall,
        day_events: day.events,
        day_objects: day.objects,
        events,
        changed,
        refresh_requests,
        refresh_wall,
        full_after,
    }
}

/// The account directory's own name (`sync-10`, `demo`), for the table.
fn name(dir: &Path) -> String {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    dir.file_name().map_or_else(
        || dir.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

fn table(rows: &[Row], latency: Duration, budget: u32, full_at: FullAt) -> String {
    let mut out = format!(
        "At {} ms latency per request and a {budget} req/s budget; the bound is 2 requests per changed object plus one page per 100 events.\n\n",
        latency.as_millis()
    );
    if full_at != (FullAt { latency, budget }) {
        out.push_str(&format!(
            "**The full syncs ran at {} ms latency and a {} req/s budget**, not the refresh's: their requests are the same at any latency, their wall time is not the one at {} ms.\n\n",
            full_at.latency.as_millis(),
            full_at.budget,
            latency.as_millis()
        ));
    }
    out.push_str("| account | objects | full sync: requests | full sync: wall | day: events / objects changed | refresh: requests | refresh: wall | requests full/refresh | wall full/refresh | bound | within |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for r in rows {
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
        out.push_str(&format!(
            "| {} | {} | {} | {:.1} s | {} / {} | {} | {:.1} s | {:.1}x | {:.1}x | {} | {} |\n",
            r.account,
            r.objects,
            r.full_requests,
            r.full_wall.as_secs_f64(),
            r.day_events,
            r.day_objects,
            r.refresh_requests,
            r.refresh_wall.as_secs_f64(),
            ratio(r.full_requests as f64, r.refresh_requests as f64),
            ratio(r.full_wall.as_secs_f64(), r.refresh_wall.as_secs_f64()),
            r.bound(),
            if r.refresh_requests <= r.bound() {
                "yes"
            } else {
                "**no**"
            },
        ));
    }
    if rows.iter().any(|r| r.full_after.is_some()) {
        out.push_str("\nThe refresh read (events / changed objects, as the planner counted them) and a full sync of the next day's state:\n\n");
        out.push_str("| account | refresh: events / changed | full sync after: requests | full sync after: wall |\n|---|---:|---:|---:|\n");
        for r in rows {
            if let Some((n, wall)) = r.full_after {
                out.push_str(&format!(
                    "| {} | {} / {} | {n} | {:.1} s |\n",
                    r.account,
                    r.events,
                    r.changed,
                    wall.as_secs_f64()
                ));
            }
        }
    }
    out
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing of the sort
    // and must not spend minutes here.
    if !std::env::args().any(|a| a == "--bench") {
        println!("refresh bench: run with `cargo bench --bench refresh`");
        return;
    }
    let latency = Duration::from_millis(env_num("REFRESH_BENCH_LATENCY_MS", 300));
    let default_budget = RateConfig::default().per_second;
    let budget = u32::try_from(env_num("REFRESH_BENCH_RATE", u64::from(default_budget)))
        .unwrap_or(default_budget);
    let seed = env_num("REFRESH_BENCH_SEED", 7);
    let full_at = FullAt {
        latency: Duration::from_millis(env_num(
            "REFRESH_BENCH_FULL_LATENCY_MS",
            latency.as_millis() as u64,
        )),
        budget: u32::try_from(env_num("REFRESH_BENCH_FULL_RATE", u64::from(budget)))
            .unwrap_or(budget),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let mut rows = Vec::new();
    for dir in data_dirs() {
        println!(
            "refresh bench: {}, latency {} ms, budget {budget} req/s",
            dir.display(),
            latency.as_millis()
        );
        rows.push(rt.block_on(one_account(&dir, latency, budget, full_at, seed)));
    }
    println!();
    print!("{}", table(&rows, latency, budget, full_at));
}
