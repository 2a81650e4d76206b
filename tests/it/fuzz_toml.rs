//! Fuzzing the TOML files a user writes: the refund policy (`suggest --policy`), the keymap
//! (`keymap.toml`) and themes (`--theme FILE`). Arbitrary text and mutations of the shipped
//! files never panic; a refusal names the file, and for the policy also the line.

use proptest::prelude::*;
use proptest::sample::Index;

use tieout::domain::refunds::load_policy;
use tieout::domain::refunds::policy::DEFAULT_POLICY_TOML;
use tieout::tui::Action;
use tieout::tui::keymap::{KEY_NAMES, Keymap, chord_text, parse_chord};
use tieout::tui::theme::{Role, Theme};

use crate::fuzz_kit::fuzz;

const TOML_FRAGMENTS: &[&str] = &[
    "\n",
    "\r\n",
    "[keys]",
    "[window]",
    "[rules.disputed]",
    "[roles.text]",
    "[[keys]]",
    "days = ",
    "threshold = ",
    "says = ",
    "id = ",
    "\"q\" = \"quit\"",
    "fg = \"red\"",
    "name = ",
    "=",
    "\"",
    "'''",
    "[",
    "]",
    "{",
    "}",
    ",",
    "#",
    "99999999999999999999",
    "-1",
    "1e400",
    "true",
    "\"{window_days}\"",
    "\u{feff}",
    "\u{0}",
];

/// Text that looks like TOML, broken in random ways.
fn tomlish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => proptest::sample::select(TOML_FRAGMENTS).prop_map(str::to_string),
        1 => "[a-z_. ]{0,10}",
        1 => any::<String>(),
    ];
    proptest::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

/// A TOML value of any type, including out-of-range ones.
fn toml_value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        Just("99999999999999999999".to_string()),
        any::<f64>().prop_map(|f| format!("{f:?}")),
        any::<bool>().prop_map(|b| b.to_string()),
        any::<String>().prop_map(|s| format!("{s:?}")),
        "[a-z {}._!?-]{0,40}".prop_map(|s| format!("\"{s}\"")),
        Just("[1, \"a\"]".to_string()),
        Just("{ x = 1 }".to_string()),
        Just("\"\"".to_string()),
        Just(String::new()),
    ]
}

/// A line-level change to a shipped TOML file.
#[derive(Debug, Clone)]
enum Edit {
    /// Replace the value of the n-th `key = value` line.
    Value(Index, String),
    /// Remove a line.
    Remove(Index),
    /// Repeat a line (duplicate keys, duplicate tables).
    Repeat(Index),
    /// Insert a line of junk.
    Insert(Index, String),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (any::<Index>(), toml_value()).prop_map(|(i, v)| Edit::Value(i, v)),
        1 => any::<Index>().prop_map(Edit::Remove),
        1 => any::<Index>().prop_map(Edit::Repeat),
        1 => (any::<Index>(), tomlish()).prop_map(|(i, s)| Edit::Insert(i, s)),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for e in edits {
        if lines.is_empty() {
            break;
        }
        match e {
            Edit::Value(i, v) => {
                let assignments: Vec<usize> = (0..lines.len())
                    .filter(|n| !lines[*n].starts_with('#') && lines[*n].contains(" = "))
                    .collect();
                if assignments.is_empty() {
                    continue;
                }
                let n = *i.get(&assignments);
                if let Some((k, _)) = lines[n].split_once(" = ") {
                    lines[n] = format!("{k} = {v}");
                }
            }
            Edit::Remove(i) => {
                lines.remove(i.index(lines.len()));
            }
            Edit::Repeat(i) => {
                let n = i.index(lines.len());
                lines.insert(n, lines[n].clone());
            }
            Edit::Insert(i, s) => lines.insert(i.index(lines.len() + 1), s.clone()),
        }
    }
    lines.join("\n")
}

/// A policy's error must name the file and the line.
fn check_policy(text: &str) -> Result<(), TestCaseError> {
    if let Err(e) = load_policy(text, "p.toml") {
        prop_assert!(
            e.to_string().starts_with("policy p.toml"),
            "the error does not name the file: {e}"
        );
        prop_assert!(
            e.line.is_some() && e.column.is_some(),
            "the error does not name the line: {e}\n---\n{text}"
        );
    }
    Ok(())
}

#[test]
fn fuzz_policy_arbitrary_text_never_panics_and_errors_name_the_line() {
    fuzz("policy_arbitrary_text", 800, tomlish(), |text| {
        check_policy(&text)
    });
}

