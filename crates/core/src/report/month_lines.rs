//! The month's refunds and disputes as line files for the close packet
//! (`refunds.csv`, `disputes.csv`): one row per object created in the month, with the
//! charge and customer it belongs to. Amounts in major units, as README.md ("Exports") says.

use std::collections::HashMap;

use crate::model::rows::{ChargeRow, DisputeRow, RefundRow};
use crate::money::{Currency, format_major_inline};
use crate::report::columns::{self, Column};
use crate::time::iso_utc_inline;

/// One line of either file: a refund or a dispute, with the customer of its charge.
pub struct Line<'a> {
    pub id: &'a str,
    pub charge: &'a str,
    pub customer: &'a str,
    pub created: i64,
    pub amount: i64,
    pub currency: Currency,
    pub status: &'a str,
    pub reason: &'a str,
}

/// The columns of both line files.
pub fn columns<'a>() -> [Column<Line<'a>>; 8] {
    [
        Column::csv("id", |l| l.id.into()),
        Column::csv("charge", |l| l.charge.into()),
        Column::csv("customer", |l| l.customer.into()),
        Column::csv("created_utc", |l| iso_utc_inline(l.created).into()),
        Column::csv("amount", |l| {
            format_major_inline(l.amount, l.currency).into()
        }),
        Column::csv("currency", |l| l.currency.as_str().into()),
        Column::csv("status", |l| l.status.into()),
        Column::csv("reason", |l| l.reason.into()),
    ]
}

fn customers_by_charge(charges: &[ChargeRow]) -> HashMap<&str, &str> {
    charges
        .iter()
        .filter_map(|c| c.customer.as_deref().map(|cus| (c.id.as_str(), cus)))
        .collect()
}

fn in_range(ts: i64, range: (i64, i64)) -> bool {
    ts >= range.0 && ts < range.1
}

/// The lines created in `[range.0, range.1)`, oldest first (ties by id), as CSV.
fn lines_csv(mut lines: Vec<Line<'_>>, range: (i64, i64)) -> Vec<u8> {
    lines.retain(|l| in_range(l.created, range));
    lines.sort_by(|a, b| a.created.cmp(&b.created).then_with(|| a.id.cmp(b.id)));
    columns::csv(&columns(), &lines)
}

/// `refunds.csv`: refunds created in `[range.0, range.1)`, oldest first (ties by id).
pub fn refunds_csv(refunds: &[RefundRow], charges: &[ChargeRow], range: (i64, i64)) -> Vec<u8> {
    let owners = customers_by_charge(charges);
    let lines = refunds
        .iter()
        .map(|r| {
            let charge = r.charge.as_deref().unwrap_or("");
            Line {
                id: &r.id,
                charge,
                customer: owners.get(charge).copied().unwrap_or(""),
                created: r.created,
                amount: r.amount,
                currency: r.currency,
                status: r.status.as_str(),
                reason: r.reason.as_deref().unwrap_or(""),
            }
        })
        .collect();
    lines_csv(lines, range)
}

/// `disputes.csv`: disputes created in `[range.0, range.1)`, oldest first (ties by id).
pub fn disputes_csv(disputes: &[DisputeRow], charges: &[ChargeRow], range: (i64, i64)) -> Vec<u8> {
    let owners = customers_by_charge(charges);
    let lines = disputes
        .iter()
        .map(|d| {
            let charge = d.charge.as_deref().unwrap_or("");
            Line {
                id: &d.id,
                charge,
                customer: owners.get(charge).copied().unwrap_or(""),
                created: d.created,
                amount: d.amount,
                currency: d.currency,
                status: d.status.as_str(),
                reason: d.reason.as_deref().unwrap_or(""),
            }
        })
        .collect();
    lines_csv(lines, range)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::status::{ChargeStatus, DisputeStatus, RefundStatus};

    fn charge(id: &str, customer: &str) -> ChargeRow {
        ChargeRow {
            id: id.into(),
            customer: Some(customer.into()),
            payment_intent: None,
            amount: 1000,
            amount_captured: 1000,
            amount_refunded: 0,
            currency: Currency::USD,
            status: ChargeStatus::Succeeded,
            created: 0,
            description: None,
            metadata: Default::default(),
            disputed: false,
            refunded: false,
            failure_code: None,
            failure_message: None,
            outcome_type: None,
            outcome_reason: None,
            outcome_network_status: None,
            outcome_advice_code: None,
            outcome_seller_message: None,
            balance_transaction: None,
            receipt_email: None,
            billing_email: None,
            payment_method: None,
        }
    }

    #[test]
    fn lists_only_the_month_with_the_charge_owner() {
        let charges = vec![charge("ch_1", "cus_1")];
        let refund = |id: &str, created| RefundRow {
            id: id.into(),
            charge: Some("ch_1".into()),
            payment_intent: None,
            amount: 250,
            currency: Currency::USD,
            status: RefundStatus::Succeeded,
            reason: Some("requested_by_customer".into()),
            failure_reason: None,
            created,
        };
        let refunds = vec![
            refund("re_b", 100),
            refund("re_a", 100),
            refund("re_out", 200),
        ];
        let text = String::from_utf8(refunds_csv(&refunds, &charges, (100, 200))).expect("utf8");
        assert_eq!(
            text,
            "id,charge,customer,created_utc,amount,currency,status,reason\r\n\
             re_a,ch_1,cus_1,1970-01-01T00:01:40Z,2.50,usd,succeeded,requested_by_customer\r\n\
             re_b,ch_1,cus_1,1970-01-01T00:01:40Z,2.50,usd,succeeded,requested_by_customer\r\n"
        );
        let disputes = vec![DisputeRow {
            id: "dp_1".into(),
            charge: Some("ch_1".into()),
            payment_intent: None,
            amount: 1000,
            currency: Currency::USD,
            status: DisputeStatus::NeedsResponse,
            reason: Some("fraudulent".into()),
            created: 150,
            is_charge_refundable: false,
        }];
        let text = String::from_utf8(disputes_csv(&disputes, &charges, (100, 200))).expect("utf8");
        assert!(text.ends_with(
            "dp_1,ch_1,cus_1,1970-01-01T00:02:30Z,10.00,usd,needs_response,fraudulent\r\n"
        ));
    }
}
