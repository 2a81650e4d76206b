//! The balance roll-forward's exports (issue 33): `balance-rollforward.csv`,
//! `balance-activity.csv`, `fees.csv`, `conversions.csv`, and `balance.md` /
//! `balance.json` holding all four with the way each figure was made. Amounts are the currency's minor units
//! written as major units; sums are i128 and written exactly.

use std::fmt::Write as _;

use serde::Serialize;

use crate::domain::balance::{
    ActivityRow, ConversionPair, ConversionRow, FeeRow, OpeningSource, Rollforward,
};
use crate::money::{Currency, format_major, format_major_i128 as major_i128};
use crate::report::fields::{self, Field, Get};
use crate::time::Month;

fn opt(v: Option<i128>, c: Currency) -> Option<String> {
    v.map(|v| major_i128(v, c))
}

/// `balance-rollforward.csv`'s row.
pub const ROLLFORWARD_FIELDS: &[Field<Rollforward>] = &[
    Field::new(
        "currency",
        "Currency",
        Get::Str(|r| Some(r.currency.as_str())),
    ),
    Field::new(
        "opening_balance",
        "Opening",
        Get::Text(|r| Some(major_i128(r.opening, r.currency))),
    ),
    Field::new(
        "activity",
        "Activity",
        Get::Text(|r| Some(major_i128(r.activity, r.currency))),
    ),
    Field::new(
        "payouts",
        "Payouts",
        Get::Text(|r| Some(major_i128(r.payouts, r.currency))),
    ),
    Field::new(
        "closing_balance",
        "Closing",
        Get::Text(|r| Some(major_i128(r.closing, r.currency))),
    ),
    Field::new(
        "closing_available",
        "Available",
        Get::Text(|r| Some(major_i128(r.closing_available, r.currency))),
    ),
    Field::new(
        "closing_pending",
        "Pending",
        Get::Text(|r| Some(major_i128(r.closing_pending, r.currency))),
    ),
    Field::new(
        "stripe_balance",
        "Stripe balance",
        Get::Text(|r| opt(r.stripe_balance, r.currency)),
    ),
    Field::new(
        "difference",
        "Difference",
        Get::Text(|r| opt(r.difference, r.currency)),
    ),
    Field::new(
        "opening_source",
        "Opening made by",
        Get::Str(|r| Some(opening_how(r.opening_source))),
    ),
    Field::new(
        "opening_difference",
        "Opening difference",
        Get::Text(|r| opt(r.opening_difference, r.currency)),
    ),
];

/// How an opening was made, as the files say it.
pub fn opening_how(s: OpeningSource) -> &'static str {
    match s {
        OpeningSource::Summed => "summed",
        OpeningSource::Derived => "derived_from_stripe_balance",
        OpeningSource::Both => "summed_and_derived",
    }
}

/// `balance-activity.csv`'s row.
pub const ACTIVITY_FIELDS: &[Field<ActivityRow>] = &[
    Field::new(
        "currency",
        "Currency",
        Get::Str(|r| Some(r.currency.as_str())),
    ),
    Field::new(
        "reporting_category",
        "Category",
        Get::Str(|r| Some(r.reporting_category.as_str())),
    ),
    Field::new("count", "Count", Get::Int(|r| i64::try_from(r.count).ok())),
    Field::new(
        "gross",
        "Gross",
        Get::Text(|r| Some(major_i128(r.gross, r.currency))),
    ),
    Field::new(
        "fee",
        "Fee",
        Get::Text(|r| Some(major_i128(r.fee, r.currency))),
    ),
    Field::new(
        "net",
        "Net",
        Get::Text(|r| Some(major_i128(r.net, r.currency))),
    ),
];

