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
    use crate::files::{WriteError, check_target, write_atomic};
    let refuse = write_failure;
    for (name, _) in files {
        check_target(&dir.join(name)).map_err(refuse)?;
    }
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

/// A refused or failed export write as the user meets it: a file in the way (`--force`) or
/// a path that is not a file is a usage problem (exit 2), anything else an IO failure.
pub fn write_failure(e: crate::files::WriteError) -> Failure {
    use crate::files::WriteError;
    match e {
        WriteError::Exists(_) | WriteError::NotAFile(..) => Failure::usage(e.to_string()),
        WriteError::Io { .. } => Failure::other(e.to_string()),
    }
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
