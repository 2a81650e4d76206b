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
    let mut tmp = tempfile::NamedTempFile::new_in(&dir).map_err(io_err(&dir))?;
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
}
