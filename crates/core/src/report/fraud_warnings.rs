//! The early fraud warnings queue's exports (README.md, "Exports"): `fraud-warnings.csv`
//! with exactly the columns
//! `warning_id,charge_id,customer_id,created_utc,fraud_type,actionable,amount,currency,refunded_amount,recommendation,rule,reason,evidence_urls`
//! (amounts in major units with the currency's exponent, `actionable` yes or no, empty
//! cells where the charge is not in the data) and `fraud-warnings.md`: per currency what
//! is at stake, then each warning with what each choice costs.

use crate::domain::fraud_warnings::{Queue, QueuedWarning, Recommendation};
use crate::domain::refunds::FraudPolicy;
use crate::model::dashboard::DashboardLinks;
use crate::model::{MethodsRead, Resource, SnapshotMeta};
use crate::money::{Currency, format_major};
use crate::report::csv_out::CsvDoc;
use crate::report::fields::markdown_cell;
use crate::time::iso_utc;

pub const CSV_FILE: &str = "fraud-warnings.csv";
pub const MD_FILE: &str = "fraud-warnings.md";

/// The CSV header, in the contract's order.
pub const CSV_COLUMNS: [&str; 13] = [
    "warning_id",
    "charge_id",
    "customer_id",
    "created_utc",
    "fraud_type",
    "actionable",
    "amount",
    "currency",
    "refunded_amount",
    "recommendation",
    "rule",
    "reason",
    "evidence_urls",
];

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

fn money(minor: i64, c: Currency) -> String {
    format!("{} {}", format_major(minor, c), c.upper())
}

/// `fraud-warnings.csv`.
pub fn csv(q: &Queue, links: &DashboardLinks) -> Vec<u8> {
    let mut doc = CsvDoc::new(&CSV_COLUMNS);
    for r in &q.rows {
        let major = |minor: i64| {
            r.currency
                .map(|c| format_major(minor, c))
                .unwrap_or_default()
        };
        doc.row([
            r.warning_id.clone(),
            r.charge_id.clone().unwrap_or_default(),
            r.customer_id.clone().unwrap_or_default(),
            iso_utc(r.created),
            r.fraud_type.as_str().to_string(),
            yes_no(r.actionable).to_string(),
            major(r.amount),
            r.currency
                .map(|c| c.as_str().to_string())
                .unwrap_or_default(),
            major(r.refunded_amount),
            r.recommendation.as_str().to_string(),
            r.rule.clone(),
            r.reason.clone(),
            links.urls(&r.evidence).join(" "),
        ]);
    }
    doc.into_bytes()
}

/// What refunding now costs, in words: `180.00 USD + fee 5.52 USD`.
pub fn refund_cost_text(r: &QueuedWarning) -> String {
    let Some(c) = r.currency else {
        return "unknown (charge not read)".to_string();
    };
    let fee = r.fee.map_or_else(
        || "fee unknown".to_string(),
        |f| format!("fee {}", money(f, c)),
    );
    format!("{} + {fee}", money(r.at_stake, c))
}

/// What waiting costs, in words: `180.00 USD + fee 5.52 USD + dispute fee 15.00 USD + 1 dispute`.
pub fn wait_cost_text(r: &QueuedWarning) -> String {
    let Some(c) = r.currency else {
        return "unknown (charge not read) + 1 dispute".to_string();
    };
    let dispute_fee = r.dispute_fee.map_or_else(
        || "dispute fee not in the policy".to_string(),
        |f| format!("dispute fee {}", money(f, c)),
    );
    format!("{} + {dispute_fee} + 1 dispute", refund_cost_text(r))
}

