//! The account map: which account each line of a payout is booked to, read from TOML.
//!
//! Every reporting category (and, where the map names it, a balance transaction type such
//! as `stripe_fee`) maps to an account, optionally per currency; the clearing, suspense,
//! fee and bank accounts are named once. A category the map does not name is an error that
//! names it, never a silent default. A malformed map is an error naming line and column.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::model::Style;
use super::render::Format;
use crate::money::Currency;

/// The commented default map `tieout init-accounts` writes.
pub const DEFAULT_MAP: &str = include_str!("default_accounts.toml");

/// The file name of the map in the config folder.
pub const MAP_FILE: &str = "accounts.toml";

/// An account name, or one per currency (`{ default = "...", EUR = "..." }`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum PerCurrency {
    One(String),
    Many(BTreeMap<String, String>),
}

impl PerCurrency {
    /// The account for `currency`: its own entry (upper or lower case), else `default`.
    pub fn get(&self, currency: Currency) -> Option<&str> {
        match self {
            PerCurrency::One(a) => Some(a.as_str()),
            PerCurrency::Many(m) => m
                .get(&currency.upper())
                .or_else(|| m.get(currency.as_str()))
                .or_else(|| m.get("default"))
                .map(String::as_str),
        }
    }

    fn names(&self) -> Vec<&str> {
        match self {
            PerCurrency::One(a) => vec![a.as_str()],
            PerCurrency::Many(m) => m.values().map(String::as_str).collect(),
        }
    }
}

/// The named accounts every journal needs.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Named {
    /// Where Stripe activity lands until a payout moves it to the bank.
    pub clearing: PerCurrency,
    /// Where a difference that does not tie out is booked, for a person to resolve.
    pub suspense: PerCurrency,
    /// The `fee` of every line that is not a dispute (Stripe's processing fees).
    pub processing_fees: PerCurrency,
    /// The `fee` of dispute lines (the dispute fee).
    pub dispute_fees: PerCurrency,
}

/// Which entries need a person before they are booked as final.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Review {
    /// Reporting categories whose entries are flagged (default: `fee`, `tax`).
    #[serde(default = "default_review")]
    pub categories: Vec<String>,
    /// `fee_details` kinds that flag the entry holding them: a fee that carries tax needs
    /// a person's VAT split (default: `tax`, `withheld_tax`).
    #[serde(default = "default_review_fee_kinds")]
    pub fee_kinds: Vec<String>,
}

impl Default for Review {
    fn default() -> Self {
        Self {
            categories: default_review(),
            fee_kinds: default_review_fee_kinds(),
        }
    }
}

fn default_review() -> Vec<String> {
    vec!["fee".to_string(), "tax".to_string()]
}

fn default_review_fee_kinds() -> Vec<String> {
    vec!["tax".to_string(), "withheld_tax".to_string()]
}

/// What `tieout close` puts of the journal into the close packet.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Close {
    /// The journal formats written into the packet (default: beancount and the QuickBooks
    /// journal CSV); an empty list leaves the journal out.
    #[serde(default = "default_close_journal")]
    pub journal: Vec<String>,
    /// `daily` or `per-payout` (default `daily`).
    #[serde(default = "default_close_style")]
    pub style: String,
}

impl Default for Close {
    fn default() -> Self {
        Self {
            journal: default_close_journal(),
            style: default_close_style(),
        }
    }
}

fn default_close_journal() -> Vec<String> {
    vec!["beancount".to_string(), "qbo-journal".to_string()]
}

fn default_close_style() -> String {
    "daily".to_string()
}

/// Settings of the QuickBooks Online files.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Qbo {
    /// strftime format of the date column (default `%m/%d/%Y`).
    #[serde(default = "default_qbo_date")]
    pub date_format: String,
    /// The Name column of journal lines (default `Stripe`).
    #[serde(default = "default_name")]
    pub name: String,
}

