//! The month-end close packet on disk: a folder of exports plus `MANIFEST.json`. Built in a
//! temporary sibling folder and moved into place, so a failure part-way leaves no half
//! packet and an existing packet is only replaced with `force`. `verify` recomputes the
//! manifest and names every file that changed.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use tieout_core::report::close_packet::{Exported, PacketSpec, build_with};
use tieout_core::report::packet::io as io_error;
pub use tieout_core::report::packet::*;

/// Writes `files` plus the manifest as the packet folder `dir`, atomically.
pub fn write_packet(
    dir: &Path,
    files: &BTreeMap<String, Vec<u8>>,
    manifest: &Manifest,
    force: bool,
) -> Result<(), PacketError> {
    write_packet_with(dir, files, manifest, force, &mut |_| {})
}

/// [`write_packet`], reporting each file as it is written.
pub fn write_packet_with(
    dir: &Path,
    files: &BTreeMap<String, Vec<u8>>,
    manifest: &Manifest,
    force: bool,
    progress: &mut dyn FnMut(Step),
) -> Result<(), PacketError> {
    let has_packet = dir.join(MANIFEST).exists();
    if dir.exists() {
        if has_packet && !force {
            return Err(PacketError::Exists(dir.to_path_buf()));
        }
        let empty = fs::read_dir(dir).map_err(io_error(dir))?.next().is_none();
        if !has_packet && !empty {
            return Err(PacketError::NotEmpty(dir.to_path_buf()));
        }
    }
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&parent).map_err(io_error(&parent))?;
    let staging = super::files::export_dir_builder(".tieout-packet-")
        .tempdir_in(&parent)
        .map_err(io_error(&parent))?;
    let mut all = files.clone();
    let manifest_json = serde_json::to_vec_pretty(manifest).map_err(|e| PacketError::Io {
        path: dir.join(MANIFEST),
        source: std::io::Error::other(e),
    })?;
    all.insert(MANIFEST.to_string(), manifest_json);
    let total = all.len();
    for (i, (name, bytes)) in all.iter().enumerate() {
        progress(Step::Writing {
            name: name.clone(),
            done: i + 1,
            total,
        });
        let path = staging.path().join(name);
        let mut f = fs::File::create(&path).map_err(io_error(&path))?;
        f.write_all(bytes).map_err(io_error(&path))?;
        f.sync_all().map_err(io_error(&path))?;
    }
    progress(Step::Moving);
    let staged = staging.keep();
    // Move the old packet aside, the new one in, then drop the old one.
    let backup = if dir.exists() {
        let b = parent.join(format!(
            ".tieout-packet-old-{}",
            dir.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        ));
        let _ = fs::remove_dir_all(&b);
        fs::rename(dir, &b).map_err(io_error(dir))?;
        Some(b)
    } else {
        None
    };
    if let Err(e) = fs::rename(&staged, dir) {
        if let Some(b) = &backup {
            let _ = fs::rename(b, dir);
        }
        let _ = fs::remove_dir_all(&staged);
        return Err(PacketError::Io {
            path: dir.to_path_buf(),
            source: e,
        });
    }
    if let Some(b) = backup {
        let _ = fs::remove_dir_all(b);
    }
    if let Ok(d) = fs::File::open(&parent) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// What `verify` found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Verification {
    pub ok: Vec<String>,
    pub changed: Vec<String>,
    pub missing: Vec<String>,
    /// Files in the folder that the manifest does not list.
    pub unlisted: Vec<String>,
    /// Entries the manifest lists that a packet cannot hold, each with why: a name that is
    /// not a plain file name inside the folder (a path, `..`), one listed twice, a symbolic
    /// link or anything but a regular file. None of them is read.
    pub refused: Vec<(String, &'static str)>,
}

impl Verification {
    pub fn is_intact(&self) -> bool {
        self.changed.is_empty()
            && self.missing.is_empty()
            && self.unlisted.is_empty()
            && self.refused.is_empty()
    }
}

/// The most a manifest is read: a million entries' worth, far past any packet.
const MAX_MANIFEST_BYTES: u64 = 64 << 20;

/// Reads a packet's manifest: a regular file, at most [`MAX_MANIFEST_BYTES`], no field
/// but the manifest's own.
pub fn read_manifest(dir: &Path) -> Result<Manifest, PacketError> {
    let path = dir.join(MANIFEST);
    let bytes = crate::files::read_input(&path, MAX_MANIFEST_BYTES).map_err(|e| {
        PacketError::BadManifest {
            path: dir.to_path_buf(),
            why: e.to_string(),
        }
    })?;
    serde_json::from_slice(&bytes).map_err(|e| PacketError::BadManifest {
        path: dir.to_path_buf(),
        why: e.to_string(),
    })
}

/// True for a name a packet's file can have: one plain file name inside the folder, not a
/// path (no separator, not `.` or `..`, no drive or NUL).
fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', ':', '\0'])
}

