//! Stripe's wire models turned into the core crate's rows: the one place that knows both
//! shapes. Lenient as the models are: a missing field becomes `None` or a placeholder, never
//! an error.

use tieout_core::model::rows::*;
use tieout_core::model::status::{
    ChargeStatus, DisputeStatus, InvoiceStatus, PayoutStatus, ReconciliationStatus, RefundStatus,
    SubscriptionStatus, TraceIdStatus,
};

use crate::stripe::models::{self, Expandable};

fn id_of<T: models::HasId, Id: for<'a> From<&'a str>>(e: &Option<Expandable<T>>) -> Option<Id> {
    e.as_ref().map(|x| Id::from(x.id()))
}

/// An optional text of a Stripe model as the row's holder of it (a [`Word`], an id, ...).
fn held<T: for<'a> From<&'a str>>(text: &Option<String>) -> Option<T> {
    text.as_deref().map(T::from)
}

impl From<&models::Payout> for PayoutRow {
    fn from(p: &models::Payout) -> Self {
        Self {
            id: p.id.clone(),
            amount: p.amount.unwrap_or(0),
            currency: currency_of(p.currency.as_deref()),
            arrival_date: p.arrival_date.unwrap_or(0),
            created: p.created.unwrap_or(0),
            status: p
                .status
                .clone()
                .unwrap_or_else(|| PayoutStatus::Unknown(String::new())),
            automatic: p.automatic,
            method: p.method.clone().unwrap_or_else(|| "standard".into()),
            reconciliation_status: p
                .reconciliation_status
                .clone()
                .unwrap_or_else(|| ReconciliationStatus::Unknown(String::new())),
            failure_code: p.failure_code.clone(),
            failure_message: p.failure_message.clone(),
            balance_transaction: id_of(&p.balance_transaction),
            failure_balance_transaction: id_of(&p.failure_balance_transaction),
            description: p.description.clone(),
            statement_descriptor: p.statement_descriptor.clone(),
            original_payout: id_of(&p.original_payout),
            reversed_by: id_of(&p.reversed_by),
            trace_id: p
                .trace_id
                .as_ref()
                .and_then(|t| t.value.clone())
                .filter(|v| !v.trim().is_empty()),
            trace_id_status: p.trace_id.as_ref().map(|t| {
                t.status
                    .clone()
                    .unwrap_or_else(|| TraceIdStatus::Unknown(String::new()))
            }),
        }
    }
}

impl From<&models::Invoice> for InvoiceRow {
    fn from(i: &models::Invoice) -> Self {
        Self {
            id: i.id.as_str().into(),
            number: held(&i.number),
            customer: i.customer_id().map(Into::into),
            customer_email: held(&i.customer_email),
            customer_name: held(&i.customer_name),
            status: i
                .status
                .clone()
                .unwrap_or_else(|| InvoiceStatus::Unknown(String::new())),
            collection_method: held(&i.collection_method),
            currency: currency_of(i.currency.as_deref()),
            amount_due: i.amount_due.unwrap_or(0),
            amount_paid: i.amount_paid.unwrap_or(0),
            amount_remaining: i.amount_remaining.unwrap_or(0),
            attempt_count: i.attempt_count,
            attempted: i.attempted,
            next_payment_attempt: i.next_payment_attempt,
            due_date: i.due_date,
            created: i.created.unwrap_or(0),
            subscription: i.subscription_id().map(Into::into),
            hosted_invoice_url: i.hosted_invoice_url.clone(),
            billing_reason: held(&i.billing_reason),
            legacy_payment_intent: id_of(&i.payment_intent),
            legacy_charge: id_of(&i.charge),
            status_transitions: i
                .status_transitions
                .as_ref()
                .map(|t| StatusTransitions {
                    paid_at: t.paid_at,
                    voided_at: t.voided_at,
                    marked_uncollectible_at: t.marked_uncollectible_at,
                })
                .unwrap_or_default(),
            amount_paid_off_stripe: i.amount_paid_off_stripe.unwrap_or(0),
        }
    }
}

impl From<&models::InvoicePayment> for InvoicePaymentRow {
    fn from(p: &models::InvoicePayment) -> Self {
        let target = p.payment.as_ref();
        Self {
            id: p.id.as_str().into(),
            invoice: p
                .invoice
                .as_ref()
                .map(|i| i.id())
                .unwrap_or_default()
                .into(),
            payment_intent: target.and_then(|t| id_of(&t.payment_intent)),
            charge: target.and_then(|t| id_of(&t.charge)),
            status: p
                .status
                .as_ref()
                .map(|s| s.as_str())
                .unwrap_or_default()
                .into(),
            is_default: p.is_default,
            amount_requested: p.amount_requested.unwrap_or(0),
            amount_paid: p.amount_paid,
            currency: currency_of(p.currency.as_deref()),
            created: p.created.unwrap_or(0),
            payment_type: target.and_then(|t| held(&t.kind)),
            paid_at: p.status_transitions.as_ref().and_then(|t| t.paid_at),
        }
    }
}

