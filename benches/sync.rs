//! Sync against a rate-limited, slow Stripe (issue 9, target 4): the fake Stripe server
//! in-process with 150 ms latency per request and a 25 req/s limit that answers 429 above
//! it, tieout's sync paced at a 25 req/s budget, and a naive sequential fetch of the same
//! data (the very requests the sync sent, replayed one at a time) in the same run.
//!
//! Prints, per run and as the median over the runs: wall time, requests, req/s achieved
//! against the budget, 429s, objects fetched, requests per object, and the naive/sync
//! wall-time ratio.
//!
//! The account: `SYNC_BENCH_DATA` (a `gen-demo` output directory), else
//! `/work/bench-data/sync-3` when it exists, else the bundled demo (`fixtures/demo`).
//! Make the default one with
//! `cargo run --release -p tieout-testkit --bin gen-demo -- --seed 7 --scale 3 --out /work/bench-data/sync-3`.
//! `SYNC_BENCH_RUNS` (default 3) sets the number of runs; `SYNC_BENCH_NAIVE=0` skips the
//! naive fetch. Run with `cargo bench --bench sync`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use tieout::model::AccountData;
use tieout::secrets::ApiKey;
use tieout::source::cache::Cache;
use tieout::source::progress::Quiet;
use tieout::source::sync::{self, SyncOptions};
use tieout::stripe::{Client, ClientConfig};
use tieout_testkit::fake_stripe::{FakeConfig, FakeStripe, TEST_KEY};

/// Latency the fake adds to every request.
const LATENCY: Duration = Duration::from_millis(150);
/// The server's limit and the client's configured budget, req/s.
const BUDGET: u32 = 25;
/// The demo's clock (the generator's fixed "now").
const NOW: &str = "2026-11-30T12:00:00Z";

fn data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("SYNC_BENCH_DATA") {
        return PathBuf::from(dir);
    }
    let shared = PathBuf::from("/work/bench-data/sync-3");
    if shared.join("payouts.json").exists() {
        shared
    } else {
        tieout_testkit::fake_stripe::demo_fixtures()
    }
}

fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn client(fake: &FakeStripe) -> Client {
    let key = ApiKey::parse(TEST_KEY).expect("test key");
    let mut cfg = ClientConfig::new(fake.base_url(), key);
    cfg.rate.per_second = BUDGET;
    Client::new(cfg).expect("client")
}

async fn start_fake(dir: &PathBuf) -> FakeStripe {
    let cfg = FakeConfig::default()
        .fixtures(dir)
        .latency(LATENCY)
        .rate_limit(BUDGET);
    FakeStripe::start(cfg).await
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
}

struct Run {
    wall: Duration,
    /// Requests the server received in each second of the sync.
    per_second_seen: Vec<u32>,
    by_endpoint: Vec<(String, u64)>,
    requests: u64,
    rate_limited: u64,
    objects: usize,
    naive: Option<(Duration, u64, u64)>,
}

impl Run {
    fn per_second(&self) -> f64 {
        self.requests as f64 / self.wall.as_secs_f64()
    }
}

