//! Keys to actions. The only place that looks at key codes: a key press becomes a [`Key`],
//! a sequence of keys resolves through the [`Keymap`] to an [`Action`]. Presets are
//! embedded TOML (`default.toml`, `vim.toml`); a user file lists only what it changes.
//! Errors name the file, the bad entry and the valid names, and are shown before the
//! terminal is taken over.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use serde::Deserialize;

use super::action::Action;

const DEFAULT_TOML: &str = include_str!("default.toml");
const VIM_TOML: &str = include_str!("vim.toml");

/// The key presets `--keys` accepts.
pub const PRESETS: &[&str] = &["default", "vim"];

/// Key names a keymap file may use besides single characters.
pub const KEY_NAMES: &[&str] = &[
    "enter",
    "esc",
    "tab",
    "backtab",
    "backspace",
    "delete",
    "insert",
    "space",
    "up",
    "down",
    "left",
    "right",
    "pageup",
    "pagedown",
    "home",
    "end",
    "f1",
    "f2",
    "f3",
    "f4",
    "f5",
    "f6",
    "f7",
    "f8",
    "f9",
    "f10",
    "f11",
    "f12",
];

/// One key with its modifiers, normalised: a shifted character is stored as the
/// character it produces (`G`, `?`) without SHIFT, so "G" and "shift-g" are the same key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    code: KeyCodeOrd,
    ctrl: bool,
    alt: bool,
    shift: bool,
}

/// `KeyCode` is not `Ord`; we keep the few codes we bind in an ordered form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum KeyCodeOrd {
    Char(char),
    F(u8),
    Named(u8), // index into NAMED
}

const NAMED: &[(&str, KeyCode)] = &[
    ("enter", KeyCode::Enter),
    ("esc", KeyCode::Esc),
    ("tab", KeyCode::Tab),
    ("backtab", KeyCode::BackTab),
    ("backspace", KeyCode::Backspace),
    ("delete", KeyCode::Delete),
    ("insert", KeyCode::Insert),
    ("up", KeyCode::Up),
    ("down", KeyCode::Down),
    ("left", KeyCode::Left),
    ("right", KeyCode::Right),
    ("pageup", KeyCode::PageUp),
    ("pagedown", KeyCode::PageDown),
    ("home", KeyCode::Home),
    ("end", KeyCode::End),
];

/// What a keymap file or a key name got wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeymapError {
    #[error("{origin}: unknown key '{key}'. Keys are single characters or {names}, optionally with ctrl-, alt-, shift- (sequences: \"g g\")", names = KEY_NAMES.join(", "))]
    UnknownKey { origin: String, key: String },
    #[error("{origin}: '{key}' is bound to unknown action '{action}'. Valid actions: {valid}, or none to unbind", valid = Action::valid_names())]
    UnknownAction {
        origin: String,
        key: String,
        action: String,
    },
    #[error("{origin}: {message}")]
    Syntax { origin: String, message: String },
    #[error("{origin}: unknown keymap layer [keys.{context}]. Layers: {names}", names = contexts().join(", "))]
    UnknownContext { origin: String, context: String },
    #[error("unknown key preset '{0}': use default or vim")]
    UnknownPreset(String),
    #[error(
        "{origin}: '{key}' starts another binding ('{other}'); a key cannot be both a key and the start of a sequence"
    )]
    Prefix {
        origin: String,
        key: String,
        other: String,
    },
}

impl Key {
    pub fn char(c: char) -> Self {
        Key {
            code: KeyCodeOrd::Char(c),
            ctrl: false,
            alt: false,
            shift: false,
        }
    }

