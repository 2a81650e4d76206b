//! The one strict reader for the TOML files a person writes: `settings.toml`, the refund
//! policy (`suggest --policy`), the refund gate's `refund_gate.toml`, `bank.toml`, and the
//! TUI's keymap and theme files. Every one is read the same way, so a mistake in any of
//! them is reported the same way:
//!
//! - only a regular file, and at most [`MAX_CONFIG_BYTES`] (a device, a FIFO or a huge
//!   file is refused before it can exhaust memory);
//! - UTF-8 text only: anything else is refused with the line and column of the first bad
//!   byte (never mistaken for a permissions problem);
//! - parsed into `deny_unknown_fields` types: a key or table tieout does not know is
//!   refused with its line and column and the nearest known key ("did you mean `rate`?");
//! - every refusal names the file and the README section that documents it.

use std::path::Path;

use serde::de::DeserializeOwned;

use crate::failure::Failure;
use crate::files::{ReadError, read_input};

/// The most bytes read from one config file (1 MiB): a real one is a few KiB, so more is
/// the wrong file.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// A kind of config file: how messages name it and the README section that documents it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConfigDoc {
    /// How a message names the file, e.g. "the settings file".
    pub what: &'static str,
    /// The README heading (without `#`) that documents its keys.
    pub section: &'static str,
}

impl ConfigDoc {
    /// ` see the README's "Settings"` (for the end of a message).
    pub fn see(&self) -> String {
        format!("see the README's \"{}\"", self.section)
    }
}

/// `settings.toml` in the config folder.
pub const SETTINGS: ConfigDoc = ConfigDoc {
    what: "the settings file",
    section: "Settings",
};
/// The refund policy given to `suggest --policy`.
pub const POLICY: ConfigDoc = ConfigDoc {
    what: "the refund policy",
    section: "Refund policy",
};
/// The refund gate's policy (`TIEOUT_GATE_POLICY` or `refund_gate.toml`).
pub const GATE_POLICY: ConfigDoc = ConfigDoc {
    what: "the refund gate policy",
    section: "The refund gate's budget",
};
/// `bank.toml` in the config folder.
pub const BANK: ConfigDoc = ConfigDoc {
    what: "the bank profiles file",
    section: "Bank profiles",
};

/// Reads a config file's text: `None` when there is no file at `path`. The error is the
/// message without the file's name (the caller adds it): the first bad byte's line and
/// column for text that is not UTF-8, else what stopped the read and what to do.
pub fn read_text(path: &Path) -> Result<Option<String>, String> {
    let bytes = match read_input(path, MAX_CONFIG_BYTES) {
        Ok(bytes) => bytes,
        Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            return Err(format!(
                "it could not be read ({e}): fix its permissions or remove it"
            ));
        }
        Err(ReadError::Io(e)) => return Err(format!("it could not be read: {e}")),
        Err(ReadError::NotAFile(what)) => {
            return Err(format!(
                "it is {what}, not a regular file: a config file is a plain text file"
            ));
        }
        Err(ReadError::TooLarge { .. }) => {
            return Err(format!(
                "it is larger than {} KiB, more than any config file: check it is the right file",
                MAX_CONFIG_BYTES >> 10
            ));
        }
    };
    String::from_utf8(bytes).map(Some).map_err(|e| {
        let valid = String::from_utf8_lossy(&e.as_bytes()[..e.utf8_error().valid_up_to()]);
        let (line, column) = line_col(&valid, valid.len());
        format!("line {line}, column {column}: the file is not UTF-8 text; save it as UTF-8")
    })
}

/// Reads a user's TOML file that must exist (a keymap or theme the user pointed at).
pub fn read_utf8_file(path: &Path) -> Result<String, String> {
    read_text(path)?.ok_or_else(|| "the file does not exist: check the path".to_string())
}

/// Reads the config file at `path` as a `T`: `None` when there is no file; a refusal
/// names the file, the place and `doc`'s README section.
pub fn load<T: DeserializeOwned>(path: &Path, doc: ConfigDoc) -> Result<Option<T>, Failure> {
    let origin = path.display().to_string();
    match read(path, doc)? {
        None => Ok(None),
        Some(text) => parse(&text, &origin, doc).map(Some),
    }
}

