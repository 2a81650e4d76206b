//! The settings file, `settings.toml` in the config folder: how tieout paces its reads
//! of Stripe, and how the workbench copies. Every key is optional; a missing file means
//! the defaults.
//!
//! ```toml
//! [stripe]
//! rate = 20            # the budget, requests per second (at most 25 test / 100 live)
//! give_up_after = 180  # seconds without one successful request before a read gives up
//!
//! [workbench]
//! copy_format = "tsv"  # what y / Y copy: "tsv", "markdown" or "json"
//! ```
//!
//! `--rate` overrides `rate`; the environment variable `TIEOUT_GIVE_UP_AFTER` (seconds)
//! overrides `give_up_after`.

use std::path::Path;
use std::time::Duration;

use serde::Deserialize;

use super::toml_file;
use crate::failure::Failure;
use crate::model::Mode;
use crate::stripe::RateConfig;

/// The file's name in the config folder.
pub const SETTINGS_FILE: &str = "settings.toml";
/// Overrides `give_up_after` (seconds).
pub const GIVE_UP_ENV: &str = "TIEOUT_GIVE_UP_AFTER";

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    #[serde(default)]
    pub stripe: StripeSettings,
    #[serde(default)]
    pub workbench: WorkbenchSettings,
}

/// `[workbench]`: the TUI's settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkbenchSettings {
    /// What `copy_row` and `copy_table` put on the clipboard.
    #[serde(default)]
    pub copy_format: CopyFormat,
}

/// The text a copy of table rows is: TSV (pastes into a spreadsheet), a Markdown table,
/// or JSON.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CopyFormat {
    #[default]
    Tsv,
    Markdown,
    Json,
}

impl CopyFormat {
    /// The file extension of a copy written to a file instead.
    pub fn extension(self) -> &'static str {
        match self {
            CopyFormat::Tsv => "tsv",
            CopyFormat::Markdown => "md",
            CopyFormat::Json => "json",
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StripeSettings {
    /// The budget, req/s.
    pub rate: Option<u32>,
    /// Seconds without a successful request before a read gives up.
    pub give_up_after: Option<u64>,
}

impl Settings {
    /// Parses the file's text; `origin` names it in the message of a bad one (with the
    /// line and column, and the nearest known key for an unknown one).
    pub fn parse(text: &str, origin: &str) -> Result<Settings, Failure> {
        toml_file::parse(text, origin, toml_file::SETTINGS)
    }

    /// The settings file of the config folder, or the defaults without one. It is read
    /// by the strict reader ([`toml_file`]): bounded, UTF-8 only, no unknown keys.
    pub fn load() -> Result<Settings, Failure> {
        let Some(path) = super::config_dir().map(|d| d.join(SETTINGS_FILE)) else {
            return Ok(Settings::default());
        };
        Self::load_from(&path)
    }

    /// The settings file at `path`, or the defaults when there is none.
    pub fn load_from(path: &Path) -> Result<Settings, Failure> {
        Ok(toml_file::load(path, toml_file::SETTINGS)?.unwrap_or_default())
    }

    /// `rate` for `mode`: `flag` (`--rate`) over the file's, refused above the mode's
    /// ceiling; the give-up time from the environment over the file's.
    pub fn apply(
        &self,
        mut rate: RateConfig,
        flag: Option<u32>,
        mode: Mode,
    ) -> Result<RateConfig, Failure> {
        if let Some(budget) = flag.or(self.stripe.rate) {
            let source = if flag.is_some() {
                "--rate"
            } else {
                "rate in settings.toml"
            };
            rate = rate
                .with_budget(budget, mode)
                .map_err(|e| Failure::usage(format!("{source}: {e}")))?;
        }
        let env = std::env::var(GIVE_UP_ENV)
            .ok()
            .filter(|v| !v.trim().is_empty());
        let give_up = match env {
            Some(v) => Some(v.trim().parse::<u64>().map_err(|_| {
                Failure::usage(format!(
                    "{GIVE_UP_ENV}={v} is not a number of seconds: give e.g. 180"
                ))
            })?),
            None => self.stripe.give_up_after,
        };
        if let Some(secs) = give_up {
            rate.give_up_after = Duration::from_secs(secs.max(1));
        }
        Ok(rate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_wins_and_ceilings_hold() {
        let s = Settings::parse("[stripe]\nrate = 15\ngive_up_after = 60\n", "settings.toml")
            .expect("valid");
        let base = RateConfig::for_mode(Mode::Test);
        let r = s.apply(base.clone(), None, Mode::Test).expect("file");
        assert_eq!(r.per_second, 15);
        let r = s.apply(base.clone(), Some(25), Mode::Test).expect("flag");
        assert_eq!(r.per_second, 25);
        let err = s
            .apply(base.clone(), Some(40), Mode::Test)
            .expect_err("ceiling");
        assert!(
            err.message.contains("--rate") && err.message.contains("25"),
            "{}",
            err.message
        );
        let r = s.apply(base.clone(), Some(100), Mode::Live).expect("live");
        assert_eq!(r.per_second, 100);
        let none = Settings::default()
            .apply(base.clone(), None, Mode::Live)
            .expect("defaults");
        assert_eq!(none.per_second, base.per_second);
    }

    #[test]
    fn the_copy_format_is_tsv_unless_the_workbench_table_says_otherwise() {
        assert_eq!(Settings::default().workbench.copy_format, CopyFormat::Tsv);
        let s = Settings::parse("[workbench]\ncopy_format = \"markdown\"\n", "settings.toml")
            .expect("valid");
        assert_eq!(s.workbench.copy_format, CopyFormat::Markdown);
        let err = Settings::parse("[workbench]\ncopy_format = \"csv\"\n", "s.toml")
            .expect_err("not a format");
        assert!(
            err.message.contains("line 2") && err.message.contains("tsv"),
            "{}",
            err.message
        );
    }

    #[test]
    fn a_bad_file_names_itself_its_place_and_the_nearest_key() {
        let err =
            Settings::parse("[stripe]\nrtae = 3\n", "/x/settings.toml").expect_err("unknown key");
        assert!(
            err.message.contains("/x/settings.toml, line 2, column 1")
                && err.message.contains("did you mean `rate`?")
                && err.message.contains("see the README's \"Settings\""),
            "{}",
            err.message
        );
        let err = Settings::parse("[stripe]\ngive_up_afer = 3\n", "s.toml").expect_err("typo");
        assert!(
            err.message.contains("did you mean `give_up_after`?"),
            "{}",
            err.message
        );
        let err = Settings::parse("[strip]\nrate = 3\n", "s.toml").expect_err("table");
        assert!(
            err.message.contains("line 1, column 2") && err.message.contains("`stripe`"),
            "{}",
            err.message
        );
    }

    #[test]
    fn a_file_that_is_not_utf8_is_placed_and_not_blamed_on_permissions() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join(SETTINGS_FILE);
        std::fs::write(&path, b"[stripe]\nrate = 20 # d\xe9bit\n").expect("write");
        let err = Settings::load_from(&path).expect_err("not UTF-8");
        assert!(
            err.message.contains("line 2, column 14") && err.message.contains("not UTF-8"),
            "{}",
            err.message
        );
        assert!(!err.message.contains("permissions"), "{}", err.message);
        assert_eq!(err.kind, crate::failure::FailKind::Usage);
        let none = Settings::load_from(&dir.path().join("absent.toml")).expect("no file");
        assert_eq!(none, Settings::default());
    }
}
