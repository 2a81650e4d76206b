//! `tieout bank-profile --guess FILE`: prints a commented bank CSV profile guessed from an
//! export's first lines (see [`crate::bank::csv::guess`]), for the user to check and add
//! to `bank.toml`; nothing is written and Stripe is not asked.

use std::path::PathBuf;

use clap::Args;

use super::{CmdResult, Failure};

#[derive(Debug, Clone, Args)]
pub struct BankProfileArgs {
    /// The CSV export to guess a profile for.
    #[arg(long, value_name = "FILE")]
    pub guess: PathBuf,
    /// The profile's name in the printed table (then --bank-profile NAME).
    #[arg(long, value_name = "NAME", default_value = "mybank")]
    pub name: String,
    /// The account's currency, when the export names none.
    #[arg(long, value_name = "CODE")]
    pub currency: Option<String>,
}

pub fn run(args: &BankProfileArgs) -> CmdResult {
    let path = &args.guess;
    let bytes = crate::files::read_input(path, crate::files::MAX_INPUT_BYTES)
        .map_err(|e| Failure::usage(format!("--guess {}: {e}", path.display())))?;
    if let Some(c) = &args.currency {
        crate::money::Currency::parse(c).map_err(|_| {
            Failure::usage(format!(
                "--currency: a three-letter currency code such as EUR, found '{c}'"
            ))
        })?;
    }
    let name = path.display().to_string();
    let guess = crate::bank::csv::guess::guess(&name, &bytes, args.currency.as_deref())
        .map_err(|e| Failure::usage(format!("bank-profile --guess: {e}")))?;
    print!("{}", guess.to_toml(&args.name, &name));
    Ok(())
}
