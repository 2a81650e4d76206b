//! A guessed bank CSV profile ([`super::Guess`]) written as a commented
//! `[profiles.NAME]` table for `bank.toml`: each key under the reason it was chosen, so a
//! person can check it before saving it.

use std::fmt::Write as _;

use super::Guess;
use crate::bank::csv::{AmountColumns, Column};

/// A TOML string.
fn quoted(v: &str) -> String {
    toml::Value::String(v.to_string()).to_string()
}

fn column(c: &Column) -> String {
    match c {
        Column::Name(n) => quoted(n),
        Column::Position(i) => i.to_string(),
    }
}

fn list(items: impl Iterator<Item = String>) -> String {
    format!("[{}]", items.collect::<Vec<_>>().join(", "))
}

impl Guess {
    /// The guess as a commented `[profiles.NAME]` table, each key under the reason it was
    /// chosen; `file` is named in the opening comment.
    pub fn to_toml(&self, name: &str, file: &str) -> String {
        let p = &self.profile;
        let mut keys: Vec<(&str, String)> = Vec::new();
        if !p.header {
            keys.push(("header", "false".into()));
        }
        if p.skip_lines > 0 {
            keys.push(("skip_lines", p.skip_lines.to_string()));
        }
        if let Some(h) = &p.header_starts_with {
            keys.push(("header_starts_with", quoted(h)));
        }
        keys.push(("delimiter", quoted(&p.delimiter.to_string())));
        keys.push(("date", column(&p.date)));
        keys.push((
            "date_formats",
            list(p.date_formats.iter().map(|f| quoted(f))),
        ));
        match &p.amount {
            AmountColumns::Signed { amount } => keys.push(("amount", column(amount))),
            AmountColumns::Pair { credit, debit } => {
                keys.push(("credit", column(credit)));
                keys.push(("debit", column(debit)));
            }
        }
        if let Some(s) = &p.sign {
            keys.push(("sign_column", column(&s.column)));
            keys.push((
                "debit_values",
                list(s.debit_values.iter().map(|w| quoted(w))),
            ));
            keys.push((
                "credit_values",
                list(s.credit_values.iter().map(|w| quoted(w))),
            ));
        }
        if let Some(c) = &p.currency_column {
            keys.push(("currency_column", column(c)));
        }
        if let Some(c) = &p.currency {
            keys.push(("currency", quoted(c)));
        }
        keys.push(("description", list(p.description.iter().map(column))));
        if let Some(r) = &p.reference {
            keys.push(("reference", column(r)));
        }
        keys.push(("decimal_comma", p.decimal_comma.to_string()));
        for rule in &p.skip_rows_where {
            keys.push((
                "skip_rows_where",
                format!(
                    "{{ column = {}, matches = {} }}",
                    column(&rule.column),
                    quoted(&rule.matches)
                ),
            ));
        }
        let bare = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        let table = if bare { name.to_string() } else { quoted(name) };
        let mut o = String::new();
        let _ = writeln!(
            o,
            "# Guessed by `tieout bank-profile --guess` from the first {} lines of\n# {file}.\n# Check each key (see the README's \"Bank profiles\"), save the table in bank.toml in\n# the config folder, then read the file with --bank-profile {name}.",
            self.sample
        );
        let _ = writeln!(o, "[profiles.{table}]");
        for (key, value) in keys {
            if let Some((_, why)) = self.why.iter().find(|(k, _)| *k == key) {
                let _ = writeln!(o, "# {why}");
            }
            let _ = writeln!(o, "{key} = {value}");
        }
        let _ = writeln!(
            o,
            "# This profile reads {} lines from the whole file.",
            self.lines_read
        );
        o
    }
}
