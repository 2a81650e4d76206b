//! The rate budget at any latency (issue 19): the fake Stripe server in-process with a
//! fixed latency per request, and a fan-out of payment-intent reads through
//! `Client::map_concurrent` (what a sync does per failing invoice), paced at a budget of
//! 20 req/s (test key) and 100 req/s (a live key), at 150, 300, 600 and 1,000 ms per
//! request. Requests in flight follow the measured latency (Little's law), so each cell
//! should use its budget within 10%. In the same run, a sequential client (one request at
//! a time, like a plain script) at 300 ms gives the ratio.
//!
//! Prints, per cell: requests, the rate the server saw them arrive at (first to last
//! arrival) as a share of the budget, the client's in-flight target and measured median
//! latency, and 429s (the server has no limit here: there are none). `PACE_BENCH_SECONDS` (default 12) sets each cell's length in
//! budget-seconds. Run with `cargo bench --bench pace` (or `--profile dev`: the pace is
//! network-bound, a debug build measures the same).

use std::time::{Duration, Instant};

use tieout::model::Mode;
use tieout::secrets::ApiKey;
use tieout::stripe::{Client, ClientConfig, RateConfig};
use tieout_testkit::fake_stripe::{FakeConfig, FakeStripe, TEST_KEY};

/// A live-looking restricted key the fake is told to accept (for the 100 req/s budget).
const LIVE_KEY: &str = concat!("rk_live", "_51TieoutBenchKey000000000000000000000000abcd");
const LATENCIES_MS: [u64; 4] = [150, 300, 600, 1000];
const BUDGETS: [u32; 2] = [20, 100];

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

async fn fake_for(budget: u32) -> FakeStripe {
    let cfg = if budget > 25 {
        FakeConfig::default().accept_only([LIVE_KEY]).livemode(true)
    } else {
        FakeConfig::default()
    };
    FakeStripe::start(cfg).await
}

fn client(fake: &FakeStripe, budget: u32) -> Client {
    let (key, mode) = if budget > 25 {
        (LIVE_KEY, Mode::Live)
    } else {
        (TEST_KEY, Mode::Test)
    };
    let key = ApiKey::parse(key).expect("key");
    let mut cfg = ClientConfig::new(fake.base_url(), key);
    cfg.rate = RateConfig::for_mode(mode)
        .with_budget(budget, mode)
        .expect("within the ceiling");
    Client::new(cfg).expect("client")
}

/// Payment intent ids to read (read once, before the clock starts).
async fn intent_paths(fake: &FakeStripe, budget: u32) -> Vec<String> {
    let c = client(fake, budget);
    let all: Vec<serde_json::Value> = c
        .list_all("/v1/payment_intents", &[])
        .await
        .expect("list intents");
    all.iter()
        .filter_map(|v| v.get("id").and_then(|i| i.as_str()))
        .map(|id| format!("/v1/payment_intents/{id}"))
        .collect()
}

struct Cell {
    requests: usize,
    /// Arrivals per second at the server, first to last.
    arrival_rate: f64,
    wall: Duration,
    in_flight: usize,
    latency: Duration,
    rate_limited: u64,
}

async fn fan_out(budget: u32, latency: Duration, seconds: u64) -> Cell {
    let fake = fake_for(budget).await;
    let paths = intent_paths(&fake, budget).await;
    fake.set_latency(latency);
    fake.clear_requests();
    let n = usize::try_from(u64::from(budget) * seconds).expect("small");
    let c = client(&fake, budget);
    let fan = c.background();
    let work: Vec<String> = paths.iter().cycle().take(n).cloned().collect();
    let started = Instant::now();
    c.map_concurrent(work, |path| {
        let fan = fan.clone();
        async move { fan.get::<serde_json::Value>(&path, &[]).await }
    })
    .await
    .expect("reads");
    let wall = started.elapsed();
    let log = fake.requests();
    let first = log.iter().map(|r| r.received_ms).min().unwrap_or(0);
    let last = log.iter().map(|r| r.received_ms).max().unwrap_or(0);
    let span = Duration::from_millis(last - first).as_secs_f64();
    let cell = Cell {
        requests: log.len(),
        arrival_rate: (log.len().saturating_sub(1)) as f64 / span.max(1e-9),
        wall,
        in_flight: c.in_flight(),
        latency: c.latency(),
        rate_limited: c.stats().rate_limited,
    };
    fake.shutdown().await;
    cell
}

async fn sequential(latency: Duration, n: usize) -> (f64, usize) {
    let fake = fake_for(20).await;
    let paths = intent_paths(&fake, 20).await;
    fake.set_latency(latency);
    let c = client(&fake, 20);
    let started = Instant::now();
    for path in paths.iter().cycle().take(n) {
        c.get::<serde_json::Value>(path, &[]).await.expect("read");
    }
    let rate = n as f64 / started.elapsed().as_secs_f64();
    fake.shutdown().await;
    (rate, n)
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("pace bench: run with `cargo bench --bench pace`");
        return;
    }
    let seconds = env_num("PACE_BENCH_SECONDS", 12).max(2);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    println!(
        "pace bench: fan-out of GET /v1/payment_intents/{{id}}, {seconds} budget-seconds per cell"
    );
    println!(
        "| budget | latency | requests | req/s seen | share of budget | in flight | 429s | wall |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let mut at_300 = None;
    for budget in BUDGETS {
        for ms in LATENCIES_MS {
            let cell = rt.block_on(fan_out(budget, Duration::from_millis(ms), seconds));
            if budget == 20 && ms == 300 {
                at_300 = Some(cell.arrival_rate);
            }
            println!(
                "| {budget} | {ms} ms | {} | {:.2} | {:.1}% | {} (~{} ms) | {} | {:.1} s |",
                cell.requests,
                cell.arrival_rate,
                100.0 * cell.arrival_rate / f64::from(budget),
                cell.in_flight,
                cell.latency.as_millis(),
                cell.rate_limited,
                cell.wall.as_secs_f64(),
            );
        }
    }
    let (seq_rate, n) = rt.block_on(sequential(Duration::from_millis(300), 40));
    let ratio = at_300.map_or(0.0, |r| r / seq_rate);
    println!(
        "sequential client at 300 ms: {n} requests, {seq_rate:.2} req/s; paced fan-out at budget 20 / sequential = {ratio:.2}x"
    );
}
