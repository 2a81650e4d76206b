//! The frame reader per table: each table's frame becomes its rows again, joined to its
//! [`Table`] in [`read_frame`]. A column added after caches were first written is read
//! leniently (missing reads as `None`), so an older cache still loads.

use foldhash::{HashMap, HashMapExt};

use polars::prelude::DataFrame;
use rayon::prelude::*;

use super::TableError;
use super::cols::{Cols, owned};
use crate::stripe::models::{
    ChargeStatus, DisputeStatus, FraudType, InvoiceStatus, PayoutStatus, ReconciliationStatus,
    RefundStatus, SubscriptionStatus, TraceIdStatus,
};
use tieout_core::model::rows::{
    BalanceTxnRow, ChargeRow, CustomerRow, DisputeRow, ExchangeRate, FeeParts, FraudWarningRow,
    InvoicePaymentRow, InvoiceRow, Metadata, PaymentIntentRow, PayoutRow, RefundRow,
    RenewalMethodRow, SharedText, StripeId, SubscriptionRow,
};
use tieout_core::model::{AccountData, Table};

/// Reads `table`'s rows from `df` into `data` (replacing what it held).
pub(super) fn read_frame(
    df: &DataFrame,
    table: Table,
    data: &mut AccountData,
) -> Result<(), TableError> {
    match table {
        Table::Payouts => data.payouts = payouts_rows(df)?,
        Table::BalanceTransactions => data.balance_transactions = balance_transactions_rows(df)?,
        Table::Invoices => data.invoices = invoices_rows(df)?,
        Table::InvoicePayments => data.invoice_payments = invoice_payments_rows(df)?,
        Table::PaymentIntents => data.payment_intents = payment_intents_rows(df)?,
        Table::Charges => data.charges = charges_rows(df)?,
        Table::Refunds => data.refunds = refunds_rows(df)?,
        Table::Disputes => data.disputes = disputes_rows(df)?,
        Table::Customers => data.customers = customers_rows(df)?,
        Table::Subscriptions => data.subscriptions = subscriptions_rows(df)?,
        Table::RenewalMethods => data.renewal_methods = renewal_methods_rows(df)?,
        Table::FraudWarnings => data.fraud_warnings = fraud_warnings_rows(df)?,
    }
    Ok(())
}

fn payouts_rows(df: &DataFrame) -> Result<Vec<PayoutRow>, TableError> {
    let c = Cols::new("payouts", df);
    let id = c.str("id")?;
    let amount = c.i64("amount")?;
    let currency = c.currency()?;
    let arrival_date = c.i64("arrival_date")?;
    let created = c.i64("created")?;
    let status = c.str("status")?;
    let automatic = c.bool("automatic")?;
    let method = c.str("method")?;
    let recon = c.str("reconciliation_status")?;
    let failure_code = c.opt_str("failure_code")?;
    let failure_message = c.opt_str("failure_message")?;
    let balance_transaction = c.opt_str("balance_transaction")?;
    let failure_bt = c.opt_str("failure_balance_transaction")?;
    let description = c.opt_str("description")?;
    let statement_descriptor = c.opt_str("statement_descriptor")?;
    // Added after caches were first written: a cache without them reads as None.
    let original_payout = c.added_opt_str("original_payout")?;
    let reversed_by = c.added_opt_str("reversed_by")?;
    let trace_id = c.added_opt_str("trace_id")?;
    let trace_id_status = c.added_opt_str("trace_id_status")?;
    Ok((0..c.height())
        .into_par_iter()
        .map(|i| PayoutRow {
            id: id[i].to_string(),
            amount: amount[i],
            currency: currency[i],
            arrival_date: arrival_date[i],
            created: created[i],
            status: PayoutStatus::parse(status[i]),
            automatic: automatic[i],
            method: method[i].to_string(),
            reconciliation_status: ReconciliationStatus::parse(recon[i]),
            failure_code: owned(failure_code[i]),
            failure_message: owned(failure_message[i]),
            balance_transaction: owned(balance_transaction[i]),
            failure_balance_transaction: owned(failure_bt[i]),
            description: owned(description[i]),
            statement_descriptor: owned(statement_descriptor[i]),
            original_payout: original_payout.as_ref().and_then(|v| owned(v[i])),
            reversed_by: reversed_by.as_ref().and_then(|v| owned(v[i])),
            trace_id: trace_id.as_ref().and_then(|v| owned(v[i])),
            trace_id_status: trace_id_status
                .as_ref()
                .and_then(|v| v[i])
                .map(TraceIdStatus::parse),
        })
        .collect())
}