/// Recomputes every file's size and SHA-256 against the manifest. Only plain file names
/// inside `dir` are read, each a regular file (never through a symbolic link), and never
/// more than the size the manifest states plus one byte (a tampered entry naming a
/// device cannot make it read without end).
pub fn verify(dir: &Path) -> Result<(Manifest, Verification), PacketError> {
    let manifest = read_manifest(dir)?;
    let mut v = Verification::default();
    if let Some(why) = manifest.seal_problem() {
        v.refused.push((MANIFEST.to_string(), why));
    }
    let mut seen = std::collections::BTreeSet::new();
    for entry in &manifest.files {
        let name = entry.name.clone();
        if !is_plain_name(&entry.name) {
            v.refused.push((name, "not a file name inside the packet"));
            continue;
        }
        if !seen.insert(entry.name.as_str()) {
            v.refused.push((name, "listed more than once"));
            continue;
        }
        let path = dir.join(&entry.name);
        match fs::symlink_metadata(&path) {
            Err(_) => v.missing.push(name),
            Ok(meta) if meta.file_type().is_symlink() => {
                v.refused
                    .push((name, "a symbolic link, not a file of the packet"));
            }
            Ok(meta) if !meta.is_file() => v.refused.push((name, "not a regular file")),
            // Read no further than the stated size: a larger file has changed.
            Ok(_) => match crate::files::read_input(&path, entry.bytes) {
                Ok(bytes)
                    if sha256_hex(&bytes) == entry.sha256 && bytes.len() as u64 == entry.bytes =>
                {
                    v.ok.push(name);
                }
                Ok(_) | Err(crate::files::ReadError::TooLarge { .. }) => v.changed.push(name),
                Err(_) => v.missing.push(name),
            },
        }
    }
    let listed: std::collections::BTreeSet<&str> =
        manifest.files.iter().map(|e| e.name.as_str()).collect();
    let mut names: Vec<String> = fs::read_dir(dir)
        .map_err(io_error(dir))?
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != MANIFEST && !listed.contains(n.as_str()))
        .collect();
    names.sort();
    v.unlisted = names;
    Ok((manifest, v))
}

