//! The fields of a balance transaction and of its source object (the charge, refund or
//! dispute behind a line), for the line's detail screen.

use jiff::tz::TimeZone;

use super::screens::{datetime, money};
use crate::domain::tieout::status_label;
use crate::model::AccountData;
use crate::model::rows::BalanceTxnRow;

/// A customer as `cus_… Name <email>`, as far as the data knows them.
fn customer_text(id: Option<&str>, data: &AccountData) -> String {
    let Some(id) = id else {
        return String::new();
    };
    match data.customers.iter().find(|c| c.id == id) {
        Some(c) => format!(
            "{id} {} {}",
            c.name.clone().unwrap_or_default(),
            c.email
                .clone()
                .map(|e| format!("<{e}>"))
                .unwrap_or_default()
        )
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" "),
        None => id.to_string(),
    }
}

/// The charge a refund or dispute is about: id, amount, customer, description.
fn charge_summary(id: Option<&str>, data: &AccountData) -> String {
    let Some(id) = id else {
        return String::new();
    };
    match data.charges.iter().find(|c| c.id == id) {
        Some(ch) => [
            ch.id.to_string(),
            money(ch.amount, ch.currency),
            customer_text(ch.customer.as_deref(), data),
            ch.description.as_deref().unwrap_or_default().to_string(),
        ]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" · "),
        None => id.to_string(),
    }
}

fn yes_no(b: bool) -> String {
    if b { "yes" } else { "no" }.to_string()
}

/// The fields of a balance transaction and of its source object, as (field, value) rows
/// for a detail screen: what a bookkeeper checks against the bank and the Dashboard.
pub fn txn_fields(t: &BalanceTxnRow, data: &AccountData, tz: &TimeZone) -> Vec<(String, String)> {
    let c = t.currency;
    let mut f: Vec<(String, String)> = Vec::new();
    let mut push = |k: &str, v: String| f.push((k.to_string(), v));
    push("Balance transaction", t.id.to_string());
    push("Type", t.kind.to_string());
    push("Reporting category", t.reporting_category.to_string());
    push(
        "Paid out in",
        t.payout.as_deref().unwrap_or_default().to_string(),
    );
    push("Created", datetime(t.created, tz));
    push("Available on", datetime(t.available_on, tz));
    push("Status", t.status.to_string());
    push("Gross", money(t.amount, c));
    push("Fee", money(t.fee, c));
    push("Net", money(t.net, c));
    push(
        "Net = gross − fee",
        if t.amount.checked_sub(t.fee) == Some(t.net) {
            "✓ yes".to_string()
        } else {
            format!("✗ no: gross − fee is {}", money(t.amount - t.fee, c))
        },
    );
    push(
        "Description",
        t.description.as_deref().unwrap_or_default().to_string(),
    );
    let Some(src) = t.source.as_deref() else {
        push("Source", "none".into());
        return f;
    };
    if let Some(ch) = data.charges.iter().find(|x| x.id == src) {
        let cc = ch.currency;
        push("── Source", format!("charge {}", ch.id));
        push("Charge status", ch.status.as_str().to_string());
        push("Amount", money(ch.amount, cc));
        push("Captured", money(ch.amount_captured, cc));
        push("Refunded", money(ch.amount_refunded, cc));
        push("Charged at", datetime(ch.created, tz));
        push("Customer", customer_text(ch.customer.as_deref(), data));
        push(
            "Payment intent",
            ch.payment_intent.as_deref().unwrap_or_default().to_string(),
        );
        push(
            "Description",
            ch.description.as_deref().unwrap_or_default().to_string(),
        );
        push("Disputed", yes_no(ch.disputed));
        push("Fully refunded", yes_no(ch.refunded));
        push(
            "Balance transaction",
            ch.balance_transaction
                .as_deref()
                .unwrap_or_default()
                .to_string(),
        );
        push(
            "Outcome",
            [
                ch.outcome_type.as_deref(),
                ch.outcome_seller_message.as_deref(),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(": "),
        );
        push(
            "Receipt email",
            ch.receipt_email.as_deref().unwrap_or_default().to_string(),
        );
        for (k, v) in &ch.metadata {
            push(&format!("metadata.{k}"), v.to_string());
        }
        let refunds: Vec<&str> = data
            .refunds
            .iter()
            .filter(|r| r.charge.as_deref() == Some(ch.id.as_str()))
            .map(|r| r.id.as_str())
            .collect();
        if !refunds.is_empty() {
            push("Refunds", refunds.join(" "));
        }
        let disputes: Vec<&str> = data
            .disputes
            .iter()
            .filter(|d| d.charge.as_deref() == Some(ch.id.as_str()))
            .map(|d| d.id.as_str())
            .collect();
        if !disputes.is_empty() {
            push("Disputes", disputes.join(" "));
        }
    } else if let Some(r) = data.refunds.iter().find(|x| x.id == src) {
        push("── Source", format!("refund {}", r.id));
        push("Refund status", r.status.as_str().to_string());
        push("Amount", money(r.amount, r.currency));
        push("Refunded at", datetime(r.created, tz));
        push("Charge", charge_summary(r.charge.as_deref(), data));
        push(
            "Payment intent",
            r.payment_intent.clone().unwrap_or_default(),
        );
        push("Reason", r.reason.clone().unwrap_or_default());
        if let Some(why) = &r.failure_reason {
            push("Failure reason", why.clone());
        }
    } else if let Some(d) = data.disputes.iter().find(|x| x.id == src) {
        push("── Source", format!("dispute {}", d.id));
        push("Dispute status", d.status.as_str().to_string());
        push("Amount", money(d.amount, d.currency));
        push("Opened at", datetime(d.created, tz));
        push("Disputed charge", charge_summary(d.charge.as_deref(), data));
        push(
            "Payment intent",
            d.payment_intent.clone().unwrap_or_default(),
        );
        push("Reason", d.reason.clone().unwrap_or_default());
        push("Charge refundable", yes_no(d.is_charge_refundable));
    } else if let Some(p) = data.payouts.iter().find(|x| x.id == src) {
        push("── Source", format!("payout {}", p.id));
        push("Payout status", status_label(&p.status));
        push("Amount", money(p.amount, p.currency));
        push("Arrival", datetime(p.arrival_date, tz));
        push(
            "Failure",
            [p.failure_code.as_deref(), p.failure_message.as_deref()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(": "),
        );
    } else {
        push(
            "── Source",
            format!(
                "{src} (not in the data at hand: tieout reads charges, refunds, disputes and payouts)"
            ),
        );
    }
    f
}
