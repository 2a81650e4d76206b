//! `tieout sync [--months N] [--full]`: read the account from Stripe into the local cache,
//! with progress on stderr and what was stored on stdout. After a complete sync it
//! refreshes the cache from Stripe's events (`--full` reads everything again; the
//! progress says why a sync is full). On any failure the previous cache
//! is left as it was (exit 3 for key or permission problems, 4 for Stripe or network).

use std::fmt::Write as _;

use super::{CmdResult, Ctx, Failure};
use crate::app::connect;
use crate::app::load::cache_failure;
use crate::source::cache::Cache;
use crate::source::progress::{StderrProgress, grouped};
use crate::source::sync::{self, SyncOptions, SyncReport};

pub fn run(ctx: &Ctx, months: u32, full: bool) -> CmdResult {
    if ctx.global.demo {
        return Err(Failure::usage(
            "`tieout sync` reads a Stripe account into the cache; the demo account needs no sync (drop --demo)",
        ));
    }
    if ctx.global.cached {
        return Err(Failure::usage(
            "`tieout sync` refreshes the cache from Stripe; --cached cannot apply to it (drop --cached)",
        ));
    }
    if months == 0 {
        return Err(Failure::usage(
            "--months must be at least 1 (the current month counts as one)",
        ));
    }
    let client = connect(&ctx.request())?;
    let cache = Cache::open_default().map_err(cache_failure)?;
    let opts = SyncOptions::for_months(ctx.now, &ctx.tz, months);
    let progress = StderrProgress::new();
    let result = sync::block_on(sync::sync_incremental(
        &client,
        ctx.global.stripe_account.as_deref(),
        &opts,
        &cache,
        &ctx.global.profile,
        full,
        &progress,
    ))
    .map_err(|e| Failure::other(format!("could not start the network runtime: {e}")))?;
    progress.finish();
    let (report, how) = result.map_err(|e| {
        let f = Failure::from(e);
        Failure::new(
            f.kind,
            format!("{} (the previous cache, if any, is unchanged)", f.message),
        )
    })?;
    if let Some(problem) = &report.previous_problem {
        eprintln!(
            "tieout: warning: the previous cache could not be read ({problem}); it was replaced by this full sync"
        );
    }
    print!("{}", summary(&report, &opts, ctx));
    match how {
        sync::How::Refreshed { events, objects } => println!(
            "refreshed from {} events ({} changed objects)",
            grouped(events),
            grouped(objects)
        ),
        sync::How::Full(reason) => println!("full sync: {reason}"),
    }
    Ok(())
}

/// What `sync` prints on stdout.
pub fn summary(report: &SyncReport, opts: &SyncOptions, ctx: &Ctx) -> String {
    let d = &report.data;
    let m = &d.meta;
    let mut out = String::new();
    let name = m
        .account_name
        .as_deref()
        .map(|n| format!(" ({n})"))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "synced {}{name}, {} mode, as of {}",
        m.account_id,
        m.mode.as_str(),
        crate::time::iso_utc(m.fetched_at)
    );
    let _ = writeln!(
        out,
        "payouts arriving {} to {} ({}), charges since {}",
        crate::time::date_in(opts.window.0, &ctx.tz),
        crate::time::date_in((opts.window.1 - 1).max(opts.window.0), &ctx.tz),
        crate::time::zone_name(&ctx.tz),
        crate::time::date_in(opts.charges_since, &ctx.tz),
    );
    let kept = if report.reused_lines > 0 {
        format!(
            "  ({} kept from the last sync for {} settled payouts)",
            grouped(report.reused_lines),
            grouped(report.reused_payouts)
        )
    } else {
        String::new()
    };
    let rows: [(&str, usize, String); 10] = [
        ("payouts", d.payouts.len(), String::new()),
        ("balance transactions", d.balance_transactions.len(), kept),
        ("invoices", d.invoices.len(), String::new()),
        ("invoice payments", d.invoice_payments.len(), String::new()),
        ("payment intents", d.payment_intents.len(), String::new()),
        ("charges", d.charges.len(), String::new()),
        ("refunds", d.refunds.len(), String::new()),
        ("disputes", d.disputes.len(), String::new()),
        ("customers", d.customers.len(), String::new()),
        ("subscriptions", d.subscriptions.len(), String::new()),
    ];
    for (label, n, note) in rows {
        let _ = writeln!(out, "  {label:<22}{:>10}{note}", grouped(n));
    }
    let s = &report.stats;
    let _ = writeln!(
        out,
        "requests: {} ({} retries, {} rate-limited)",
        grouped(s.requests as usize),
        grouped(s.retries as usize),
        grouped(s.rate_limited as usize)
    );
    for (endpoint, n) in &s.by_endpoint {
        let _ = writeln!(out, "  {endpoint:<32}{:>8}", grouped(*n as usize));
    }
    let _ = writeln!(
        out,
        "cache: {} (generation {}, {} KiB)",
        report.saved.dir.display(),
        report.saved.manifest.generation,
        grouped(report.saved.bytes.div_ceil(1024) as usize)
    );
    out
}
