//! The guess's reading of a table's columns ([`Table`]): which is the amount (and its
//! sign), the currency and the text, each pick saying why in the comment of its key.

use super::{is_amount, is_balance, is_date, named};
use crate::bank::csv::{AmountColumns, Column, SignColumn, fold};
use crate::bank::parse_amount;
use crate::money::Currency;

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

/// The table's rows that hold a date, with the column names when there is a header.
pub(super) struct Table<'a> {
    pub(super) names: Vec<String>,
    pub(super) rows: Vec<&'a [String]>,
    pub(super) width: usize,
    pub(super) decimal_comma: bool,
}

impl Table<'_> {
    fn name(&self, i: usize) -> &str {
        self.names.get(i).map_or("", String::as_str)
    }

    /// Column `i` as the profile names it: by its header, else by position.
    pub(super) fn col(&self, i: usize) -> Column {
        match self.names.get(i) {
            Some(n) if !n.is_empty() => Column::Name(n.clone()),
            _ => Column::Position(i),
        }
    }

    fn cells(&self, i: usize) -> impl Iterator<Item = &str> {
        self.rows
            .iter()
            .map(move |r| r.get(i).map_or("", String::as_str))
    }

    fn filled(&self, i: usize) -> usize {
        self.cells(i).filter(|c| !c.is_empty()).count()
    }

    fn dated(&self, i: usize) -> bool {
        self.cells(i).filter(|c| is_date(c)).count() * 2 >= self.rows.len()
    }

    /// Amounts only (some with decimals), at least one.
    fn numeric(&self, i: usize) -> bool {
        let mark = if self.decimal_comma { ',' } else { '.' };
        self.filled(i) > 0
            && self
                .cells(i)
                .all(|c| c.is_empty() || is_amount(c, self.decimal_comma))
            && self.cells(i).any(|c| c.contains(mark))
    }

    fn negative(&self, i: usize) -> bool {
        self.cells(i)
            .any(|c| parse_amount(c, Currency::EUR, self.decimal_comma).is_ok_and(|a| a < 0))
    }

    /// The column's distinct words, folded.
    fn words(&self, i: usize) -> Vec<String> {
        let mut w: Vec<String> = self.cells(i).map(fold).collect();
        w.sort_unstable();
        w.dedup();
        w
    }
}

