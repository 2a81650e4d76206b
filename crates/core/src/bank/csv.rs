//! Bank CSV exports, read through a column map (a [`CsvProfile`]): which header names the
//! date, the amount (one signed column, or a credit and a debit column), the currency (a
//! column, or one fixed currency for the account), the text, the reference and the bank's
//! id; the date format; a decimal comma or point; the delimiter. Profiles are plain data so
//! a user's own lives in the config file under a name; a few are built in.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{BankLine, StatementError, parse_amount, parse_date};
use crate::money::Currency;

/// Where the amount is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AmountColumns {
    /// One signed column (credits positive).
    Signed { amount: String },
    /// A credit column and a debit column; one of the two is filled (a debit may be
    /// written with or without its minus sign: it is a debit either way).
    Pair { credit: String, debit: String },
}

/// A bank's CSV layout. Read from TOML through [`RawCsvProfile`], which refuses a key it
/// does not know (serde cannot refuse one through the flattened amount columns).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawCsvProfile")]
pub struct CsvProfile {
    /// The header of the date column.
    pub date: String,
    /// strftime-style formats tried in order: `%Y-%m-%d`, `%d.%m.%Y`, `%m/%d/%Y`, ...
    pub date_formats: Vec<String>,
    #[serde(flatten)]
    pub amount: AmountColumns,
    /// The header of the currency column, if the export has one.
    #[serde(default)]
    pub currency_column: Option<String>,
    /// The account's currency when there is no currency column.
    #[serde(default)]
    pub currency: Option<String>,
    /// The headers whose text makes the description (joined by a space).
    pub description: Vec<String>,
    #[serde(default)]
    pub reference: Option<String>,
    #[serde(default)]
    pub id: Option<String>,
    /// `1.234,56` instead of `1,234.56`.
    #[serde(default)]
    pub decimal_comma: bool,
    /// The field separator: `,` (default), `;` or a tab.
    #[serde(default = "comma")]
    pub delimiter: char,
}

fn comma() -> char {
    ','
}

/// A profile as a `bank.toml` table writes it: the amount as one `amount` column or a
/// `credit` and a `debit` column; any other key is refused.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCsvProfile {
    date: String,
    date_formats: Vec<String>,
    #[serde(default)]
    amount: Option<String>,
    #[serde(default)]
    credit: Option<String>,
    #[serde(default)]
    debit: Option<String>,
    #[serde(default)]
    currency_column: Option<String>,
    #[serde(default)]
    currency: Option<String>,
    description: Vec<String>,
    #[serde(default)]
    reference: Option<String>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    decimal_comma: bool,
    #[serde(default = "comma")]
    delimiter: char,
}

impl TryFrom<RawCsvProfile> for CsvProfile {
    type Error = String;

    fn try_from(raw: RawCsvProfile) -> Result<Self, String> {
        let amount = match (raw.amount, raw.credit, raw.debit) {
            (Some(amount), None, None) => AmountColumns::Signed { amount },
            (None, Some(credit), Some(debit)) => AmountColumns::Pair { credit, debit },
            _ => {
                return Err(
                    "a profile names its amount as `amount` (one signed column) or as both `credit` and `debit`, not both ways and not neither"
                        .to_string(),
                );
            }
        };
        Ok(CsvProfile {
            date: raw.date,
            date_formats: raw.date_formats,
            amount,
            currency_column: raw.currency_column,
            currency: raw.currency,
            description: raw.description,
            reference: raw.reference,
            id: raw.id,
            decimal_comma: raw.decimal_comma,
            delimiter: raw.delimiter,
        })
    }
}

/// The built-in profiles' names, for messages and `--help`.
pub const BUILT_IN: &[&str] = &["tieout", "us-debit-credit", "eu-semicolon"];

