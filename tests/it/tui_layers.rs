//! The TUI's layers: it reads the account only through the use cases (`app`), never an IO
//! floor type (the Stripe client, the snapshot, the SQL engine, files on disk), and its
//! modules form no import cycle beyond one module's own files: the vocabulary (actions,
//! requests, messages, tab names) at the bottom, the pane registry and the shell's state
//! at the top. The test harness and sample account (`harness.rs`, `sample.rs`, `svg.rs`)
//! and test code may reach below.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The IO floor's modules as the root package names them, and the crate itself.
const IO_PATHS: &[&str] = &[
    "crate::source",
    "crate::stripe",
    "crate::query",
    "crate::files",
    "crate::packet_dir",
    "crate::secrets",
    "tieout_io",
    "tieout::source",
    "tieout::stripe",
];

/// Files that drive the TUI for tests and screenshots, or hold tests only.
fn is_test_only(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    matches!(name, "harness.rs" | "sample.rs" | "svg.rs" | "tests.rs")
        || name.ends_with("_tests.rs")
}

/// Every product `.rs` file under `dir` with its text, test modules removed.
fn product_sources(dir: &Path) -> Vec<(PathBuf, String)> {
    crate::support::rust_files(dir)
        .into_iter()
        .filter(|path| !is_test_only(path))
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("source");
            let product = without_test_modules(&text);
            (path, product)
        })
        .collect()
}

/// `text` without its comments and its `#[cfg(test)]` modules (matched by their braces,
/// strings and character literals skipped).
fn without_test_modules(text: &str) -> String {
    let text = without_comments(text);
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("#[cfg(test)]") {
        let after = &rest[at + "#[cfg(test)]".len()..];
        let trimmed = after.trim_start();
        let is_module = trimmed.starts_with("mod ") || trimmed.starts_with("pub mod ");
        out.push_str(&rest[..at]);
        if !is_module {
            out.push_str("#[cfg(test)]");
            rest = after;
            continue;
        }
        let header_end = after.find(['{', ';']).unwrap_or(after.len());
        if after[header_end..].starts_with(';') {
            // `#[cfg(test)] mod tests;`: the module is its own file.
            rest = &after[header_end + 1..];
            continue;
        }
        let body = &after[header_end..];
        rest = &body[block_len(body)..];
    }
    out.push_str(rest);
    out
}

/// The length of the `{ … }` block `s` starts with.
fn block_len(s: &str) -> usize {
    let bytes = s.as_bytes();
    let (mut depth, mut i) = (0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'\'' if i + 2 < bytes.len() && (bytes[i + 2] == b'\'' || bytes[i + 1] == b'\\') => {
                i += if bytes[i + 1] == b'\\' { 3 } else { 2 };
            }
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    s.len()
}

/// `text` without `//` comments (doc comments included).
fn without_comments(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(at) if !l[..at].contains('"') => &l[..at],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The lines of the TUI's product code that name an IO floor path.
fn io_paths(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for (path, text) in product_sources(root) {
        for (n, line) in text.lines().enumerate() {
            let flat: String = line.split_whitespace().collect();
            for io in IO_PATHS {
                let (krate, module) = io.split_once("::").unwrap_or((io, ""));
                let grouped = !module.is_empty()
                    && flat.contains(&format!("{krate}::{{"))
                    && flat.contains(module);
                if flat.contains(&format!("{io}::")) || flat.contains(&format!("{io};")) || grouped
                {
                    found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                }
            }
        }
    }
    found
}

fn tui_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tui")
}

#[test]
fn the_tui_names_no_io_type() {
    let found = io_paths(&tui_dir());
    assert!(
        found.is_empty(),
        "the TUI reaches the IO floor; go through `app` instead:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_io_check_finds_a_planted_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("a.rs"),
        "use crate::money::Money;\nuse crate::{source, time};\n// crate::stripe in a comment\n#[cfg(test)]\nmod tests {\n    use crate::stripe::Client;\n}\n",
    )
    .expect("write");
    std::fs::write(
        dir.path().join("b.rs"),
        "fn f() { crate::query::Engine::x(); }\n",
    )
    .expect("write");
    let found = io_paths(dir.path());
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].ends_with("a.rs:2: use crate::{source, time};"));
    assert!(found[1].ends_with("b.rs:1: fn f() { crate::query::Engine::x(); }"));
}

/// The module path of a file under `src/` (`tui::panes::tieout` for
/// `src/tui/panes/tieout/mod.rs`).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file
        .strip_prefix(src)
        .expect("under src")
        .with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// Every path a file names: each leaf of its `use` trees and every `a::b` in its code.
fn named_paths(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("use ") {
        let before = rest[..at].chars().last();
        let tail = &rest[at + 4..];
        let end = tail.find(';').unwrap_or(tail.len());
        if before.is_none_or(|c| c.is_whitespace() || c == ';' || c == '}' || c == '{') {
            let tree = tail[..end].split_whitespace().collect::<Vec<_>>().join(" ");
            expand(&[], &tree, &mut out);
        }
        rest = &tail[end.min(tail.len())..];
    }
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_alphabetic() || chars[i] == '_' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == ':')
            {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let prev = start.checked_sub(1).map(|p| chars[p]);
            if word.contains("::") && prev != Some(':') {
                out.push(
                    word.split("::")
                        .filter(|s| !s.is_empty())
                        .map(String::from)
                        .collect(),
                );
            }
        } else {
            i += 1;
        }
    }
    out
}

