//! The workbench's data, read once for the TUI: the bundled demo, the cache (at once, or
//! in two parts so the first tab draws early), a fresh read from Stripe resource by
//! resource (what the key cannot read is a [`Gap`], not a failure), a retry of the
//! resources that failed, a month outside the data on hand (for a close packet), and the
//! refund gate. The same loaders, client configuration and readers as the headless
//! commands; nothing here may print (the terminal belongs to the TUI: progress is handed
//! to a callback in words).

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use super::ReadRequest;
use super::load::{self, Need};
use super::pane_reads::{self, Gap};
use super::refund_exec::{self, GateSession};
use super::run_history::{self, NoLookup, RunHistory, Session, StatusLookup, StripeLookup};
use crate::bank::BankLine;
use crate::domain::refunds::Ticket;
use crate::model::AccountData;
use crate::model::{AccountIdent, Parts};
use crate::source::cache::Cache;
use crate::source::progress::{SyncEvent, grouped, pace_text, plain_line};
use crate::time::Month;

/// Where the workbench finds support tickets for a Stripe account (the demo brings its
/// own): `TIEOUT_TICKETS`, else `tickets.csv` in the data directory, else none.
pub const TICKETS_ENV: &str = "TIEOUT_TICKETS";

/// The bank statements the Tie-out tab matches payouts to, for a Stripe account (the demo
/// brings its own): the files in `TIEOUT_BANK` (separated like `PATH`), read with the CSV
/// profile in `TIEOUT_BANK_PROFILE` (default `tieout`), as `--bank` and `--bank-profile`.
pub const BANK_ENV: &str = "TIEOUT_BANK";
pub const BANK_PROFILE_ENV: &str = "TIEOUT_BANK_PROFILE";

/// Progress in words (`1,200 charges`, `payouts 3/12`), for the status line.
pub type Progress<'a> = &'a (dyn Fn(String) + Send + Sync);

/// Where an open reads from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenFrom {
    /// The bundled demo account.
    Demo,
    /// The local cache of the last sync.
    Cache,
    /// Fresh from Stripe.
    Fresh,
}

/// What an open read: the account's rows and everything the panes show beside them.
pub struct Opened {
    pub data: AccountData,
    pub tickets: Vec<Ticket>,
    /// What a fresh read could not read (its tables empty).
    pub gaps: Vec<Gap>,
    /// The Worklist's run records and how it learns what left the list.
    pub history: Option<Session>,
    /// The bank statements' lines, if any were named.
    pub bank: Option<Vec<BankLine>>,
    /// The connected account (`--stripe-account`) the data was read from, if any.
    pub connected: Option<String>,
}

impl Opened {
    fn new(data: AccountData) -> Self {
        Self {
            data,
            tickets: Vec::new(),
            gaps: Vec::new(),
            history: None,
            bank: None,
            connected: None,
        }
    }
}

/// Why an open failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenError {
    pub message: String,
    /// There simply is no cache yet: not an error worth showing while a refresh runs.
    pub missing_cache: bool,
}

impl OpenError {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            missing_cache: false,
        }
    }

    fn missing(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            missing_cache: true,
        }
    }
}

/// A snapshot in the cache, as its manifest names it (see [`Workbench::on_disk`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OnDisk {
    /// Increases by one with every save.
    pub generation: u64,
    /// When its data was read from Stripe (unix seconds).
    pub fetched_at: i64,
}

/// The workbench's account: how to read it (the same [`ReadRequest`] as a command) and
/// this session's refund gate.
pub struct Workbench {
    request: ReadRequest,
    /// `--now` was given: the refund gate uses that clock (reproducible runs).
    fixed_now: bool,
    /// Built once, on the first approved refund: one writer per session, so a
    /// `livemode: true` answer keeps it disabled until tieout restarts.
    gate: OnceLock<Result<GateSession, String>>,
}

impl Workbench {
    pub fn new(request: ReadRequest, fixed_now: bool) -> Self {
        Self {
            request,
            fixed_now,
            gate: OnceLock::new(),
        }
    }

    /// Opens the account in one go.
    pub fn open(&self, from: OpenFrom, progress: Progress<'_>) -> Result<Opened, OpenError> {
        match from {
            OpenFrom::Demo => self.demo(),
            OpenFrom::Cache => self.cached(),
            OpenFrom::Fresh => self.fresh(progress),
        }
    }

