//! Opening the TUI: on the demo account (`tieout demo`, `tieout --demo`), or on the
//! profile's account (`tieout`): the cache at once when there is one, then a fresh read in
//! the background. Keymap and theme problems are reported here, before the terminal is
//! taken over (exit 2).

use std::io::IsTerminal;
use std::sync::Arc;

use super::{CmdResult, Ctx, Failure};
use crate::app::load::{self, Need};
use crate::source::cache::Cache;
use crate::source::progress::{SyncEvent, grouped};
use crate::source::sync;
use crate::tui::config;
use crate::tui::runtime::refunds::GateSession;
use crate::tui::runtime::{self, LoadEnd, Loader};
use crate::tui::state::{Settings, Startup, State};
use crate::tui::workspace::{LoadError, LoadKind, Workspace, parse_tickets_csv};

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
    let loader = Arc::new(CliLoader::new(ctx));
    runtime::run(State::new(settings), loader).map_err(Failure::other)
}

/// The demo account as the TUI shows it (the screenshot example uses this too).
pub fn demo_workspace(ctx: &Ctx) -> Result<Workspace, LoadError> {
    CliLoader::new(ctx).demo()
}

/// Loads the account for the TUI through the same paths the headless commands use.
/// Nothing here may print: the terminal belongs to the TUI (progress goes to the status
/// bar, details to the log).
struct CliLoader {
    ctx: Ctx,
    /// Built once, on the first approved refund: one writer per session, so a
    /// `livemode: true` answer keeps it disabled until tieout restarts.
    gate: std::sync::OnceLock<Result<GateSession, String>>,
}

/// Where the TUI finds support tickets for a Stripe account (the demo brings its own):
/// `TIEOUT_TICKETS`, else `tickets.csv` in the data directory, else none.
pub const TICKETS_ENV: &str = "TIEOUT_TICKETS";

impl Loader for CliLoader {
    fn load(
        &self,
        kind: LoadKind,
        progress: &(dyn Fn(String) + Send + Sync),
    ) -> Result<Workspace, LoadError> {
        match kind {
            LoadKind::Demo => self.demo(),
            LoadKind::Cache => self.cached(),
            LoadKind::Fresh => self.fresh(progress),
        }
    }

    fn load_in_parts(
        &self,
        kind: LoadKind,
        progress: &(dyn Fn(String) + Send + Sync),
        first: &dyn Fn(Workspace),
    ) -> Result<LoadEnd, LoadError> {
        match kind {
            LoadKind::Cache => self.cached_in_parts(first),
            _ => self.load(kind, progress).map(LoadEnd::Whole),
        }
    }

    fn refund_gate(&self) -> Result<GateSession, String> {
        self.gate.get_or_init(|| self.build_gate()).clone()
    }
}

impl CliLoader {
    fn new(ctx: &Ctx) -> Self {
        Self {
            ctx: ctx.clone(),
            gate: std::sync::OnceLock::new(),
        }
    }

    /// The refund gate: a test-mode key only (refused before any request otherwise).
    fn build_gate(&self) -> Result<GateSession, String> {
        let ctx = &self.ctx;
        if ctx.global.demo {
            return Err(
                "the demo account has no Stripe account behind it: refund execution \
                        needs a test-mode key (sk_test_/rk_test_) against a Stripe test account \
                        or the fake server; nothing was sent"
                    .into(),
            );
        }
        let (key, _) =
            crate::secrets::resolve_key(&ctx.global.profile, ctx.global.allow_secret_key)
                .map_err(|e| Failure::from(e).message)?;
        let mut config = crate::stripe::ClientConfig::new(ctx.global.api_base.clone(), key);
        config.stripe_account = ctx.global.stripe_account.clone();
        let writer =
            crate::stripe::refund_writer::RefundWriter::new(config).map_err(|e| e.to_string())?;
        Ok(GateSession {
            gate: crate::app::refund_exec::Gate {
                writer,
                audit: crate::app::audit::AuditLog::default_location()
                    .map_err(|e| e.to_string())?,
                policy: crate::app::refund_exec::load_policy()?,
                tz: ctx.tz.clone(),
                user: crate::app::audit::os_user(),
            },
            now: ctx.global.now.is_some().then_some(ctx.now),
        })
    }

