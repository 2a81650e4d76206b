//! `tieout bank-profile --guess FILE`: a [`CsvProfile`] proposed from a CSV export's first
//! lines — the delimiter, the decimal mark, where the table starts and whether it has a
//! header, which column is the date (and its format), the amount (signed, unsigned with a
//! sign column, or an in/out pair), the currency and the text, and which rows are not
//! postings — rendered as a commented `bank.toml` table for a person to check and save.
//! The guess is tried on the whole file before it is offered: a file it cannot read is an
//! error naming the key to set by hand.

mod columns;
mod render;

use columns::{Table, Why, pick_amount, pick_currency, pick_text};

use super::{CsvProfile, SkipRule, fold, read};
use crate::bank::{StatementError, parse_amount, parse_date};
use crate::money::Currency;

/// How many lines of the file the guess looks at.
pub const SAMPLE_LINES: usize = 200;

/// The date formats tried, in order of preference when two read a column equally well.
const DATE_FORMATS: &[&str] = &[
    "%Y-%m-%d", "%d.%m.%Y", "%m/%d/%Y", "%d/%m/%Y", "%d-%m-%Y", "%Y%m%d", "%Y/%m/%d", "%d.%m.%y",
];

/// A guessed profile and, per key, why it was chosen (the comment above the key).
#[derive(Debug, Clone)]
pub struct Guess {
    pub profile: CsvProfile,
    pub why: Vec<(&'static str, String)>,
    /// How many lines the profile read from the whole file.
    pub lines_read: usize,
    pub sample: usize,
}

fn fail(file: &str, place: &str, what: String) -> StatementError {
    StatementError::new(file, place, what)
}

/// The fields of one line split by `delimiter` (quotes honoured).
fn split(line: &str, delimiter: u8) -> Vec<String> {
    let mut reader = ::csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(line.as_bytes());
    reader
        .records()
        .next()
        .and_then(Result::ok)
        .map(|r| r.iter().map(|c| c.trim().to_string()).collect())
        .unwrap_or_default()
}

pub(super) fn is_date(cell: &str) -> bool {
    DATE_FORMATS.iter().any(|f| parse_date(cell, f).is_ok())
}

pub(super) fn is_amount(cell: &str, decimal_comma: bool) -> bool {
    cell.chars().any(|c| c.is_ascii_digit())
        && parse_amount(cell, Currency::EUR, decimal_comma).is_ok()
}

/// Whether a header names a column of this kind (long words anywhere in it, short ones as
/// the whole name).
pub(super) fn named(name: &str, long: &[&str], short: &[&str]) -> bool {
    let n = fold(name);
    long.iter().any(|w| n.contains(w)) || short.iter().any(|w| n == *w)
}

pub(super) fn is_balance(name: &str) -> bool {
    named(name, &["saldo", "balance", "kontostand"], &[])
}

/// The export's text: UTF-8 (a byte-order mark aside), else an error naming the line.
fn decode<'a>(file: &str, bytes: &'a [u8]) -> Result<&'a str, StatementError> {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    std::str::from_utf8(body).map_err(|e| {
        let line = memchr::memchr_iter(b'\n', &body[..e.valid_up_to()]).count() + 1;
        fail(
            file,
            &format!("line {line}"),
            "UTF-8 text (tieout reads statements as UTF-8): save the export as UTF-8".into(),
        )
    })
}

/// The delimiter that splits the most lines into the same number (3 or more) of fields:
/// the delimiter, that number, and every line split by it.
fn pick_delimiter(lines: &[&str]) -> Option<(u8, usize, Vec<Vec<String>>)> {
    [b',', b';', b'\t', b'|']
        .iter()
        .map(|&d| {
            let rows: Vec<Vec<String>> = lines.iter().map(|l| split(l, d)).collect();
            let mut counts = std::collections::BTreeMap::<usize, usize>::new();
            for r in rows.iter().filter(|r| r.len() >= 3) {
                *counts.entry(r.len()).or_default() += 1;
            }
            let (width, n) = counts
                .iter()
                .max_by_key(|(w, n)| (**n, **w))
                .map_or((0, 0), |(w, n)| (*w, *n));
            (d, width, n, rows)
        })
        .max_by_key(|(d, _, n, _)| (*n, usize::from(*d != b'|')))
        .filter(|(_, _, n, _)| *n > 0)
        .map(|(d, w, _, rows)| (d, w, rows))
}

