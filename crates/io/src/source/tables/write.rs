//! The frame writer per table: each table's rows become its frame, one column per row
//! field (named after the field), joined to its [`Table`] in [`write_frame`].

use polars::prelude::DataFrame;

use super::TableError;
use super::frame::Frame;
use tieout_core::model::rows::{
    BalanceTxnRow, ChargeRow, CustomerRow, DisputeRow, FeeDetailRow, FraudWarningRow,
    InvoicePaymentRow, InvoiceRow, Metadata, PaymentIntentRow, PayoutRow, RefundRow,
    RenewalMethodRow, SubscriptionRow,
};
use tieout_core::model::{AccountData, Table};

/// `table`'s frame, built from `data`'s rows.
pub(super) fn write_frame(data: &AccountData, table: Table) -> Result<DataFrame, TableError> {
    match table {
        Table::Payouts => payouts_frame(&data.payouts),
        Table::BalanceTransactions => balance_transactions_frame(&data.balance_transactions),
        Table::Invoices => invoices_frame(&data.invoices),
        Table::InvoicePayments => invoice_payments_frame(&data.invoice_payments),
        Table::PaymentIntents => payment_intents_frame(&data.payment_intents),
        Table::Charges => charges_frame(&data.charges),
        Table::Refunds => refunds_frame(&data.refunds),
        Table::Disputes => disputes_frame(&data.disputes),
        Table::Customers => customers_frame(&data.customers),
        Table::Subscriptions => subscriptions_frame(&data.subscriptions),
        Table::RenewalMethods => renewal_methods_frame(&data.renewal_methods),
        Table::FraudWarnings => fraud_warnings_frame(&data.fraud_warnings),
    }
}

fn payouts_frame(rows: &[PayoutRow]) -> Result<DataFrame, TableError> {
    Frame::new("payouts", rows)
        .str("id", |r| &r.id)
        .i64("amount", |r| r.amount)
        .currency(|r| r.currency)
        .i64("arrival_date", |r| r.arrival_date)
        .i64("created", |r| r.created)
        .str("status", |r| r.status.as_str())
        .bool("automatic", |r| r.automatic)
        .str("method", |r| &r.method)
        .str("reconciliation_status", |r| {
            r.reconciliation_status.as_str()
        })
        .opt_str("failure_code", |r| r.failure_code.as_deref())
        .opt_str("failure_message", |r| r.failure_message.as_deref())
        .opt_str("balance_transaction", |r| r.balance_transaction.as_deref())
        .opt_str("failure_balance_transaction", |r| {
            r.failure_balance_transaction.as_deref()
        })
        .opt_str("description", |r| r.description.as_deref())
        .opt_str("statement_descriptor", |r| {
            r.statement_descriptor.as_deref()
        })
        .opt_str("original_payout", |r| r.original_payout.as_deref())
        .opt_str("reversed_by", |r| r.reversed_by.as_deref())
        .opt_str("trace_id", |r| r.trace_id.as_deref())
        .opt_str("trace_id_status", |r| {
            r.trace_id_status.as_ref().map(|s| s.as_str())
        })
        .finish()
}

fn balance_transactions_frame(rows: &[BalanceTxnRow]) -> Result<DataFrame, TableError> {
    Frame::new("balance_transactions", rows)
        .str("id", |r| &r.id)
        .opt_str("payout", |r| r.payout.as_deref())
        .str("kind", |r| &r.kind)
        .str("reporting_category", |r| &r.reporting_category)
        .opt_str("source", |r| r.source.as_deref())
        .i64("created", |r| r.created)
        .i64("available_on", |r| r.available_on)
        .currency(|r| r.currency)
        .i64("amount", |r| r.amount)
        .i64("fee", |r| r.fee)
        .i64("net", |r| r.net)
        .opt_str("description", |r| r.description.as_deref())
        .str("status", |r| &r.status)
        .string("fee_details", |r| fee_details_json(&r.fee_details))
        .opt_string("exchange_rate", |r| {
            r.exchange_rate.get().map(|d| d.to_string())
        })
        .finish()
}

/// `fee_details` as a JSON array (`[]` when Stripe gave none).
fn fee_details_json(d: &[FeeDetailRow]) -> String {
    if d.is_empty() {
        return "[]".to_string();
    }
    // Plain fields always serialise; the fallback only keeps this panic-free.
    serde_json::to_string(d).unwrap_or_else(|_| "[]".to_string())
}