/// Texts many lines repeat (the payout ids of a million lines, their descriptions) as one
/// shared copy per distinct text (a few thousand allocations instead of a million).
fn interned(texts: &[Option<&str>]) -> Vec<Option<SharedText>> {
    let mut seen: HashMap<&str, SharedText> = HashMap::new();
    texts
        .iter()
        .map(|t| t.map(|t| seen.entry(t).or_insert_with(|| t.into()).clone()))
        .collect()
}

fn balance_transactions_rows(df: &DataFrame) -> Result<Vec<BalanceTxnRow>, TableError> {
    let c = Cols::new("balance_transactions", df);
    let id = c.str("id")?;
    let payout = interned(&c.opt_str("payout")?);
    let kind = c.str("kind")?;
    let category = c.str("reporting_category")?;
    let source = c.opt_str("source")?;
    let created = c.i64("created")?;
    let available_on = c.i64("available_on")?;
    let currency = c.currency()?;
    let amount = c.i64("amount")?;
    let fee = c.i64("fee")?;
    let net = c.i64("net")?;
    let description = interned(&c.opt_str("description")?);
    let status = c.str("status")?;
    // Added after caches were first written: a cache without it reads as no details.
    let fee_details = c.added_opt_str("fee_details")?;
    // Added with the conversions (issue 33): a cache without it reads as no rate.
    let exchange_rate = c.added_opt_str("exchange_rate")?;
    (0..c.height())
        .into_par_iter()
        .map(|i| {
            let details = match fee_details.as_ref().and_then(|v| v[i]) {
                None | Some("[]") => FeeParts::NONE,
                Some(text) => serde_json::from_str(text).map_err(|e| {
                    c.err(
                        "fee_details",
                        format!("is not a JSON array of fee details in row {i}: {e}"),
                    )
                })?,
            };
            Ok(BalanceTxnRow {
                id: id[i].into(),
                payout: payout[i].clone(),
                kind: kind[i].into(),
                reporting_category: category[i].into(),
                source: source[i].map(StripeId::from),
                created: created[i],
                available_on: available_on[i],
                currency: currency[i],
                amount: amount[i],
                fee: fee[i],
                net: net[i],
                description: description[i].clone(),
                status: status[i].into(),
                fee_details: details,
                exchange_rate: match exchange_rate.as_ref().and_then(|v| v[i]) {
                    None => ExchangeRate::NONE,
                    Some(text) => ExchangeRate::parse(text).ok_or_else(|| {
                        c.err(
                            "exchange_rate",
                            format!("is not a decimal in row {i}: {text:?}"),
                        )
                    })?,
                },
            })
        })
        .collect()
}

