//! Each format read back by a reader that is not the writer: hledger and ledger journals
//! by the `ledger-parser` crate (after dropping the `account` directives it does not know),
//! the CSV files by the csv crate. Over generated months, every entry read back balances
//! per currency in minor units and carries the postings the journal holds, in order.

use std::collections::BTreeMap;

use jiff::tz::TimeZone;
use proptest::prelude::*;
use rust_decimal::Decimal;

use super::tests::{PayoutSpec, a_payout, map, rows};
use super::*;
use crate::domain::tieout::testdata::month;
use crate::domain::tieout::tie_out_month;
use crate::money::{Currency, parse_major};

/// One posting as read back: (payout, account, currency, minor units).
type Read = (String, String, Currency, i64);
/// A balance assertion as read back: (account, currency, minor units).
type Asserted = (String, Currency, i64);

fn minor(q: Decimal, c: Currency) -> i64 {
    let scaled = q * Decimal::from(10i64.pow(c.exponent()));
    assert!(scaled.fract().is_zero(), "{q} {c} is not whole minor units");
    i64::try_from(scaled.trunc()).expect("fits i64")
}

fn text(files: &[(String, Vec<u8>)]) -> String {
    assert_eq!(files.len(), 1, "one plain-text file");
    String::from_utf8(files[0].1.clone()).expect("utf8")
}

/// The journal's own postings, per entry, in the currency `only` (all when `None`).
fn mine(j: &Journal, only: Option<Currency>) -> Vec<Vec<Read>> {
    j.entries
        .iter()
        .map(|e| {
            e.postings
                .iter()
                .filter(|p| only.is_none_or(|c| c == p.currency))
                .map(|p| (e.payout.clone(), p.account.clone(), p.currency, p.amount))
                .collect::<Vec<_>>()
        })
        .filter(|v: &Vec<Read>| !v.is_empty())
        .collect()
}

/// A hledger or ledger journal read back: the entries (with their code as the payout),
/// and the balance assertions (account, currency, minor units).
fn read_plain(text: &str) -> (Vec<Vec<Read>>, Vec<Asserted>) {
    use ledger_parser::{Balance, LedgerItem};
    let kept: String = text
        .lines()
        .filter(|l| !l.starts_with("account "))
        .map(|l| format!("{l}\n"))
        .collect();
    let ledger: ledger_parser::Ledger = kept
        .parse()
        .unwrap_or_else(|e| panic!("ledger-parser reads it: {e}\n{kept}"));
    let cur = |name: &str| Currency::parse(&name.to_lowercase()).expect("currency");
    let mut entries = Vec::new();
    let mut asserted = Vec::new();
    for item in ledger.items {
        let LedgerItem::Transaction(t) = item else {
            continue;
        };
        let mut ps = Vec::new();
        for p in &t.postings {
            let a = &p
                .amount
                .as_ref()
                .expect("every posting has its amount")
                .amount;
            let c = cur(&a.commodity.name);
            if let Some(Balance::Amount(b)) = &p.balance {
                asserted.push((
                    p.account.clone(),
                    cur(&b.commodity.name),
                    minor(b.quantity, cur(&b.commodity.name)),
                ));
                assert!(a.quantity.is_zero(), "an assertion posting moves nothing");
                continue;
            }
            let code = t.code.clone().expect("an entry's code is its payout");
            ps.push((code, p.account.clone(), c, minor(a.quantity, c)));
        }
        if !ps.is_empty() {
            entries.push(ps);
        }
    }
    (entries, asserted)
}

fn records(bytes: &[u8]) -> Vec<csv::StringRecord> {
    csv::Reader::from_reader(bytes)
        .records()
        .map(|r| r.expect("a CSV row"))
        .collect()
}

/// `journal-M-<kind>-<CUR>[-n].csv` → its currency.
fn file_currency(name: &str, kind: &str) -> Currency {
    let rest = name
        .split_once(&format!("{kind}-"))
        .map(|(_, r)| r)
        .expect("kind in the name");
    Currency::parse(&rest[..3].to_lowercase()).expect("currency")
}

fn payout_of(description: &str) -> String {
    description
        .split_whitespace()
        .next()
        .expect("the payout id leads the description")
        .to_string()
}

/// QuickBooks journal rows grouped by Journal No; Debits positive, Credits negative.
fn read_qbo_journal(files: &[(String, Vec<u8>)]) -> BTreeMap<Currency, Vec<Vec<Read>>> {
    let mut out: BTreeMap<Currency, Vec<Vec<Read>>> = BTreeMap::new();
    for (name, bytes) in files {
        let c = file_currency(name, "qbo-journal");
        let mut last: Option<String> = None;
        let entries = out.entry(c).or_default();
        for r in records(bytes) {
            let amount = match (&r[4], &r[5]) {
                (d, "") => parse_major(d, c).expect("debit"),
                ("", cr) => -parse_major(cr, c).expect("credit"),
                other => panic!("a line is a debit or a credit, not both: {other:?}"),
            };
            let line = (payout_of(&r[3]), r[2].to_string(), c, amount);
            if last.as_deref() == Some(&r[0]) {
                entries.last_mut().expect("open entry").push(line);
            } else {
                last = Some(r[0].to_string());
                entries.push(vec![line]);
            }
        }
    }
    out
}

