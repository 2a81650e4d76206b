//! Control characters in text that came from outside (a bank statement's description, a
//! customer's name, a note), made visible before the text reaches a report or the screen.
//!
//! Every control character other than tab — the C0 range (NUL, BEL, ESC, CR, LF, ...),
//! DEL and the C1 range (U+0080 to U+009F) — is written as the visible text `\u{XX}`
//! (its code point in upper-case hex). A terminal then shows `\u{1B}[2J` instead of
//! clearing itself, and a spreadsheet or Markdown viewer never meets a raw NUL. Text
//! without one is handed back as it was, uncopied. The Markdown escaping turns line
//! breaks into spaces first, where a table cell cannot hold them.

use std::borrow::Cow;

/// Whether `c` is escaped: a control character (C0, DEL or C1) other than tab.
pub fn is_escaped(c: char) -> bool {
    c.is_control() && c != '\t'
}

/// `c` as the visible text `\u{XX}`.
pub fn escaped(c: char) -> String {
    format!("\\u{{{:02X}}}", u32::from(c))
}

/// Pushes `c` onto `out`, escaped if it is a control character other than tab.
pub fn push(out: &mut String, c: char) {
    if is_escaped(c) {
        out.push_str(&escaped(c));
    } else {
        out.push(c);
    }
}

/// `text` with every control character other than tab escaped; borrowed when there is
/// none.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_escaped) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push(&mut out, c);
    }
    Cow::Owned(out)
}

/// [`escape`] in place: `text` is replaced only when it holds a control character.
pub fn escape_in_place(text: &mut String) {
    if let Cow::Owned(escaped) = escape(text) {
        *text = escaped;
    }
}

/// Whether the byte at `i` starts an escaped control character: a C0 byte other than
/// tab, DEL, or the UTF-8 lead byte `0xC2` of a C1 character.
fn control_at(bytes: &[u8], i: usize) -> bool {
    match bytes[i] {
        b'\t' => false,
        0x00..=0x1F | 0x7F => true,
        0xC2 => matches!(bytes.get(i + 1), Some(0x80..=0x9F)),
        _ => false,
    }
}

/// [`escape`] on the bytes of a text (as the CSV writer takes its cells); borrowed when
/// there is no control character. Bytes that are not UTF-8 are kept as they are.
pub fn escape_bytes(bytes: &[u8]) -> Cow<'_, [u8]> {
    if !(0..bytes.len()).any(|i| control_at(bytes, i)) {
        return Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len() + 8);
    let mut i = 0;
    while i < bytes.len() {
        if control_at(bytes, i) {
            let (code, width) = if bytes[i] == 0xC2 {
                (u32::from(bytes[i + 1]), 2)
            } else {
                (u32::from(bytes[i]), 1)
            };
            out.extend_from_slice(format!("\\u{{{code:02X}}}").as_bytes());
            i += width;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_but_tab_is_made_visible() {
        assert_eq!(escape("a\0b"), "a\\u{00}b");
        assert_eq!(escape("\u{1b}[2Jx\u{7}"), "\\u{1B}[2Jx\\u{07}");
        assert_eq!(escape("del\u{7f}"), "del\\u{7F}");
        assert_eq!(escape("c1\u{85}\u{9b}"), "c1\\u{85}\\u{9B}");
        assert_eq!(escape("two\r\nlines"), "two\\u{0D}\\u{0A}lines");
        assert_eq!(escape("tab\tstays"), "tab\tstays");
    }

    #[test]
    fn text_without_controls_is_borrowed_and_unchanged() {
        for text in [
            "",
            "STRIPE TRANSFER",
            "\u{e9}t\u{e9} \u{a0}\u{20ac}",
            "\\u{1B}",
        ] {
            assert!(matches!(escape(text), Cow::Borrowed(_)), "{text:?}");
            assert!(matches!(escape_bytes(text.as_bytes()), Cow::Borrowed(_)));
        }
    }

    #[test]
    fn the_bytes_are_escaped_as_the_text_is() {
        for text in [
            "a\0b",
            "\u{1b}[31mred\u{1b}[0m",
            "\u{7}\u{7f}\u{80}\u{9f}\u{a0}",
            "\u{c2}\u{85}x",
            "line\nbreak\r",
            "plain",
            "\u{100}\u{2028}",
        ] {
            assert_eq!(
                escape_bytes(text.as_bytes()).as_ref(),
                escape(text).as_bytes(),
                "{text:?}"
            );
        }
        // A lone 0xC2 at the end, or bytes that are not UTF-8, are kept.
        assert_eq!(escape_bytes(b"x\xC2").as_ref(), b"x\xC2");
        assert_eq!(escape_bytes(b"\xff\x1b").as_ref(), b"\xff\\u{1B}");
    }

    #[test]
    fn in_place_replaces_only_when_needed() {
        let mut s = String::from("ok");
        escape_in_place(&mut s);
        assert_eq!(s, "ok");
        let mut s = String::from("bell\u{7}");
        escape_in_place(&mut s);
        assert_eq!(s, "bell\\u{07}");
    }
}
