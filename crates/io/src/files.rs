//! Atomic file writes: a temp file in the target folder, fsync, rename. An existing file
//! with different content is never replaced without `force`, so an earlier export is not
//! silently lost; rewriting identical bytes is allowed (re-running is harmless).

use std::fs;
use std::io::{BufRead, BufReader, BufWriter, ErrorKind, Write};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error(
        "{0} already exists with different content; pass --force to replace it, or choose another --out folder"
    )]
    Exists(PathBuf),
    /// The path holds something no export may replace, even with `--force`.
    #[error(
        "{0} is {1}, not a regular file; tieout replaces only a file, never a link's target, a device, a FIFO or a folder: choose another path"
    )]
    NotAFile(PathBuf, &'static str),
    #[error("could not write {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Why an input file (a bank statement, a tickets export) was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("it is {0}, not a regular file: give the path of the export itself")]
    NotAFile(&'static str),
    #[error(
        "it is larger than {limit_mib} MiB, more than tieout reads from one file: split it (by month or by account) and give the parts"
    )]
    TooLarge { limit_mib: u64 },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// The most bytes tieout reads from one input file.
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// Reads an input file: only a regular file (a link is followed to one; a device such as
/// `/dev/zero`, a FIFO or a folder is refused before it is opened), and at most `limit`
/// bytes (a larger file is refused rather than read until memory runs out).
pub fn read_input(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    use std::io::Read;
    let meta = fs::metadata(path)?;
    if !meta.is_file() {
        return Err(ReadError::NotAFile(if meta.is_dir() {
            "a folder"
        } else {
            "a device, FIFO or socket"
        }));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len().min(limit)).unwrap_or(0));
    fs::File::open(path)?
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge {
            limit_mib: limit >> 20,
        });
    }
    Ok(bytes)
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

/// Whether an export may be written at `path`: nothing there, or a regular file (which
/// the caller then compares and replaces only with `force`). A symbolic link, a device,
/// a FIFO, a socket or a folder is refused: reading one to compare could block or never
/// end, and replacing one would replace what is not an export (as root, `/dev/null`).
pub fn check_target(path: &Path) -> Result<(), WriteError> {
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_err(path)(e)),
    };
    let what = if meta.file_type().is_symlink() {
        "a symbolic link"
    } else if meta.is_dir() {
        "a folder"
    } else if meta.is_file() {
        return Ok(());
    } else {
        "a device, FIFO or socket"
    };
    Err(WriteError::NotAFile(path.to_path_buf(), what))
}

/// Writes `bytes` to `path` atomically. Returns `Ok(false)` when the file already held
/// exactly these bytes (nothing written), `Ok(true)` when written. Only a regular file is
/// ever replaced ([`check_target`]).
pub fn write_atomic(path: &Path, bytes: &[u8], force: bool) -> Result<bool, WriteError> {
    let changed = write_set(&[(path.to_path_buf(), bytes)], force)?;
    Ok(changed.first().copied().unwrap_or(false))
}

/// [`write_atomic`] for content made as it is written (a CSV of a million lines is never
/// held in memory): `render` writes the bytes into the writer it is given. It may be
/// called twice, first to compare with an existing file (stopping at the first byte that
/// differs), then to write, so it must write the same bytes each time. The same rules:
/// `Ok(false)` when the file already held exactly these bytes, a different file is
/// replaced only with `force`.
pub fn write_atomic_with<F>(path: &Path, force: bool, render: F) -> Result<bool, WriteError>
where
    F: Fn(&mut dyn Write) -> std::io::Result<()>,
{
    check_target(path)?;
    if let Ok(existing) = fs::File::open(path) {
        let mut cmp = SameAs {
            existing: BufReader::with_capacity(1 << 16, existing),
            scratch: Vec::new(),
            differs: false,
        };
        let rendered = render(&mut cmp);
        if !cmp.differs {
            rendered.map_err(io_err(path))?;
            if cmp.at_end().map_err(io_err(path))? {
                return Ok(false);
            }
        }
        if !force {
            return Err(WriteError::Exists(path.to_path_buf()));
        }
    }
    replace(path, |w| render(w))
}

