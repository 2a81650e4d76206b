//! Opening the TUI: on the demo account (`tieout demo`, `tieout --demo`), or on the
//! profile's account (`tieout`): the cache at once when there is one, then a fresh read in
//! the background. Keymap and theme problems are reported here, before the terminal is
//! taken over (exit 2).

use std::io::IsTerminal;
use std::sync::Arc;

use super::{CmdResult, Ctx, Failure};
use crate::app::load::{self, Need};
use crate::app::run_history::{self, NoLookup, RunHistory, Session, StatusLookup, StripeLookup};
use crate::source::cache::Cache;
use crate::source::progress::{SyncEvent, grouped};
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

/// The bank statements the Tie-out tab matches payouts to, for a Stripe account (the demo
/// brings its own): the files in `TIEOUT_BANK` (separated like `PATH`), read with the CSV
/// profile in `TIEOUT_BANK_PROFILE` (default `tieout`), as `--bank` and `--bank-profile`.
pub const BANK_ENV: &str = "TIEOUT_BANK";
pub const BANK_PROFILE_ENV: &str = "TIEOUT_BANK_PROFILE";

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
            // Its own effect (it needs the account on screen): see `retry`.
            LoadKind::Retry(parts) => Err(LoadError::new(format!(
                "internal: a retry of {parts:?} came as a whole load"
            ))),
        }
    }

    fn retry(
        &self,
        parts: crate::source::sync::Parts,
        account: &crate::source::sync::AccountIdent,
        progress: &(dyn Fn(String) + Send + Sync),
    ) -> Result<Workspace, LoadError> {
        let ctx = &self.ctx;
        let client = crate::app::connect(&ctx.request()).map_err(|f| LoadError::new(f.message))?;
        let report = reporter(progress);
        let read = crate::app::pane_reads::read_again(
            &client,
            account,
            (ctx.now, &ctx.tz),
            parts,
            &report,
        )
        .map_err(LoadError::new)?;
        Ok(Workspace::new(read.data, Vec::new()).with_gaps(read.gaps))
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

    fn load_month(
        &self,
        month: crate::time::Month,
        progress: &(dyn Fn(String) + Send + Sync),
    ) -> Result<crate::source::AccountData, String> {
        if self.ctx.global.demo {
            return Err(format!(
                "the demo account holds only the months it was generated for, not {month}: choose a month inside them"
            ));
        }
        let report = reporter(progress);
        let mut request = self.ctx.request();
        request.cached = false;
        load::load_fresh_with(&request, Need::Month(month), &report).map_err(|f| f.message)
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

    /// The statements named by [`BANK_ENV`], if any.
    fn bank(&self) -> Result<Option<Vec<crate::bank::BankLine>>, LoadError> {
        let Some(paths) = std::env::var_os(BANK_ENV).filter(|p| !p.is_empty()) else {
            return Ok(None);
        };
        let args = super::BankArgs {
            files: std::env::split_paths(&paths).collect(),
            bank_profile: std::env::var(BANK_PROFILE_ENV).unwrap_or_else(|_| "tieout".into()),
        };
        super::reconcile::read_statements(&args)
            .map_err(|f| LoadError::new(format!("{BANK_ENV}: {}", f.message)))
    }

    fn demo(&self) -> Result<Workspace, LoadError> {
        let data = crate::source::demo::load_demo().map_err(|e| LoadError::new(e.to_string()))?;
        let tickets = parse_tickets_csv(crate::source::demo::demo_tickets_csv())
            .map_err(|e| LoadError::new(format!("the demo's {e}")))?;
        let bank = crate::source::demo::demo_bank_lines()
            .map_err(|f| LoadError::new(format!("the demo's {}", f.message)))?;
        Ok(Workspace::new(data, tickets)
            .with_bank(Some(bank))
            .with_history(history(Arc::new(NoLookup)))
            .with_connected(self.connected()))
    }

    fn cached(&self) -> Result<Workspace, LoadError> {
        let cache = self.cache()?;
        load::load_cached(&cache, &self.ctx.global.profile, Need::All, &self.ctx.tz)
            .map_err(|f| LoadError::new(f.message))
            .and_then(|data| {
                Ok(Workspace::new(data, self.tickets()?)
                    .with_bank(self.bank()?)
                    .with_history(history(Arc::new(NoLookup)))
                    .with_connected(self.connected()))
            })
    }

    /// The cache in two parts (see `source::load::load_cached_in_parts`): the Worklist's
    /// tables (with the tickets) first, then the payouts, their lines, refunds, disputes.
    fn cached_in_parts(&self, first: &dyn Fn(Workspace)) -> Result<LoadEnd, LoadError> {
        let cache = self.cache()?;
        let tickets = self.tickets()?;
        let bank = self.bank()?;
        load::load_cached_in_parts(&cache, &self.ctx.global.profile, |part, lookup| {
            first(
                Workspace::new(part, tickets)
                    .with_bank(bank)
                    .with_history(history(Arc::new(lookup)))
                    .with_connected(self.connected()),
            );
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

    /// A full read from Stripe, resource by resource: what the key can read comes back
    /// fresh and each resource it cannot read is a gap the panes that need it show
    /// (`app::pane_reads`); saved to the cache like `tieout sync` when complete.
    fn fresh(&self, progress: &(dyn Fn(String) + Send + Sync)) -> Result<Workspace, LoadError> {
        let ctx = &self.ctx;
        let client = crate::app::connect(&ctx.request()).map_err(|f| LoadError::new(f.message))?;
        let cache = Cache::open_default().map_err(|e| LoadError::new(e.to_string()))?;
        let lookup = Arc::new(StripeLookup {
            client: client.clone(),
        });
        let report = reporter(progress);
        let read = crate::app::pane_reads::read(
            &client,
            ctx.global.stripe_account.as_deref(),
            (ctx.now, &ctx.tz),
            Some(&cache),
            &ctx.global.profile,
            &report,
        )
        .map_err(LoadError::new)?;
        Ok(Workspace::new(read.data, self.tickets()?)
            .with_gaps(read.gaps)
            .with_history(history(lookup))
            .with_bank(self.bank()?)
            .with_connected(self.connected()))
    }

    /// The connected account the workbench reads (`--stripe-account`), if any.
    fn connected(&self) -> Option<String> {
        self.ctx.global.stripe_account.clone()
    }
}

/// Sync events in words, to the status line's `progress`.
fn reporter(progress: &(dyn Fn(String) + Send + Sync)) -> impl Fn(SyncEvent) + Send + Sync + '_ {
    move |event: SyncEvent| {
        if let Some(text) = in_words(event) {
            progress(text);
        }
    }
}

/// A sync event as the status line shows it (`1,200 charges`, `payouts 3/12`).
fn in_words(event: SyncEvent) -> Option<String> {
    match event {
        SyncEvent::Listing { part, count } | SyncEvent::Listed { part, count } => {
            Some(format!("{} {}", grouped(count), part.label()))
        }
        SyncEvent::Fetched {
            part, done, total, ..
        } => Some(format!("{} {done}/{total}", part.label())),
        SyncEvent::Paced {
            per_second,
            budget,
            rate_limited,
        } => Some(crate::source::progress::pace_text(
            per_second,
            budget,
            rate_limited,
        )),
        _ => None,
    }
}

/// The Worklist's run history in the data folder (none when there is no data folder: the
/// pane then shows no "since").
fn history(lookup: Arc<dyn StatusLookup>) -> Option<Session> {
    RunHistory::default_location().ok().map(|store| Session {
        store,
        lookup,
        keep_days: run_history::keep_days_from_env(),
    })
}