/// `fees.csv`'s row.
pub const FEE_FIELDS: &[Field<FeeRow>] = &[
    Field::new(
        "currency",
        "Currency",
        Get::Str(|r| Some(r.currency.as_str())),
    ),
    Field::new("source", "Source", Get::Str(|r| Some(r.source.as_str()))),
    Field::new(
        "fee_type",
        "Fee type",
        Get::Str(|r| Some(r.fee_type.as_str())),
    ),
    Field::new("count", "Count", Get::Int(|r| i64::try_from(r.count).ok())),
    Field::new(
        "amount",
        "Amount",
        Get::Text(|r| Some(major_i128(r.amount, r.currency))),
    ),
];

/// `conversions.csv`'s row.
pub const CONVERSION_FIELDS: &[Field<ConversionRow>] = &[
    Field::new(
        "balance_transaction_id",
        "Balance transaction",
        Get::Str(|r| Some(r.balance_transaction_id.as_str())),
    ),
    Field::new("created_utc", "Created", Get::Time(|r| Some(r.created))),
    Field::new(
        "presentment_amount",
        "Presented",
        Get::Text(|r| {
            r.presentment_amount
                .zip(r.presentment_currency)
                .map(|(a, c)| format_major(a, c))
        }),
    ),
    Field::new(
        "presentment_currency",
        "Presented in",
        Get::Str(|r| r.presentment_currency.as_ref().map(Currency::as_str)),
    ),
    Field::new(
        "settled_amount",
        "Settled",
        Get::Text(|r| Some(format_major(r.settled_amount, r.settled_currency))),
    ),
    Field::new(
        "settled_currency",
        "Settled in",
        Get::Str(|r| Some(r.settled_currency.as_str())),
    ),
    Field::new(
        "exchange_rate",
        "Exchange rate",
        Get::Text(|r| Some(r.exchange_rate.to_string())),
    ),
];

/// The Markdown's sum per currency pair.
const PAIR_FIELDS: &[Field<ConversionPair>] = &[
    Field::new(
        "presentment_currency",
        "Presented in",
        Get::Str(|r| {
            Some(
                r.presentment_currency
                    .as_ref()
                    .map_or("unknown (source not read)", Currency::as_str),
            )
        }),
    ),
    Field::new(
        "settled_currency",
        "Settled in",
        Get::Str(|r| Some(r.settled_currency.as_str())),
    ),
    Field::new("count", "Count", Get::Int(|r| i64::try_from(r.count).ok())),
    Field::new(
        "presentment_amount",
        "Presented",
        Get::Text(|r| {
            r.presentment_currency
                .map(|c| major_i128(r.presentment_amount, c))
        }),
    ),
    Field::new(
        "settled_amount",
        "Settled",
        Get::Text(|r| Some(major_i128(r.settled_amount, r.settled_currency))),
    ),
];

/// The month's balance figures, as the exports take them.
#[derive(Debug, Clone, Serialize)]
pub struct BalanceReport {
    #[serde(serialize_with = "month_text")]
    pub month: Month,
    pub rollforward: Vec<Rollforward>,
    pub activity: Vec<ActivityRow>,
    pub fees: Vec<FeeRow>,
    /// The month's lines with an exchange rate.
    pub conversions: Vec<ConversionRow>,
    /// The conversions summed per currency pair.
    pub conversion_pairs: Vec<ConversionPair>,
    /// Whether the snapshot holds every line the month's figures need: from the account's
    /// first line, or every line since the month's start (`meta.lines_cover`).
    pub complete: bool,
    /// When Stripe's balance (`GET /v1/balance`) was read, if it was (unix seconds).
    pub balance_read_at: Option<i64>,
}

/// `tieout balance`'s files, also in the close packet.
pub const ROLLFORWARD_CSV: &str = "balance-rollforward.csv";
pub const ACTIVITY_CSV: &str = "balance-activity.csv";
pub const FEES_CSV: &str = "fees.csv";
pub const CONVERSIONS_CSV: &str = "conversions.csv";
pub const MD_NAME: &str = "balance.md";
pub const JSON_NAME: &str = "balance.json";

