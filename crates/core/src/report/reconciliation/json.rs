//! `reconciliation.json`: the same content as the CSV and the Markdown as one document,
//! money in integer minor units. Per payout: `id, status, automatic, arrival_date_utc,
//! currency, amount, lines_net, difference, itemised, note, by_category` (README.md, "Exports"), plus
//! the verdict, the lines and the month's counts and totals. `reversed_by`,
//! `original_payout`, `trace_id`, `trace_id_status` and `statement_descriptor` appear on a
//! payout only when Stripe set them.

use serde::Serialize;

use super::ReportHeader;
use super::csv::{PaidLine, columns};
use crate::domain::tieout::{CategorySubtotal, Counts, CurrencyTotals, EMPTY_MONTH, MonthTieOut};
use crate::money::Currency;
use crate::report::columns::JsonRow;
use crate::time::iso_utc;

#[derive(Serialize)]
struct Doc<'a, 'c> {
    report: &'static str,
    month: String,
    time_zone: &'a str,
    period_start_utc: String,
    period_end_utc: String,
    account: Account<'a>,
    origin: &'static str,
    read_at_utc: String,
    counts: Counts,
    totals: &'a [CurrencyTotals],
    /// "No payouts arrived in this month." for an empty month, else null.
    empty: Option<&'static str>,
    payouts: Vec<Payout<'a, 'c>>,
}

#[derive(Serialize)]
struct Account<'a> {
    id: &'a str,
    name: Option<&'a str>,
    mode: &'static str,
}

#[derive(Serialize)]
struct Payout<'a, 'c> {
    id: &'a str,
    status: &'a str,
    /// The payout that reverses this one; present only when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    reversed_by: Option<&'a str>,
    /// The payout this one reverses; present only when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    original_payout: Option<&'a str>,
    automatic: bool,
    method: &'a str,
    /// `trace_id.value`, the bank's reference for the deposit; present only when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    trace_id: Option<&'a str>,
    /// `trace_id.status`; present only when Stripe sent a `trace_id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    trace_id_status: Option<&'a str>,
    /// The text the bank statement shows; present only when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    statement_descriptor: Option<&'a str>,
    reconciliation_status: &'a str,
    arrival_date_utc: String,
    currency: Currency,
    amount: i64,
    lines_net: Option<i64>,
    difference: Option<i64>,
    itemised: bool,
    result: &'static str,
    note: String,
    by_category: &'a [CategorySubtotal],
    /// The lines, in the CSV's columns (but `payout_id`), minor units.
    lines: Vec<JsonRow<'c, PaidLine<'a>, PaidLine<'a>>>,
}

/// The JSON bytes (pretty, trailing newline).
pub fn json(t: &MonthTieOut, h: &ReportHeader) -> Vec<u8> {
    let columns = columns();
    let payouts = t
        .payouts
        .iter()
        .map(|p| Payout {
            id: &p.payout.id,
            status: p.payout.status.as_str(),
            reversed_by: p.payout.reversed_by.as_deref(),
            original_payout: p.payout.original_payout.as_deref(),
            automatic: p.payout.automatic,
            method: &p.payout.method,
            trace_id: p.payout.trace_id.as_deref(),
            trace_id_status: p.payout.trace_id_status.as_ref().map(|s| s.as_str()),
            statement_descriptor: p.payout.statement_descriptor.as_deref(),
            reconciliation_status: p.payout.reconciliation_status.as_str(),
            arrival_date_utc: iso_utc(p.payout.arrival_date),
            currency: p.currency(),
            amount: p.payout.amount,
            lines_net: p.lines_net(),
            difference: p.difference(),
            itemised: p.itemisation.is_some(),
            result: p.verdict.as_str(),
            note: p.note(),
            by_category: p
                .itemisation
                .as_ref()
                .map(|i| i.by_category.as_slice())
                .unwrap_or(&[]),
            lines: p
                .itemisation
                .iter()
                .flat_map(|i| i.lines.iter())
                .map(|line| {
                    let paid = PaidLine {
                        payout_id: &p.payout.id,
                        line,
                    };
                    JsonRow::new(&columns, paid)
                })
                .collect(),
        })
        .collect();
    let doc = Doc {
        report: "payout_reconciliation",
        month: t.month.to_string(),
        time_zone: &h.time_zone,
        period_start_utc: iso_utc(t.start),
        period_end_utc: iso_utc(t.end),
        account: Account {
            id: &h.account_id,
            name: h.account_name.as_deref(),
            mode: h.mode.as_str(),
        },
        origin: h.origin.as_str(),
        read_at_utc: iso_utc(h.read_at),
        counts: t.counts,
        totals: &t.totals,
        empty: t.is_empty().then_some(EMPTY_MONTH),
        payouts,
    };
    let mut bytes = serde_json::to_vec_pretty(&doc).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}
