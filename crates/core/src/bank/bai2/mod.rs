//! BAI2 (the Bank Administration Institute's cash management file, in which US banks
//! deliver statements to business accounts) read by hand: the crates that read it pull a
//! command line and a logger into the library, and their errors name no line. A file is
//! `01` file header, then groups (`02` … `98`), each of accounts (`03` … `49`) with their
//! `16` transaction details; `88` continues the record before it (a `16`'s text with a
//! space, any other record's fields after a comma); `99` ends the file.
//!
//! Each `16` is a line: its type code says credit (100–399, and 920–959 for a bank's own
//! codes) or debit (400–699, 960–999), its amount is in the currency's minor units with
//! no decimal point, the currency is the `03` account's, else the `02` group's, else USD;
//! the date is the group's as-of date (the value date from a `V` funds type); the bank
//! reference is the line's id, the customer reference its reference, the text its text.
//! The control totals are checked: a `49`'s total against the account's `03` summary
//! amounts and `16` amounts and its record count, a `98`'s against its accounts, a `99`'s
//! against its groups; a mismatch or a missing trailer is an error naming both figures.

#[cfg(test)]
mod tests;

use jiff::civil::Date;

use super::{BankLine, StatementError};
use crate::money::Currency;

/// Whether `head` (a file's first bytes) is BAI2: a `01,` file header and a `02,` group.
pub fn looks_like(head: &str) -> bool {
    let head = head.trim_start_matches('\u{feff}').trim_start();
    let first = head.lines().next().unwrap_or("");
    head.starts_with("01,") && first.contains('/') && head.contains("02,")
}

/// A physical line's records: a bank may write several on one line, each ended by its
/// `/` (`…,2/   02,…`), so a `/` followed by spaces and a two-digit code and a comma
/// starts the next one.
fn split_line(line: &str) -> Vec<&str> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &c) in b.iter().enumerate() {
        if c != b'/' || i < start {
            continue;
        }
        let mut j = i + 1;
        while b.get(j) == Some(&b' ') {
            j += 1;
        }
        let next = b.get(j..j + 3);
        if next.is_some_and(|n| n[0].is_ascii_digit() && n[1].is_ascii_digit() && n[2] == b',') {
            out.push(&line[start..=i]);
            start = j;
        }
    }
    out.push(&line[start..]);
    out
}

/// One logical record: its code, the physical line it starts on, how many physical
/// records it spans (itself and its `88`s) and its text after the code.
#[derive(Debug)]
struct Record {
    code: String,
    line: u32,
    records: u64,
    body: String,
}

/// The records, each with its `88` continuations joined to it.
fn records(file: &str, text: &str) -> Result<Vec<Record>, StatementError> {
    let mut out: Vec<Record> = Vec::new();
    for (n, raw) in text.split('\n').enumerate() {
        let number = u32::try_from(n + 1).unwrap_or(u32::MAX);
        let line = raw
            .trim_end_matches(['\r', ' '])
            .trim_start_matches('\u{feff}');
        for line in split_line(line) {
            if line.trim().is_empty() {
                continue;
            }
            let (code, body) = line
                .split_once(',')
                .unwrap_or((line.trim_end_matches('/'), ""));
            if code == "88" {
                let prev = out.last_mut().ok_or_else(|| {
                StatementError::new(
                    file,
                    format!("line {number}, record 88"),
                    "a record before the 88 continuation it continues (the file starts with one)",
                )
            })?;
                prev.records += 1;
                if prev.code == "16" {
                    let text = prev
                        .body
                        .strip_suffix('/')
                        .unwrap_or(&prev.body)
                        .to_string();
                    let more = body.strip_suffix('/').unwrap_or(body);
                    prev.body = format!("{text} {more}");
                } else {
                    let before = fields_of(&prev.body).join(",");
                    prev.body = format!("{before},{}", fields_of(body).join(","));
                }
                continue;
            }
            out.push(Record {
                code: code.trim().to_string(),
                line: number,
                records: 1,
                body: body.to_string(),
            });
        }
    }
    Ok(out)
}

