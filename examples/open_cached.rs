//! Opens the TUI headless on a cached account and reports how long each step took: the
//! cache read, every job the tabs start (worklist, tie-out, refunds), the first frame and
//! a few keystrokes. Issue 9's "open" and "memory" figures come from this run under
//! `/usr/bin/time -v` (its maximum resident set size is the TUI's peak memory with the
//! account loaded). See `BENCHMARKS.md`.
//!
//! ```text
//! # once: a large account and its cache (a folder written by `tieout gen-demo`)
//! tieout gen-demo --seed 7 --scale 100 --out /work/bench-data/scale100
//! cargo run --release --example open_cached -- --seed-from /work/bench-data/scale100 /work/bench-data/scale100-cache
//! # then, as often as wanted
//! /usr/bin/time -v target/release/examples/open_cached /work/bench-data/scale100-cache
//! ```

use std::path::PathBuf;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::time::{Duration, Instant};

use tieout::source::cache::Cache;
use tieout::source::load::{Need, load_cached};
use tieout::tui::Action;
use tieout::tui::harness::{Harness, test_settings};
use tieout::tui::msg::{CancelFlag, Effect, Msg};
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
    // Perform the effects one by one (as the runtime does, but on this thread), timing each.
    while !h.queued.is_empty() {
        let effects = std::mem::take(&mut h.queued);
        for e in effects {
            match e {
                Effect::Load { req, kind } => {
                    let t = Instant::now();
                    let data =
                        load_cached(&cache, PROFILE, Need::All, &tz).map_err(|f| f.message)?;
                    println!("{}  cache -> rows ({})", ms(t.elapsed()), rss());
                    let t2 = Instant::now();
                    h.step(Msg::Loaded {
                        req,
                        kind,
                        result: Ok(Workspace::new(data, Vec::new())),
                    });
                    println!("{}  tabs take the data (on_data)", ms(t2.elapsed()));
                }
                Effect::Compute { req, job } => {
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
                other => h.log.push(other),
            }
        }
    }
    let t = Instant::now();
    let frame = h.frame();
    println!("{}  first frame", ms(t.elapsed()));
    println!("{}  open to the first full frame", ms(started.elapsed()));
    println!("after the first frame: {}", rss());
    h.auto = true;
    for (name, script) in [
        ("down", &[Action::Down][..]),
        ("page down", &[Action::PageDown][..]),
        ("bottom", &[Action::Bottom][..]),
        ("sort (column 2)", &[Action::Right, Action::Sort][..]),
        ("tab 2 (tie-out)", &[Action::Tab2][..]),
        ("drill into a payout", &[Action::Open][..]),
        ("tab 3 (refunds)", &[Action::Tab3][..]),
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
