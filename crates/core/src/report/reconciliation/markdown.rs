//! `reconciliation.md`: the month's tie-out for a bookkeeper to read. Where the figures
//! came from, the period, the totals per currency, then one section per payout with its
//! amount, its lines' net, a difference line only where they disagree, its subtotals by
//! category and notes.

use std::fmt::Write as _;

use super::ReportHeader;
use crate::domain::tieout::{
    Counts, EMPTY_MONTH, MonthTieOut, PayoutKind, PayoutTieOut, category, status_label,
};
use crate::model::Origin;
use crate::money::{Currency, format_major};
use crate::time::{date_in, iso_utc};

/// Escapes text that came from outside (names, messages) so it cannot break the layout;
/// a control character other than tab is made visible ([`crate::controls`]).
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '\r' | '\n' => out.push(' '),
            '\\' | '`' | '*' | '[' | ']' | '<' | '>' | '|' | '#' => {
                out.push('\\');
                out.push(ch);
            }
            _ => crate::controls::push(&mut out, ch),
        }
    }
    out
}

fn m(minor: i64, currency: Currency) -> String {
    format!("{} {currency}", format_major(minor, currency))
}

fn counts_sentence(c: &Counts) -> String {
    let plural = |n: usize, one: &str, many: &str| {
        if n == 1 {
            format!("{n} {one}")
        } else {
            format!("{n} {many}")
        }
    };
    let mut parts = vec![format!("{} tied out", c.tied)];
    parts.push(if c.differences == 0 {
        "no differences".to_string()
    } else {
        plural(c.differences, "with a difference", "with differences")
    });
    parts.push(format!("{} not itemisable", c.not_itemisable));
    parts.push(format!("{} in progress", c.in_progress));
    parts.push(format!("{} failed or canceled", c.failed_or_canceled));
    // Rare (Stripe reverses only some Connect payouts): named only when there is one.
    if c.reversed > 0 {
        parts.push(format!("{} reversed", c.reversed));
    }
    format!(
        "{}: {}",
        plural(c.payouts, "payout", "payouts"),
        parts.join(", ")
    )
}

/// The Markdown text.
pub fn markdown(t: &MonthTieOut, h: &ReportHeader) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# Payout reconciliation: {}\n", t.month.title());
    let account = match &h.account_name {
        Some(name) if !name.trim().is_empty() => format!("{} ({})", esc(name), esc(&h.account_id)),
        _ => esc(&h.account_id),
    };
    let _ = writeln!(o, "- **Account:** {account}, {} mode", h.mode.as_str());
    let data = match h.origin {
        Origin::Demo => format!(
            "the bundled demo account (generated for {})",
            iso_utc(h.read_at)
        ),
        Origin::Live => format!("read from Stripe at {}", iso_utc(h.read_at)),
        Origin::Cache => format!(
            "the local cache, last read from Stripe at {}",
            iso_utc(h.read_at)
        ),
    };
    let _ = writeln!(o, "- **Data:** {data}");
    let tz = crate::time::parse_tz(&h.time_zone).unwrap_or(jiff::tz::TimeZone::UTC);
    let _ = writeln!(
        o,
        "- **Period:** payouts arriving from {} to {} inclusive (time zone {}; from {} up to, not including, {})",
        date_in(t.start, &tz),
        date_in(t.end - 1, &tz),
        esc(&h.time_zone),
        iso_utc(t.start),
        iso_utc(t.end),
    );
    if let Some(note) = unfinished_month_note(t, h) {
        let _ = writeln!(o, "- **Note:** {note}");
    }
    if t.is_empty() {
        let _ = writeln!(o, "\n{EMPTY_MONTH}");
        return o;
    }
    let _ = writeln!(o, "- **Result:** {}", counts_sentence(&t.counts));
    let _ = writeln!(
        o,
        "\nAmounts are in major units of each payout's currency; totals are per currency and never converted. \
A payout ties out when the net of the balance transactions it paid out equals its amount \
(each line's net is its gross minus its fee). The payout's own `payout` transaction is not a line."
    );

    totals(&mut o, t);

    let _ = writeln!(o, "\n## Payouts");
    for p in &t.payouts {
        payout_section(&mut o, p, &tz);
    }
    o
}