/// The leaves of a `use` tree (`a::{b, c::{d}}` is `a::b` and `a::c::d`).
fn expand(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
    let mut depth = 0;
    let mut part = String::new();
    let mut parts = Vec::new();
    for c in tree.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut part));
                continue;
            }
            _ => {}
        }
        part.push(c);
    }
    parts.push(part);
    for p in parts.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
        let p = p.split(" as ").next().unwrap_or(p).replace(' ', "");
        let p = p.as_str();
        match p.find('{') {
            Some(open) => {
                let mut next = prefix.to_vec();
                next.extend(
                    p[..open]
                        .split("::")
                        .filter(|s| !s.is_empty())
                        .map(String::from),
                );
                let close = p.rfind('}').unwrap_or(p.len());
                expand(&next, &p[open + 1..close], out);
            }
            None => {
                let mut path = prefix.to_vec();
                path.extend(p.split("::").filter(|s| !s.is_empty()).map(String::from));
                out.push(path);
            }
        }
    }
}

/// The module a path names, as seen from module `from`: the longest known prefix.
fn resolve(
    from: &[String],
    path: &[String],
    modules: &BTreeSet<Vec<String>>,
) -> Option<Vec<String>> {
    let mut full: Vec<String> = match path.first().map(String::as_str) {
        Some("crate") => path[1..].to_vec(),
        Some("super" | "self") => {
            let mut base = from.to_vec();
            let mut rest = path;
            while let Some(first) = rest.first() {
                match first.as_str() {
                    "super" => {
                        base.pop();
                    }
                    "self" => {}
                    _ => break,
                }
                rest = &rest[1..];
            }
            base.extend(rest.iter().cloned());
            base
        }
        _ => {
            let mut child = from.to_vec();
            child.extend(path.iter().cloned());
            child
        }
    };
    while !full.is_empty() {
        if modules.contains(&full) {
            return Some(full);
        }
        full.pop();
    }
    None
}

/// The strongly connected groups of more than one module.
fn cycles(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<Vec<String>>> {
    // Kosaraju: an order by finishing time, then the reverse graph in that order.
    let nodes: Vec<&Vec<String>> = edges.keys().collect();
    let mut seen = BTreeSet::new();
    let mut order = Vec::new();
    for n in &nodes {
        let mut stack = vec![(*n, false)];
        while let Some((v, done)) = stack.pop() {
            if done {
                order.push(v);
                continue;
            }
            if !seen.insert(v) {
                continue;
            }
            stack.push((v, true));
            for w in edges.get(v).into_iter().flatten() {
                if !seen.contains(w) {
                    stack.push((w, false));
                }
            }
        }
    }
    let mut reverse: BTreeMap<&Vec<String>, Vec<&Vec<String>>> = BTreeMap::new();
    for (v, ws) in edges {
        for w in ws {
            reverse.entry(w).or_default().push(v);
        }
    }
    let mut assigned = BTreeSet::new();
    let mut groups = Vec::new();
    for v in order.into_iter().rev() {
        if assigned.contains(v) {
            continue;
        }
        let mut group = Vec::new();
        let mut stack = vec![v];
        while let Some(x) = stack.pop() {
            if !assigned.insert(x) {
                continue;
            }
            group.push(x.clone());
            stack.extend(
                reverse
                    .get(x)
                    .into_iter()
                    .flatten()
                    .filter(|y| !assigned.contains(*y)),
            );
        }
        if group.len() > 1 {
            group.sort();
            groups.push(group);
        }
    }
    groups
}

/// The import cycles under `src/<root>` that leave one module's own files: a cycle is
/// allowed only among a module and its children (`panes::tieout` and
/// `panes::tieout::screens`), never across modules of the layer above.
fn cross_module_cycles(src: &Path, root: &str) -> Vec<String> {
    let files = product_sources(&src.join(root));
    let modules: BTreeSet<Vec<String>> = files.iter().map(|(p, _)| module_of(src, p)).collect();
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (path, text) in &files {
        let from = module_of(src, path);
        let targets = edges.entry(from.clone()).or_default();
        for named in named_paths(text) {
            if let Some(to) = resolve(&from, &named, &modules)
                && to != from
            {
                targets.insert(to);
            }
        }
    }
    cycles(&edges)
        .into_iter()
        .filter(|group| {
            let first = &group[0];
            let common = (0..first.len())
                .take_while(|&i| group.iter().all(|m| m.get(i) == first.get(i)))
                .count();
            common < 2
        })
        .map(|group| {
            group
                .iter()
                .map(|m| m.join("::"))
                .collect::<Vec<_>>()
                .join(" -> ")
        })
        .collect()
}

#[test]
fn the_tui_has_no_import_cycle_across_its_modules() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = cross_module_cycles(&src, "tui");
    assert!(
        found.is_empty(),
        "import cycles across the TUI's modules (the vocabulary imports the registry?):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_cycle_check_finds_a_planted_cycle() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tui = dir.path().join("tui");
    std::fs::create_dir_all(tui.join("panes")).expect("mkdir");
    std::fs::write(tui.join("mod.rs"), "pub mod action;\npub mod panes;\n").expect("write");
    std::fs::write(tui.join("action.rs"), "use super::panes::TABS;\n").expect("write");
    std::fs::write(
        tui.join("panes/mod.rs"),
        "mod list;\nuse crate::tui::action::Action;\n",
    )
    .expect("write");
    // A module and its own child may know each other.
    std::fs::write(tui.join("panes/list.rs"), "use super::*;\n").expect("write");
    let found = cross_module_cycles(dir.path(), "tui");
    assert_eq!(found, vec!["tui::action -> tui::panes".to_string()]);
}
