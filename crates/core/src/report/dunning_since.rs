//! What changed since an earlier run, as the dunning exports show it: the "Since …"
//! section at the top of `failed-payments.md`, `failed-payments-changes.csv` (one line per
//! invoice and change, money in major units), the `changes` object of
//! `failed-payments.json` (minor units) and the one line of the channel post.

use serde_json::{Value, json};

use crate::domain::dunning::since::{Change, ChangeKind, Changes, Since, SinceOutcome};
use crate::money::{Currency, Money, Totals, format_major};
use crate::report::columns::{self, Column, Json, JsonRow};
use crate::time::iso_utc;

pub const CHANGES_CSV_NAME: &str = "failed-payments-changes.csv";

fn amount_cell(minor: Option<i64>, currency: &str) -> String {
    match (minor, Currency::parse(currency)) {
        (Some(m), Ok(c)) => format_major(m, c),
        (Some(m), Err(_)) => m.to_string(),
        (None, _) => String::new(),
    }
}

fn yes_no(b: Option<bool>) -> &'static str {
    match b {
        Some(true) => "yes",
        Some(false) => "no",
        None => "",
    }
}

fn json_bool(b: Option<bool>) -> Json<'static> {
    b.map_or(Json::Null, Json::Bool)
}

/// The columns of `failed-payments-changes.csv` and of the JSON `changes.rows`.
pub const CHANGE_COLUMNS: &[Column<Change>] = &[
    Column::both(
        "invoice_id",
        |c| c.invoice_id.as_str().into(),
        |c| Json::Str(&c.invoice_id),
    ),
    Column::both(
        "change",
        |c| c.kind.as_str().into(),
        |c| Json::Str(c.kind.as_str()),
    ),
    Column::both(
        "currency",
        |c| c.currency.as_str().into(),
        |c| Json::Str(&c.currency),
    ),
    Column::both(
        "amount_before",
        |c| amount_cell(c.amount_before, &c.currency).into(),
        |c| Json::opt_int(c.amount_before),
    ),
    Column::both(
        "amount_now",
        |c| amount_cell(c.amount_now, &c.currency).into(),
        |c| Json::opt_int(c.amount_now),
    ),
    Column::both(
        "action_before",
        |c| c.action_before.as_deref().unwrap_or("").into(),
        |c| Json::opt_str(c.action_before.as_deref()),
    ),
    Column::both(
        "action_now",
        |c| c.action_now.as_deref().unwrap_or("").into(),
        |c| Json::opt_str(c.action_now.as_deref()),
    ),
    Column::both(
        "retries_left_before",
        |c| yes_no(c.retries_left_before).into(),
        |c| json_bool(c.retries_left_before),
    ),
    Column::both(
        "retries_left_now",
        |c| yes_no(c.retries_left_now).into(),
        |c| json_bool(c.retries_left_now),
    ),
    Column::json("status_now", |c| Json::opt_str(c.status_now.as_deref())),
];

/// `failed-payments-changes.csv`: the header alone when there was nothing to compare with.
pub fn changes_csv(outcome: &SinceOutcome) -> Vec<u8> {
    let rows: &[Change] = match outcome {
        SinceOutcome::Compared(c) => &c.changes,
        SinceOutcome::NoEarlierRun { .. } => &[],
    };
    columns::csv(CHANGE_COLUMNS, rows)
}

