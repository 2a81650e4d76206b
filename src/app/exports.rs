//! Writing export files: a command's set, all of them or none (the one code path behind
//! every command's `--out` folder), and a pane's single file under a free name.

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

/// Writes to `path`, or to `name-2.ext`, `name-3.ext`, ... when an earlier, different
/// file is there (an export from a pane never replaces another).
pub fn write_new(path: &Path, bytes: &[u8]) -> Result<PathBuf, String> {
    use crate::files::{WriteError, write_atomic};
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ext = path
        .extension()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut candidate = path.to_path_buf();
    for n in 2..=100 {
        match write_atomic(&candidate, bytes, false) {
            Ok(_) => return Ok(candidate),
            Err(WriteError::Exists(_)) => {
                candidate = path.with_file_name(format!("{stem}-{n}.{ext}"));
            }
            Err(e) => return Err(e.to_string()),
        }
    }
    Err(format!(
        "could not find a free name next to {}",
        path.display()
    ))
}