    /// Builds the normalised key from a crossterm event; key releases and repeats of
    /// modifier-only keys give `None`.
    pub fn from_event(ev: &KeyEvent) -> Option<Self> {
        if ev.kind == KeyEventKind::Release {
            return None;
        }
        let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
        let alt = ev.modifiers.contains(KeyModifiers::ALT);
        let mut shift = ev.modifiers.contains(KeyModifiers::SHIFT);
        let code = match ev.code {
            KeyCode::Char(c) => {
                // A shifted character already is the character it produces.
                shift = false;
                let c = if ctrl { c.to_ascii_lowercase() } else { c };
                KeyCodeOrd::Char(c)
            }
            KeyCode::F(n) => KeyCodeOrd::F(n),
            KeyCode::BackTab => {
                shift = true;
                KeyCodeOrd::Named(named_index("tab")?)
            }
            other => {
                let i = NAMED.iter().position(|(_, k)| *k == other)?;
                KeyCodeOrd::Named(u8::try_from(i).ok()?)
            }
        };
        Some(Key {
            code,
            ctrl,
            alt,
            shift,
        })
    }

    /// Parses `q`, `G`, `ctrl-c`, `shift-tab`, `f5`, `space`, `pagedown`.
    pub fn parse(text: &str) -> Option<Self> {
        let mut ctrl = false;
        let mut alt = false;
        let mut shift = false;
        let mut rest = text;
        loop {
            let lower = rest.to_ascii_lowercase();
            if rest.len() > 1 && lower.starts_with("ctrl-") {
                ctrl = true;
                rest = &rest[5..];
            } else if rest.len() > 1 && lower.starts_with("alt-") {
                alt = true;
                rest = &rest[4..];
            } else if rest.len() > 1 && lower.starts_with("shift-") {
                shift = true;
                rest = &rest[6..];
            } else {
                break;
            }
        }
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (Some(c), None) => {
                // Like key events, a character carries its shift in itself.
                let shifted = std::mem::take(&mut shift);
                let c = if shifted && c.is_ascii_alphabetic() {
                    c.to_ascii_uppercase()
                } else if ctrl {
                    c.to_ascii_lowercase()
                } else {
                    c
                };
                KeyCodeOrd::Char(c)
            }
            _ => {
                let lower = rest.to_ascii_lowercase();
                if lower == "space" {
                    KeyCodeOrd::Char(' ')
                } else if lower == "backtab" {
                    shift = true;
                    KeyCodeOrd::Named(named_index("tab")?)
                } else if let Some(n) = lower.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()) {
                    if !(1..=12).contains(&n) {
                        return None;
                    }
                    KeyCodeOrd::F(n)
                } else {
                    KeyCodeOrd::Named(named_index(&lower)?)
                }
            }
        };
        Some(Key {
            code,
            ctrl,
            alt,
            shift,
        })
    }

    /// Whether this is a plain printable character (text for a prompt).
    pub fn text_char(&self) -> Option<char> {
        match self.code {
            KeyCodeOrd::Char(c) if !self.ctrl && !self.alt => Some(c),
            _ => None,
        }
    }

    pub fn is_named(&self, name: &str) -> bool {
        matches!(self.code, KeyCodeOrd::Named(i) if NAMED.get(usize::from(i)).map(|(n, _)| *n) == Some(name))
            && !self.ctrl
            && !self.alt
    }
}

fn named_index(name: &str) -> Option<u8> {
    let i = NAMED.iter().position(|(n, _)| *n == name)?;
    u8::try_from(i).ok()
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ctrl {
            f.write_str("ctrl-")?;
        }
        if self.alt {
            f.write_str("alt-")?;
        }
        if self.shift {
            f.write_str("shift-")?;
        }
        match self.code {
            KeyCodeOrd::Char(' ') => f.write_str("space"),
            KeyCodeOrd::Char(c) => write!(f, "{c}"),
            KeyCodeOrd::F(n) => write!(f, "f{n}"),
            KeyCodeOrd::Named(i) => f.write_str(NAMED.get(usize::from(i)).map_or("?", |(n, _)| n)),
        }
    }
}

/// A sequence of keys, written with spaces (`g g`).
pub type Chord = Vec<Key>;

