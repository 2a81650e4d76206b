//! One key and key sequences: what a key press is once normalised ([`Key`]), how a
//! keymap file writes it (`q`, `G`, `ctrl-c`, `shift-tab`, `f5`, `space`, `g g`) and how
//! hints show it. The keymap resolves these to actions; nothing else looks at key codes.

use std::fmt;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

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
}