fn invoices_rows(df: &DataFrame) -> Result<Vec<InvoiceRow>, TableError> {
    let c = Cols::new("invoices", df);
    let id = c.str("id")?;
    let number = c.opt_str("number")?;
    let customer = c.opt_str("customer")?;
    let customer_email = c.opt_str("customer_email")?;
    let customer_name = c.opt_str("customer_name")?;
    let status = c.str("status")?;
    let collection_method = c.opt_str("collection_method")?;
    let currency = c.currency()?;
    let amount_due = c.i64("amount_due")?;
    let amount_paid = c.i64("amount_paid")?;
    let amount_remaining = c.i64("amount_remaining")?;
    let attempt_count = c.i64("attempt_count")?;
    let attempted = c.bool("attempted")?;
    let next_payment_attempt = c.opt_i64("next_payment_attempt")?;
    let due_date = c.opt_i64("due_date")?;
    let created = c.i64("created")?;
    let subscription = c.opt_str("subscription")?;
    let hosted_invoice_url = c.opt_str("hosted_invoice_url")?;
    let billing_reason = c.opt_str("billing_reason")?;
    let legacy_payment_intent = c.opt_str("legacy_payment_intent")?;
    let legacy_charge = c.opt_str("legacy_charge")?;
    // Added after caches were first written: a cache without them reads as unknown.
    let paid_at = c.added_opt_i64("paid_at")?;
    let voided_at = c.added_opt_i64("voided_at")?;
    let uncollectible_at = c.added_opt_i64("marked_uncollectible_at")?;
    let off_stripe = c.added_opt_i64("amount_paid_off_stripe")?;
    Ok((0..c.height())
        .into_par_iter()
        .map(|i| InvoiceRow {
            id: id[i].into(),
            number: owned(number[i]),
            customer: owned(customer[i]),
            customer_email: owned(customer_email[i]),
            customer_name: owned(customer_name[i]),
            status: InvoiceStatus::parse(status[i]),
            collection_method: owned(collection_method[i]),
            currency: currency[i],
            amount_due: amount_due[i],
            amount_paid: amount_paid[i],
            amount_remaining: amount_remaining[i],
            attempt_count: attempt_count[i],
            attempted: attempted[i],
            next_payment_attempt: next_payment_attempt[i],
            due_date: due_date[i],
            created: created[i],
            subscription: owned(subscription[i]),
            hosted_invoice_url: owned(hosted_invoice_url[i]),
            billing_reason: owned(billing_reason[i]),
            legacy_payment_intent: owned(legacy_payment_intent[i]),
            legacy_charge: owned(legacy_charge[i]),
            status_transitions: tieout_core::model::rows::StatusTransitions {
                paid_at: added_at(&paid_at, i),
                voided_at: added_at(&voided_at, i),
                marked_uncollectible_at: added_at(&uncollectible_at, i),
            },
            amount_paid_off_stripe: added_at(&off_stripe, i).unwrap_or(0),
        })
        .collect())
}

fn invoice_payments_rows(df: &DataFrame) -> Result<Vec<InvoicePaymentRow>, TableError> {
    let c = Cols::new("invoice_payments", df);
    let id = c.str("id")?;
    let invoice = c.str("invoice")?;
    let payment_intent = c.opt_str("payment_intent")?;
    let charge = c.opt_str("charge")?;
    let status = c.str("status")?;
    let is_default = c.bool("is_default")?;
    let amount_requested = c.i64("amount_requested")?;
    let amount_paid = c.opt_i64("amount_paid")?;
    let currency = c.currency()?;
    let created = c.i64("created")?;
    let payment_type = c.added_opt_str("payment_type")?;
    let paid_at = c.added_opt_i64("paid_at")?;
    Ok((0..c.height())
        .into_par_iter()
        .map(|i| InvoicePaymentRow {
            id: id[i].into(),
            invoice: invoice[i].into(),
            payment_intent: owned(payment_intent[i]),
            charge: owned(charge[i]),
            status: status[i].into(),
            is_default: is_default[i],
            amount_requested: amount_requested[i],
            amount_paid: amount_paid[i],
            currency: currency[i],
            created: created[i],
            payment_type: added_at(&payment_type, i).map(Into::into),
            paid_at: added_at(&paid_at, i),
        })
        .collect())
}