/// When the data was read before the month ended, the report cannot be the month's
/// final word: a payout arriving later in the month is not in it. Says so, so a month
/// "closed" on its last morning (or a future month's empty report) is not taken as final.
fn unfinished_month_note(t: &MonthTieOut, h: &ReportHeader) -> Option<String> {
    if h.read_at >= t.end {
        return None;
    }
    let when = iso_utc(h.read_at);
    Some(if h.read_at < t.start {
        format!(
            "this month had not begun when the data was read ({when}); no payout can have arrived in it yet."
        )
    } else {
        format!(
            "this month was not over when the data was read ({when}); payouts arriving after that are not in this report. Run it again once the month is over."
        )
    })
}

fn totals(o: &mut String, t: &MonthTieOut) {
    let _ = writeln!(o, "\n## Totals by currency\n");
    // The "Reversed" column only in a month with a reversed payout, so the counts add up
    // there and other months read as before.
    let reversed = t.counts.reversed > 0;
    let _ = writeln!(
        o,
        "| Currency | Payouts | Tied out | Difference | Not itemisable | In progress | Failed or canceled |{}",
        if reversed { " Reversed |" } else { "" }
    );
    let _ = writeln!(
        o,
        "|---|---:|---:|---:|---:|---:|---:|{}",
        if reversed { "---:|" } else { "" }
    );
    for c in &t.totals {
        let n = &c.counts;
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} | {} | {} |{}",
            c.currency,
            n.payouts,
            n.tied,
            n.differences,
            n.not_itemisable,
            n.in_progress,
            n.failed_or_canceled,
            if reversed {
                format!(" {} |", n.reversed)
            } else {
                String::new()
            }
        );
    }
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "| Currency | All payouts | Itemised payouts | Lines' net | Difference | Gross | Fees | Refunds | Disputes | Failed or canceled |"
    );
    let _ = writeln!(o, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for c in &t.totals {
        let f = |v: i64| format_major(v, c.currency);
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            c.currency,
            f(c.payouts_amount),
            f(c.itemised_amount),
            f(c.lines_net),
            f(c.difference),
            f(c.gross),
            f(c.fee),
            f(c.refunds),
            f(c.disputes),
            f(c.failed_or_canceled_amount),
        );
    }
    let _ = writeln!(
        o,
        "\n\"Itemised payouts\" are the automatic payouts Stripe finished reconciling; \"Lines' net\" and \"Difference\" cover only those. Refunds and disputes are the net of those categories' lines (negative: money out)."
    );
    if t.totals.iter().any(|c| c.failed_or_canceled_amount != 0) {
        let _ = writeln!(o, "\n{FAILED_IN_ALL_PAYOUTS}");
    }
    if reversed {
        let _ = writeln!(o, "\n{REVERSED_IN_ALL_PAYOUTS}");
    }
}

/// Said under the totals when a payout failed or was canceled: "All payouts" counts it,
/// but its money never reached the bank, so the bank's deposits are the difference.
pub(super) const FAILED_IN_ALL_PAYOUTS: &str = "\"All payouts\" includes the failed or canceled ones (last column): their funds went back to the Stripe balance, not to the bank, and a later payout may pay them out again, so what was sent to the bank is \"All payouts\" minus \"Failed or canceled\".";

/// Said under the totals when a payout was reversed: its money did reach the bank, and
/// the reversing payout (a negative amount) took it back.
pub(super) const REVERSED_IN_ALL_PAYOUTS: &str = "A reversed payout reached the bank and was then debited back by the payout that reverses it (a negative amount, named in its note); \"All payouts\" counts both when both arrive in the month.";

