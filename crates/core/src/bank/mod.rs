//! The bank leg of the tie-out: bank statements as plain lines, read from the bytes of a
//! CSV export, an OFX/QFX file, a CAMT.053 statement, an MT940 or a BAI2 file, and the
//! matcher that pairs each payout with the deposit it became. No IO: the caller reads the
//! files and hands over their names and bytes, so an error can name the file and the place
//! in it.
//!
//! Every line a reader accepts becomes one [`BankLine`]; a line it cannot read is an
//! error naming the file, the line or element and what was expected, never a silent skip
//! (the only rows left out are those a CSV profile names: a preamble, `skip_rows_where`).
//! See ARCHITECTURE.md at the repository's root.

pub mod bai2;
pub mod camt;
pub mod csv;
pub mod duplicates;
pub mod matcher;
pub mod month;
pub mod mt940;
pub mod ofx;
#[cfg(test)]
pub(crate) mod testdata;

use jiff::civil::Date;

use crate::failure::Failure;
use crate::money::{Currency, parse_major};

pub use duplicates::{Duplicate, split_duplicates};
pub use matcher::{
    BankMatch, BankStatus, MatchOptions, MatchRule, PayoutKey, PayoutMatch, match_payouts,
};
pub use month::match_month;

/// One posted line of a bank statement, with where it was read from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BankLine {
    /// The file's name as the user gave it (for messages and the line id).
    pub file: String,
    /// Where in the file: the CSV row's line number, or the line of the OFX `<STMTTRN>`,
    /// the CAMT `<Ntry>` element, the MT940 `:61:` field or the BAI2 `16` record (1-based).
    pub line: u32,
    /// The booking date (CSV date, OFX `DTPOSTED`, CAMT `BookgDt`, MT940 entry date, BAI2
    /// group as-of date).
    pub date: Date,
    /// The value date when the statement gives one (CAMT `ValDt`).
    pub value_date: Option<Date>,
    /// Signed minor units: a credit is positive, a debit negative.
    pub amount: i64,
    pub currency: Currency,
    /// The free text: description, OFX `NAME`/`MEMO`, CAMT `RmtInf/Ustrd`.
    pub description: String,
    /// A reference the bank gives apart from the text (CSV reference column, OFX `REFNUM`,
    /// CAMT end-to-end id), if any.
    pub reference: Option<String>,
    /// The bank's own id of the line (CSV id column, OFX `FITID`, CAMT `AcctSvcrRef`).
    pub bank_id: Option<String>,
    /// Which statement (account) of the file the line is in, from 0: a file may hold
    /// several (one CAMT `<Stmt>` or OFX statement per account), each in its own currency.
    pub statement: u32,
}

impl BankLine {
    /// The line's id in the reports: the bank's id, else `file:line`.
    pub fn line_id(&self) -> String {
        match &self.bank_id {
            Some(id) if !id.is_empty() => id.clone(),
            _ => format!("{}:{}", self.file, self.line),
        }
    }

    /// Makes every control character other than tab in the line's texts visible.
    pub fn escape_controls(&mut self) {
        use crate::controls::escape_in_place;
        escape_in_place(&mut self.file);
        escape_in_place(&mut self.description);
        for text in [&mut self.reference, &mut self.bank_id]
            .into_iter()
            .flatten()
        {
            escape_in_place(text);
        }
    }

    /// The text a reference is looked for in: the description and the reference.
    pub fn text(&self) -> String {
        match &self.reference {
            Some(r) => format!("{} {r}", self.description),
            None => self.description.clone(),
        }
    }
}

/// A statement that could not be read: the file, the place in it and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {place}: {what}")]
pub struct StatementError {
    pub file: String,
    /// `line 12`, `line 40, <Ntry>`, ...
    pub place: String,
    pub what: String,
}

impl StatementError {
    pub fn new(file: &str, place: impl Into<String>, what: impl Into<String>) -> Self {
        Self {
            file: file.to_string(),
            place: place.into(),
            what: what.into(),
        }
    }
}

impl From<StatementError> for Failure {
    fn from(e: StatementError) -> Self {
        Failure::usage(format!("bank statement {e}"))
    }
}

/// The statement formats tieout reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Csv,
    Ofx,
    Camt053,
    Mt940,
    Bai2,
}

