//! Bank statements, read once for every shell: the files given to `--bank` (or named by
//! `TIEOUT_BANK` for the workbench) read into lines with a CSV profile, built-in or from
//! `bank.toml` in the config folder. A malformed statement is refused before Stripe is
//! asked.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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

/// The user's bank CSV profiles: `[profiles.NAME]` tables in `bank.toml` in the config
/// folder, if the file exists.
fn user_profiles() -> Result<BTreeMap<String, CsvProfile>, Failure> {
    #[derive(serde::Deserialize)]
    struct BankConfig {
        #[serde(default)]
        profiles: BTreeMap<String, CsvProfile>,
    }
    let Some(path) = super::config_dir().map(|d| d.join("bank.toml")) else {
        return Ok(BTreeMap::new());
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(Failure::usage(format!("{}: {e}", path.display()))),
    };
    let config: BankConfig =
        toml::from_str(&text).map_err(|e| Failure::usage(format!("{}: {e}", path.display())))?;
    Ok(config.profiles)
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