/// Whether more cells end in a comma and two digits (`1.378,29`) than in a point and two.
fn votes_decimal_comma(rows: &[&[String]]) -> bool {
    let ends = |t: &str, mark: char| {
        t.trim_start_matches(['-', '+'])
            .rsplit_once(mark)
            .is_some_and(|(a, b)| {
                !a.is_empty() && b.len() == 2 && b.chars().all(|c| c.is_ascii_digit())
            })
    };
    let cells = || rows.iter().flat_map(|r| r.iter());
    cells().filter(|c| ends(c, ',')).count() > cells().filter(|c| ends(c, '.')).count()
}

/// The date column and format: one the header names as the booking date (not the value
/// date) that reads at least half the rows, else the one that reads the most; with how
/// many rows it reads.
fn pick_date(
    names: &[String],
    data: &[&[String]],
    width: usize,
) -> Option<(usize, usize, &'static str)> {
    let booking = |i: usize| {
        let n = names.get(i).map_or("", String::as_str);
        named(
            n,
            &[
                "buchung", "booking", "posting", "kirjaus", "bokf", "datum", "date",
            ],
            &[],
        ) && !named(n, &["valu", "wert"], &[])
    };
    let enough = |k: usize| k * 2 >= data.len();
    let mut best: Option<(usize, usize, &'static str)> = None;
    for i in 0..width {
        for f in DATE_FORMATS {
            let n = data
                .iter()
                .filter(|r| r.get(i).is_some_and(|c| parse_date(c, f).is_ok()))
                .count();
            let better = match best {
                None => n > 0,
                Some((j, m, _)) => {
                    let named_now = enough(n) && booking(i);
                    let named_before = enough(m) && booking(j);
                    (named_now && !named_before) || (n > m && (named_now || !named_before))
                }
            };
            if better {
                best = Some((i, n, f));
            }
        }
    }
    best.filter(|(_, n, _)| enough(*n))
}

/// Guesses a profile for the CSV export `bytes` (named `file` in messages); `currency`
/// is the account's currency when the user gives it.
pub fn guess(file: &str, bytes: &[u8], currency: Option<&str>) -> Result<Guess, StatementError> {
    // OFX, CAMT, MT940 and BAI2 are read by their content: a profile would do nothing.
    let format = crate::bank::Format::sniff(bytes);
    if format != crate::bank::Format::Csv {
        return Err(fail(
            file,
            "line 1",
            format!(
                "a CSV export; this is {} file, which tieout reads without a profile: give it \
                 to `tieout reconcile --bank` as it is",
                format.described()
            ),
        ));
    }
    let text = decode(file, bytes)?;
    let lines: Vec<&str> = text.lines().take(SAMPLE_LINES).collect();
    let sample = lines.len();
    let mut why: Why = Vec::new();

    let (delimiter, width, split_lines) = pick_delimiter(&lines).ok_or_else(|| {
        fail(file, "line 1", "lines of 3 or more fields split by , ; tab or |: set `delimiter` by hand (and check this is a CSV export)".into())
    })?;
    let shown = if delimiter == b'\t' {
        "tab".to_string()
    } else {
        char::from(delimiter).to_string()
    };
    let table: Vec<&[String]> = split_lines
        .iter()
        .filter(|r| r.len() == width)
        .map(Vec::as_slice)
        .collect();
    why.push((
        "delimiter",
        format!(
            "{shown} splits {} of the first {sample} lines into {width} fields",
            table.len()
        ),
    ));
    // The table starts at the first line of that many fields: the lines before are a preamble.
    let start = split_lines
        .iter()
        .position(|r| r.len() == width)
        .unwrap_or(0);
    let here = format!("line {}", start + 1);
    let decimal_comma = votes_decimal_comma(&table);

    // A header: the table's first row holds no date and no amount with decimals.
    let first: &[String] = table.first().copied().unwrap_or(&[]);
    let header = !first
        .iter()
        .any(|c| is_date(c) || (is_amount(c, decimal_comma) && c.contains([',', '.'])));
    let names: Vec<String> = if header { first.to_vec() } else { Vec::new() };
    let data: Vec<&[String]> = table.iter().skip(usize::from(header)).copied().collect();
    if data.is_empty() {
        return Err(fail(
            file,
            &here,
            format!(
                "rows under the table's first line in the first {sample} lines, found none: check the file holds postings"
            ),
        ));
    }
    let first_word = first.first().filter(|w| header && !w.is_empty());
    let (skip_lines, header_starts_with) = match first_word {
        Some(w) if start > 0 => (0, Some(w.clone())),
        _ => (start, None),
    };
    why.push((
        "header",
        if header {
            "the first row of the table holds no date and no amount: the column names".into()
        } else {
            "the first row is already a posting (a date or an amount): no header".into()
        },
    ));
    match &header_starts_with {
        Some(h) => why.push((
            "header_starts_with",
            format!("{start} preamble lines come before the header, which starts with '{h}'"),
        )),
        None if skip_lines > 0 => why.push((
            "skip_lines",
            format!("{start} preamble lines come before the table"),
        )),
        None => {}
    }

    let (date_i, dated, format) = pick_date(&names, &data, width).ok_or_else(|| {
        fail(file, &here, format!("a column of dates in a format tieout knows ({}): set `date` and `date_formats` by hand", DATE_FORMATS.join(", ")))
    })?;
    why.push((
        "date",
        format!("dates as {format} in {dated} of {} rows", data.len()),
    ));
    let reads = |r: &&[String]| r.get(date_i).is_some_and(|c| parse_date(c, format).is_ok());
    // Rows with a word instead of a date (a pending row, a closing balance) are skipped.
    let mut skip_words: Vec<&str> = data
        .iter()
        .filter(|r| !reads(r))
        .map(|r| r.get(date_i).map_or("", String::as_str))
        .collect();
    skip_words.sort_unstable();
    skip_words.dedup();
    let t = Table {
        rows: data.iter().copied().filter(|r| reads(r)).collect(),
        names,
        width,
        decimal_comma,
    };
    let mut skip_rows_where = Vec::new();
    if !skip_words.is_empty() && skip_words.iter().all(|w| !w.is_empty()) {
        let quoted: Vec<String> = skip_words.iter().map(|w| format!("'{w}'")).collect();
        why.push((
            "skip_rows_where",
            format!(
                "rows with {} instead of a date are not postings",
                quoted.join(", ")
            ),
        ));
        let alternatives: Vec<String> = skip_words.iter().map(|w| regex::escape(w)).collect();
        skip_rows_where.push(SkipRule {
            column: t.col(date_i),
            matches: format!("^(?:{})$", alternatives.join("|")),
        });
    }

    let (amount, sign, mut taken) = pick_amount(&t, date_i, &mut why).ok_or_else(|| {
        fail(file, &here, "an amount column (numbers in every row) or a credit and a debit column: set `amount`, or `credit` and `debit`, by hand".into())
    })?;
    taken.push(date_i);
    let (currency_i, fixed) = pick_currency(
        &t,
        &taken,
        currency,
        &lines[..start],
        format == "%m/%d/%Y",
        &mut why,
    )
    .map_err(|what| fail(file, "line 1", what))?;
    taken.extend(currency_i);
    let (description, reference_i) = pick_text(&t, &taken, &mut why);
    why.push((
        "decimal_comma",
        if decimal_comma {
            "amounts are written 1.234,56"
        } else {
            "amounts are written 1,234.56"
        }
        .into(),
    ));

    let profile = CsvProfile {
        date: t.col(date_i),
        date_formats: vec![format.to_string()],
        amount,
        sign,
        currency_column: currency_i.map(|i| t.col(i)),
        currency: fixed,
        description: description.into_iter().map(|i| t.col(i)).collect(),
        reference: reference_i.map(|i| t.col(i)),
        id: None,
        decimal_comma,
        delimiter: char::from(delimiter),
        header,
        skip_lines,
        header_starts_with,
        skip_rows_where,
    };
    // Offered only if it reads the whole file.
    let lines_read = read(file, bytes, &profile)
        .map_err(|e| {
            let what = format!(
                "{} (read with the guessed profile: set the key for that column by hand)",
                e.what
            );
            StatementError::new(file, e.place, what)
        })?
        .len();
    Ok(Guess {
        profile,
        why,
        lines_read,
        sample,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn root() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/bank")
    }

    /// Issue 34, item 6: the guess reads every CSV fixture as its own profile does (the
    /// same lines, dates, amounts and currencies), and its TOML is that very profile.
    #[test]
    fn the_guess_reads_every_csv_fixture_as_its_profile_does() {
        #[derive(serde::Deserialize)]
        struct File {
            profiles: BTreeMap<String, CsvProfile>,
        }
        let text = std::fs::read_to_string(root().join("bank.toml")).expect("bank.toml");
        let mut known = toml::from_str::<File>(&text).expect("profiles").profiles;
        for b in ["us-debit-credit", "eu-semicolon"] {
            known.insert(b.into(), CsvProfile::built_in(b).expect("built in"));
        }
        let cases = [
            ("ing-2026-10-11.csv", "ing"),
            ("triodos-2026-10-11.csv", "triodos"),
            ("nordea-2026-10-11.csv", "nordea"),
            ("german-preamble-2026-10-11.csv", "german-preamble"),
            ("wells-fargo-2026-10-11.csv", "wells-fargo"),
            ("us-checking-2026-10-11.csv", "us-debit-credit"),
            ("eu-giro-2026-10-11.csv", "eu-semicolon"),
        ];
        let key = |l: &crate::bank::BankLine| (l.line, l.date, l.amount, l.currency);
        for (file, profile) in cases {
            let bytes = std::fs::read(root().join(file)).expect("fixture");
            let g = guess(file, &bytes, None).unwrap_or_else(|e| panic!("{file}: {e}"));
            let want = read(file, &bytes, &known[profile]).expect("known profile");
            let got = read(file, &bytes, &g.profile).expect("guessed profile");
            assert_eq!(
                got.iter().map(key).collect::<Vec<_>>(),
                want.iter().map(key).collect::<Vec<_>>(),
                "{file}: {:#?}",
                g.profile
            );
            let toml_text = g.to_toml("guessed", file);
            let parsed: File = toml::from_str(&toml_text).expect("the guess is valid TOML");
            assert_eq!(parsed.profiles["guessed"], g.profile, "{toml_text}");
            assert_eq!(g.lines_read, want.len());
        }
    }

    #[test]
    fn a_statement_read_without_a_profile_is_named_not_guessed() {
        let mt940 = b":20:X\n:25:DE00\n:60F:C261001EUR1,00\n:62F:C261001EUR1,00\n";
        let e = guess("s.sta", mt940, None).expect_err("not a CSV");
        assert_eq!(
            e.to_string(),
            "s.sta: line 1: a CSV export; this is an MT940 file, which tieout reads without a \
             profile: give it to `tieout reconcile --bank` as it is"
        );
    }

    #[test]
    fn a_file_the_guess_cannot_read_names_the_key_to_set() {
        let e = guess("x.csv", b"just some text\nno columns here\n", None).expect_err("no table");
        assert!(e.to_string().contains("set `delimiter` by hand"), "{e}");
        let e = guess("x.csv", b"a,b,c\nx,1.00,y\nz,2.00,w\n", None).expect_err("no dates");
        assert!(
            e.to_string().contains("set `date` and `date_formats`"),
            "{e}"
        );
        let e = guess(
            "x.csv",
            b"d,a,t\n2026-10-05,1.00,x\n2026-10-06,-2.00,y\n",
            None,
        )
        .expect_err("no currency");
        assert!(e.to_string().contains("--currency CODE"), "{e}");
        let g = guess(
            "x.csv",
            b"d,a,t\n2026-10-05,1.00,x\n2026-10-06,-2.00,y\n",
            Some("GBP"),
        )
        .expect("with --currency");
        assert_eq!(g.profile.currency.as_deref(), Some("gbp"));
        assert!(g.to_toml("mine", "x.csv").contains("[profiles.mine]\n"));
    }
}