/// What the snapshot says of the warnings read, when they were not (or not all) read.
pub fn read_note(meta: &SnapshotMeta) -> Option<String> {
    let r = Resource::FraudWarnings;
    match &meta.fraud_warnings {
        MethodsRead::Read => None,
        MethodsRead::NotRead => Some(format!(
            "Early fraud warnings were not read (a cache saved before tieout read them): run `tieout sync`, or drop --cached. Stripe needs {} (Dashboard row \"{}\").",
            r.permission(),
            r.dashboard_row()
        )),
        MethodsRead::Refused { permission } => Some(format!(
            "This key may not read early fraud warnings: add Read on \"{}\" ({permission}) to the restricted key.",
            r.dashboard_row()
        )),
    }
}

/// `fraud-warnings.md`.
pub fn markdown(q: &Queue, meta: &SnapshotMeta, policy: &FraudPolicy, now: i64) -> String {
    let mut o = String::from("# Early fraud warnings\n\n");
    o.push_str(&format!(
        "Account {} ({}), data as of {}, ages counted to {}.\n\n",
        markdown_cell(&meta.account_id),
        meta.mode.as_str(),
        iso_utc(meta.fetched_at),
        iso_utc(now)
    ));
    if let Some(note) = read_note(meta) {
        o.push_str(&format!("**{}**\n\n", markdown_cell(&note)));
    }
    o.push_str(
        "A warning is listed until its charge is fully refunded or disputed. Refunding now \
         costs the amount left and the fee Stripe kept; waiting costs the same if the dispute \
         comes and is lost, plus the dispute fee and one more dispute on the account's rate.\n\n",
    );
    o.push_str(&format!(
        "Off the list: {} on a fully refunded charge, {} on a disputed charge.\n\n",
        q.refunded, q.disputed
    ));
    let totals = q.totals();
    if !totals.is_empty() {
        o.push_str(
            "| Currency | Warnings | At stake | To refund now | Refund limit | Dispute fee |\n",
        );
        o.push_str("|---|---:|---:|---:|---:|---:|\n");
        for (c, (n, stake, refund)) in &totals {
            let limit = policy
                .refund_up_to
                .get(c)
                .map_or_else(|| "none (review)".to_string(), |l| money(*l, *c));
            let fee = policy
                .dispute_fee
                .get(c)
                .map_or_else(|| "not in the policy".to_string(), |f| money(*f, *c));
            o.push_str(&format!(
                "| {} | {n} | {} | {} | {limit} | {fee} |\n",
                c.upper(),
                money(*stake, *c),
                money(*refund, *c)
            ));
        }
        o.push('\n');
    }
    if q.rows.is_empty() {
        o.push_str("No warning calls for a decision.\n");
        return o;
    }
    o.push_str("## Warnings, oldest first\n\n");
    o.push_str("| Warning | Charge | Customer | Amount | Fraud type | Actionable | Age (days) | Refund now | Wait | Recommendation | Rule | Reason |\n");
    o.push_str("|---|---|---|---:|---|---|---:|---|---|---|---|---|\n");
    for r in &q.rows {
        let amount = r
            .currency
            .map_or_else(|| "unknown".to_string(), |c| money(r.at_stake, c));
        let rec = match r.recommendation {
            Recommendation::Refund => "**refund**",
            Recommendation::Review => "review",
        };
        let cells = [
            markdown_cell(&r.warning_id),
            markdown_cell(r.charge_id.as_deref().unwrap_or("")),
            markdown_cell(r.customer_id.as_deref().unwrap_or("")),
            amount,
            markdown_cell(r.fraud_type.as_str()),
            yes_no(r.actionable).to_string(),
            r.age_days.to_string(),
            refund_cost_text(r),
            wait_cost_text(r),
            rec.to_string(),
            markdown_cell(&r.rule),
            markdown_cell(&r.reason),
        ];
        o.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_csv_header_is_the_contract() {
        let links = DashboardLinks::new(crate::model::Mode::Test, None);
        let text = String::from_utf8(csv(&Queue::default(), &links)).expect("utf8");
        assert_eq!(
            text.trim_end(),
            "warning_id,charge_id,customer_id,created_utc,fraud_type,actionable,amount,currency,refunded_amount,recommendation,rule,reason,evidence_urls"
        );
    }
}
