//! Opens the TUI headless on a cached account and reports how long each step took: the
//! cache read, every job the tabs start (worklist, tie-out, refunds), the first frame and
//! a few keystrokes. Issue 9's "open" and "memory" figures come from this run under
//! `/usr/bin/time -v` (its maximum resident set size is the TUI's peak memory with the
//! account loaded). See `BENCHMARKS.md`.
//!
//! The load is the TUI's cached open, in two parts (`load_cached_in_parts`): the
//! Worklist's tables (the charges and intents only as far as its open invoices reach), its
//! job and its first full frame, then the rest (payouts, balance transactions, refunds,
//! disputes, all the charges and intents) on another thread, held back until the first
//! frame as the TUI holds it (`HOLD=0`: not held, the two share the cores). `ONE_SHOT=1`
//! loads everything in one go first instead (the open before the load in parts).
//!
//! ```text
//! # once: a large account and its cache (a folder written by `gen-demo`)
//! tieout gen-demo --seed 7 --scale 100 --out /work/bench-data/scale100
//! cargo run --release --example open_cached -- --seed-from /work/bench-data/scale100 /work/bench-data/scale100-cache
//! # then, as often as wanted
//! /usr/bin/time -v target/release/examples/open_cached /work/bench-data/scale100-cache
//! ```

use std::path::PathBuf;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::time::{Duration, Instant};

use tieout::app::load::{Need, load_cached, load_cached_in_parts};
use tieout::source::cache::Cache;
use tieout::tui::Action;
use tieout::tui::harness::{Harness, test_settings};
use tieout::tui::msg::{CancelFlag, Effect, Msg, RestHold};
use tieout::tui::state::Startup;
use tieout::tui::workspace::{LoadError, Workspace};

const PROFILE: &str = "default";

fn ms(d: Duration) -> String {
    format!("{:8.1} ms", d.as_secs_f64() * 1000.0)
}

/// `VmRSS` and `VmHWM` (peak) of this process in MB, where /proc has them (Linux).
fn rss() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .map_or_else(|| "?".to_string(), |kb| (kb / 1024).to_string())
    };
    format!("rss {} MB, peak {} MB", field("VmRSS:"), field("VmHWM:"))
}

/// Runs the queued jobs (and the jobs they lead to) on this thread, timing each.
fn run_jobs(h: &mut Harness) {
    while let Some(i) = h
        .queued
        .iter()
        .position(|e| matches!(e, Effect::Compute { .. }))
    {
        let Effect::Compute { req, job } = h.queued.remove(i) else {
            continue;
        };
        let label = job.label.clone();
        let t = Instant::now();
        let output = job.run(&CancelFlag::new());
        let ran = t.elapsed();
        h.step(Msg::Computed { req, output });
        println!(
            "{}  job: {label} (+{} to show)",
            ms(ran),
            ms(t.elapsed() - ran)
        );
    }
}

