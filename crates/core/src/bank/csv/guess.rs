//! `tieout bank-profile --guess FILE`: a [`CsvProfile`] proposed from a CSV export's first
//! lines — the delimiter, the decimal mark, where the table starts and whether it has a
//! header, which column is the date (and its format), the amount (signed, unsigned with a
//! sign column, or an in/out pair), the currency and the text, and which rows are not
//! postings — rendered as a commented `bank.toml` table for a person to check and save.
//! The guess is tried on the whole file before it is offered: a file it cannot read is an
//! error naming the key to set by hand.

use super::{AmountColumns, Column, CsvProfile, SignColumn, SkipRule, fold, read};
use crate::bank::{StatementError, parse_amount, parse_date};
use crate::money::Currency;

/// How many lines of the file the guess looks at.
pub const SAMPLE_LINES: usize = 200;

/// The date formats tried, in order of preference when two read a column equally well.
const DATE_FORMATS: &[&str] = &[
    "%Y-%m-%d", "%d.%m.%Y", "%m/%d/%Y", "%d/%m/%Y", "%d-%m-%Y", "%Y%m%d", "%Y/%m/%d", "%d.%m.%y",
];

/// The words a sign column is known to use: (debit, credit).
const SIGN_WORDS: &[(&str, &str)] = &[
    ("Af", "Bij"),
    ("Debet", "Credit"),
    ("Debit", "Credit"),
    ("D", "C"),
    ("DR", "CR"),
    ("S", "H"),
    ("Soll", "Haben"),
];

/// Currency codes looked for in headers and preambles ("Bedrag (EUR)", "15.000,00 EUR").
const CODES: &[&str] = &[
    "EUR", "USD", "GBP", "CHF", "SEK", "NOK", "DKK", "PLN", "CZK", "HUF", "JPY", "CAD", "AUD",
    "NZD", "SGD", "HKD",
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

fn is_date(cell: &str) -> bool {
    DATE_FORMATS.iter().any(|f| parse_date(cell, f).is_ok())
}

fn is_amount(cell: &str, decimal_comma: bool) -> bool {
    cell.chars().any(|c| c.is_ascii_digit())
        && parse_amount(cell, Currency::EUR, decimal_comma).is_ok()
}

/// Whether a header names a column of this kind (long words anywhere in it, short ones as
/// the whole name).
fn named(name: &str, long: &[&str], short: &[&str]) -> bool {
    let n = fold(name);
    long.iter().any(|w| n.contains(w)) || short.iter().any(|w| n == *w)
}

fn is_balance(name: &str) -> bool {
    named(name, &["saldo", "balance", "kontostand"], &[])
}

fn code_in(text: &str) -> Option<&'static str> {
    CODES.iter().copied().find(|c| {
        text.split(|ch: char| !ch.is_ascii_alphabetic())
            .any(|w| w == *c)
    })
}

