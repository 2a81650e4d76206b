//! The journal as files: beancount, hledger and ledger journals, QuickBooks Online and
//! Xero journal imports, and the clearing account as a QuickBooks or Xero bank statement.
//!
//! Plain-text journals hold every currency in one file; the CSV files are one per currency
//! (an accounting company books in its own currencies; nothing is converted), and Xero's
//! manual journals are split into files of at most [`XERO_MAX_LINES`] lines, never cutting
//! an entry in two.

use std::fmt::Write as _;

use super::accounts::AccountMap;
use super::model::{Entry, Journal};
use crate::money::{Currency, format_major, format_major_i128};
use crate::report::csv_out::CsvDoc;
use crate::time::Month;

/// Xero's limit of lines per manual journal import file.
pub const XERO_MAX_LINES: usize = 300;

/// The output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Format {
    Beancount,
    Hledger,
    Ledger,
    QboJournal,
    XeroJournal,
    QboBank,
    XeroBank,
}

impl Format {
    pub const ALL: [Format; 7] = [
        Format::Beancount,
        Format::Hledger,
        Format::Ledger,
        Format::QboJournal,
        Format::XeroJournal,
        Format::QboBank,
        Format::XeroBank,
    ];

    pub fn as_str(&self) -> &'static str {
        match self {
            Format::Beancount => "beancount",
            Format::Hledger => "hledger",
            Format::Ledger => "ledger",
            Format::QboJournal => "qbo-journal",
            Format::XeroJournal => "xero-journal",
            Format::QboBank => "qbo-bank",
            Format::XeroBank => "xero-bank",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.as_str() == s)
    }

    /// Parses a comma list (`beancount,qbo-journal`).
    pub fn parse_list(list: &str) -> Result<Vec<Self>, String> {
        let mut v = Vec::new();
        for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let f = Self::parse(part).ok_or_else(|| {
                format!(
                    "unknown journal format '{part}': use a comma list of {}",
                    Self::ALL.map(|f| f.as_str()).join(", ")
                )
            })?;
            if !v.contains(&f) {
                v.push(f);
            }
        }
        if v.is_empty() {
            return Err("no journal format named".to_string());
        }
        Ok(v)
    }
}

/// Why a format could not be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    #[error(
        "account '{0}' is not a beancount account name: it must start with Assets, Liabilities, Equity, Income or Expenses and each ':' part with a capital letter or digit"
    )]
    Beancount(String),
    #[error("account '{0}' has no Xero account code: add it under [xero.codes] in the account map")]
    XeroCode(String),
    #[error("a journal entry of payout {0} has more lines than one Xero file may hold")]
    XeroTooLong(String),
}

/// A rendered file: its name and bytes.
pub type File = (String, Vec<u8>);

/// Renders `journal` in `format`.
pub fn render(
    journal: &Journal,
    map: &AccountMap,
    format: Format,
) -> Result<Vec<File>, RenderError> {
    let base = format!("journal-{}", journal.month);
    Ok(match format {
        Format::Beancount => vec![(
            format!("{base}.beancount"),
            beancount(journal)?.into_bytes(),
        )],
        Format::Hledger => vec![(
            format!("{base}.hledger.journal"),
            plain(journal, false).into_bytes(),
        )],
        Format::Ledger => vec![(format!("{base}.ledger"), plain(journal, true).into_bytes())],
        Format::QboJournal => per_currency(journal, |c| {
            Ok(vec![(
                format!("{base}-qbo-journal-{c}.csv"),
                qbo_journal(journal, map, c),
            )])
        })?,
        Format::XeroJournal => per_currency(journal, |c| {
            let parts = xero_journal(journal, map, c)?;
            let many = parts.len() > 1;
            Ok(parts
                .into_iter()
                .enumerate()
                .map(|(i, bytes)| {
                    let n = if many {
                        format!("-{}", i + 1)
                    } else {
                        String::new()
                    };
                    (format!("{base}-xero-journal-{c}{n}.csv"), bytes)
                })
                .collect())
        })?,
        Format::QboBank => per_currency(journal, |c| {
            Ok(vec![(
                format!("{base}-qbo-bank-{c}.csv"),
                qbo_bank(journal, map, c),
            )])
        })?,
        Format::XeroBank => per_currency(journal, |c| {
            Ok(vec![(
                format!("{base}-xero-bank-{c}.csv"),
                xero_bank(journal, map, c),
            )])
        })?,
    })
}

fn per_currency(
    journal: &Journal,
    mut f: impl FnMut(Currency) -> Result<Vec<File>, RenderError>,
) -> Result<Vec<File>, RenderError> {
    let mut out = Vec::new();
    for c in journal.currencies() {
        out.extend(f(c)?);
    }
    Ok(out)
}

