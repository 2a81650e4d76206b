//! Issue 9, targets 1 and 3: opening the TUI from the cache to the first full frame, and
//! keystrokes on a 1,000,000-row table (the balance transactions of the bench account)
//! until the next frame; sorting and filtering those rows (which the table runs off the
//! UI task, with the spinner, above 50,000 rows). Peak memory is printed once (the
//! figure in BENCHMARKS.md comes from `examples/open_cached.rs` under `/usr/bin/time -v`).
//! `cargo bench --bench open`.

mod common;

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use jiff::tz::TimeZone;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use tieout::app::load::{Need, load_cached_first_part, rest_reads};
use tieout::domain::dunning;
use tieout::model::rows::BalanceTxnRow;
use tieout::money::Money;
use tieout::tui::Action;
use tieout::tui::harness::{Harness, test_settings};
use tieout::tui::keymap::Keymap;
use tieout::tui::msg::{CancelFlag, Msg, Owner, RequestId, RestHold};
use tieout::tui::pane::{Core, Cx, ViewCx};
use tieout::tui::state::Startup;
use tieout::tui::theme::Theme;
use tieout::tui::widgets::table::{
    Cell, DataTable, RowsSource, SortDir, TableSource, col, compute_view,
};
use tieout::tui::workspace::{LoadError, LoadKind, LoadState, Workspace};

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The TUI as `tieout` opens it on a cache: the data read, the tabs' jobs run (inline
/// here: the worklist, the tie-out of the latest month), the first frame drawn.
fn open(cache: &tieout::source::cache::Cache) -> Harness {
    let data = common::load(cache, Need::All);
    let ws = Workspace::new(data, Vec::new());
    let mut settings = test_settings(Startup::Demo);
    settings.now = common::NOW;
    let mut h = Harness::new(settings, Box::new(move |_| Ok(ws.clone())), 120, 40);
    h.start();
    black_box(h.draw());
    h
}

/// The TUI's cached open as it is now, in two parts: the Worklist's tables read (the
/// charges and intents only as far as its open invoices reach), handed over
/// (`Msg::LoadedFirst`), its job run (inline here) and its first full frame drawn. The
/// rest (payouts, balance transactions, refunds, disputes, all the charges and intents)
/// is read after the first frame, on a worker thread in the TUI: not part of this figure
/// (it is `cache_to_rows_rest`).
fn open_worklist_first(cache: &tieout::source::cache::Cache) -> Harness {
    let data = load_cached_first_part(cache, common::PROFILE).expect("the first part");
    let mut settings = test_settings(Startup::CacheThenFresh);
    settings.now = common::NOW;
    let mut h = Harness::new(
        settings,
        Box::new(|_| Err(LoadError::new("unused: the bench sends the load"))),
        120,
        40,
    );
    h.auto = false;
    h.start();
    h.queued.clear();
    h.auto = true;
    h.step(Msg::LoadedFirst {
        req: RequestId(1),
        kind: LoadKind::Cache,
        ws: Workspace::new(data, Vec::new()),
        hold: RestHold::default(),
    });
    black_box(h.draw());
    h
}

fn lines_table(rows: Vec<BalanceTxnRow>) -> Arc<dyn TableSource> {
    Arc::new(RowsSource::new(
        rows,
        vec![
            col("Balance transaction", 30, |t: &BalanceTxnRow| {
                Cell::text(&t.id)
            }),
            col("Type", 14, |t| Cell::text(&t.kind)),
            col("Category", 18, |t| Cell::text(&t.reporting_category)),
            col("Created", 17, |t| Cell::DateTime(Some(t.created))),
            col("Available", 11, |t| Cell::Date(Some(t.available_on))),
            col("Gross", 16, |t| {
                Cell::Money(Money::new(t.amount, t.currency))
            }),
            col("Fee", 14, |t| Cell::Money(Money::new(t.fee, t.currency))),
            col("Net", 16, |t| Cell::Money(Money::new(t.net, t.currency))),
            col("Source", 30, |t| Cell::opt(t.source.as_deref())),
            col("Payout", 30, |t| Cell::opt(t.payout.as_deref())),
            col("Description", 40, |t| Cell::opt(t.description.as_deref())),
        ],
    ))
}

