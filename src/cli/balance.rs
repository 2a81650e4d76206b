//! `tieout balance`: the month's Stripe balance roll-forward per currency (issue 33) as
//! balance-rollforward.csv, balance-activity.csv, fees.csv, conversions.csv, balance.md
//! and balance.json,
//! then a line per currency and the paths written. Exits 5 when a figure does not tie
//! (the files are still written).

use std::path::PathBuf;

use clap::Args;

use super::{CmdResult, Ctx, Failure, Formats, OutArgs};
use crate::app::balance as use_case;
use crate::report::balance::{self as export, BalanceReport};
use crate::time::Month;

pub use crate::report::balance::{
    ACTIVITY_CSV, CONVERSIONS_CSV, FEES_CSV, JSON_NAME, MD_NAME, ROLLFORWARD_CSV,
};

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
    for l in export::summary(&r) {
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
    export::files(r, formats)
}