impl Format {
    /// The format with its article, for messages: `an MT940`, `a BAI2`.
    pub fn described(self) -> &'static str {
        match self {
            Format::Csv => "a CSV",
            Format::Ofx => "an OFX",
            Format::Camt053 => "a CAMT",
            Format::Mt940 => "an MT940",
            Format::Bai2 => "a BAI2",
        }
    }

    /// Guesses the format from the content (an OFX header or `<OFX>`, a camt.053 namespace
    /// or `<BkToCstmrStmt>`, or their camt.052 report and camt.054 notification cousins,
    /// whose `<Ntry>` has the same shape), MT940 by its `:20:` and `:60F:` fields or its
    /// SWIFT `{2:…940` block, BAI2 by its `01,` file header and `02,` group, else CSV.
    pub fn sniff(bytes: &[u8]) -> Format {
        let head = &bytes[..bytes.len().min(4096)];
        let head = String::from_utf8_lossy(head);
        if head.contains("OFXHEADER") || head.contains("<OFX>") || head.contains("<OFX ") {
            Format::Ofx
        } else if [
            "camt.05",
            "BkToCstmrStmt",
            "BkToCstmrAcctRpt",
            "BkToCstmrDbtCdtNtfctn",
        ]
        .iter()
        .any(|tag| head.contains(tag))
        {
            Format::Camt053
        } else if mt940::looks_like(&head) {
            Format::Mt940
        } else if bai2::looks_like(&head) {
            Format::Bai2
        } else {
            Format::Csv
        }
    }
}

/// Reads one statement file: OFX, CAMT, MT940 and BAI2 are recognised by their content, anything
/// else is read as CSV with `profile`. A control character other than tab in a line's
/// text, reference, id or file name is made visible ([`crate::controls`]), so a NUL or
/// an ESC in a description reaches neither a report nor the screen.
pub fn read_statement(
    file: &str,
    bytes: &[u8],
    profile: &csv::CsvProfile,
) -> Result<Vec<BankLine>, StatementError> {
    let mut lines = match Format::sniff(bytes) {
        Format::Ofx => ofx::read(file, bytes),
        Format::Camt053 => camt::read(file, bytes),
        Format::Mt940 => mt940::read(file, bytes),
        Format::Bai2 => bai2::read(file, bytes),
        Format::Csv => csv::read(file, bytes, profile),
    }?;
    lines.iter_mut().for_each(BankLine::escape_controls);
    Ok(lines)
}

/// Reads a decimal amount as a bank writes it into signed minor units: `decimal_comma`
/// means `1.234,56`, else `1,234.56`; spaces and apostrophes group thousands; a trailing
/// minus (`12.00-`) and parentheses (`(12.00)`) are negative.
pub fn parse_amount(text: &str, currency: Currency, decimal_comma: bool) -> Result<i64, String> {
    let mut t = text.trim().to_string();
    let mut negative = false;
    if t.starts_with('(') && t.ends_with(')') && t.len() > 2 {
        negative = true;
        t = t[1..t.len() - 1].trim().to_string();
    }
    if let Some(rest) = t.strip_suffix('-') {
        negative = !negative;
        t = rest.trim().to_string();
    }
    let cleaned: String = t
        .chars()
        .filter(|c| !matches!(c, ' ' | '\'' | '\u{a0}' | '\u{202f}'))
        .filter(|c| if decimal_comma { *c != '.' } else { *c != ',' })
        .map(|c| if decimal_comma && c == ',' { '.' } else { c })
        .collect();
    if cleaned.is_empty() {
        return Err(format!("an amount, found '{text}'"));
    }
    let minor = parse_major(&cleaned, currency).map_err(|e| {
        format!(
            "an amount in {} with {}, found '{text}' ({e})",
            currency.upper(),
            if decimal_comma {
                "a decimal comma"
            } else {
                "a decimal point"
            }
        )
    })?;
    Ok(if negative { -minor } else { minor })
}

/// The date part of `text` read with a strftime-style `format` (`%Y-%m-%d`, `%d.%m.%Y`,
/// `%m/%d/%Y`, ...).
pub fn parse_date(text: &str, format: &str) -> Result<Date, String> {
    Date::strptime(format, text.trim())
        .map_err(|_| format!("a date as {format}, found '{}'", text.trim()))
}

