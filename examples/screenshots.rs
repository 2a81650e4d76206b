//! Renders each screenshot of the demo account to SVG (with the theme's colours) into
//! `screenshots/`:
//!
//! ```text
//! cargo run --example screenshots            # writes screenshots/*.svg
//! cargo run --example screenshots -- DIR     # somewhere else
//! ```
//!
//! Which frames, and how they are drawn, is `tieout::tui::screenshots` (the real view
//! code into a test buffer, driven by scripted steps, at the demo's clock); the test
//! `tests/it/screenshots.rs` fails when a file in `screenshots/` differs from it.

use std::path::PathBuf;

use clap::Parser;
use tieout::cli::{Cli, Ctx};
use tieout::tui::screenshots::{NOW, render_all};

fn main() -> Result<(), String> {
    let out = std::env::args()
        .nth(1)
        .map_or_else(|| PathBuf::from("screenshots"), PathBuf::from);
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let cli = Cli::parse_from(["tieout", "--demo", "--now", NOW]);
    let ctx = Ctx::from_args(cli.global);
    // An empty run history of its own, not this machine's data folder: the Worklist's
    // "since" panel would otherwise show whatever demo runs were recorded here.
    let runs = tempfile::tempdir().map_err(|e| e.to_string())?;
    let ws = tieout::cli::tui_cmd::demo_workspace(&ctx)
        .map_err(|e| e.message)?
        .with_history(Some(empty_history(runs.path())));
    for (name, svg) in render_all(&ws, ctx.now)? {
        let path = out.join(name);
        std::fs::write(&path, svg).map_err(|e| format!("{}: {e}", path.display()))?;
        println!("{}", path.display());
    }
    Ok(())
}

/// A run history in `dir` (empty), as the workbench keeps one in the data folder.
fn empty_history(dir: &std::path::Path) -> tieout::app::run_history::Session {
    tieout::app::run_history::Session {
        store: tieout::app::run_history::RunHistory::at(dir),
        lookup: std::sync::Arc::new(tieout::app::run_history::NoLookup),
        keep_days: 35,
    }
}
