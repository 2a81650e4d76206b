//! Atomic file writes: a temp file in the target folder, fsync, rename. An existing file
//! with different content is never replaced without `force`, so an earlier export is not
//! silently lost; rewriting identical bytes is allowed (re-running is harmless).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error(
        "{0} already exists with different content; pass --force to replace it, or choose another --out folder"
    )]
    Exists(PathBuf),
    #[error("could not write {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> WriteError + '_ {
    move |source| WriteError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A temp-file builder whose files get the permissions of any file the user creates
/// (0666 less the umask), not the 0600 of a private temp file: an export is meant to be
/// handed over, so it should read like one written by a spreadsheet.
pub(crate) fn export_builder() -> tempfile::Builder<'static, 'static> {
    let mut b = tempfile::Builder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(fs::Permissions::from_mode(0o666));
    }
    b
}

/// The same for a staged folder (a close packet): 0777 less the umask once moved into
/// place, instead of a private temp folder's 0700.
pub(crate) fn export_dir_builder(prefix: &str) -> tempfile::Builder<'_, 'static> {
    let mut b = tempfile::Builder::new();
    b.prefix(prefix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(fs::Permissions::from_mode(0o777));
    }
    b
}

/// Writes `bytes` to `path` atomically. Returns `Ok(false)` when the file already held
/// exactly these bytes (nothing written), `Ok(true)` when written.
pub fn write_atomic(path: &Path, bytes: &[u8], force: bool) -> Result<bool, WriteError> {
    if let Ok(existing) = fs::read(path) {
        if existing == bytes {
            return Ok(false);
        }
        if !force {
            return Err(WriteError::Exists(path.to_path_buf()));
        }
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&dir).map_err(io_err(&dir))?;
    let mut tmp = export_builder().tempfile_in(&dir).map_err(io_err(&dir))?;
    tmp.write_all(bytes).map_err(io_err(path))?;
    tmp.as_file().sync_all().map_err(io_err(path))?;
    tmp.persist(path).map_err(|e| WriteError::Io {
        path: path.to_path_buf(),
        source: e.error,
    })?;
    // Make the rename itself durable.
    if let Ok(d) = fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_to_clobber_different_content_without_force() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("a.csv");
        assert!(write_atomic(&p, b"one", false).expect("first write"));
        assert!(!write_atomic(&p, b"one", false).expect("same bytes"));
        assert!(matches!(
            write_atomic(&p, b"two", false),
            Err(WriteError::Exists(_))
        ));
        assert_eq!(fs::read(&p).expect("read"), b"one");
        assert!(write_atomic(&p, b"two", true).expect("forced"));
        assert_eq!(fs::read(&p).expect("read"), b"two");
    }

    #[cfg(unix)]
    #[test]
    fn exports_get_the_permissions_of_an_ordinary_file_not_a_private_temp_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let ordinary = dir.path().join("ordinary.txt");
        fs::write(&ordinary, b"x").expect("write");
        let export = dir.path().join("export.csv");
        write_atomic(&export, b"a,b\r\n", false).expect("export");
        let mode = |p: &Path| fs::metadata(p).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode(&export), mode(&ordinary));
        let ordinary_dir = dir.path().join("ordinary");
        fs::create_dir(&ordinary_dir).expect("mkdir");
        let staged = export_dir_builder(".t-")
            .tempdir_in(dir.path())
            .expect("staged")
            .keep();
        assert_eq!(mode(&staged), mode(&ordinary_dir));
    }
}
