//! Test rows for the dunning worklist: a snapshot with invoices, payments and declines
//! shaped the way the rules read them (shared with other crates' tests through the
//! `testdata` feature).

use super::*;
use crate::model::rows::{InvoicePaymentRow, Metadata, StripeId, Word};
use crate::model::{Mode, Origin, SnapshotMeta};

pub const NOW: i64 = 1_796_040_000; // 2026-11-30T12:00:00Z
pub const DAY: i64 = 86_400;

pub fn meta() -> SnapshotMeta {
    SnapshotMeta {
        account_id: "acct_test".into(),
        account_name: None,
        mode: Mode::Test,
        origin: Origin::Demo,
        api_version: "2026-07-29.dahlia".into(),
        fetched_at: NOW,
        window_start: 0,
        window_end: NOW,
        default_currency: None,
        payment_methods: Default::default(),
        settled_invoices_since: None,
        balance: None,
        lines_complete: false,
        lines_since: None,
        fraud_warnings: Default::default(),
    }
}

pub fn invoice(id: &str, status: InvoiceStatus, remaining: i64) -> InvoiceRow {
    InvoiceRow {
        id: id.into(),
        number: Some(format!("N-{id}").into()),
        customer: Some("cus_1".into()),
        customer_email: Some("inv@example.com".into()),
        customer_name: Some("Invoice Name".into()),
        status,
        collection_method: Some("charge_automatically".into()),
        currency: Currency::USD,
        amount_due: remaining,
        amount_paid: 0,
        amount_remaining: remaining,
        attempt_count: 0,
        attempted: false,
        next_payment_attempt: None,
        due_date: None,
        created: NOW - 10 * DAY,
        subscription: None,
        hosted_invoice_url: Some(format!("https://invoice.stripe.com/i/{id}")),
        billing_reason: Some("subscription_cycle".into()),
        legacy_payment_intent: None,
        legacy_charge: None,
        status_transitions: Default::default(),
        amount_paid_off_stripe: 0,
    }
}

pub fn attempted(mut inv: InvoiceRow, count: i64, next: Option<i64>) -> InvoiceRow {
    inv.attempted = true;
    inv.attempt_count = count;
    inv.next_payment_attempt = next;
    inv
}

pub fn payment(inv: &str, pi: &str) -> InvoicePaymentRow {
    InvoicePaymentRow {
        id: format!("inpay_{inv}").as_str().into(),
        invoice: inv.into(),
        payment_intent: Some(pi.into()),
        charge: None,
        status: "open".into(),
        is_default: true,
        amount_requested: 0,
        amount_paid: None,
        currency: Currency::USD,
        created: NOW - 10 * DAY,
        payment_type: None,
        paid_at: None,
    }
}

pub fn intent(
    id: &str,
    decline: Option<&str>,
    advice: Option<&str>,
    charge: &str,
) -> PaymentIntentRow {
    PaymentIntentRow {
        id: id.into(),
        customer: Some("cus_1".into()),
        status: "requires_payment_method".into(),
        amount: 1000,
        currency: Currency::USD,
        created: NOW - 10 * DAY,
        latest_charge: Some(charge.into()),
        error_code: Some("card_declined".into()),
        error_decline_code: decline.map(Into::into),
        error_advice_code: advice.map(Into::into),
        error_message: Some("Your card was declined.".into()),
        error_charge: Some(charge.into()),
        error_network_decline_code: None,
        error_payment_method: None,
        error_payment_method_created: None,
    }
}

pub fn charge(id: &str, pi: Option<&str>, created: i64, reason: Option<&str>) -> ChargeRow {
    ChargeRow {
        id: id.into(),
        customer: Some("cus_1".into()),
        payment_intent: pi.map(StripeId::from),
        amount: 1000,
        amount_captured: 0,
        amount_refunded: 0,
        currency: Currency::USD,
        status: ChargeStatus::Failed,
        created,
        description: None,
        metadata: Metadata::new(),
        disputed: false,
        refunded: false,
        failure_code: Some("card_declined".into()),
        failure_message: Some("Your card was declined.".into()),
        outcome_type: Some("issuer_declined".into()),
        outcome_reason: reason.map(Word::from),
        outcome_network_status: Some("declined_by_network".into()),
        outcome_advice_code: None,
        outcome_seller_message: None,
        balance_transaction: None,
        receipt_email: None,
        billing_email: None,
        payment_method: None,
    }
}

pub fn data(invoices: Vec<InvoiceRow>) -> AccountData {
    let mut d = AccountData::empty(meta());
    d.invoices = invoices;
    d.customers = vec![CustomerRow {
        id: "cus_1".into(),
        email: Some("ada@example.com".into()),
        name: Some("Ada".into()),
        created: 0,
        deleted: false,
        invoice_default_payment_method: None,
        invoice_default_created: None,
        default_source: None,
    }];
    d
}

/// An invoice with one failed attempt declined with `code`.
pub fn failed(d: &mut AccountData, id: &str, remaining: i64, code: &str) {
    let pi = format!("pi_{id}");
    let ch = format!("ch_{id}");
    d.invoices.push(attempted(
        invoice(id, InvoiceStatus::Open, remaining),
        1,
        Some(NOW + 3 * DAY),
    ));
    d.invoice_payments.push(payment(id, &pi));
    d.payment_intents.push(intent(&pi, Some(code), None, &ch));
    d.charges
        .push(charge(&ch, Some(&pi), NOW - 5 * DAY, Some(code)));
}