impl From<&models::PaymentIntent> for PaymentIntentRow {
    fn from(p: &models::PaymentIntent) -> Self {
        let e = p.last_payment_error.as_ref();
        Self {
            id: p.id.as_str().into(),
            customer: id_of(&p.customer),
            status: p.status.as_deref().unwrap_or_default().into(),
            amount: p.amount.unwrap_or(0),
            currency: currency_of(p.currency.as_deref()),
            created: p.created.unwrap_or(0),
            latest_charge: id_of(&p.latest_charge),
            error_code: e.and_then(|e| held(&e.code)),
            error_decline_code: e.and_then(|e| held(&e.decline_code)),
            error_advice_code: e.and_then(|e| held(&e.advice_code)),
            error_message: e.and_then(|e| held(&e.message)),
            error_charge: e.and_then(|e| held(&e.charge)),
            error_network_decline_code: e.and_then(|e| held(&e.network_decline_code)),
            error_payment_method: e
                .and_then(|e| e.payment_method.as_ref())
                .map(|m| m.id.as_str().into()),
            error_payment_method_created: e
                .and_then(|e| e.payment_method.as_ref())
                .and_then(|m| m.created),
        }
    }
}

impl From<&models::Charge> for ChargeRow {
    fn from(c: &models::Charge) -> Self {
        let o = c.outcome.as_ref();
        Self {
            id: c.id.as_str().into(),
            customer: id_of(&c.customer),
            payment_intent: id_of(&c.payment_intent),
            amount: c.amount.unwrap_or(0),
            amount_captured: c.amount_captured.unwrap_or(0),
            amount_refunded: c.amount_refunded.unwrap_or(0),
            currency: currency_of(c.currency.as_deref()),
            status: c
                .status
                .clone()
                .unwrap_or_else(|| ChargeStatus::Unknown(String::new())),
            created: c.created.unwrap_or(0),
            description: held(&c.description),
            metadata: c.metadata.iter().collect(),
            disputed: c.disputed,
            refunded: c.refunded,
            failure_code: held(&c.failure_code),
            failure_message: held(&c.failure_message),
            outcome_type: o.and_then(|o| held(&o.kind)),
            outcome_reason: o.and_then(|o| held(&o.reason)),
            outcome_network_status: o.and_then(|o| held(&o.network_status)),
            outcome_advice_code: o.and_then(|o| held(&o.advice_code)),
            outcome_seller_message: o.and_then(|o| held(&o.seller_message)),
            balance_transaction: id_of(&c.balance_transaction),
            receipt_email: held(&c.receipt_email),
            billing_email: c.billing_details.as_ref().and_then(|b| held(&b.email)),
            payment_method: held(&c.payment_method),
        }
    }
}

impl From<&models::Refund> for RefundRow {
    fn from(r: &models::Refund) -> Self {
        Self {
            id: r.id.clone(),
            charge: id_of(&r.charge),
            payment_intent: id_of(&r.payment_intent),
            amount: r.amount.unwrap_or(0),
            currency: currency_of(r.currency.as_deref()),
            status: r
                .status
                .clone()
                .unwrap_or_else(|| RefundStatus::Unknown(String::new())),
            reason: r.reason.clone(),
            failure_reason: r.failure_reason.clone(),
            created: r.created.unwrap_or(0),
        }
    }
}

impl From<&models::Dispute> for DisputeRow {
    fn from(d: &models::Dispute) -> Self {
        Self {
            id: d.id.clone(),
            charge: id_of(&d.charge),
            payment_intent: id_of(&d.payment_intent),
            amount: d.amount.unwrap_or(0),
            currency: currency_of(d.currency.as_deref()),
            status: d
                .status
                .clone()
                .unwrap_or_else(|| DisputeStatus::Unknown(String::new())),
            reason: d.reason.clone(),
            created: d.created.unwrap_or(0),
            is_charge_refundable: d.is_charge_refundable,
        }
    }
}

impl From<&models::EarlyFraudWarning> for FraudWarningRow {
    fn from(w: &models::EarlyFraudWarning) -> Self {
        Self {
            id: w.id.clone(),
            charge: id_of(&w.charge),
            payment_intent: id_of(&w.payment_intent),
            created: w.created.unwrap_or(0),
            fraud_type: w
                .fraud_type
                .clone()
                .unwrap_or_else(|| tieout_core::model::status::FraudType::Unknown(String::new())),
            // Absent: Stripe did not say, so not taken to be actionable.
            actionable: w.actionable.unwrap_or(false),
            charge_fee: w.charge_fee(),
        }
    }
}