fn payout_section(o: &mut String, p: &PayoutTieOut, tz: &jiff::tz::TimeZone) {
    let cur = p.currency();
    let _ = writeln!(
        o,
        "\n### {} · {} · {}\n",
        date_in(p.payout.arrival_date, tz),
        esc(&p.payout.id),
        p.verdict.label()
    );
    let kind = match p.kind {
        PayoutKind::Automatic => format!("automatic payout ({})", esc(&p.payout.method)),
        PayoutKind::Manual => "manual payout".to_string(),
        PayoutKind::Instant => "instant payout".to_string(),
    };
    let mut status = status_label(&p.payout.status);
    if let Some(by) = &p.payout.reversed_by {
        status.push_str(&format!(", reversed by {by}"));
    }
    if let Some(original) = &p.payout.original_payout {
        status.push_str(&format!(", the reversal of {original}"));
    }
    let _ = writeln!(
        o,
        "- Status: {}, {kind}, arriving {}",
        esc(&status),
        iso_utc(p.payout.arrival_date)
    );
    let _ = writeln!(o, "- Payout amount: {}", m(p.payout.amount, cur));
    if let Some(bank) = bank_reference(p) {
        let _ = writeln!(o, "- On the bank statement: {}", esc(&bank));
    }
    match &p.itemisation {
        Some(it) => {
            let _ = writeln!(
                o,
                "- Lines' net: {} ({} balance {})",
                m(it.lines_net, cur),
                it.lines.len(),
                if it.lines.len() == 1 {
                    "transaction"
                } else {
                    "transactions"
                }
            );
            if it.difference != 0 {
                let _ = writeln!(
                    o,
                    "- **Difference: {}** (lines' net minus payout amount)",
                    m(it.difference, cur)
                );
            }
        }
        None => {
            let _ = writeln!(o, "- Lines' net: not itemised");
        }
    }
    if !p.notes.is_empty() {
        let _ = writeln!(o, "- Note: {}", esc(&p.note()));
    }
    let Some(it) = &p.itemisation else { return };
    if it.by_category.is_empty() {
        return;
    }
    let _ = writeln!(o, "\n| Category | Lines | Gross | Fees | Net |");
    let _ = writeln!(o, "|---|---:|---:|---:|---:|");
    for c in &it.by_category {
        let name = match category::describe(&c.reporting_category) {
            Some(d) => format!("{} — {d}", esc(&c.reporting_category)),
            None => esc(&c.reporting_category),
        };
        let _ = writeln!(
            o,
            "| {name} | {} | {} | {} | {} |",
            c.count,
            format_major(c.gross, cur),
            format_major(c.fee, cur),
            format_major(c.net, cur),
        );
    }
    let count: usize = it.by_category.iter().map(|c| c.count).sum();
    let _ = writeln!(
        o,
        "| **Total** | {count} | {} | {} | **{}** |",
        format_major(it.lines_gross, cur),
        format_major(it.lines_fee, cur),
        format_major(it.lines_net, cur),
    );
}

/// What the bank statement should show for the payout: its trace id (or why there is
/// none yet) and its statement descriptor; `None` when Stripe gave neither.
fn bank_reference(p: &PayoutTieOut) -> Option<String> {
    use crate::model::status::TraceIdStatus as T;
    let mut parts = Vec::new();
    match (&p.payout.trace_id, &p.payout.trace_id_status) {
        (Some(v), Some(s)) => parts.push(format!("trace id {v} ({s})")),
        (Some(v), None) => parts.push(format!("trace id {v}")),
        (None, Some(T::Pending)) => {
            parts.push("trace id pending (Stripe fills it up to ten days after paid)".into())
        }
        (None, Some(T::Unsupported)) => parts.push("no trace id (the bank gives none)".into()),
        (None, Some(s)) => parts.push(format!("no trace id ({s})")),
        (None, None) => {}
    }
    if let Some(d) = &p.payout.statement_descriptor {
        parts.push(format!("statement descriptor \"{d}\""));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

#[cfg(test)]
mod esc_tests {
    use super::esc;

    /// Issue 40: NUL, ESC and BEL passed raw into `reconciliation.md`.
    #[test]
    fn control_characters_are_made_visible_and_line_breaks_flattened() {
        assert_eq!(
            esc("Demo\0 *Ltd*\u{1b}[2J\u{7}\r\n\u{7f}"),
            "Demo\\u{00} \\*Ltd\\*\\u{1B}\\[2J\\u{07}  \\u{7F}"
        );
    }
}