/// Files written as one set: each is first written in full beside its place (a temp file,
/// fsynced); only when every one of them is written are they moved into place, one rename
/// each. A write that fails (a full disk) leaves every path as it was and removes what it
/// staged, so a set is never half one run's files and half another's. Each path follows
/// [`write_atomic`]'s rules (checked before anything is staged); returns, per path,
/// whether it changed.
pub fn write_set(files: &[(PathBuf, &[u8])], force: bool) -> Result<Vec<bool>, WriteError> {
    let mut changed = Vec::with_capacity(files.len());
    for (path, bytes) in files {
        check_target(path)?;
        let same = match fs::read(path) {
            Ok(existing) if existing == *bytes => true,
            Ok(_) if !force => return Err(WriteError::Exists(path.clone())),
            _ => false,
        };
        changed.push(!same);
    }
    let mut staged = Vec::new();
    for ((path, bytes), changed) in files.iter().zip(&changed) {
        if *changed {
            staged.push((path, stage(path, |w| w.write_all(bytes))?));
        }
    }
    for (path, tmp) in staged {
        persist(path, tmp)?;
    }
    Ok(changed)
}

/// Writes into a temp file beside `path` (buffered), fsyncs it and renames it over `path`.
fn replace(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<bool, WriteError> {
    let tmp = stage(path, write)?;
    persist(path, tmp)?;
    Ok(true)
}

/// The folder `path` goes in (`.` for a bare name).
fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Writes a temp file beside `path` (buffered) and fsyncs it; dropped, it is removed.
fn stage(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<tempfile::NamedTempFile, WriteError> {
    let dir = folder_of(path);
    fs::create_dir_all(&dir).map_err(io_err(&dir))?;
    let mut tmp = export_builder().tempfile_in(&dir).map_err(io_err(&dir))?;
    {
        let mut out = BufWriter::with_capacity(1 << 20, &mut tmp);
        write(&mut out).map_err(io_err(path))?;
        out.flush().map_err(io_err(path))?;
    }
    tmp.as_file().sync_all().map_err(io_err(path))?;
    Ok(tmp)
}

/// Renames a staged file over `path`, and makes the rename durable.
fn persist(path: &Path, tmp: tempfile::NamedTempFile) -> Result<(), WriteError> {
    tmp.persist(path).map_err(|e| WriteError::Io {
        path: path.to_path_buf(),
        source: e.error,
    })?;
    if let Ok(d) = fs::File::open(folder_of(path)) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// A writer that compares what it is given with an existing file's bytes, failing at the
/// first difference (there is no need to render the rest).
struct SameAs<R: BufRead> {
    existing: R,
    scratch: Vec<u8>,
    differs: bool,
}

impl<R: BufRead> SameAs<R> {
    /// Whether the existing file has no bytes left (else the new content is a prefix).
    fn at_end(&mut self) -> std::io::Result<bool> {
        Ok(self.existing.fill_buf()?.is_empty())
    }
}

impl<R: BufRead> Write for SameAs<R> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.scratch.resize(buf.len(), 0);
        let same = match self.existing.read_exact(&mut self.scratch) {
            Ok(()) => self.scratch == buf,
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => false,
            Err(e) => return Err(e),
        };
        if !same {
            self.differs = true;
            return Err(std::io::Error::other("the content differs from the file's"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A link, a FIFO, a device or a folder at the path is refused even with `force`, and
    /// left as it was (the FIFO is not opened: reading it would block).
    #[cfg(unix)]
    #[test]
    fn only_a_regular_file_is_ever_replaced() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("target.txt");
        fs::write(&target, b"keep").expect("target");
        let link = dir.path().join("link.csv");
        std::os::unix::fs::symlink(&target, &link).expect("symlink");
        let fifo = dir.path().join("pipe.csv");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        let folder = dir.path().join("folder.csv");
        fs::create_dir(&folder).expect("folder");
        let mut paths = vec![
            (link.clone(), "a symbolic link"),
            (folder, "a folder"),
            (PathBuf::from("/dev/null"), "a device, FIFO or socket"),
        ];
        if made.is_ok_and(|s| s.success()) {
            paths.push((fifo, "a device, FIFO or socket"));
        }
        for (path, what) in paths {
            for force in [false, true] {
                match write_atomic(&path, b"new", force) {
                    Err(WriteError::NotAFile(p, w)) => {
                        assert_eq!((p, w), (path.clone(), what));
                    }
                    other => panic!("{} (force {force}): {other:?}", path.display()),
                }
                assert!(matches!(
                    write_atomic_with(&path, force, |w| w.write_all(b"new")),
                    Err(WriteError::NotAFile(..))
                ));
            }
        }
        assert_eq!(fs::read(&target).expect("kept"), b"keep");
        assert!(
            fs::symlink_metadata(&link)
                .expect("link")
                .file_type()
                .is_symlink()
        );
    }

    /// An input is read only from a regular file and never past its limit.
    #[test]
    fn inputs_are_regular_files_read_within_a_limit() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("statement.csv");
        fs::write(&p, vec![b'x'; 3 << 20]).expect("write");
        assert_eq!(read_input(&p, 4 << 20).expect("within").len(), 3 << 20);
        let e = read_input(&p, 2 << 20).expect_err("too large");
        assert!(matches!(e, ReadError::TooLarge { limit_mib: 2 }), "{e:?}");
        assert!(matches!(
            read_input(dir.path(), 1 << 20),
            Err(ReadError::NotAFile("a folder"))
        ));
        #[cfg(unix)]
        {
            let link = dir.path().join("zero.csv");
            std::os::unix::fs::symlink("/dev/zero", &link).expect("link");
            let e = read_input(&link, MAX_INPUT_BYTES).expect_err("a device");
            assert!(e.to_string().contains("not a regular file"), "{e}");
        }
    }

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

    #[test]
    fn a_streamed_write_follows_the_same_rules_and_stops_comparing_at_a_difference() {
        use std::cell::Cell;
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("a.csv");
        let calls = Cell::new(0);
        // Written in pieces, as a CSV writer's buffer flushes.
        let pieces = |parts: &'static [&'static [u8]]| {
            let calls = &calls;
            move |w: &mut dyn Write| {
                calls.set(calls.get() + 1);
                parts.iter().try_for_each(|b| w.write_all(b))
            }
        };
        assert!(write_atomic_with(&p, false, pieces(&[b"one", b",two"])).expect("first"));
        assert_eq!(fs::read(&p).expect("read"), b"one,two");
        calls.set(0);
        assert!(!write_atomic_with(&p, false, pieces(&[b"one,", b"two"])).expect("same"));
        assert_eq!(calls.get(), 1, "the same bytes are compared, not written");
        let others: [&'static [&'static [u8]]; 3] = [&[b"one"], &[b"one,two", b"!"], &[b"ONE,two"]];
        for other in others {
            assert!(matches!(
                write_atomic_with(&p, false, pieces(other)),
                Err(WriteError::Exists(_))
            ));
            assert_eq!(fs::read(&p).expect("read"), b"one,two");
        }
        calls.set(0);
        assert!(write_atomic_with(&p, true, pieces(&[b"ONE"])).expect("forced"));
        assert_eq!(calls.get(), 2, "compared, then written");
        assert_eq!(fs::read(&p).expect("read"), b"ONE");
        let failing = |_: &mut dyn Write| Err(std::io::Error::other("render failed"));
        assert!(matches!(
            write_atomic_with(&dir.path().join("b.csv"), false, failing),
            Err(WriteError::Io { .. })
        ));
        assert!(!dir.path().join("b.csv").exists());
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
