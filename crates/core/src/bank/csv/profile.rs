//! What a bank CSV profile says, as `bank.toml` writes it: which column holds the date,
//! the amount (one signed column, a credit and a debit column, or an unsigned column and a
//! column whose word gives the sign), the currency, the text, the reference and the bank's
//! id — each named by its header or by its position from 0 — and how the file is laid out
//! around them (a preamble, no header, rows to skip). Every key is checked when the file is
//! read, so a profile that cannot work is refused before any statement is.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};

/// A column: by its header's name (`"Buchungstag"`) or by its position from 0 (`2`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Column {
    Name(String),
    Position(usize),
}

impl Column {
    fn name(s: &str) -> Column {
        Column::Name(s.to_string())
    }

    /// The column as a message names it: `'Betrag'` or `2 (counted from 0)`.
    pub fn describe(&self) -> String {
        match self {
            Column::Name(n) => format!("'{n}'"),
            Column::Position(i) => format!("{i} (counted from 0)"),
        }
    }
}

impl<'de> Deserialize<'de> for Column {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Column;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a column's header name (\"Betrag\") or its position from 0 (2)")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Column, E> {
                Ok(Column::Name(v.to_string()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Column, E> {
                usize::try_from(v).map(Column::Position).map_err(|_| {
                    E::custom(format!(
                        "a column's position counts from 0 (the first column), found {v}"
                    ))
                })
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Column, E> {
                usize::try_from(v)
                    .map(Column::Position)
                    .map_err(|_| E::custom(format!("a column position, found {v}")))
            }
        }
        d.deserialize_any(V)
    }
}

/// Where the amount is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AmountColumns {
    /// One column: signed (credits positive), or unsigned with a [`SignColumn`].
    Signed { amount: Column },
    /// A credit column and a debit column; one of the two is filled (a debit may be
    /// written with or without its minus sign: it is a debit either way).
    Pair { credit: Column, debit: Column },
}

/// A column whose word says whether the row is a debit or a credit (ING's `Af`/`Bij`,
/// Triodos' `Debet`/`Credit`); the amount column is then unsigned. Words are compared
/// without regard to case or surrounding spaces; any other word is an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignColumn {
    pub column: Column,
    pub debit_values: Vec<String>,
    pub credit_values: Vec<String>,
}

/// A row that is not a posting (a pending reservation, a closing-balance line): skipped
/// when the cell in `column` contains a match of the regular expression `matches`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkipRule {
    pub column: Column,
    pub matches: String,
}

/// The longest `skip_rows_where` pattern, compiled (bytes of the regex program): a real
/// one is a word or two.
pub const MAX_PATTERN_BYTES: usize = 1 << 16;

impl SkipRule {
    /// The rule's pattern, compiled with a size limit.
    pub fn regex(&self) -> Result<regex::Regex, String> {
        regex::RegexBuilder::new(&self.matches)
            .size_limit(MAX_PATTERN_BYTES)
            .build()
            .map_err(|e| {
                // The parser's message draws a caret under the pattern; keep its last line.
                let e = e.to_string();
                let why = e.lines().last().unwrap_or("").trim();
                format!(
                    "skip_rows_where: `matches = {:?}` is not a regular expression tieout can use ({})",
                    self.matches,
                    why.trim_start_matches("error: ")
                )
            })
    }
}

/// A bank's CSV layout. Read from TOML through [`RawCsvProfile`], which refuses a key it
/// does not know and a combination that cannot work.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "RawCsvProfile")]
pub struct CsvProfile {
    pub date: Column,
    /// strftime-style formats tried in order: `%Y-%m-%d`, `%d.%m.%Y`, `%m/%d/%Y`, ...
    pub date_formats: Vec<String>,
    pub amount: AmountColumns,
    /// The column whose word gives the sign of an unsigned amount column.
    pub sign: Option<SignColumn>,
    /// The currency column, if the export has one.
    pub currency_column: Option<Column>,
    /// The account's currency when there is no currency column (or its cell is empty).
    pub currency: Option<String>,
    /// The columns whose text makes the description (joined by a space).
    pub description: Vec<Column>,
    pub reference: Option<Column>,
    pub id: Option<Column>,
    /// `1.234,56` instead of `1,234.56`.
    pub decimal_comma: bool,
    /// The field separator: `,` (default), `;` or a tab.
    pub delimiter: char,
    /// Whether the table starts with a header row (default true); without one every
    /// column is named by its position.
    pub header: bool,
    /// Lines before the table (a preamble of account holder, IBAN, period).
    pub skip_lines: usize,
    /// The table starts at the first line that begins with this text (after any quote).
    pub header_starts_with: Option<String>,
    /// Rows that are not postings, skipped.
    pub skip_rows_where: Vec<SkipRule>,
}

fn comma() -> char {
    ','
}