impl From<&models::Customer> for CustomerRow {
    fn from(c: &models::Customer) -> Self {
        let invoice_default = c
            .invoice_settings
            .as_ref()
            .and_then(|i| i.default_payment_method.as_ref());
        Self {
            id: c.id.clone(),
            email: c.email.clone(),
            name: c.name.clone(),
            created: c.created.unwrap_or(0),
            deleted: c.deleted,
            invoice_default_payment_method: invoice_default.map(|m| m.id().to_string()),
            invoice_default_created: invoice_default
                .and_then(Expandable::object)
                .and_then(|m| m.created),
            default_source: c.default_source.clone(),
        }
    }
}

impl From<&models::Subscription> for SubscriptionRow {
    fn from(s: &models::Subscription) -> Self {
        let (start, end) = s.current_period();
        let interval = s.interval();
        let first = s.items.as_ref().and_then(|l| l.data.first());
        // A metered item's unit amount is per unit of usage, not what the period costs.
        let unit_amount = first.filter(|i| !i.is_metered()).and_then(|i| {
            i.price
                .as_ref()
                .and_then(|p| p.unit_amount)
                .or_else(|| i.plan.as_ref().and_then(|p| p.amount))
        });
        let currency = s
            .currency
            .clone()
            .or_else(|| first.and_then(|i| i.price.as_ref().and_then(|p| p.currency.clone())));
        Self {
            id: s.id.clone(),
            customer: id_of(&s.customer),
            status: s
                .status
                .clone()
                .unwrap_or_else(|| SubscriptionStatus::Unknown(String::new())),
            current_period_start: start,
            current_period_end: end,
            interval: interval.as_ref().map(|(i, _)| i.clone()),
            interval_count: interval.map(|(_, c)| c).unwrap_or(1),
            latest_invoice: id_of(&s.latest_invoice),
            created: s.created.unwrap_or(0),
            cancel_at_period_end: s.cancel_at_period_end,
            currency: currency_of(currency.as_deref()),
            unit_amount,
            default_payment_method: s
                .default_payment_method
                .as_ref()
                .map(|m| m.id().to_string()),
            default_source: s.default_source.clone(),
        }
    }
}

impl From<&models::Subscription> for RenewalMethodRow {
    /// The card read's row of one subscription (listed with `data.default_payment_method`
    /// and `data.customer.invoice_settings.default_payment_method` expanded). A method
    /// left as an id counts as one of unknown type, so it is never taken for a card.
    fn from(s: &models::Subscription) -> Self {
        let sub = SubscriptionRow::from(s);
        let customer = s.customer.as_ref().and_then(Expandable::object);
        let customer_default = customer
            .and_then(|c| c.invoice_settings.as_ref())
            .and_then(|i| i.default_payment_method.as_ref());
        let found = tieout_core::domain::dunning::expiring::chosen(
            s.default_payment_method.as_ref(),
            customer_default,
        );
        let method = found.and_then(|(m, _)| m.object());
        let card = method.and_then(|m| m.card.as_ref());
        let live = customer.filter(|c| !c.deleted);
        Self {
            subscription: sub.id,
            customer: sub.customer,
            customer_email: live.and_then(|c| c.email.clone()),
            customer_name: live.and_then(|c| c.name.clone()),
            status: sub.status,
            cancel_at_period_end: sub.cancel_at_period_end,
            current_period_end: s.next_renewal(),
            currency: sub.currency,
            amount: s.renewal_amount(),
            method_source: found.map(|(_, src)| src.as_str().to_string()),
            payment_method: found.map(|(m, _)| m.id().to_string()),
            method_type: method.and_then(|m| m.kind.clone()),
            card_brand: card.and_then(|c| c.brand.clone()),
            card_last4: card.and_then(|c| c.last4.clone()),
            card_exp_month: card.and_then(|c| c.exp_month),
            card_exp_year: card.and_then(|c| c.exp_year),
        }
    }
}

