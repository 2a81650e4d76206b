//! The bank leg's exports: `bank-match.csv` (one row per payout, then one per
//! Stripe-looking bank line no payout took, then one per statement line given twice) and the "Bank" section that `reconciliation.md`
//! and `reconciliation.json` gain when a statement is given. Without a statement nothing
//! here is called, so those files stay as they were. Byte-deterministic, like the other
//! renderers.

use std::fmt::Write as _;

use serde::Serialize;

use crate::bank::{BankLine, BankMatch, BankStatus, PayoutMatch};
use crate::money::format_major;
use crate::report::csv_out::CsvDoc;

pub const BANK_MATCH_FILE: &str = "bank-match.csv";

pub const BANK_MATCH_HEADER: [&str; 12] = [
    "payout_id",
    "arrival_date_utc",
    "currency",
    "amount",
    "status",
    "bank_date",
    "bank_amount",
    "bank_reference",
    "bank_line_id",
    "match_rule",
    "days_offset",
    "note",
];

/// The status of a bank line listed because it looks like Stripe and no payout took it.
pub const UNMATCHED: &str = "unmatched";

/// What a listed line's row says.
const UNMATCHED_NOTE: &str = "looks like a Stripe payout but no payout was paired with it";

/// The status of a statement line that repeats a line of a file given before it.
pub const DUPLICATE: &str = "duplicate";

/// What a duplicate's row says, naming the place of the line it repeats.
fn duplicate_note(first: &str) -> String {
    format!("the same line as {first} in a statement given before: left out of matching")
}

fn join<I: IntoIterator<Item = String>>(parts: I) -> String {
    let mut v: Vec<String> = parts.into_iter().collect();
    v.dedup();
    v.join(" + ")
}

fn reference(l: &BankLine) -> String {
    match &l.reference {
        Some(r) if !r.is_empty() => r.clone(),
        _ => l.description.clone(),
    }
}

/// The bank columns of a paired payout: dates, the lines' total, references and ids.
fn bank_cells(p: &PayoutMatch) -> [String; 4] {
    if p.lines.is_empty() {
        return Default::default();
    }
    let total = p
        .lines
        .iter()
        .fold(0_i64, |a, l| a.saturating_add(l.amount));
    let currency = p.lines[0].currency;
    [
        join(p.lines.iter().map(|l| l.date.to_string())),
        format_major(total, currency),
        join(p.lines.iter().map(reference)),
        join(p.lines.iter().map(BankLine::line_id)),
    ]
}

/// `bank-match.csv`: payouts in arrival order, then the unmatched Stripe-looking lines,
/// then the lines given twice (status `duplicate`, the note naming the line repeated).
pub fn bank_match_csv(m: &BankMatch) -> Vec<u8> {
    let mut doc = CsvDoc::new(&BANK_MATCH_HEADER);
    for p in &m.payouts {
        let [date, amount, reference, id] = bank_cells(p);
        doc.row([
            p.payout.id.clone(),
            p.payout.arrival.to_string(),
            p.payout.currency.upper(),
            format_major(p.payout.amount, p.payout.currency),
            p.status.as_str().to_string(),
            date,
            amount,
            reference,
            id,
            p.rule.map_or(String::new(), |r| r.as_str().to_string()),
            p.days_offset().map_or(String::new(), |d| d.to_string()),
            p.note.clone(),
        ]);
    }
    let mut candidate_of: std::collections::BTreeMap<String, Vec<&str>> = Default::default();
    for p in &m.payouts {
        for c in &p.candidates {
            candidate_of
                .entry(c.line.line_id())
                .or_default()
                .push(&p.payout.id);
        }
    }
    for l in &m.unmatched_stripe {
        let note = match candidate_of.get(&l.line_id()) {
            Some(ids) => format!(
                "{UNMATCHED_NOTE}; a candidate for {} (review)",
                ids.join(", ")
            ),
            None => UNMATCHED_NOTE.to_string(),
        };
        doc.row([
            String::new(),
            String::new(),
            l.currency.upper(),
            String::new(),
            UNMATCHED.to_string(),
            l.date.to_string(),
            format_major(l.amount, l.currency),
            reference(l),
            l.line_id(),
            String::new(),
            String::new(),
            note,
        ]);
    }
    for d in &m.duplicates {
        let (here, first) = d.places();
        let l = &d.line;
        doc.row([
            String::new(),
            String::new(),
            l.currency.upper(),
            String::new(),
            DUPLICATE.to_string(),
            l.date.to_string(),
            format_major(l.amount, l.currency),
            reference(l),
            here,
            String::new(),
            String::new(),
            duplicate_note(&first),
        ]);
    }
    doc.into_bytes()
}

