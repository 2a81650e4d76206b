//! `tieout recovery`: the recovery picture of failed payments (issue 36) as recovery.md,
//! recovery.csv, recovery-invoices.csv, recovery-leaks.csv and recovery.json, then a line
//! per currency on stdout and the paths written.

use std::path::{Path, PathBuf};

use clap::Args;

use super::{CmdResult, Ctx, Failure, Formats, OutArgs};
use crate::app::recovery as use_case;
use crate::domain::recovery::cohorts::percent;
use crate::domain::recovery::{Outcome, Recovery};
use crate::model::AccountData;
use crate::money::{Currency, format_major_i128 as major_i128};
use crate::report::{recovery as export, recovery_md};

pub const MD_NAME: &str = "recovery.md";
pub const CSV_NAME: &str = "recovery.csv";
pub const INVOICES_CSV_NAME: &str = "recovery-invoices.csv";
pub const LEAKS_CSV_NAME: &str = "recovery-leaks.csv";
pub const JSON_NAME: &str = "recovery.json";

/// `tieout recovery`'s own options.
#[derive(Debug, Clone, Args)]
pub struct RecoveryArgs {
    /// How many months of failures (by the month of each invoice's first failed attempt,
    /// in --tz), counting the current one.
    #[arg(long, default_value_t = use_case::DEFAULT_MONTHS, value_name = "N")]
    pub months: u32,
    #[command(flatten)]
    pub out: OutArgs,
}

pub fn run(ctx: &Ctx, args: &RecoveryArgs) -> CmdResult {
    let formats = Formats::parse(&args.out.format)?;
    let request = ctx.request();
    let window = use_case::window(&request, args.months)?;
    let data = use_case::load(&request, &window)?;
    let r = use_case::build(&request, &data, &window);
    let lines = write(
        ctx,
        &data,
        &r,
        args.out.out.as_deref(),
        formats,
        args.out.force,
    )?;
    for l in lines {
        println!("{l}");
    }
    Ok(())
}

/// Writes the chosen files into `dir` (the current folder when `None`), all or none, and
/// returns the lines to print: one per currency, then each path.
pub fn write(
    ctx: &Ctx,
    data: &AccountData,
    r: &Recovery,
    dir: Option<&Path>,
    formats: Formats,
    force: bool,
) -> Result<Vec<String>, Failure> {
    let dir = dir
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let mut files: Vec<(&str, Vec<u8>)> = Vec::new();
    if formats.md {
        let zone = crate::time::zone_name(&ctx.tz);
        files.push((
            MD_NAME,
            recovery_md::markdown(r, &data.meta, ctx.now, &zone).into_bytes(),
        ));
    }
    if formats.csv {
        files.push((CSV_NAME, export::cohorts_csv(r)));
        files.push((INVOICES_CSV_NAME, export::invoices_csv(r)));
        files.push((LEAKS_CSV_NAME, export::leaks_csv(r)));
    }
    if formats.json {
        files.push((JSON_NAME, export::json(r, &data.meta, ctx.now)));
    }
    let written = super::write_exports(&dir, &files, force)?;
    let mut out = summary(r);
    out.extend(written.into_iter().map(|(p, _)| p.display().to_string()));
    Ok(out)
}

/// One line per currency: `USD: 12 of 20 failed invoices recovered (60%), 1234.00 USD of
/// 2345.00 USD; 3 leaks.` Summed from the invoice rows in i128, so no total is clamped.
fn summary(r: &Recovery) -> Vec<String> {
    let mut by: std::collections::BTreeMap<&str, (Currency, [usize; 2], [i128; 2])> =
        Default::default();
    for inv in &r.invoices {
        let e = by
            .entry(inv.currency.as_str())
            .or_insert((inv.currency, [0; 2], [0; 2]));
        e.1[0] += 1;
        e.2[0] += i128::from(inv.amount_due);
        if matches!(inv.outcome, Outcome::Recovered(_)) {
            e.1[1] += 1;
            e.2[1] += i128::from(inv.amount_due);
        }
    }
    let mut out = vec![format!(
        "Recovery of payments that first failed {} to {}:",
        r.window.first, r.window.last
    )];
    if by.is_empty() {
        out.push("no invoice had a failed payment attempt".to_string());
    }
    for (cur, counts, amounts) in by.values() {
        out.push(format!(
            "{}: {} of {} failed invoices recovered ({}), {} {cur} of {} {cur}",
            cur.upper(),
            counts[1],
            counts[0],
            percent(counts[1], counts[0]).map_or_else(|| "–".to_string(), |p| format!("{p}%")),
            major_i128(amounts[1], *cur),
            major_i128(amounts[0], *cur),
        ));
    }
    out.push(format!("{} leaks", r.leaks.len()));
    out
}
