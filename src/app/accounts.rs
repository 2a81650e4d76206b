//! The account map the journal is booked with: `--accounts FILE`, else `accounts.toml` in
//! the config folder, else the built-in default. Shared by `tieout journal`, `tieout
//! close` and the TUI's packet and journal exports, so all of them book alike.

use std::path::{Path, PathBuf};

use crate::failure::Failure;
use tieout_core::journal::{AccountMap, DEFAULT_MAP, MAP_FILE};

/// Where the map in use came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MapSource {
    /// A file (named, or the config folder's).
    File(PathBuf),
    /// No file in the config folder: the built-in default.
    Default,
}

/// The account map's path: `explicit`, else `accounts.toml` in the config folder.
pub fn map_path(explicit: Option<&Path>) -> Option<PathBuf> {
    explicit
        .map(Path::to_path_buf)
        .or_else(|| super::config_dir().map(|d| d.join(MAP_FILE)))
}

/// Reads the account map: the named file (which must exist), the config folder's, or the
/// built-in default when the config folder has none. A malformed map is a usage failure
/// naming the file, line and column.
pub fn read_map(explicit: Option<&Path>) -> Result<(AccountMap, MapSource), Failure> {
    let path = map_path(explicit);
    let (text, source) = match &path {
        Some(p) if p.exists() || explicit.is_some() => (
            std::fs::read_to_string(p)
                .map_err(|e| Failure::usage(format!("could not read {}: {e}", p.display())))?,
            MapSource::File(p.clone()),
        ),
        _ => (DEFAULT_MAP.to_string(), MapSource::Default),
    };
    let map = AccountMap::parse(&text).map_err(|e| {
        let at = match &source {
            MapSource::File(p) => format!("{}: ", p.display()),
            MapSource::Default => String::new(),
        };
        Failure::usage(format!("{at}{e}"))
    })?;
    Ok((map, source))
}
