//! Bank CSV exports, read through a column map (a [`CsvProfile`], see [`profile`]): where
//! the table starts (after a preamble, at a header found by its first word, or with no
//! header at all), which columns hold the date, the amount, its sign, the currency and the
//! text (by header name or position), which rows are not postings. Profiles are plain data
//! so a user's own lives in the config file under a name; a few are built in.

pub mod guess;
mod profile;

pub use profile::{
    AmountColumns, BUILT_IN, Column, CsvProfile, RawCsvProfile, SignColumn, SkipRule, fold,
    profile_keys, same_word, skip_rule_keys,
};

use super::{BankLine, StatementError, parse_amount, parse_date};
use crate::money::Currency;

/// The most fields a row of a CSV statement may have (bank exports have a dozen or two).
pub const MAX_FIELDS: usize = 256;

/// Where the table (its header, or its first row without one) starts: a byte offset and
/// the 1-based line there. `newlines` are the offsets of the file's `\n`s.
fn table_start(
    file: &str,
    bytes: &[u8],
    newlines: &[usize],
    profile: &CsvProfile,
) -> Result<(usize, usize), StatementError> {
    let line_start = |k: usize| if k == 0 { 0 } else { newlines[k - 1] + 1 };
    let lines = newlines.len() + usize::from(newlines.last().is_none_or(|&n| n + 1 < bytes.len()));
    if let Some(first) = &profile.header_starts_with {
        let want = fold(first);
        for k in 0..lines {
            let end = newlines.get(k).copied().unwrap_or(bytes.len());
            let text = String::from_utf8_lossy(&bytes[line_start(k)..end]);
            let text = text.trim_start().trim_start_matches('"');
            if fold(text).starts_with(&want) {
                return Ok((line_start(k), k + 1));
            }
        }
        return Err(StatementError::new(
            file,
            format!("line 1 to {lines}"),
            format!(
                "a header row starting with '{first}' (header_starts_with), found none: check the file is this bank's export, or set header_starts_with to the first word of its header row"
            ),
        ));
    }
    let n = profile.skip_lines;
    if n > newlines.len() || (n > 0 && profile.header && line_start(n) >= bytes.len()) {
        let what = if profile.header {
            "a header row"
        } else {
            "a row"
        };
        return Err(StatementError::new(
            file,
            format!("line {}", n + 1),
            format!(
                "{what} after the {n} preamble lines (skip_lines = {n}), but the file has only {lines} lines: check skip_lines"
            ),
        ));
    }
    Ok((line_start(n), n + 1))
}

/// `3 fields (positions 0 to 2)`: how many a row has, in the terms a profile counts.
fn fields(n: usize) -> String {
    match n {
        0 => "no fields".to_string(),
        1 => "1 field (position 0)".to_string(),
        n => format!("{n} fields (positions 0 to {})", n - 1),
    }
}

/// The columns a profile names, found in the header (or taken as positions).
struct Columns {
    date: usize,
    amount: (usize, Option<usize>),
    sign: Option<usize>,
    currency: Option<usize>,
    description: Vec<usize>,
    reference: Option<usize>,
    id: Option<usize>,
    skip: Vec<(usize, regex::Regex)>,
    /// Without a header: the positions every row must have, with the key naming each.
    required: Vec<(&'static str, usize)>,
}

impl Columns {
    fn find(
        file: &str,
        header_line: usize,
        headers: Option<&::csv::StringRecord>,
        profile: &CsvProfile,
    ) -> Result<Columns, StatementError> {
        let place = format!("line {header_line}");
        let find = |c: &Column| -> Option<usize> {
            match (c, headers) {
                (Column::Position(i), Some(h)) => (*i < h.len()).then_some(*i),
                (Column::Position(i), None) => Some(*i),
                (Column::Name(n), Some(h)) => h.iter().position(|x| fold(x) == fold(n)),
                (Column::Name(_), None) => None,
            }
        };
        let mut required = Vec::new();
        let mut need = |key: &'static str, c: &Column| -> Result<usize, StatementError> {
            let found = find(c).ok_or_else(|| {
                let h = headers.map_or_else(Vec::new, |h| h.iter().collect::<Vec<_>>());
                let what = match c {
                    Column::Name(name) => format!(
                        "a column named '{name}' in the header (found: {})",
                        h.join(", ")
                    ),
                    Column::Position(i) => format!(
                        "a column at position {i} for `{key}`, but the header has {}",
                        fields(h.len())
                    ),
                };
                StatementError::new(file, place.clone(), what)
            })?;
            required.push((key, found));
            Ok(found)
        };
        let date = need("date", &profile.date)?;
        let amount = match &profile.amount {
            AmountColumns::Signed { amount } => (need("amount", amount)?, None),
            AmountColumns::Pair { credit, debit } => {
                (need("credit", credit)?, Some(need("debit", debit)?))
            }
        };
        let sign = match &profile.sign {
            Some(s) => Some(need("sign_column", &s.column)?),
            None => None,
        };
        let currency = match &profile.currency_column {
            Some(c) => Some(need("currency_column", c)?),
            None => None,
        };
        let description = profile
            .description
            .iter()
            .map(|d| need("description", d))
            .collect::<Result<Vec<_>, _>>()?;
        let mut skip = Vec::new();
        for rule in &profile.skip_rows_where {
            let regex = rule
                .regex()
                .map_err(|e| StatementError::new(file, "profile", e))?;
            skip.push((need("skip_rows_where.column", &rule.column)?, regex));
        }
        // A skip rule's column need not exist in a row it does not skip.
        required.retain(|(key, _)| *key != "skip_rows_where.column");
        Ok(Columns {
            date,
            amount,
            sign,
            currency,
            description,
            reference: profile.reference.as_ref().and_then(find),
            id: profile.id.as_ref().and_then(find),
            skip,
            required,
        })
    }
}