/// Xero manual journal rows, an entry being the consecutive rows of one narration and
/// date; accounts read back through the map's codes.
fn read_xero_journal(
    files: &[(String, Vec<u8>)],
    m: &AccountMap,
) -> BTreeMap<Currency, Vec<Vec<Read>>> {
    let by_code: BTreeMap<&str, &str> = m
        .xero
        .codes
        .iter()
        .map(|(a, c)| (c.as_str(), a.as_str()))
        .collect();
    let mut out: BTreeMap<Currency, Vec<Vec<Read>>> = BTreeMap::new();
    for (name, bytes) in files {
        let c = file_currency(name, "xero-journal");
        let entries = out.entry(c).or_default();
        let mut last: Option<(String, String)> = None;
        for r in records(bytes) {
            assert!(!r[4].is_empty(), "a tax rate on every line");
            assert_eq!(
                by_code.get(&r[3]).copied(),
                Some(&r[2]),
                "code of {}",
                &r[2]
            );
            let line = (
                payout_of(&r[0]),
                r[2].to_string(),
                c,
                parse_major(&r[5], c).expect("amount"),
            );
            let key = (r[0].to_string(), r[1].to_string());
            if last.as_ref() == Some(&key) {
                entries.last_mut().expect("open entry").push(line);
            } else {
                last = Some(key);
                entries.push(vec![line]);
            }
        }
    }
    out
}

/// The clearing account's lines of each entry (payout, minor units), per currency.
fn clearing_lines(j: &Journal) -> BTreeMap<Currency, Vec<(String, i64)>> {
    let mut out: BTreeMap<Currency, Vec<(String, i64)>> = BTreeMap::new();
    for (c, name) in &j.clearing {
        for e in &j.entries {
            let ps: Vec<i64> = e
                .postings
                .iter()
                .filter(|p| p.currency == *c && &p.account == name)
                .map(|p| p.amount)
                .collect();
            if !ps.is_empty() {
                out.entry(*c)
                    .or_default()
                    .push((e.payout.clone(), ps.iter().sum()));
            }
        }
    }
    out
}

/// A bank statement file read back: (payout, minor units) per line.
fn read_bank(
    files: &[(String, Vec<u8>)],
    kind: &str,
    row: impl Fn(&csv::StringRecord, Currency) -> (String, i64),
) -> BTreeMap<Currency, Vec<(String, i64)>> {
    let mut out: BTreeMap<Currency, Vec<(String, i64)>> = BTreeMap::new();
    for (name, bytes) in files {
        let c = file_currency(name, kind);
        out.entry(c)
            .or_default()
            .extend(records(bytes).iter().map(|r| row(r, c)));
    }
    out.retain(|_, v| !v.is_empty());
    out
}

fn balances(entries: &[Vec<Read>]) -> bool {
    entries.iter().all(|e| {
        let mut sums: BTreeMap<Currency, i64> = BTreeMap::new();
        for (_, _, c, a) in e {
            *sums.entry(*c).or_insert(0) += a;
        }
        sums.values().all(|v| *v == 0)
    })
}

fn check_all_formats(spec: &[PayoutSpec], style: Style) {
    let (payouts, txns) = rows(spec);
    let t = tie_out_month(&payouts, &txns, month("2026-10"), &TimeZone::UTC);
    let m = map();
    let later =
        crate::domain::tieout::tie_out_after(&payouts, &txns, month("2026-10"), &TimeZone::UTC);
    let j = build(&t, &later, &m, style, &TimeZone::UTC).expect("journal");
    let all = mine(&j, None);

    for f in [Format::Hledger, Format::Ledger] {
        let (read, asserted) = read_plain(&text(&render(&j, &m, f).expect("render")));
        assert!(balances(&read), "{f:?}: every entry balances");
        assert_eq!(read, all, "{f:?}: the postings survive");
        let expected: Vec<Asserted> = if f == Format::Hledger {
            j.clearing
                .iter()
                .map(|(c, a)| {
                    (
                        a.clone(),
                        *c,
                        j.clearing_at_end.get(c).copied().unwrap_or(0),
                    )
                })
                .collect()
        } else {
            Vec::new()
        };
        assert_eq!(asserted, expected, "{f:?}: the month-end assertion");
    }

    let per_currency = |read: BTreeMap<Currency, Vec<Vec<Read>>>, what: &str| {
        for (c, entries) in &read {
            assert!(balances(entries), "{what} {c}: every entry balances");
            assert_eq!(
                entries,
                &mine(&j, Some(*c)),
                "{what} {c}: the postings survive"
            );
        }
        let got: Vec<Currency> = read.keys().copied().collect();
        assert_eq!(got, j.currencies(), "{what}: one file set per currency");
    };
    per_currency(
        read_qbo_journal(&render(&j, &m, Format::QboJournal).expect("qbo")),
        "qbo-journal",
    );
    per_currency(
        read_xero_journal(&render(&j, &m, Format::XeroJournal).expect("xero"), &m),
        "xero-journal",
    );

    let clearing = clearing_lines(&j);
    let qbo = read_bank(
        &render(&j, &m, Format::QboBank).expect("qbo bank"),
        "qbo-bank",
        |r, c| (payout_of(&r[1]), parse_major(&r[2], c).expect("amount")),
    );
    assert_eq!(qbo, clearing, "qbo-bank: the clearing account's lines");
    let xero = read_bank(
        &render(&j, &m, Format::XeroBank).expect("xero bank"),
        "xero-bank",
        |r, c| (r[4].to_string(), parse_major(&r[1], c).expect("amount")),
    );
    assert_eq!(xero, clearing, "xero-bank: the clearing account's lines");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    #[test]
    fn every_format_reads_back_balanced_with_the_same_postings(
        spec in prop::collection::vec(a_payout(), 0..10),
        per_payout in any::<bool>(),
    ) {
        let style = if per_payout { Style::PerPayout } else { Style::Daily };
        check_all_formats(&spec, style);
    }
}
