//! Citations from the code to the repository's own documents hold: every
//! `README, "Exports"`, `RULES.md ("Worklist")` or `ARCHITECTURE.md, "…"` in a source names
//! a heading that the document has, so a reader (or a user reading an error message) who
//! follows one finds the section.

use std::path::PathBuf;

const DOCS: &[(&str, &str)] = &[
    ("README", "README.md"),
    ("ARCHITECTURE", "ARCHITECTURE.md"),
    ("RULES", "RULES.md"),
    ("SECURITY", "SECURITY.md"),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The headings of a Markdown document, without their `#`s.
fn headings(doc: &str) -> Vec<String> {
    let text = std::fs::read_to_string(root().join(doc)).expect("document");
    text.lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim().to_string())
        .collect()
}

/// The `(document, heading)` pairs `text` cites: a document's name, an optional `.md`,
/// an optional comma and an optional opening parenthesis, then the heading in quotes
/// (escaped quotes inside a Rust string count).
fn citations(text: &str) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let flat: String = text
        .lines()
        .map(|l| {
            l.trim_start()
                .trim_start_matches("//!")
                .trim_start_matches("///")
        })
        .collect::<Vec<_>>()
        .join(" ");
    for (name, file) in DOCS {
        let mut rest = flat.as_str();
        while let Some(at) = rest.find(name) {
            let mut tail = &rest[at + name.len()..];
            rest = tail;
            tail = tail.strip_prefix(".md").unwrap_or(tail);
            tail = tail.strip_prefix(',').unwrap_or(tail).trim_start();
            tail = tail.strip_prefix('(').unwrap_or(tail);
            tail = tail.strip_prefix('\\').unwrap_or(tail);
            let Some(quoted) = tail.strip_prefix('"') else {
                continue;
            };
            let end = quoted.find(['"', '\\']).unwrap_or(quoted.len());
            let heading = quoted[..end]
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let starts_as_a_title = heading.chars().next().is_some_and(char::is_uppercase);
            let plain = heading
                .chars()
                .all(|c| c.is_alphanumeric() || " ,:'&-".contains(c));
            if starts_as_a_title && plain && heading.len() < 80 {
                out.push((*file, heading));
            }
        }
    }
    out
}

#[test]
fn every_cited_section_exists() {
    let mut files = Vec::new();
    for dir in ["src", "crates", "tests/it", "benches", "examples"] {
        files.extend(crate::support::rust_files(&root().join(dir)));
    }
    let mut missing = Vec::new();
    let mut seen = 0;
    for path in files {
        let text = std::fs::read_to_string(&path).expect("source");
        for (doc, heading) in citations(&text) {
            seen += 1;
            if !headings(doc).iter().any(|h| h == &heading) {
                missing.push(format!(
                    "{}: {doc} has no heading \"{heading}\"",
                    path.display()
                ));
            }
        }
    }
    assert!(
        seen > 20,
        "the citations were not found ({seen}): is the pattern still right?"
    );
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn the_citation_pattern_reads_each_spelling() {
    let text = "//! see README, \"Exports\" and RULES.md (\"Worklist\")\n\
                let m = \"see README, \\\"Tickets files\\\"\";\n\
                /// ARCHITECTURE.md, \"Code map\" but not README.md\".to_string()";
    let found = citations(text);
    assert_eq!(
        found,
        vec![
            ("README.md", "Exports".to_string()),
            ("README.md", "Tickets files".to_string()),
            ("ARCHITECTURE.md", "Code map".to_string()),
            ("RULES.md", "Worklist".to_string()),
        ]
    );
}