fn yes() -> bool {
    true
}

/// `skip_rows_where` as one table or an array of tables.
fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<SkipRule>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Vec<SkipRule>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a table { column = …, matches = … } or an array of them")
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            SkipRule::deserialize(de::value::MapAccessDeserializer::new(map)).map(|r| vec![r])
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            Vec::<SkipRule>::deserialize(de::value::SeqAccessDeserializer::new(seq))
        }
    }
    d.deserialize_any(V)
}

/// A profile as a `bank.toml` table writes it; any other key is refused (the README's
/// "Bank profiles" lists every one: [`profile_keys`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCsvProfile {
    date: Column,
    date_formats: Vec<String>,
    #[serde(default)]
    amount: Option<Column>,
    #[serde(default)]
    credit: Option<Column>,
    #[serde(default)]
    debit: Option<Column>,
    #[serde(default)]
    sign_column: Option<Column>,
    #[serde(default)]
    debit_values: Option<Vec<String>>,
    #[serde(default)]
    credit_values: Option<Vec<String>>,
    #[serde(default)]
    currency_column: Option<Column>,
    #[serde(default)]
    currency: Option<String>,
    description: Vec<Column>,
    #[serde(default)]
    reference: Option<Column>,
    #[serde(default)]
    id: Option<Column>,
    #[serde(default)]
    decimal_comma: bool,
    #[serde(default = "comma")]
    delimiter: char,
    #[serde(default = "yes")]
    header: bool,
    #[serde(default)]
    skip_lines: usize,
    #[serde(default)]
    header_starts_with: Option<String>,
    #[serde(default, deserialize_with = "one_or_many")]
    skip_rows_where: Vec<SkipRule>,
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
        let sign = match (raw.sign_column, raw.debit_values, raw.credit_values) {
            (None, None, None) => None,
            (Some(column), Some(debit_values), Some(credit_values))
                if !debit_values.is_empty() && !credit_values.is_empty() =>
            {
                if matches!(amount, AmountColumns::Pair { .. }) {
                    return Err("`sign_column` gives the sign of one unsigned `amount` column; with `credit` and `debit` columns leave it out".to_string());
                }
                if let Some(both) = debit_values
                    .iter()
                    .find(|d| credit_values.iter().any(|c| same_word(c, d)))
                {
                    return Err(format!(
                        "'{both}' is in both `debit_values` and `credit_values`: a word says one or the other"
                    ));
                }
                Some(SignColumn {
                    column,
                    debit_values,
                    credit_values,
                })
            }
            _ => {
                return Err("`sign_column` goes with `debit_values` and `credit_values`, each a non-empty list of the column's words (debit_values = [\"Af\"], credit_values = [\"Bij\"])".to_string());
            }
        };
        if raw.skip_lines > 0 && raw.header_starts_with.is_some() {
            return Err("set `skip_lines` (a fixed preamble) or `header_starts_with` (the header found by its first word), not both".to_string());
        }
        if !raw.header && raw.header_starts_with.is_some() {
            return Err("`header_starts_with` finds a header row, but `header = false`: use `skip_lines` to skip a preamble".to_string());
        }
        if raw
            .header_starts_with
            .as_deref()
            .is_some_and(|h| h.trim().is_empty())
        {
            return Err("`header_starts_with` is empty: give the header's first word".to_string());
        }
        for rule in &raw.skip_rows_where {
            rule.regex()?;
        }
        let profile = CsvProfile {
            date: raw.date,
            date_formats: raw.date_formats,
            amount,
            sign,
            currency_column: raw.currency_column,
            currency: raw.currency,
            description: raw.description,
            reference: raw.reference,
            id: raw.id,
            decimal_comma: raw.decimal_comma,
            delimiter: raw.delimiter,
            header: raw.header,
            skip_lines: raw.skip_lines,
            header_starts_with: raw.header_starts_with,
            skip_rows_where: raw.skip_rows_where,
        };
        if !profile.header
            && let Some((key, Column::Name(name))) = profile
                .columns()
                .into_iter()
                .find(|(_, c)| matches!(c, Column::Name(_)))
        {
            return Err(format!(
                "`{key}` names the column '{name}', but `header = false` (the file has no header to find it in): name it by its position from 0 ({key} = 0)"
            ));
        }
        if profile.date_formats.is_empty() {
            return Err(
                "`date_formats` is empty: give at least one, such as [\"%d.%m.%Y\"]".to_string(),
            );
        }
        Ok(profile)
    }
}

/// Whether two words of a sign column are the same: case and spaces aside.
pub fn same_word(a: &str, b: &str) -> bool {
    fold(a) == fold(b)
}

