//! The text of an MT940 `:86:` field, which says what a `:61:` line was, in the three ways
//! banks write it:
//!
//! - German `?`-sub-fields (Sparkasse, Deutsche Bank, Commerzbank, Volksbank):
//!   `166?00SEPA-GUTSCHRIFT?20EREF+…?21SVWZ+…?32Name`: the name (`?32`, `?33`), the
//!   posting text (`?00`) and the purpose (`?20`–`?29`, `?60`–`?63`, joined as one text,
//!   with a space before each SEPA keyword such as `EREF+` and `SVWZ+`, which are kept);
//!   the `EREF+` value is the reference;
//! - slash codes (ING, ABN AMRO, Rabobank): `/TRTP/…/NAME/…/REMI/…/EREF/…/`: the name and
//!   the remittance text, the `EREF` value as the reference;
//! - free text (corporate and other banks): the text as written.
//!
//! Lines are joined without a space where a line was full (65 characters, so the bank cut
//! a word) and in sub-fields, with one elsewhere. An `EREF` of `NOTPROVIDED` is no
//! reference; the `:61:` customer reference is then kept.

use crate::bank::BankLine;

/// The SEPA keywords of a `?20`–`?29` purpose.
const SEPA: &[&str] = &[
    "EREF+", "KREF+", "MREF+", "CRED+", "DEBT+", "COAM+", "OAMT+", "SVWZ+", "ABWA+", "ABWE+",
    "IBAN+", "BIC+",
];

/// The codes of a slash-coded `:86:` (`/NAME/…/`).
const CODES: &[&str] = &[
    "TRTP", "IBAN", "BIC", "NAME", "REMI", "EREF", "MARF", "CSID", "ORDP", "BENM", "ADDR", "CNTP",
    "PREF", "RTRN", "PURP", "ULTC", "ULTD",
];

/// Sets `line`'s text (and its reference, when the field names one) from the `:86:`
/// field's lines; the `:61:` supplementary details stay at the end of the text.
pub(super) fn apply(lines: &[String], line: &mut BankLine) {
    let structured = lines.first().is_some_and(|l| {
        let t = l.trim_start();
        t.starts_with('?')
            || (t.len() > 3
                && t.as_bytes()[..3].iter().all(u8::is_ascii_digit)
                && t[3..].starts_with('?'))
    });
    let slashed = !structured
        && lines
            .first()
            .is_some_and(|l| marker_at(l.trim_start(), 0).is_some());
    let joined = join(lines, structured || slashed);
    let (texts, reference) = if structured {
        sub_fields(&joined)
    } else if slashed {
        slash_codes(&joined)
    } else {
        (vec![joined.trim().to_string()], None)
    };
    let mut parts: Vec<String> = texts.into_iter().filter(|t| !t.is_empty()).collect();
    if !line.description.is_empty() {
        parts.push(std::mem::take(&mut line.description));
    }
    line.description = parts.join(" ");
    // An `EREF` the `:86:` gives replaces the `:61:` customer reference (ING writes
    // `EREF` there, meaning "see :86:"); `NOTPROVIDED` leaves the line without one.
    match reference.as_deref() {
        Some("NOTPROVIDED") => line.reference = None,
        Some(r) if !r.is_empty() => line.reference = Some(r.to_string()),
        _ => {}
    }
}

/// The field's lines as one text: without a break inside a coded field or after a full
/// line (65 characters, the first counted with its `:86:` tag), else with a space.
fn join(lines: &[String], coded: bool) -> String {
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate() {
        let before = i.checked_sub(1).and_then(|p| lines.get(p));
        let tag = if i == 1 { ":86:".len() } else { 0 };
        let full = before.is_some_and(|b| b.chars().count() + tag >= 65);
        if i > 0 && !coded && !full {
            out.push(' ');
        }
        out.push_str(if coded { l.trim_end() } else { l.as_str() });
    }
    out
}

