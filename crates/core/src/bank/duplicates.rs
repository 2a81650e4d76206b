//! Statement lines given twice: the same line in two of the files handed over (two
//! overlapping exports, or a month's statement copied under another name). Such a line
//! is one deposit, not two, so it is taken out before matching; left in, every payout it
//! could have paid sees two equal candidates and goes to review.
//!
//! Two lines are the same when their date, value date, signed amount, currency, text,
//! reference and bank id all agree. The same line twice within ONE file is two postings
//! (a bank may book two equal transfers on a day) and is kept. Across files, a line
//! repeated `n` times in the later file repeats the first `n` of the earlier ones: a
//! statement holding a line twice and a later one holding it once (or twice) add
//! nothing; a later file holding it three times adds the third. Which copy is called the
//! duplicate follows the order the files were given: the later file's.

use std::collections::BTreeMap;

use jiff::civil::Date;

use super::BankLine;
use crate::money::Currency;

/// A line that repeats a line of a file given before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// The line taken out of matching.
    pub line: BankLine,
    /// The earlier file's line it repeats (kept and matched).
    pub first: BankLine,
}

impl Duplicate {
    /// `file:line` of the duplicate and of the line it repeats.
    pub fn places(&self) -> (String, String) {
        (place(&self.line), place(&self.first))
    }
}

/// `file:line`, whatever the bank's own id (two copies of a line share their id).
pub fn place(l: &BankLine) -> String {
    format!("{}:{}", l.file, l.line)
}

type Key<'a> = (
    Date,
    Option<Date>,
    i64,
    Currency,
    &'a str,
    Option<&'a str>,
    Option<&'a str>,
);

fn key(l: &BankLine) -> Key<'_> {
    (
        l.date,
        l.value_date,
        l.amount,
        l.currency,
        l.description.as_str(),
        l.reference.as_deref(),
        l.bank_id.as_deref(),
    )
}

/// Splits `lines` (in the order the files were given) into the lines to match and the
/// lines that repeat a line of an earlier file. The kept lines stay in their order, and
/// are borrowed (a 200 MB statement's lines are not copied).
pub fn split_duplicates(lines: &[BankLine]) -> (Vec<&BankLine>, Vec<Duplicate>) {
    // The files in the order they first appear.
    let mut order: Vec<&str> = Vec::new();
    for l in lines {
        if order.last() != Some(&l.file.as_str()) && !order.contains(&l.file.as_str()) {
            order.push(&l.file);
        }
    }
    if order.len() < 2 {
        return (lines.iter().collect(), Vec::new());
    }
    let rank: BTreeMap<&str, usize> = order.iter().enumerate().map(|(i, f)| (*f, i)).collect();
    // The lines kept so far with each key (indices into `lines`), from earlier files.
    let mut kept: BTreeMap<Key<'_>, Vec<usize>> = BTreeMap::new();
    let mut duplicate_of: Vec<Option<usize>> = vec![None; lines.len()];
    let mut by_file: Vec<Vec<usize>> = vec![Vec::new(); order.len()];
    for (i, l) in lines.iter().enumerate() {
        if let Some(&r) = rank.get(l.file.as_str()) {
            by_file[r].push(i);
        }
    }
    for indices in &by_file {
        // How many of each key this file has had so far, and its own new lines.
        let mut seen: BTreeMap<Key<'_>, usize> = BTreeMap::new();
        let mut added: Vec<(Key<'_>, usize)> = Vec::new();
        for &i in indices {
            let k = key(&lines[i]);
            let n = seen.entry(k).or_default();
            match kept.get(&k).and_then(|earlier| earlier.get(*n)) {
                Some(&first) => duplicate_of[i] = Some(first),
                None => added.push((k, i)),
            }
            *n += 1;
        }
        for (k, i) in added {
            kept.entry(k).or_default().push(i);
        }
    }
    let mut out = Vec::with_capacity(lines.len());
    let mut duplicates = Vec::new();
    for (l, first) in lines.iter().zip(duplicate_of) {
        match first {
            Some(f) => duplicates.push(Duplicate {
                line: l.clone(),
                first: lines[f].clone(),
            }),
            None => out.push(l),
        }
    }
    (out, duplicates)
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    fn line(file: &str, n: u32, amount: i64, text: &str) -> BankLine {
        BankLine {
            file: file.to_string(),
            line: n,
            date: date(2026, 10, 5),
            value_date: None,
            amount,
            currency: Currency::parse("usd").expect("usd"),
            description: text.to_string(),
            reference: None,
            bank_id: None,
            statement: 0,
        }
    }

    fn places(d: &[Duplicate]) -> Vec<(String, String)> {
        d.iter().map(Duplicate::places).collect()
    }

    #[test]
    fn a_line_in_two_files_is_named_once_with_both_places() {
        let lines = vec![
            line("a.csv", 2, 100, "STRIPE"),
            line("a.csv", 3, -5, "FEE"),
            line("b.csv", 2, -7, "RENT"),
            line("b.csv", 3, 100, "STRIPE"),
        ];
        let (kept, dups) = split_duplicates(&lines);
        assert_eq!(kept.len(), 3);
        assert!(!kept.contains(&&lines[3]));
        assert_eq!(
            places(&dups),
            vec![("b.csv:3".to_string(), "a.csv:2".to_string())]
        );
    }

    #[test]
    fn the_same_line_twice_in_one_file_is_two_postings() {
        let lines = vec![
            line("a.csv", 2, 100, "STRIPE"),
            line("a.csv", 3, 100, "STRIPE"),
        ];
        let (kept, dups) = split_duplicates(&lines);
        assert_eq!(kept, lines.iter().collect::<Vec<_>>());
        assert!(dups.is_empty());
    }

    #[test]
    fn repeats_are_counted_per_file() {
        // a has it twice; b twice (both repeats); c three times (the third is new).
        let mut lines = Vec::new();
        for (file, n) in [("a.csv", 2), ("b.csv", 2), ("c.csv", 3)] {
            for i in 0..n {
                lines.push(line(file, 10 + i, 100, "STRIPE"));
            }
        }
        let (kept, dups) = split_duplicates(&lines);
        assert_eq!(
            places(&dups),
            vec![
                ("b.csv:10".to_string(), "a.csv:10".to_string()),
                ("b.csv:11".to_string(), "a.csv:11".to_string()),
                ("c.csv:10".to_string(), "a.csv:10".to_string()),
                ("c.csv:11".to_string(), "a.csv:11".to_string()),
            ]
        );
        assert_eq!(
            kept.iter().map(|l| place(l)).collect::<Vec<_>>(),
            ["a.csv:10", "a.csv:11", "c.csv:12"]
        );
    }

    #[test]
    fn lines_that_differ_in_any_part_of_their_identity_are_kept() {
        let a = line("a.csv", 2, 100, "STRIPE");
        let mut other_ref = line("b.csv", 2, 100, "STRIPE");
        other_ref.reference = Some("X".into());
        let mut other_id = line("b.csv", 3, 100, "STRIPE");
        other_id.bank_id = Some("b3".into());
        let other_text = line("b.csv", 4, 100, "STRIPE 2");
        let other_amount = line("b.csv", 5, 101, "STRIPE");
        let mut other_day = line("b.csv", 6, 100, "STRIPE");
        other_day.date = date(2026, 10, 6);
        let lines = vec![a, other_ref, other_id, other_text, other_amount, other_day];
        let (kept, dups) = split_duplicates(&lines);
        assert_eq!(kept, lines.iter().collect::<Vec<_>>());
        assert!(dups.is_empty());
    }
}
