//! Issue 9, target 2: the tie-out of every payout in the cache (10,000 at scale 100, over
//! all the months the cache holds) including the CSV and Markdown writes, and the dunning
//! worklist of 100,000 invoices (10,000 on the list). Runs on the bench cache (see
//! `common`). `cargo bench --bench tieout`.

mod common;

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use jiff::tz::TimeZone;
use rayon::prelude::*;
use tieout::app::load::Need;
use tieout::domain::dunning;
use tieout::domain::tieout::tie_out_months;
use tieout::files::{write_atomic, write_atomic_with};
use tieout::model::AccountData;
use tieout::report::reconciliation::{CSV_FILE, MD_FILE, ReportHeader, csv_to, markdown};
use tieout::time::Month;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Every month from the cache's window start to its end.
fn months(data: &AccountData) -> Vec<Month> {
    let tz = TimeZone::UTC;
    let last = Month::of(data.meta.window_end - 1, &tz);
    let mut m = Month::of(data.meta.window_start, &tz);
    let mut out = vec![m];
    while m < last {
        m = m.next();
        out.push(m);
    }
    out
}

/// Ties out every month and writes each month's CSV and Markdown into `dir` (what
/// `tieout reconcile --month M` writes, for every month at once). The lines are borrowed
/// from `data`, and each CSV is streamed into its file rather than built in memory.
fn tie_out_all(data: &AccountData, dir: &std::path::Path) -> usize {
    let tz = TimeZone::UTC;
    let header = ReportHeader::from_meta(&data.meta, "UTC");
    let all = tie_out_months(
        &data.payouts,
        &data.balance_transactions,
        &months(data),
        &tz,
    );
    // Months render and write in parallel (each write is fsynced: the disk waits overlap).
    all.par_iter()
        .map(|t| {
            let csv = dir.join(format!("{}-{CSV_FILE}", t.month));
            write_atomic_with(&csv, true, |w| {
                csv_to(t, w).map(drop).map_err(std::io::Error::other)
            })
            .expect("write");
            let md = dir.join(format!("{}-{MD_FILE}", t.month));
            write_atomic(&md, markdown(t, &header).as_bytes(), true).expect("write");
            t.payouts.len()
        })
        .sum()
}

fn tieout(c: &mut Criterion) {
    let cache = common::cache();
    let month_data = common::load(&cache, Need::Month("2026-11".parse().expect("month")));
    let dir = tempfile::tempdir().expect("tmp");
    let n = tie_out_all(&month_data, dir.path());
    eprintln!(
        "tying out {n} payouts ({} balance transactions) over {} months",
        month_data.balance_transactions.len(),
        months(&month_data).len()
    );
    let mut g = c.benchmark_group("tieout");
    g.sample_size(10);
    // What `tieout reconcile --cached` does for every month: read the payouts and their
    // lines from the cache, tie out, write the CSV and Markdown.
    g.bench_function("all_payouts_from_cache_with_writes", |b| {
        b.iter_batched(
            || tempfile::tempdir().expect("tmp"),
            |fresh| {
                let data = common::load(&cache, Need::Month("2026-11".parse().expect("month")));
                black_box(tie_out_all(&data, fresh.path()));
                (data, fresh)
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("all_payouts_in_memory_with_writes", |b| {
        b.iter_batched(
            || tempfile::tempdir().expect("tmp"),
            |fresh| {
                black_box(tie_out_all(&month_data, fresh.path()));
                fresh
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("all_payouts_in_memory_rewrites_identical", |b| {
        b.iter(|| black_box(tie_out_all(&month_data, dir.path())))
    });
    g.bench_function("all_payouts_in_memory_no_writes", |b| {
        b.iter_with_large_drop(|| {
            tie_out_months(
                &month_data.payouts,
                &month_data.balance_transactions,
                &months(&month_data),
                &TimeZone::UTC,
            )
        })
    });
    g.finish();
    drop(month_data);

    let data = common::load(&cache, Need::Dunning);
    let w = dunning::build(&data, common::NOW).expect("worklist");
    eprintln!(
        "worklist: {} of {} invoices",
        w.rows.len(),
        data.invoices.len()
    );
    let mut g = c.benchmark_group("worklist");
    g.sample_size(20);
    g.bench_function("build_100k_invoices", |b| {
        b.iter_with_large_drop(|| dunning::build(&data, common::NOW).expect("worklist"))
    });
    g.bench_function("build_and_render_csv_md", |b| {
        b.iter(|| {
            let w = dunning::build(&data, common::NOW).expect("worklist");
            let csv = tieout::report::dunning::csv(&w);
            let md = tieout::report::dunning::markdown(&w, &data.meta);
            black_box((csv.len(), md.len()))
        })
    });
    g.finish();
}

criterion_group!(benches, tieout);
criterion_main!(benches);
