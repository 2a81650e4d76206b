//! MT940 (the SWIFT customer statement that most European banks and corporate online
//! banking export) read by hand: no crate reads real files leniently enough (the `mt940`
//! crate refuses any character outside the SWIFT set, an umlaut in a name included, and
//! its errors name no line). A file holds one or more statements, each opened by `:20:`
//! (or its `{1:…}{2:…}{4:` SWIFT block wrapper) and read as:
//!
//! - `:60F:`/`:60M:` the opening balance, whose currency is the statement's;
//! - `:61:` one posted line each: value date, optional entry (booking) date, the mark
//!   (`C`, `D`, `RC`, `RD`), an optional funds code, the amount with its decimal comma, the
//!   transaction type, the customer reference, the `//` bank reference and a supplementary
//!   line;
//! - `:86:` after a `:61:` its text ([`info`]: `?00`–`?63` sub-fields, `/EREF/`-style
//!   codes or free text);
//! - `:62F:`/`:62M:` the closing balance, which must equal the opening balance plus the
//!   lines, else the statement is refused naming both figures.
//!
//! `:25:`, `:28C:`, `:13D:`, `:64:`, `:65:`, `:NS:`, an `:86:` about the whole statement
//! and the `-}` terminator carry no posting and are passed over. CR/LF and LF both end a
//! line; a line that starts no field continues the one before, except between messages,
//! where it is the bank's own header (`ABNANL2A`, `940`, `:940:`). A file that is not
//! UTF-8 is read as Latin-1, as the older bank exports are written.

mod info;
#[cfg(test)]
mod tests;

use jiff::civil::Date;

use super::{BankLine, StatementError};
use crate::money::{Currency, format_major, parse_major};

/// Whether `head` (a file's first bytes) looks like MT940: a `:20:` and a `:60F:`/`:60M:`
/// field at the start of a line, or a SWIFT `{2:` block for message type 940.
pub fn looks_like(head: &str) -> bool {
    let head = head.trim_start_matches('\u{feff}');
    let at_line_start = |tag: &str| {
        head.starts_with(tag)
            || head.contains(&format!("\n{tag}"))
            || head.contains(&format!("{{4:{tag}"))
    };
    (at_line_start(":20:")
        && (at_line_start(":60F:") || at_line_start(":60M:") || at_line_start(":25:")))
        || head.contains("{2:I940")
        || head.contains("{2:O940")
}

/// One field: its tag (`61`, `NS`), the line it starts on and its lines of text.
#[derive(Debug)]
struct Field {
    tag: String,
    line: u32,
    lines: Vec<String>,
}

/// A balance (`:60F:`, `:62F:`, ...): signed minor units, its currency and where it is.
#[derive(Debug, Clone, Copy)]
struct Balance {
    amount: i64,
    currency: Currency,
    line: u32,
}

/// A statement being read: where it starts, its balances and its lines so far.
struct Statement {
    line: u32,
    reference: String,
    opening: Option<Balance>,
    lines: Vec<BankLine>,
    closed: bool,
}

