//! The screenshots in `screenshots/` are what the TUI draws now: each is rendered the way
//! `cargo run --example screenshots` renders it (`tieout::tui::screenshots`) and compared
//! with its file, and the folder holds no SVG that is no longer drawn.
//! `UPDATE_SCREENSHOTS=1` rewrites them instead (review the diff before committing).

use std::path::Path;

use clap::Parser;
use tieout::cli::{Cli, Ctx};
use tieout::tui::screenshots::{NOW, render_all};

const REGENERATE: &str = "regenerate them with `cargo run --example screenshots` (or \
                          `UPDATE_SCREENSHOTS=1 cargo test -p tieout --test it screenshots`)";

/// The SVG files in `dir`, by name.
fn svg_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("screenshots dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    names.sort();
    names
}

/// Where the two texts first differ: the line number and both lines.
fn first_difference(want: &str, have: &str) -> String {
    let mut a = want.lines();
    let mut b = have.lines();
    for n in 1.. {
        match (a.next(), b.next()) {
            (None, None) => break,
            (x, y) if x == y => {}
            (x, y) => {
                return format!(
                    "line {n}:\n  drawn now: {}\n  in file:   {}",
                    x.unwrap_or("(end)"),
                    y.unwrap_or("(end)")
                );
            }
        }
    }
    "a line break".to_string()
}

#[test]
fn the_screenshots_are_what_the_tui_draws_now() {
    let cli = Cli::parse_from(["tieout", "--demo", "--now", NOW]);
    let ctx = Ctx::from_args(cli.global);
    // An empty run history of its own, not this machine's data folder (a demo run recorded
    // there would change the Worklist's "since" panel): the same screenshots everywhere.
    let runs = tempfile::tempdir().expect("tmp");
    let ws = tieout::cli::tui_cmd::demo_workspace(&ctx)
        .expect("the demo account")
        .with_history(Some(tieout::app::run_history::Session {
            store: tieout::app::run_history::RunHistory::at(runs.path()),
            lookup: std::sync::Arc::new(tieout::app::run_history::NoLookup),
            keep_days: 35,
        }));
    let shots = render_all(&ws, ctx.now).expect("the screenshots render");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("screenshots");
    let update = std::env::var("UPDATE_SCREENSHOTS").is_ok_and(|v| v == "1");

    let drawn: Vec<&str> = shots.iter().map(|(name, _)| name.as_str()).collect();
    let stale: Vec<String> = svg_files(&dir)
        .into_iter()
        .filter(|n| !drawn.contains(&n.as_str()))
        .collect();
    let mut problems = Vec::new();
    for name in &stale {
        if update {
            std::fs::remove_file(dir.join(name)).expect("remove a stale screenshot");
        } else {
            problems.push(format!("{name}: no screenshot draws it any more"));
        }
    }
    for (name, svg) in &shots {
        let path = dir.join(name);
        if update {
            std::fs::write(&path, svg).expect("write the screenshot");
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(file) if file == *svg => {}
            Ok(file) => problems.push(format!(
                "{name} differs from what the TUI draws now, first at {}",
                first_difference(svg, &file)
            )),
            Err(e) => problems.push(format!("{name} cannot be read ({e})")),
        }
    }
    assert!(
        problems.is_empty(),
        "screenshots/ is out of date; {REGENERATE}:\n{}",
        problems.join("\n")
    );
}