    /// The support tickets for a Stripe account (see [`TICKETS_ENV`]).
    fn tickets(&self) -> Result<Vec<crate::tui::workspace::Ticket>, LoadError> {
        let path = match std::env::var_os(TICKETS_ENV).filter(|p| !p.is_empty()) {
            Some(p) => std::path::PathBuf::from(p),
            None => match config::data_dir().map(|d| d.join("tickets.csv")) {
                Some(p) if p.is_file() => p,
                _ => return Ok(Vec::new()),
            },
        };
        // The same reader as `tieout suggest --tickets` (any helpdesk export, tickets.toml).
        let opts = crate::app::tickets::read_options(config::config_dir().as_deref(), None, &[])
            .map_err(|f| LoadError::new(f.message))?;
        let read =
            crate::app::tickets::read_file(&path, &opts).map_err(|f| LoadError::new(f.message))?;
        match read.problems.first() {
            Some(p) => Err(LoadError::new(format!(
                "the tickets file {} line {}: {}",
                path.display(),
                p.line,
                p.message
            ))),
            None => Ok(read.tickets.into_iter().map(|(_, t)| t).collect()),
        }
    }

    fn demo(&self) -> Result<Workspace, LoadError> {
        let data = crate::source::demo::load_demo().map_err(|e| LoadError::new(e.to_string()))?;
        let tickets = parse_tickets_csv(crate::source::demo::demo_tickets_csv())
            .map_err(|e| LoadError::new(format!("the demo's {e}")))?;
        Ok(Workspace::new(data, tickets))
    }

    fn cached(&self) -> Result<Workspace, LoadError> {
        let cache = self.cache()?;
        load::load_cached(&cache, &self.ctx.global.profile, Need::All, &self.ctx.tz)
            .map_err(|f| LoadError::new(f.message))
            .and_then(|data| Ok(Workspace::new(data, self.tickets()?)))
    }

    /// The cache in two parts (see `source::load::load_cached_in_parts`): the Worklist's
    /// tables (with the tickets) first, then the payouts, their lines, refunds, disputes.
    fn cached_in_parts(&self, first: &dyn Fn(Workspace)) -> Result<LoadEnd, LoadError> {
        let cache = self.cache()?;
        let tickets = self.tickets()?;
        load::load_cached_in_parts(&cache, &self.ctx.global.profile, |part| {
            first(Workspace::new(part, tickets));
        })
        .map(|rest| LoadEnd::Rest(Box::new(rest)))
        .map_err(|f| LoadError::new(f.message))
    }

    /// The cache, if the profile has synced into it.
    fn cache(&self) -> Result<Cache, LoadError> {
        let profile = &self.ctx.global.profile;
        let missing = |message: String| LoadError {
            message,
            missing_cache: true,
        };
        let cache = Cache::open_default().map_err(|e| missing(e.to_string()))?;
        match cache.last_used(profile) {
            Ok(Some(_)) => Ok(cache),
            Ok(None) => Err(missing(format!(
                "there is no cache for profile '{profile}' yet"
            ))),
            Err(e) => Err(LoadError::new(e.to_string())),
        }
    }

    /// A full read from Stripe, saved to the cache like `tieout sync`.
    fn fresh(&self, progress: &(dyn Fn(String) + Send + Sync)) -> Result<Workspace, LoadError> {
        let ctx = &self.ctx;
        let client = crate::app::connect(&ctx.request()).map_err(|f| LoadError::new(f.message))?;
        let cache = Cache::open_default().map_err(|e| LoadError::new(e.to_string()))?;
        let opts = Need::All.options(ctx.now, &ctx.tz);
        let report = move |event: SyncEvent| {
            let text = match event {
                SyncEvent::Listing { part, count } | SyncEvent::Listed { part, count } => {
                    format!("{} {}", grouped(count), part.label())
                }
                SyncEvent::Fetched {
                    part, done, total, ..
                } => format!("{} {done}/{total}", part.label()),
                _ => return,
            };
            progress(text);
        };
        let result = sync::block_on(sync::sync(
            &client,
            ctx.global.stripe_account.as_deref(),
            &opts,
            &cache,
            &ctx.global.profile,
            &report,
        ))
        .map_err(|e| LoadError::new(format!("could not start the network runtime: {e}")))?;
        result
            .map_err(|e| LoadError::new(e.to_string()))
            .and_then(|r| Ok(Workspace::new(r.data, self.tickets()?)))
    }
}
