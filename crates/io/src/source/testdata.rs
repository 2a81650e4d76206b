//! Seeded random account data for the source module's tests: every field exercised,
//! `None` and `Some`, unknown enum values, odd text (empty, quotes, non-ASCII, commas).

use std::collections::BTreeMap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::stripe::models::{
    ChargeStatus, DisputeStatus, FraudType, InvoiceStatus, PayoutStatus, ReconciliationStatus,
    RefundStatus, SubscriptionStatus, TraceIdStatus,
};
use tieout_core::model::rows::{
    BalanceTxnRow, ChargeRow, CompactString, CustomerRow, DisputeRow, FeeDetailRow,
    FraudWarningRow, InvoicePaymentRow, InvoiceRow, PaymentIntentRow, PayoutId, PayoutRow,
    RefundRow, RenewalMethodRow, SharedText, StripeId, SubscriptionRow,
};
use tieout_core::model::{AccountData, Mode, Origin, SnapshotMeta};
use tieout_core::money::Currency;

const TEXTS: [&str; 8] = [
    "",
    "plain",
    "with, comma",
    "quote \" and 'apostrophe'",
    "Ünïcødé — ✓ 日本",
    "=cmd|' /C calc'!A0",
    "line\nbreak",
    "{\"json\": true}",
];
const CURRENCIES: [&str; 6] = ["usd", "eur", "jpy", "kwd", "isk", "xxx"];

struct G(ChaCha8Rng);

impl G {
    fn text(&mut self) -> String {
        let base = TEXTS[self.0.random_range(0..TEXTS.len())];
        format!("{base}{}", self.0.random_range(0..1000))
    }
    fn opt_text(&mut self) -> Option<String> {
        self.0.random_bool(0.5).then(|| self.text())
    }
    fn id(&mut self, prefix: &str) -> String {
        format!("{prefix}_{:016x}", self.0.random::<u64>())
    }
    fn opt_id(&mut self, prefix: &str) -> Option<String> {
        self.0.random_bool(0.6).then(|| self.id(prefix))
    }
    fn int(&mut self) -> i64 {
        match self.0.random_range(0..4) {
            0 => self.0.random::<i64>(),
            1 => 0,
            _ => self.0.random_range(-1_000_000..1_000_000),
        }
    }
    fn opt_int(&mut self) -> Option<i64> {
        self.0.random_bool(0.5).then(|| self.int())
    }
    fn flag(&mut self) -> bool {
        self.0.random_bool(0.5)
    }
    fn currency(&mut self) -> Currency {
        let c = CURRENCIES[self.0.random_range(0..CURRENCIES.len())];
        Currency::parse(c).unwrap_or(Currency::XXX)
    }
    /// A known enum value, or (one time in four) an unknown one.
    fn status(&mut self, known: &[&str]) -> String {
        if self.0.random_range(0..4) == 0 {
            match self.0.random_range(0..10) {
                0 => String::new(),
                n => format!("brand_new_{n}"),
            }
        } else {
            known[self.0.random_range(0..known.len())].to_string()
        }
    }
    fn metadata(&mut self) -> BTreeMap<String, String> {
        (0..self.0.random_range(0..4))
            .map(|i| (format!("key{i}"), self.text()))
            .collect()
    }
}