fn open_bench(c: &mut Criterion) {
    let cache = common::cache();
    let h = open(&cache);
    drop(h);
    eprintln!(
        "peak memory after opening once: {} MB",
        common::peak_rss_mb().map_or("?".into(), |m| m.to_string())
    );
    let mut g = c.benchmark_group("open");
    g.sample_size(10);
    g.bench_function("cache_to_rows_all_tables", |b| {
        b.iter_with_large_drop(|| common::load(&cache, Need::All))
    });
    g.bench_function("cache_to_rows_first_part", |b| {
        b.iter_with_large_drop(|| {
            load_cached_first_part(&cache, common::PROFILE).expect("the first part")
        })
    });
    g.bench_function("cache_to_rows_rest", |b| {
        let (id, mode) = common::account(&cache);
        b.iter_with_large_drop(|| cache.load_data(&id, mode, &rest_reads).expect("the rest"))
    });
    g.bench_function("cache_to_worklist_first_full_frame_in_parts", |b| {
        b.iter_with_large_drop(|| open_worklist_first(&cache))
    });
    let data = common::load(&cache, Need::All);
    g.bench_function("worklist_job", |b| {
        b.iter_with_large_drop(|| dunning::build(&data, common::NOW).expect("worklist"))
    });
    drop(data);
    g.bench_function("cache_to_first_full_frame_all_jobs_inline", |b| {
        b.iter_with_large_drop(|| open(&cache))
    });
    g.finish();

    // Drilling into a payout of the tie-out tab and back, with the frames.
    let mut h = open(&cache);
    h.action(Action::Tab(1));
    let mut g = c.benchmark_group("keys_tui");
    g.bench_function("drill_into_payout_and_back", |b| {
        b.iter(|| {
            h.action(Action::Open);
            black_box(h.draw());
            h.action(Action::Back);
            black_box(h.draw());
        })
    });
    g.bench_function("worklist_down", |b| {
        h.action(Action::Tab(0));
        b.iter(|| {
            h.action(Action::Down);
            black_box(h.draw());
        })
    });
    g.finish();
    drop(h);

    // A table of a million rows: the UI side of each key, then the frame.
    let rows =
        common::load(&cache, Need::Month("2026-11".parse().expect("month"))).balance_transactions;
    let n = rows.len();
    let source = lines_table(rows);
    let theme = Theme::mono();
    let keymap = Keymap::default_keys();
    let load = LoadState::Loaded;
    let tz = TimeZone::UTC;
    let vcx = ViewCx {
        theme: &theme,
        keymap: &keymap,
        tz: &tz,
        now: common::NOW,
        load: &load,
    };
    let area = Rect::new(0, 0, 160, 48);
    let mut core = Core::new(common::NOW, tz.clone());
    let mut table = DataTable::new("Balance transactions", "none", Arc::clone(&source));
    let mut buf = Buffer::empty(area);
    table.render(area, &mut buf, &vcx);
    let mut g = c.benchmark_group(format!("keys_{n}_rows"));
    let mut key = |name: &str, actions: &[Action], g: &mut criterion::BenchmarkGroup<'_, _>| {
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut cx = Cx::new(&mut core, Owner::Tab(0));
                for a in actions {
                    table.handle(*a, &mut cx);
                }
                let mut buf = Buffer::empty(area);
                table.render(area, &mut buf, &vcx);
                black_box(buf);
            })
        });
    };
    key("down", &[Action::Down], &mut g);
    key("page_down", &[Action::PageDown], &mut g);
    key("bottom_then_top", &[Action::Bottom, Action::Top], &mut g);
    key("right", &[Action::Right], &mut g);
    // Sort: the key starts the job (off the UI task) and the next frame shows the spinner.
    key("sort_key_starts_job", &[Action::Sort], &mut g);
    g.finish();

    // The jobs themselves, on a worker thread in the TUI.
    let mut g = c.benchmark_group(format!("jobs_{n}_rows"));
    g.sample_size(10);
    let cancel = CancelFlag::new();
    g.bench_function("sort_by_net", |b| {
        b.iter_with_large_drop(|| {
            compute_view(source.as_ref(), "", Some((7, SortDir::Desc)), &tz, &cancel)
        })
    });
    g.bench_function("sort_by_id", |b| {
        b.iter_with_large_drop(|| {
            compute_view(source.as_ref(), "", Some((0, SortDir::Asc)), &tz, &cancel)
        })
    });
    g.bench_function("filter_text", |b| {
        b.iter_with_large_drop(|| compute_view(source.as_ref(), "refund", None, &tz, &cancel))
    });
    g.finish();
}

criterion_group!(benches, open_bench);
criterion_main!(benches);