/// Reads every statement of an MT940 file.
pub fn read(file: &str, bytes: &[u8]) -> Result<Vec<BankLine>, StatementError> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t.to_string(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    };
    let fields = fields(file, text.trim_start_matches('\u{feff}'))?;
    // An MT942 interim report has a floor limit `:34F:` and no opening balance.
    let interim = if fields.iter().any(|f| f.tag == "34F") {
        " (this looks like an MT942 interim report, which has none and is not read: export \
         the MT940 statement instead)"
    } else {
        ""
    };
    let mut out = Vec::new();
    let mut current: Option<Statement> = None;
    let mut index = 0_u32;
    let mut after_61 = false;
    for f in &fields {
        let at =
            |what: String| StatementError::new(file, format!("line {}, :{}:", f.line, f.tag), what);
        let was_61 = std::mem::replace(&mut after_61, false);
        match f.tag.as_str() {
            "20" => {
                if let Some(s) = current.take() {
                    out.extend(finished(file, s, Some(f.line))?);
                    index += 1;
                }
                current = Some(Statement {
                    line: f.line,
                    reference: f
                        .lines
                        .first()
                        .map(|l| l.trim().to_string())
                        .unwrap_or_default(),
                    opening: None,
                    lines: Vec::new(),
                    closed: false,
                });
            }
            "60F" | "60M" => {
                let balance = balance(&f.lines.join("")).map_err(at)?;
                // A statement without its own `:20:` starts at its opening balance.
                let fresh = current.as_ref().is_none_or(|s| s.opening.is_some());
                if fresh {
                    if let Some(s) = current.take() {
                        out.extend(finished(file, s, Some(f.line))?);
                        index += 1;
                    }
                    current = Some(Statement {
                        line: f.line,
                        reference: String::new(),
                        opening: None,
                        lines: Vec::new(),
                        closed: false,
                    });
                }
                if let Some(s) = current.as_mut() {
                    s.opening = Some(Balance {
                        line: f.line,
                        ..balance
                    });
                }
            }
            "61" => {
                let s = current
                    .as_mut()
                    .filter(|s| s.opening.is_some() && !s.closed)
                    .ok_or_else(|| {
                        at(format!(
                            "an opening balance (:60F: or :60M:) before the statement's first :61: \
                         line{interim}"
                        ))
                    })?;
                let Some(open) = s.opening else { continue };
                let line = posting(file, f, open.currency, index).map_err(at)?;
                s.lines.push(line);
                after_61 = true;
            }
            "86" if was_61 => {
                if let Some(l) = current.as_mut().and_then(|s| s.lines.last_mut()) {
                    info::apply(&f.lines, l);
                }
            }
            "62F" | "62M" => {
                let closing = balance(&f.lines.join("")).map_err(at)?;
                let s = current.as_mut().filter(|s| !s.closed).ok_or_else(|| {
                    at("a :20: and an opening balance :60F: before the closing balance".into())
                })?;
                let open = s.opening.ok_or_else(|| {
                    at("an opening balance :60F: before the closing balance".into())
                })?;
                check_ties(
                    open,
                    &s.lines,
                    Balance {
                        line: f.line,
                        ..closing
                    },
                )
                .map_err(at)?;
                s.closed = true;
            }
            // `:25:` account, `:28C:` number, `:13D:` time, `:64:`/`:65:` available
            // balances, `:NS:` bank notes, an `:86:` about the statement: no posting.
            _ => {}
        }
    }
    match current {
        Some(s) => out.extend(finished(file, s, None)?),
        None => {
            return Err(StatementError::new(
                file,
                "line 1",
                "an MT940 statement starting with :20: and its opening balance :60F: (the file has none)",
            ));
        }
    }
    Ok(out)
}

/// A statement's lines once it is over (at the field on line `next`, or at the end of the
/// file): it must have been closed by `:62F:`/`:62M:`.
fn finished(file: &str, s: Statement, next: Option<u32>) -> Result<Vec<BankLine>, StatementError> {
    if s.closed {
        return Ok(s.lines);
    }
    let (until, why) = match next {
        Some(n) => (format!("line {n}"), "two statements run together"),
        None => ("the end of the file".to_string(), "the file is truncated"),
    };
    let name = if s.reference.is_empty() {
        String::new()
    } else {
        format!(" '{}'", s.reference)
    };
    Err(StatementError::new(
        file,
        format!("line {}, :20:", s.line),
        format!(
            "a closing balance :62F: for the statement{name} before {until} ({why}: ask the \
             bank for the file again)"
        ),
    ))
}

/// Checks that `open` plus the lines make `close`, in the same currency.
fn check_ties(open: Balance, lines: &[BankLine], close: Balance) -> Result<(), String> {
    let c = open.currency;
    if close.currency != c {
        return Err(format!(
            "a closing balance in {}, the opening balance's currency (line {}), found {}",
            c.upper(),
            open.line,
            close.currency.upper()
        ));
    }
    let net = lines
        .iter()
        .try_fold(0_i64, |sum, l| sum.checked_add(l.amount));
    let expected = net.and_then(|n| open.amount.checked_add(n));
    if expected == Some(close.amount) {
        return Ok(());
    }
    let show = |m: i64| format!("{} {}", format_major(m, c), c.upper());
    Err(format!(
        "a closing balance equal to the opening balance {} (line {}) plus the {} lines' net {}, \
         that is {}, found {}: the statement does not add up (a line is missing or altered); \
         ask the bank for the file again",
        show(open.amount),
        open.line,
        lines.len(),
        net.map_or_else(|| "too large".to_string(), show),
        expected.map_or_else(|| "too large".to_string(), show),
        show(close.amount),
    ))
}

