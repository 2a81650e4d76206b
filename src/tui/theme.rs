//! Semantic colours. Widgets ask for `theme.style(Role::X)`, never for a colour. Themes are
//! TOML files in `themes/` (embedded, so the binary works anywhere) that set styles per
//! role; a role a theme does not set falls back to its parent role (see
//! [`Role::parent`]). `NO_COLOR` selects `mono`. Selection always carries REVERSED so it
//! stays visible without colour.

use std::collections::BTreeMap;
use std::path::Path;
use std::str::FromStr;

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;

use crate::app::toml_file::{read_utf8_file, toml_error_text};

macro_rules! roles {
    ($( $variant:ident => $name:literal, $parent:expr; )*) => {
        /// What a piece of the screen means; themes style meanings.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Role { $( $variant, )* }

        impl Role {
            pub const ALL: &'static [Role] = &[$(Role::$variant,)*];
            /// The name theme files use.
            pub fn name(self) -> &'static str {
                match self { $(Role::$variant => $name,)* }
            }
            /// The role whose style applies when a theme leaves this one unset.
            pub fn parent(self) -> Option<Role> {
                match self { $(Role::$variant => $parent,)* }
            }
        }
    };
}

roles! {
    Text => "text", None;
    Muted => "muted", Some(Role::Text);
    Title => "title", Some(Role::Text);
    Border => "border", Some(Role::Muted);
    TabActive => "tab_active", Some(Role::Title);
    TabInactive => "tab_inactive", Some(Role::Muted);
    Header => "header", Some(Role::Title);
    Selection => "selection", None;
    SelectionCell => "selection_cell", Some(Role::Selection);
    AmountPositive => "amount_positive", Some(Role::Text);
    AmountNegative => "amount_negative", Some(Role::Text);
    AmountZero => "amount_zero", Some(Role::Muted);
    Ok => "ok", Some(Role::Text);
    Warning => "warning", Some(Role::Text);
    Error => "error", Some(Role::Text);
    Matched => "matched", Some(Role::Ok);
    Difference => "difference", Some(Role::Error);
    Overdue => "overdue", Some(Role::Warning);
    Pending => "pending", Some(Role::Warning);
    Failed => "failed", Some(Role::Error);
    StatusBar => "status_bar", Some(Role::Text);
    ModeTest => "mode_test", Some(Role::Warning);
    ModeLive => "mode_live", Some(Role::Error);
    KeyHintKey => "key_hint_key", Some(Role::Title);
    KeyHintDesc => "key_hint_desc", Some(Role::Muted);
    Spinner => "spinner", Some(Role::Title);
    Prompt => "prompt", Some(Role::Title);
    Toast => "toast", Some(Role::Text);
}

/// The built-in themes, embedded.
pub const BUILTIN: &[(&str, &str)] = &[
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
    ("mono", include_str!("../../themes/mono.toml")),
];

/// A resolved theme: a style for every role.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    pub name: String,
    styles: BTreeMap<Role, Style>,
}

/// One role's style as a theme file writes it.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct StyleSpec {
    fg: Option<String>,
    bg: Option<String>,
    #[serde(default)]
    bold: bool,
    #[serde(default)]
    dim: bool,
    #[serde(default)]
    italic: bool,
    #[serde(default)]
    underlined: bool,
    #[serde(default)]
    reversed: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    name: Option<String>,
    #[serde(default)]
    roles: BTreeMap<String, StyleSpec>,
}

/// A theme that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ThemeError {
    #[error("unknown theme '{name}': use one of {valid}, or a path to a theme file")]
    Unknown { name: String, valid: String },
    #[error("{origin}: {message}")]
    Bad { origin: String, message: String },
}

