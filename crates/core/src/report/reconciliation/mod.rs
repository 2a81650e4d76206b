//! The tie-out exports of a month: `payout-reconciliation.csv` (one row per balance
//! transaction paid out), `reconciliation.md` (for people) and `reconciliation.json` (for
//! scripts, minor units). Rendering is pure and byte-deterministic: the same tie-out and
//! header always give the same bytes; writing is the caller's job
//! ([`crate::report::files::write_atomic`]).

mod csv;
mod json;
mod markdown;

use crate::domain::tieout::MonthTieOut;
use crate::model::{Mode, Origin, SnapshotMeta};
use crate::report::Formats;

pub use csv::{PaidLine, columns as line_columns, csv, csv_to};
pub use json::json;
pub use markdown::markdown;

pub const CSV_FILE: &str = "payout-reconciliation.csv";
pub const MD_FILE: &str = "reconciliation.md";
pub const JSON_FILE: &str = "reconciliation.json";

/// What the reports say about where the figures came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportHeader {
    pub account_id: String,
    pub account_name: Option<String>,
    pub mode: Mode,
    pub origin: Origin,
    /// When the data was read from Stripe (for the demo: when it was generated).
    pub read_at: i64,
    /// The time zone the month was cut in, as the user named it (`UTC`, `Europe/Berlin`).
    pub time_zone: String,
}

impl ReportHeader {
    pub fn from_meta(meta: &SnapshotMeta, time_zone: &str) -> Self {
        Self {
            account_id: meta.account_id.clone(),
            account_name: meta.account_name.clone(),
            mode: meta.mode,
            origin: meta.origin,
            read_at: meta.fetched_at,
            time_zone: time_zone.to_string(),
        }
    }
}

/// The files of the chosen formats, as (file name, bytes), in CSV, Markdown, JSON order.
pub fn render(
    tieout: &MonthTieOut,
    header: &ReportHeader,
    formats: Formats,
) -> Vec<(&'static str, Vec<u8>)> {
    let mut files = Vec::new();
    if formats.csv {
        files.push((CSV_FILE, csv(tieout)));
    }
    if formats.md {
        files.push((MD_FILE, markdown(tieout, header).into_bytes()));
    }
    if formats.json {
        files.push((JSON_FILE, json(tieout, header)));
    }
    files
}

#[cfg(test)]
mod tests;
