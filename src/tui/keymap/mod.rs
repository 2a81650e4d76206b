//! Keys to actions. The only place that looks at key codes: a key press becomes a [`Key`],
//! a sequence of keys resolves through the [`Keymap`] to an [`Action`]. Presets are
//! embedded TOML (`default.toml`, `vim.toml`); a user file lists only what it changes.
//! Errors name the file, the bad entry and the valid names, and are shown before the
//! terminal is taken over.
//!
//! # Layers
//!
//! A keymap file has one `[keys]` table of `"key" = "action"` (or `"none"` to unbind):
//!
//! - `[keys]` itself is the global layer, in force everywhere keys are actions;
//! - `[keys.<tab>]` (`worklist`, `tieout`, `refunds`, `query`) and `[keys.help]` are
//!   context layers: while their tab or the help overlay is shown, their bindings win
//!   over the global ones;
//! - `[keys.input]` and `[keys.confirm]` are mode layers ([`modes`]), in force while text
//!   is typed: `input` in the command palette, the filter, go to, month and folder prompts
//!   and the Query tab's SQL editor, `confirm` in the Refunds tab's typed refund
//!   confirmation. A mode layer stands alone: the global keys do not apply, the keys it
//!   binds are typing actions (`submit`, `cancel`, `delete_back`, `delete_forward`,
//!   `cursor_left`, `cursor_right`, `line_start`, `line_end`, `prev_history`,
//!   `next_history`, `clear_line`, and the SQL editor's `newline` and `toggle_multiline`),
//!   and every other printable key is typed. It binds single keys, and only the actions its
//!   modes act on; the typing actions go nowhere else.
//!
//! ```toml
//! [keys.input]
//! "ctrl-g" = "cancel"    # leave a prompt or the editor with ctrl-g too
//! "ctrl-h" = "delete_back"
//!
//! [keys.confirm]
//! "ctrl-s" = "submit"    # send the typed confirmation with ctrl-s ...
//! "enter" = "none"       # ... and no longer with enter
//! ```
//!
//! The refund confirmation sends only when `yes` has been typed before `submit`: a
//! rebound key set changes which keys, never that rule.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::Deserialize;

use super::action::Action;

mod key;
pub mod modes;

pub use key::{Chord, KEY_NAMES, Key, chord_text, parse_chord};
pub use modes::{CONFIRM, INPUT, Input, MODES};

const DEFAULT_TOML: &str = include_str!("default.toml");
const VIM_TOML: &str = include_str!("vim.toml");

/// The key presets `--keys` accepts.
pub const PRESETS: &[&str] = &["default", "vim"];

/// What a keymap file or a key name got wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeymapError {
    /// After the file's changes, some screen has no key left that quits.
    #[error(
        "{origin}: no key quits the workbench {place} after this file's changes; keep a key bound to quit (the default is \"q\" = \"quit\", and \"ctrl-c\" = \"quit\" also works)"
    )]
    NoQuit { origin: String, place: String },
    #[error("{origin}: unknown key '{key}'. Keys are single characters or {names}, optionally with ctrl-, alt-, shift- (sequences: \"g g\")", names = KEY_NAMES.join(", "))]
    UnknownKey { origin: String, key: String },
    #[error("{origin}: '{key}' is bound to unknown action '{action}'. Valid actions: {valid}, or none to unbind", valid = Action::valid_names())]
    UnknownAction {
        origin: String,
        key: String,
        action: String,
    },
    #[error(
        "{origin}: [keys.{layer}] '{key}' is bound to unknown action '{action}'. Valid actions in [keys.{layer}]: {valid}, or none to unbind"
    )]
    UnknownModeAction {
        origin: String,
        layer: String,
        key: String,
        action: String,
        valid: String,
    },
    #[error(
        "{origin}: [keys.{layer}] '{key}' is bound to '{action}', which does nothing while typing there. Valid actions in [keys.{layer}]: {valid}, or none to unbind"
    )]
    NotInMode {
        origin: String,
        layer: String,
        key: String,
        action: String,
        valid: String,
    },
    #[error("{origin}: '{key}' is bound to '{action}', an action for typing text: it goes in {tables}", tables = modes::tables())]
    TypingAction {
        origin: String,
        key: String,
        action: String,
    },
    #[error(
        "{origin}: [keys.{layer}] '{key}' is a sequence; a mode layer binds single keys (typed text cannot wait for the rest)"
    )]
    ModeSequence {
        origin: String,
        layer: String,
        key: String,
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
/// registry key), one per mode that reads actions (`help`), and the mode layers of the
/// modes that read typed text ([`MODES`]).
pub fn contexts() -> Vec<&'static str> {
    let mut c: Vec<&'static str> = super::tabs::ALL.iter().map(|t| t.key).collect();
    c.push(HELP);
    c.extend(MODES.iter().map(|m| m.name));
    c
}