/// Escapes bank text for a Markdown table cell (control characters made visible).
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '\r' | '\n' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '#' => {
                out.push('\\');
                out.push(ch);
            }
            _ => crate::controls::push(&mut out, ch),
        }
    }
    out
}

/// The one-line count of each status that occurs, for summaries.
pub fn counts_line(m: &BankMatch) -> String {
    let parts: Vec<String> = m
        .counts()
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(s, n)| format!("{n} {}", s.as_str()))
        .collect();
    let mut line = if parts.is_empty() {
        "no payouts".to_string()
    } else {
        parts.join(", ")
    };
    if !m.unmatched_stripe.is_empty() {
        let _ = write!(
            line,
            "; {} Stripe-looking bank line{} unmatched",
            m.unmatched_stripe.len(),
            if m.unmatched_stripe.len() == 1 {
                ""
            } else {
                "s"
            }
        );
    }
    let n = m.duplicates.len();
    if n > 0 {
        let _ = write!(
            line,
            "; {n} statement line{} given twice",
            if n == 1 { "" } else { "s" }
        );
    }
    line
}

/// The "Bank" section appended to `reconciliation.md`.
pub fn markdown_section(m: &BankMatch) -> String {
    let mut o = String::new();
    let currencies: Vec<String> = m.currencies.iter().map(|c| c.upper()).collect();
    let _ = writeln!(o, "\n## Bank\n");
    let _ = writeln!(
        o,
        "{} statement line{} read{}, in {}. A payout is matched by the bank text naming its trace id or payout id, else by the same amount in the window from one day before its arrival date to three business days after it with exactly one candidate, else by one line for a few payouts (or a few lines for one) when exactly one combination fits. Anything else is for review; nothing is accepted on a guess.\n",
        m.lines_read,
        if m.lines_read == 1 { "" } else { "s" },
        if m.duplicates.is_empty() {
            String::new()
        } else {
            format!(
                " ({} of them given twice and left out of matching)",
                m.duplicates.len()
            )
        },
        if currencies.is_empty() {
            "no currency".to_string()
        } else {
            currencies.join(", ")
        }
    );
    let _ = writeln!(o, "| status | payouts | meaning |");
    let _ = writeln!(o, "|---|--:|---|");
    for (status, n) in m.counts() {
        if n > 0 {
            let _ = writeln!(o, "| {} | {n} | {} |", status.as_str(), status.meaning());
        }
    }
    let attention: Vec<&PayoutMatch> = m.attention().collect();
    if !attention.is_empty() {
        let _ = writeln!(o, "\n### To look at\n");
        let _ = writeln!(o, "| payout | arrival (UTC) | amount | status | note |");
        let _ = writeln!(o, "|---|---|--:|---|---|");
        for p in attention {
            let _ = writeln!(
                o,
                "| {} | {} | {} {} | {} | {} |",
                esc(&p.payout.id),
                p.payout.arrival,
                format_major(p.payout.amount, p.payout.currency),
                p.payout.currency,
                p.status.as_str(),
                esc(&p.note)
            );
        }
    }
    if !m.unmatched_stripe.is_empty() {
        let _ = writeln!(o, "\n### Stripe-looking bank lines no payout took\n");
        let _ = writeln!(o, "| line | date | amount | text |");
        let _ = writeln!(o, "|---|---|--:|---|");
        for l in &m.unmatched_stripe {
            let _ = writeln!(
                o,
                "| {} | {} | {} {} | {} |",
                esc(&l.line_id()),
                l.date,
                format_major(l.amount, l.currency),
                l.currency,
                esc(&l.text())
            );
        }
    }
    if !m.duplicates.is_empty() {
        let _ = writeln!(o, "\n### Statement lines given twice\n");
        let _ = writeln!(
            o,
            "Each of these lines has the same date, amount, currency, text, reference and id as a line of a statement given before it: one posting given twice, so it was left out of matching (the same line twice within one statement is two postings and is kept).\n"
        );
        let _ = writeln!(o, "| line | same as | date | amount | text |");
        let _ = writeln!(o, "|---|---|---|--:|---|");
        for d in &m.duplicates {
            let (here, first) = d.places();
            let l = &d.line;
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} {} | {} |",
                esc(&here),
                esc(&first),
                l.date,
                format_major(l.amount, l.currency),
                l.currency,
                esc(&l.text())
            );
        }
    }
    o
}

