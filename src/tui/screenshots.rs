//! The screenshots in `screenshots/`: which frames of the demo account, in which theme,
//! reached by which steps, and their SVG. One list and one renderer for the example that
//! writes them (`cargo run --example screenshots`) and the test that fails when a file
//! there is not what the TUI draws now (`tests/it/screenshots.rs`).
//!
//! The frames are drawn by the real view code into a test buffer ([`super::harness`]) at
//! [`WIDTH`]x[`HEIGHT`], at the demo's clock ([`NOW`]), and turned into SVG with the
//! theme's colours ([`super::svg`]). The caller loads the demo account (the TUI's demo
//! load lives in the command line's floor) and passes it in.

use super::action::Action;
use super::harness::{Harness, test_settings};
use super::pane::Pane;
use super::panes::{self, query::QueryPane};
use super::state::Startup;
use super::svg::{Palette, to_svg};
use super::theme::Theme;
use super::workspace::Workspace;

/// The demo's clock, as `--now` takes it.
pub const NOW: &str = "2026-11-30T12:00:00Z";

/// The terminal size of every screenshot.
pub const WIDTH: u16 = 120;
pub const HEIGHT: u16 = 40;

/// One step of a screenshot's script.
#[derive(Debug, Clone, Copy)]
pub enum Step {
    /// An action, as a key bound to it would send it.
    Do(Action),
    /// Keys as the keymap reads them (`"enter"`, `"ctrl-o"`).
    Keys(&'static str),
}

/// One screenshot: its file's name (without `.svg`), its theme and the steps to its frame.
#[derive(Debug, Clone, Copy)]
pub struct Shot {
    pub name: &'static str,
    pub theme: &'static str,
    pub script: &'static [Step],
}

use Step::{Do, Keys};

/// Every screenshot, in the order `screenshots/README.md` lists them.
pub const SHOTS: &[Shot] = &[
    shot("worklist", "dark", &[Do(Action::Tab(0))]),
    shot("tieout", "dark", &[Do(Action::Tab(1))]),
    shot("refunds", "dark", &[Do(Action::Tab(2))]),
    shot(
        "query",
        "dark",
        &[Do(Action::Tab(3)), Do(Action::SavedQuery), Keys("enter")],
    ),
    shot(
        "drill-down",
        "dark",
        &[Do(Action::Tab(1)), Do(Action::Down), Do(Action::Open)],
    ),
    shot(
        "sorted",
        "dark",
        &[Do(Action::Tab(0)), Do(Action::Right), Do(Action::Sort)],
    ),
    shot("help", "dark", &[Do(Action::Help)]),
    shot(
        "palette",
        "dark",
        &[Do(Action::Tab(1)), Do(Action::Palette), Keys("e x p")],
    ),
    shot(
        "tieout-close-packet",
        "dark",
        &[
            Do(Action::Tab(1)),
            Do(Action::PrevMonth),
            Do(Action::ExportPacket),
        ],
    ),
    shot(
        "worklist-recovery",
        "dark",
        &[Do(Action::Tab(0)), Do(Action::RecoveryView)],
    ),
    shot(
        "tieout-balance",
        "dark",
        &[Do(Action::Tab(1)), Do(Action::BalanceView)],
    ),
    shot(
        "saved-view",
        "dark",
        &[
            Do(Action::Tab(0)),
            Do(Action::Right),
            Do(Action::Sort),
            Do(Action::Sort),
            Do(Action::Right),
            Do(Action::HideColumn),
            Do(Action::SaveView),
            Keys("m o r n i n g enter"),
            Do(Action::ClearFilter),
            Do(Action::ShowColumns),
            Do(Action::Tab(1)),
            Do(Action::OpenView),
            Keys("m o r n i n g enter"),
        ],
    ),
    shot("worklist-light", "light", &[Do(Action::Tab(0))]),
    shot(
        "tieout-high-contrast",
        "high-contrast",
        &[Do(Action::Tab(1))],
    ),
    shot("tieout-mono", "mono", &[Do(Action::Tab(1))]),
];

const fn shot(name: &'static str, theme: &'static str, script: &'static [Step]) -> Shot {
    Shot {
        name,
        theme,
        script,
    }
}

/// The registered tabs, the Query tab with the built-in saved queries only: the user's
/// `queries/*.sql` would make the frames depend on the machine that draws them.
fn tabs() -> Vec<Box<dyn Pane>> {
    panes::TABS
        .iter()
        .map(|t| {
            if t.name.key == "query" {
                Box::new(QueryPane::new(crate::app::query::builtin_queries())) as Box<dyn Pane>
            } else {
                (t.make)()
            }
        })
        .collect()
}

/// Draws `shot` of the account `ws` at the unix time `now`: the SVG document.
pub fn render(shot: &Shot, ws: &Workspace, now: i64) -> Result<String, String> {
    let mut settings = test_settings(Startup::Demo);
    settings.now = now;
    settings.theme = Theme::builtin(shot.theme).map_err(|e| e.to_string())?;
    let ws = ws.clone();
    let mut h = Harness::with_tabs(
        settings,
        tabs(),
        Box::new(move |_| Ok(ws.clone())),
        WIDTH,
        HEIGHT,
    );
    h.start();
    for step in shot.script {
        match step {
            Do(a) => h.action(*a),
            Keys(k) => h.keys(k),
        }
    }
    let buf = h.draw();
    let palette = if shot.theme == "light" {
        Palette::LIGHT
    } else {
        Palette::DARK
    };
    Ok(to_svg(&buf, palette))
}

/// Every screenshot of `ws` at `now`: `(file name, SVG)`, in [`SHOTS`]' order.
pub fn render_all(ws: &Workspace, now: i64) -> Result<Vec<(String, String)>, String> {
    SHOTS
        .iter()
        .map(|shot| Ok((format!("{}.svg", shot.name), render(shot, ws, now)?)))
        .collect()
}
