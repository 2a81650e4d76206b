//! Builders of rows for the refund rules' unit tests.

use crate::model::rows::{
    ChargeRow, CustomerRow, DisputeRow, InvoicePaymentRow, Metadata, RefundRow, SubscriptionRow,
};
use crate::model::status::{ChargeStatus, DisputeStatus, RefundStatus, SubscriptionStatus};
use crate::money::Currency;

use super::Ticket;

pub const DAY: i64 = 86_400;

pub fn cur(code: &str) -> Currency {
    Currency::parse(code).expect("currency")
}

pub fn ticket(email: &str, order: &str) -> Ticket {
    Ticket {
        ticket_id: Some("T-1".into()),
        email: email.into(),
        order_id: order.into(),
        message: "please refund".into(),
        amount: None,
    }
}

pub fn customer(id: &str, email: &str, created: i64) -> CustomerRow {
    CustomerRow {
        id: id.into(),
        email: Some(email.into()),
        name: None,
        created,
        deleted: false,
        invoice_default_payment_method: None,
        invoice_default_created: None,
        default_source: None,
    }
}

/// A succeeded, fully captured charge.
pub fn charge(id: &str, customer: &str, amount: i64, currency: &str, created: i64) -> ChargeRow {
    ChargeRow {
        id: id.into(),
        customer: Some(customer.into()),
        payment_intent: Some(format!("pi_{id}").into()),
        amount,
        amount_captured: amount,
        amount_refunded: 0,
        currency: cur(currency),
        status: ChargeStatus::Succeeded,
        created,
        description: None,
        metadata: Metadata::new(),
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

pub fn refund(id: &str, charge: &str, amount: i64, currency: &str, created: i64) -> RefundRow {
    RefundRow {
        id: id.into(),
        charge: Some(charge.into()),
        payment_intent: None,
        amount,
        currency: cur(currency),
        status: RefundStatus::Succeeded,
        reason: Some("requested_by_customer".into()),
        failure_reason: None,
        created,
    }
}

pub fn dispute(id: &str, charge: &str, amount: i64, currency: &str, created: i64) -> DisputeRow {
    DisputeRow {
        id: id.into(),
        charge: Some(charge.into()),
        payment_intent: None,
        amount,
        currency: cur(currency),
        status: DisputeStatus::NeedsResponse,
        reason: Some("product_not_received".into()),
        created,
        is_charge_refundable: false,
    }
}

pub fn subscription(
    id: &str,
    customer: &str,
    interval: &str,
    start: i64,
    end: i64,
) -> SubscriptionRow {
    SubscriptionRow {
        id: id.into(),
        customer: Some(customer.into()),
        status: SubscriptionStatus::Active,
        current_period_start: Some(start),
        current_period_end: Some(end),
        interval: Some(interval.into()),
        interval_count: 1,
        latest_invoice: None,
        created: start,
        cancel_at_period_end: false,
        currency: cur("usd"),
        unit_amount: None,
        default_payment_method: None,
        default_source: None,
    }
}

pub fn invoice_payment(
    id: &str,
    invoice: &str,
    charge: Option<&str>,
    payment_intent: Option<&str>,
) -> InvoicePaymentRow {
    InvoicePaymentRow {
        id: id.into(),
        invoice: invoice.into(),
        payment_intent: payment_intent.map(Into::into),
        charge: charge.map(Into::into),
        status: "paid".into(),
        is_default: true,
        amount_requested: 0,
        amount_paid: None,
        currency: cur("usd"),
        created: 0,
        payment_type: None,
        paid_at: None,
    }
}

/// A small account the decision tests edit.
#[derive(Debug, Clone, Default)]
pub struct World {
    pub customers: Vec<CustomerRow>,
    pub charges: Vec<ChargeRow>,
    pub refunds: Vec<RefundRow>,
    pub disputes: Vec<DisputeRow>,
    pub subscriptions: Vec<SubscriptionRow>,
    pub invoice_payments: Vec<InvoicePaymentRow>,
}

impl World {
    pub fn facts(&self) -> super::Facts<'_> {
        super::Facts::new(
            super::matching::Rows {
                customers: &self.customers,
                charges: &self.charges,
                refunds: &self.refunds,
                disputes: &self.disputes,
                subscriptions: &self.subscriptions,
                invoice_payments: &self.invoice_payments,
            },
            crate::model::Mode::Test,
            crate::model::Origin::Demo,
            0,
        )
    }
}