impl Default for Qbo {
    fn default() -> Self {
        Self {
            date_format: default_qbo_date(),
            name: default_name(),
        }
    }
}

fn default_qbo_date() -> String {
    "%m/%d/%Y".to_string()
}

fn default_name() -> String {
    "Stripe".to_string()
}

/// Settings of the Xero files: account codes and tax rates (Xero needs both on every
/// manual journal line).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Xero {
    /// strftime format of the date column (default `%d/%m/%Y`).
    #[serde(default = "default_xero_date")]
    pub date_format: String,
    /// The tax rate of a line whose account has none of its own.
    #[serde(default = "default_tax_rate")]
    pub tax_rate: String,
    /// Tax rate per account name.
    #[serde(default)]
    pub tax_rates: BTreeMap<String, String>,
    /// Xero account code per account name (every account a journal uses needs one).
    #[serde(default)]
    pub codes: BTreeMap<String, String>,
}

impl Default for Xero {
    fn default() -> Self {
        Self {
            date_format: default_xero_date(),
            tax_rate: default_tax_rate(),
            tax_rates: BTreeMap::new(),
            codes: BTreeMap::new(),
        }
    }
}

fn default_xero_date() -> String {
    "%d/%m/%Y".to_string()
}

fn default_tax_rate() -> String {
    "Tax Exempt".to_string()
}

/// The whole map.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccountMap {
    pub accounts: Named,
    /// The bank account a payout lands in (one, or per currency).
    pub bank: PerCurrency,
    /// Reporting category → account.
    pub categories: BTreeMap<String, PerCurrency>,
    /// Balance transaction type (`stripe_fee`, `tax_fee`, ...) → account; wins over the
    /// category.
    #[serde(default)]
    pub types: BTreeMap<String, PerCurrency>,
    /// `fee_details` kind (`application_fee`, `tax`, ...) → the account of that part of a
    /// line's fee. `stripe_fee` parts go to `[accounts]` processing_fees (dispute_fees on
    /// dispute lines) unless listed here.
    #[serde(default)]
    pub fee_kinds: BTreeMap<String, PerCurrency>,
    #[serde(default)]
    pub review: Review,
    /// The journal in the close packet.
    #[serde(default)]
    pub close: Close,
    #[serde(default)]
    pub qbo: Qbo,
    #[serde(default)]
    pub xero: Xero,
}

/// A map that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    /// The TOML is malformed or has a wrong key or type (1-based line and column).
    #[error("account map, line {line}, column {column}: {message}")]
    Syntax {
        line: usize,
        column: usize,
        message: String,
    },
    /// An account name that no tool accepts (empty, or spaces at either end).
    #[error("account map: account name '{0}' is empty or has spaces at either end")]
    BadName(String),
    /// A `[close]` setting that is not one of its values.
    #[error("account map, [close]: {0}")]
    BadClose(String),
    /// A `date_format` that does not write a whole date (an unknown or time-only code, or
    /// no day, month or year).
    #[error(
        "account map, [{section}] date_format '{format}': {why}; use strftime codes of a date, e.g. %m/%d/%Y or %d/%m/%Y"
    )]
    BadDateFormat {
        section: &'static str,
        format: String,
        why: String,
    },
}

/// Checks that `format` writes a whole date: it formats without error, and dates a day,
/// a month and a year apart come out different (so no part of the date is lost).
fn check_date_format(section: &'static str, format: &str) -> Result<(), MapError> {
    let bad = |why: String| MapError::BadDateFormat {
        section,
        format: format.to_string(),
        why,
    };
    let write = |y: i16, m: i8, d: i8| -> Result<String, MapError> {
        let date = jiff::civil::Date::new(y, m, d).map_err(|e| bad(e.to_string()))?;
        jiff::fmt::strtime::format(format, date).map_err(|e| bad(e.to_string()))
    };
    let base = write(2026, 10, 30)?;
    for (other, part) in [
        (write(2026, 10, 29)?, "the day"),
        (write(2026, 9, 30)?, "the month"),
        (write(2025, 10, 30)?, "the year"),
    ] {
        if other == base {
            return Err(bad(format!("it does not write {part}")));
        }
    }
    Ok(())
}

