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

/// Reads every statement into lines; `None` when no statement was given.
pub fn read_statements(statements: &Statements) -> Result<Option<Vec<BankLine>>, Failure> {
    if statements.files.is_empty() {
        return Ok(None);
    }
    let profile = CsvProfile::named(&statements.profile, &user_profiles()?)
        .map_err(|e| Failure::usage(format!("--bank-profile: {e}")))?;
    let mut lines = Vec::new();
    for path in &statements.files {
        lines.extend(read_one(path, &profile)?);
    }
    Ok(Some(lines))
}

fn read_one(path: &Path, profile: &CsvProfile) -> Result<Vec<BankLine>, Failure> {
    let bytes = crate::files::read_input(path, crate::files::MAX_INPUT_BYTES)
        .map_err(|e| Failure::usage(format!("--bank {}: {e}", path.display())))?;
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    Ok(read_statement(&name, &bytes, profile)?)
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
