//! Writing a set of export files: all of them or none. The one code path behind every
//! command's and pane's `--out` folder.

use std::path::{Path, PathBuf};

use crate::failure::Failure;

/// Writes one command's export files into `dir` as a set (an existing file is never
/// silently overwritten by a different run). Before anything is written, every file
/// that would replace different content without `force` is refused as a usage
/// failure (the message says `--force`), so a refused run never leaves a mix of two runs'
/// files. Identical bytes already on disk count as written. Returns each path and whether
/// it changed.
pub fn write_exports(
    dir: &Path,
    files: &[(&str, Vec<u8>)],
    force: bool,
) -> Result<Vec<(PathBuf, bool)>, Failure> {
    use crate::files::{WriteError, write_atomic};
    let refuse = |e: WriteError| match e {
        WriteError::Exists(_) => Failure::usage(e.to_string()),
        WriteError::Io { .. } => Failure::other(e.to_string()),
    };
    if !force {
        for (name, bytes) in files {
            let path = dir.join(name);
            if let Ok(existing) = std::fs::read(&path)
                && existing != *bytes
            {
                return Err(refuse(WriteError::Exists(path)));
            }
        }
    }
    let mut written = Vec::with_capacity(files.len());
    for (name, bytes) in files {
        let path = dir.join(name);
        let changed = write_atomic(&path, bytes, force).map_err(refuse)?;
        written.push((path, changed));
    }
    Ok(written)
}