/// A header or word as it is compared: trimmed, lowercased, and with `ä ö ü ß` (written
/// as one character or as a letter and a combining diaeresis) spelt `ae oe ue ss`, so
/// `Währung` in a profile finds the header `Währung` as well as `Waehrung`.
pub fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.trim().chars().flat_map(char::to_lowercase) {
        match c {
            'ä' => out.push_str("ae"),
            'ö' => out.push_str("oe"),
            'ü' => out.push_str("ue"),
            'ß' => out.push_str("ss"),
            '\u{308}' if out.ends_with(['a', 'o', 'u']) => out.push('e'),
            c => out.push(c),
        }
    }
    out
}

/// The built-in profiles' names, for messages and `--help`.
pub const BUILT_IN: &[&str] = &["tieout", "us-debit-credit", "eu-semicolon"];

impl CsvProfile {
    /// Every column the profile names, with the key that names it (a description's as
    /// `description`).
    pub fn columns(&self) -> Vec<(&'static str, &Column)> {
        let mut out = vec![("date", &self.date)];
        match &self.amount {
            AmountColumns::Signed { amount } => out.push(("amount", amount)),
            AmountColumns::Pair { credit, debit } => {
                out.push(("credit", credit));
                out.push(("debit", debit));
            }
        }
        if let Some(s) = &self.sign {
            out.push(("sign_column", &s.column));
        }
        if let Some(c) = &self.currency_column {
            out.push(("currency_column", c));
        }
        out.extend(self.description.iter().map(|d| ("description", d)));
        if let Some(c) = &self.reference {
            out.push(("reference", c));
        }
        if let Some(c) = &self.id {
            out.push(("id", c));
        }
        out.extend(
            self.skip_rows_where
                .iter()
                .map(|r| ("skip_rows_where.column", &r.column)),
        );
        out
    }

    fn plain(date: &str, formats: &[&str], amount: AmountColumns) -> CsvProfile {
        CsvProfile {
            date: Column::name(date),
            date_formats: formats.iter().map(|f| f.to_string()).collect(),
            amount,
            sign: None,
            currency_column: None,
            currency: None,
            description: Vec::new(),
            reference: None,
            id: None,
            decimal_comma: false,
            delimiter: ',',
            header: true,
            skip_lines: 0,
            header_starts_with: None,
            skip_rows_where: Vec::new(),
        }
    }