impl CsvProfile {
    /// A built-in profile by name:
    /// - `tieout`: `date,amount,currency,description,reference,id`, ISO dates, decimal point;
    /// - `us-debit-credit`: `Posting Date,Description,Debit,Credit,Balance` (+ optional
    ///   `Reference`), `MM/DD/YYYY`, USD;
    /// - `eu-semicolon`: `Buchungstag;Valuta;Auftraggeber;Verwendungszweck;Betrag;Waehrung`
    ///   (+ optional `Referenz`), `DD.MM.YYYY`, decimal comma, `;`.
    pub fn built_in(name: &str) -> Option<CsvProfile> {
        let s = |x: &str| x.to_string();
        match name {
            "tieout" => Some(CsvProfile {
                date: s("date"),
                date_formats: vec![s("%Y-%m-%d")],
                amount: AmountColumns::Signed {
                    amount: s("amount"),
                },
                currency_column: Some(s("currency")),
                currency: None,
                description: vec![s("description")],
                reference: Some(s("reference")),
                id: Some(s("id")),
                decimal_comma: false,
                delimiter: ',',
            }),
            "us-debit-credit" => Some(CsvProfile {
                date: s("Posting Date"),
                date_formats: vec![s("%m/%d/%Y"), s("%Y-%m-%d")],
                amount: AmountColumns::Pair {
                    credit: s("Credit"),
                    debit: s("Debit"),
                },
                currency_column: None,
                currency: Some(s("usd")),
                description: vec![s("Description")],
                reference: Some(s("Reference")),
                id: None,
                decimal_comma: false,
                delimiter: ',',
            }),
            "eu-semicolon" => Some(CsvProfile {
                date: s("Buchungstag"),
                date_formats: vec![s("%d.%m.%Y"), s("%d.%m.%y")],
                amount: AmountColumns::Signed {
                    amount: s("Betrag"),
                },
                currency_column: Some(s("Waehrung")),
                currency: None,
                description: vec![s("Auftraggeber"), s("Verwendungszweck")],
                reference: Some(s("Referenz")),
                id: None,
                decimal_comma: true,
                delimiter: ';',
            }),
            _ => None,
        }
    }

    /// A profile by name: the user's (from the config file) first, then the built-ins.
    pub fn named(name: &str, user: &BTreeMap<String, CsvProfile>) -> Result<CsvProfile, String> {
        if let Some(p) = user.get(name) {
            return Ok(p.clone());
        }
        CsvProfile::built_in(name).ok_or_else(|| {
            let mut known: Vec<&str> = user.keys().map(String::as_str).collect();
            known.extend(BUILT_IN);
            format!(
                "no bank CSV profile named '{name}': use one of {}",
                known.join(", ")
            )
        })
    }
}

/// The most fields a row of a CSV statement may have (bank exports have a dozen or two).
pub const MAX_FIELDS: usize = 256;