/// The month's balance figures on `data`: the opening summed when the lines reach back
/// to the account's first line (`meta.lines_complete`) and derived back from Stripe's
/// balance when it was read (both when both); the month that holds the instant the
/// balance was read is compared with it.
pub fn build(
    data: &crate::model::AccountData,
    month: Month,
    tz: &jiff::tz::TimeZone,
) -> BalanceReport {
    use crate::domain::balance::{
        activity, conversion_pairs, conversions, fee_statement, roll_forward,
    };
    let lines = &data.balance_transactions;
    let from = month.range(tz).0;
    let conversions = conversions(lines, &data.charges, &data.refunds, month, tz);
    BalanceReport {
        month,
        rollforward: roll_forward(
            lines,
            month,
            tz,
            data.meta.lines_complete,
            data.meta.balance_for(from),
        ),
        activity: activity(lines, month, tz),
        fees: fee_statement(lines, month, tz),
        conversion_pairs: conversion_pairs(&conversions),
        conversions,
        complete: data.meta.lines_cover(from),
        balance_read_at: data.meta.balance.as_ref().map(|b| b.read_at),
    }
}

/// The chosen files' names and bytes.
pub fn files(r: &BalanceReport, formats: crate::report::Formats) -> Vec<(&'static str, Vec<u8>)> {
    let mut files: Vec<(&str, Vec<u8>)> = Vec::new();
    if formats.md {
        files.push((MD_NAME, markdown(r).into_bytes()));
    }
    if formats.csv {
        files.push((ROLLFORWARD_CSV, rollforward_csv(r)));
        files.push((ACTIVITY_CSV, activity_csv(r)));
        files.push((FEES_CSV, fees_csv(r)));
        files.push((CONVERSIONS_CSV, conversions_csv(r)));
    }
    if formats.json {
        files.push((JSON_NAME, json(r)));
    }
    files
}

/// One line per currency: `USD: 100.00 opening + 50.00 activity + -40.00 payouts = 110.00
/// closing (0.00 pending)`, with Stripe's balance and the difference where compared.
pub fn summary(r: &BalanceReport) -> Vec<String> {
    let mut out = vec![format!("Stripe balance roll-forward, {}:", r.month)];
    if r.rollforward.is_empty() {
        out.push("no balance transaction in or before this month".to_string());
    }
    for f in &r.rollforward {
        let c = f.currency;
        let mut line = format!(
            "{}: {} opening + {} activity + {} payouts = {} closing ({} pending)",
            c.upper(),
            major_i128(f.opening, c),
            major_i128(f.activity, c),
            major_i128(f.payouts, c),
            major_i128(f.closing, c),
            major_i128(f.closing_pending, c),
        );
        if let (Some(sb), Some(d)) = (f.stripe_balance, f.difference) {
            let _ = write!(
                line,
                "; Stripe's balance {}, difference {}",
                major_i128(sb, c),
                major_i128(d, c)
            );
        }
        if let Some(d) = f.opening_difference {
            let _ = write!(
                line,
                "; opening summed and derived differ by {}",
                major_i128(d, c)
            );
        }
        out.push(line);
    }
    out
}

/// The close packet's summary line: `balance: usd 132.01 closing, ...; ties` (or what
/// does not tie).
pub fn packet_line(r: &BalanceReport) -> String {
    let closings: Vec<String> = r
        .rollforward
        .iter()
        .map(|f| {
            format!(
                "{} {} closing",
                f.currency.as_str(),
                major_i128(f.closing, f.currency)
            )
        })
        .collect();
    format!(
        "balance: {}; {}",
        if closings.is_empty() {
            "no balance transaction".to_string()
        } else {
            closings.join(", ")
        },
        if r.ties() {
            "ties"
        } else {
            "does not tie (see balance.md)"
        }
    )
}

impl BalanceReport {
    /// True when every currency ties.
    pub fn ties(&self) -> bool {
        self.rollforward.iter().all(Rollforward::ties)
    }
}

fn month_text<S: serde::Serializer>(m: &Month, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(m)
}