/// Something the map does not say.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unmapped {
    #[error(
        "reporting category '{category}' ({currency}) is not in the account map: add `{category} = \"...\"` under [categories]"
    )]
    Category { category: String, currency: String },
    #[error(
        "the account map has no bank account for {0}: add `{0} = \"...\"` (or `default`) under [bank]"
    )]
    Bank(String),
    #[error("the account map's [accounts] {which} has no account for {currency}")]
    Named { which: String, currency: String },
    #[error(
        "Stripe fee kind '{kind}' ({currency}, in fee_details) is not in the account map: add `{kind} = \"...\"` under [fee_kinds]"
    )]
    FeeKind { kind: String, currency: String },
}

impl AccountMap {
    /// Reads a map from TOML text.
    pub fn parse(text: &str) -> Result<Self, MapError> {
        let map: AccountMap = toml::from_str(text).map_err(|e| {
            let (line, column) = e.span().map(|s| line_col(text, s.start)).unwrap_or((1, 1));
            MapError::Syntax {
                line,
                column,
                message: e.message().trim().to_string(),
            }
        })?;
        for name in map.all_names() {
            if name.trim().is_empty() || name.trim() != name {
                return Err(MapError::BadName(name.to_string()));
            }
        }
        map.close_formats()?;
        map.close_style()?;
        check_date_format("qbo", &map.qbo.date_format)?;
        check_date_format("xero", &map.xero.date_format)?;
        Ok(map)
    }

    /// The journal formats of the close packet (`[close] journal`).
    pub fn close_formats(&self) -> Result<Vec<Format>, MapError> {
        if self.close.journal.is_empty() {
            return Ok(Vec::new());
        }
        Format::parse_list(&self.close.journal.join(","))
            .map_err(|e| MapError::BadClose(format!("journal: {e}")))
    }

    /// The journal style of the close packet (`[close] style`).
    pub fn close_style(&self) -> Result<Style, MapError> {
        Style::parse(&self.close.style).ok_or_else(|| {
            MapError::BadClose(format!(
                "style '{}': use daily or per-payout",
                self.close.style
            ))
        })
    }

    /// The built-in default map.
    pub fn default_map() -> Result<Self, MapError> {
        Self::parse(DEFAULT_MAP)
    }

    fn all_names(&self) -> Vec<&str> {
        let a = &self.accounts;
        let mut v = Vec::new();
        for p in [
            &a.clearing,
            &a.suspense,
            &a.processing_fees,
            &a.dispute_fees,
            &self.bank,
        ] {
            v.extend(p.names());
        }
        for p in self
            .categories
            .values()
            .chain(self.types.values())
            .chain(self.fee_kinds.values())
        {
            v.extend(p.names());
        }
        v
    }

    fn named(&self, which: &str, p: &PerCurrency, c: Currency) -> Result<String, Unmapped> {
        p.get(c).map(str::to_string).ok_or_else(|| Unmapped::Named {
            which: which.to_string(),
            currency: c.upper(),
        })
    }

    pub fn clearing(&self, c: Currency) -> Result<String, Unmapped> {
        self.named("clearing", &self.accounts.clearing, c)
    }

    pub fn suspense(&self, c: Currency) -> Result<String, Unmapped> {
        self.named("suspense", &self.accounts.suspense, c)
    }

    /// The account of a line's `fee`: dispute fees apart from processing fees.
    pub fn fee_account(&self, category: &str, c: Currency) -> Result<String, Unmapped> {
        if category == "dispute" || category == "dispute_reversal" {
            self.named("dispute_fees", &self.accounts.dispute_fees, c)
        } else {
            self.named("processing_fees", &self.accounts.processing_fees, c)
        }
    }