/// A record's fields: up to its `/` delimiter, split at commas.
fn fields_of(body: &str) -> Vec<&str> {
    let body = body.split('/').next().unwrap_or("");
    body.split(',').collect()
}

/// An account being read.
struct Account {
    line: u32,
    currency: Currency,
    total: i64,
    records: u64,
}

/// A group being read.
struct Group {
    line: u32,
    date: Date,
    currency: Currency,
    total: i64,
    accounts: u64,
    records: u64,
}

/// Reads every `16` of a BAI2 file.
pub fn read(file: &str, bytes: &[u8]) -> Result<Vec<BankLine>, StatementError> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t.to_string(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    };
    let records = records(file, &text)?;
    let mut out = Vec::new();
    let mut header: Option<u32> = None;
    let mut file_total = 0_i64;
    let mut file_groups = 0_u64;
    let mut file_records = 0_u64;
    let mut group: Option<Group> = None;
    let mut account: Option<Account> = None;
    let mut statement = 0_u32;
    let mut ended = false;
    for r in &records {
        let at = |what: String| {
            StatementError::new(file, format!("line {}, record {}", r.line, r.code), what)
        };
        if ended {
            return Err(at("nothing after the 99 file trailer".into()));
        }
        if header.is_none() && r.code != "01" {
            return Err(at(
                "a 01 file header first (this is not a BAI2 file, or its start is missing)".into(),
            ));
        }
        file_records += r.records;
        if let Some(g) = group.as_mut() {
            g.records += r.records;
        }
        if let Some(a) = account.as_mut() {
            a.records += r.records;
        }
        let f = fields_of(&r.body);
        let field = |i: usize| f.get(i).map_or("", |s| s.trim());
        match r.code.as_str() {
            "01" => {
                if header.is_some() {
                    return Err(at(
                        "one 01 file header (a second file starts here: give each file on its own)"
                            .into(),
                    ));
                }
                header = Some(r.line);
            }
            "02" => {
                if let Some(g) = &group {
                    return Err(at(format!(
                        "a 98 group trailer for the group on line {} before the next group",
                        g.line
                    )));
                }
                let date = yymmdd(field(3))
                    .map_err(|e| at(format!("{e} as the group's as-of date (field 5)")))?;
                let currency = currency(
                    field(5),
                    Currency::parse("usd").map_err(|e| at(e.to_string()))?,
                )
                .map_err(at)?;
                group = Some(Group {
                    line: r.line,
                    date,
                    currency,
                    total: 0,
                    accounts: 0,
                    records: r.records,
                });
            }
            "03" => {
                let g = group
                    .as_mut()
                    .ok_or_else(|| at("a 02 group header before the account".into()))?;
                if let Some(a) = &account {
                    return Err(at(format!(
                        "a 49 account trailer for the account on line {} before the next account",
                        a.line
                    )));
                }
                let currency = currency(field(1), g.currency).map_err(at)?;
                let total = summary_total(&f).map_err(at)?;
                g.accounts += 1;
                account = Some(Account {
                    line: r.line,
                    currency,
                    total,
                    records: r.records,
                });
            }
            "16" => {
                let g = group
                    .as_ref()
                    .ok_or_else(|| at("a 02 group header before the transaction".into()))?;
                let a = account
                    .as_mut()
                    .ok_or_else(|| at("an 03 account header before the transaction".into()))?;
                let line = detail(file, r, g.date, a.currency, statement).map_err(at)?;
                a.total = a.total.checked_add(line.amount.abs()).ok_or_else(|| {
                    at("an account total that fits (the amounts are too large)".into())
                })?;
                out.push(line);
            }
            "49" => {
                let a = account
                    .take()
                    .ok_or_else(|| at("an 03 account header before the account trailer".into()))?;
                check(
                    "the account's control total",
                    field(0),
                    a.total,
                    &format!(
                        "the summary amounts of the 03 on line {} and its 16 amounts",
                        a.line
                    ),
                )
                .map_err(at)?;
                check_count("the account's record count (03 to 49)", field(1), a.records)
                    .map_err(at)?;
                if let Some(g) = group.as_mut() {
                    g.total = g.total.saturating_add(a.total);
                }
                statement += 1;
            }
            "98" => {
                if let Some(a) = &account {
                    return Err(at(format!(
                        "a 49 account trailer for the account on line {} before the group trailer",
                        a.line
                    )));
                }
                let g = group
                    .take()
                    .ok_or_else(|| at("a 02 group header before the group trailer".into()))?;
                check(
                    "the group's control total",
                    field(0),
                    g.total,
                    &format!("the 49 totals of the group from line {}", g.line),
                )
                .map_err(at)?;
                check_count("the group's number of accounts", field(1), g.accounts).map_err(at)?;
                check_count("the group's record count (02 to 98)", field(2), g.records)
                    .map_err(at)?;
                file_total = file_total.saturating_add(g.total);
                file_groups += 1;
            }
            "99" => {
                if let Some(g) = &group {
                    return Err(at(format!(
                        "a 98 group trailer for the group on line {} before the file trailer",
                        g.line
                    )));
                }
                check(
                    "the file's control total",
                    field(0),
                    file_total,
                    "the 98 totals of its groups",
                )
                .map_err(at)?;
                check_count("the file's number of groups", field(1), file_groups).map_err(at)?;
                check_count("the file's record count (01 to 99)", field(2), file_records)
                    .map_err(at)?;
                ended = true;
            }
            other => {
                return Err(at(format!(
                    "a record code 01, 02, 03, 16, 88, 49, 98 or 99, found '{other}'"
                )));
            }
        }
    }
    if !ended {
        let last = records.last().map_or(1, |r| r.line);
        return Err(StatementError::new(
            file,
            format!("line {last}"),
            "a 99 file trailer after the last record (the file is truncated: ask the bank for it again)",
        ));
    }
    Ok(out)
}