/// Reads `YYYYMMDD` at the start of an OFX or compact date.
pub fn parse_compact_date(text: &str) -> Result<Date, String> {
    let t = text.trim();
    let head = t.get(..8).unwrap_or("");
    if head.len() == 8 && head.bytes().all(|b| b.is_ascii_digit()) {
        parse_date(head, "%Y%m%d")
    } else {
        Err(format!("a date as YYYYMMDD..., found '{t}'"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cur(c: &str) -> Currency {
        Currency::parse(c).expect("currency")
    }

    #[test]
    fn amounts_in_the_ways_banks_write_them() {
        let usd = cur("usd");
        assert_eq!(parse_amount("1,234.56", usd, false), Ok(123_456));
        assert_eq!(parse_amount("-12.5", usd, false), Ok(-1250));
        assert_eq!(parse_amount("(12.00)", usd, false), Ok(-1200));
        assert_eq!(parse_amount("12.00-", usd, false), Ok(-1200));
        assert_eq!(parse_amount("1.234,56", cur("eur"), true), Ok(123_456));
        assert_eq!(parse_amount("-0,99", cur("eur"), true), Ok(-99));
        assert_eq!(parse_amount("1 234,56", cur("eur"), true), Ok(123_456));
        assert_eq!(parse_amount("283566", cur("jpy"), false), Ok(283_566));
        assert!(parse_amount("12.345", usd, false).is_err());
        // Banks pad with zeros: accepted in every notation, a non-zero extra digit is not.
        assert_eq!(parse_amount("8.850", cur("eur"), false), Ok(885));
        assert_eq!(parse_amount("1.234,56000", cur("eur"), true), Ok(123_456));
        assert_eq!(parse_amount("+00000000000000.2400", usd, false), Ok(24));
        assert_eq!(parse_amount("(12.000)", usd, false), Ok(-1200));
        assert_eq!(
            parse_amount("8.851", cur("eur"), false),
            Err(
                "an amount in EUR with a decimal point, found '8.851' ('8.851' is not an \
                 amount in EUR: it has a non-zero digit beyond the decimals the currency \
                 allows)"
                    .to_string()
            )
        );
        assert!(parse_amount("abc", usd, false).is_err());
        assert!(parse_amount("", usd, false).is_err());
    }

    #[test]
    fn dates_in_the_ways_banks_write_them() {
        let d = jiff::civil::date(2026, 10, 5);
        assert_eq!(parse_date("2026-10-05", "%Y-%m-%d"), Ok(d));
        assert_eq!(parse_date("05.10.2026", "%d.%m.%Y"), Ok(d));
        assert_eq!(parse_date("10/05/2026", "%m/%d/%Y"), Ok(d));
        assert_eq!(parse_compact_date("20261005120000[-5:EST]"), Ok(d));
        assert!(parse_date("2026-13-05", "%Y-%m-%d").is_err());
        assert!(parse_compact_date("2026-10-05").is_err());
    }

    /// Issue 40: NUL, ESC and BEL in a description passed raw into the reports and the
    /// screen.
    #[test]
    fn control_characters_in_a_statement_are_made_visible_at_read() {
        let profile = csv::CsvProfile::built_in("tieout").expect("built in");
        let text = "date,amount,currency,description,reference,id\n2026-10-05,1.00,usd,\"STRIPE\0\u{1b}[2J\u{7}\",r\u{1b}f,i\u{0}d\n";
        let lines = read_statement("s\u{7}.csv", text.as_bytes(), &profile).expect("reads");
        let l = &lines[0];
        assert_eq!(l.description, "STRIPE\\u{00}\\u{1B}[2J\\u{07}");
        assert_eq!(l.reference.as_deref(), Some("r\\u{1B}f"));
        assert_eq!(l.bank_id.as_deref(), Some("i\\u{00}d"));
        assert_eq!(l.file, "s\\u{07}.csv");
    }

    #[test]
    fn the_format_is_sniffed_from_the_content() {
        assert_eq!(Format::sniff(b"OFXHEADER:100\nDATA:OFXSGML"), Format::Ofx);
        assert_eq!(
            Format::sniff(b"<?xml version=\"1.0\"?><Document xmlns=\"urn:iso:std:iso:20022:tech:xsd:camt.053.001.02\">"),
            Format::Camt053
        );
        assert_eq!(Format::sniff(b"date,amount\n"), Format::Csv);
    }
}