/// Amounts per currency, largest first: `50.00 USD, 12.00 EUR`, or empty.
fn join(t: &Totals) -> String {
    t.by_size_desc()
        .iter()
        .map(Money::display)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The totals of one kind; a sum that overflows is said, not hidden.
fn totals_text(c: &Changes, kind: ChangeKind) -> String {
    match c.totals(kind) {
        Ok(t) => join(&t),
        Err(e) => format!("(cannot total: {e})"),
    }
}

/// What the comparison was with, in words.
pub fn since_heading(outcome: &SinceOutcome) -> String {
    match outcome {
        SinceOutcome::Compared(c) => format!("Since the run of {}", iso_utc(c.since)),
        SinceOutcome::NoEarlierRun { asked } => match asked {
            Since::Last => "Since the last run".to_string(),
            Since::Until(end) => format!("Since a run before {}", iso_utc(*end)),
        },
    }
}

/// Why there is nothing to compare with.
pub fn no_earlier_run(asked: &Since) -> String {
    match asked {
        Since::Last => "No earlier run of this account is recorded, so there is nothing to compare with yet; this run is recorded for the next one.".to_string(),
        Since::Until(end) => format!(
            "No run of this account before {} is kept (records are pruned after a number of days; see the README's \"Run history\"), so there is nothing to compare with.",
            iso_utc(*end)
        ),
    }
}

/// The "Since …" section that opens `failed-payments.md`.
pub fn markdown_section(outcome: &SinceOutcome) -> String {
    let mut o = format!("## {}\n\n", since_heading(outcome));
    let c = match outcome {
        SinceOutcome::Compared(c) => c,
        SinceOutcome::NoEarlierRun { asked } => {
            o.push_str(&no_earlier_run(asked));
            o.push_str("\n\n");
            return o;
        }
    };
    o.push_str("| Change | Invoices | Amount |\n|---|---:|---|\n");
    for kind in ChangeKind::ALL {
        o.push_str(&format!(
            "| {} | {} | {} |\n",
            upper_first(kind.label()),
            c.count(kind),
            totals_text(c, kind)
        ));
    }
    o.push('\n');
    o.push_str("Amounts are what was outstanding at the earlier run for invoices that left the list, and what is outstanding now otherwise. An invoice with two changes has two lines; `failed-payments-changes.csv` holds the same lines.\n\n");
    if c.changes.is_empty() {
        o.push_str("Nothing changed.\n\n");
        return o;
    }
    o.push_str("| Invoice | Change | Before | Now | Action before | Action now | Retries left before | Retries left now |\n");
    o.push_str("|---|---|---:|---:|---|---|---|---|\n");
    for ch in &c.changes {
        let kind = match &ch.status_now {
            Some(s) => format!("{} (status {s})", ch.kind.label()),
            None => ch.kind.label().to_string(),
        };
        o.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
            ch.invoice_id.replace('|', "\\|"),
            kind,
            money_text(ch.amount_before, &ch.currency),
            money_text(ch.amount_now, &ch.currency),
            ch.action_before.as_deref().unwrap_or(""),
            ch.action_now.as_deref().unwrap_or(""),
            yes_no(ch.retries_left_before),
            yes_no(ch.retries_left_now),
        ));
    }
    o.push('\n');
    o
}

fn money_text(minor: Option<i64>, currency: &str) -> String {
    match (minor, Currency::parse(currency)) {
        (Some(m), Ok(c)) => Money::new(m, c).display(),
        (Some(m), Err(_)) => format!("{m} {currency}"),
        (None, _) => String::new(),
    }
}

fn upper_first(s: &str) -> String {
    let mut cs = s.chars();
    match cs.next() {
        Some(f) => f.to_uppercase().chain(cs).collect(),
        None => String::new(),
    }
}

fn totals_json(c: &Changes, kind: ChangeKind) -> Value {
    match c.totals(kind) {
        Ok(t) => Value::Array(
            t.by_size_desc()
                .iter()
                .map(|m| json!({"currency": m.currency.as_str(), "amount": m.minor}))
                .collect(),
        ),
        Err(e) => json!({"error": e.to_string()}),
    }
}

/// The `changes` object of `failed-payments.json` (minor units).
pub fn json_value(outcome: &SinceOutcome) -> Value {
    let c = match outcome {
        SinceOutcome::Compared(c) => c,
        SinceOutcome::NoEarlierRun { asked } => {
            return json!({
                "compared": false,
                "since_utc": null,
                "message": no_earlier_run(asked),
                "counts": {},
                "totals": {},
                "rows": [],
            });
        }
    };
    let mut counts = serde_json::Map::new();
    let mut totals = serde_json::Map::new();
    for kind in ChangeKind::ALL {
        counts.insert(kind.as_str().to_string(), json!(c.count(kind)));
        totals.insert(kind.as_str().to_string(), totals_json(c, kind));
    }
    let rows: Vec<Value> = c
        .changes
        .iter()
        .map(|ch| serde_json::to_value(JsonRow::new(CHANGE_COLUMNS, ch)).unwrap_or(Value::Null))
        .collect();
    json!({
        "compared": true,
        "since_utc": iso_utc(c.since),
        "counts": counts,
        "totals": totals,
        "rows": rows,
    })
}

