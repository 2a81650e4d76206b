//! `tieout balance`: the month's Stripe balance roll-forward per currency (issue 33) as
//! balance-rollforward.csv, balance-activity.csv, fees.csv, conversions.csv, balance.md
//! and balance.json,
//! then a line per currency and the paths written. Exits 5 when a figure does not tie
//! (the files are still written).

use std::path::PathBuf;

use clap::Args;

use super::{CmdResult, Ctx, Failure, Formats, OutArgs};
use crate::app::balance as use_case;
use crate::report::balance::{self as export, BalanceReport, major_i128};
use crate::time::Month;

pub const ROLLFORWARD_CSV: &str = "balance-rollforward.csv";
pub const ACTIVITY_CSV: &str = "balance-activity.csv";
pub const FEES_CSV: &str = "fees.csv";
pub const CONVERSIONS_CSV: &str = "conversions.csv";
pub const MD_NAME: &str = "balance.md";
pub const JSON_NAME: &str = "balance.json";

/// `tieout balance`'s own options.
#[derive(Debug, Clone, Args)]
pub struct BalanceArgs {
    /// The month, YYYY-MM (lines created in it, in --tz).
    #[arg(long, value_name = "YYYY-MM", value_parser = <Month as std::str::FromStr>::from_str)]
    pub month: Month,
    #[command(flatten)]
    pub out: OutArgs,
}

pub fn run(ctx: &Ctx, args: &BalanceArgs) -> CmdResult {
    let formats = Formats::parse(&args.out.format)?;
    let request = ctx.request();
    let data = use_case::load(&request, args.month)?;
    let r = use_case::build(&request, &data, args.month);
    let dir = args.out.out.clone().unwrap_or_else(|| PathBuf::from("."));
    let written = super::write_exports(&dir, &files(&r, formats), args.out.force)?;
    for l in summary(&r) {
        println!("{l}");
    }
    for (p, _) in written {
        println!("{}", p.display());
    }
    if r.ties() {
        Ok(())
    } else {
        Err(Failure::data(
            "the balance does not tie: see the difference columns",
        ))
    }
}

/// The chosen files' names and bytes.
pub fn files(r: &BalanceReport, formats: Formats) -> Vec<(&'static str, Vec<u8>)> {
    let mut files: Vec<(&str, Vec<u8>)> = Vec::new();
    if formats.md {
        files.push((MD_NAME, export::markdown(r).into_bytes()));
    }
    if formats.csv {
        files.push((ROLLFORWARD_CSV, export::rollforward_csv(r)));
        files.push((ACTIVITY_CSV, export::activity_csv(r)));
        files.push((FEES_CSV, export::fees_csv(r)));
        files.push((CONVERSIONS_CSV, export::conversions_csv(r)));
    }
    if formats.json {
        files.push((JSON_NAME, export::json(r)));
    }
    files
}

/// One line per currency: `USD: 100.00 + 50.00 activity + -40.00 payouts = 110.00`.
fn summary(r: &BalanceReport) -> Vec<String> {
    let mut out = vec![format!("Stripe balance roll-forward, {}:", r.month)];
    if r.rollforward.is_empty() {
        out.push("no balance transaction in or before this month".to_string());
    }
    for f in &r.rollforward {
        let c = f.currency;
        let mut line = format!(
            "{}: {} opening + {} activity + {} payouts = {} closing ({} pending)",
            c.upper(),
            major_i128(f.opening, c),
            major_i128(f.activity, c),
            major_i128(f.payouts, c),
            major_i128(f.closing, c),
            major_i128(f.closing_pending, c),
        );
        if let (Some(sb), Some(d)) = (f.stripe_balance, f.difference) {
            line.push_str(&format!(
                "; Stripe's balance {}, difference {}",
                major_i128(sb, c),
                major_i128(d, c)
            ));
        }
        if let Some(d) = f.opening_difference {
            line.push_str(&format!(
                "; opening summed and derived differ by {}",
                major_i128(d, c)
            ));
        }
        out.push(line);
    }
    out
}
