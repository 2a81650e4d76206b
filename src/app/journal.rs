//! The month's journal as files: built from the month's tie-out with the account map,
//! rendered in the formats asked for, and written as a set into a folder. One code path
//! behind `tieout journal` and the Tie-out tab's journal key (which writes the formats
//! the map's `[close]` section names, like the close packet).

use std::path::{Path, PathBuf};

use jiff::tz::TimeZone;

use crate::domain::tieout::{tie_out_after, tie_out_month};
use crate::failure::{FailKind, Failure};
use crate::model::AccountData;
use crate::time::Month;
use tieout_core::journal::render::File;
use tieout_core::journal::{AccountMap, Format, Journal, Style, build, render};

/// The journal of `month` and its files in `formats`.
pub fn month_files(
    data: &AccountData,
    month: Month,
    tz: &TimeZone,
    map: &AccountMap,
    style: Style,
    formats: &[Format],
) -> Result<(Journal, Vec<File>), Failure> {
    let tieout = tie_out_month(&data.payouts, &data.balance_transactions, month, tz);
    let later = tie_out_after(&data.payouts, &data.balance_transactions, month, tz);
    let mut journal =
        build(&tieout, &later, map, style, tz).map_err(|e| Failure::usage(e.to_string()))?;
    let balance = tieout_core::report::balance::build(data, month, tz);
    let tie = tieout_core::journal::balance_tie::BalanceTieInput::of(data, &balance.rollforward);
    tieout_core::journal::balance_tie::attach(&mut journal, &tie, month, tz);
    let mut files = Vec::new();
    for f in formats {
        files.extend(render(&journal, map, *f).map_err(|e| Failure::usage(e.to_string()))?);
    }
    Ok((journal, files))
}

/// How a journal export into a folder ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JournalExport {
    /// Written into `dir` (absolute): each file and whether it changed.
    Written {
        dir: PathBuf,
        files: Vec<(PathBuf, bool)>,
        entries: usize,
        flagged: usize,
        /// Amounts booked to suspense (the month does not tie out when not zero).
        suspense: usize,
    },
    /// A different file of that name is there and `force` was not given: nothing was
    /// written.
    Exists(PathBuf),
    /// Anything else, in words (nothing was written).
    Failed(String),
}

/// The folder the Tie-out tab writes a month's journal into unless told otherwise.
pub fn default_dir(month: Month) -> PathBuf {
    PathBuf::from(format!("journal-{month}"))
}

/// Writes the journal of `month` in the formats and style of the account map's `[close]`
/// section (the config folder's map, else the default) into `dir`, made absolute against
/// the current folder. A different file already there is kept unless `force`.
pub fn export_month(
    data: &AccountData,
    month: Month,
    tz: &TimeZone,
    dir: &Path,
    force: bool,
) -> JournalExport {
    match try_export(data, month, tz, dir, force) {
        Ok(done) => done,
        Err(f) => JournalExport::Failed(f.message),
    }
}

fn try_export(
    data: &AccountData,
    month: Month,
    tz: &TimeZone,
    dir: &Path,
    force: bool,
) -> Result<JournalExport, Failure> {
    let dir = if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| {
                Failure::other(format!(
                    "could not tell where {} is (the current folder is unreadable: {e})",
                    dir.display()
                ))
            })?
            .join(dir)
    };
    let (map, _) = super::accounts::read_map(None)?;
    let formats = map
        .close_formats()
        .map_err(|e| Failure::usage(e.to_string()))?;
    if formats.is_empty() {
        return Err(Failure::usage(
            "the account map names no journal format (`journal = []` under [close] in accounts.toml): name the formats to write there",
        ));
    }
    let style = map
        .close_style()
        .map_err(|e| Failure::usage(e.to_string()))?;
    let (journal, files) = month_files(data, month, tz, &map, style, &formats)?;
    let named: Vec<(&str, Vec<u8>)> = files.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
    match super::exports::write_exports(&dir, &named, force) {
        Ok(written) => Ok(JournalExport::Written {
            dir,
            files: written,
            entries: journal.entries.len(),
            flagged: journal
                .entries
                .iter()
                .filter(|e| e.review.is_some())
                .count(),
            suspense: journal.suspense.len(),
        }),
        Err(f) if f.kind == FailKind::Usage => Ok(JournalExport::Exists(dir)),
        Err(f) => Err(f),
    }
}