/// Reads a CSV statement with `profile`. The header row must name every mapped column
/// (optional columns — reference and id — may be absent); an empty row is skipped; any
/// other row that cannot be read is an error naming its line. A row may have fewer fields
/// than the header (the missing ones are empty) but not more, unless the extra ones are
/// empty (a trailing delimiter); no row, the header included, may have more than
/// [`MAX_FIELDS`].
pub fn read(
    file: &str,
    bytes: &[u8],
    profile: &CsvProfile,
) -> Result<Vec<BankLine>, StatementError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let delimiter = u8::try_from(profile.delimiter).map_err(|_| {
        StatementError::new(file, "profile", "a one-byte delimiter such as , ; or tab")
    })?;
    let mut reader = ::csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .has_headers(true)
        .from_reader(bytes);
    let headers = reader
        .headers()
        .map_err(|e| StatementError::new(file, "line 1", format!("a header row ({e})")))?
        .clone();
    if headers.len() > MAX_FIELDS {
        return Err(StatementError::new(
            file,
            "line 1",
            format!(
                "a header row of at most {MAX_FIELDS} fields, found {}",
                headers.len()
            ),
        ));
    }
    let col = |name: &str| -> Option<usize> {
        headers
            .iter()
            .position(|h| h.trim().eq_ignore_ascii_case(name.trim()))
    };
    let need = |name: &str| -> Result<usize, StatementError> {
        col(name).ok_or_else(|| {
            StatementError::new(
                file,
                "line 1",
                format!(
                    "a column named '{name}' in the header (found: {})",
                    headers.iter().collect::<Vec<_>>().join(", ")
                ),
            )
        })
    };
    let date_col = need(&profile.date)?;
    let amount_cols = match &profile.amount {
        AmountColumns::Signed { amount } => (need(amount)?, None),
        AmountColumns::Pair { credit, debit } => (need(credit)?, Some(need(debit)?)),
    };
    let fixed =
        match &profile.currency {
            Some(c) => Some(Currency::parse(c).map_err(|e| {
                StatementError::new(file, "profile", format!("a currency code ({e})"))
            })?),
            None => None,
        };
    let currency_col = match &profile.currency_column {
        Some(name) => Some(need(name)?),
        None if fixed.is_some() => None,
        None => {
            return Err(StatementError::new(
                file,
                "profile",
                "a currency column or a fixed currency",
            ));
        }
    };
    let desc_cols = profile
        .description
        .iter()
        .map(|d| need(d))
        .collect::<Result<Vec<_>, _>>()?;
    let ref_col = profile.reference.as_deref().and_then(col);
    let id_col = profile.id.as_deref().and_then(col);

    // The csv crate's own line count skips blank lines; count the file's newlines instead.
    let newlines: Vec<usize> = bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i)
        .collect();
    let line_at = |pos: Option<&::csv::Position>| -> u32 {
        let mut byte = pos.map_or(0, |p| usize::try_from(p.byte()).unwrap_or(usize::MAX));
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
        let wide = record.len() > MAX_FIELDS
            || record
                .iter()
                .skip(headers.len())
                .any(|c| !c.trim().is_empty());
        if wide {
            return Err(StatementError::new(
                file,
                format!("line {line}"),
                format!(
                    "a row of at most {} fields like the header (and never more than {MAX_FIELDS}), found {}",
                    headers.len(),
                    record.len()
                ),
            ));
        }
        if record.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        let place = format!("line {line}");
        let cell = |i: usize| record.get(i).unwrap_or("").trim();
        let err = |what: String| StatementError::new(file, place.clone(), what);

        let date_text = cell(date_col);
        let date = profile
            .date_formats
            .iter()
            .find_map(|f| parse_date(date_text, f).ok())
            .ok_or_else(|| {
                err(format!(
                    "a date in column '{}' as {}, found '{date_text}'",
                    profile.date,
                    profile.date_formats.join(" or ")
                ))
            })?;
        let currency = match (currency_col, fixed) {
            (Some(i), _) if !cell(i).is_empty() || fixed.is_none() => Currency::parse(cell(i))
                .map_err(|_| {
                    err(format!(
                        "a currency code in column '{}', found '{}'",
                        profile.currency_column.as_deref().unwrap_or(""),
                        cell(i)
                    ))
                })?,
            (_, Some(c)) => c,
            (_, None) => return Err(err("a currency".to_string())),
        };
        let amount = match amount_cols {
            (i, None) => parse_amount(cell(i), currency, profile.decimal_comma)
                .map_err(|e| err(format!("{e} in the amount column")))?,
            (ci, Some(di)) => {
                let (credit, debit) = (cell(ci), cell(di));
                match (credit.is_empty(), debit.is_empty()) {
                    (false, true) => parse_amount(credit, currency, profile.decimal_comma)
                        .map_err(|e| err(format!("{e} in the credit column")))?,
                    (true, false) => -parse_amount(debit, currency, profile.decimal_comma)
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
        let description = desc_cols
            .iter()
            .map(|&i| cell(i))
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        let opt = |i: Option<usize>| i.map(cell).filter(|t| !t.is_empty()).map(str::to_string);
        lines.push(BankLine {
            file: file.to_string(),
            line,
            date,
            value_date: None,
            amount,
            currency,
            description,
            reference: opt(ref_col),
            bank_id: opt(id_col),
            statement: 0,
        });
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

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
                credit: "In".into(),
                debit: "Out".into()
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
}
