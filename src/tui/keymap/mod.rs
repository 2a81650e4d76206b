//! Keys to actions. The only place that looks at key codes: a key press becomes a [`Key`],
//! a sequence of keys resolves through the [`Keymap`] to an [`Action`]. Presets are
//! embedded TOML (`default.toml`, `vim.toml`); a user file lists only what it changes.
//! Errors name the file, the bad entry and the valid names, and are shown before the
//! terminal is taken over.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::Deserialize;

use super::action::Action;

mod key;

pub use key::{Chord, KEY_NAMES, Key, chord_text, parse_chord};

const DEFAULT_TOML: &str = include_str!("default.toml");
const VIM_TOML: &str = include_str!("vim.toml");

/// The key presets `--keys` accepts.
pub const PRESETS: &[&str] = &["default", "vim"];

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

#[cfg(test)]
mod tests {
    use super::*;

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