/// Reads a CSV statement with `profile`. The table starts after `skip_lines` preamble
/// lines or at the header found by `header_starts_with`; the header row must name every
/// mapped column (optional columns — reference and id — may be absent); without a header
/// every row must have every mapped position. An empty row, and a row a
/// `skip_rows_where` rule matches, is skipped; any other row that cannot be read is an
/// error naming its line. A row may have fewer fields than the header (the missing ones
/// are empty) but not more, unless the extra ones are empty (a trailing delimiter); no
/// row, the header included, may have more than [`MAX_FIELDS`].
pub fn read(
    file: &str,
    bytes: &[u8],
    profile: &CsvProfile,
) -> Result<Vec<BankLine>, StatementError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let delimiter = u8::try_from(profile.delimiter).map_err(|_| {
        StatementError::new(file, "profile", "a one-byte delimiter such as , ; or tab")
    })?;
    // The csv crate's own line count skips blank lines; count the file's newlines instead.
    let newlines: Vec<usize> = memchr::memchr_iter(b'\n', bytes).collect();
    let (start, header_line) = table_start(file, bytes, &newlines, profile)?;
    let table = &bytes[start..];
    let mut reader = ::csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .has_headers(profile.header)
        .from_reader(table);
    let at = format!("line {header_line}");
    let headers = if profile.header {
        let h = reader
            .headers()
            .map_err(|e| StatementError::new(file, at.clone(), format!("a header row ({e})")))?
            .clone();
        if h.len() > MAX_FIELDS {
            return Err(StatementError::new(
                file,
                at,
                format!(
                    "a header row of at most {MAX_FIELDS} fields, found {}",
                    h.len()
                ),
            ));
        }
        Some(h)
    } else {
        None
    };
    let cols = Columns::find(file, header_line, headers.as_ref(), profile)?;
    let fixed =
        match &profile.currency {
            Some(c) => Some(Currency::parse(c).map_err(|e| {
                StatementError::new(file, "profile", format!("a currency code ({e})"))
            })?),
            None => None,
        };
    if cols.currency.is_none() && fixed.is_none() {
        return Err(StatementError::new(
            file,
            "profile",
            "a currency column or a fixed currency",
        ));
    }

    let line_at = |pos: Option<&::csv::Position>| -> u32 {
        let rel = pos.map_or(0, |p| usize::try_from(p.byte()).unwrap_or(usize::MAX));
        let mut byte = start.saturating_add(rel);
        // A record's position can be that of the blank lines before it.
        while matches!(bytes.get(byte), Some(b'\r' | b'\n')) {
            byte += 1;
        }
        u32::try_from(newlines.partition_point(|&n| n < byte) + 1).unwrap_or(u32::MAX)
    };
    // At most one line per row: sized once, so a 2-million-line statement's lines are
    // not doubled into a buffer twice their size while they are read.
    let mut lines = Vec::with_capacity(newlines.len());
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = line_at(e.position());
            StatementError::new(file, format!("line {line}"), format!("a CSV row ({e})"))
        })?;
        let line = line_at(record.position());
        let width = headers
            .as_ref()
            .map_or(MAX_FIELDS, ::csv::StringRecord::len);
        let wide =
            record.len() > MAX_FIELDS || record.iter().skip(width).any(|c| !c.trim().is_empty());
        if wide {
            let like = if headers.is_some() {
                " like the header"
            } else {
                ""
            };
            return Err(StatementError::new(
                file,
                format!("line {line}"),
                format!(
                    "a row of at most {width} fields{like} (and never more than {MAX_FIELDS}), found {}",
                    record.len()
                ),
            ));
        }
        if record.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        let cell = |i: usize| record.get(i).unwrap_or("").trim();
        if cols.skip.iter().any(|(i, re)| re.is_match(cell(*i))) {
            continue;
        }
        let place = format!("line {line}");
        let err = |what: String| StatementError::new(file, place.clone(), what);
        if headers.is_none()
            && let Some((key, i)) = cols.required.iter().find(|(_, i)| *i >= record.len())
        {
            return Err(err(format!(
                "a field at position {i} for `{key}`, but the row has {}: check the profile's positions against the file",
                fields(record.len())
            )));
        }
        lines.push(BankLine {
            file: file.to_string(),
            line,
            ..read_row(&cols, profile, fixed, &record, &err)?
        });
    }
    Ok(lines)
}