/// A currency code field, else `default`.
fn currency(code: &str, default: Currency) -> Result<Currency, String> {
    if code.is_empty() {
        return Ok(default);
    }
    Currency::parse(code).map_err(|_| format!("an ISO currency code, found '{code}'"))
}

/// A `YYMMDD` date.
fn yymmdd(text: &str) -> Result<Date, String> {
    let bad = || format!("a date as YYMMDD, found '{text}'");
    if text.len() != 6 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let n = |r: std::ops::Range<usize>| text.get(r).and_then(|s| s.parse::<i8>().ok()).unwrap_or(0);
    Date::new(2000 + i16::from(n(0..2)), n(2..4), n(4..6)).map_err(|_| bad())
}

/// A signed amount in minor units (`+123`, `-45`, `67`); empty is none.
fn amount(text: &str) -> Result<Option<i64>, String> {
    if text.is_empty() {
        return Ok(None);
    }
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "an amount in minor units without a decimal point (133130 for 1331.30), found '{text}'"
        ));
    }
    let n: i64 = digits
        .parse()
        .map_err(|_| format!("an amount that fits, found '{text}'"))?;
    Ok(Some(if text.starts_with('-') { -n } else { n }))
}

/// How many fields a funds type takes after itself (`V`: date and time, `S`: three
/// amounts, `D`: a count and that many day/amount pairs), given the fields after it.
fn funds_extra(kind: &str, rest: &[&str]) -> Result<usize, String> {
    match kind {
        "" | "Z" | "0" | "1" | "2" => Ok(0),
        "V" => Ok(2),
        "S" => Ok(3),
        "D" => Ok(1 + 2 * distributions(rest.first().map_or("", |s| s.trim()))?),
        other => Err(format!(
            "a funds type Z, 0, 1, 2, V, S or D, found '{other}'"
        )),
    }
}

