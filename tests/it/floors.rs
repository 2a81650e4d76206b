//! The floors inside the root package: `app` (the use cases) imports neither shell, and
//! the TUI does not reach into the command line. The crate borders below them (core, io)
//! are kept by the compiler; this keeps the last ones.

use std::path::Path;

/// Every `.rs` file under `dir`, with its text.
fn sources(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read_dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("source");
                out.push((path.display().to_string(), text));
            }
        }
    }
    out.sort();
    out
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

/// A clone has no design handbook beside it: sources cite ARCHITECTURE.md, the README or
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