/// Formats a chord for hints and the status bar.
pub fn chord_text(chord: &[Key]) -> String {
    chord
        .iter()
        .map(Key::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The result of feeding a key to the keymap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// The keys so far name this action.
    Action(Action),
    /// The keys so far start a longer binding: wait for more.
    Pending,
    /// Nothing is bound to these keys.
    Unbound,
}

/// The keymap layers besides the global one: one per tab of the pane registry (its
/// registry key) and one per mode that reads actions (`help`).
pub fn contexts() -> Vec<&'static str> {
    let mut c: Vec<&'static str> = super::panes::TABS.iter().map(|t| t.key).collect();
    c.push(HELP);
    c
}

/// The layer used while the help overlay is open.
pub const HELP: &str = "help";

/// Key sequences to actions, in layers: the global layer, then one layer per context
/// (a tab, a mode) whose bindings win over the global ones while it is active. Plus the
/// reverse map for hints and help.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Keymap {
    bindings: BTreeMap<Chord, Action>,
    layers: BTreeMap<String, BTreeMap<Chord, Action>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeymapFile {
    #[serde(default)]
    keys: BTreeMap<String, Entry>,
}

/// One entry of `[keys]`: a global binding (`"q" = "quit"`) or a context's layer
/// (`[keys.worklist]`).
enum Entry {
    Action(String),
    Layer(BTreeMap<String, String>),
}

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Entry;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Entry, E> {
                Ok(Entry::Action(v.to_string()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Entry, A::Error> {
                let layer =
                    Deserialize::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(Entry::Layer(layer))
            }
        }
        d.deserialize_any(V)
    }
}

/// Applies `"key" = "action"` entries to one layer.
fn apply_entries<'a>(
    layer: &mut BTreeMap<Chord, Action>,
    entries: impl IntoIterator<Item = (&'a String, &'a String)>,
    origin: &str,
) -> Result<(), KeymapError> {
    for (keys, action) in entries {
        let chord = parse_chord(keys).ok_or_else(|| KeymapError::UnknownKey {
            origin: origin.to_string(),
            key: keys.clone(),
        })?;
        if action == "none" || action == "unbind" {
            layer.remove(&chord);
            continue;
        }
        let act = Action::from_name(action).ok_or_else(|| KeymapError::UnknownAction {
            origin: origin.to_string(),
            key: keys.clone(),
            action: action.clone(),
        })?;
        // A new binding replaces any binding that it would shadow or be shadowed by.
        layer.retain(|k, _| !(k.starts_with(&chord) || chord.starts_with(k)));
        layer.insert(chord, act);
    }
    Ok(())
}

fn check_prefixes(layer: &BTreeMap<Chord, Action>, origin: &str) -> Result<(), KeymapError> {
    for a in layer.keys() {
        for b in layer.keys() {
            if a != b && b.starts_with(a) {
                return Err(KeymapError::Prefix {
                    origin: origin.to_string(),
                    key: chord_text(a),
                    other: chord_text(b),
                });
            }
        }
    }
    Ok(())
}

impl Keymap {
    /// The default keys (always valid; tested).
    pub fn default_keys() -> Self {
        let mut k = Keymap::default();
        // The embedded presets are tested to parse; an error here would be a build bug,
        // so fall back to an empty map rather than panic.
        let _ = k.apply_toml(DEFAULT_TOML, "default keys");
        k
    }

    /// A preset by name: `default` or `vim` (vim = default plus vim keys).
    pub fn preset(name: &str) -> Result<Self, KeymapError> {
        let mut k = Self::default_keys();
        match name {
            "default" => {}
            "vim" => k.apply_toml(VIM_TOML, "vim preset")?,
            other => return Err(KeymapError::UnknownPreset(other.to_string())),
        }
        Ok(k)
    }

    /// Applies a user keymap file's changes on top of this map.
    pub fn apply_file(&mut self, path: &Path) -> Result<(), KeymapError> {
        let origin = path.display().to_string();
        let text = super::theme::read_utf8_file(path).map_err(|message| KeymapError::Syntax {
            origin: origin.clone(),
            message,
        })?;
        self.apply_toml(&text, &origin)
    }