/// One row's line (its file and line are the caller's to set).
fn read_row(
    cols: &Columns,
    profile: &CsvProfile,
    fixed: Option<Currency>,
    record: &::csv::StringRecord,
    err: &dyn Fn(String) -> StatementError,
) -> Result<BankLine, StatementError> {
    let cell = |i: usize| record.get(i).unwrap_or("").trim();
    let date_text = cell(cols.date);
    let date = profile
        .date_formats
        .iter()
        .find_map(|f| parse_date(date_text, f).ok())
        .ok_or_else(|| {
            err(format!(
                "a date in column {} as {}, found '{date_text}'",
                profile.date.describe(),
                profile.date_formats.join(" or ")
            ))
        })?;
    let currency = match (cols.currency, fixed) {
        (Some(i), _) if !cell(i).is_empty() || fixed.is_none() => Currency::parse(cell(i))
            .map_err(|_| {
                err(format!(
                    "a currency code in column {}, found '{}'",
                    profile
                        .currency_column
                        .as_ref()
                        .map_or_else(String::new, Column::describe),
                    cell(i)
                ))
            })?,
        (_, Some(c)) => c,
        (_, None) => return Err(err("a currency".to_string())),
    };
    let dc = profile.decimal_comma;
    let amount = match cols.amount {
        (i, None) => {
            let amount = parse_amount(cell(i), currency, dc)
                .map_err(|e| err(format!("{e} in the amount column")))?;
            match (cols.sign, &profile.sign) {
                (Some(si), Some(sign)) => signed(amount, cell(si), sign).map_err(err)?,
                _ => amount,
            }
        }
        (ci, Some(di)) => {
            let (credit, debit) = (cell(ci), cell(di));
            match (credit.is_empty(), debit.is_empty()) {
                (false, true) => parse_amount(credit, currency, dc)
                    .map_err(|e| err(format!("{e} in the credit column")))?,
                (true, false) => -parse_amount(debit, currency, dc)
                    .map_err(|e| err(format!("{e} in the debit column")))?
                    .abs(),
                _ => {
                    return Err(err(format!(
                        "exactly one of the credit and debit columns filled, found credit '{credit}' and debit '{debit}'"
                    )));
                }
            }
        }
    };
    let description = cols
        .description
        .iter()
        .map(|&i| cell(i))
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let opt = |i: Option<usize>| i.map(cell).filter(|t| !t.is_empty()).map(str::to_string);
    Ok(BankLine {
        file: String::new(),
        line: 0,
        date,
        value_date: None,
        amount,
        currency,
        description,
        reference: opt(cols.reference),
        bank_id: opt(cols.id),
        statement: 0,
    })
}