/// `n` rows per table, reproducible from `seed`.
pub fn random_data(seed: u64, n: usize) -> AccountData {
    let mut g = G(ChaCha8Rng::seed_from_u64(seed));
    let meta = SnapshotMeta {
        account_id: g.id("acct"),
        account_name: g.opt_text(),
        mode: if g.flag() { Mode::Live } else { Mode::Test },
        origin: Origin::Live,
        api_version: "2026-07-29.dahlia".into(),
        fetched_at: g.int(),
        window_start: g.int(),
        window_end: g.int(),
        default_currency: None,
        payment_methods: tieout_core::model::MethodsRead::Read,
        settled_invoices_since: Some(i64::MIN),
        balance: None,
        lines_complete: false,
        lines_since: None,
        fraud_warnings: Default::default(),
    };
    let mut d = AccountData::empty(meta);
    // Fee details come from their own stream, so the other fields keep their values.
    let mut fees = G(ChaCha8Rng::seed_from_u64(seed ^ 0xfee_de7a));
    for _ in 0..n {
        d.payouts.push(PayoutRow {
            id: g.id("po"),
            amount: g.int(),
            currency: g.currency(),
            arrival_date: g.int(),
            created: g.int(),
            status: PayoutStatus::parse(&g.status(&["paid", "pending", "in_transit", "failed"])),
            automatic: g.flag(),
            method: g.text(),
            reconciliation_status: ReconciliationStatus::parse(&g.status(&[
                "completed",
                "in_progress",
                "not_applicable",
            ])),
            failure_code: g.opt_text(),
            failure_message: g.opt_text(),
            balance_transaction: g.opt_id("txn"),
            failure_balance_transaction: g.opt_id("txn"),
            description: g.opt_text(),
            statement_descriptor: g.opt_text(),
            original_payout: g.opt_id("po"),
            reversed_by: g.opt_id("po"),
            trace_id: g.opt_text(),
            trace_id_status: g
                .flag()
                .then(|| TraceIdStatus::parse(&g.status(&["pending", "supported", "unsupported"]))),
        });
        d.balance_transactions.push(BalanceTxnRow {
            id: g.id("txn").into(),
            payout: g.opt_id("po").map(PayoutId::from),
            kind: g
                .status(&["charge", "refund", "payout", "adjustment"])
                .into(),
            reporting_category: g.text().into(),
            source: g.opt_id("ch").map(StripeId::from),
            created: g.int(),
            available_on: g.int(),
            currency: g.currency(),
            amount: g.int(),
            fee: g.int(),
            net: g.int(),
            description: g.opt_text().map(SharedText::from),
            status: g.status(&["available", "pending"]).into(),
            fee_details: (0..fees.0.random_range(0..3))
                .map(|_| FeeDetailRow {
                    kind: fees
                        .status(&["stripe_fee", "application_fee", "tax"])
                        .into(),
                    amount: fees.int(),
                    currency: fees.currency(),
                    description: fees.opt_text().map(CompactString::from),
                    application: fees.opt_id("ca").map(Box::from),
                })
                .collect(),
            // A third of the lines converted, some rates too long to be held inline.
            exchange_rate: match fees.0.random_range(0..6) {
                0 => tieout_core::model::rate::ExchangeRate::parse(&format!(
                    "{}.{}",
                    fees.0.random_range(0..5),
                    fees.0.random_range(0..1_000_000)
                )),
                1 => tieout_core::model::rate::ExchangeRate::parse(&format!(
                    "0.{}",
                    fees.0.random_range(1_000_000_000_000u64..9_000_000_000_000)
                )),
                _ => None,
            }
            .unwrap_or_default(),
        });
        d.invoices.push(InvoiceRow {
            id: g.id("in").into(),
            number: g.opt_text().map(Into::into),
            customer: g.opt_id("cus").map(Into::into),
            customer_email: g.opt_text().map(Into::into),
            customer_name: g.opt_text().map(Into::into),
            status: InvoiceStatus::parse(&g.status(&["open", "paid", "void", "uncollectible"])),
            collection_method: g.opt_text().map(Into::into),
            currency: g.currency(),
            amount_due: g.int(),
            amount_paid: g.int(),
            amount_remaining: g.int(),
            attempt_count: g.int(),
            attempted: g.flag(),
            next_payment_attempt: g.opt_int(),
            due_date: g.opt_int(),
            created: g.int(),
            subscription: g.opt_id("sub").map(Into::into),
            hosted_invoice_url: g.opt_text(),
            billing_reason: g.opt_text().map(Into::into),
            legacy_payment_intent: g.opt_id("pi").map(Into::into),
            legacy_charge: g.opt_id("ch").map(Into::into),
            status_transitions: Default::default(),
            amount_paid_off_stripe: 0,
        });
        d.invoice_payments.push(InvoicePaymentRow {
            id: g.id("inpay").into(),
            invoice: g.id("in").into(),
            payment_intent: g.opt_id("pi").map(Into::into),
            charge: g.opt_id("ch").map(Into::into),
            status: g.status(&["open", "paid", "canceled"]).into(),
            is_default: g.flag(),
            amount_requested: g.int(),
            amount_paid: g.opt_int(),
            currency: g.currency(),
            created: g.int(),
            payment_type: None,
            paid_at: None,
        });
        d.payment_intents.push(PaymentIntentRow {
            id: g.id("pi").into(),
            customer: g.opt_id("cus").map(Into::into),
            status: g.status(&["requires_payment_method", "succeeded"]).into(),
            amount: g.int(),
            currency: g.currency(),
            created: g.int(),
            latest_charge: g.opt_id("ch").map(Into::into),
            error_code: g.opt_text().map(Into::into),
            error_decline_code: g.opt_text().map(Into::into),
            error_advice_code: g.opt_text().map(Into::into),
            error_message: g.opt_text().map(Into::into),
            error_charge: g.opt_id("ch").map(Into::into),
            error_network_decline_code: g.opt_text().map(Into::into),
            error_payment_method: g.opt_id("pm").map(Into::into),
            error_payment_method_created: g.opt_int(),
        });
        d.charges.push(ChargeRow {
            id: g.id("ch").into(),
            customer: g.opt_id("cus").map(Into::into),
            payment_intent: g.opt_id("pi").map(Into::into),
            amount: g.int(),
            amount_captured: g.int(),
            amount_refunded: g.int(),
            currency: g.currency(),
            status: ChargeStatus::parse(&g.status(&["succeeded", "failed", "pending"])),
            created: g.int(),
            description: g.opt_text().map(Into::into),
            metadata: g.metadata().into(),
            disputed: g.flag(),
            refunded: g.flag(),
            failure_code: g.opt_text().map(Into::into),
            failure_message: g.opt_text().map(Into::into),
            outcome_type: g.opt_text().map(Into::into),
            outcome_reason: g.opt_text().map(Into::into),
            outcome_network_status: g.opt_text().map(Into::into),
            outcome_advice_code: g.opt_text().map(Into::into),
            outcome_seller_message: g.opt_text().map(Into::into),
            balance_transaction: g.opt_id("txn").map(Into::into),
            receipt_email: g.opt_text().map(Into::into),
            billing_email: g.opt_text().map(Into::into),
            payment_method: None,
        });
        d.refunds.push(RefundRow {
            id: g.id("re"),
            charge: g.opt_id("ch"),
            payment_intent: g.opt_id("pi"),
            amount: g.int(),
            currency: g.currency(),
            status: RefundStatus::parse(&g.status(&["succeeded", "pending", "failed"])),
            reason: g.opt_text(),
            failure_reason: g.opt_text(),
            created: g.int(),
        });
        d.disputes.push(DisputeRow {
            id: g.id("dp"),
            charge: g.opt_id("ch"),
            payment_intent: g.opt_id("pi"),
            amount: g.int(),
            currency: g.currency(),
            status: DisputeStatus::parse(&g.status(&["won", "lost", "needs_response"])),
            reason: g.opt_text(),
            created: g.int(),
            is_charge_refundable: g.flag(),
        });
        d.customers.push(CustomerRow {
            id: g.id("cus"),
            email: g.opt_text(),
            name: g.opt_text(),
            created: g.int(),
            deleted: g.flag(),
            invoice_default_payment_method: g.opt_id("pm"),
            invoice_default_created: g.opt_int(),
            default_source: g.opt_id("card"),
        });
        d.subscriptions.push(SubscriptionRow {
            id: g.id("sub"),
            customer: g.opt_id("cus"),
            status: SubscriptionStatus::parse(&g.status(&["active", "past_due", "canceled"])),
            current_period_start: g.opt_int(),
            current_period_end: g.opt_int(),
            interval: g.opt_text(),
            interval_count: g.int(),
            latest_invoice: g.opt_id("in"),
            created: g.int(),
            cancel_at_period_end: g.flag(),
            currency: g.currency(),
            unit_amount: g.opt_int(),
            default_payment_method: g.opt_id("pm"),
            default_source: g.opt_id("src"),
        });
        d.renewal_methods.push(RenewalMethodRow {
            subscription: g.id("sub"),
            customer: g.opt_id("cus"),
            customer_email: g.opt_text(),
            customer_name: g.opt_text(),
            status: SubscriptionStatus::parse(&g.status(&["active", "past_due"])),
            cancel_at_period_end: g.flag(),
            current_period_end: g.opt_int(),
            currency: g.currency(),
            amount: g.opt_int(),
            method_source: g.opt_text(),
            payment_method: g.opt_id("pm"),
            method_type: g.opt_text(),
            card_brand: g.opt_text(),
            card_last4: g.opt_text(),
            card_exp_month: g.opt_int(),
            card_exp_year: g.opt_int(),
        });
        d.fraud_warnings.push(FraudWarningRow {
            id: g.id("issfr"),
            charge: g.opt_id("ch"),
            payment_intent: g.opt_id("pi"),
            created: g.int(),
            fraud_type: FraudType::parse(&g.status(&["misc", "made_with_stolen_card"])),
            actionable: g.flag(),
            charge_fee: g.opt_int(),
        });
    }
    d
}