    /// Applies `[keys]` entries (the global layer) and `[keys.<context>]` tables (a
    /// context's layer) from TOML text. `origin` names the text in errors.
    pub fn apply_toml(&mut self, text: &str, origin: &str) -> Result<(), KeymapError> {
        let file: KeymapFile = toml::from_str(text).map_err(|e| KeymapError::Syntax {
            origin: origin.to_string(),
            message: format!(
                "{} (a keymap file has one [keys] table of \"key\" = \"action\")",
                super::theme::toml_error_text(text, &e)
            ),
        })?;
        let global = file.keys.iter().filter_map(|(k, e)| match e {
            Entry::Action(a) => Some((k, a)),
            Entry::Layer(_) => None,
        });
        apply_entries(&mut self.bindings, global, origin)?;
        check_prefixes(&self.bindings, origin)?;
        for (name, entry) in &file.keys {
            let Entry::Layer(entries) = entry else {
                continue;
            };
            if !contexts().contains(&name.as_str()) {
                return Err(KeymapError::UnknownContext {
                    origin: origin.to_string(),
                    context: name.clone(),
                });
            }
            let layer = self.layers.entry(name.clone()).or_default();
            apply_entries(layer, entries, origin)?;
            check_prefixes(layer, origin)?;
        }
        Ok(())
    }

    /// The bindings in force in `context` (`None`: the global layer alone): the
    /// context's layer over the global one.
    fn effective(&self, context: Option<&str>) -> BTreeMap<Chord, Action> {
        let mut map = self.bindings.clone();
        if let Some(layer) = context.and_then(|c| self.layers.get(c)) {
            for (chord, a) in layer {
                map.retain(|k, _| !(k.starts_with(chord) || chord.starts_with(k)));
                map.insert(chord.clone(), *a);
            }
        }
        map
    }

    /// Resolves the keys typed so far in the global layer.
    pub fn resolve(&self, keys: &[Key]) -> Resolved {
        self.resolve_in(None, keys)
    }

    /// Resolves the keys typed so far in `context` (its layer over the global one).
    pub fn resolve_in(&self, context: Option<&str>, keys: &[Key]) -> Resolved {
        let map = self.effective(context);
        if let Some(a) = map.get(keys) {
            return Resolved::Action(*a);
        }
        let prefix = map
            .range(keys.to_vec()..)
            .next()
            .is_some_and(|(k, _)| k.starts_with(keys));
        if prefix {
            Resolved::Pending
        } else {
            Resolved::Unbound
        }
    }

    /// The keys bound to an action in any layer, shortest first (the help lists every
    /// context's keys).
    pub fn keys_for(&self, action: Action) -> Vec<String> {
        let all = std::iter::once(&self.bindings).chain(self.layers.values());
        sorted_keys(all.flat_map(|l| l.iter()), action)
    }

    /// The keys bound to an action in `context`, shortest first.
    pub fn keys_in(&self, context: Option<&str>, action: Action) -> Vec<String> {
        sorted_keys(self.effective(context).iter(), action)
    }

    /// The first key for an action in any layer.
    pub fn key_for(&self, action: Action) -> Option<String> {
        self.keys_for(action).into_iter().next()
    }

    /// The first key for an action in `context`, for the hint line.
    pub fn key_in(&self, context: Option<&str>, action: Action) -> Option<String> {
        self.keys_in(context, action).into_iter().next()
    }

    /// Every binding of the global layer, for documentation.
    pub fn bindings(&self) -> impl Iterator<Item = (String, Action)> + '_ {
        self.bindings.iter().map(|(k, a)| (chord_text(k), *a))
    }
}