/// Guesses a profile for the CSV export `bytes` (named `file` in messages); `currency`
/// is the account's currency when the user gives it.
pub fn guess(file: &str, bytes: &[u8], currency: Option<&str>) -> Result<Guess, StatementError> {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = std::str::from_utf8(body).map_err(|e| {
        let line = body[..e.valid_up_to()]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1;
        fail(
            file,
            &format!("line {line}"),
            "UTF-8 text (tieout reads statements as UTF-8): save the export as UTF-8".into(),
        )
    })?;
    let lines: Vec<&str> = text.lines().take(SAMPLE_LINES).collect();
    let sample = lines.len();
    let mut why: Vec<(&'static str, String)> = Vec::new();

    // The delimiter: the one that splits the most lines into the same 3 or more fields.
    let (delimiter, width, split_lines) = [b',', b';', b'\t', b'|']
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
        .ok_or_else(|| {
            fail(file, "line 1", "lines of 3 or more fields split by , ; tab or |: set `delimiter` by hand (and check this is a CSV export)".into())
        })?;
    let shown = if delimiter == b'\t' {
        "tab".to_string()
    } else {
        char::from(delimiter).to_string()
    };
    let rows_of_width = split_lines.iter().filter(|r| r.len() == width).count();
    why.push((
        "delimiter",
        format!("{shown} splits {rows_of_width} of the first {sample} lines into {width} fields"),
    ));

    let start = split_lines
        .iter()
        .position(|r| r.len() == width)
        .unwrap_or(0);
    let table: Vec<(usize, &Vec<String>)> = split_lines
        .iter()
        .enumerate()
        .skip(start)
        .filter(|(_, r)| r.len() == width)
        .collect();
    let dc_votes =
        table
            .iter()
            .flat_map(|(_, r)| r.iter())
            .fold((0usize, 0usize), |(c, p), cell| {
                let t = cell.trim_start_matches(['-', '+']);
                let comma = t.rsplit_once(',').is_some_and(|(a, b)| {
                    !a.is_empty() && b.len() == 2 && b.chars().all(|c| c.is_ascii_digit())
                });
                let point = t.rsplit_once('.').is_some_and(|(a, b)| {
                    !a.is_empty() && b.len() == 2 && b.chars().all(|c| c.is_ascii_digit())
                });
                (c + usize::from(comma), p + usize::from(point))
            });
    let decimal_comma = dc_votes.0 > dc_votes.1;
    let first = table.first().map(|(_, r)| r.as_slice()).unwrap_or(&[]);
    let header = !first.iter().any(|c| {
        is_date(c) || is_amount(c, decimal_comma) && c.chars().any(|ch| ch == ',' || ch == '.')
    });
    let names: Vec<String> = if header { first.to_vec() } else { Vec::new() };
    let data: Vec<&Vec<String>> = table
        .iter()
        .skip(usize::from(header))
        .map(|(_, r)| *r)
        .collect();
    if data.is_empty() {
        return Err(fail(
            file,
            &format!("line {}", start + 1),
            format!(
                "rows under the table's first line in the first {sample} lines, found none: check the file holds postings"
            ),
        ));
    }
    let col = |i: usize| -> Column {
        match names.get(i) {
            Some(n) if !n.is_empty() => Column::Name(n.clone()),
            _ => Column::Position(i),
        }
    };
    let header_starts_with = (header && start > 0).then(|| first[0].clone());
    let skip_lines = if header { 0 } else { start };
    if header {
        why.push((
            "header",
            "the first row of the table holds no date and no amount: the column names".into(),
        ));
    } else {
        why.push((
            "header",
            "the first row is already a posting (a date or an amount): no header".into(),
        ));
    }
    if let Some(h) = &header_starts_with {
        why.push((
            "header_starts_with",
            format!("{start} preamble lines come before the header, which starts with '{h}'"),
        ));
    } else if skip_lines > 0 {
        why.push((
            "skip_lines",
            format!("{start} preamble lines come before the first row"),
        ));
    }

    // The date: a column the header names as the booking date (not the value date), else
    // the column and format that read the most rows.
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
    let mut best: Option<(usize, usize, &str)> = None;
    for i in 0..width {
        for f in DATE_FORMATS {
            let n = data.iter().filter(|r| parse_date(&r[i], f).is_ok()).count();
            let better = match best {
                None => n > 0,
                Some((j, m, _)) => {
                    let enough = |k: usize| k * 2 >= data.len();
                    (enough(n) && booking(i) && !(enough(m) && booking(j)))
                        || (n > m && (booking(i) || !booking(j) || !enough(m)))
                }
            };
            if better {
                best = Some((i, n, f));
            }
        }
    }
    let (date_i, dated, format) = best
        .filter(|(_, n, _)| *n * 2 >= data.len())
        .ok_or_else(|| fail(file, &format!("line {}", start + 1), format!("a column of dates in a format tieout knows ({}): set `date` and `date_formats` by hand", DATE_FORMATS.join(", "))))?;
    why.push((
        "date",
        format!("dates as {format} in {dated} of {} rows", data.len()),
    ));
    let mut skip_words: Vec<&str> = data
        .iter()
        .map(|r| r[date_i].as_str())
        .filter(|c| parse_date(c, format).is_err())
        .collect();
    skip_words.sort_unstable();
    skip_words.dedup();
    let skip_rows_where = if skip_words.is_empty() || skip_words.iter().any(|w| w.is_empty()) {
        Vec::new()
    } else {
        let alternatives: Vec<String> = skip_words.iter().map(|w| regex::escape(w)).collect();
        why.push((
            "skip_rows_where",
            format!(
                "rows with {} instead of a date are not postings",
                skip_words
                    .iter()
                    .map(|w| format!("'{w}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
        vec![SkipRule {
            column: col(date_i),
            matches: format!("^(?:{})$", alternatives.join("|")),
        }]
    };
    let rows: Vec<&Vec<String>> = data
        .into_iter()
        .filter(|r| parse_date(&r[date_i], format).is_ok())
        .collect();
    let n_rows = rows.len();
    let filled = |i: usize| rows.iter().filter(|r| !r[i].is_empty()).count();
    let dated_col = |i: usize| rows.iter().filter(|r| is_date(&r[i])).count() * 2 >= n_rows;
    let numeric = |i: usize| {
        filled(i) > 0
            && rows
                .iter()
                .all(|r| r[i].is_empty() || is_amount(&r[i], decimal_comma))
            && rows
                .iter()
                .any(|r| r[i].contains(if decimal_comma { ',' } else { '.' }))
    };
    let name = |i: usize| names.get(i).map_or("", String::as_str);
    let money: Vec<usize> = (0..width)
        .filter(|&i| i != date_i && !dated_col(i) && numeric(i) && !is_balance(name(i)))
        .collect();
    let negative = |i: usize| {
        rows.iter()
            .any(|r| parse_amount(&r[i], Currency::EUR, decimal_comma).is_ok_and(|a| a < 0))
    };

    // The amount: an in/out pair (exactly one filled per row), else one always-filled column.
    let pair = money
        .iter()
        .flat_map(|&a| money.iter().map(move |&b| (a, b)))
        .find(|&(a, b)| a < b && rows.iter().all(|r| r[a].is_empty() != r[b].is_empty()));
    let mut sign = None;
    let mut taken = vec![date_i];
    let amount = if let Some((a, b)) = pair {
        let credit_word = |i: usize| {
            named(
                name(i),
                &["credit", "haben", "gutschrift", "deposit", "einnahme"],
                &["bij", "in"],
            )
        };
        let (credit, debit) = if credit_word(a) || negative(b) {
            (a, b)
        } else {
            (b, a)
        };
        taken.extend([a, b]);
        why.push((
            "credit",
            "exactly one of two amount columns is filled in every row: money in and money out"
                .into(),
        ));
        AmountColumns::Pair {
            credit: col(credit),
            debit: col(debit),
        }
    } else {
        let always: Vec<usize> = money
            .iter()
            .copied()
            .filter(|&i| filled(i) == n_rows)
            .collect();
        let i = always
            .iter()
            .copied()
            .find(|&i| named(name(i), &["betrag", "bedrag", "amount", "maeaerae", "belopp", "beloeb", "importe", "montant", "umsatz"], &[]))
            .or_else(|| always.first().copied())
            .ok_or_else(|| fail(file, &format!("line {}", start + 1), "an amount column (numbers in every row) or a credit and a debit column: set `amount`, or `credit` and `debit`, by hand".into()))?;
        taken.push(i);
        if negative(i) {
            why.push((
                "amount",
                "a signed amount in every row (debits negative)".into(),
            ));
        } else {
            let words = |j: usize| {
                let mut w: Vec<String> = rows.iter().map(|r| fold(&r[j])).collect();
                w.sort_unstable();
                w.dedup();
                w
            };
            sign = (0..width).filter(|j| !taken.contains(j)).find_map(|j| {
                let w = words(j);
                SIGN_WORDS
                    .iter()
                    .find(|(d, c)| w.iter().all(|x| *x == fold(d) || *x == fold(c)))
                    .map(|(d, c)| SignColumn {
                        column: col(j),
                        debit_values: vec![(*d).to_string()],
                        credit_values: vec![(*c).to_string()],
                    })
            });
            match &sign {
                Some(s) => {
                    why.push(("amount", "an unsigned amount in every row".into()));
                    why.push(("sign_column", format!("its words ({}, {}) say debit or credit", s.debit_values[0], s.credit_values[0])));
                }
                None => why.push(("amount", "no amount is negative and no column says debit or credit: check that debits are signed".into())),
            }
        }
        AmountColumns::Signed { amount: col(i) }
    };
    if let Some(s) = &sign {
        if let Column::Position(j) = s.column {
            taken.push(j);
        } else if let Some(j) = names
            .iter()
            .position(|n| Column::Name(n.clone()) == s.column)
        {
            taken.push(j);
        }
    }

    // The currency: a column of codes, the user's, a code in the header or preamble, or
    // the convention the dates and decimals follow.
    let currency_i = (0..width).filter(|j| !taken.contains(j)).find(|&j| {
        filled(j) == n_rows
            && rows
                .iter()
                .all(|r| CODES.contains(&r[j].to_uppercase().as_str()))
    });
    let mut fixed = None;
    if let Some(j) = currency_i {
        taken.push(j);
        why.push(("currency_column", "a currency code in every row".into()));
    } else if let Some(c) = currency {
        fixed = Some(c.to_lowercase());
        why.push(("currency", "as given with --currency".into()));
    } else if let Some(c) = names
        .iter()
        .find_map(|n| code_in(n))
        .or_else(|| lines[..start].iter().find_map(|l| code_in(l)))
    {
        fixed = Some(c.to_lowercase());
        why.push((
            "currency",
            format!("{c} is written in the header or the preamble"),
        ));
    } else if decimal_comma || format == "%m/%d/%Y" {
        let (c, how) = if decimal_comma {
            ("eur", "a decimal comma")
        } else {
            ("usd", "US dates")
        };
        fixed = Some(c.to_string());
        why.push(("currency", format!("the file names no currency; {how} suggests {}: check, or run again with --currency CODE", c.to_uppercase())));
    } else {
        return Err(fail(file, "line 1", "a currency column or a currency code in the header: the file names none; run again with --currency CODE (the account's currency), or set `currency` by hand".into()));
    }

    // The text: every other column of varied words (no ids, no IBANs or BICs, no codes);
    // a column named as a reference is the reference.
    let reference_i = (0..width).filter(|j| !taken.contains(j)).find(|&j| {
        filled(j) > 0
            && named(
                name(j),
                &[
                    "referenz",
                    "reference",
                    "kenmerk",
                    "viitenumero",
                    "end-to-end",
                    "referens",
                ],
                &[],
            )
    });
    if let Some(j) = reference_i {
        taken.push(j);
        why.push(("reference", "the header names it as the reference".into()));
    }
    let iban_or_bic = |c: &str| {
        let c: String = c.chars().filter(|ch| *ch != ' ').collect();
        let upper = c
            .chars()
            .all(|ch| ch.is_ascii_uppercase() || ch.is_ascii_digit());
        upper
            && (c.len() >= 15 && c[..2].chars().all(|ch| ch.is_ascii_alphabetic())
                || c.len() == 8
                || c.len() == 11)
    };
    let description: Vec<usize> = (0..width)
        .filter(|j| !taken.contains(j) && !dated_col(*j) && !numeric(*j) && !is_balance(name(*j)))
        .filter(|&j| {
            let mut values: Vec<&str> = rows
                .iter()
                .map(|r| r[j].as_str())
                .filter(|c| !c.is_empty())
                .collect();
            let codes = values
                .iter()
                .all(|c| c.chars().count() <= 3 || iban_or_bic(c));
            values.sort_unstable();
            values.dedup();
            values.len() >= 2 && !codes
        })
        .collect();
    why.push((
        "description",
        "the columns of varied text (names, purposes), not account numbers or codes".into(),
    ));

    let profile = CsvProfile {
        date: col(date_i),
        date_formats: vec![format.to_string()],
        amount,
        sign,
        currency_column: currency_i.map(col),
        currency: fixed,
        description: description.into_iter().map(col).collect(),
        reference: reference_i.map(col),
        id: None,
        decimal_comma,
        delimiter: char::from(delimiter),
        header,
        skip_lines,
        header_starts_with,
        skip_rows_where,
    };
    why.push((
        "decimal_comma",
        if decimal_comma {
            "amounts are written 1.234,56".into()
        } else {
            "amounts are written 1,234.56".into()
        },
    ));
    let lines_read = read(file, bytes, &profile)
        .map_err(|e| {
            StatementError::new(
                file,
                e.place,
                format!(
                    "{} (with the guessed profile: set that key by hand)",
                    e.what
                ),
            )
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