fn header_lines(j: &Journal, comment: &str, asserted: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{comment} tieout journal of {}, {} style: the payouts arriving in the month, and the lines created by its end that later payouts pay out (accrued, reversed on {}).",
        j.month,
        j.style.as_str(),
        j.next_day
    );
    let _ = writeln!(
        s,
        "{comment} Each entry names its payout; entries marked ! need a person before they are final."
    );
    for item in &j.suspense {
        let _ = writeln!(
            s,
            "{comment} DOES NOT TIE OUT: {} {} of payout {} booked to suspense ({}).",
            format_major(item.amount, item.currency),
            item.currency,
            item.payout,
            item.reason
        );
    }
    s.push_str(&month_end_lines(j, comment, asserted));
    s
}

/// Where the month's "not yet paid out" comes from and what it cannot know, in words.
pub fn not_paid_out_note(j: &Journal) -> String {
    let (n, k) = (j.not_paid_out_lines, j.accrued_payouts);
    let from = if k == 0 {
        format!(
            "Not yet paid out: no payout in the data arriving after {} pays out a line created by then, so nothing is accrued.",
            j.last_day
        )
    } else {
        format!(
            "Not yet paid out: the net of the {n} line{} created by {} that {k} later payout{} in the data pay{} out, accrued here (a payout on its way counts until it arrives).",
            if n == 1 { "" } else { "s" },
            j.last_day,
            if k == 1 { "" } else { "s" },
            if k == 1 { "s" } else { "" },
        )
    };
    format!(
        "{from} Lines no payout in the data pays out yet are not in it (a payout not made or still being reconciled, one arriving after the data's window, a manual or instant payout, which Stripe never itemises): make the journal again once they are paid out. In a ledger of several months, a payout Stripe could not itemise keeps its amount out of clearing until its activity is booked by hand; the later months' assertions hold once it is."
    )
}

/// What the clearing account holds at the month's end, per currency, where the figure
/// comes from and what it cannot know.
pub fn month_end_lines(j: &Journal, comment: &str, asserted: bool) -> String {
    let mut s = String::new();
    for (c, a) in &j.clearing {
        let at_end = j.clearing_at_end.get(c).copied().unwrap_or(0);
        let unpaid = j.not_paid_out.get(c).copied().unwrap_or(0);
        let out = j.unitemised_out.get(c).copied().unwrap_or(0);
        let less = if out == 0 {
            String::new()
        } else {
            format!(
                ", less {} {c} paid out by payouts of the month whose lines are not booked",
                format_major(out, *c)
            )
        };
        let _ = writeln!(
            s,
            "{comment} {a} at the end of {}{}: {} {c} = {} {c} not yet paid out to the bank{less}.",
            j.month,
            if asserted { " (asserted)" } else { "" },
            format_major(at_end, *c),
            format_major(unpaid, *c),
        );
    }
    if !j.clearing.is_empty() {
        let _ = writeln!(s, "{comment} {}", not_paid_out_note(j));
    }
    for t in &j.balance_tie {
        let _ = writeln!(s, "{comment} {}", balance_tie_note(t, j.month));
    }
    s
}

/// The clearing balance against the Stripe balance at the month's end, in words: equal,
/// or the difference and its parts.
pub fn balance_tie_note(t: &super::balance_tie::BalanceTie, month: Month) -> String {
    let c = t.currency;
    let m = |v: i128| format!("{} {c}", format_major_i128(v, c));
    if !t.closing_known {
        return format!(
            "Stripe balance: the data neither reaches back to the account's first line nor holds Stripe's balance, so the lines it holds add up to {} at the end of {month}, which is not the whole balance: run tieout sync for it.",
            m(t.stripe_closing)
        );
    }
    if t.difference() == 0 {
        return format!(
            "Stripe balance at the end of {month} (the roll-forward of tieout balance): {}, what the clearing account holds.",
            m(t.stripe_closing)
        );
    }
    let mut parts = vec![
        format!(
            "{} of lines no payout had paid out yet",
            m(t.not_in_a_payout)
        ),
        format!(
            "{} of payouts made by then that arrive after it",
            m(t.in_transit)
        ),
    ];
    if t.unitemised != 0 {
        parts.push(format!(
            "{} of payouts Stripe could not itemise (their lines are booked by hand)",
            m(t.unitemised)
        ));
    }
    if t.rest() != 0 {
        parts.push(format!(
            "{} else (tie-out differences, lines before the data's first)",
            m(t.rest())
        ));
    }
    let d = t.difference();
    format!(
        "Stripe balance at the end of {month} (the roll-forward of tieout balance): {}, {} {} than the clearing account holds, made of {}.",
        m(t.stripe_closing),
        m(d.abs()),
        if d > 0 { "more" } else { "less" },
        parts.join(", ")
    )
}

