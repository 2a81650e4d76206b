//! Issue 20: SQL over the 1M-line account (`--scale 100`: 1,000,000 balance transactions,
//! 10,000 payouts), through the same engine as `tieout query` and the Query tab: a group-by
//! over balance transactions by month × category × currency (target < 1 s) and a join of
//! payouts to their lines (target < 2 s). Runs on the bench cache (see `common`), over
//! the cache's Parquet files as `tieout --cached query` does (each run scans the files).
//! `cargo bench --bench query`. The whole process beside DuckDB: `scripts/bench_query.py`.

mod common;

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use jiff::tz::TimeZone;
use tieout::query::Engine;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Every balance transaction by month × reporting category × currency.
const GROUP_BY: &str = "\
SELECT strftime(created_utc, '%Y-%m') AS month, reporting_category, currency,
  COUNT(*) AS lines, SUM(amount) AS amount, SUM(fee) AS fee, SUM(net) AS net
FROM balance_transactions
GROUP BY strftime(created_utc, '%Y-%m'), reporting_category, currency
ORDER BY month, currency, reporting_category";

/// Every payout with each of its lines (one row per line paid out).
const JOIN: &str = "\
SELECT p.id AS payout, p.arrival_date_utc, p.currency AS payout_currency,
  p.amount AS payout_amount, b.id, b.kind, b.reporting_category, b.amount, b.fee, b.net
FROM payouts p
JOIN balance_transactions b ON b.payout = p.id";

/// The same join summed per payout beside the payout's amount (what a tie-out by SQL reads).
const JOIN_SUMMED: &str = "\
WITH l AS (
  SELECT payout, COUNT(*) AS lines, SUM(net) AS net
  FROM balance_transactions
  WHERE payout IS NOT NULL AND kind <> 'payout'
  GROUP BY payout
)
SELECT p.id, p.currency, p.amount, l.lines, l.net
FROM payouts p
JOIN l ON l.payout = p.id
ORDER BY p.id";

fn query(c: &mut Criterion) {
    let cache = common::cache();
    let (account, mode) = common::account(&cache);
    let started = Instant::now();
    let generation = cache.generation(&account, mode).expect("the cache");
    let engine = Engine::over_cache(generation, common::NOW, &TimeZone::UTC).expect("the engine");
    eprintln!("engine over the cache ready in {:.2?}", started.elapsed());
    for (name, sql) in [
        ("group_by", GROUP_BY),
        ("join", JOIN),
        ("join_summed", JOIN_SUMMED),
    ] {
        let df = engine.run(sql).expect(name);
        eprintln!("{name}: {} rows × {} columns", df.height(), df.width());
    }
    let mut g = c.benchmark_group("query");
    g.sample_size(10);
    g.bench_function("group_by_month_category_currency", |b| {
        b.iter_with_large_drop(|| black_box(engine.run(GROUP_BY).expect("group by")))
    });
    g.bench_function("join_payouts_to_lines", |b| {
        b.iter_with_large_drop(|| black_box(engine.run(JOIN).expect("join")))
    });
    g.bench_function("join_payouts_to_summed_lines", |b| {
        b.iter_with_large_drop(|| black_box(engine.run(JOIN_SUMMED).expect("join summed")))
    });
    g.finish();
}

criterion_group!(benches, query);
criterion_main!(benches);
