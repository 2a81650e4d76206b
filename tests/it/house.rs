//! The house keeps its rooms small: no source file holds more than [`LIMIT`] lines of
//! non-test code (the lines before its first `#[cfg(test)]` module). Test-only files
//! (`tests.rs`, `*_tests.rs`, `testdata.rs`) do not count, and a data table may opt out by
//! saying so in its first line (`//! The ... data table ...`).

use std::path::{Path, PathBuf};

/// The most non-test lines one file may hold.
const LIMIT: usize = 600;

/// Files over the limit that another change is splitting, with the most lines each may
/// hold until then: an entry may only shrink, and goes when its file is under the limit.
const SPLITTING: &[(&str, usize)] = &[];

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// True for a file that holds tests or test rows only.
fn is_test_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name == "tests.rs" || name == "testdata.rs" || name.ends_with("_tests.rs")
}

/// True when the file's first line declares it a data table.
fn is_data_table(text: &str) -> bool {
    text.lines()
        .next()
        .is_some_and(|l| l.starts_with("//!") && l.contains("data table"))
}

/// The lines before the first `#[cfg(test)]` that opens a module.
fn non_test_lines(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    for (n, line) in lines.iter().enumerate() {
        if line.trim() != "#[cfg(test)]" {
            continue;
        }
        let next = lines[n + 1..]
            .iter()
            .map(|l| l.trim())
            .find(|l| !l.starts_with("#[") && !l.is_empty());
        if next.is_some_and(|l| {
            l.starts_with("mod ") || l.starts_with("pub mod ") || l.starts_with("pub(crate) mod ")
        }) {
            return n;
        }
    }
    lines.len()
}

/// The product's source files (the root package's `src` and each member crate's `src`)
/// with their non-test line counts, test-only files and data tables left out.
fn counted_files() -> Vec<(String, usize)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![root.join("src")];
    for krate in std::fs::read_dir(root.join("crates")).expect("crates dir") {
        dirs.push(krate.expect("entry").path().join("src"));
    }
    let mut out = Vec::new();
    for dir in dirs {
        for path in rust_files(&dir) {
            if is_test_file(&path) {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("source");
            if is_data_table(&text) {
                continue;
            }
            let rel = path
                .strip_prefix(root)
                .expect("under the root")
                .to_string_lossy()
                .replace('\\', "/");
            out.push((rel, non_test_lines(&text)));
        }
    }
    out
}

#[test]
fn no_source_file_holds_more_than_six_hundred_lines_of_non_test_code() {
    let over: Vec<String> = counted_files()
        .into_iter()
        .filter(|(path, lines)| {
            let ceiling = SPLITTING
                .iter()
                .find(|(p, _)| p == path)
                .map_or(LIMIT, |(_, c)| *c);
            *lines > ceiling
        })
        .map(|(path, lines)| format!("{path}: {lines} non-test lines"))
        .collect();
    assert!(
        over.is_empty(),
        "files over {LIMIT} lines of non-test code (split them along a seam, or mark a data \
         table in its first line):\n{}",
        over.join("\n")
    );
}

#[test]
fn the_counter_stops_at_the_test_module_and_honours_data_tables() {
    let text = "//! A room.\nfn a() {}\n#[cfg(test)]\nfn helper() {}\nfn b() {}\n#[cfg(test)]\n#[path = \"x_tests.rs\"]\nmod tests;\nfn c() {}\n";
    assert_eq!(non_test_lines(text), 5);
    assert!(is_data_table("//! The decline data table.\n"));
    assert!(!is_data_table("//! A room.\n//! data table\n"));
    assert!(is_test_file(Path::new("a/b_tests.rs")));
    assert!(!is_test_file(Path::new("a/tests_b.rs")));
}
