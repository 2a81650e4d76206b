//! `tieout reconcile --month`: the payout tie-out of a month as CSV, Markdown and JSON.
//!
//! Loads what the month needs, ties every payout out, writes the chosen files atomically
//! (never replacing a different earlier file without `--force`), prints a short summary
//! and the paths written, and exits 5 when any payout does not tie out (the files are
//! still written, so the difference can be looked at).
//!
//! With `--bank FILE…` the month's payouts are also matched to the statements' lines:
//! `bank-match.csv` is written, the Markdown and JSON gain a Bank section, and a payout
//! that should have arrived but has no deposit, or a match to review, also exits 5.
//! The use case is `app::reconcile`, which the Tie-out tab calls too.

use std::path::{Path, PathBuf};

use super::{BankArgs, CmdResult, Ctx, Failure, Formats, OutArgs};
use crate::app::reconcile as uc;
use crate::bank::BankLine;
use crate::model::AccountData;
use crate::time::{Month, zone_name};

pub fn run(ctx: &Ctx, month: Month, out: &OutArgs, bank: &BankArgs) -> CmdResult {
    let formats = Formats::parse(&out.format)?;
    let view = match &ctx.global.view {
        Some(name) => Some(view_of(name, month)?),
        None => None,
    };
    // The statements are read first, so a malformed one stops the run before Stripe is asked.
    let statements = crate::app::bank::read_statements(&bank.statements())?;
    let data = uc::load_month(&ctx.request(), month, statements.is_some())?;
    let dir = out.out.clone().unwrap_or_else(|| PathBuf::from("."));
    if let Some(view) = view {
        return run_view(ctx, month, &data, &view, out, statements.as_deref());
    }
    run_on(
        ctx,
        month,
        &data,
        &dir,
        formats,
        out.force,
        statements.as_deref(),
    )
}

/// Ties the month out on `data`, writes the files into `dir`, prints the summary.
pub fn run_on(
    ctx: &Ctx,
    month: Month,
    data: &AccountData,
    dir: &Path,
    formats: Formats,
    force: bool,
    statements: Option<&[BankLine]>,
) -> CmdResult {
    let tieout = uc::tie_out(data, month, &ctx.tz);
    let bank = statements.map(|lines| uc::match_bank(&tieout, &data.payouts, lines, ctx.now));
    let files = uc::files(&tieout, data, &ctx.tz, formats, bank.as_ref());
    let written = super::write_exports(dir, &files, force)?;
    println!("{}", uc::summary(&tieout, &zone_name(&ctx.tz)));
    if let Some(m) = &bank {
        println!("bank: {}", crate::report::bank::counts_line(m));
    }
    for (path, changed) in &written {
        if *changed {
            println!("wrote {}", path.display());
        } else {
            println!("unchanged {} (same content)", path.display());
        }
    }
    match (uc::verdict(&tieout), bank.as_ref().map(uc::bank_verdict)) {
        (Err(a), Some(Err(b))) => Err(Failure::data(format!("{} {}", a.message, b.message))),
        (Err(a), _) => Err(a),
        (Ok(()), Some(b)) => b,
        (Ok(()), None) => Ok(()),
    }
}

/// `--view NAME`: a Tie-out view, of this month when it names one.
fn view_of(name: &str, month: Month) -> Result<crate::app::views::SavedView, Failure> {
    let view = super::views::find(name, crate::tui::tabs::TIEOUT, "reconcile")?;
    match view.month.as_deref().map(str::trim) {
        Some(m) if m != month.to_string() => Err(Failure::usage(format!(
            "view \"{name}\" shows {m}, not {month}: run with --month {m}, or save a view without a month"
        ))),
        _ => Ok(view),
    }
}

/// Writes only the payouts the view shows for `month` ([`super::views`]), prints the
/// summary, and exits as the whole month's tie-out does.
fn run_view(
    ctx: &Ctx,
    month: Month,
    data: &AccountData,
    view: &crate::app::views::SavedView,
    out: &OutArgs,
    statements: Option<&[BankLine]>,
) -> CmdResult {
    let formats = Formats::parse(&out.format)?;
    let tieout = uc::tie_out(data, month, &ctx.tz).into_owned();
    let bank = statements.map(|lines| uc::match_bank(&tieout, &data.payouts, lines, ctx.now));
    let table =
        crate::tui::panes::tieout::view_table(&tieout, bank.as_ref(), view, &ctx.tz, ctx.now)
            .map_err(|e| super::views::refused(view, &e))?;
    let stem = format!("payouts-{month}-{}", super::views::file_part(view));
    let written = super::views::write_table(&table, &stem, out.out.as_deref(), formats, out.force)?;
    println!("{}", uc::summary(&tieout, &zone_name(&ctx.tz)));
    super::views::report(&table, tieout.payouts.len(), "payouts", view, &written);
    match (uc::verdict(&tieout), bank.as_ref().map(uc::bank_verdict)) {
        (Err(a), _) => Err(a),
        (Ok(()), Some(b)) => b,
        (Ok(()), None) => Ok(()),
    }
}