/// Builds the packet and writes it as the folder `dir` (atomically; an existing packet
/// is replaced only with `force`), reporting each step.
pub fn export(
    spec: &PacketSpec<'_>,
    dir: &Path,
    force: bool,
    progress: &mut dyn FnMut(Step),
) -> Result<Exported, PacketError> {
    let built = build_with(spec, progress)?;
    write_packet_with(dir, &built.files, &built.manifest, force, progress)?;
    Ok(Exported {
        dir: dir.to_path_buf(),
        manifest: built.manifest,
        summary: built.summary,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(files: &BTreeMap<String, Vec<u8>>) -> Manifest {
        Manifest {
            packet: "tieout close packet".into(),
            month: "2026-10".into(),
            time_zone: "UTC".into(),
            account_id: "acct_x".into(),
            mode: "test".into(),
            origin: "demo".into(),
            api_version: "v".into(),
            tieout_version: "0".into(),
            data_read_at_utc: "2026-11-30T12:00:00Z".into(),
            files: entries(files),
            seal: String::new(),
        }
        .sealed()
    }

    #[test]
    fn writes_verifies_and_detects_changes() {
        let root = tempfile::tempdir().expect("tempdir");
        let dir = root.path().join("close-2026-10");
        let mut files = BTreeMap::new();
        files.insert("a.csv".to_string(), b"x,y\r\n".to_vec());
        files.insert("README.md".to_string(), b"# hi\n".to_vec());
        let m = manifest(&files);
        write_packet(&dir, &files, &m, false).expect("written");
        let (_, v) = verify(&dir).expect("verify");
        assert!(v.is_intact(), "{v:?}");
        assert_eq!(v.ok, vec!["README.md".to_string(), "a.csv".to_string()]);

        // Never replaced without force.
        assert!(matches!(
            write_packet(&dir, &files, &m, false),
            Err(PacketError::Exists(_))
        ));

        fs::write(dir.join("a.csv"), b"x,z\r\n").expect("tamper");
        fs::write(dir.join("extra.txt"), b"?").expect("extra");
        fs::remove_file(dir.join("README.md")).expect("remove");
        let (_, v) = verify(&dir).expect("verify");
        assert_eq!(v.changed, vec!["a.csv".to_string()]);
        assert_eq!(v.missing, vec!["README.md".to_string()]);
        assert_eq!(v.unlisted, vec!["extra.txt".to_string()]);

        // Forced replacement restores a clean packet and leaves no staging folders.
        write_packet(&dir, &files, &m, true).expect("forced");
        let (_, v) = verify(&dir).expect("verify");
        assert!(v.is_intact(), "{v:?}");
        let leftovers: Vec<_> = fs::read_dir(root.path())
            .expect("list")
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(leftovers, vec!["close-2026-10".to_string()]);
    }

    /// The manifest's own fields are sealed: a month or account edited by hand, a seal
    /// removed, or a field added is caught even though every file still matches.
    #[test]
    fn an_edited_manifest_is_caught_though_its_files_match() {
        let root = tempfile::tempdir().expect("tempdir");
        let dir = root.path().join("close-2026-10");
        let mut files = BTreeMap::new();
        files.insert("a.csv".to_string(), b"x,y\r\n".to_vec());
        write_packet(&dir, &files, &manifest(&files), false).expect("written");
        let path = dir.join(MANIFEST);
        let text = fs::read_to_string(&path).expect("manifest");
        assert!(verify(&dir).expect("verify").1.is_intact());

        let refusal = |text: &str| {
            fs::write(&path, text).expect("edit");
            let (_, v) = verify(&dir).expect("verify");
            assert!(!v.is_intact(), "{v:?}");
            assert_eq!(v.ok, vec!["a.csv".to_string()], "the files still match");
            v.refused
                .iter()
                .find(|(n, _)| n == MANIFEST)
                .map(|(_, why)| *why)
                .expect("the manifest refused")
        };
        let edited = text.replace("\"2026-10\"", "\"2026-09\"");
        assert_ne!(edited, text);
        assert!(refusal(&edited).contains("edited after it was written"));
        let mut unsealed: serde_json::Value = serde_json::from_str(&text).expect("json");
        unsealed["seal"] = serde_json::Value::String(String::new());
        assert!(refusal(&unsealed.to_string()).contains("no seal"));

        let mut added: serde_json::Value = serde_json::from_str(&text).expect("json");
        added["approved_by"] = serde_json::Value::String("CFO".into());
        fs::write(&path, added.to_string()).expect("edit");
        assert!(matches!(verify(&dir), Err(PacketError::BadManifest { .. })));
    }

    /// A tampered manifest cannot make verify read outside the packet, read without end,
    /// or pass: paths, `..`, absolute names, duplicates and symbolic links are refused,
    /// even when the hash they carry is right.
    #[test]
    fn verify_reads_only_plain_files_inside_the_packet() {
        let root = tempfile::tempdir().expect("tempdir");
        let outside = root.path().join("outside.txt");
        fs::write(&outside, b"secret").expect("outside");
        let dir = root.path().join("close-2026-10");
        let mut files = BTreeMap::new();
        files.insert("a.csv".to_string(), b"x,y\r\n".to_vec());
        let mut m = manifest(&files);
        write_packet(&dir, &files, &m, false).expect("written");
        let right = |name: &str| ManifestEntry {
            name: name.to_string(),
            bytes: 6,
            sha256: sha256_hex(b"secret"),
        };
        m.files.push(right("../outside.txt"));
        m.files.push(right(outside.to_str().expect("utf8")));
        m.files.push(m.files[0].clone());
        m.files.push(right("link.txt"));
        // Sealed again, as a tamperer who knows the seal would: the entries still fail.
        let m = m.sealed();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&outside, dir.join("link.txt")).expect("symlink");
        fs::write(dir.join(MANIFEST), serde_json::to_vec(&m).expect("json")).expect("manifest");

        let (_, v) = verify(&dir).expect("verify");
        assert!(!v.is_intact(), "{v:?}");
        assert_eq!(v.ok, vec!["a.csv".to_string()]);
        let refused: Vec<&str> = v.refused.iter().map(|(n, _)| n.as_str()).collect();
        assert!(refused.contains(&"../outside.txt"), "{refused:?}");
        assert!(
            refused.contains(&outside.to_str().expect("utf8")),
            "{refused:?}"
        );
        assert!(refused.contains(&"a.csv"), "the duplicate: {refused:?}");
        #[cfg(unix)]
        assert!(refused.contains(&"link.txt"), "{refused:?}");
    }

    /// An entry naming a file larger than the manifest says is read no further than its
    /// stated size plus one byte, and is reported changed.
    #[test]
    fn a_file_larger_than_stated_is_changed_after_a_bounded_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        fs::write(dir.path().join("big.bin"), vec![7u8; 1 << 20]).expect("big");
        assert!(matches!(
            crate::files::read_input(&dir.path().join("big.bin"), 11),
            Err(crate::files::ReadError::TooLarge { .. })
        ));
        #[cfg(unix)]
        {
            // A device the manifest names (here a link to /dev/zero) is never read.
            std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero")).expect("link");
            let mut files = BTreeMap::new();
            files.insert("zero".to_string(), Vec::new());
            let m = manifest(&files);
            fs::write(
                dir.path().join(MANIFEST),
                serde_json::to_vec(&m).expect("json"),
            )
            .expect("manifest");
            let (_, v) = verify(dir.path()).expect("verify");
            assert_eq!(v.refused.len(), 1, "{v:?}");
        }
    }

    #[test]
    fn refuses_a_non_empty_foreign_folder() {
        let root = tempfile::tempdir().expect("tempdir");
        fs::write(root.path().join("thesis.docx"), b"precious").expect("write");
        let files = BTreeMap::new();
        let m = manifest(&files);
        assert!(matches!(
            write_packet(root.path(), &files, &m, true),
            Err(PacketError::NotEmpty(_))
        ));
        assert_eq!(
            fs::read(root.path().join("thesis.docx")).expect("kept"),
            b"precious"
        );
    }
}