    /// The cache in two parts (see [`load::load_cached_in_parts`]): the Worklist's
    /// tables (with the tickets) handed to `first` as soon as they are read, then the
    /// payouts, their lines, refunds and disputes returned.
    pub fn open_cache_in_parts(
        &self,
        first: &dyn Fn(Opened),
    ) -> Result<Box<AccountData>, OpenError> {
        let cache = self.cache()?;
        let tickets = self.tickets()?;
        let bank = self.bank()?;
        load::load_cached_in_parts(&cache, &self.request.profile, |part, lookup| {
            first(Opened {
                tickets,
                bank,
                history: history(Arc::new(lookup)),
                connected: self.connected(),
                ..Opened::new(part)
            });
        })
        .map(Box::new)
        .map_err(|f| OpenError::new(f.message))
    }

    /// Only the resources in `parts` of `account` (the account on screen), read again
    /// for a pane's retry: their tables and the gaps of those that failed again.
    pub fn read_again(
        &self,
        parts: Parts,
        account: &AccountIdent,
        progress: Progress<'_>,
    ) -> Result<Opened, OpenError> {
        let req = &self.request;
        let client = super::connect(req).map_err(|f| OpenError::new(f.message))?;
        let report = reporter(progress);
        let read = pane_reads::read_again(&client, account, (req.now, &req.tz), parts, &report)
            .map_err(OpenError::new)?;
        Ok(Opened {
            gaps: read.gaps,
            ..Opened::new(read.data)
        })
    }

    /// The payouts arriving in `month` and their lines, fresh from Stripe (a close packet
    /// of a month outside the data on hand).
    pub fn read_month(&self, month: Month, progress: Progress<'_>) -> Result<AccountData, String> {
        if self.request.demo {
            return Err(format!(
                "the demo account holds only the months it was generated for, not {month}: choose a month inside them"
            ));
        }
        let report = reporter(progress);
        let mut request = self.request.clone();
        request.cached = false;
        load::load_fresh_with(&request, Need::Month(month), &report).map_err(|f| f.message)
    }

    /// This session's refund gate, or why refunds cannot be sent (the demo, no key, a
    /// live key): built on first use and kept.
    pub fn refund_gate(&self) -> Result<GateSession, String> {
        self.gate
            .get_or_init(|| {
                if self.request.demo {
                    return Err(
                        "the demo account has no Stripe account behind it: refund execution \
                         needs a test-mode key (sk_test_/rk_test_) against a Stripe test account \
                         or the fake server; nothing was sent"
                            .into(),
                    );
                }
                refund_exec::session(&self.request, self.fixed_now.then_some(self.request.now))
            })
            .clone()
    }

    /// The support tickets for a Stripe account (see [`TICKETS_ENV`]).
    fn tickets(&self) -> Result<Vec<Ticket>, OpenError> {
        let path = match std::env::var_os(TICKETS_ENV).filter(|p| !p.is_empty()) {
            Some(p) => PathBuf::from(p),
            None => match super::data_dir().map(|d| d.join("tickets.csv")) {
                Some(p) if p.is_file() => p,
                _ => return Ok(Vec::new()),
            },
        };
        // The same reader as `tieout suggest --tickets` (any helpdesk export, tickets.toml).
        let opts = super::tickets::read_options(super::config_dir().as_deref(), None, &[])
            .map_err(|f| OpenError::new(f.message))?;
        let read =
            super::tickets::read_file(&path, &opts).map_err(|f| OpenError::new(f.message))?;
        match read.problems.first() {
            Some(p) => Err(OpenError::new(format!(
                "the tickets file {} line {}: {}",
                path.display(),
                p.line,
                p.message
            ))),
            None => Ok(read.tickets.into_iter().map(|(_, t)| t).collect()),
        }
    }

    /// The statements named by [`BANK_ENV`], if any.
    fn bank(&self) -> Result<Option<Vec<BankLine>>, OpenError> {
        let Some(paths) = std::env::var_os(BANK_ENV).filter(|p| !p.is_empty()) else {
            return Ok(None);
        };
        let statements = super::bank::Statements {
            files: std::env::split_paths(&paths).collect(),
            profile: std::env::var(BANK_PROFILE_ENV).unwrap_or_else(|_| "tieout".into()),
        };
        super::bank::read_statements(&statements)
            .map_err(|f| OpenError::new(format!("{BANK_ENV}: {}", f.message)))
    }