impl Theme {
    /// Names of the built-in themes, in cycling order.
    pub fn builtin_names() -> Vec<&'static str> {
        BUILTIN.iter().map(|(n, _)| *n).collect()
    }

    /// A built-in theme by name.
    pub fn builtin(name: &str) -> Result<Theme, ThemeError> {
        let (_, text) =
            BUILTIN
                .iter()
                .find(|(n, _)| *n == name)
                .ok_or_else(|| ThemeError::Unknown {
                    name: name.to_string(),
                    valid: Self::builtin_names().join(", "),
                })?;
        Self::parse(text, name)
    }

    /// The mono theme, which cannot fail (used when nothing else can be had).
    pub fn mono() -> Theme {
        Self::builtin("mono").unwrap_or_else(|_| Theme {
            name: "mono".into(),
            styles: BTreeMap::new(),
        })
    }

    /// Resolves `--theme`: a built-in name, a theme file in `config_dir/themes/NAME.toml`,
    /// or a path to a TOML file.
    pub fn resolve(name: &str, config_dir: Option<&Path>) -> Result<Theme, ThemeError> {
        if BUILTIN.iter().any(|(n, _)| *n == name) {
            return Self::builtin(name);
        }
        let mut candidates = Vec::new();
        if let Some(dir) = config_dir {
            candidates.push(dir.join("themes").join(format!("{name}.toml")));
        }
        if name.ends_with(".toml") {
            candidates.push(Path::new(name).to_path_buf());
        }
        for path in candidates {
            if path.is_file() {
                let origin = path.display().to_string();
                let text = read_utf8_file(&path).map_err(|message| ThemeError::Bad {
                    origin: origin.clone(),
                    message,
                })?;
                return Self::parse(&text, &origin);
            }
        }
        Err(ThemeError::Unknown {
            name: name.to_string(),
            valid: Self::builtin_names().join(", "),
        })
    }

    /// Parses a theme file; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Theme, ThemeError> {
        let bad = |message: String| ThemeError::Bad {
            origin: origin.to_string(),
            message,
        };
        let file: ThemeFile = toml::from_str(text).map_err(|e| bad(toml_error_text(text, &e)))?;
        let mut styles = BTreeMap::new();
        for (role_name, spec) in &file.roles {
            let role = Role::ALL
                .iter()
                .copied()
                .find(|r| r.name() == role_name)
                .ok_or_else(|| {
                    bad(format!(
                        "roles.{role_name}: unknown role '{role_name}'. Roles: {}",
                        Role::ALL
                            .iter()
                            .map(|r| r.name())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                })?;
            styles.insert(
                role,
                spec.to_style()
                    .map_err(|m| bad(format!("roles.{role_name}.{m}")))?,
            );
        }
        // Selection must stay visible without colour.
        let sel = styles.entry(Role::Selection).or_insert_with(Style::new);
        *sel = sel.add_modifier(Modifier::REVERSED);
        Ok(Theme {
            name: file.name.unwrap_or_else(|| origin.to_string()),
            styles,
        })
    }

    /// The style of a role, falling back through its parents.
    pub fn style(&self, role: Role) -> Style {
        let mut r = Some(role);
        while let Some(role) = r {
            if let Some(s) = self.styles.get(&role) {
                return *s;
            }
            r = role.parent();
        }
        Style::new()
    }

    /// A role's style patched over the selection (for cells in the selected row).
    pub fn selected(&self, role: Role) -> Style {
        self.style(role).patch(self.style(Role::Selection))
    }
}

impl StyleSpec {
    fn to_style(&self) -> Result<Style, String> {
        let colour = |field: &str, c: &Option<String>| -> Result<Option<Color>, String> {
            c.as_deref()
                .map(|c| {
                    Color::from_str(c).map_err(|_| {
                        format!("{field}: '{c}' is not a colour (use a name like red, a number 0-255, or #rrggbb)")
                    })
                })
                .transpose()
        };
        let mut s = Style::new();
        if let Some(fg) = colour("fg", &self.fg)? {
            s = s.fg(fg);
        }
        if let Some(bg) = colour("bg", &self.bg)? {
            s = s.bg(bg);
        }
        for (on, m) in [
            (self.bold, Modifier::BOLD),
            (self.dim, Modifier::DIM),
            (self.italic, Modifier::ITALIC),
            (self.underlined, Modifier::UNDERLINED),
            (self.reversed, Modifier::REVERSED),
        ] {
            if on {
                s = s.add_modifier(m);
            }
        }
        Ok(s)
    }
}

/// Whether `NO_COLOR` asks for no colour (set and not empty, per no-color.org).
pub fn no_color_requested() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_parse_and_define_the_money_roles() {
        for name in Theme::builtin_names() {
            let t = Theme::builtin(name).expect(name);
            assert!(
                t.style(Role::Selection)
                    .add_modifier
                    .contains(Modifier::REVERSED),
                "{name}"
            );
            if name != "mono" {
                assert_ne!(
                    t.style(Role::AmountNegative),
                    t.style(Role::AmountPositive),
                    "{name}: negative and positive amounts look the same"
                );
                assert!(t.style(Role::AmountNegative).fg.is_some(), "{name}");
            }
        }
    }

    #[test]
    fn mono_has_no_colour() {
        let t = Theme::mono();
        for r in Role::ALL {
            let s = t.style(*r);
            assert_eq!(s.fg, None, "{}", r.name());
            assert_eq!(s.bg, None, "{}", r.name());
        }
        // Negative amounts still stand out without colour.
        assert_ne!(t.style(Role::AmountNegative), t.style(Role::AmountPositive));
    }

    #[test]
    fn roles_fall_back_to_their_parent() {
        let t = Theme::parse("[roles]\nerror = { fg = \"red\" }\n", "t").expect("valid");
        assert_eq!(t.style(Role::Difference).fg, Some(Color::Red));
        assert_eq!(t.style(Role::Failed).fg, Some(Color::Red));
    }

    #[test]
    fn bad_theme_files_are_refused_with_the_reason() {
        let e = Theme::parse("[roles]\nshiny = { fg = \"red\" }\n", "x.toml").expect_err("role");
        assert!(e.to_string().contains("amount_negative"), "{e}");
        let e =
            Theme::parse("[roles]\ntext = { fg = \"reddish\" }\n", "x.toml").expect_err("colour");
        assert!(e.to_string().contains("reddish"), "{e}");
        let e = Theme::resolve("solarized-ish", None).expect_err("unknown");
        assert!(e.to_string().contains("high-contrast"), "{e}");
    }
}
