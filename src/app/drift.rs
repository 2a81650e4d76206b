//! `tieout close --verify DIR --against-stripe`: reads a sealed close packet's own files
//! back, reads its month again (from Stripe, or the cache or demo as the flags say), and
//! writes what changed since it was sealed beside the packet, never inside it:
//! `<DIR>-drift.csv` and the proposed adjusting entries
//! (`<DIR>-drift-entries.beancount`, `<DIR>-drift-entries.hledger.journal`).

use std::path::{Path, PathBuf};

use jiff::tz::TimeZone;

use super::ReadRequest;
use super::load::{Need, load};
use crate::failure::Failure;
use tieout_core::journal::AccountMap;
use tieout_core::report::drift::{self, DriftRow, Sealed};
use tieout_core::time::date_in;

/// What the comparison found and the files it wrote (none when nothing changed).
pub struct Drift {
    pub sealed: Sealed,
    pub rows: Vec<DriftRow>,
    pub written: Vec<PathBuf>,
}

/// Compares the packet in `dir` with the account now; writes the drift files when anything
/// changed (replacing an earlier run's), nothing when not.
pub fn against_stripe(req: &ReadRequest, dir: &Path, map: &AccountMap) -> Result<Drift, Failure> {
    let read = |name: &str| {
        std::fs::read(dir.join(name)).map_err(|e| {
            Failure::usage(format!(
                "{} cannot be read ({e}): --against-stripe compares a close packet written by tieout close, which holds it",
                dir.join(name).display()
            ))
        })
    };
    let sealed = Sealed::parse(
        &read("MANIFEST.json")?,
        &read("reconciliation.json")?,
        &read("balance-rollforward.csv")?,
    )
    .map_err(|e| Failure::data(format!("{}: {e}", dir.display())))?;
    let tz = packet_zone(&read("MANIFEST.json")?).unwrap_or_else(|| req.tz.clone());
    let mut month_req = req.clone();
    month_req.tz = tz.clone();
    let data = load(&month_req, Need::Close(sealed.month))?;
    let balance = tieout_core::report::balance::build(&data, sealed.month, &tz);
    let rows = drift::drift(&sealed, &data, &balance.rollforward, map);
    let mut written = Vec::new();
    if !rows.is_empty() {
        let (bean, led) = drift::entries(&rows, &date_in(req.now, &tz), sealed.month);
        for (suffix, bytes) in [
            ("-drift.csv", drift::drift_csv(&rows)),
            ("-drift-entries.beancount", bean.into_bytes()),
            ("-drift-entries.hledger.journal", led.into_bytes()),
        ] {
            let path = sibling(dir, suffix)?;
            crate::files::write_atomic(&path, &bytes, true)
                .map_err(crate::app::exports::write_failure)?;
            written.push(path);
        }
    }
    Ok(Drift {
        sealed,
        rows,
        written,
    })
}

/// The packet's time zone, as its manifest names it.
fn packet_zone(manifest: &[u8]) -> Option<TimeZone> {
    let v: serde_json::Value = serde_json::from_slice(manifest).ok()?;
    TimeZone::get(v.get("time_zone")?.as_str()?).ok()
}

/// `<parent>/<name><suffix>`: beside the packet folder, never inside it.
fn sibling(dir: &Path, suffix: &str) -> Result<PathBuf, Failure> {
    let abs = super::close::absolute(dir).map_err(Failure::usage)?;
    let name = abs
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| Failure::usage(format!("{} names no folder", dir.display())))?;
    let parent = abs.parent().unwrap_or(Path::new("/"));
    Ok(parent.join(format!("{name}{suffix}")))
}