    fn demo(&self) -> Result<Opened, OpenError> {
        let data = crate::source::demo::load_demo().map_err(|e| OpenError::new(e.to_string()))?;
        let tickets = super::tickets::parse_tickets_csv(crate::source::demo::demo_tickets_csv())
            .map_err(|e| OpenError::new(format!("the demo's {e}")))?;
        let bank = crate::source::demo::demo_bank_lines()
            .map_err(|f| OpenError::new(format!("the demo's {}", f.message)))?;
        Ok(Opened {
            tickets,
            bank: Some(bank),
            history: history(Arc::new(NoLookup)),
            connected: self.connected(),
            ..Opened::new(data)
        })
    }

    fn cached(&self) -> Result<Opened, OpenError> {
        let cache = self.cache()?;
        let req = &self.request;
        let data = load::load_cached(&cache, &req.profile, Need::All, &req.tz)
            .map_err(|f| OpenError::new(f.message))?;
        Ok(Opened {
            tickets: self.tickets()?,
            bank: self.bank()?,
            history: history(Arc::new(NoLookup)),
            connected: self.connected(),
            ..Opened::new(data)
        })
    }

    /// The snapshot the profile's cache holds now: its generation and when it was read
    /// from Stripe (the manifest alone is read). `None` for the demo, or when there is no
    /// cache or it cannot be read (the next load says why).
    pub fn on_disk(&self) -> Option<OnDisk> {
        if self.request.demo {
            return None;
        }
        let cache = Cache::open_default().ok()?;
        let pointer = cache.last_used(&self.request.profile).ok()??;
        let manifest = cache
            .read_manifest(&pointer.account_id, pointer.mode)
            .ok()??;
        Some(OnDisk {
            generation: manifest.generation,
            fetched_at: manifest.fetched_at,
        })
    }

    /// The cache, if the profile has synced into it.
    fn cache(&self) -> Result<Cache, OpenError> {
        let profile = &self.request.profile;
        let cache = Cache::open_default().map_err(|e| OpenError::missing(e.to_string()))?;
        match cache.last_used(profile) {
            Ok(Some(_)) => Ok(cache),
            Ok(None) => Err(OpenError::missing(format!(
                "there is no cache for profile '{profile}' yet"
            ))),
            Err(e) => Err(OpenError::new(e.to_string())),
        }
    }

    /// A full read from Stripe, resource by resource: what the key can read comes back
    /// fresh and each resource it cannot read is a gap the panes that need it show
    /// ([`pane_reads`]); saved to the cache like `tieout sync` when complete.
    fn fresh(&self, progress: Progress<'_>) -> Result<Opened, OpenError> {
        let req = &self.request;
        let client = super::connect(req).map_err(|f| OpenError::new(f.message))?;
        let cache = Cache::open_default().map_err(|e| OpenError::new(e.to_string()))?;
        let lookup = Arc::new(StripeLookup {
            client: client.clone(),
        });
        let report = reporter(progress);
        let read = pane_reads::read(
            &client,
            req.stripe_account.as_deref(),
            (req.now, &req.tz),
            Some(&cache),
            &req.profile,
            &report,
        )
        .map_err(OpenError::new)?;
        Ok(Opened {
            tickets: self.tickets()?,
            gaps: read.gaps,
            history: history(lookup),
            bank: self.bank()?,
            connected: self.connected(),
            ..Opened::new(read.data)
        })
    }

    fn connected(&self) -> Option<String> {
        self.request.stripe_account.clone()
    }
}

/// Sync events in words, to `progress`.
fn reporter(progress: Progress<'_>) -> impl Fn(SyncEvent) + Send + Sync + '_ {
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
        } => Some(pace_text(per_second, budget, rate_limited)),
        // Whether this read follows the account's events or reads it whole, and why: the
        // words `tieout sync` prints.
        e @ (SyncEvent::FullSync { .. } | SyncEvent::Refreshing { .. }) => plain_line(&e),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_line_says_whether_a_read_follows_the_events_or_reads_everything() {
        assert_eq!(
            in_words(SyncEvent::Refreshing {
                events: 1_250,
                objects: 45
            })
            .as_deref(),
            Some("refreshing from 1,250 events: 45 changed objects")
        );
        assert_eq!(
            in_words(SyncEvent::FullSync {
                reason: "the cache records no event cursor".into()
            })
            .as_deref(),
            Some("full sync: the cache records no event cursor")
        );
    }
}