pub fn rollforward_csv(r: &BalanceReport) -> Vec<u8> {
    fields::csv(ROLLFORWARD_FIELDS, &r.rollforward)
}

pub fn activity_csv(r: &BalanceReport) -> Vec<u8> {
    fields::csv(ACTIVITY_FIELDS, &r.activity)
}

pub fn fees_csv(r: &BalanceReport) -> Vec<u8> {
    fields::csv(FEE_FIELDS, &r.fees)
}

pub fn conversions_csv(r: &BalanceReport) -> Vec<u8> {
    fields::csv(CONVERSION_FIELDS, &r.conversions)
}

/// `balance.json`: the report with every figure in minor units.
pub fn json(r: &BalanceReport) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(r).unwrap_or_default();
    out.push(b'\n');
    out
}

const HOW: &str = "How each figure is made: opening = net of every line created before the \
month's first instant (summed), or Stripe's balance now minus the net of every line created \
since the month's start (derived); payouts = net of the month's payout and payout_reversal \
lines; activity = net of the month's other lines; closing = opening + activity + payouts; \
pending = net of lines created by the month's end (or now, for the current month) that are \
available after it; available = closing - pending. Stripe's balance is available + pending \
from GET /v1/balance, for the current month only. A conversion is a line with Stripe's \
exchange_rate (settled currency per presented major unit, exact); what was presented is \
the line's charge or refund.";

/// `balance.md`.
pub fn markdown(r: &BalanceReport) -> String {
    let all: Vec<&str> = ROLLFORWARD_FIELDS.iter().map(|f| f.name).collect();
    let mut md = format!("# Stripe balance roll-forward, {}\n\n", r.month);
    if !r.complete {
        md.push_str(
            "Lines incomplete: the snapshot holds the payouts' lines, not every line since the \
month's start (lines not yet paid out are missing; a cache written before tieout listed \
them). The opening counts only what was read and is not derived from Stripe's balance: run \
tieout sync, or tieout balance, which lists every line.\n\n",
        );
    }
    md.push_str(&match r.balance_read_at {
        Some(t) => format!(
            "Stripe's balance (GET /v1/balance) was read at {}; the month that holds that \
instant is compared with it.\n\n",
            crate::time::iso_utc(t)
        ),
        None => {
            "Stripe's balance (GET /v1/balance) was not read: no month is compared with it.\n\n"
                .to_string()
        }
    });
    md.push_str(&fields::markdown_table(
        ROLLFORWARD_FIELDS,
        &all,
        &r.rollforward,
    ));
    let _ = write!(
        md,
        "\n{}\n\n## Balance change from activity\n\n",
        if r.ties() {
            "Every currency ties."
        } else {
            "A figure does not tie: see Difference and Opening difference."
        }
    );
    let all: Vec<&str> = ACTIVITY_FIELDS.iter().map(|f| f.name).collect();
    md.push_str(&fields::markdown_table(ACTIVITY_FIELDS, &all, &r.activity));
    md.push_str("\n## Fees\n\n");
    let all: Vec<&str> = FEE_FIELDS.iter().map(|f| f.name).collect();
    md.push_str(&fields::markdown_table(FEE_FIELDS, &all, &r.fees));
    for (c, t) in crate::domain::balance::fee_totals(&r.fees) {
        let _ = writeln!(md, "\nTotal fees {}: {}", c.upper(), major_i128(t, c));
    }
    md.push_str("\n## Conversions\n\n");
    if r.conversions.is_empty() {
        md.push_str("No line of the month was converted.\n");
    } else {
        let _ = writeln!(
            md,
            "{} lines were settled in another currency than the one the customer paid in \
(conversions.csv lists them); per currency pair:\n",
            r.conversions.len()
        );
        let all: Vec<&str> = PAIR_FIELDS.iter().map(|f| f.name).collect();
        md.push_str(&fields::markdown_table(
            PAIR_FIELDS,
            &all,
            &r.conversion_pairs,
        ));
    }
    let _ = write!(md, "\n{HOW}\n");
    md
}