/// The layer used while the help overlay is open.
pub const HELP: &str = "help";

/// Key sequences to actions, in layers: the global layer, then one layer per context
/// (a tab, a mode) whose bindings win over the global ones while it is active, and the
/// mode layers that stand alone while text is typed. Plus the reverse map for hints and
/// help.
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

/// Applies `"key" = "action"` entries to one layer: a mode layer (`mode`) takes single
/// keys and its own typing actions, any other layer every action but the typing ones.
fn apply_entries<'a>(
    layer: &mut BTreeMap<Chord, Action>,
    entries: impl IntoIterator<Item = (&'a String, &'a String)>,
    origin: &str,
    mode: Option<&modes::ModeLayer>,
) -> Result<(), KeymapError> {
    for (keys, action) in entries {
        let chord = parse_chord(keys).ok_or_else(|| KeymapError::UnknownKey {
            origin: origin.to_string(),
            key: keys.clone(),
        })?;
        if let Some(m) = mode
            && chord.len() > 1
        {
            return Err(KeymapError::ModeSequence {
                origin: origin.to_string(),
                layer: m.name.to_string(),
                key: keys.clone(),
            });
        }
        if action == "none" || action == "unbind" {
            layer.remove(&chord);
            continue;
        }
        let act = layer_action(action, mode).map_err(|e| e.error(origin, keys, action))?;
        // A new binding replaces any binding that it would shadow or be shadowed by.
        layer.retain(|k, _| !(k.starts_with(&chord) || chord.starts_with(k)));
        layer.insert(chord, act);
    }
    Ok(())
}

/// Why a layer refuses an action name.
enum Refused<'m> {
    Unknown(Option<&'m modes::ModeLayer>),
    NotInMode(&'m modes::ModeLayer),
    Typing,
}

impl Refused<'_> {
    fn error(&self, origin: &str, key: &str, action: &str) -> KeymapError {
        let (origin, key, action) = (origin.to_string(), key.to_string(), action.to_string());
        match self {
            Refused::Unknown(None) => KeymapError::UnknownAction {
                origin,
                key,
                action,
            },
            Refused::Unknown(Some(m)) => KeymapError::UnknownModeAction {
                origin,
                layer: m.name.to_string(),
                key,
                action,
                valid: m.valid_names(),
            },
            Refused::NotInMode(m) => KeymapError::NotInMode {
                origin,
                layer: m.name.to_string(),
                key,
                action,
                valid: m.valid_names(),
            },
            Refused::Typing => KeymapError::TypingAction {
                origin,
                key,
                action,
            },
        }
    }
}

