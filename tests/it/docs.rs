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

/// The headings of a Markdown document, without their `#`s (a `#` line inside a fenced
/// code block, such as a TOML comment, is not one).
fn headings(doc: &str) -> Vec<String> {
    let text = std::fs::read_to_string(root().join(doc)).expect("document");
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(line.trim_start_matches('#').trim().to_string());
        }
    }
    out
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
            // "see the README's" is a citation; "the packet README's" is not.
            let sent = rest[..at].ends_with("see the ");
            let mut tail = &rest[at + name.len()..];
            rest = tail;
            tail = tail.strip_prefix(".md").unwrap_or(tail);
            if sent {
                tail = tail.strip_prefix("'s").unwrap_or(tail);
            }
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
                let n = \"see the README's \\\"Settings\\\"\";\n\
                /// ARCHITECTURE.md, \"Code map\" but not README.md\".to_string()";
    let found = citations(text);
    assert_eq!(
        found,
        vec![
            ("README.md", "Exports".to_string()),
            ("README.md", "Tickets files".to_string()),
            ("README.md", "Settings".to_string()),
            ("ARCHITECTURE.md", "Code map".to_string()),
            ("RULES.md", "Worklist".to_string()),
        ]
    );
}

/// The non-test Rust sources of the product (the app, the shells and the crates): each
/// file's text up to its `#[cfg(test)]` module; test-only files are left out.
fn product_sources() -> Vec<(PathBuf, String)> {
    let mut files = crate::support::rust_files(&root().join("src"));
    files.extend(crate::support::rust_files(&root().join("crates")));
    files
        .into_iter()
        .filter(|p| {
            let name = p
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned());
            let in_tests = p.components().any(|c| c.as_os_str() == "tests");
            !in_tests && name != "tests.rs" && !name.ends_with("_tests.rs")
        })
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("source");
            let product = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
            (p, product)
        })
        .collect()
}

/// The README sections a product source sends its reader to: `see the README's "…"`,
/// `see README, "…"` (as a Rust string writes them, with escaped quotes), and the
/// `section: "…"` of a config file's `ConfigDoc`, whose messages say `see the README's
/// "…"`.
fn readme_references(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for opener in ["see the README's \\\"", "see README, \\\"", "section: \""] {
        if opener.starts_with("section") && !text.contains("ConfigDoc") {
            continue;
        }
        let mut rest = text;
        while let Some(at) = rest.find(opener) {
            let tail = &rest[at + opener.len()..];
            let end = tail.find(['\\', '"']).unwrap_or(tail.len());
            let section = &tail[..end];
            // A format string's `{}` is filled from a `section: "…"` found separately.
            if section.chars().next().is_some_and(char::is_uppercase) {
                out.push(section.to_string());
            }
            rest = tail;
        }
    }
    out
}

#[test]
fn every_readme_section_a_message_names_exists() {
    let headings = headings("README.md");
    let mut found = Vec::new();
    let mut missing = Vec::new();
    let mut other_spelling = Vec::new();
    for (path, text) in product_sources() {
        for section in readme_references(&text) {
            if !headings.contains(&section) {
                missing.push(format!(
                    "{}: the README has no heading \"{section}\"",
                    path.display()
                ));
            }
            found.push(section);
        }
        if text.contains("see README, \\\"") {
            other_spelling.push(format!(
                "{}: write `see the README's` and the heading in quotes, as every other message does",
                path.display()
            ));
        }
    }
    for expected in [
        "Settings",
        "Refund policy",
        "The refund gate's budget",
        "Bank profiles",
        "Tickets files",
    ] {
        assert!(
            found.iter().any(|f| f == expected),
            "no message cites \"{expected}\": is the pattern still right? found {found:?}"
        );
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    assert!(other_spelling.is_empty(), "{}", other_spelling.join("\n"));
}

#[test]
fn the_readme_shows_the_default_policy_as_shipped() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README");
    let shipped = tieout::domain::refunds::policy::DEFAULT_POLICY_TOML;
    let section = readme
        .split_once("\n## Refund policy\n")
        .expect("a \"Refund policy\" section")
        .1;
    let block = section
        .split_once("```toml\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .expect("a TOML block in \"Refund policy\"")
        .0;
    assert_eq!(
        block, shipped,
        "the README's default policy differs from default_policy.toml: copy the file into it"
    );
}

/// The README's "Bank profiles" section (from its heading to the next `## `).
fn bank_profiles_section() -> String {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README");
    let start = readme.find("\n## Bank profiles\n").expect("the section") + 1;
    let rest = &readme[start..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    rest[..end].to_string()
}

/// Issue 34: the profile keys could only be learned from error messages. The README's
/// reference has a row for every key the reader accepts — taken from the reader's own
/// list, the one an unknown key is refused against — and shows the fixtures' profiles
/// (`tests/fixtures/bank/bank.toml`) as its examples, so each example is one that reads a
/// real export.
#[test]
fn the_readme_lists_every_bank_profile_key_and_shows_the_fixture_profiles() {
    use tieout::bank::csv::{profile_keys, skip_rule_keys};
    let section = bank_profiles_section();
    assert!(profile_keys().len() >= 19, "{:?}", profile_keys());
    let missing: Vec<&str> = profile_keys()
        .iter()
        .chain(skip_rule_keys())
        .filter(|k| !section.contains(&format!("\n| `{k}` | ")))
        .copied()
        .collect();
    assert!(
        missing.is_empty(),
        "README.md, \"Bank profiles\": no row for the key(s) {missing:?}; add `| `key` | what it says |`"
    );
    let fixture = std::fs::read_to_string(root().join("tests/fixtures/bank/bank.toml"))
        .expect("the fixtures' bank.toml");
    let tables: Vec<&str> = fixture
        .split("\n\n")
        .map(str::trim)
        .filter(|t| t.starts_with("[profiles."))
        .collect();
    assert_eq!(tables.len(), 5, "{fixture}");
    for table in tables {
        assert!(
            section.contains(&format!("```toml\n{table}\n```")),
            "README.md, \"Bank profiles\" does not show this fixture profile as it is:\n{table}"
        );
    }
}
