//! The floors inside the root package: `app` (the use cases) imports neither shell, and
//! the TUI does not reach into the command line. The crate borders below them (core, io)
//! are kept by the compiler; this keeps the last ones.

use std::path::Path;

/// Every `.rs` file under `dir`, with its text.
fn sources(dir: &Path) -> Vec<(String, String)> {
    crate::support::rust_files(dir)
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("source");
            (path.display().to_string(), text)
        })
        .collect()
}

fn package(dir: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)
}

/// The lines of `dir`'s sources that name a module of a floor above it.
fn back_edges(root: &Path, above: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for (path, text) in sources(root) {
        for (n, line) in text.lines().enumerate() {
            for module in above {
                if line.contains(&format!("crate::{module}::"))
                    || line.contains(&format!("crate::{module};"))
                    || line.contains(&format!("crate::{{{module}"))
                {
                    found.push(format!("{path}:{}: {}", n + 1, line.trim()));
                }
            }
        }
    }
    found
}

#[test]
fn the_use_cases_import_no_shell() {
    let found = back_edges(&package("src/app"), &["cli", "tui"]);
    assert!(
        found.is_empty(),
        "app imports a shell:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_tui_does_not_reach_into_the_command_line() {
    let found = back_edges(&package("src/tui"), &["cli"]);
    assert!(found.is_empty(), "tui imports cli:\n{}", found.join("\n"));
}

#[test]
fn the_check_finds_a_planted_back_edge() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("panes")).expect("mkdir");
    std::fs::write(
        dir.path().join("panes/m.rs"),
        "use crate::cli::Ctx;\nuse crate::app;\n",
    )
    .expect("write");
    std::fs::write(dir.path().join("n.rs"), "use crate::{tui, money};\n").expect("write");
    let found = back_edges(dir.path(), &["cli", "tui"]);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found[0].ends_with("n.rs:1: use crate::{tui, money};"),
        "{found:?}"
    );
    assert!(
        found[1].ends_with("m.rs:1: use crate::cli::Ctx;"),
        "{found:?}"
    );
}

/// A clone has no design handbook beside it: sources cite ARCHITECTURE.md, RULES.md, the README or
/// SECURITY.md, never a document outside the repository.
#[test]
fn sources_cite_only_documents_in_the_repository() {
    let outside = [
        "DESIGN.md",
        "DESIGN §",
        "stripe-api-notes",
        "../shared",
        "tui-anchors",
    ];
    let mut found = Vec::new();
    for dir in ["src", "crates", "tests/it", "benches", "examples"] {
        for (path, text) in sources(&package(dir)) {
            if path.ends_with("floors.rs") {
                continue;
            }
            for (n, line) in text.lines().enumerate() {
                if outside.iter().any(|o| line.contains(o)) {
                    found.push(format!("{path}:{}: {}", n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "cites a document outside the repository:\n{}",
        found.join("\n")
    );
}

// ---- scripts/check-unused-deps.sh, on a planted workspace ------------------------------

/// Writes `files` (path, text) under a temporary directory and runs the dependency check
/// on it: its exit code and everything it printed.
fn check_deps(files: &[(&str, &str)]) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
    }
    let out = std::process::Command::new("bash")
        .arg(package("scripts/check-unused-deps.sh"))
        .arg(dir.path())
        .output()
        .expect("bash runs the script");
    (
        out.status.code(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// A workspace of two members whose every dependency is used: a target table, a
/// `package =` rename, an absolute path, a dev-dependency used by a test only.
const CLEAN: &[(&str, &str)] = &[
    (
        "Cargo.toml",
        "[package]\nname = \"planted\"\n\n[dependencies]\nserde = { workspace = true }\n\
         json = { package = \"serde_json\", version = \"1\" }\n\n[dev-dependencies]\n\
         proptest.workspace = true\n\n[workspace]\nmembers = [\n  \".\",\n  \"crates/a\",\n]\n\n\
         [workspace.dependencies]\nserde = \"1\"\nproptest = \"1\"\n",
    ),
    (
        "src/lib.rs",
        "//! Uses serde and json.\nuse serde::Serialize;\npub fn f() -> json::Value { ::json::Value::Null }\n",
    ),
    ("tests/t.rs", "use proptest::prelude::*;\n"),
    (
        "crates/a/Cargo.toml",
        "[package]\nname = \"planted-a\"\n\n[target.'cfg(unix)'.dependencies]\nfoo-bar = \"1\"\n",
    ),
    ("crates/a/src/lib.rs", "pub use foo_bar::Thing;\n"),
];

/// [`CLEAN`] with `file` replaced (or added).
fn planted(file: &str, text: &str) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = CLEAN
        .iter()
        .filter(|(p, _)| *p != file)
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
    files.push((file.to_string(), text.to_string()));
    files
}

fn check_planted(files: &[(String, String)]) -> (Option<i32>, String) {
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    check_deps(&refs)
}

#[test]
fn the_deps_check_passes_a_workspace_that_uses_every_dependency() {
    let (code, out) = check_deps(CLEAN);
    assert_eq!(code, Some(0), "{out}");
}

#[test]
fn the_deps_check_names_a_planted_unused_dependency_and_its_crate() {
    let files = planted(
        "crates/a/Cargo.toml",
        "[package]\nname = \"planted-a\"\n\n[dependencies]\nleft-pad = \"1\"\n\n\
         [target.'cfg(unix)'.dependencies]\nfoo-bar = \"1\"\n",
    );
    // A mention in a comment or a string is not a use.
    let mut files = files;
    files.push((
        "crates/a/src/pad.rs".into(),
        "//! left_pad would do this.\nconst S: &str = \"left_pad\";\n".into(),
    ));
    let (code, out) = check_planted(&files);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("planted-a: [dependencies] left-pad is not used in src/"),
        "{out}"
    );
    assert_eq!(out.matches("unused-deps:").count(), 1, "{out}");
}

#[test]
fn the_deps_check_sends_a_test_only_dependency_to_dev_dependencies() {
    let files = planted(
        "Cargo.toml",
        "[package]\nname = \"planted\"\n\n[dependencies]\nserde = { workspace = true }\n\
         json = { package = \"serde_json\", version = \"1\" }\nproptest.workspace = true\n\n\
         [workspace]\nmembers = [\".\", \"crates/a\"]\n\n\
         [workspace.dependencies]\nserde = \"1\"\nproptest = \"1\"\nrand = \"0.9\"\n",
    );
    let (code, out) = check_planted(&files);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(
            "planted: [dependencies] proptest is used only by tests, benches or examples: \
             move it to [dev-dependencies]"
        ),
        "{out}"
    );
    assert!(
        out.contains("[workspace.dependencies] rand is inherited by no member"),
        "{out}"
    );
}

#[test]
fn every_dependency_of_the_workspace_is_used() {
    let out = std::process::Command::new("bash")
        .arg(package("scripts/check-unused-deps.sh"))
        .output()
        .expect("bash runs the script");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
