//! Opening the TUI: on the demo account (`tieout demo`, `tieout --demo`), or on the
//! profile's account (`tieout`): the cache at once when there is one, then a fresh read in
//! the background. The account is read by the application's workbench
//! (`app::workbench`); keymap, theme and settings file problems are reported here,
//! before the terminal is taken over (exit 2).

use std::io::IsTerminal;

use super::{CmdResult, Ctx, Failure};
use crate::app::workbench::Workbench;
use crate::tui::config;
use crate::tui::runtime::{self, workbench};
use crate::tui::state::{Settings, Startup, State};
use crate::tui::workspace::{LoadError, Workspace};

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
    let file = crate::app::settings::Settings::load()?;
    let recent = runtime::copies::load_recent(config::data_dir().as_deref());
    let views = crate::app::views::load()?;
    let start_view = match &ctx.global.view {
        Some(name) => Some(start_view(&views, name)?),
        None => None,
    };
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
        clock_runs: ctx.global.now.is_none(),
        tz: ctx.tz.clone(),
        copy_format: file.workbench.copy_format,
        recent: crate::tui::palette::Recent::parse(&recent),
        views: views.view,
        start_view,
    })
}

/// `--view NAME`: the saved view to open at start, which must name a tab.
fn start_view(
    views: &crate::app::views::ViewsFile,
    name: &str,
) -> Result<crate::app::views::SavedView, Failure> {
    let view = views.find(name)?.clone();
    if !crate::tui::tabs::ALL.iter().any(|t| t.key == view.pane) {
        let keys: Vec<&str> = crate::tui::tabs::ALL.iter().map(|t| t.key).collect();
        return Err(Failure::usage(format!(
            "view \"{name}\": pane = \"{}\" is not a tab (one of {}); {}",
            view.pane,
            keys.join(", "),
            crate::app::views::VIEWS.see()
        )));
    }
    // What the pane would refuse, refused here, before the screen opens.
    view.facets
        .to_filter()
        .map_err(|e| super::views::refused(&view, &e))?;
    if let Some(m) = &view.month
        && m.trim().parse::<crate::time::Month>().is_err()
    {
        return Err(super::views::refused(
            &view,
            &format!("month = \"{m}\" is not a month (write it as YYYY-MM)"),
        ));
    }
    Ok(view)
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
    let loader = workbench::loader(the_workbench(ctx));
    runtime::run(State::new(settings), loader).map_err(Failure::other)
}

/// The account the workbench reads, as the command line names it.
fn the_workbench(ctx: &Ctx) -> Workbench {
    Workbench::new(ctx.request(), ctx.global.now.is_some())
}

/// The demo account as the TUI shows it (the screenshot example uses this too).
pub fn demo_workspace(ctx: &Ctx) -> Result<Workspace, LoadError> {
    workbench::demo_workspace(&the_workbench(ctx))
}