/// Reads the config file at `path` (bounded, UTF-8): `None` when there is no file; a
/// refusal names the file and `doc`'s README section.
pub fn read(path: &Path, doc: ConfigDoc) -> Result<Option<String>, Failure> {
    read_text(path).map_err(|message| {
        // "…, line 2, column 5: not UTF-8" as a parse error reads; "…: it is a folder".
        let sep = if message.starts_with("line ") {
            ", "
        } else {
            ": "
        };
        Failure::usage(format!(
            "{} {}{sep}{message}; {}",
            doc.what,
            path.display(),
            doc.see()
        ))
    })
}

/// Parses `text` as a `T` (whose types deny unknown fields); `origin` names the text.
pub fn parse<T: DeserializeOwned>(text: &str, origin: &str, doc: ConfigDoc) -> Result<T, Failure> {
    toml::from_str(text).map_err(|e| {
        Failure::usage(format!(
            "{} {origin}, {}. Fix the file; {}",
            doc.what,
            toml_error_text(text, &e),
            doc.see()
        ))
    })
}

/// Whether a file says nothing: only whitespace and comments (a byte-order mark aside).
pub fn is_blank(text: &str) -> bool {
    text.trim_start_matches('\u{feff}')
        .lines()
        .map(str::trim)
        .all(|l| l.is_empty() || l.starts_with('#'))
}

/// A TOML error as one line that says where: `line L, column C: what is wrong`, with the
/// nearest known key when the fault is an unknown one.
pub fn toml_error_text(text: &str, e: &toml::de::Error) -> String {
    let message = explain_message(e.message());
    let Some(span) = e.span() else {
        return message;
    };
    let (line, column) = line_col(text, span.start);
    format!("line {line}, column {column}: {message}")
}

/// A deserializer's message, trimmed, and for an unknown key (serde's "unknown field `x`,
/// expected one of `a`, `b`") reworded with the nearest known one.
pub fn explain_message(message: &str) -> String {
    let message = message.trim().trim_end_matches('.');
    let Some(rest) = message.strip_prefix("unknown field `") else {
        return message.to_string();
    };
    let Some((name, expected)) = rest.split_once('`') else {
        return message.to_string();
    };
    let known: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    if known.is_empty() {
        return format!("unknown key or table `{name}`: nothing may be set here");
    }
    let listed = known
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    match crate::query::closest(name, known.iter().copied()) {
        Some(near) => {
            format!("unknown key or table `{name}`: did you mean `{near}`? (known here: {listed})")
        }
        None => format!("unknown key or table `{name}` (known here: {listed})"),
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct File {
        stripe: Option<Inner>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        rate: Option<u32>,
        give_up_after: Option<u64>,
    }

    #[test]
    fn an_unknown_key_names_its_place_and_the_nearest_known_one() {
        let text = "[stripe]\n\nrte = 3\n";
        let e = parse::<File>(text, "s.toml", SETTINGS).expect_err("unknown key");
        assert!(
            e.message.contains("s.toml, line 3, column 1")
                && e.message.contains("did you mean `rate`?")
                && e.message.contains("see the README's \"Settings\""),
            "{}",
            e.message
        );
        let e = parse::<File>("[stripes]\nrate = 3\n", "s.toml", SETTINGS).expect_err("table");
        assert!(
            e.message.contains("line 1, column 2") && e.message.contains("did you mean `stripe`?"),
            "{}",
            e.message
        );
        let e = parse::<File>("[stripe]\nzzzzzzzz = 1\n", "s.toml", SETTINGS).expect_err("far");
        assert!(
            !e.message.contains("did you mean") && e.message.contains("`give_up_after`"),
            "{}",
            e.message
        );
    }

    #[test]
    fn text_that_is_not_utf8_is_placed_not_blamed_on_permissions() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("x.toml");
        std::fs::write(&path, b"[stripe]\nrate = \"\xff\"\n").expect("write");
        let e = read(&path, SETTINGS).expect_err("not UTF-8");
        assert!(
            e.message.contains("line 2, column 9") && e.message.contains("not UTF-8"),
            "{}",
            e.message
        );
        assert!(!e.message.contains("permission"), "{}", e.message);
        assert_eq!(
            read(&dir.path().join("none.toml"), SETTINGS).map_err(|e| e.message),
            Ok(None)
        );
        let e = read(dir.path(), SETTINGS).expect_err("a folder");
        assert!(e.message.contains("not a regular file"), "{}", e.message);
    }

    #[test]
    fn a_file_of_comments_is_blank() {
        assert!(is_blank(""));
        assert!(is_blank("\u{feff}\n  # only a comment\r\n\n"));
        assert!(!is_blank("# c\n[window]\n"));
    }
}
