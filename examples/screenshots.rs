//! Renders each pane of the demo account to SVG (with the theme's colours) into
//! `screenshots/`:
//!
//! ```text
//! cargo run --example screenshots            # writes screenshots/*.svg
//! cargo run --example screenshots -- DIR     # somewhere else
//! ```
//!
//! The frames are drawn by the real view code into a test buffer, driven by scripted
//! actions, at the demo's clock (2026-11-30T12:00:00Z).

use std::path::PathBuf;

use clap::Parser;
use tieout::cli::{Cli, Ctx};
use tieout::tui::Action;
use tieout::tui::harness::{Harness, test_settings};
use tieout::tui::state::Startup;
use tieout::tui::svg::{Palette, to_svg};
use tieout::tui::theme::Theme;

fn main() -> Result<(), String> {
    let out = std::env::args()
        .nth(1)
        .map_or_else(|| PathBuf::from("screenshots"), PathBuf::from);
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let cli = Cli::parse_from(["tieout", "--demo", "--now", "2026-11-30T12:00:00Z"]);
    let ctx = Ctx::from_args(cli.global);
    let ws = tieout::cli::tui_cmd::demo_workspace(&ctx).map_err(|e| e.message)?;

    // (file name, theme, script)
    let shots: &[(&str, &str, &[Action])] = &[
        ("worklist", "dark", &[Action::Tab(0)]),
        ("tieout", "dark", &[Action::Tab(1)]),
        ("refunds", "dark", &[Action::Tab(2)]),
        (
            "drill-down",
            "dark",
            &[Action::Tab(1), Action::Down, Action::Open],
        ),
        (
            "sorted",
            "dark",
            &[Action::Tab(0), Action::Right, Action::Sort],
        ),
        ("help", "dark", &[Action::Help]),
        (
            "tieout-close-packet",
            "dark",
            &[Action::Tab(1), Action::PrevMonth, Action::ExportPacket],
        ),
        ("worklist-light", "light", &[Action::Tab(0)]),
        ("tieout-high-contrast", "high-contrast", &[Action::Tab(1)]),
        ("tieout-mono", "mono", &[Action::Tab(1)]),
    ];
    for (name, theme, script) in shots {
        let mut settings = test_settings(Startup::Demo);
        settings.now = ctx.now;
        settings.theme = Theme::builtin(theme).map_err(|e| e.to_string())?;
        let ws = ws.clone();
        let mut h = Harness::new(settings, Box::new(move |_| Ok(ws.clone())), 120, 40);
        h.start();
        for a in *script {
            h.action(*a);
        }
        let buf = h.draw();
        let palette = if *theme == "light" {
            Palette::LIGHT
        } else {
            Palette::DARK
        };
        let path = out.join(format!("{name}.svg"));
        std::fs::write(&path, to_svg(&buf, palette))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        println!("{}", path.display());
    }
    Ok(())
}