fn quote(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Whether beancount accepts the account name.
pub fn beancount_account_ok(name: &str) -> bool {
    let mut parts = name.split(':');
    let root_ok = matches!(
        parts.next(),
        Some("Assets" | "Liabilities" | "Equity" | "Income" | "Expenses")
    );
    let mut any = false;
    let rest_ok = parts.all(|p| {
        any = true;
        let mut ch = p.chars();
        ch.next()
            .is_some_and(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
            && ch.all(|c| c.is_ascii_alphanumeric() || c == '-')
    });
    root_ok && any && rest_ok
}

fn width(j: &Journal) -> usize {
    j.accounts().iter().map(String::len).max().unwrap_or(0) + 2
}

fn beancount(j: &Journal) -> Result<String, RenderError> {
    if let Some(bad) = j.accounts().into_iter().find(|a| !beancount_account_ok(a)) {
        return Err(RenderError::Beancount(bad));
    }
    let w = width(j);
    let mut s = header_lines(j, ";;", true);
    s.push('\n');
    let open = j
        .entries
        .first()
        .map(|e| e.date.clone())
        .unwrap_or_else(|| j.last_day.clone())
        .min(j.last_day.clone());
    for a in j.accounts() {
        let _ = writeln!(s, "{open} open {a}");
    }
    for e in &j.entries {
        s.push('\n');
        let flag = if e.review.is_some() { '!' } else { '*' };
        let _ = writeln!(
            s,
            "{} {flag} \"Stripe\" \"{} ({})\" ^{}",
            e.date,
            quote(&e.narration),
            e.payout,
            e.payout
        );
        if let Some(r) = &e.review {
            let _ = writeln!(s, "  review: \"{}\"", quote(r));
        }
        for p in &e.postings {
            let _ = writeln!(
                s,
                "  {:<w$}{:>16} {}",
                p.account,
                format_major(p.amount, p.currency),
                p.currency.upper()
            );
        }
    }
    s.push('\n');
    for (c, a) in &j.clearing {
        let bal = j.clearing_at_end.get(c).copied().unwrap_or(0);
        let _ = writeln!(
            s,
            "{} balance {a} {} {}",
            j.next_day,
            format_major(bal, *c),
            c.upper()
        );
    }
    Ok(s)
}

fn plain_entry(s: &mut String, e: &Entry, w: usize, ledger: bool) {
    let flag = if e.review.is_some() { '!' } else { '*' };
    if ledger {
        let _ = writeln!(
            s,
            "{} {flag} ({}) Stripe: {}",
            e.date, e.payout, e.narration
        );
        let _ = writeln!(s, "    ; Payout: {}", e.payout);
        if let Some(r) = &e.review {
            let _ = writeln!(s, "    ; Review: {r}");
        }
    } else {
        let _ = writeln!(
            s,
            "{} {flag} ({}) Stripe | {}  ; payout:{}",
            e.date, e.payout, e.narration, e.payout
        );
        if let Some(r) = &e.review {
            let _ = writeln!(s, "    ; review: {r}");
        }
    }
    for p in &e.postings {
        let _ = writeln!(
            s,
            "    {:<w$}{:>16} {}",
            p.account,
            format_major(p.amount, p.currency),
            p.currency.upper()
        );
    }
}

/// The hledger or ledger journal: account directives, then the entries; hledger's ends
/// with the clearing account's balance assertions.
fn plain(j: &Journal, ledger: bool) -> String {
    let w = width(j);
    let mut s = header_lines(j, ";", !ledger);
    s.push('\n');
    for a in j.accounts() {
        let _ = writeln!(s, "account {a}");
    }
    for e in &j.entries {
        s.push('\n');
        plain_entry(&mut s, e, w, ledger);
    }
    if !ledger && !j.clearing.is_empty() {
        let _ = writeln!(
            s,
            "\n{} * Stripe | clearing balance at the end of {}",
            j.last_day, j.month
        );
        for (c, a) in &j.clearing {
            let bal = j.clearing_at_end.get(c).copied().unwrap_or(0);
            let _ = writeln!(
                s,
                "    {a:<w$}{:>16} {} = {} {}",
                format_major(0, *c),
                c.upper(),
                format_major(bal, *c),
                c.upper()
            );
        }
    }
    s
}

fn date_as(date: &str, format: &str) -> String {
    date.parse::<jiff::civil::Date>()
        .map(|d| d.strftime(format).to_string())
        .unwrap_or_else(|_| date.to_string())
}

fn describe(e: &Entry) -> String {
    match &e.review {
        Some(r) => format!("{} {} [review: {r}]", e.payout, e.narration),
        None => format!("{} {}", e.payout, e.narration),
    }
}

fn qbo_journal(j: &Journal, map: &AccountMap, c: Currency) -> Vec<u8> {
    let mut doc = CsvDoc::new(&[
        "Journal No",
        "Journal Date",
        "Account Name",
        "Description",
        "Debits",
        "Credits",
        "Name",
    ]);
    let mut no = 0usize;
    for e in &j.entries {
        let ps: Vec<_> = e.postings.iter().filter(|p| p.currency == c).collect();
        if ps.is_empty() {
            continue;
        }
        no += 1;
        let number = format!("{}-{no:04}", j.month);
        let date = date_as(&e.date, &map.qbo.date_format);
        let desc = describe(e);
        for p in ps {
            let (dr, cr) = if p.amount >= 0 {
                (format_major(p.amount, c), String::new())
            } else {
                (String::new(), format_major(-p.amount, c))
            };
            doc.row([
                number.as_str(),
                date.as_str(),
                p.account.as_str(),
                desc.as_str(),
                dr.as_str(),
                cr.as_str(),
                map.qbo.name.as_str(),
            ]);
        }
    }
    doc.into_bytes()
}

fn xero_journal(j: &Journal, map: &AccountMap, c: Currency) -> Result<Vec<Vec<u8>>, RenderError> {
    const HEAD: [&str; 6] = [
        "Narration",
        "Date",
        "Description",
        "AccountCode",
        "TaxRate",
        "Amount",
    ];
    let mut files = Vec::new();
    let mut doc = CsvDoc::new(&HEAD);
    let mut lines = 0usize;
    for e in &j.entries {
        let ps: Vec<_> = e.postings.iter().filter(|p| p.currency == c).collect();
        if ps.is_empty() {
            continue;
        }
        if ps.len() > XERO_MAX_LINES {
            return Err(RenderError::XeroTooLong(e.payout.clone()));
        }
        if lines + ps.len() > XERO_MAX_LINES {
            files.push(std::mem::replace(&mut doc, CsvDoc::new(&HEAD)).into_bytes());
            lines = 0;
        }
        let date = date_as(&e.date, &map.xero.date_format);
        let narration = describe(e);
        for p in ps {
            let code = map
                .xero
                .codes
                .get(&p.account)
                .ok_or_else(|| RenderError::XeroCode(p.account.clone()))?;
            let rate = map
                .xero
                .tax_rates
                .get(&p.account)
                .unwrap_or(&map.xero.tax_rate);
            doc.row([
                narration.as_str(),
                date.as_str(),
                p.account.as_str(),
                code.as_str(),
                rate.as_str(),
                format_major(p.amount, c).as_str(),
            ]);
            lines += 1;
        }
    }
    files.push(doc.into_bytes());
    Ok(files)
}

/// The clearing account's postings in `c`, one per entry: (entry, amount).
fn clearing_lines(j: &Journal, c: Currency) -> Vec<(&Entry, i64)> {
    let Some(name) = j.clearing.get(&c) else {
        return Vec::new();
    };
    j.entries
        .iter()
        .filter_map(|e| {
            let sum: i64 = e
                .postings
                .iter()
                .filter(|p| p.currency == c && &p.account == name)
                .map(|p| p.amount)
                .sum();
            e.postings
                .iter()
                .any(|p| p.currency == c && &p.account == name)
                .then_some((e, sum))
        })
        .collect()
}

fn qbo_bank(j: &Journal, map: &AccountMap, c: Currency) -> Vec<u8> {
    let mut doc = CsvDoc::new(&["Date", "Description", "Amount"]);
    for (e, amount) in clearing_lines(j, c) {
        doc.row([
            date_as(&e.date, &map.qbo.date_format),
            describe(e),
            format_major(amount, c),
        ]);
    }
    doc.into_bytes()
}

fn xero_bank(j: &Journal, map: &AccountMap, c: Currency) -> Vec<u8> {
    let mut doc = CsvDoc::new(&["Date", "Amount", "Payee", "Description", "Reference"]);
    for (e, amount) in clearing_lines(j, c) {
        let desc = match &e.review {
            Some(r) => format!("{} [review: {r}]", e.narration),
            None => e.narration.clone(),
        };
        doc.row([
            date_as(&e.date, &map.xero.date_format),
            format_major(amount, c),
            "Stripe".to_string(),
            desc,
            e.payout.clone(),
        ]);
    }
    doc.into_bytes()
}