fn payment_intents_rows(df: &DataFrame) -> Result<Vec<PaymentIntentRow>, TableError> {
    let c = Cols::new("payment_intents", df);
    let id = c.str("id")?;
    let customer = c.opt_str("customer")?;
    let status = c.str("status")?;
    let amount = c.i64("amount")?;
    let currency = c.currency()?;
    let created = c.i64("created")?;
    let latest_charge = c.opt_str("latest_charge")?;
    let error_code = c.opt_str("error_code")?;
    let error_decline_code = c.opt_str("error_decline_code")?;
    let error_advice_code = c.opt_str("error_advice_code")?;
    let error_message = c.opt_str("error_message")?;
    let error_charge = c.opt_str("error_charge")?;
    let error_network = c.opt_str("error_network_decline_code")?;
    let error_method = c.added_opt_str("error_payment_method")?;
    let error_method_created = c.added_opt_i64("error_payment_method_created")?;
    Ok((0..c.height())
        .into_par_iter()
        .map(|i| PaymentIntentRow {
            id: id[i].into(),
            customer: owned(customer[i]),
            status: status[i].into(),
            amount: amount[i],
            currency: currency[i],
            created: created[i],
            latest_charge: owned(latest_charge[i]),
            error_code: owned(error_code[i]),
            error_decline_code: owned(error_decline_code[i]),
            error_advice_code: owned(error_advice_code[i]),
            error_message: owned(error_message[i]),
            error_charge: owned(error_charge[i]),
            error_network_decline_code: owned(error_network[i]),
            error_payment_method: added_at(&error_method, i).map(Into::into),
            error_payment_method_created: added_at(&error_method_created, i),
        })
        .collect())
}

fn charges_rows(df: &DataFrame) -> Result<Vec<ChargeRow>, TableError> {
    let c = Cols::new("charges", df);
    let id = c.str("id")?;
    let customer = c.opt_str("customer")?;
    let payment_intent = c.opt_str("payment_intent")?;
    let amount = c.i64("amount")?;
    let amount_captured = c.i64("amount_captured")?;
    let amount_refunded = c.i64("amount_refunded")?;
    let currency = c.currency()?;
    let status = c.str("status")?;
    let created = c.i64("created")?;
    let description = c.opt_str("description")?;
    let metadata = c.str("metadata")?;
    let disputed = c.bool("disputed")?;
    let refunded = c.bool("refunded")?;
    let failure_code = c.opt_str("failure_code")?;
    let failure_message = interned(&c.opt_str("failure_message")?);
    let outcome_type = c.opt_str("outcome_type")?;
    let outcome_reason = c.opt_str("outcome_reason")?;
    let outcome_network_status = c.opt_str("outcome_network_status")?;
    let outcome_advice_code = c.opt_str("outcome_advice_code")?;
    let outcome_seller_message = interned(&c.opt_str("outcome_seller_message")?);
    let balance_transaction = c.opt_str("balance_transaction")?;
    let receipt_email = interned(&c.opt_str("receipt_email")?);
    let billing_email = interned(&c.opt_str("billing_email")?);
    let payment_method = c.added_opt_str("payment_method")?;
    (0..c.height())
        .into_par_iter()
        .map(|i| {
            let meta: Metadata = if metadata[i] == "{}" {
                Metadata::new()
            } else {
                serde_json::from_str(metadata[i]).map_err(|e| {
                    c.err(
                        "metadata",
                        format!("is not a JSON object of strings in row {i}: {e}"),
                    )
                })?
            };
            Ok(ChargeRow {
                id: id[i].into(),
                customer: owned(customer[i]),
                payment_intent: owned(payment_intent[i]),
                amount: amount[i],
                amount_captured: amount_captured[i],
                amount_refunded: amount_refunded[i],
                currency: currency[i],
                status: ChargeStatus::parse(status[i]),
                created: created[i],
                description: owned(description[i]),
                metadata: meta,
                disputed: disputed[i],
                refunded: refunded[i],
                failure_code: owned(failure_code[i]),
                failure_message: failure_message[i].clone(),
                outcome_type: owned(outcome_type[i]),
                outcome_reason: owned(outcome_reason[i]),
                outcome_network_status: owned(outcome_network_status[i]),
                outcome_advice_code: owned(outcome_advice_code[i]),
                outcome_seller_message: outcome_seller_message[i].clone(),
                balance_transaction: owned(balance_transaction[i]),
                receipt_email: receipt_email[i].clone(),
                billing_email: billing_email[i].clone(),
                payment_method: added_at(&payment_method, i).map(Into::into),
            })
        })
        .collect()
}

