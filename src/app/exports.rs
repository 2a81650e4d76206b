//! Writing export files: a command's set, all of them or none (the one code path behind
//! every command's `--out` folder), and a pane's single file under a free name.

use std::path::{Path, PathBuf};

use crate::failure::Failure;

/// Writes one command's export files into `dir` as a set, all of them or none
/// (`files::write_set`): a file that would replace different content without `force` is
/// refused before anything is written (a usage failure that says `--force`), and a write
/// that fails (a full disk) leaves every file as it was, so a run never leaves a mix of
/// two runs' files. Identical bytes already on disk count as written. Returns each path
/// and whether it changed.
pub fn write_exports(
    dir: &Path,
    files: &[(&str, Vec<u8>)],
    force: bool,
) -> Result<Vec<(PathBuf, bool)>, Failure> {
    let set: Vec<(PathBuf, &[u8])> = files
        .iter()
        .map(|(name, bytes)| (dir.join(name), bytes.as_slice()))
        .collect();
    let changed = crate::files::write_set(&set, force).map_err(write_failure)?;
    Ok(set.into_iter().map(|(path, _)| path).zip(changed).collect())
}

/// A refused or failed export write as the user meets it: a file in the way (`--force`) or
/// a path that is not a file is a usage problem (exit 2), anything else an IO failure.
pub fn write_failure(e: crate::files::WriteError) -> Failure {
    use crate::files::WriteError;
    match e {
        WriteError::Exists(_) | WriteError::NotAFile(..) => Failure::usage(e.to_string()),
        // Every write is staged first: a failure leaves what was on disk as it was.
        WriteError::Io { .. } => Failure::other(format!(
            "{e}; no file was changed (a full disk? free some space or choose another --out folder)"
        )),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A set whose later file cannot be written (here its folder is a file; a full disk
    /// fails the same way) changes none of the files, even with `force`, and leaves no
    /// staged file behind: a re-run of another month never leaves a mix of two runs.
    #[test]
    fn a_set_that_fails_part_way_changes_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("a.csv"), b"october").expect("a");
        std::fs::write(dir.path().join("blocker"), b"a file, not a folder").expect("blocker");
        let files = [
            ("a.csv", b"november".to_vec()),
            ("blocker/b.csv", b"november".to_vec()),
        ];
        let err = write_exports(dir.path(), &files, true).expect_err("b cannot be written");
        assert!(
            err.message.contains("b.csv") || err.message.contains("blocker"),
            "{}",
            err.message
        );
        assert_eq!(
            std::fs::read(dir.path().join("a.csv")).expect("a"),
            b"october"
        );
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, vec!["a.csv".to_string(), "blocker".to_string()]);

        // A set that can be written is, every file.
        let ok = [
            ("a.csv", b"november".to_vec()),
            ("c.csv", b"november".to_vec()),
        ];
        let written = write_exports(dir.path(), &ok, true).expect("written");
        assert_eq!(written.iter().filter(|(_, changed)| *changed).count(), 2);
    }
}