/// Builds the row; `payout` is the payout the listing was filtered on (one id shared by
/// all its lines).
pub fn balance_txn_row(t: &models::BalanceTransaction, payout: Option<&PayoutId>) -> BalanceTxnRow {
    BalanceTxnRow {
        id: t.id.as_str().into(),
        payout: payout.cloned(),
        kind: t.kind.as_deref().unwrap_or_default().into(),
        reporting_category: t.reporting_category.as_deref().unwrap_or_default().into(),
        source: t.source.as_ref().map(|s| s.id().into()),
        created: t.created.unwrap_or(0),
        available_on: t.available_on.unwrap_or(0),
        currency: currency_of(t.currency.as_deref()),
        amount: t.amount.unwrap_or(0),
        fee: t.fee.unwrap_or(0),
        net: t.net.unwrap_or(0),
        description: t.description.as_deref().map(SharedText::from),
        status: t.status.as_deref().unwrap_or_default().into(),
        fee_details: t
            .fee_details
            .iter()
            .map(|d| FeeDetailRow {
                kind: d.kind.as_deref().unwrap_or_default().into(),
                amount: d.amount,
                // A part without its own currency is in the transaction's.
                currency: currency_of(d.currency.as_deref().or(t.currency.as_deref())),
                description: d.description.as_deref().map(CompactString::from),
                application: d.application.as_deref().map(Box::from),
            })
            .collect(),
        exchange_rate: t.exchange_rate,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tieout_core::model::rows::PayoutRow;

    /// A reversing payout as Stripe's API reference returns it, and the reversed payout
    /// with its `reversed_by` expanded: both links reach the row as plain ids.
    /// Each fee part reaches the row with its kind, amount, description and application;
    /// a part without a currency takes the transaction's.
    #[test]
    fn fee_details_reach_the_row() {
        let t: models::BalanceTransaction = serde_json::from_value(serde_json::json!({
            "id": "txn_1", "amount": 10000, "fee": 390, "net": 9610, "currency": "eur",
            "fee_details": [
                {"amount": 300, "currency": "eur", "description": "Stripe processing fees",
                 "type": "stripe_fee", "application": null},
                {"amount": 60, "description": "Platform fee", "type": "application_fee",
                 "application": "ca_123"},
                {"amount": 30, "currency": "eur", "type": "tax"}
            ]
        }))
        .expect("parse");
        let row = balance_txn_row(&t, Some(&"po_1".into()));
        let eur = tieout_core::money::Currency::EUR;
        let got: Vec<(&str, i64, _, Option<&str>, Option<&str>)> = row
            .fee_details
            .iter()
            .map(|d| {
                (
                    d.kind.as_str(),
                    d.amount,
                    d.currency,
                    d.description.as_deref(),
                    d.application.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("stripe_fee", 300, eur, Some("Stripe processing fees"), None),
                (
                    "application_fee",
                    60,
                    eur,
                    Some("Platform fee"),
                    Some("ca_123")
                ),
                ("tax", 30, eur, None, None),
            ]
        );
    }

    #[test]
    fn reversal_links_reach_the_payout_row() {
        let rev: models::Payout = serde_json::from_value(serde_json::json!({
            "id": "po_rev", "object": "payout", "amount": -1100, "automatic": false,
            "currency": "usd", "method": "standard", "status": "pending",
            "original_payout": "po_orig", "reconciliation_status": "not_applicable",
            "reversed_by": null
        }))
        .expect("payout");
        let row = PayoutRow::from(&rev);
        assert_eq!(row.original_payout.as_deref(), Some("po_orig"));
        assert_eq!(row.reversed_by, None);

        let orig: models::Payout = serde_json::from_value(serde_json::json!({
            "id": "po_orig", "amount": 1100, "currency": "usd",
            "reversed_by": {"id": "po_rev", "object": "payout"}
        }))
        .expect("payout");
        let row = PayoutRow::from(&orig);
        assert_eq!(row.reversed_by.as_deref(), Some("po_rev"));
        assert_eq!(row.original_payout, None);
    }

    /// `trace_id` as Stripe sends it while the bank has not answered, once it has, for a
    /// bank that does not give one, with a status this version does not know, and absent.
    #[test]
    fn trace_ids_reach_the_payout_row_leniently() {
        let row = |trace: serde_json::Value| {
            let p: models::Payout =
                serde_json::from_value(serde_json::json!({"id": "po_1", "trace_id": trace}))
                    .expect("payout");
            let r = PayoutRow::from(&p);
            (
                r.trace_id,
                r.trace_id_status.map(|s| s.as_str().to_string()),
            )
        };
        let s = |x: &str| Some(x.to_string());
        assert_eq!(
            row(serde_json::json!({"status": "pending", "value": null})),
            (None, s("pending"))
        );
        assert_eq!(
            row(serde_json::json!({"status": "supported", "value": "FED12345"})),
            (s("FED12345"), s("supported"))
        );
        assert_eq!(
            row(serde_json::json!({"status": "unsupported"})),
            (None, s("unsupported"))
        );
        assert_eq!(
            row(serde_json::json!({"status": "queried", "value": " "})),
            (None, s("queried"))
        );
        assert_eq!(row(serde_json::Value::Null), (None, None));
    }
}
