//! `tieout dunning`: the failed-payment worklist as failed-payments.md/.csv/.json, and a
//! few lines on stdout fit for a billing channel post, then the paths written. Every run
//! keeps a record of its worklist (`app::run_history`); `--since` compares with an earlier
//! one (failed-payments-changes.csv and a "Since …" section), `--summary FILE` writes the
//! channel post to a file. The cards of active subscriptions that expire before their
//! renewal go to expiring-cards.csv and a section of failed-payments.md (or, when the key
//! may not read payment methods, the section says so and the rest is unchanged).

use std::path::{Path, PathBuf};

use clap::Args;

use super::{CmdResult, Ctx, Failure, Formats, OutArgs};
use crate::app::run_history::{self, NoLookup, RunHistory, StatusLookup};
use crate::domain::dunning;
use crate::domain::dunning::since::{Since, SinceOutcome};
use crate::model::AccountData;
use crate::report::dunning as export;
use crate::report::dunning_since;
use crate::report::expiring_cards::{self, ExpiringSection};
use crate::report::recovery_summary;

/// How many decline codes the channel post names.
const TOP_DECLINES: usize = 3;

/// `tieout dunning`'s own options.
#[derive(Debug, Clone, Args)]
pub struct DunningArgs {
    #[command(flatten)]
    pub out: OutArgs,
    /// Compare with an earlier run: `last` (the latest recorded run of this account), or
    /// a date YYYY-MM-DD (the latest run recorded on or before it, in --tz). Adds
    /// failed-payments-changes.csv and a "Since …" section.
    #[arg(long, value_name = "last|YYYY-MM-DD", value_parser = parse_since_arg)]
    pub since: Option<SinceArg>,
    /// Write the channel post (a few plain-text lines) to FILE as well.
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,
    /// Keep run records this many days (env TIEOUT_RUN_HISTORY_DAYS; default 35).
    #[arg(long, value_name = "DAYS")]
    pub history_days: Option<u32>,
}

/// `--since` as typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SinceArg {
    Last,
    Date(jiff::civil::Date),
}

fn parse_since_arg(text: &str) -> Result<SinceArg, String> {
    if text == "last" {
        return Ok(SinceArg::Last);
    }
    crate::time::parse_day(text)
        .map(SinceArg::Date)
        .map_err(|_| format!("'{text}' is neither `last` nor a date YYYY-MM-DD"))
}

impl SinceArg {
    /// The core's form: a date becomes "taken before the end of that day in `tz`".
    pub fn resolve(self, tz: &jiff::tz::TimeZone) -> Result<Since, Failure> {
        match self {
            SinceArg::Last => Ok(Since::Last),
            SinceArg::Date(d) => d
                .tomorrow()
                .and_then(|next| next.to_zoned(tz.clone()))
                .map(|z| Since::Until(z.timestamp().as_second()))
                .map_err(|e| Failure::usage(format!("--since {d}: {e}"))),
        }
    }
}

pub fn run(ctx: &Ctx, args: &DunningArgs) -> CmdResult {
    let formats = Formats::parse(&args.out.format)?;
    if let Some(name) = &ctx.global.view {
        return run_view(ctx, args, formats, name);
    }
    let since = args.since.map(|s| s.resolve(&ctx.tz)).transpose()?;
    let data = load(ctx)?;
    let w = build(&data, ctx.now)?;
    let keep_days = args
        .history_days
        .unwrap_or_else(run_history::keep_days_from_env);
    let store = history_store(since.is_some())?;
    let outcome = match (since, &store) {
        (Some(asked), Some(store)) => Some(compare(ctx, store, &data, &w, asked)?),
        _ => None,
    };
    let recovery = recovery_line(ctx, &data, &w);
    let lines = write(
        &data,
        &w,
        recovery,
        outcome.as_ref(),
        args.out.out.as_deref(),
        formats,
        args.out.force,
        args.summary.as_deref(),
    )?;
    // Recorded only once the files are written: a refused run (exit 2) is not the
    // baseline of the next `--since last`.
    if let Some(store) = &store {
        run_history::record(store, &data, &w, keep_days);
    }
    for l in lines {
        println!("{l}");
    }
    Ok(())
}

/// `--view NAME`: only the rows (and columns) the saved Worklist view shows
/// ([`super::views`]); the channel post and the run record are the whole list's,
/// so neither is made.
fn run_view(ctx: &Ctx, args: &DunningArgs, formats: Formats, name: &str) -> CmdResult {
    if args.since.is_some() || args.summary.is_some() {
        return Err(Failure::usage(
            "--view writes the rows of one saved view; --since and --summary are about the whole worklist: run them without --view",
        ));
    }
    let view = super::views::find(name, crate::tui::tabs::WORKLIST, "dunning")?;
    let data = load(ctx)?;
    let w = build(&data, ctx.now)?;
    let table = crate::tui::panes::worklist::view_table(&w, &view, &ctx.tz)
        .map_err(|e| super::views::refused(&view, &e))?;
    let stem = format!("failed-payments-{}", super::views::file_part(&view));
    let written = super::views::write_table(
        &table,
        &stem,
        args.out.out.as_deref(),
        formats,
        args.out.force,
    )?;
    super::views::report(&table, w.rows.len(), "invoices", &view, &written);
    Ok(())
}