#[test]
fn fuzz_policy_edits_of_the_default_never_panic_and_errors_name_the_line() {
    let strategy = proptest::collection::vec(edit(), 1..5);
    fuzz("policy_edited_default", 800, strategy, |edits| {
        check_policy(&apply(DEFAULT_POLICY_TOML, &edits))
    });
}

/// A key as a keymap file may write it, or nearly.
fn key_text() -> impl Strategy<Value = String> {
    let base = prop_oneof![
        proptest::sample::select(KEY_NAMES).prop_map(str::to_string),
        any::<char>().prop_map(String::from),
        "[a-zA-Z0-9]{1,3}",
        "f[0-9]{1,3}",
    ];
    let modifier = proptest::sample::select(vec!["", "ctrl-", "alt-", "shift-", "CTRL-", "hyper-"]);
    proptest::collection::vec((modifier, base), 1..4).prop_map(|keys| {
        keys.into_iter()
            .map(|(m, k)| format!("{m}{k}"))
            .collect::<Vec<_>>()
            .join(" ")
    })
}

fn action_text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(Action::all()).prop_map(|a| a.name().to_string()),
        1 => Just("none".to_string()),
        1 => "[a-z_]{0,12}",
    ]
}

#[test]
fn fuzz_keymap_files_never_panic_and_errors_name_the_file() {
    let structured = proptest::collection::vec((key_text(), action_text()), 0..8).prop_map(|kv| {
        let mut text = String::from("[keys]\n");
        for (k, a) in kv {
            text.push_str(&format!("{k:?} = {a:?}\n"));
        }
        text
    });
    let strategy = prop_oneof![structured, tomlish()];
    fuzz("keymap_files", 800, strategy, |text| {
        let mut k = Keymap::default_keys();
        match k.apply_toml(&text, "keymap.toml") {
            Ok(()) => {
                // Every binding left must resolve to its action.
                for (chord, action) in k.bindings().collect::<Vec<_>>() {
                    let keys = parse_chord(&chord)
                        .ok_or_else(|| TestCaseError::fail(format!("'{chord}' does not parse")))?;
                    prop_assert_eq!(
                        k.resolve(&keys),
                        tieout::tui::keymap::Resolved::Action(action)
                    );
                }
            }
            Err(e) => prop_assert!(
                e.to_string().starts_with("keymap.toml: "),
                "the error does not name the file: {e}"
            ),
        }
        Ok(())
    });
}

#[test]
fn fuzz_key_names_round_trip() {
    let strategy = prop_oneof![key_text(), any::<String>()];
    fuzz("keymap_key_names", 1500, strategy, |text| {
        if let Some(chord) = parse_chord(&text) {
            let shown = chord_text(&chord);
            prop_assert_eq!(parse_chord(&shown), Some(chord), "shown as '{}'", shown);
        }
        Ok(())
    });
}

fn colour() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(vec!["red", "lightblue", "reset", "gray", "Black"])
            .prop_map(str::to_string),
        any::<u16>().prop_map(|n| n.to_string()),
        "#[0-9a-fA-F]{0,8}",
        any::<String>(),
    ]
}

#[test]
fn fuzz_theme_files_never_panic_and_errors_name_the_file() {
    let role = prop_oneof![
        4 => proptest::sample::select(Role::ALL.to_vec()).prop_map(|r| r.name().to_string()),
        1 => "[a-z_]{1,12}",
    ];
    let spec = (
        proptest::option::of(colour()),
        proptest::option::of(colour()),
        any::<bool>(),
        proptest::option::of("[a-z]{1,8}"),
    );
    let structured = proptest::collection::vec((role, spec), 0..8).prop_map(|roles| {
        let mut text = String::from("name = \"fuzz\"\n");
        for (role, (fg, bg, bold, extra)) in roles {
            text.push_str(&format!("[roles.{role}]\n"));
            if let Some(fg) = fg {
                text.push_str(&format!("fg = {fg:?}\n"));
            }
            if let Some(bg) = bg {
                text.push_str(&format!("bg = {bg:?}\n"));
            }
            text.push_str(&format!("bold = {bold}\n"));
            if let Some(extra) = extra {
                text.push_str(&format!("{extra} = true\n"));
            }
        }
        text
    });
    let strategy = prop_oneof![structured, tomlish()];
    fuzz("theme_files", 800, strategy, |text| {
        match Theme::parse(&text, "t.toml") {
            Ok(theme) => prop_assert!(
                theme
                    .style(Role::Selection)
                    .add_modifier
                    .contains(ratatui::style::Modifier::REVERSED)
            ),
            Err(e) => prop_assert!(
                e.to_string().starts_with("t.toml: "),
                "the error does not name the file: {e}"
            ),
        }
        Ok(())
    });
}