fn refunds_rows(df: &DataFrame) -> Result<Vec<RefundRow>, TableError> {
    let c = Cols::new("refunds", df);
    let id = c.str("id")?;
    let charge = c.opt_str("charge")?;
    let payment_intent = c.opt_str("payment_intent")?;
    let amount = c.i64("amount")?;
    let currency = c.currency()?;
    let status = c.str("status")?;
    let reason = c.opt_str("reason")?;
    let failure_reason = c.opt_str("failure_reason")?;
    let created = c.i64("created")?;
    Ok((0..c.height())
        .into_par_iter()
        .map(|i| RefundRow {
            id: id[i].to_string(),
            charge: owned(charge[i]),
            payment_intent: owned(payment_intent[i]),
            amount: amount[i],
            currency: currency[i],
            status: RefundStatus::parse(status[i]),
            reason: owned(reason[i]),
            failure_reason: owned(failure_reason[i]),
            created: created[i],
        })
        .collect())
}

fn disputes_rows(df: &DataFrame) -> Result<Vec<DisputeRow>, TableError> {
    let c = Cols::new("disputes", df);
    let id = c.str("id")?;
    let charge = c.opt_str("charge")?;
    let payment_intent = c.opt_str("payment_intent")?;
    let amount = c.i64("amount")?;
    let currency = c.currency()?;
    let status = c.str("status")?;
    let reason = c.opt_str("reason")?;
    let created = c.i64("created")?;
    let refundable = c.bool("is_charge_refundable")?;
    Ok((0..c.height())
        .into_par_iter()
        .map(|i| DisputeRow {
            id: id[i].to_string(),
            charge: owned(charge[i]),
            payment_intent: owned(payment_intent[i]),
            amount: amount[i],
            currency: currency[i],
            status: DisputeStatus::parse(status[i]),
            reason: owned(reason[i]),
            created: created[i],
            is_charge_refundable: refundable[i],
        })
        .collect())
}

fn fraud_warnings_rows(df: &DataFrame) -> Result<Vec<FraudWarningRow>, TableError> {
    let c = Cols::new("fraud_warnings", df);
    let id = c.str("id")?;
    let charge = c.opt_str("charge")?;
    let payment_intent = c.opt_str("payment_intent")?;
    let created = c.i64("created")?;
    let fraud_type = c.str("fraud_type")?;
    let actionable = c.bool("actionable")?;
    let charge_fee = c.opt_i64("charge_fee")?;
    Ok((0..c.height())
        .map(|i| FraudWarningRow {
            id: id[i].to_string(),
            charge: owned(charge[i]),
            payment_intent: owned(payment_intent[i]),
            created: created[i],
            fraud_type: FraudType::parse(fraud_type[i]),
            actionable: actionable[i],
            charge_fee: charge_fee[i],
        })
        .collect())
}

fn customers_rows(df: &DataFrame) -> Result<Vec<CustomerRow>, TableError> {
    let c = Cols::new("customers", df);
    let id = c.str("id")?;
    let email = c.opt_str("email")?;
    let name = c.opt_str("name")?;
    let created = c.i64("created")?;
    let deleted = c.bool("deleted")?;
    let invoice_default = c.added_opt_str("invoice_default_payment_method")?;
    let invoice_default_created = c.added_opt_i64("invoice_default_created")?;
    let default_source = c.added_opt_str("default_source")?;
    Ok((0..c.height())
        .into_par_iter()
        .map(|i| CustomerRow {
            id: id[i].to_string(),
            email: owned(email[i]),
            name: owned(name[i]),
            created: created[i],
            deleted: deleted[i],
            invoice_default_payment_method: added_at(&invoice_default, i).map(Into::into),
            invoice_default_created: added_at(&invoice_default_created, i),
            default_source: added_at(&default_source, i).map(Into::into),
        })
        .collect())
}