/// The action `name` names, if the layer (`mode`, or a plain layer) takes it.
fn layer_action<'m>(name: &str, mode: Option<&'m modes::ModeLayer>) -> Result<Action, Refused<'m>> {
    let known = Action::from_name(name).ok_or(Refused::Unknown(mode))?;
    match mode {
        Some(m) => m.action(name).ok_or(Refused::NotInMode(m)),
        None if known.is_typing() => Err(Refused::Typing),
        None => Ok(known),
    }
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
        let text =
            crate::app::toml_file::read_utf8_file(path).map_err(|message| KeymapError::Syntax {
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
                crate::app::toml_file::toml_error_text(text, &e)
            ),
        })?;
        let global = file.keys.iter().filter_map(|(k, e)| match e {
            Entry::Action(a) => Some((k, a)),
            Entry::Layer(_) => None,
        });
        apply_entries(&mut self.bindings, global, origin, None)?;
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
            apply_entries(layer, entries, origin, modes::mode(name))?;
            check_prefixes(layer, origin)?;
        }
        self.check_quit(origin)
    }

    /// Some key quits on every screen that reads actions (the tabs and the help; the modes
    /// that read typed text leave with their own cancel key): a keymap that unbinds every
    /// way out would leave a terminal only a kill can free.
    fn check_quit(&self, origin: &str) -> Result<(), KeymapError> {
        let quits =
            |context: Option<&str>| self.effective(context).values().any(|a| *a == Action::Quit);
        let screens = contexts().into_iter().filter(|c| modes::mode(c).is_none());
        for context in std::iter::once(None).chain(screens.map(Some)) {
            if !quits(context) {
                return Err(KeymapError::NoQuit {
                    origin: origin.to_string(),
                    place: context.map_or_else(
                        || "(in its global [keys])".to_string(),
                        |c| format!("in [keys.{c}]"),
                    ),
                });
            }
        }
        Ok(())
    }

    /// The bindings in force in `context` (`None`: the global layer alone): the
    /// context's layer over the global one, or a mode layer alone.
    fn effective(&self, context: Option<&str>) -> BTreeMap<Chord, Action> {
        let mut map = if context.and_then(modes::mode).is_some() {
            BTreeMap::new()
        } else {
            self.bindings.clone()
        };
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

    /// What `key` means while the mode layer `mode` is in force: the typing action it
    /// binds, else the printable character (text), else nothing.
    pub fn input(&self, mode: &str, key: Key) -> Input {
        match self.layers.get(mode).and_then(|l| l.get([key].as_slice())) {
            Some(a) => Input::Action(*a),
            None => key.text_char().map_or(Input::Unbound, Input::Char),
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

/// The tab an action belongs to: the tab layer that binds it in the default keys when
/// their global layer does not (`facets` is the Worklist's, `export_packet` the
/// Tie-out's); `None` for an action of every tab. The command palette offers a tab's own
/// actions only on that tab, whatever a user's keymap moved.
pub fn home_tab(action: Action) -> Option<&'static str> {
    static DEFAULT: std::sync::OnceLock<Keymap> = std::sync::OnceLock::new();
    let keys = DEFAULT.get_or_init(Keymap::default_keys);
    if !keys.keys_in(None, action).is_empty() {
        return None;
    }
    super::tabs::ALL
        .iter()
        .map(|t| t.key)
        .find(|tab| !keys.keys_in(Some(tab), action).is_empty())
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

    /// A keymap file that unbinds every way to quit, globally or on one tab, is refused
    /// with the place and how to keep a quit key.
    #[test]
    fn a_keymap_that_leaves_no_way_to_quit_is_refused() {
        let mut k = Keymap::default_keys();
        let bound: Vec<String> = k.keys_for(Action::Quit);
        assert!(!bound.is_empty());
        let unbind_all: String = bound
            .iter()
            .map(|key| format!("\"{key}\" = \"none\"\n"))
            .collect();
        let e = k
            .apply_toml(&format!("[keys]\n{unbind_all}"), "keymap.toml")
            .expect_err("no quit left");
        assert!(e.to_string().contains("no key quits the workbench"), "{e}");
        // One tab's layer taking over every quit key is refused too, naming the tab.
        let mut k = Keymap::default_keys();
        let take: String = bound
            .iter()
            .map(|key| format!("\"{key}\" = \"down\"\n"))
            .collect();
        let e = k
            .apply_toml(&format!("[keys.worklist]\n{take}"), "keymap.toml")
            .expect_err("no quit on the worklist");
        assert!(e.to_string().contains("[keys.worklist]"), "{e}");
        // Moving quit to another key is fine.
        let mut k = Keymap::default_keys();
        k.apply_toml(
            &format!("[keys]\n{unbind_all}\"ctrl-q\" = \"quit\"\n"),
            "keymap.toml",
        )
        .expect("quit moved");
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
        let v = [Key::char('v')];
        assert_eq!(
            k.resolve_in(Some("worklist"), &v),
            Resolved::Action(Action::RecoveryView)
        );
        assert_eq!(k.resolve_in(Some("tieout"), &v), Resolved::Unbound);
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

    fn key(text: &str) -> Key {
        Key::parse(text).expect(text)
    }

    #[test]
    fn mode_layers_stand_alone_and_printable_keys_are_text() {
        let k = Keymap::default_keys();
        // The global keys do not apply while typing: `q` and `y` are letters.
        assert_eq!(k.input(INPUT, key("q")), Input::Char('q'));
        assert_eq!(k.input(CONFIRM, key("Y")), Input::Char('Y'));
        assert_eq!(k.input(INPUT, key("enter")), Input::Action(Action::Submit));
        assert_eq!(
            k.input(INPUT, key("ctrl-a")),
            Input::Action(Action::LineStart)
        );
        assert_eq!(k.input(INPUT, key("ctrl-c")), Input::Unbound);
        assert_eq!(
            k.input(INPUT, key("alt-enter")),
            Input::Action(Action::Newline)
        );
        assert_eq!(
            k.input(INPUT, key("ctrl-o")),
            Input::Action(Action::ToggleMultiline)
        );
        assert_eq!(k.input(CONFIRM, key("alt-enter")), Input::Unbound);
        assert_eq!(k.input(INPUT, key("tab")), Input::Unbound);
        assert_eq!(
            k.input(CONFIRM, key("ctrl-c")),
            Input::Action(Action::Cancel)
        );
        assert_eq!(k.input(CONFIRM, key("ctrl-u")), Input::Unbound);
        assert_eq!(k.input(CONFIRM, key("left")), Input::Unbound);
        // Outside a mode layer the same keys keep their meaning; hints and the help find
        // the typing keys in their layer only.
        assert_eq!(k.resolve(&[key("enter")]), Resolved::Action(Action::Open));
        assert_eq!(k.key_in(None, Action::Submit), None);
        assert_eq!(k.key_in(Some(INPUT), Action::Quit), None);
        assert_eq!(
            k.key_in(Some(INPUT), Action::Cancel).as_deref(),
            Some("esc")
        );
        assert_eq!(k.keys_in(Some(CONFIRM), Action::Cancel), ["esc", "ctrl-c"]);
        assert_eq!(
            k.resolve_in(Some(INPUT), &[key("q")]),
            Resolved::Unbound,
            "no global key leaks into a mode layer"
        );
    }

    #[test]
    fn a_user_file_rebinds_one_mode_layer_only() {
        let mut k = Keymap::default_keys();
        k.apply_toml(
            "[keys.input]\n\"ctrl-g\" = \"cancel\"\n\"esc\" = \"none\"\n\"ctrl-j\" = \"submit\"\n",
            "test",
        )
        .expect("valid");
        assert_eq!(k.input(INPUT, key("ctrl-g")), Input::Action(Action::Cancel));
        assert_eq!(k.input(INPUT, key("esc")), Input::Unbound);
        assert_eq!(k.input(INPUT, key("ctrl-j")), Input::Action(Action::Submit));
        assert_eq!(k.input(INPUT, key("enter")), Input::Action(Action::Submit));
        // The confirmation's layer and the global one keep their keys.
        assert_eq!(k.input(CONFIRM, key("esc")), Input::Action(Action::Cancel));
        assert_eq!(k.input(CONFIRM, key("ctrl-g")), Input::Unbound);
        assert_eq!(k.resolve(&[key("esc")]), Resolved::Action(Action::Back));
        assert_eq!(k.resolve(&[key("ctrl-g")]), Resolved::Unbound);
    }

    #[test]
    fn mode_layers_refuse_unknown_and_foreign_actions_and_sequences() {
        let mut k = Keymap::default_keys();
        let err = k
            .apply_toml("[keys.input]\n\"ctrl-g\" = \"abort\"\n", "keymap.toml")
            .expect_err("unknown action");
        let text = err.to_string();
        assert!(text.starts_with("keymap.toml: [keys.input] "), "{text}");
        assert!(
            text.contains("'ctrl-g'") && text.contains("'abort'"),
            "{text}"
        );
        assert!(
            text.contains(
                "Valid actions in [keys.input]: submit, cancel, delete_back, delete_forward, \
                 cursor_left, cursor_right, line_start, line_end, prev_history, next_history, \
                 clear_line, newline, toggle_multiline, or none to unbind"
            ),
            "{text}"
        );

        // An action the layer does not take: the layer's own names.
        let err = k
            .apply_toml(
                "[keys.confirm]\n\"left\" = \"cursor_left\"\n",
                "keymap.toml",
            )
            .expect_err("no cursor in the confirmation");
        assert!(matches!(err, KeymapError::NotInMode { .. }), "{err}");
        let text = err.to_string();
        assert!(
            text.starts_with("keymap.toml: [keys.confirm] 'left'"),
            "{text}"
        );
        assert!(
            text.contains("submit, cancel, delete_back, clear_line, or none"),
            "{text}"
        );
        let err = k
            .apply_toml("[keys.confirm]\n\"ctrl-j\" = \"newline\"\n", "keymap.toml")
            .expect_err("the confirmation has one line");
        assert!(matches!(err, KeymapError::NotInMode { .. }), "{err}");
        let err = k
            .apply_toml("[keys.input]\n\"ctrl-q\" = \"quit\"\n", "keymap.toml")
            .expect_err("quit is not a typing action");
        assert!(matches!(err, KeymapError::NotInMode { .. }), "{err}");

        // A typing action outside a mode layer says where it goes.
        for text in [
            "[keys]\n\"x\" = \"submit\"\n",
            "[keys.query]\n\"x\" = \"cancel\"\n",
        ] {
            let err = k
                .apply_toml(text, "keymap.toml")
                .expect_err("typing action");
            assert!(matches!(err, KeymapError::TypingAction { .. }), "{err}");
            assert!(
                err.to_string().starts_with("keymap.toml: 'x'")
                    && err.to_string().contains("[keys.input] or [keys.confirm]"),
                "{err}"
            );
        }

        // Typed text cannot wait for the rest of a sequence.
        let err = k
            .apply_toml("[keys.input]\n\"g g\" = \"line_start\"\n", "keymap.toml")
            .expect_err("a sequence");
        assert!(matches!(err, KeymapError::ModeSequence { .. }), "{err}");
        assert!(
            err.to_string()
                .starts_with("keymap.toml: [keys.input] 'g g'"),
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