#[derive(Serialize)]
struct Doc<'a> {
    lines_read: usize,
    currencies: Vec<String>,
    counts: std::collections::BTreeMap<&'static str, usize>,
    payouts: Vec<Payout<'a>>,
    unmatched_stripe_lines: Vec<Line<'a>>,
    /// Absent when no line was given twice (so the member is new only where it says so).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    duplicate_lines: Vec<DuplicateLine<'a>>,
}

#[derive(Serialize)]
struct DuplicateLine<'a> {
    #[serde(flatten)]
    line: Line<'a>,
    status: &'static str,
    /// `file:line` of the line it repeats.
    same_as: String,
}

#[derive(Serialize)]
struct Payout<'a> {
    id: &'a str,
    arrival_date_utc: String,
    currency: String,
    amount: i64,
    status: &'static str,
    match_rule: Option<&'static str>,
    days_offset: Option<i64>,
    note: &'a str,
    lines: Vec<Line<'a>>,
    candidates: Vec<Candidate<'a>>,
}

#[derive(Serialize)]
struct Line<'a> {
    id: String,
    file: &'a str,
    line: u32,
    date: String,
    currency: String,
    amount: i64,
    text: &'a str,
    reference: Option<&'a str>,
}

#[derive(Serialize)]
struct Candidate<'a> {
    line: Line<'a>,
    reason: &'a str,
}

fn line(l: &BankLine) -> Line<'_> {
    Line {
        id: l.line_id(),
        file: &l.file,
        line: l.line,
        date: l.date.to_string(),
        currency: l.currency.upper(),
        amount: l.amount,
        text: &l.description,
        reference: l.reference.as_deref(),
    }
}