fn subscriptions_rows(df: &DataFrame) -> Result<Vec<SubscriptionRow>, TableError> {
    let c = Cols::new("subscriptions", df);
    let id = c.str("id")?;
    let customer = c.opt_str("customer")?;
    let status = c.str("status")?;
    let start = c.opt_i64("current_period_start")?;
    let end = c.opt_i64("current_period_end")?;
    let interval = c.opt_str("interval")?;
    let interval_count = c.i64("interval_count")?;
    let latest_invoice = c.opt_str("latest_invoice")?;
    let created = c.i64("created")?;
    let cancel = c.bool("cancel_at_period_end")?;
    let currency = c.currency()?;
    let unit_amount = c.opt_i64("unit_amount")?;
    let default_method = c.added_opt_str("default_payment_method")?;
    let default_source = c.added_opt_str("default_source")?;
    Ok((0..c.height())
        .into_par_iter()
        .map(|i| SubscriptionRow {
            id: id[i].to_string(),
            customer: owned(customer[i]),
            status: SubscriptionStatus::parse(status[i]),
            current_period_start: start[i],
            current_period_end: end[i],
            interval: owned(interval[i]),
            interval_count: interval_count[i],
            latest_invoice: owned(latest_invoice[i]),
            created: created[i],
            cancel_at_period_end: cancel[i],
            currency: currency[i],
            unit_amount: unit_amount[i],
            default_payment_method: added_at(&default_method, i).map(Into::into),
            default_source: added_at(&default_source, i).map(Into::into),
        })
        .collect())
}

fn renewal_methods_rows(df: &DataFrame) -> Result<Vec<RenewalMethodRow>, TableError> {
    let c = Cols::new("renewal_methods", df);
    let subscription = c.str("subscription")?;
    let customer = c.opt_str("customer")?;
    let email = c.opt_str("customer_email")?;
    let name = c.opt_str("customer_name")?;
    let status = c.str("status")?;
    let cancel = c.bool("cancel_at_period_end")?;
    let end = c.opt_i64("current_period_end")?;
    let currency = c.currency()?;
    let amount = c.opt_i64("amount")?;
    let source = c.opt_str("method_source")?;
    let method = c.opt_str("payment_method")?;
    let kind = c.opt_str("method_type")?;
    let brand = c.opt_str("card_brand")?;
    let last4 = c.opt_str("card_last4")?;
    let exp_month = c.opt_i64("card_exp_month")?;
    let exp_year = c.opt_i64("card_exp_year")?;
    Ok((0..c.height())
        .into_par_iter()
        .map(|i| RenewalMethodRow {
            subscription: subscription[i].to_string(),
            customer: owned(customer[i]),
            customer_email: owned(email[i]),
            customer_name: owned(name[i]),
            status: SubscriptionStatus::parse(status[i]),
            cancel_at_period_end: cancel[i],
            current_period_end: end[i],
            currency: currency[i],
            amount: amount[i],
            method_source: owned(source[i]),
            payment_method: owned(method[i]),
            method_type: owned(kind[i]),
            card_brand: owned(brand[i]),
            card_last4: owned(last4[i]),
            card_exp_month: exp_month[i],
            card_exp_year: exp_year[i],
        })
        .collect())
}

/// Row `i` of a column added after caches were first written (`None` for an older cache).
fn added_at<T: Copy>(column: &Option<Vec<Option<T>>>, i: usize) -> Option<T> {
    column.as_ref().and_then(|v| v.get(i).copied().flatten())
}