pub(super) type Why = Vec<(&'static str, String)>;

/// The amount: an in/out pair (exactly one of two amount columns filled in every row),
/// else the always-filled amount column (the one the header names as the amount, else the
/// first), signed, or unsigned beside a column of known debit/credit words. With the
/// columns it takes.
pub(super) fn pick_amount(
    t: &Table,
    date_i: usize,
    why: &mut Why,
) -> Option<(AmountColumns, Option<SignColumn>, Vec<usize>)> {
    let money: Vec<usize> = (0..t.width)
        .filter(|&i| i != date_i && !t.dated(i) && t.numeric(i) && !is_balance(t.name(i)))
        .collect();
    let pair = money
        .iter()
        .flat_map(|&a| money.iter().map(move |&b| (a, b)))
        .find(|&(a, b)| {
            a < b
                && t.cells(a)
                    .zip(t.cells(b))
                    .all(|(x, y)| x.is_empty() != y.is_empty())
        });
    if let Some((a, b)) = pair {
        let credit_word = |i: usize| {
            named(
                t.name(i),
                &["credit", "haben", "gutschrift", "deposit", "einnahme"],
                &["bij", "in"],
            )
        };
        let (credit, debit) = if credit_word(a) || t.negative(b) {
            (a, b)
        } else {
            (b, a)
        };
        why.push((
            "credit",
            "exactly one of two amount columns is filled in every row: money in and money out"
                .into(),
        ));
        let amount = AmountColumns::Pair {
            credit: t.col(credit),
            debit: t.col(debit),
        };
        return Some((amount, None, vec![a, b]));
    }
    let always: Vec<usize> = money
        .iter()
        .copied()
        .filter(|&i| t.filled(i) == t.rows.len())
        .collect();
    let amount_words = [
        "betrag", "bedrag", "amount", "maeaerae", "belopp", "beloeb", "importe", "montant",
        "umsatz",
    ];
    let i = always
        .iter()
        .copied()
        .find(|&i| named(t.name(i), &amount_words, &[]))
        .or_else(|| always.first().copied())?;
    let amount = AmountColumns::Signed { amount: t.col(i) };
    if t.negative(i) {
        why.push((
            "amount",
            "a signed amount in every row (debits negative)".into(),
        ));
        return Some((amount, None, vec![i]));
    }
    let sign = (0..t.width)
        .filter(|&j| j != i && j != date_i)
        .find_map(|j| {
            let w = t.words(j);
            SIGN_WORDS
                .iter()
                .find(|(d, c)| w.iter().all(|x| *x == fold(d) || *x == fold(c)))
                .map(|(d, c)| {
                    (
                        j,
                        SignColumn {
                            column: t.col(j),
                            debit_values: vec![(*d).to_string()],
                            credit_values: vec![(*c).to_string()],
                        },
                    )
                })
        });
    match sign {
        Some((j, s)) => {
            why.push(("amount", "an unsigned amount in every row".into()));
            why.push((
                "sign_column",
                format!(
                    "its words ({}, {}) say debit or credit",
                    s.debit_values[0], s.credit_values[0]
                ),
            ));
            Some((amount, Some(s), vec![i, j]))
        }
        None => {
            why.push(("amount", "no amount is negative and no column says debit or credit: check that debits are signed".into()));
            Some((amount, None, vec![i]))
        }
    }
}

/// The currency: a column of codes, else the one given, a code in the header or the
/// preamble, or the convention the decimals or dates follow (said in the comment).
pub(super) fn pick_currency(
    t: &Table,
    taken: &[usize],
    given: Option<&str>,
    preamble: &[&str],
    us_dates: bool,
    why: &mut Why,
) -> Result<(Option<usize>, Option<String>), String> {
    let column = (0..t.width).filter(|j| !taken.contains(j)).find(|&j| {
        t.filled(j) == t.rows.len()
            && t.cells(j)
                .all(|c| CODES.contains(&c.to_uppercase().as_str()))
    });
    if let Some(j) = column {
        why.push(("currency_column", "a currency code in every row".into()));
        return Ok((Some(j), None));
    }
    if let Some(c) = given {
        why.push(("currency", "as given with --currency".into()));
        return Ok((None, Some(c.to_lowercase())));
    }
    if let Some(c) = t
        .names
        .iter()
        .find_map(|n| code_in(n))
        .or_else(|| preamble.iter().find_map(|l| code_in(l)))
    {
        why.push((
            "currency",
            format!("{c} is written in the header or the preamble"),
        ));
        return Ok((None, Some(c.to_lowercase())));
    }
    let (c, how) = match (t.decimal_comma, us_dates) {
        (true, _) => ("eur", "a decimal comma"),
        (false, true) => ("usd", "US dates"),
        _ => {
            return Err("a currency column or a currency code in the header: the file names none; run again with --currency CODE (the account's currency), or set `currency` by hand".into());
        }
    };
    why.push(("currency", format!("the file names no currency; {how} suggests {}: check, or run again with --currency CODE", c.to_uppercase())));
    Ok((None, Some(c.to_string())))
}

/// Whether a cell is an IBAN (country letters, 15 or more) or a BIC (8 or 11 characters).
fn iban_or_bic(cell: &str) -> bool {
    let c: String = cell.chars().filter(|ch| *ch != ' ').collect();
    let upper = c
        .chars()
        .all(|ch| ch.is_ascii_uppercase() || ch.is_ascii_digit());
    let country = c.chars().take(2).all(|ch| ch.is_ascii_alphabetic());
    upper && ((c.len() >= 15 && country) || c.len() == 8 || c.len() == 11)
}

/// The text: a column the header names as the reference, and every other column of
/// varied words (no dates, amounts, balances, IBANs, BICs or short codes) as the
/// description.
pub(super) fn pick_text(t: &Table, taken: &[usize], why: &mut Why) -> (Vec<usize>, Option<usize>) {
    let reference_words = [
        "referenz",
        "reference",
        "kenmerk",
        "viitenumero",
        "end-to-end",
        "referens",
    ];
    let reference = (0..t.width)
        .filter(|j| !taken.contains(j))
        .find(|&j| t.filled(j) > 0 && named(t.name(j), &reference_words, &[]));
    if reference.is_some() {
        why.push(("reference", "the header names it as the reference".into()));
    }
    let description = (0..t.width)
        .filter(|j| !taken.contains(j) && Some(*j) != reference)
        .filter(|&j| !t.dated(j) && !t.numeric(j) && !is_balance(t.name(j)))
        .filter(|&j| {
            let mut values: Vec<&str> = t.cells(j).filter(|c| !c.is_empty()).collect();
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
    (description, reference)
}

/// A currency code written in `text` as a word ("Bedrag (EUR)", "15.000,00 EUR").
fn code_in(text: &str) -> Option<&'static str> {
    CODES.iter().copied().find(|c| {
        text.split(|ch: char| !ch.is_ascii_alphabetic())
            .any(|w| w == *c)
    })
}