/// The "bank" member of `reconciliation.json` (minor units), pretty-printed.
fn json_value(m: &BankMatch) -> String {
    let doc = Doc {
        lines_read: m.lines_read,
        currencies: m.currencies.iter().map(|c| c.upper()).collect(),
        counts: m
            .counts()
            .into_iter()
            .map(|(s, n)| (s.as_str(), n))
            .collect(),
        payouts: m
            .payouts
            .iter()
            .map(|p| Payout {
                id: &p.payout.id,
                arrival_date_utc: p.payout.arrival.to_string(),
                currency: p.payout.currency.upper(),
                amount: p.payout.amount,
                status: p.status.as_str(),
                match_rule: p.rule.map(|r| r.as_str()),
                days_offset: p.days_offset(),
                note: &p.note,
                lines: p.lines.iter().map(line).collect(),
                candidates: p
                    .candidates
                    .iter()
                    .map(|c| Candidate {
                        line: line(&c.line),
                        reason: &c.reason,
                    })
                    .collect(),
            })
            .collect(),
        unmatched_stripe_lines: m.unmatched_stripe.iter().map(line).collect(),
        duplicate_lines: m
            .duplicates
            .iter()
            .map(|d| DuplicateLine {
                line: line(&d.line),
                status: DUPLICATE,
                same_as: d.places().1,
            })
            .collect(),
    };
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

/// Adds the Bank section to the files `reconciliation::render` gave: appended to the
/// Markdown, and a last `"bank"` member in the JSON document (the members before it are
/// untouched, byte for byte).
pub fn add_bank_section(files: &mut [(&'static str, Vec<u8>)], m: &BankMatch) {
    use crate::report::reconciliation::{JSON_FILE, MD_FILE};
    for (name, bytes) in files.iter_mut() {
        if *name == MD_FILE {
            bytes.extend_from_slice(markdown_section(m).as_bytes());
        } else if *name == JSON_FILE {
            let text = String::from_utf8_lossy(bytes);
            if let Some(body) = text.trim_end().strip_suffix('}') {
                let member = json_value(m).replace('\n', "\n  ");
                let spliced = format!("{},\n  \"bank\": {member}\n}}\n", body.trim_end());
                *bytes = spliced.into_bytes();
            }
        }
    }
}

/// The close packet README's "Does it reach the bank?" section: the counts, what each
/// status means, and the payouts to look at.
pub fn readme_section(m: &BankMatch) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "## Does it reach the bank?\n");
    let _ = writeln!(
        o,
        "The month's payouts were matched to the bank statement given ({} line{}, in {}): {}. \
         `{BANK_MATCH_FILE}` has one row per payout with the bank line(s) it became, the rule \
         that paired them and the days between arrival and booking, then the bank lines that \
         look like Stripe but that no payout took. A match is never accepted on a guess: \
         anything a rule cannot pair alone is for review.\n",
        m.lines_read,
        if m.lines_read == 1 { "" } else { "s" },
        if m.currencies.is_empty() {
            "no currency".to_string()
        } else {
            m.currencies
                .iter()
                .map(|c| c.upper())
                .collect::<Vec<_>>()
                .join(", ")
        },
        counts_line(m)
    );
    let _ = writeln!(o, "| status | payouts | meaning |");
    let _ = writeln!(o, "|---|--:|---|");
    for (status, n) in m.counts() {
        let _ = writeln!(o, "| `{}` | {n} | {} |", status.as_str(), status.meaning());
    }
    let _ = writeln!(
        o,
        "| `{UNMATCHED}` | {} lines | {UNMATCHED_NOTE} |",
        m.unmatched_stripe.len()
    );
    if !m.duplicates.is_empty() {
        let _ = writeln!(
            o,
            "| `{DUPLICATE}` | {} lines | a line of a statement given before, given again: left out of matching |",
            m.duplicates.len()
        );
    }
    let attention: Vec<&PayoutMatch> = m.attention().collect();
    if !attention.is_empty() {
        let _ = writeln!(o, "\nTo look at:\n");
        for p in attention {
            let _ = writeln!(
                o,
                "- **{}** `{}` ({} {}, arriving {}): {}",
                p.status.as_str(),
                p.payout.id,
                format_major(p.payout.amount, p.payout.currency),
                p.payout.currency,
                p.payout.arrival,
                esc(&p.note)
            );
        }
    }
    let _ = writeln!(o);
    o
}

/// The row `bank-match.csv` has in the packet README's file table.
pub fn readme_file_row() -> (&'static str, String) {
    (
        BANK_MATCH_FILE,
        format!(
            "The bank leg: one row per payout ({}), its status, the bank line(s) it matched, \
             the rule and the days' offset; then the Stripe-looking bank lines no payout took. \
             Amounts in major units.",
            BANK_MATCH_HEADER.join(", ")
        ),
    )
}

/// Whether a person must act: a due payout with no deposit, or a match to review.
pub fn needs_attention(m: &BankMatch) -> bool {
    m.payouts
        .iter()
        .any(|p| matches!(p.status, BankStatus::Missing | BankStatus::Review))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bank::testdata;
    use crate::bank::{MatchOptions, match_payouts};

    fn golden(name: &str, actual: &[u8]) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/golden/bank")
            .join(name);
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::create_dir_all(path.parent().expect("dir")).expect("mkdir");
            std::fs::write(&path, actual).expect("write golden");
        }
        let expected = std::fs::read(&path).unwrap_or_default();
        assert!(
            expected == actual,
            "{} differs (UPDATE_GOLDEN=1 to regenerate):\n{}",
            path.display(),
            String::from_utf8_lossy(actual)
        );
    }

    /// One golden `bank-match.csv` per fixture statement.
    #[test]
    fn each_fixture_statement_matches_its_golden_file() {
        let o = MatchOptions::new(jiff::civil::date(2026, 12, 1));
        for (file, profile) in [
            ("us-checking-2026-10-11.csv", "us-debit-credit"),
            ("eu-giro-2026-10-11.csv", "eu-semicolon"),
            ("eur-2026-10-11.camt053.xml", "tieout"),
            ("jpy-2026-10-11.ofx", "tieout"),
        ] {
            let m = match_payouts(
                &testdata::demo_payouts(),
                &testdata::fixture(file, profile),
                &o,
            );
            golden(&format!("{file}.bank-match.csv"), &bank_match_csv(&m));
        }
    }

    #[test]
    fn the_header_is_the_documented_one() {
        let m = BankMatch {
            payouts: Vec::new(),
            unmatched_stripe: Vec::new(),
            lines_read: 0,
            duplicates: Vec::new(),
            currencies: Default::default(),
        };
        assert_eq!(
            String::from_utf8(bank_match_csv(&m)).expect("utf8"),
            "payout_id,arrival_date_utc,currency,amount,status,bank_date,bank_amount,bank_reference,bank_line_id,match_rule,days_offset,note\r\n"
        );
    }

    #[test]
    fn the_json_member_is_spliced_into_a_valid_document() {
        let o = MatchOptions::new(jiff::civil::date(2026, 12, 1));
        let m = match_payouts(
            &testdata::demo_payouts(),
            &testdata::fixture("jpy-2026-10-11.ofx", "tieout"),
            &o,
        );
        let before = b"{\n  \"report\": \"x\",\n  \"n\": [\n    1\n  ]\n}\n".to_vec();
        let mut files = vec![
            (crate::report::reconciliation::JSON_FILE, before.clone()),
            (crate::report::reconciliation::MD_FILE, b"# T\n".to_vec()),
        ];
        add_bank_section(&mut files, &m);
        let text = String::from_utf8(files[0].1.clone()).expect("utf8");
        assert!(text.starts_with("{\n  \"report\": \"x\",\n  \"n\": [\n    1\n  ],\n  \"bank\": {\n    \"lines_read\": 10,"), "{text}");
        let v: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(v["bank"]["counts"]["matched"], 9);
        let md = String::from_utf8(files[1].1.clone()).expect("utf8");
        assert!(
            md.starts_with("# T\n\n## Bank\n\n10 statement lines read, in JPY."),
            "{md}"
        );
        assert!(md.contains("| matched | 9 |"));
    }

    /// Issue 40: the same statement given twice sent 23 payouts to review without naming
    /// the repeated lines.
    #[test]
    fn a_statement_given_twice_is_named_line_by_line_and_matches_as_once() {
        let o = MatchOptions::new(jiff::civil::date(2026, 12, 1));
        let file = "us-checking-2026-10-11.csv";
        let once = testdata::fixture(file, "us-debit-credit");
        let mut twice = once.clone();
        twice.extend(once.iter().cloned().map(|mut l| {
            l.file = "copy.csv".to_string();
            l
        }));
        let single = match_payouts(&testdata::demo_payouts(), &once, &o);
        let m = match_payouts(&testdata::demo_payouts(), &twice, &o);
        assert_eq!(
            m.payouts, single.payouts,
            "the payouts match as with one copy"
        );
        assert_eq!(m.unmatched_stripe, single.unmatched_stripe);
        assert_eq!(m.duplicates.len(), once.len());
        assert_eq!(m.lines_read, 2 * once.len());
        let (here, first) = m.duplicates[0].places();
        assert_eq!(
            (here.as_str(), first.as_str()),
            ("copy.csv:2", "us-checking-2026-10-11.csv:2")
        );

        let csv = String::from_utf8(bank_match_csv(&m)).expect("utf8");
        let rows: Vec<&str> = csv.lines().filter(|r| r.contains(",duplicate,")).collect();
        assert_eq!(rows.len(), once.len(), "{csv}");
        assert!(
            rows[0].contains(",copy.csv:2,")
                && rows[0].ends_with(
                    ",the same line as us-checking-2026-10-11.csv:2 in a statement given before: left out of matching"
                ),
            "{}",
            rows[0]
        );
        let md = markdown_section(&m);
        assert!(
            md.contains(&format!(
                "read ({} of them given twice and left out of matching)",
                once.len()
            )),
            "{md}"
        );
        assert!(md.contains("\n### Statement lines given twice\n"), "{md}");
        assert!(
            md.contains("| copy.csv:2 | us-checking-2026-10-11.csv:2 |"),
            "{md}"
        );
        assert!(
            counts_line(&m).ends_with(&format!("; {} statement lines given twice", once.len()))
        );
        let mut files = vec![(
            crate::report::reconciliation::JSON_FILE,
            b"{\n  \"r\": 1\n}\n".to_vec(),
        )];
        add_bank_section(&mut files, &m);
        let v: serde_json::Value = serde_json::from_slice(&files[0].1).expect("valid JSON");
        let d = &v["bank"]["duplicate_lines"][0];
        assert_eq!(d["status"], "duplicate");
        assert_eq!(d["file"], "copy.csv");
        assert_eq!(d["same_as"], "us-checking-2026-10-11.csv:2");
        // Without a duplicate the member is absent, as before.
        let mut files = vec![(
            crate::report::reconciliation::JSON_FILE,
            b"{\n  \"r\": 1\n}\n".to_vec(),
        )];
        add_bank_section(&mut files, &single);
        assert!(!String::from_utf8_lossy(&files[0].1).contains("duplicate_lines"));
        assert!(!markdown_section(&single).contains("given twice"));
    }
}
