//! Writers for what tieout hands over: CSV (RFC 4180, spreadsheet-safe), Markdown and
//! JSON exports, and the close packet. Every file is written atomically.

pub mod balance;
pub mod bank;
pub mod close_journal;
pub mod close_packet;
pub mod close_readme;
pub mod columns;
pub mod csv_out;
pub mod drift;
pub mod dunning;
pub mod dunning_since;
pub mod expiring_cards;
pub mod fields;
pub mod fraud_warnings;
pub mod month_lines;
pub mod packet;
pub mod reconciliation;
pub mod recovery;
pub mod recovery_md;
pub mod recovery_summary;
pub mod refunds;

use crate::failure::Failure;

/// The formats a `--format` list names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Formats {
    pub md: bool,
    pub csv: bool,
    pub json: bool,
}

impl Formats {
    /// Parses `md,csv,json` (any subset, any order).
    pub fn parse(list: &str) -> Result<Self, Failure> {
        let mut f = Formats::default();
        for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part {
                "md" | "markdown" => f.md = true,
                "csv" => f.csv = true,
                "json" => f.json = true,
                other => {
                    return Err(Failure::usage(format!(
                        "unknown format '{other}' in --format: use a comma list of md, csv, json"
                    )));
                }
            }
        }
        if !(f.md || f.csv || f.json) {
            return Err(Failure::usage(
                "--format names no format: use a comma list of md, csv, json",
            ));
        }
        Ok(f)
    }
}