fn main() -> Result<(), String> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let seed_from = match args.iter().position(|a| a == "--seed-from") {
        Some(i) if i + 1 < args.len() => {
            let dir = PathBuf::from(args.remove(i + 1));
            args.remove(i);
            Some(dir)
        }
        _ => None,
    };
    let root = args
        .first()
        .map(PathBuf::from)
        .ok_or("usage: open_cached [--seed-from GENERATED_DIR] CACHE_ROOT")?;
    let cache = Cache::at(&root);
    if let Some(dir) = seed_from {
        let t = Instant::now();
        let saved = tieout::source::demo::cache_from_dir(&dir, &cache, PROFILE)?;
        println!(
            "cached {} into {} ({} MB of Parquet) in {:.1} s",
            dir.display(),
            saved.dir.display(),
            saved.bytes / 1_000_000,
            t.elapsed().as_secs_f64()
        );
    }

    if std::env::var_os("BREAKDOWN").is_some() {
        let pointer = cache
            .last_used(PROFILE)
            .map_err(|e| e.to_string())?
            .ok_or("no cache")?;
        let t = Instant::now();
        let snap = cache
            .load(&pointer.account_id, pointer.mode)
            .map_err(|e| e.to_string())?;
        println!(
            "{}  breakdown: Parquet -> frames ({})",
            ms(t.elapsed()),
            rss()
        );
        let t = Instant::now();
        let data = snap.to_data().map_err(|e| e.to_string())?;
        println!("{}  breakdown: frames -> rows ({})", ms(t.elapsed()), rss());
        let t = Instant::now();
        drop(snap);
        println!("{}  breakdown: drop frames", ms(t.elapsed()));
        let t = Instant::now();
        drop(data);
        println!("{}  breakdown: drop rows", ms(t.elapsed()));
        for _ in 0..2 {
            let t = Instant::now();
            let data = cache
                .load_data(&pointer.account_id, pointer.mode, &|_| true)
                .map_err(|e| e.to_string())?;
            println!("{}  breakdown: load_data, table by table", ms(t.elapsed()));
            drop(data);
            let t = Instant::now();
            let data = cache
                .load(&pointer.account_id, pointer.mode)
                .and_then(|s| {
                    s.into_data()
                        .map_err(|e| tieout::source::cache::CacheError::Unreadable {
                            path: root.clone(),
                            why: e.to_string(),
                        })
                })
                .map_err(|e| e.to_string())?;
            println!("{}  breakdown: load then into_data", ms(t.elapsed()));
            drop(data);
        }
    }
    if std::env::var_os("TABLES").is_some() {
        // Each table alone: its read (Parquet to rows), its row count and what it adds to
        // the resident set (the rows stay alive until the end of the loop).
        let generation = cache
            .last_used(PROFILE)
            .map_err(|e| e.to_string())?
            .ok_or("no cache")
            .and_then(|p| {
                cache
                    .generation(&p.account_id, p.mode)
                    .map_err(|_| "no generation")
            })?;
        let mut kept = Vec::new();
        for table in tieout::model::Table::ALL {
            let t = Instant::now();
            let data = generation
                .load_data(&|x| x == table)
                .map_err(|e| e.to_string())?;
            println!(
                "{}  table {table}: {} rows ({})",
                ms(t.elapsed()),
                data.row_count(table),
                rss()
            );
            kept.push(data);
        }
        for table in [
            tieout::model::Table::Charges,
            tieout::model::Table::PaymentIntents,
            tieout::model::Table::Invoices,
        ] {
            let pointer = cache
                .last_used(PROFILE)
                .map_err(|e| e.to_string())?
                .ok_or("no cache")?;
            let t = Instant::now();
            let snap = cache
                .load_tables(&pointer.account_id, pointer.mode, &|x| x == table)
                .map_err(|e| e.to_string())?;
            println!(
                "{}  table {table}: the Parquet frame alone ({} rows)",
                ms(t.elapsed()),
                snap.frame(table).height()
            );
        }
        let t = Instant::now();
        let first =
            tieout::app::load::load_cached_first_part(&cache, PROFILE).map_err(|f| f.message)?;
        println!(
            "{}  the first part alone: {} charges, {} intents ({})",
            ms(t.elapsed()),
            first.charges.len(),
            first.payment_intents.len(),
            rss()
        );
        drop(first);
        let worklist_data = kept
            .into_iter()
            .reduce(|mut all, mut part| {
                for table in tieout::model::Table::ALL {
                    if part.row_count(table) > 0 {
                        all.take_table(table, &mut part);
                    }
                }
                all
            })
            .ok_or("no tables")?;
        let t = Instant::now();
        let w = tieout::domain::dunning::build(&worklist_data, tieout::source::demo::DEMO_NOW)
            .map_err(|e| e.to_string())?;
        println!(
            "{}  dunning::build: {} rows of {} invoices",
            ms(t.elapsed()),
            w.rows.len(),
            worklist_data.invoices.len()
        );
    }
    let mut settings = test_settings(Startup::Demo);
    settings.now = tieout::source::demo::DEMO_NOW;
    let tz = settings.tz.clone();
    let started = Instant::now();
    // Loads are performed below (timed); the harness's own loader is never asked.
    let mut h = Harness::new(
        settings,
        Box::new(|_| Err(LoadError::new("unused"))),
        120,
        40,
    );
    h.auto = false;
    h.start();
    let one_shot = std::env::var_os("ONE_SHOT").is_some();
    let mut first_frame = None;
    // Perform the effects one by one (as the runtime does), timing each: the load on a
    // thread of its own (a worker in the TUI), jobs on this one (workers in the TUI).
    while !h.queued.is_empty() {
        let effects = std::mem::take(&mut h.queued);
        for e in effects {
            match e {
                Effect::Load { req, kind } if one_shot => {
                    let t = Instant::now();
                    let data =
                        load_cached(&cache, PROFILE, Need::All, &tz).map_err(|f| f.message)?;
                    println!("{}  cache -> rows, in one go ({})", ms(t.elapsed()), rss());
                    let t2 = Instant::now();
                    h.step(Msg::Loaded {
                        req,
                        kind,
                        result: Ok(Workspace::new(data, Vec::new())),
                    });
                    println!("{}  tabs take the data (on_data)", ms(t2.elapsed()));
                }
                Effect::Load { req, kind } => {
                    // The TUI's cached open: the Worklist's tables first, the rest after.
                    // As the TUI's loader does: the rest waits for the first part's jobs
                    // (the hold), unless HOLD=0.
                    let hold_rest = std::env::var_os("HOLD").is_none_or(|v| v != "0");
                    let (tx, rx) = std::sync::mpsc::channel();
                    let t = Instant::now();
                    let rest = std::thread::scope(|s| {
                        let loading = s.spawn(|| {
                            load_cached_in_parts(&cache, PROFILE, |part, _| {
                                let (hold, wait) = RestHold::new();
                                if tx.send((part, hold)).is_ok() && hold_rest {
                                    wait.wait();
                                }
                            })
                        });
                        if let Ok((part, hold)) = rx.recv() {
                            println!("{}  cache -> first part ({})", ms(t.elapsed()), rss());
                            h.step(Msg::LoadedFirst {
                                req,
                                kind,
                                ws: Workspace::new(part, Vec::new()),
                                hold,
                            });
                            // The Worklist's job, while the rest loads.
                            run_jobs(&mut h);
                            let t2 = Instant::now();
                            let _ = h.draw();
                            first_frame = Some(started.elapsed());
                            println!(
                                "{}  the Worklist's first full frame (drawn in {})",
                                ms(t.elapsed()),
                                ms(t2.elapsed())
                            );
                        }
                        loading.join()
                    })
                    .map_err(|_| "the load panicked")?
                    .map_err(|f| f.message)?;
                    println!("{}  cache -> the rest ({})", ms(t.elapsed()), rss());
                    let t2 = Instant::now();
                    h.step(Msg::LoadedRest {
                        req,
                        result: Ok(Box::new(rest)),
                    });
                    println!("{}  the rest merged, tabs take it", ms(t2.elapsed()));
                }
                Effect::Compute { .. } => {
                    h.queued.push(e);
                    run_jobs(&mut h);
                }
                other => h.log.push(other),
            }
        }
    }
    let t = Instant::now();
    let frame = h.frame();
    println!("{}  first frame", ms(t.elapsed()));
    println!(
        "{}  open to the first full frame{}",
        ms(first_frame.unwrap_or_else(|| started.elapsed())),
        if first_frame.is_some() {
            " (the Worklist's; the other tabs' below)"
        } else {
            ""
        }
    );
    println!(
        "{}  open to every tab's data and jobs",
        ms(started.elapsed())
    );
    println!("after the first frame: {}", rss());
    h.auto = true;
    for (name, script) in [
        ("down", &[Action::Down][..]),
        ("page down", &[Action::PageDown][..]),
        ("bottom", &[Action::Bottom][..]),
        ("sort (column 2)", &[Action::Right, Action::Sort][..]),
        ("tab 2 (tie-out)", &[Action::Tab(1)][..]),
        ("drill into a payout", &[Action::Open][..]),
        ("tab 3 (refunds)", &[Action::Tab(2)][..]),
    ] {
        let t = Instant::now();
        for a in script {
            h.action(*a);
        }
        let _ = h.draw();
        println!("{}  key: {name} -> next frame", ms(t.elapsed()));
    }
    if std::env::var_os("SHOW_FRAME").is_some() {
        println!("{frame}");
    }
    Ok(())
}