async fn one_run(dir: &PathBuf, naive: bool) -> Run {
    let tz = jiff::tz::TimeZone::UTC;
    let now = tieout::time::parse_instant(NOW).expect("now");
    let opts = SyncOptions::for_months(now, &tz, 3);

    let fake = start_fake(dir).await;
    let root = tempfile::tempdir().expect("tmp");
    let cache = Cache::at(root.path());
    let c = client(&fake);
    let started = Instant::now();
    let report = sync::sync(&c, None, &opts, &cache, "bench", &Quiet)
        .await
        .expect("sync");
    let wall = started.elapsed();
    let server = fake.stats();
    let log = fake.requests();
    fake.shutdown().await;
    assert_eq!(
        server.requests, report.stats.requests,
        "both sides count alike"
    );

    let naive = if naive {
        // The same requests, one at a time, through a fresh server and client.
        let fake = start_fake(dir).await;
        let c = client(&fake);
        let started = Instant::now();
        // A refused request (the restricted key's 403 on `/v1/account`) is refused again.
        for r in log.iter().filter(|r| r.status != Some(429)) {
            let _ = c.get::<serde_json::Value>(&r.path, &r.query_pairs()).await;
        }
        let wall = started.elapsed();
        let stats = c.stats();
        fake.shutdown().await;
        Some((wall, stats.requests, stats.rate_limited))
    } else {
        None
    };
    let first = log.first().map_or(0, |r| r.received_ms);
    let mut per_second_seen = Vec::new();
    for r in &log {
        let s = usize::try_from((r.received_ms - first) / 1000).expect("small");
        if per_second_seen.len() <= s {
            per_second_seen.resize(s + 1, 0);
        }
        per_second_seen[s] += 1;
    }
    Run {
        wall,
        per_second_seen,
        by_endpoint: report.stats.by_endpoint.clone().into_iter().collect(),
        requests: report.stats.requests,
        rate_limited: report.stats.rate_limited,
        objects: objects(&report.data),
        naive,
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing of the sort
    // and must not spend minutes here.
    if !std::env::args().any(|a| a == "--bench") {
        println!("sync bench: run with `cargo bench --bench sync`");
        return;
    }
    let dir = data_dir();
    let runs = env_num("SYNC_BENCH_RUNS", 3).max(1);
    let naive = env_num("SYNC_BENCH_NAIVE", 1) != 0;
    println!(
        "sync bench: {} , latency {} ms, limit {BUDGET} req/s (server and client budget), {runs} run(s)",
        dir.display(),
        LATENCY.as_millis()
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let mut results = Vec::new();
    for i in 1..=runs {
        let r = rt.block_on(one_run(&dir, naive));
        let naive_text = match r.naive {
            Some((w, n, l)) => format!(
                "; naive {:.1} s, {n} requests, {:.2} req/s, {l} 429s, ratio {:.2}x",
                w.as_secs_f64(),
                n as f64 / w.as_secs_f64(),
                w.as_secs_f64() / r.wall.as_secs_f64()
            ),
            None => String::new(),
        };
        println!(
            "run {i}: sync {:.2} s, {} requests, {:.2} req/s ({:.0}% of budget), {} 429s, {} objects, {:.4} requests/object{naive_text}",
            r.wall.as_secs_f64(),
            r.requests,
            r.per_second(),
            100.0 * r.per_second() / f64::from(BUDGET),
            r.rate_limited,
            r.objects,
            r.requests as f64 / r.objects as f64,
        );
        if i == 1 {
            let by: Vec<String> = r
                .by_endpoint
                .iter()
                .map(|(e, n)| format!("{e} {n}"))
                .collect();
            println!("  requests by endpoint: {}", by.join(", "));
            let secs: Vec<String> = r.per_second_seen.iter().map(u32::to_string).collect();
            println!(
                "  requests the server saw in each second: {}",
                secs.join(" ")
            );
        }
        results.push(r);
    }
    let wall = median(results.iter().map(|r| r.wall.as_secs_f64()).collect());
    let rps = median(results.iter().map(Run::per_second).collect());
    let limited = median(results.iter().map(|r| r.rate_limited as f64).collect());
    let requests = median(results.iter().map(|r| r.requests as f64).collect());
    let objects = median(results.iter().map(|r| r.objects as f64).collect());
    println!(
        "median: sync {wall:.2} s, {requests:.0} requests, {rps:.2} req/s = {:.1}% of the {BUDGET} req/s budget, {limited:.0} 429s, {objects:.0} objects, {:.4} requests/object",
        100.0 * rps / f64::from(BUDGET),
        requests / objects
    );
    if naive {
        let nwall = median(
            results
                .iter()
                .filter_map(|r| r.naive.map(|n| n.0.as_secs_f64()))
                .collect(),
        );
        let ratio = median(
            results
                .iter()
                .filter_map(|r| r.naive.map(|n| n.0.as_secs_f64() / r.wall.as_secs_f64()))
                .collect(),
        );
        println!(
            "median: naive sequential {nwall:.2} s ({:.2} req/s); naive/sync ratio {ratio:.2}x",
            requests / nwall
        );
    }
}
