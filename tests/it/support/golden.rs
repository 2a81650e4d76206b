//! Golden files under `tests/golden/`. A mismatch fails with a unified diff; running with
//! `UPDATE_GOLDEN=1` rewrites the files instead (review the diff before committing).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// `tests/golden/<rel>`.
pub fn golden_path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(rel)
}

/// Whether golden files are being rewritten (`UPDATE_GOLDEN=1`).
pub fn updating() -> bool {
    std::env::var("UPDATE_GOLDEN").is_ok_and(|v| v == "1")
}

fn diff(expected: &str, actual: &str, name: &str) -> String {
    similar::TextDiff::from_lines(expected, actual)
        .unified_diff()
        .context_radius(3)
        .header(&format!("golden {name}"), "actual")
        .to_string()
}

/// Text as a diff shows it: CR made visible so CRLF changes are not invisible.
fn showable(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).replace('\r', "\\r")
}

/// Compares bytes with `tests/golden/<rel>` (or rewrites it with `UPDATE_GOLDEN=1`).
#[track_caller]
pub fn assert_golden_bytes(rel: &str, actual: &[u8]) {
    let path = golden_path(rel);
    if updating() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("create the golden folder");
        }
        std::fs::write(&path, actual).expect("write the golden file");
        return;
    }
    let expected = std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "golden file {} cannot be read ({e}); run with UPDATE_GOLDEN=1 to create it",
            path.display()
        )
    });
    if expected != actual {
        panic!(
            "output differs from {} (run with UPDATE_GOLDEN=1 to accept):\n{}",
            path.display(),
            diff(&showable(&expected), &showable(actual), rel)
        );
    }
}

/// Compares text with `tests/golden/<rel>` (or rewrites it with `UPDATE_GOLDEN=1`).
#[track_caller]
pub fn assert_golden(rel: &str, actual: &str) {
    assert_golden_bytes(rel, actual.as_bytes());
}

fn files_in(dir: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(rel) = p.strip_prefix(dir) {
                out.insert(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out
}

/// Compares every file of `actual_dir` with `tests/golden/<rel>/`, and the file lists
/// themselves (a missing or extra file fails). `UPDATE_GOLDEN=1` rewrites the folder.
#[track_caller]
pub fn assert_golden_dir(rel: &str, actual_dir: &Path) {
    let golden = golden_path(rel);
    let actual = files_in(actual_dir);
    if updating() {
        for stale in files_in(&golden).difference(&actual) {
            std::fs::remove_file(golden.join(stale)).expect("remove a stale golden file");
        }
    } else {
        let expected = files_in(&golden);
        assert_eq!(
            expected,
            actual,
            "files in {} differ from the golden folder {} (run with UPDATE_GOLDEN=1 to accept)",
            actual_dir.display(),
            golden.display()
        );
    }
    for name in &actual {
        let bytes = std::fs::read(actual_dir.join(name)).expect("read an output file");
        assert_golden_bytes(&format!("{rel}/{name}"), &bytes);
    }
}

/// Replaces run-specific text (the fake's port, a temp path) by stable placeholders.
pub fn redact(text: &str, replacements: &[(&str, &str)]) -> String {
    replacements
        .iter()
        .filter(|(from, _)| !from.is_empty())
        .fold(text.to_string(), |acc, (from, to)| acc.replace(from, to))
}