/// The chords bound to `action`, shortest first, each once.
fn sorted_keys<'a>(
    bindings: impl Iterator<Item = (&'a Chord, &'a Action)>,
    action: Action,
) -> Vec<String> {
    let chords: std::collections::BTreeSet<(usize, usize, String)> = bindings
        .filter(|(_, a)| **a == action)
        .map(|(k, _)| {
            let text = chord_text(k);
            (k.len(), text.len(), text)
        })
        .collect();
    chords.into_iter().map(|(_, _, t)| t).collect()
}

/// Parses `g g` into two keys.
pub fn parse_chord(text: &str) -> Option<Chord> {
    let keys: Option<Vec<Key>> = text.split_whitespace().map(Key::parse).collect();
    keys.filter(|k| !k.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyEventState;

    fn ev(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent {
            code,
            modifiers: mods,
            kind: KeyEventKind::Press,
            state: KeyEventState::NONE,
        }
    }

    #[test]
    fn presets_parse_and_resolve() {
        let k = Keymap::preset("default").expect("default");
        assert_eq!(
            k.resolve(&[Key::parse("q").expect("q")]),
            Resolved::Action(Action::Quit)
        );
        assert_eq!(k.resolve(&[Key::parse("j").expect("j")]), Resolved::Unbound);
        let v = Keymap::preset("vim").expect("vim");
        assert_eq!(
            v.resolve(&[Key::parse("j").expect("j")]),
            Resolved::Action(Action::Down)
        );
        let g = Key::char('g');
        assert_eq!(v.resolve(&[g]), Resolved::Pending);
        assert_eq!(v.resolve(&[g, g]), Resolved::Action(Action::Top));
        assert_eq!(
            v.resolve(&[Key::char('G')]),
            Resolved::Action(Action::Bottom)
        );
        // The default keys survive under the vim preset.
        assert_eq!(
            v.resolve(&[Key::parse("down").expect("down")]),
            Resolved::Action(Action::Down)
        );
        assert!(matches!(
            Keymap::preset("emacs"),
            Err(KeymapError::UnknownPreset(_))
        ));
    }

    #[test]
    fn every_action_has_a_default_key() {
        let k = Keymap::default_keys();
        for a in Action::all() {
            assert!(k.key_for(a).is_some(), "{} has no default key", a.name());
        }
        assert_eq!(k.key_for(Action::Help).as_deref(), Some("?"));
    }

    #[test]
    fn key_names_round_trip() {
        for text in [
            "q",
            "G",
            "?",
            "ctrl-c",
            "shift-tab",
            "f5",
            "space",
            "pagedown",
            "alt-x",
            "enter",
        ] {
            let key = Key::parse(text).expect(text);
            assert_eq!(Key::parse(&key.to_string()), Some(key), "{text}");
        }
        assert_eq!(Key::parse("shift-g"), Key::parse("G"));
        assert_eq!(Key::parse("backtab"), Key::parse("shift-tab"));
        assert_eq!(Key::parse("f13"), None);
        assert_eq!(Key::parse("hyper-x"), None);
        assert_eq!(Key::parse("pgdn"), None);
    }

    #[test]
    fn events_normalise() {
        let shifted_g = ev(KeyCode::Char('G'), KeyModifiers::SHIFT);
        assert_eq!(Key::from_event(&shifted_g), Key::parse("G"));
        let ctrl_c = ev(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(Key::from_event(&ctrl_c), Key::parse("ctrl-c"));
        let backtab = ev(KeyCode::BackTab, KeyModifiers::SHIFT);
        assert_eq!(Key::from_event(&backtab), Key::parse("shift-tab"));
        let mut release = ev(KeyCode::Char('q'), KeyModifiers::NONE);
        release.kind = KeyEventKind::Release;
        assert_eq!(Key::from_event(&release), None);
    }

    #[test]
    fn user_file_changes_only_what_it_names() {
        let mut k = Keymap::default_keys();
        k.apply_toml("[keys]\n\"x\" = \"quit\"\n\"q\" = \"none\"\n", "test")
            .expect("valid");
        assert_eq!(k.resolve(&[Key::char('x')]), Resolved::Action(Action::Quit));
        assert_eq!(k.resolve(&[Key::char('q')]), Resolved::Unbound);
        assert_eq!(
            k.resolve(&[Key::char('/')]),
            Resolved::Action(Action::Filter)
        );
    }

    #[test]
    fn bad_files_name_the_problem_and_the_valid_names() {
        let mut k = Keymap::default_keys();
        let err = k
            .apply_toml("[keys]\n\"x\" = \"launch_rockets\"\n", "keymap.toml")
            .expect_err("unknown action");
        let text = err.to_string();
        assert!(text.contains("keymap.toml"), "{text}");
        assert!(text.contains("launch_rockets"), "{text}");
        assert!(text.contains("copy_row"), "{text}");

        let err = k
            .apply_toml("[keys]\n\"hyper-x\" = \"quit\"\n", "keymap.toml")
            .expect_err("unknown key");
        assert!(err.to_string().contains("pagedown"), "{err}");

        let err = k
            .apply_toml("[bindings]\n\"x\" = \"quit\"\n", "keymap.toml")
            .expect_err("unknown table");
        assert!(matches!(err, KeymapError::Syntax { .. }), "{err}");

        let err = k
            .apply_toml("[keys]\n\"x\" = 3\n", "keymap.toml")
            .expect_err("not a string");
        assert!(matches!(err, KeymapError::Syntax { .. }), "{err}");
    }

    #[test]
    fn pane_actions_live_in_their_panes_layer() {
        let k = Keymap::default_keys();
        let f = [Key::char('f')];
        assert_eq!(
            k.resolve_in(Some("worklist"), &f),
            Resolved::Action(Action::Facets)
        );
        assert_eq!(k.resolve_in(Some("refunds"), &f), Resolved::Unbound);
        assert_eq!(k.resolve(&f), Resolved::Unbound);
        // Global keys apply in every layer; the help lists every layer's keys.
        assert_eq!(
            k.resolve_in(Some("tieout"), &[Key::char('q')]),
            Resolved::Action(Action::Quit)
        );
        assert_eq!(k.key_for(Action::ApproveRefund).as_deref(), Some("a"));
        assert_eq!(k.key_in(Some("worklist"), Action::ApproveRefund), None);
    }

    #[test]
    fn a_layer_wins_over_the_global_keys_and_unknown_layers_are_refused() {
        let mut k = Keymap::default_keys();
        // A flat file is the global layer.
        k.apply_toml("[keys]\n\"x\" = \"facets\"\n", "test")
            .expect("flat");
        assert_eq!(
            k.resolve(&[Key::char('x')]),
            Resolved::Action(Action::Facets)
        );
        k.apply_toml("[keys.refunds]\n\"q\" = \"approve_refund\"\n", "test")
            .expect("layer");
        let q = [Key::char('q')];
        assert_eq!(
            k.resolve_in(Some("refunds"), &q),
            Resolved::Action(Action::ApproveRefund)
        );
        assert_eq!(
            k.resolve_in(Some("worklist"), &q),
            Resolved::Action(Action::Quit)
        );
        let err = k
            .apply_toml("[keys.payouts]\n\"x\" = \"quit\"\n", "keymap.toml")
            .expect_err("unknown layer");
        assert!(err.to_string().starts_with("keymap.toml: "), "{err}");
        assert!(
            err.to_string()
                .contains("worklist, tieout, refunds, query, help"),
            "{err}"
        );
    }

    #[test]
    fn a_sequence_replaces_the_single_key_it_starts_with() {
        let mut k = Keymap::default_keys();
        k.apply_toml("[keys]\n\"s s\" = \"sort\"\n", "test")
            .expect("valid");
        assert_eq!(k.resolve(&[Key::char('s')]), Resolved::Pending);
        assert_eq!(
            k.resolve(&[Key::char('s'), Key::char('s')]),
            Resolved::Action(Action::Sort)
        );
    }
}