    pub fn bank(&self, c: Currency) -> Result<String, Unmapped> {
        self.bank
            .get(c)
            .map(str::to_string)
            .ok_or_else(|| Unmapped::Bank(c.upper()))
    }

    /// The account of a line's `amount`: by its type when the map names the type, else by
    /// its category.
    pub fn line_account(
        &self,
        kind: &str,
        category: &str,
        c: Currency,
    ) -> Result<String, Unmapped> {
        if let Some(a) = self.types.get(kind).and_then(|p| p.get(c)) {
            return Ok(a.to_string());
        }
        self.categories
            .get(category)
            .and_then(|p| p.get(c))
            .map(str::to_string)
            .ok_or_else(|| Unmapped::Category {
                category: category.to_string(),
                currency: c.upper(),
            })
    }

    /// The account of one `fee_details` part of a line's fee: by its kind from
    /// `[fee_kinds]`; a `stripe_fee` part the map does not list goes where the whole fee
    /// would ([`Self::fee_account`]); any other kind not listed is an error naming it.
    pub fn fee_kind_account(
        &self,
        kind: &str,
        category: &str,
        c: Currency,
    ) -> Result<String, Unmapped> {
        if let Some(a) = self.fee_kinds.get(kind).and_then(|p| p.get(c)) {
            return Ok(a.to_string());
        }
        if kind == "stripe_fee" {
            return self.fee_account(category, c);
        }
        Err(Unmapped::FeeKind {
            kind: kind.to_string(),
            currency: c.upper(),
        })
    }

    /// Whether a `fee_details` part of this kind flags its entry for a person.
    pub fn fee_kind_needs_review(&self, kind: &str) -> bool {
        self.review.fee_kinds.iter().any(|k| k == kind)
    }

    /// Whether entries of this category need a person.
    pub fn needs_review(&self, category: &str) -> bool {
        self.review.categories.iter().any(|c| c == category)
    }
}