/// The file's fields, with the SWIFT block wrapper, the `-}` terminator and blank lines
/// left out and each continuation line added to its field.
fn fields(file: &str, text: &str) -> Result<Vec<Field>, StatementError> {
    let mut out: Vec<Field> = Vec::new();
    // Between messages (before the first field, after a `-` terminator) a line that starts
    // no field is the bank's own header (ABN AMRO's `ABNANL2A` and `940`, ING's
    // `0000 01INGBNL2AXXXX00001`, Rabobank's `:940:`), not a continuation.
    let mut in_message = false;
    for (n, raw) in text.split('\n').enumerate() {
        let number = u32::try_from(n + 1).unwrap_or(u32::MAX);
        // SOH and ETX frame a SWIFT message in some exports (mBank).
        let mut line = raw
            .strip_suffix('\r')
            .unwrap_or(raw)
            .trim_matches(['\u{1}', '\u{3}']);
        if line.starts_with('{') {
            // `{1:F01…}{2:O940…}{3:…}{4:` opens a message; what follows `{4:` is its text.
            match line.find("{4:") {
                Some(i) => line = &line[i + 3..],
                None => continue,
            }
        }
        if line.starts_with("-}") || line.trim() == "-" {
            in_message = false;
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        if let Some((tag, rest)) = tag_of(line) {
            in_message = true;
            out.push(Field {
                tag: tag.to_string(),
                line: number,
                lines: vec![rest.to_string()],
            });
        } else if let Some(f) = out.last_mut().filter(|_| in_message) {
            f.lines.push(line.to_string());
        }
    }
    if out.is_empty() {
        return Err(StatementError::new(
            file,
            "line 1",
            "an MT940 field such as :20: at the start of a line (the file has none)",
        ));
    }
    Ok(out)
}

/// `(tag, rest)` when the line starts a field: `:20:`, `:28C:`, `:NS:`.
fn tag_of(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix(':')?;
    let end = rest.find(':')?;
    let tag = &rest[..end];
    let b = tag.as_bytes();
    let ok = tag == "NS"
        || ((2..=3).contains(&b.len())
            && b[..2].iter().all(u8::is_ascii_digit)
            && b[2..].iter().all(u8::is_ascii_uppercase));
    ok.then(|| (tag, &rest[end + 1..]))
}

/// At most 40 characters of `text`, for a message.
fn cut(text: &str) -> String {
    let t: String = text.chars().take(40).collect();
    if t.len() < text.len() {
        format!("{t}…")
    } else {
        t
    }
}

/// A balance field: `C261005EUR1234,56` (mark, YYMMDD, currency, amount).
fn balance(text: &str) -> Result<Balance, String> {
    let t = text.trim();
    let sign = match t.get(..1) {
        Some("C") => 1,
        Some("D") => -1,
        _ => {
            return Err(format!(
                "a balance starting with C or D, a date YYMMDD, a currency and an amount (C261005EUR1234,56), found '{}'",
                cut(t)
            ));
        }
    };
    let date = t.get(1..7).unwrap_or("");
    yymmdd(date).map_err(|e| format!("{e} in the balance '{}'", cut(t)))?;
    let code = t.get(7..10).unwrap_or("");
    let currency = Currency::parse(code)
        .map_err(|_| format!("a currency code after the balance's date, found '{code}'"))?;
    let amount = amount(t.get(10..).unwrap_or(""), currency)?;
    Ok(Balance {
        amount: sign * amount,
        currency,
        line: 0,
    })
}

/// An MT940 amount: digits and one decimal comma (`1234,56`, `1234,`, `1234,5`), or
/// digits alone (Knab writes `500`).
fn amount(text: &str, currency: Currency) -> Result<i64, String> {
    let ok = text.bytes().next().is_some_and(|b| b.is_ascii_digit())
        && text.bytes().all(|b| b.is_ascii_digit() || b == b',')
        && text.bytes().filter(|&b| b == b',').count() <= 1;
    if !ok {
        return Err(format!(
            "an amount with a decimal comma (1234,56), found '{}'",
            cut(text)
        ));
    }
    let decimal = text.replace(',', ".");
    let decimal = decimal.strip_suffix('.').unwrap_or(&decimal);
    parse_major(decimal, currency)
        .map_err(|e| format!("an amount in {}, found '{text}' ({e})", currency.upper()))
}

/// A `YYMMDD` date (20YY; 19YY from 80 on).
fn yymmdd(text: &str) -> Result<Date, String> {
    let bad = || format!("a date as YYMMDD, found '{text}'");
    if text.len() != 6 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let n = |r: std::ops::Range<usize>| text.get(r).and_then(|s| s.parse::<i8>().ok()).unwrap_or(0);
    let yy = i16::from(n(0..2));
    let year = if yy >= 80 { 1900 + yy } else { 2000 + yy };
    Date::new(year, n(2..4), n(4..6)).map_err(|_| bad())
}

/// A `:61:` value date, where a day past the month's end (the 30 February German banks
/// give a quarter's closing entries) is the month's last day.
fn value_yymmdd(text: &str) -> Result<Date, String> {
    yymmdd(text).or_else(|e| {
        let day = text
            .get(4..6)
            .and_then(|d| d.parse::<i8>().ok())
            .unwrap_or(0);
        let first = text.get(..4).map(|ym| format!("{ym}01"));
        match first.as_deref().map(yymmdd) {
            Some(Ok(start)) if (29..=31).contains(&day) => Ok(start.last_of_month()),
            _ => Err(e),
        }
    })
}

/// A `:61:` field as a line of statement `index` in `currency`.
fn posting(file: &str, f: &Field, currency: Currency, index: u32) -> Result<BankLine, String> {
    let first = f.lines.first().map(String::as_str).unwrap_or("").trim_end();
    let value_date = value_yymmdd(first.get(..6).unwrap_or(first))?;
    let mut rest = first.get(6..).unwrap_or("");
    let mut date = value_date;
    let four = rest.get(..4).unwrap_or("");
    if four.len() == 4 && four.bytes().all(|b| b.is_ascii_digit()) {
        date = entry_date(value_date, four)?;
        rest = &rest[4..];
    }
    let (sign, after) = if let Some(r) = rest.strip_prefix("RC") {
        (-1, r) // the reversal of a credit takes money out
    } else if let Some(r) = rest.strip_prefix("RD") {
        (1, r)
    } else if let Some(r) = rest.strip_prefix('C') {
        (1, r)
    } else if let Some(r) = rest.strip_prefix('D') {
        (-1, r)
    } else {
        return Err(format!(
            "the mark C, D, RC or RD after the date, found '{}'",
            cut(rest)
        ));
    };
    // An optional funds code: the third letter of the currency code.
    let after = match after.chars().next() {
        Some(c) if c.is_ascii_alphabetic() => &after[1..],
        _ => after,
    };
    // A point is taken in too, so that `89.40` is refused as an amount, not as a type.
    let digits = after
        .bytes()
        .take_while(|b| b.is_ascii_digit() || matches!(b, b',' | b'.'))
        .count();
    if digits == 0 {
        return Err(format!(
            "an amount after the mark (C1234,56), found '{}'",
            cut(after)
        ));
    }
    let minor = amount(&after[..digits], currency)?;
    let after = &after[digits..];
    let kind = after.get(..4).unwrap_or("");
    if kind.len() < 4 || !matches!(kind.as_bytes()[0], b'N' | b'F' | b'S') {
        return Err(format!(
            "a transaction type after the amount (N, F or S and three characters, NTRF), found '{}'",
            cut(after)
        ));
    }
    let refs = &after[4..];
    let (customer, bank) = match refs.find("//") {
        Some(i) => (&refs[..i], Some(refs[i + 2..].trim())),
        None => (refs, None),
    };
    let customer = customer.trim();
    let supplementary: Vec<&str> = f
        .lines
        .iter()
        .skip(1)
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect();
    Ok(BankLine {
        file: file.to_string(),
        line: f.line,
        date,
        value_date: Some(value_date),
        amount: sign * minor,
        currency,
        description: supplementary.join(" "),
        reference: (!customer.is_empty() && customer != "NONREF").then(|| customer.to_string()),
        bank_id: bank
            .filter(|b| !b.is_empty() && *b != "NONREF")
            .map(str::to_string),
        statement: index,
    })
}

/// The entry date `MMDD` in the year that puts it nearest the value date (an entry on 31
/// December for a value date of 2 January is in the year before).
fn entry_date(value: Date, mmdd: &str) -> Result<Date, String> {
    let n = |r: std::ops::Range<usize>| mmdd.get(r).and_then(|s| s.parse::<i8>().ok()).unwrap_or(0);
    let (m, d) = (n(0..2), n(2..4));
    let year = match (value.month(), m) {
        (1, 12) => value.year() - 1,
        (12, 1) => value.year() + 1,
        _ => value.year(),
    };
    Date::new(year, m, d)
        .map_err(|_| format!("an entry date as MMDD after the value date, found '{mmdd}'"))
}
