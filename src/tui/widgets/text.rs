//! Width-aware text fitting for cells and bars (unicode display width, not bytes).

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Display width of a string in terminal cells.
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// Cuts `s` to at most `max` cells, ending with `…` when cut.
pub fn truncate(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut w = 0;
    for ch in s.chars() {
        let cw = UnicodeWidthChar::width(ch).unwrap_or(0);
        if w + cw > max - 1 {
            break;
        }
        out.push(ch);
        w += cw;
    }
    out.push('…');
    out
}

/// Fits `s` into exactly `w` cells, padded left (right-aligned) or right.
pub fn fit(s: &str, w: usize, right: bool) -> String {
    let t = truncate(s, w);
    let pad = w.saturating_sub(width(&t));
    if right {
        format!("{}{}", " ".repeat(pad), t)
    } else {
        format!("{}{}", t, " ".repeat(pad))
    }
}

/// Case-insensitive substring test; `needle_lower` must already be lowercase.
/// ASCII needles are matched without allocating.
pub fn contains_ci(hay: &str, needle_lower: &str) -> bool {
    if needle_lower.is_empty() {
        return true;
    }
    if needle_lower.is_ascii() {
        let n = needle_lower.as_bytes();
        let h = hay.as_bytes();
        if n.len() > h.len() {
            return false;
        }
        return h
            .windows(n.len())
            .any(|w| w.iter().zip(n).all(|(a, b)| a.to_ascii_lowercase() == *b));
    }
    hay.to_lowercase().contains(needle_lower)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fitting_and_matching() {
        assert_eq!(fit("abc", 5, false), "abc  ");
        assert_eq!(fit("abc", 5, true), "  abc");
        assert_eq!(fit("abcdef", 4, false), "abc…");
        assert_eq!(truncate("日本語", 4), "日…");
        assert!(contains_ci("Acme GmbH", "gmb"));
        assert!(contains_ci("ÄRGER", "ärg"));
        assert!(!contains_ci("acme", "acmex"));
    }
}
