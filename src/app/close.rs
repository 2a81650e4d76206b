//! The month-end close packet, for both shells: `tieout close` and the Tie-out tab's
//! export build and write it here, from the same inputs (the month, the account's data,
//! the clock and zone, the account map, the bank statements), so the two cannot differ.
//! The packet is staged and moved into place (no half packet is ever left); an existing
//! packet is replaced only with `force`. `verify` checks a packet against its manifest.

use std::path::{Path, PathBuf};

use jiff::tz::TimeZone;

use crate::bank::BankLine;
use crate::failure::Failure;
use crate::model::AccountData;
use crate::report::close_packet::PacketSpec;
use crate::report::packet::{Manifest, PacketError};
use crate::time::{Month, zone_name};
use tieout_core::journal::AccountMap;

/// What a close packet is built from.
pub struct CloseRequest<'a> {
    pub month: Month,
    pub data: &'a AccountData,
    pub now: i64,
    pub tz: &'a TimeZone,
    pub accounts: &'a AccountMap,
    /// The bank statements' lines: the packet gains the bank leg.
    pub bank: Option<&'a [BankLine]>,
}

/// A packet written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub dir: PathBuf,
    /// How many files the manifest lists.
    pub files: usize,
    /// The packet's summary lines (what `tieout close` prints).
    pub summary: Vec<String>,
}

/// Builds the packet for `req` and writes it as the folder `dir`, reporting each step in
/// words.
pub fn write(
    req: &CloseRequest<'_>,
    dir: &Path,
    force: bool,
    progress: &mut dyn FnMut(String),
) -> Result<Written, PacketError> {
    let zone = zone_name(req.tz);
    let spec = PacketSpec {
        month: req.month,
        data: req.data,
        now: req.now,
        tz: req.tz,
        zone: &zone,
        accounts: req.accounts,
        bank: req.bank,
    };
    let done =
        crate::packet_dir::export(&spec, dir, force, &mut |step| progress(step.to_string()))?;
    Ok(Written {
        dir: done.dir,
        files: done.manifest.files.len(),
        summary: done.summary,
    })
}

/// A packet problem as a command failure.
pub fn failure(e: PacketError) -> Failure {
    match e {
        PacketError::Data(m) => Failure::data(m),
        // The account map does not fit the month: fix the map (or leave the journal out).
        PacketError::Journal(m) => Failure::usage(m),
        // Like any export refused because files are there: a usage problem (2).
        e @ (PacketError::Exists(_) | PacketError::NotEmpty(_)) => Failure::usage(e.to_string()),
        other => Failure::other(other.to_string()),
    }
}

/// What [`verify`] found.
pub struct Verified {
    pub manifest: Manifest,
    pub changed: Vec<String>,
    pub missing: Vec<String>,
    pub unlisted: Vec<String>,
    /// Entries no packet can hold (a path out of the folder, a duplicate, a link), with why.
    pub refused: Vec<(String, &'static str)>,
}

impl Verified {
    pub fn is_intact(&self) -> bool {
        self.changed.is_empty()
            && self.missing.is_empty()
            && self.unlisted.is_empty()
            && self.refused.is_empty()
    }
}

/// Checks the packet in `dir` against its manifest.
pub fn verify(dir: &Path) -> Result<Verified, Failure> {
    let (manifest, v) =
        crate::packet_dir::verify(dir).map_err(|e| Failure::usage(e.to_string()))?;
    Ok(Verified {
        manifest,
        changed: v.changed,
        missing: v.missing,
        unlisted: v.unlisted,
        refused: v.refused,
    })
}

/// `data`, with the payouts of `month` read by `read_month` when `data` was read for
/// other months (the packet of any month, as `tieout close` reads it).
pub fn with_month(
    data: &std::sync::Arc<AccountData>,
    month: Month,
    tz: &TimeZone,
    read_month: impl FnOnce() -> Result<AccountData, String>,
) -> Result<std::sync::Arc<AccountData>, String> {
    if data.meta.window_end <= data.meta.window_start || super::load::covers(&data.meta, month, tz)
    {
        return Ok(data.clone());
    }
    let month_data = read_month()?;
    Ok(std::sync::Arc::new(super::load::with_month(
        data, month_data,
    )))
}

/// `dir` made absolute against the current folder (a packet written from the workbench
/// says where it went).
pub fn absolute(dir: &Path) -> Result<PathBuf, String> {
    if dir.is_absolute() {
        return Ok(dir.to_path_buf());
    }
    std::env::current_dir()
        .map(|cwd| cwd.join(dir))
        .map_err(|e| {
            format!(
                "could not tell where {} is (the current folder is unreadable: {e}); give an absolute folder",
                dir.display()
            )
        })
}