/// 1-based line and column of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map(|l| l.chars().count())
        .unwrap_or(0)
        + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A date format that cannot write a whole date is refused when the map is read,
    /// naming the section and what is wrong (it was written as-is into every date of a
    /// QuickBooks journal).
    #[test]
    fn a_date_format_that_does_not_write_a_whole_date_is_refused() {
        let with = |section: &str, fmt: &str| {
            let default = if section == "qbo" {
                "%m/%d/%Y"
            } else {
                "%d/%m/%Y"
            };
            let text = DEFAULT_MAP.replacen(
                &format!("[{section}]\ndate_format = \"{default}\""),
                &format!("[{section}]\ndate_format = \"{fmt}\""),
                1,
            );
            let line = format!("[{section}]\ndate_format = \"{fmt}\"");
            assert!(
                text.contains(&line),
                "the default map sets [{section}] date_format"
            );
            AccountMap::parse(&text)
        };
        for (section, fmt, says) in [
            ("qbo", "%Q%Z%!", "date_format '%Q%Z%!'"),
            ("qbo", "%m/%Y", "does not write the day"),
            ("xero", "%d/%m", "does not write the year"),
            ("xero", "%H:%M", "[xero] date_format"),
        ] {
            match with(section, fmt) {
                Err(e @ MapError::BadDateFormat { .. }) => {
                    assert!(e.to_string().contains(says), "{fmt}: {e}");
                }
                other => panic!("{fmt}: {other:?}"),
            }
        }
        for fmt in ["%m/%d/%Y", "%d/%m/%Y", "%Y-%m-%d", "%d %b %Y", "%-d.%-m.%y"] {
            assert!(with("qbo", fmt).is_ok(), "{fmt}");
        }
    }

    #[test]
    fn the_default_map_reads_and_maps_every_known_category() {
        let m = AccountMap::default_map().expect("default map");
        for cat in [
            "charge",
            "refund",
            "dispute",
            "fee",
            "other_adjustment",
            "payout_reversal",
            "payout_minimum_balance_hold",
            "payout_minimum_balance_release",
        ] {
            assert!(
                m.line_account("x", cat, Currency::USD).is_ok(),
                "{cat} is mapped"
            );
        }
        assert_eq!(
            m.clearing(Currency::EUR).expect("clearing"),
            "Assets:Stripe:Clearing"
        );
        assert_eq!(
            m.fee_account("dispute", Currency::USD).expect("fee"),
            "Expenses:Stripe:DisputeFees"
        );
        assert!(m.needs_review("fee"));
        assert!(!m.needs_review("charge"));
    }

    #[test]
    fn an_unmapped_category_is_named() {
        let m = AccountMap::default_map().expect("default map");
        let e = m
            .line_account("topup", "topup", Currency::USD)
            .expect_err("topup is not in the default map");
        assert_eq!(
            e.to_string(),
            "reporting category 'topup' (USD) is not in the account map: add `topup = \"...\"` under [categories]"
        );
    }

    #[test]
    fn per_currency_accounts_fall_back_to_default_and_a_missing_bank_is_named() {
        let text = DEFAULT_MAP
            .replace(
                "charge = \"Income:Sales\"",
                "charge = { default = \"Income:Sales\", EUR = \"Income:Sales:EU\" }",
            )
            .replace("default = \"Assets:Bank:Checking\"\n", "");
        let m = AccountMap::parse(&text).expect("map");
        assert_eq!(
            m.line_account("charge", "charge", Currency::EUR)
                .expect("eur"),
            "Income:Sales:EU"
        );
        assert_eq!(
            m.line_account("charge", "charge", Currency::USD)
                .expect("usd"),
            "Income:Sales"
        );
        let gbp = Currency::parse("gbp").expect("gbp");
        assert_eq!(
            m.bank(gbp).expect_err("no GBP bank").to_string(),
            "the account map has no bank account for GBP: add `GBP = \"...\"` (or `default`) under [bank]"
        );
    }

    #[test]
    fn a_type_wins_over_its_category() {
        let text = format!("{DEFAULT_MAP}\n[types]\nstripe_fee = \"Expenses:Stripe:Billing\"\n");
        let m = AccountMap::parse(&text).expect("map");
        assert_eq!(
            m.line_account("stripe_fee", "fee", Currency::USD)
                .expect("type"),
            "Expenses:Stripe:Billing"
        );
    }

    #[test]
    fn a_malformed_map_names_line_and_column() {
        let text = "[accounts]\nclearing = \"Assets:Stripe:Clearing\"\nsuspense = Assets\n";
        let e = AccountMap::parse(text).expect_err("bare word");
        let MapError::Syntax { line, column, .. } = &e else {
            panic!("syntax error expected, got {e:?}");
        };
        assert_eq!((*line, *column), (3, 12), "{e}");
        assert!(
            e.to_string()
                .starts_with("account map, line 3, column 12: "),
            "{e}"
        );
    }

    #[test]
    fn an_unknown_key_is_named_with_its_line() {
        let text = DEFAULT_MAP.replace("[categories]", "[categories]\n[cateogries]");
        let e = AccountMap::parse(&text).expect_err("typo");
        let msg = e.to_string();
        assert!(msg.contains("cateogries"), "{msg}");
        let line = DEFAULT_MAP
            .lines()
            .position(|l| l == "[categories]")
            .expect("section")
            + 2;
        assert!(msg.contains(&format!("line {line},")), "{msg}");
    }

    #[test]
    fn a_name_with_spaces_at_the_ends_is_refused() {
        let text = DEFAULT_MAP.replace("\"Income:Sales\"", "\" Income:Sales\"");
        assert_eq!(
            AccountMap::parse(&text).expect_err("spaces"),
            MapError::BadName(" Income:Sales".to_string())
        );
    }
}