/// Open and uncollectible invoices with their payments, from wherever `--demo`,
/// `--cached` or the key say (`source::load`).
fn load(ctx: &Ctx) -> Result<AccountData, Failure> {
    if ctx.global.demo {
        // The bundled account, directly (no key, no network).
        return crate::source::demo::load_demo().map_err(|e| {
            Failure::data(format!(
                "the bundled demo account could not be read: {e}; this build is broken, please report it"
            ))
        });
    }
    crate::app::load::load(&ctx.request(), crate::app::load::Need::Dunning)
}

/// The summary's line on last month's failures and what came back of them
/// (README.md, "Posting the summary"), when the data holds how failures ended: the demo,
/// the cache a sync wrote, or a fresh read (it reads the paid and void invoices and the
/// charges since the month before last month; the snapshot's meta says since when). A
/// cache saved before tieout recorded that, or a key that may not read charges, gives no
/// line (said on stderr), rather than one saying nothing came back.
fn recovery_line(ctx: &Ctx, data: &AccountData, w: &dunning::Worklist) -> Option<String> {
    let window = crate::domain::recovery::Window::ending_at(ctx.now, 2, &ctx.tz);
    if let Some(gap) = window.settled_gap(&data.meta) {
        eprintln!(
            "tieout: no line on last month's recovery: {gap} (a fresh read needs the charge read permission, rak_charge_read; a cache, a `tieout sync` by this version)"
        );
        return None;
    }
    recovery_summary::last_month_line(data, ctx.now, &ctx.tz, &w.order)
}

fn build(data: &AccountData, now: i64) -> Result<dunning::Worklist, Failure> {
    dunning::build(data, now).map_err(|e| {
        Failure::data(format!(
            "could not total the worklist: {e}; the account's amounts are out of range"
        ))
    })
}

/// Where run records live; without a data folder only `--since` fails (a plain run
/// warns and is not recorded).
fn history_store(needed: bool) -> Result<Option<RunHistory>, Failure> {
    match RunHistory::default_location() {
        Ok(s) => Ok(Some(s)),
        Err(e) if !needed => {
            eprintln!("warning: {}", e.message);
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Compares this run with the one `asked` names. The invoices that left the list are
/// looked up in Stripe (one GET each) only for a fresh read; the demo and the cache
/// answer from the data they hold.
fn compare(
    ctx: &Ctx,
    store: &RunHistory,
    data: &AccountData,
    w: &dunning::Worklist,
    asked: Since,
) -> Result<SinceOutcome, Failure> {
    let fresh = !(ctx.global.demo || ctx.global.cached);
    let lookup: Box<dyn StatusLookup> = if fresh {
        Box::new(run_history::StripeLookup {
            client: crate::app::connect(&ctx.request())?,
        })
    } else {
        Box::new(NoLookup)
    };
    Ok(run_history::compare(store, data, w, asked, lookup.as_ref()))
}

/// Writes the chosen files of worklist `w` into `dir` (the current folder when `None`),
/// the changes when `since` is set and the post to `summary`, and returns the lines to
/// print: the channel post (with `recovery`, last month's recovery line, when there is
/// one), then the path of each file.
#[allow(clippy::too_many_arguments)]
pub fn write(
    data: &AccountData,
    w: &dunning::Worklist,
    recovery: Option<String>,
    since: Option<&SinceOutcome>,
    dir: Option<&Path>,
    formats: Formats,
    force: bool,
    summary: Option<&Path>,
) -> Result<Vec<String>, Failure> {
    let dir = dir
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let expiring = ExpiringSection::of(data, w.now).map_err(|e| {
        Failure::data(format!(
            "could not total the amounts at risk of expiring cards: {e}; the account's amounts are out of range"
        ))
    })?;
    if let Some(why) = expiring.not_checked() {
        eprintln!("warning: cards that will fail before renewal: {why}");
    }
    let extras = export::Extras {
        since,
        expiring: Some(&expiring),
    };
    let mut files: Vec<(&str, Vec<u8>)> = Vec::new();
    if formats.md {
        files.push((
            export::MD_NAME,
            export::markdown_with(w, &data.meta, &extras),
        ));
    }
    if formats.csv {
        files.push((export::CSV_NAME, export::csv(w)));
        if let Some(s) = since {
            files.push((
                dunning_since::CHANGES_CSV_NAME,
                dunning_since::changes_csv(s),
            ));
        }
        files.push((expiring_cards::CSV_NAME, expiring_cards::csv(&expiring)));
    }
    if formats.json {
        files.push((export::JSON_NAME, export::json_with(w, &data.meta, &extras)));
    }
    let mut lines = export::summary(w, &data.meta, TOP_DECLINES);
    lines.extend(recovery);
    if let Some(s) = since {
        lines.push(dunning_since::summary_line(s));
    }
    // All or nothing: a different earlier file refuses the whole set (exit 2) before any
    // is written. Identical bytes already on disk count as written: re-running is harmless.
    let mut written = super::write_exports(&dir, &files, force)?;
    if let Some(path) = summary {
        let mut text = lines.join("\n");
        text.push('\n');
        written.extend(summary_file(path, text.into_bytes(), force)?);
    }
    let mut out = lines;
    for (path, _) in written {
        out.push(path.display().to_string());
    }
    Ok(out)
}

/// The post as a file of its own (`--summary FILE`), under the same overwrite rule as the
/// exports.
fn summary_file(path: &Path, bytes: Vec<u8>, force: bool) -> Result<Vec<(PathBuf, bool)>, Failure> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| Failure::usage(format!("--summary {}: not a file name", path.display())))?;
    super::write_exports(&dir, &[(name, bytes)], force)
}
