//! Snapshot conversion and cache speed at the size of the large benchmark account
//! (issue 9): 1,000,000 balance transactions to polars columns and back, and the
//! Parquet save and load of that snapshot. Run with `cargo bench --bench snapshot`.

use criterion::{Criterion, criterion_group, criterion_main};

use tieout::model::rows::BalanceTxnRow;
use tieout::model::{AccountData, Mode, Origin, SnapshotMeta};
use tieout::money::Currency;
use tieout::source::tables::Snapshot;

const LINES: usize = 1_000_000;

fn account() -> AccountData {
    let mut d = AccountData::empty(SnapshotMeta {
        account_id: "acct_bench".into(),
        account_name: None,
        mode: Mode::Test,
        origin: Origin::Live,
        api_version: tieout::stripe::API_VERSION.into(),
        fetched_at: 1_796_040_000,
        window_start: 1_788_220_800,
        window_end: 1_796_083_200,
        default_currency: None,
        payment_methods: Default::default(),
        settled_invoices_since: None,
        balance: None,
        lines_complete: false,
        lines_since: None,
        fraud_warnings: Default::default(),
    });
    let currencies = [Currency::USD, Currency::EUR, Currency::JPY];
    d.balance_transactions = (0..LINES)
        .map(|i| {
            let amount = 1_000 + (i as i64 % 50_000);
            let fee = amount * 3 / 100;
            BalanceTxnRow {
                id: format!("txn_{i:020}").into(),
                payout: Some(format!("po_{:016}", i / 100).into()),
                kind: if i % 20 == 0 { "refund" } else { "charge" }.into(),
                reporting_category: if i % 20 == 0 { "refund" } else { "charge" }.into(),
                source: Some(format!("ch_{i:020}").into()),
                created: 1_790_000_000 + i as i64,
                available_on: 1_790_200_000 + i as i64,
                currency: currencies[i / 100 % 3],
                amount,
                fee,
                net: amount - fee,
                description: (i % 3 == 0).then(|| format!("Order {i}").into()),
                status: "available".into(),
                fee_details: tieout_core::model::rows::FeeParts::NONE,
                exchange_rate: Default::default(),
            }
        })
        .collect();
    d
}

fn conversion(c: &mut Criterion) {
    let data = account();
    let snap = Snapshot::from_data(&data).expect("frames");
    let mut g = c.benchmark_group("snapshot_1m_balance_transactions");
    g.sample_size(10);
    g.bench_function("rows_to_frames", |b| {
        b.iter(|| Snapshot::from_data(&data).expect("frames"))
    });
    g.bench_function("frames_to_rows", |b| {
        b.iter(|| snap.to_data().expect("rows"))
    });
    g.bench_function("frames_to_rows_without_drop", |b| {
        b.iter_with_large_drop(|| snap.to_data().expect("rows"))
    });
    let dir = tempfile::tempdir().expect("tmp");
    let cache = tieout::source::cache::Cache::at(dir.path());
    g.bench_function("cache_save", |b| {
        b.iter(|| cache.save(&snap).expect("save"))
    });
    g.bench_function("cache_load", |b| {
        b.iter(|| cache.load("acct_bench", Mode::Test).expect("load"))
    });
    g.finish();
}

criterion_group!(benches, conversion);
criterion_main!(benches);