    /// A built-in profile by name:
    /// - `tieout`: `date,amount,currency,description,reference,id`, ISO dates, decimal point;
    /// - `us-debit-credit`: `Posting Date,Description,Debit,Credit,Balance` (+ optional
    ///   `Reference`), `MM/DD/YYYY`, USD;
    /// - `eu-semicolon`: `Buchungstag;Valuta;Auftraggeber;Verwendungszweck;Betrag;Währung`
    ///   (`Waehrung` too; + optional `Referenz`), `DD.MM.YYYY`, decimal comma, `;`.
    pub fn built_in(name: &str) -> Option<CsvProfile> {
        let c = Column::name;
        match name {
            "tieout" => Some(CsvProfile {
                currency_column: Some(c("currency")),
                description: vec![c("description")],
                reference: Some(c("reference")),
                id: Some(c("id")),
                ..Self::plain(
                    "date",
                    &["%Y-%m-%d"],
                    AmountColumns::Signed {
                        amount: c("amount"),
                    },
                )
            }),
            "us-debit-credit" => Some(CsvProfile {
                currency: Some("usd".to_string()),
                description: vec![c("Description")],
                reference: Some(c("Reference")),
                ..Self::plain(
                    "Posting Date",
                    &["%m/%d/%Y", "%Y-%m-%d"],
                    AmountColumns::Pair {
                        credit: c("Credit"),
                        debit: c("Debit"),
                    },
                )
            }),
            "eu-semicolon" => Some(CsvProfile {
                currency_column: Some(c("Währung")),
                description: vec![c("Auftraggeber"), c("Verwendungszweck")],
                reference: Some(c("Referenz")),
                decimal_comma: true,
                delimiter: ';',
                ..Self::plain(
                    "Buchungstag",
                    &["%d.%m.%Y", "%d.%m.%y"],
                    AmountColumns::Signed {
                        amount: c("Betrag"),
                    },
                )
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

/// The keys a profile table may hold, as the reader itself knows them (the list serde
/// refuses an unknown key against), in the order the reader declares them.
pub fn profile_keys() -> &'static [&'static str] {
    struct_fields::<RawCsvProfile>()
}

/// The keys of a `skip_rows_where` table.
pub fn skip_rule_keys() -> &'static [&'static str] {
    struct_fields::<SkipRule>()
}

/// The field names a derived `Deserialize` passes to `deserialize_struct`: the very list
/// it checks keys against under `deny_unknown_fields`.
fn struct_fields<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    struct Fields<'a>(&'a mut &'static [&'static str]);
    impl<'de> Deserializer<'de> for Fields<'_> {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a struct"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(de::Error::custom("fields taken"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }
    let mut fields: &'static [&'static str] = &[];
    let _ = T::deserialize(Fields(&mut fields));
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<CsvProfile, String> {
        toml::from_str::<CsvProfile>(text).map_err(|e| e.message().to_string())
    }

    const BASE: &str = "date_formats = [\"%d.%m.%Y\"]\ncurrency = \"eur\"\n";

    #[test]
    fn columns_by_position_sign_words_and_skip_rules_are_read() {
        let p = parse(&format!(
            "{BASE}header = false\ndate = 0\namount = 2\nsign_column = 3\ndebit_values = [\"Debet\"]\ncredit_values = [\"Credit\"]\ndescription = [4, 7]\nskip_rows_where = {{ column = 0, matches = \"^Varaus$\" }}\n"
        ))
        .expect("profile");
        assert_eq!(p.date, Column::Position(0));
        assert_eq!(
            p.sign,
            Some(SignColumn {
                column: Column::Position(3),
                debit_values: vec!["Debet".into()],
                credit_values: vec!["Credit".into()]
            })
        );
        assert_eq!(p.description, [Column::Position(4), Column::Position(7)]);
        assert_eq!(p.skip_rows_where.len(), 1);
        assert!(!p.header);
        let p = parse(&format!(
            "{BASE}date = \"Buchungstag\"\namount = \"Betrag\"\ndescription = []\nheader_starts_with = \"Buchungstag\"\nskip_rows_where = [{{ column = \"Buchungstag\", matches = \"^Kontostand\" }}, {{ column = 1, matches = \"x\" }}]\n"
        ))
        .expect("profile");
        assert_eq!(p.skip_rows_where.len(), 2);
        assert_eq!(p.header_starts_with.as_deref(), Some("Buchungstag"));
    }

    #[test]
    fn profiles_that_cannot_work_are_refused_saying_what_to_set() {
        let cases = [
            (
                "header = false\ndate = \"Datum\"\namount = 1\ndescription = []\n",
                "`date` names the column 'Datum', but `header = false`",
            ),
            (
                "date = 0\namount = 1\nsign_column = 2\ndebit_values = [\"Af\"]\ndescription = []\n",
                "`sign_column` goes with `debit_values` and `credit_values`",
            ),
            (
                "date = 0\ncredit = 1\ndebit = 2\nsign_column = 3\ndebit_values = [\"D\"]\ncredit_values = [\"C\"]\ndescription = []\n",
                "with `credit` and `debit` columns leave it out",
            ),
            (
                "date = 0\namount = 1\nsign_column = 2\ndebit_values = [\"D\"]\ncredit_values = [\" d\"]\ndescription = []\n",
                "'D' is in both",
            ),
            (
                "date = 0\namount = 1\ndescription = []\nskip_lines = 3\nheader_starts_with = \"Datum\"\n",
                "not both",
            ),
            (
                "date = 0\namount = 1\ndescription = []\nheader = false\nheader_starts_with = \"Datum\"\n",
                "use `skip_lines`",
            ),
            (
                "date = 0\namount = 1\ndescription = []\nskip_rows_where = { column = 0, matches = \"(\" }\n",
                "is not a regular expression",
            ),
            (
                "date = -1\namount = 1\ndescription = []\n",
                "counts from 0 (the first column), found -1",
            ),
            (
                "date = 0\namount = 1\ndescription = []\nskip_rows_where = { column = 0, match = \"x\" }\n",
                "unknown field `match`",
            ),
        ];
        for (text, want) in cases {
            let e = parse(&format!("{BASE}{text}")).expect_err(text);
            assert!(e.contains(want), "{text}: {e}");
        }
    }

    #[test]
    fn the_known_keys_are_the_readers_own() {
        let keys = profile_keys();
        for k in [
            "date",
            "header",
            "sign_column",
            "skip_rows_where",
            "delimiter",
        ] {
            assert!(keys.contains(&k), "{keys:?}");
        }
        assert_eq!(skip_rule_keys(), ["column", "matches"]);
        let e = parse("date = 0\namount = 1\ndescription = []\ndecimal_coma = true\n")
            .expect_err("typo");
        assert!(
            e.contains("unknown field `decimal_coma`") && e.contains("`skip_rows_where`"),
            "{e}"
        );
    }

    #[test]
    fn headers_fold_umlauts_and_case_but_nothing_else() {
        assert_eq!(fold(" Währung "), fold("WAEHRUNG"));
        assert_eq!(fold("Wa\u{308}hrung"), fold("Währung"));
        assert_eq!(fold("Määrä"), "maeaerae");
        assert_ne!(fold("Betrag"), fold("Betrag (EUR)"));
        assert!(same_word("af", " Af "));
    }
}
