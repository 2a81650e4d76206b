//! Startup settings from the command line and the config folder: the keymap (preset plus
//! the user's `keymap.toml`), the theme (`--theme`, `NO_COLOR`), mouse, and where config
//! and data live (`TIEOUT_CONFIG_DIR` / `TIEOUT_DATA_DIR` override the platform folders).
//! Every problem is reported here, before the terminal is taken over.

use std::path::{Path, PathBuf};

use super::keymap::{Keymap, KeymapError};
use super::theme::{Theme, ThemeError, no_color_requested};

pub use crate::app::config_dir;

/// The platform's data folder for tieout (`TIEOUT_DATA_DIR` overrides), shared with the
/// cache.
pub fn data_dir() -> Option<PathBuf> {
    crate::app::data_dir()
}

/// The keymap: the preset, then `keymap.toml` from the config folder if there is one.
pub fn keymap(preset: Option<&str>, config_dir: Option<&Path>) -> Result<Keymap, KeymapError> {
    let mut k = Keymap::preset(preset.unwrap_or("default"))?;
    if let Some(dir) = config_dir {
        let file = dir.join("keymap.toml");
        if file.is_file() {
            k.apply_file(&file)?;
        }
    }
    Ok(k)
}

/// The starting theme and the list `cycle_theme` goes through. `--theme` wins; otherwise
/// `NO_COLOR` picks mono, else dark.
pub fn themes(
    name: Option<&str>,
    no_color: bool,
    config_dir: Option<&Path>,
) -> Result<(Theme, Vec<Theme>), ThemeError> {
    let name = name.unwrap_or(if no_color { "mono" } else { "dark" });
    let theme = Theme::resolve(name, config_dir)?;
    let mut cycle = Vec::new();
    for n in Theme::builtin_names() {
        cycle.push(Theme::builtin(n)?);
    }
    if !cycle.iter().any(|t| t.name == theme.name) {
        cycle.insert(0, theme.clone());
    }
    Ok((theme, cycle))
}

/// Whether colour is off for this run.
pub fn no_color() -> bool {
    no_color_requested()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_keymap_file_applies_and_bad_ones_fail() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("keymap.toml"), "[keys]\n\"x\" = \"quit\"\n")
            .expect("write");
        let k = keymap(Some("vim"), Some(dir.path())).expect("valid");
        assert_eq!(
            k.key_for(crate::tui::action::Action::Quit).as_deref(),
            Some("q")
        );
        assert!(
            k.keys_for(crate::tui::action::Action::Quit)
                .contains(&"x".to_string())
        );

        std::fs::write(
            dir.path().join("keymap.toml"),
            "[keys]\n\"x\" = \"explode\"\n",
        )
        .expect("write");
        let e = keymap(None, Some(dir.path())).expect_err("bad action");
        let text = e.to_string();
        assert!(
            text.contains("keymap.toml")
                && text.contains("explode")
                && text.contains("cycle_theme"),
            "{text}"
        );
        assert!(keymap(Some("emacs"), None).is_err());
    }

    #[test]
    fn no_color_picks_mono_unless_a_theme_is_named() {
        let (t, cycle) = themes(None, true, None).expect("mono");
        assert_eq!(t.name, "mono");
        assert_eq!(cycle.len(), 4);
        let (t, _) = themes(Some("light"), true, None).expect("light");
        assert_eq!(t.name, "light");
        let (t, _) = themes(None, false, None).expect("dark");
        assert_eq!(t.name, "dark");
        assert!(themes(Some("nope"), false, None).is_err());
    }

    #[test]
    fn a_theme_file_in_the_config_folder_joins_the_cycle() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("themes")).expect("mkdir");
        std::fs::write(
            dir.path().join("themes/sunset.toml"),
            "name = \"sunset\"\n[roles]\namount_negative = { fg = \"#ff8700\" }\n",
        )
        .expect("write");
        let (t, cycle) = themes(Some("sunset"), false, Some(dir.path())).expect("sunset");
        assert_eq!(t.name, "sunset");
        assert_eq!(cycle[0].name, "sunset");
    }
}
