//! Bank statements, read once for every shell: the files given to `--bank` (or named by
//! `TIEOUT_BANK` for the workbench) read into lines with a CSV profile, built-in or from
//! `bank.toml` in the config folder. A malformed statement is refused before Stripe is
//! asked.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::toml_file;
use crate::bank::csv::CsvProfile;
use crate::bank::{BankLine, read_statement};
use crate::failure::Failure;

/// The statements to read and the CSV profile to read them with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Statements {
    pub files: Vec<PathBuf>,
    /// A profile from `bank.toml`, or a built-in one (`tieout`, `us-debit-credit`, …).
    pub profile: String,
}

/// `bank.toml`: one `[profiles.NAME]` table per profile; any other key or table is
/// refused (a misspelt `[profile.x]` used to be ignored, and `--bank-profile x` then said
/// there was no such profile).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct BankConfig {
    #[serde(default)]
    profiles: BTreeMap<String, CsvProfile>,
}

/// The file's name in the config folder.
pub const BANK_FILE: &str = "bank.toml";

/// The user's bank CSV profiles: `[profiles.NAME]` tables in `bank.toml` in the config
/// folder, if the file exists.
fn user_profiles() -> Result<BTreeMap<String, CsvProfile>, Failure> {
    let Some(path) = super::config_dir().map(|d| d.join(BANK_FILE)) else {
        return Ok(BTreeMap::new());
    };
    profiles_from(&path)
}

/// The profiles of the `bank.toml` at `path`, read by the strict reader
/// ([`toml_file`]): bounded, UTF-8 only, no unknown keys or tables.
fn profiles_from(path: &Path) -> Result<BTreeMap<String, CsvProfile>, Failure> {
    let config: Option<BankConfig> = toml_file::load(path, toml_file::BANK)?;
    Ok(config.unwrap_or_default().profiles)
}

/// Reads every statement into lines, in the order given; `None` when no statement was
/// given. The same file given twice (the same path once links are followed, or the same
/// bytes under another name) is refused before anything is read into lines: every line
/// would be a duplicate. A line repeated across two different files is named later, by
/// the matcher ([`crate::bank::duplicates`]).
pub fn read_statements(statements: &Statements) -> Result<Option<Vec<BankLine>>, Failure> {
    if statements.files.is_empty() {
        return Ok(None);
    }
    let profile = CsvProfile::named(&statements.profile, &user_profiles()?)
        .map_err(|e| Failure::usage(format!("--bank-profile: {e}")))?;
    let files = &statements.files;
    let canonical: Vec<Option<PathBuf>> = files.iter().map(|p| p.canonicalize().ok()).collect();
    for (i, path) in files.iter().enumerate() {
        if let Some(j) = (0..i).find(|&j| canonical[j].is_some() && canonical[j] == canonical[i]) {
            return Err(given_twice(path, &files[j], "the same file as"));
        }
    }
    let names = names(files);
    let mut digests: Vec<String> = Vec::with_capacity(files.len());
    let mut lines = Vec::new();
    for (path, name) in files.iter().zip(&names) {
        let bytes = crate::files::read_input(path, crate::files::MAX_INPUT_BYTES)
            .map_err(|e| Failure::usage(format!("--bank {}: {e}", path.display())))?;
        let digest = crate::report::packet::sha256_hex(&bytes);
        if let Some(j) = digests.iter().position(|d| *d == digest) {
            return Err(given_twice(path, &files[j], "a copy of"));
        }
        digests.push(digest);
        let read = read_statement(name, &bytes, &profile)?;
        // The first file's lines are taken as they are, not copied into a new buffer.
        if lines.is_empty() {
            lines = read;
        } else {
            lines.extend(read);
        }
    }
    Ok(Some(lines))
}

fn given_twice(path: &Path, first: &Path, what: &str) -> Failure {
    Failure::usage(format!(
        "--bank {}: {what} --bank {} (give each statement once)",
        path.display(),
        first.display()
    ))
}

/// The names the lines carry (`file:line` in the reports): each file's name, or the path
/// as given when two files share a name (`oct/statement.csv`, `nov/statement.csv`).
fn names(files: &[PathBuf]) -> Vec<String> {
    let base = |p: &PathBuf| {
        p.file_name().map_or_else(
            || p.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    };
    files
        .iter()
        .map(|p| {
            let shared = files.iter().filter(|q| base(q) == base(p)).count() > 1;
            if shared {
                p.display().to_string()
            } else {
                base(p)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(text: &[u8]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join(BANK_FILE);
        std::fs::write(&path, text).expect("write");
        (dir, path)
    }

    const PROFILE: &str = "date = \"Datum\"\ndate_formats = [\"%d.%m.%Y\"]\namount = \"Betrag\"\ncurrency = \"eur\"\ndescription = [\"Text\"]\n";

    #[test]
    fn files_sharing_a_name_are_told_apart_by_their_path() {
        let files: Vec<PathBuf> = ["oct/statement.csv", "nov/statement.csv", "jpy.ofx"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(
            names(&files),
            ["oct/statement.csv", "nov/statement.csv", "jpy.ofx"]
        );
        assert_eq!(names(&[PathBuf::from("a/b.csv")]), ["b.csv"]);
    }

    #[test]
    fn a_profile_is_read() {
        let (_dir, path) = write(format!("[profiles.sparkasse]\n{PROFILE}").as_bytes());
        let profiles = profiles_from(&path).expect("valid");
        assert!(profiles.contains_key("sparkasse"), "{profiles:?}");
        let (dir, _) = write(b"");
        assert!(
            profiles_from(&dir.path().join("absent.toml"))
                .expect("none")
                .is_empty()
        );
    }

    #[test]
    fn an_unknown_table_is_refused_with_its_place_and_the_nearest_name() {
        let (_dir, path) = write(format!("[profile.sparkasse]\n{PROFILE}").as_bytes());
        let e = profiles_from(&path).expect_err("unknown table");
        assert!(
            e.message.contains("bank.toml, line 1, column 2")
                && e.message.contains("did you mean `profiles`?")
                && e.message.contains("see the README's \"Bank profiles\""),
            "{}",
            e.message
        );
    }

    #[test]
    fn an_unknown_key_in_a_profile_is_refused() {
        let text = format!("[profiles.sparkasse]\n{PROFILE}delimitter = \";\"\n");
        let (_dir, path) = write(text.as_bytes());
        let e = profiles_from(&path).expect_err("unknown key");
        assert!(
            e.message.contains("delimitter") && e.message.contains("did you mean `delimiter`?"),
            "{}",
            e.message
        );
        assert!(e.message.contains("line "), "{}", e.message);
    }

    #[test]
    fn a_file_that_is_not_utf8_is_placed() {
        let (_dir, path) = write(b"[profiles.x]\ndate = \"D\xfctum\"\n");
        let e = profiles_from(&path).expect_err("not UTF-8");
        assert!(
            e.message.contains("line 2, column 10") && e.message.contains("not UTF-8"),
            "{}",
            e.message
        );
    }
}
