//! Saved queries: the built-in ones (shipped inside the binary) and the user's own
//! `queries/*.sql` in the config folder. A saved query is plain SQL and runs through the
//! same checks as a typed one, so it cannot reach outside the snapshot.

use std::path::{Path, PathBuf};

/// Where a saved query comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Builtin,
    File(PathBuf),
}

/// A named query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    /// The file stem (`fees_by_category_month`): what `tieout query --saved` takes.
    pub name: String,
    /// The first comment line, without `--`.
    pub title: String,
    pub sql: String,
    pub origin: Origin,
}

const BUILTIN: &[(&str, &str)] = &[
    (
        "fees_by_category_month",
        include_str!("builtin/fees_by_category_month.sql"),
    ),
    ("refunds_by_day", include_str!("builtin/refunds_by_day.sql")),
    (
        "failed_payments_by_decline",
        include_str!("builtin/failed_payments_by_decline.sql"),
    ),
    (
        "disputes_by_reason",
        include_str!("builtin/disputes_by_reason.sql"),
    ),
    (
        "payouts_verdict",
        include_str!("builtin/payouts_verdict.sql"),
    ),
    ("not_paid_out", include_str!("builtin/not_paid_out.sql")),
    (
        "past_due_subscriptions",
        include_str!("builtin/past_due_subscriptions.sql"),
    ),
    (
        "worklist_by_currency",
        include_str!("builtin/worklist_by_currency.sql"),
    ),
    (
        "top_customers_by_net",
        include_str!("builtin/top_customers_by_net.sql"),
    ),
];

/// The leading comment's first phrase (up to a colon, a parenthesis or a full stop).
fn title_of(sql: &str) -> String {
    let comment: Vec<&str> = sql
        .lines()
        .map(str::trim)
        .skip_while(|l| l.is_empty())
        .map_while(|l| l.strip_prefix("--"))
        .map(str::trim)
        .collect();
    let text = comment.join(" ");
    let end = text.find([':', '(']).unwrap_or(text.len());
    let text = &text[..end];
    let text = text.split(". ").next().unwrap_or(text);
    text.trim().trim_end_matches('.').trim().to_string()
}

fn saved(name: &str, sql: String, origin: Origin) -> Saved {
    Saved {
        name: name.to_string(),
        title: title_of(&sql),
        sql,
        origin,
    }
}

/// The built-in queries, in their menu order.
pub fn builtin() -> Vec<Saved> {
    BUILTIN
        .iter()
        .map(|(name, sql)| saved(name, sql.to_string(), Origin::Builtin))
        .collect()
}

/// The `*.sql` files of `dir` (sorted by name; none when the folder does not exist), and
/// a sentence per file that could not be read.
pub fn from_dir(dir: &Path) -> (Vec<Saved>, Vec<String>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (out, problems);
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sql"))
        .collect();
    paths.sort();
    for p in paths {
        let name = p
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        match std::fs::read_to_string(&p) {
            Ok(sql) => out.push(saved(&name, sql, Origin::File(p))),
            Err(e) => problems.push(format!("{}: {e}", p.display())),
        }
    }
    (out, problems)
}

/// The built-in queries followed by those of `dir` (a user's query with a built-in's
/// name replaces it).
pub fn all(dir: Option<&Path>) -> (Vec<Saved>, Vec<String>) {
    let mut list = builtin();
    let (mine, problems) = dir.map(from_dir).unwrap_or_default();
    for q in mine {
        match list.iter_mut().find(|b| b.name == q.name) {
            Some(b) => *b = q,
            None => list.push(q),
        }
    }
    (list, problems)
}