fn invoices_frame(rows: &[InvoiceRow]) -> Result<DataFrame, TableError> {
    Frame::new("invoices", rows)
        .str("id", |r| &r.id)
        .opt_str("number", |r| r.number.as_deref())
        .opt_str("customer", |r| r.customer.as_deref())
        .opt_str("customer_email", |r| r.customer_email.as_deref())
        .opt_str("customer_name", |r| r.customer_name.as_deref())
        .str("status", |r| r.status.as_str())
        .opt_str("collection_method", |r| r.collection_method.as_deref())
        .currency(|r| r.currency)
        .i64("amount_due", |r| r.amount_due)
        .i64("amount_paid", |r| r.amount_paid)
        .i64("amount_remaining", |r| r.amount_remaining)
        .i64("attempt_count", |r| r.attempt_count)
        .bool("attempted", |r| r.attempted)
        .opt_i64("next_payment_attempt", |r| r.next_payment_attempt)
        .opt_i64("due_date", |r| r.due_date)
        .i64("created", |r| r.created)
        .opt_str("subscription", |r| r.subscription.as_deref())
        .opt_str("hosted_invoice_url", |r| r.hosted_invoice_url.as_deref())
        .opt_str("billing_reason", |r| r.billing_reason.as_deref())
        .opt_str("legacy_payment_intent", |r| {
            r.legacy_payment_intent.as_deref()
        })
        .opt_str("legacy_charge", |r| r.legacy_charge.as_deref())
        .opt_i64("paid_at", |r| r.status_transitions.paid_at)
        .opt_i64("voided_at", |r| r.status_transitions.voided_at)
        .opt_i64("marked_uncollectible_at", |r| {
            r.status_transitions.marked_uncollectible_at
        })
        .i64("amount_paid_off_stripe", |r| r.amount_paid_off_stripe)
        .finish()
}

fn invoice_payments_frame(rows: &[InvoicePaymentRow]) -> Result<DataFrame, TableError> {
    Frame::new("invoice_payments", rows)
        .str("id", |r| &r.id)
        .str("invoice", |r| &r.invoice)
        .opt_str("payment_intent", |r| r.payment_intent.as_deref())
        .opt_str("charge", |r| r.charge.as_deref())
        .str("status", |r| &r.status)
        .bool("is_default", |r| r.is_default)
        .i64("amount_requested", |r| r.amount_requested)
        .opt_i64("amount_paid", |r| r.amount_paid)
        .currency(|r| r.currency)
        .i64("created", |r| r.created)
        .opt_str("payment_type", |r| r.payment_type.as_deref())
        .opt_i64("paid_at", |r| r.paid_at)
        .finish()
}

fn payment_intents_frame(rows: &[PaymentIntentRow]) -> Result<DataFrame, TableError> {
    Frame::new("payment_intents", rows)
        .str("id", |r| &r.id)
        .opt_str("customer", |r| r.customer.as_deref())
        .str("status", |r| &r.status)
        .i64("amount", |r| r.amount)
        .currency(|r| r.currency)
        .i64("created", |r| r.created)
        .opt_str("latest_charge", |r| r.latest_charge.as_deref())
        .opt_str("error_code", |r| r.error_code.as_deref())
        .opt_str("error_decline_code", |r| r.error_decline_code.as_deref())
        .opt_str("error_advice_code", |r| r.error_advice_code.as_deref())
        .opt_str("error_message", |r| r.error_message.as_deref())
        .opt_str("error_charge", |r| r.error_charge.as_deref())
        .opt_str("error_network_decline_code", |r| {
            r.error_network_decline_code.as_deref()
        })
        .opt_str("error_payment_method", |r| {
            r.error_payment_method.as_deref()
        })
        .opt_i64("error_payment_method_created", |r| {
            r.error_payment_method_created
        })
        .finish()
}

fn metadata_json(m: &Metadata) -> String {
    if m.is_empty() {
        return "{}".to_string();
    }
    // A map of strings always serialises; the fallback only keeps this panic-free.
    serde_json::to_string(m).unwrap_or_else(|_| "{}".to_string())
}

fn charges_frame(rows: &[ChargeRow]) -> Result<DataFrame, TableError> {
    Frame::new("charges", rows)
        .str("id", |r| &r.id)
        .opt_str("customer", |r| r.customer.as_deref())
        .opt_str("payment_intent", |r| r.payment_intent.as_deref())
        .i64("amount", |r| r.amount)
        .i64("amount_captured", |r| r.amount_captured)
        .i64("amount_refunded", |r| r.amount_refunded)
        .currency(|r| r.currency)
        .str("status", |r| r.status.as_str())
        .i64("created", |r| r.created)
        .opt_str("description", |r| r.description.as_deref())
        .string("metadata", |r| metadata_json(&r.metadata))
        .bool("disputed", |r| r.disputed)
        .bool("refunded", |r| r.refunded)
        .opt_str("failure_code", |r| r.failure_code.as_deref())
        .opt_str("failure_message", |r| r.failure_message.as_deref())
        .opt_str("outcome_type", |r| r.outcome_type.as_deref())
        .opt_str("outcome_reason", |r| r.outcome_reason.as_deref())
        .opt_str("outcome_network_status", |r| {
            r.outcome_network_status.as_deref()
        })
        .opt_str("outcome_advice_code", |r| r.outcome_advice_code.as_deref())
        .opt_str("outcome_seller_message", |r| {
            r.outcome_seller_message.as_deref()
        })
        .opt_str("balance_transaction", |r| r.balance_transaction.as_deref())
        .opt_str("receipt_email", |r| r.receipt_email.as_deref())
        .opt_str("billing_email", |r| r.billing_email.as_deref())
        .opt_str("payment_method", |r| r.payment_method.as_deref())
        .finish()
}