/// An unsigned amount signed by its sign column's word: a debit word makes it negative (a
/// minus sign written as well changes nothing), a credit word keeps it (a minus sign is
/// then a contradiction), any other word is an error naming the words the profile knows.
fn signed(amount: i64, word: &str, sign: &SignColumn) -> Result<i64, String> {
    let is = |words: &[String]| words.iter().any(|w| same_word(w, word));
    if is(&sign.debit_values) {
        Ok(-amount.abs())
    } else if is(&sign.credit_values) {
        if amount < 0 {
            Err(format!(
                "an unsigned amount on a credit ('{word}' in column {}), found a negative one: check the amount and sign columns",
                sign.column.describe()
            ))
        } else {
            Ok(amount)
        }
    } else {
        let quote = |w: &[String]| {
            w.iter()
                .map(|x| format!("'{x}'"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        Err(format!(
            "a debit word ({}) or a credit word ({}) in the sign column {}, found '{word}': if the bank uses it, add it to debit_values or credit_values",
            quote(&sign.debit_values),
            quote(&sign.credit_values),
            sign.column.describe()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn profile(name: &str) -> CsvProfile {
        CsvProfile::built_in(name).expect("built in")
    }

    #[test]
    fn a_signed_amount_with_a_currency_column() {
        let text = "date,amount,currency,description,reference,id\n2026-10-05,1393.11,usd,STRIPE PAYOUT,DEMOGQDMBWAAXAR1,b1\n\n2026-10-06,-12.00,USD,fee,,\n";
        let lines = read("s.csv", text.as_bytes(), &profile("tieout")).expect("reads");
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].amount, 139_311);
        assert_eq!(lines[0].line, 2);
        assert_eq!(lines[0].bank_id.as_deref(), Some("b1"));
        assert_eq!(lines[0].reference.as_deref(), Some("DEMOGQDMBWAAXAR1"));
        assert_eq!(lines[1].amount, -1200);
        assert_eq!(lines[1].line, 4);
        assert_eq!(lines[1].line_id(), "s.csv:4");
    }

    #[test]
    fn a_credit_debit_pair_with_a_fixed_currency_and_a_bom() {
        let text = "\u{feff}Posting Date,Description,Debit,Credit,Balance\r\n10/05/2026,STRIPE TRANSFER,,\"1,393.11\",9000.00\r\n10/06/2026,RETURN,1331.30,,7000\r\n";
        let lines = read("us.csv", text.as_bytes(), &profile("us-debit-credit")).expect("reads");
        assert_eq!(lines[0].amount, 139_311);
        assert_eq!(lines[0].currency.as_str(), "usd");
        assert_eq!(lines[1].amount, -133_130);
        assert_eq!(lines[0].date, jiff::civil::date(2026, 10, 5));
    }

    #[test]
    fn decimal_commas_and_semicolons() {
        let text = "Buchungstag;Valuta;Auftraggeber;Verwendungszweck;Betrag;Waehrung\n06.10.2026;06.10.2026;STRIPE;PAYOUT;1.378,29;EUR\n";
        let lines = read("eu.csv", text.as_bytes(), &profile("eu-semicolon")).expect("reads");
        assert_eq!(lines[0].amount, 137_829);
        assert_eq!(lines[0].description, "STRIPE PAYOUT");
    }

    #[test]
    fn a_bad_row_is_an_error_naming_its_line_and_what_was_expected() {
        let text =
            "date,amount,currency,description\n2026-10-05,1.00,usd,a\n2026-31-10,1.00,usd,b\n";
        let e = read("s.csv", text.as_bytes(), &profile("tieout")).expect_err("bad date");
        assert_eq!(
            e.to_string(),
            "s.csv: line 3: a date in column 'date' as %Y-%m-%d, found '2026-31-10'"
        );
        let text = "date,amount,currency,description\n2026-10-05,1.0.0,usd,a\n";
        let e = read("s.csv", text.as_bytes(), &profile("tieout")).expect_err("bad amount");
        assert!(
            e.to_string().starts_with("s.csv: line 2: an amount in USD"),
            "{e}"
        );
        let text = "when,amount\n";
        let e = read("s.csv", text.as_bytes(), &profile("tieout")).expect_err("no column");
        assert_eq!(
            e.to_string(),
            "s.csv: line 1: a column named 'date' in the header (found: when, amount)"
        );
        let text = "Posting Date,Description,Debit,Credit\n10/05/2026,x,1.00,2.00\n";
        let e = read("u.csv", text.as_bytes(), &profile("us-debit-credit")).expect_err("both");
        assert!(
            e.to_string()
                .contains("exactly one of the credit and debit"),
            "{e}"
        );
    }

    /// Issue 40: a row with a million extra columns was accepted.
    #[test]
    fn a_row_wider_than_the_header_is_refused_naming_its_line_and_count() {
        let head = "date,amount,currency,description\n2026-10-05,1.00,usd,a\n";
        let text = format!("{head}2026-10-06,2.00,usd,b,extra,x\n");
        let e = read("s.csv", text.as_bytes(), &profile("tieout")).expect_err("wide row");
        assert_eq!(
            e.to_string(),
            "s.csv: line 3: a row of at most 4 fields like the header (and never more than 256), found 6"
        );
        // A trailing delimiter (empty extra fields) is how some banks end a row.
        let text = format!("{head}2026-10-06,2.00,usd,b,,\n");
        assert_eq!(
            read("s.csv", text.as_bytes(), &profile("tieout"))
                .expect("empty extras")
                .len(),
            2
        );
        // ... but not a million of them.
        let text = format!("{head}2026-10-06,2.00,usd,b{}\n", ",".repeat(1_000_000));
        let e = read("s.csv", text.as_bytes(), &profile("tieout")).expect_err("too many");
        assert!(
            e.to_string()
                .starts_with("s.csv: line 3: a row of at most 4 fields")
                && e.to_string().ends_with("found 1000004"),
            "{e}"
        );
        let text = format!("date,amount,currency,description{}\n", ",x".repeat(300));
        let e = read("s.csv", text.as_bytes(), &profile("tieout")).expect_err("wide header");
        assert_eq!(
            e.to_string(),
            "s.csv: line 1: a header row of at most 256 fields, found 304"
        );
    }

    #[test]
    fn a_profile_from_toml_and_by_name() {
        let p: CsvProfile = toml::from_str(
            "date = \"Datum\"\ndate_formats = [\"%d/%m/%Y\"]\ncredit = \"In\"\ndebit = \"Out\"\ncurrency = \"gbp\"\ndescription = [\"Details\"]\n",
        )
        .expect("toml");
        assert_eq!(
            p.amount,
            AmountColumns::Pair {
                credit: Column::Name("In".into()),
                debit: Column::Name("Out".into())
            }
        );
        let mut user = BTreeMap::new();
        user.insert("mybank".to_string(), p.clone());
        assert_eq!(CsvProfile::named("mybank", &user), Ok(p));
        assert!(CsvProfile::named("tieout", &user).is_ok());
        let e = toml::from_str::<CsvProfile>(
            "date = \"D\"\ndate_formats = []\namount = \"A\"\ndescription = []\ncurency = \"gbp\"\n",
        )
        .expect_err("unknown key");
        assert!(e.message().contains("curency"), "{e}");
        let e = toml::from_str::<CsvProfile>(
            "date = \"D\"\ndate_formats = []\namount = \"A\"\ncredit = \"C\"\ndebit = \"X\"\ndescription = []\n",
        )
        .expect_err("both ways");
        assert!(e.message().contains("not both ways"), "{e}");
        let e = CsvProfile::named("nope", &user).expect_err("unknown");
        assert_eq!(
            e,
            "no bank CSV profile named 'nope': use one of mybank, tieout, us-debit-credit, eu-semicolon"
        );
    }

    fn user(text: &str) -> CsvProfile {
        toml::from_str(text).expect("profile")
    }

    /// Issue 34: Triodos and Wells Fargo write no header; columns are named by position.
    #[test]
    fn no_header_columns_by_position() {
        let p = user(
            "header = false\ndate = 0\ndate_formats = [\"%m/%d/%Y\"]\namount = 1\ncurrency = \"usd\"\ndescription = [4]\n",
        );
        let text = "\"10/05/2026\",\"1393.11\",\"*\",\"\",\"STRIPE TRANSFER\"\n\"10/06/2026\",\"-3500.00\",\"*\",\"\",\"RENT\"\n";
        let lines = read("wf.csv", text.as_bytes(), &p).expect("reads");
        assert_eq!(lines.len(), 2);
        assert_eq!((lines[0].line, lines[0].amount), (1, 139_311));
        assert_eq!(lines[1].amount, -350_000);
        assert_eq!(lines[1].description, "RENT");
        let text = "\"10/05/2026\",\"1393.11\",\"*\"\n";
        let e = read("wf.csv", text.as_bytes(), &p).expect_err("short row");
        assert_eq!(
            e.to_string(),
            "wf.csv: line 1: a field at position 4 for `description`, but the row has 3 fields (positions 0 to 2): check the profile's positions against the file"
        );
    }

    /// Issue 34: ING's `Af`/`Bij` and Triodos' `Debet`/`Credit` give the sign of an
    /// unsigned amount; a word that is neither is an error, never a guess.
    #[test]
    fn a_sign_column_signs_the_amount_and_refuses_other_words() {
        let p = user(
            "date = \"Datum\"\ndate_formats = [\"%Y%m%d\"]\namount = \"Bedrag (EUR)\"\nsign_column = \"Af Bij\"\ndebit_values = [\"Af\"]\ncredit_values = [\"Bij\"]\ncurrency = \"eur\"\ndescription = [\"Naam / Omschrijving\"]\ndecimal_comma = true\ndelimiter = \";\"\n",
        );
        let head = "\"Datum\";\"Naam / Omschrijving\";\"Af Bij\";\"Bedrag (EUR)\"\n";
        let text = format!(
            "{head}\"20261006\";\"Stripe\";\"Bij\";\"1378,29\"\n\"20261007\";\"Huur\";\"af\";\"1.200,00\"\n"
        );
        let lines = read("ing.csv", text.as_bytes(), &p).expect("reads");
        assert_eq!(lines[0].amount, 137_829);
        assert_eq!(lines[1].amount, -120_000);
        let text = format!("{head}\"20261006\";\"Stripe\";\"Storno\";\"1378,29\"\n");
        let e = read("ing.csv", text.as_bytes(), &p).expect_err("neither word");
        assert_eq!(
            e.to_string(),
            "ing.csv: line 2: a debit word ('Af') or a credit word ('Bij') in the sign column 'Af Bij', found 'Storno': if the bank uses it, add it to debit_values or credit_values"
        );
        let text = format!("{head}\"20261006\";\"Stripe\";\"Bij\";\"-1378,29\"\n");
        let e = read("ing.csv", text.as_bytes(), &p).expect_err("negative credit");
        assert!(
            e.to_string()
                .starts_with("ing.csv: line 2: an unsigned amount on a credit ('Bij'"),
            "{e}"
        );
    }

    /// Issue 34: German exports start with a preamble; Nordea lists pending rows
    /// (`Varaus`) first; headers are matched with their umlauts as written.
    #[test]
    fn a_preamble_is_skipped_and_rows_matching_a_rule_are_not_read() {
        let p = user(
            "date = \"Kirjauspäivä\"\ndate_formats = [\"%Y/%m/%d\"]\namount = \"Määrä\"\ncurrency_column = \"Valuutta\"\ndescription = [\"Nimi\"]\ndecimal_comma = true\ndelimiter = \";\"\nskip_rows_where = { column = \"Kirjauspäivä\", matches = \"^Varaus$\" }\n",
        );
        let text = "Kirjauspäivä;Määrä;Nimi;Valuutta\nVaraus;-25,00;K-Market;EUR\n2026/10/06;1378,29;Stripe;EUR\n";
        let lines = read("nordea.csv", text.as_bytes(), &p).expect("reads");
        assert_eq!(lines.len(), 1);
        assert_eq!((lines[0].line, lines[0].amount), (3, 137_829));

        let mut p = profile("eu-semicolon");
        let text = "Umsätze Girokonto\nIBAN: DE89 3704 0044 0532 0130 00\n\n\"Buchungstag\";\"Valuta\";\"Auftraggeber\";\"Verwendungszweck\";\"Betrag\";\"Währung\"\n06.10.2026;06.10.2026;STRIPE;PAYOUT;1.378,29;EUR\n";
        assert!(read("de.csv", text.as_bytes(), &p).is_err());
        p.header_starts_with = Some("Buchungstag".into());
        let lines = read("de.csv", text.as_bytes(), &p).expect("reads");
        assert_eq!((lines[0].line, lines[0].amount), (5, 137_829));
        assert_eq!(lines[0].currency.as_str(), "eur");
        p.header_starts_with = None;
        p.skip_lines = 3;
        assert_eq!(
            read("de.csv", text.as_bytes(), &p).expect("reads")[0].line,
            5
        );
        p.skip_lines = 9;
        let e = read("de.csv", text.as_bytes(), &p).expect_err("beyond the end");
        assert_eq!(
            e.to_string(),
            "de.csv: line 10: a header row after the 9 preamble lines (skip_lines = 9), but the file has only 5 lines: check skip_lines"
        );
        p.skip_lines = 0;
        p.header_starts_with = Some("Datum".into());
        let e = read("de.csv", text.as_bytes(), &p).expect_err("no such header");
        assert!(
            e.to_string().starts_with(
                "de.csv: line 1 to 5: a header row starting with 'Datum' (header_starts_with), found none"
            ),
            "{e}"
        );
    }
}