/// The short form for a side panel or a post: `1 new, 2 recovered (50.00 USD), …`; the
/// categories with no invoice are left out.
pub fn short_counts(c: &Changes) -> String {
    let mut parts = Vec::new();
    for kind in ChangeKind::ALL {
        let n = c.count(kind);
        if n == 0 {
            continue;
        }
        let word = match kind {
            ChangeKind::New => "new",
            ChangeKind::Recovered => "recovered",
            ChangeKind::WrittenOff => "written off",
            ChangeKind::Voided => "voided",
            ChangeKind::Left => "left otherwise",
            ChangeKind::NoRetryLeft => "newly without retry",
            ChangeKind::ActionChanged => "action changed",
            ChangeKind::AmountChanged => "amount changed",
        };
        if kind == ChangeKind::Recovered {
            parts.push(format!("{n} {word} ({})", totals_text(c, kind)));
        } else {
            parts.push(format!("{n} {word}"));
        }
    }
    if parts.is_empty() {
        "nothing changed".to_string()
    } else {
        parts.join(", ")
    }
}

/// The channel post's line about the changes.
pub fn summary_line(outcome: &SinceOutcome) -> String {
    match outcome {
        SinceOutcome::Compared(c) => {
            format!("Since {}: {}", iso_utc(c.since), short_counts(c))
        }
        SinceOutcome::NoEarlierRun { .. } => {
            "Since the last run: no earlier run recorded yet".to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(
        id: &str,
        kind: ChangeKind,
        cur: &str,
        before: Option<i64>,
        now: Option<i64>,
    ) -> Change {
        Change {
            invoice_id: id.into(),
            kind,
            currency: cur.into(),
            amount_before: before,
            amount_now: now,
            action_before: before.map(|_| "retry_later".to_string()),
            action_now: now.map(|_| "do_not_retry".to_string()),
            retries_left_before: before.map(|_| true),
            retries_left_now: now.map(|_| false),
            status_now: None,
        }
    }

    fn changes() -> SinceOutcome {
        SinceOutcome::Compared(Changes {
            since: 1_796_040_000,
            changes: vec![
                change("in_new", ChangeKind::New, "jpy", None, Some(1500)),
                change("in_paid", ChangeKind::Recovered, "usd", Some(5000), None),
                change("in_eur", ChangeKind::Recovered, "eur", Some(1234), None),
                change("in_x", ChangeKind::NoRetryLeft, "usd", Some(10), Some(10)),
            ],
        })
    }

    #[test]
    fn the_csv_has_its_columns_and_major_units() {
        let text = String::from_utf8(changes_csv(&changes())).expect("utf8");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "invoice_id,change,currency,amount_before,amount_now,action_before,action_now,retries_left_before,retries_left_now"
        );
        assert_eq!(lines[1], "in_new,new,jpy,,1500,,do_not_retry,,no");
        assert_eq!(lines[2], "in_paid,recovered,usd,50.00,,retry_later,,yes,");
        let empty = changes_csv(&SinceOutcome::NoEarlierRun { asked: Since::Last });
        assert_eq!(String::from_utf8(empty).expect("utf8").lines().count(), 1);
    }

    #[test]
    fn the_section_lists_every_category_and_the_json_carries_minor_units() {
        let md = markdown_section(&changes());
        assert!(
            md.starts_with("## Since the run of 2026-11-30T12:00:00Z\n"),
            "{md}"
        );
        assert!(
            md.contains("| Recovered (paid) | 2 | 50.00 USD, 12.34 EUR |"),
            "{md}"
        );
        assert!(md.contains("| Voided | 0 |  |"), "{md}");
        let j = json_value(&changes());
        assert_eq!(j["counts"]["recovered"], 2);
        assert_eq!(j["totals"]["recovered"][0]["amount"], 5000);
        assert_eq!(j["rows"][0]["amount_now"], 1500);
        assert_eq!(j["rows"][0]["amount_before"], Value::Null);
        assert_eq!(
            summary_line(&changes()),
            "Since 2026-11-30T12:00:00Z: 1 new, 2 recovered (50.00 USD, 12.34 EUR), 1 newly without retry"
        );
        let none = SinceOutcome::NoEarlierRun { asked: Since::Last };
        assert!(markdown_section(&none).contains("No earlier run"));
        assert_eq!(json_value(&none)["compared"], false);
    }
}