/// The number of distributions after funds type `D`: a count up to 99 (the availability
/// days a bank reports are a handful).
fn distributions(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n <= 99 => Ok(n),
        _ => Err(format!(
            "the number of distributions (0 to 99) after funds type D, found '{text}'"
        )),
    }
}

/// The sum of an `03`'s summary amounts (after the account and currency: type code,
/// amount, item count, funds type and its extra fields, repeated).
fn summary_total(f: &[&str]) -> Result<i64, String> {
    let mut i = 2;
    let mut total = 0_i64;
    while i < f.len() {
        let code = f[i].trim();
        if code.is_empty() && f[i..].iter().all(|s| s.trim().is_empty()) {
            break;
        }
        let amt = amount(f.get(i + 1).map_or("", |s| s.trim()))
            .map_err(|e| format!("{e} for summary type {code}"))?;
        total = total.saturating_add(amt.unwrap_or(0));
        let kind = f.get(i + 3).map_or("", |s| s.trim());
        i += 4 + funds_extra(kind, f.get(i + 4..).unwrap_or(&[]))?;
    }
    Ok(total)
}

/// A `16` record as a line of statement `index`.
fn detail(
    file: &str,
    r: &Record,
    date: Date,
    currency: Currency,
    index: u32,
) -> Result<BankLine, String> {
    // The text, the last field, may hold commas: the fields before it are taken one by one.
    let mut rest = r.body.as_str();
    let mut next = || {
        let (head, tail) = rest.split_once(',').unwrap_or((rest, ""));
        rest = tail;
        head.trim().trim_end_matches('/').to_string()
    };
    let code = next();
    let sign = match code.parse::<u16>() {
        Ok(100..=399 | 920..=959) => 1,
        Ok(400..=699 | 960..=999) => -1,
        _ => {
            return Err(format!(
                "a detail type code, 100–399 for a credit or 400–699 for a debit, found '{code}'"
            ));
        }
    };
    let minor =
        amount(&next())?.ok_or_else(|| format!("an amount for the type {code} transaction"))?;
    let kind = next();
    let mut value_date = None;
    match kind.as_str() {
        "V" => {
            let d = next();
            value_date =
                Some(yymmdd(&d).map_err(|e| format!("{e} as the value date of funds type V"))?);
            next();
        }
        "S" => {
            for _ in 0..3 {
                next();
            }
        }
        "D" => {
            for _ in 0..2 * distributions(&next())? {
                next();
            }
        }
        _ => {
            funds_extra(&kind, &[])?;
        }
    }
    let bank_ref = next();
    let customer_ref = next();
    let text = rest.trim().trim_end_matches('/').trim().to_string();
    Ok(BankLine {
        file: file.to_string(),
        line: r.line,
        date,
        value_date,
        amount: sign * minor,
        currency,
        description: text,
        reference: (!customer_ref.is_empty()).then_some(customer_ref),
        bank_id: (!bank_ref.is_empty()).then_some(bank_ref),
        statement: index,
    })
}

/// A trailer's control total against the sum of what it closes.
fn check(what: &str, given: &str, sum: i64, sum_of: &str) -> Result<(), String> {
    let given_n = amount(given)?.ok_or_else(|| format!("{what}, found none"))?;
    if given_n == sum {
        return Ok(());
    }
    Err(format!(
        "{what} to be {sum} (the sum of {sum_of}, in minor units), found {given}: the file is \
         incomplete or altered; ask the bank for it again"
    ))
}

/// A trailer's count against the records or items it closes.
fn check_count(what: &str, given: &str, count: u64) -> Result<(), String> {
    if given.is_empty() {
        return Ok(());
    }
    if given.parse::<u64>().ok() == Some(count) {
        return Ok(());
    }
    Err(format!(
        "{what} to be {count}, found '{given}': the file is incomplete or altered; ask the bank \
         for it again"
    ))
}