fn refunds_frame(rows: &[RefundRow]) -> Result<DataFrame, TableError> {
    Frame::new("refunds", rows)
        .str("id", |r| &r.id)
        .opt_str("charge", |r| r.charge.as_deref())
        .opt_str("payment_intent", |r| r.payment_intent.as_deref())
        .i64("amount", |r| r.amount)
        .currency(|r| r.currency)
        .str("status", |r| r.status.as_str())
        .opt_str("reason", |r| r.reason.as_deref())
        .opt_str("failure_reason", |r| r.failure_reason.as_deref())
        .i64("created", |r| r.created)
        .finish()
}

fn disputes_frame(rows: &[DisputeRow]) -> Result<DataFrame, TableError> {
    Frame::new("disputes", rows)
        .str("id", |r| &r.id)
        .opt_str("charge", |r| r.charge.as_deref())
        .opt_str("payment_intent", |r| r.payment_intent.as_deref())
        .i64("amount", |r| r.amount)
        .currency(|r| r.currency)
        .str("status", |r| r.status.as_str())
        .opt_str("reason", |r| r.reason.as_deref())
        .i64("created", |r| r.created)
        .bool("is_charge_refundable", |r| r.is_charge_refundable)
        .finish()
}

fn fraud_warnings_frame(rows: &[FraudWarningRow]) -> Result<DataFrame, TableError> {
    Frame::new("fraud_warnings", rows)
        .str("id", |r| &r.id)
        .opt_str("charge", |r| r.charge.as_deref())
        .opt_str("payment_intent", |r| r.payment_intent.as_deref())
        .i64("created", |r| r.created)
        .str("fraud_type", |r| r.fraud_type.as_str())
        .bool("actionable", |r| r.actionable)
        .opt_i64("charge_fee", |r| r.charge_fee)
        .finish()
}

fn customers_frame(rows: &[CustomerRow]) -> Result<DataFrame, TableError> {
    Frame::new("customers", rows)
        .str("id", |r| &r.id)
        .opt_str("email", |r| r.email.as_deref())
        .opt_str("name", |r| r.name.as_deref())
        .i64("created", |r| r.created)
        .bool("deleted", |r| r.deleted)
        .opt_str("invoice_default_payment_method", |r| {
            r.invoice_default_payment_method.as_deref()
        })
        .opt_i64("invoice_default_created", |r| r.invoice_default_created)
        .opt_str("default_source", |r| r.default_source.as_deref())
        .finish()
}

fn subscriptions_frame(rows: &[SubscriptionRow]) -> Result<DataFrame, TableError> {
    Frame::new("subscriptions", rows)
        .str("id", |r| &r.id)
        .opt_str("customer", |r| r.customer.as_deref())
        .str("status", |r| r.status.as_str())
        .opt_i64("current_period_start", |r| r.current_period_start)
        .opt_i64("current_period_end", |r| r.current_period_end)
        .opt_str("interval", |r| r.interval.as_deref())
        .i64("interval_count", |r| r.interval_count)
        .opt_str("latest_invoice", |r| r.latest_invoice.as_deref())
        .i64("created", |r| r.created)
        .bool("cancel_at_period_end", |r| r.cancel_at_period_end)
        .currency(|r| r.currency)
        .opt_i64("unit_amount", |r| r.unit_amount)
        .opt_str("default_payment_method", |r| {
            r.default_payment_method.as_deref()
        })
        .opt_str("default_source", |r| r.default_source.as_deref())
        .finish()
}

fn renewal_methods_frame(rows: &[RenewalMethodRow]) -> Result<DataFrame, TableError> {
    Frame::new("renewal_methods", rows)
        .str("subscription", |r| &r.subscription)
        .opt_str("customer", |r| r.customer.as_deref())
        .opt_str("customer_email", |r| r.customer_email.as_deref())
        .opt_str("customer_name", |r| r.customer_name.as_deref())
        .str("status", |r| r.status.as_str())
        .bool("cancel_at_period_end", |r| r.cancel_at_period_end)
        .opt_i64("current_period_end", |r| r.current_period_end)
        .currency(|r| r.currency)
        .opt_i64("amount", |r| r.amount)
        .opt_str("method_source", |r| r.method_source.as_deref())
        .opt_str("payment_method", |r| r.payment_method.as_deref())
        .opt_str("method_type", |r| r.method_type.as_deref())
        .opt_str("card_brand", |r| r.card_brand.as_deref())
        .opt_str("card_last4", |r| r.card_last4.as_deref())
        .opt_i64("card_exp_month", |r| r.card_exp_month)
        .opt_i64("card_exp_year", |r| r.card_exp_year)
        .finish()
}