/// `?NN` sub-fields: (the name, posting text and purpose; the `EREF+` value).
fn sub_fields(text: &str) -> (Vec<String>, Option<String>) {
    let mut subs: Vec<(u8, String)> = Vec::new();
    let mut rest = text;
    // Anything before the first `?` is the business transaction code (`166`).
    if let Some(i) = rest.find('?') {
        rest = &rest[i..];
    }
    while let Some(body) = rest.strip_prefix('?') {
        let code = body
            .get(..2)
            .filter(|c| c.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|c| c.parse::<u8>().ok());
        let Some(code) = code else {
            break;
        };
        let value = &body[2..];
        let end = next_sub_field(value);
        subs.push((code, value[..end].to_string()));
        rest = &value[end..];
    }
    let pick = |codes: &[u8], sep: &str| {
        subs.iter()
            .filter(|(c, _)| codes.contains(c))
            .map(|(_, v)| v.trim_end().to_string())
            .collect::<Vec<_>>()
            .join(sep)
    };
    let purpose_codes: Vec<u8> = (20..=29).chain(60..=63).collect();
    let purpose = spaced(&pick(&purpose_codes, ""));
    let reference = keyword_value(&purpose, "EREF+");
    (
        vec![pick(&[32, 33], ""), pick(&[0], " "), purpose],
        reference,
    )
}

/// Where the next `?NN` starts in `text`, or its length.
fn next_sub_field(text: &str) -> usize {
    let b = text.as_bytes();
    (0..b.len())
        .find(|&i| {
            b[i] == b'?'
                && b.get(i + 1).is_some_and(u8::is_ascii_digit)
                && b.get(i + 2).is_some_and(u8::is_ascii_digit)
        })
        .unwrap_or(b.len())
}

/// The purpose with a space before each SEPA keyword that is not at its start.
fn spaced(purpose: &str) -> String {
    let mut out = purpose.to_string();
    for k in SEPA {
        out = out.replace(k, &format!(" {k}"));
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The value after `key` up to the next SEPA keyword.
fn keyword_value(text: &str, key: &str) -> Option<String> {
    let start = text.find(key)? + key.len();
    let rest = &text[start..];
    let end = SEPA
        .iter()
        .filter_map(|k| rest.find(&format!(" {k}")))
        .min()
        .unwrap_or(rest.len());
    Some(rest[..end].trim().to_string())
}

/// The length of a `/CODE/` marker at byte `at` of `text`, if one starts there.
fn marker_at(text: &str, at: usize) -> Option<usize> {
    let rest = text.get(at..)?.strip_prefix('/')?;
    CODES
        .iter()
        .find(|c| rest.strip_prefix(**c).is_some_and(|r| r.starts_with('/')))
        .map(|c| c.len() + 2)
}

/// Slash codes: (the name and the remittance text; the `EREF` value).
fn slash_codes(text: &str) -> (Vec<String>, Option<String>) {
    let mut marks: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if let Some(len) = marker_at(text, i) {
            marks.push((i, len));
            // The marker's closing slash may not open the next one: its value follows.
            i += len;
        } else {
            i += text[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    let value = |code: &str| {
        marks.iter().enumerate().find_map(|(n, &(at, len))| {
            let name = text.get(at + 1..at + len - 1)?;
            if name != code {
                return None;
            }
            let end = marks.get(n + 1).map_or(text.len(), |m| m.0);
            Some(
                text.get(at + len..end)?
                    .trim_end_matches('/')
                    .trim()
                    .to_string(),
            )
        })
    };
    let remittance = value("REMI").map(|r| {
        let r = r
            .strip_prefix("USTD//")
            .or_else(|| r.strip_prefix("USTD/"))
            .unwrap_or(&r);
        r.strip_prefix("STRD/CUR/").unwrap_or(r).to_string()
    });
    let name = value("NAME");
    if name.is_none() && remittance.is_none() {
        return (vec![text.trim().to_string()], value("EREF"));
    }
    (
        vec![name.unwrap_or_default(), remittance.unwrap_or_default()],
        value("EREF"),
    )
}
