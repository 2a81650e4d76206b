//! The Stripe objects the generator writes, in the `2026-07-29.dahlia` shapes (field
//! order fixed by declaration, so output bytes never depend on serde_json features).
//! Only what a Stripe account would return; absent values are `null` as Stripe sends them.

use std::collections::BTreeMap;

use serde::Serialize;

pub type Metadata = BTreeMap<String, String>;

#[derive(Debug, Clone, Serialize)]
pub struct ListOf<T> {
    pub object: &'static str,
    pub data: Vec<T>,
    pub has_more: bool,
    pub total_count: u64,
    pub url: String,
}

impl<T> ListOf<T> {
    pub fn new(data: Vec<T>, url: String) -> Self {
        let total_count = data.len() as u64;
        Self {
            object: "list",
            data,
            has_more: false,
            total_count,
            url,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Account {
    pub id: String,
    pub object: &'static str,
    pub business_profile: BusinessProfile,
    pub business_type: &'static str,
    pub charges_enabled: bool,
    pub country: &'static str,
    pub created: i64,
    pub default_currency: &'static str,
    pub details_submitted: bool,
    pub email: &'static str,
    pub payouts_enabled: bool,
    pub settings: AccountSettings,
    #[serde(rename = "type")]
    pub kind: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct BusinessProfile {
    pub mcc: &'static str,
    pub name: &'static str,
    pub support_email: &'static str,
    pub url: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct AccountSettings {
    pub dashboard: Dashboard,
    pub payouts: PayoutSettings,
}

#[derive(Debug, Clone, Serialize)]
pub struct Dashboard {
    pub display_name: &'static str,
    pub timezone: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct PayoutSettings {
    pub debit_negative_balances: bool,
    pub schedule: PayoutSchedule,
    pub statement_descriptor: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PayoutSchedule {
    pub delay_days: u32,
    pub interval: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct Balance {
    pub object: &'static str,
    pub available: Vec<BalanceAmount>,
    pub livemode: bool,
    pub pending: Vec<BalanceAmount>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BalanceAmount {
    pub amount: i64,
    pub currency: String,
    pub source_types: BTreeMap<&'static str, i64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Customer {
    pub id: String,
    pub object: &'static str,
    pub address: Option<()>,
    pub balance: i64,
    pub created: i64,
    pub currency: Option<String>,
    pub default_source: Option<String>,
    pub delinquent: bool,
    pub description: Option<String>,
    pub email: Option<String>,
    pub invoice_prefix: String,
    pub invoice_settings: InvoiceSettings,
    pub livemode: bool,
    pub metadata: Metadata,
    pub name: Option<String>,
    pub phone: Option<String>,
    pub preferred_locales: Vec<String>,
    pub shipping: Option<()>,
    pub tax_exempt: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct InvoiceSettings {
    pub custom_fields: Option<()>,
    pub default_payment_method: Option<String>,
    pub footer: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FeeDetail {
    pub amount: i64,
    pub application: Option<String>,
    pub currency: String,
    pub description: &'static str,
    #[serde(rename = "type")]
    pub kind: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct BalanceTransaction {
    pub id: String,
    pub object: &'static str,
    pub amount: i64,
    pub available_on: i64,
    pub balance_type: &'static str,
    pub created: i64,
    pub currency: String,
    pub description: Option<String>,
    /// Stripe's own field: a decimal rate (settlement per presentment major unit) when
    /// the charge was converted. Not money; written as Stripe writes it.
    pub exchange_rate: Option<f64>,
    pub fee: i64,
    pub fee_details: Vec<FeeDetail>,
    pub net: i64,
    pub reporting_category: &'static str,
    pub source: Option<String>,
    pub status: &'static str,
    #[serde(rename = "type")]
    pub kind: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct Payout {
    pub id: String,
    pub object: &'static str,
    pub amount: i64,
    pub application_fee: Option<String>,
    pub application_fee_amount: Option<i64>,
    pub arrival_date: i64,
    pub automatic: bool,
    pub balance_transaction: String,
    pub created: i64,
    pub currency: String,
    pub description: Option<String>,
    pub destination: String,
    pub failure_balance_transaction: Option<String>,
    pub failure_code: Option<&'static str>,
    pub failure_message: Option<&'static str>,
    pub livemode: bool,
    pub metadata: Metadata,
    pub method: &'static str,
    pub original_payout: Option<String>,
    pub reconciliation_status: &'static str,
    pub reversed_by: Option<String>,
    pub source_type: &'static str,
    pub statement_descriptor: Option<String>,
    pub status: &'static str,
    pub trace_id: Option<TraceId>,
    #[serde(rename = "type")]
    pub kind: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct TraceId {
    pub status: &'static str,
    pub value: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BillingDetails {
    pub address: Option<()>,
    pub email: Option<String>,
    pub name: Option<String>,
    pub phone: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub advice_code: Option<&'static str>,
    pub network_advice_code: Option<&'static str>,
    pub network_decline_code: Option<&'static str>,
    pub network_status: &'static str,
    pub reason: Option<&'static str>,
    pub risk_level: &'static str,
    pub risk_score: i64,
    pub seller_message: &'static str,
    #[serde(rename = "type")]
    pub kind: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct Card {
    pub brand: &'static str,
    pub country: &'static str,
    pub exp_month: u32,
    pub exp_year: u32,
    pub funding: &'static str,
    pub last4: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct PaymentMethodDetails {
    pub card: Card,
    #[serde(rename = "type")]
    pub kind: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct Charge {
    pub id: String,
    pub object: &'static str,
    pub amount: i64,
    pub amount_captured: i64,
    pub amount_refunded: i64,
    pub balance_transaction: Option<String>,
    pub billing_details: BillingDetails,
    pub calculated_statement_descriptor: &'static str,
    pub captured: bool,
    pub created: i64,
    pub currency: String,
    pub customer: Option<String>,
    pub description: Option<String>,
    pub disputed: bool,
    pub failure_balance_transaction: Option<String>,
    pub failure_code: Option<&'static str>,
    pub failure_message: Option<&'static str>,
    pub livemode: bool,
    pub metadata: Metadata,
    pub outcome: Outcome,
    pub paid: bool,
    pub payment_intent: Option<String>,
    pub payment_method: String,
    pub payment_method_details: PaymentMethodDetails,
    pub receipt_email: Option<String>,
    pub receipt_url: Option<String>,
    pub refunded: bool,
    pub status: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct LastPaymentError {
    pub advice_code: Option<&'static str>,
    pub charge: String,
    pub code: &'static str,
    pub decline_code: Option<&'static str>,
    pub doc_url: String,
    pub message: &'static str,
    pub network_decline_code: Option<&'static str>,
    /// The payment method the failure was on, the whole object as Stripe sends it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payment_method: Option<PaymentMethod>,
    pub payment_method_type: &'static str,
    #[serde(rename = "type")]
    pub kind: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct PaymentIntent {
    pub id: String,
    pub object: &'static str,
    pub amount: i64,
    pub amount_capturable: i64,
    pub amount_received: i64,
    pub capture_method: &'static str,
    pub confirmation_method: &'static str,
    pub created: i64,
    pub currency: String,
    pub customer: Option<String>,
    pub description: Option<String>,
    pub last_payment_error: Option<LastPaymentError>,
    pub latest_charge: Option<String>,
    pub livemode: bool,
    pub metadata: Metadata,
    pub payment_method: Option<String>,
    pub payment_method_types: Vec<&'static str>,
    pub status: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct Refund {
    pub id: String,
    pub object: &'static str,
    pub amount: i64,
    pub balance_transaction: Option<String>,
    pub charge: String,
    pub created: i64,
    pub currency: String,
    pub destination_details: Option<()>,
    pub metadata: Metadata,
    pub payment_intent: Option<String>,
    pub reason: Option<&'static str>,
    pub receipt_number: Option<String>,
    pub status: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct EvidenceDetails {
    pub due_by: Option<i64>,
    pub has_evidence: bool,
    pub past_due: bool,
    pub submission_count: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct Dispute {
    pub id: String,
    pub object: &'static str,
    pub amount: i64,
    pub balance_transactions: Vec<BalanceTransaction>,
    pub charge: String,
    pub created: i64,
    pub currency: String,
    pub evidence_details: EvidenceDetails,
    pub is_charge_refundable: bool,
    pub livemode: bool,
    pub metadata: Metadata,
    pub payment_intent: Option<String>,
    pub reason: &'static str,
    pub status: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct Recurring {
    pub interval: &'static str,
    pub interval_count: u32,
    pub meter: Option<String>,
    pub usage_type: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct Price {
    pub id: String,
    pub object: &'static str,
    pub active: bool,
    pub billing_scheme: &'static str,
    pub created: i64,
    pub currency: String,
    pub livemode: bool,
    pub lookup_key: Option<String>,
    pub nickname: Option<String>,
    pub product: String,
    pub recurring: Recurring,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub unit_amount: i64,
}

#[derive(Debug, Clone, Serialize)]
pub struct SubscriptionItem {
    pub id: String,
    pub object: &'static str,
    pub created: i64,
    pub current_period_end: i64,
    pub current_period_start: i64,
    pub metadata: Metadata,
    pub price: Price,
    pub quantity: i64,
    pub subscription: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Subscription {
    pub id: String,
    pub object: &'static str,
    pub billing_cycle_anchor: i64,
    pub cancel_at: Option<i64>,
    pub cancel_at_period_end: bool,
    pub canceled_at: Option<i64>,
    pub collection_method: &'static str,
    pub created: i64,
    pub currency: String,
    pub customer: String,
    pub days_until_due: Option<i64>,
    pub default_payment_method: Option<String>,
    pub ended_at: Option<i64>,
    pub items: ListOf<SubscriptionItem>,
    pub latest_invoice: Option<String>,
    pub livemode: bool,
    pub metadata: Metadata,
    pub start_date: i64,
    pub status: &'static str,
}

/// A payment method (`pm_...`), as `payment_methods.json` holds it.
#[derive(Debug, Clone, Serialize)]
pub struct PaymentMethod {
    pub id: String,
    pub object: &'static str,
    pub billing_details: BillingDetails,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card: Option<PmCard>,
    pub created: i64,
    pub customer: Option<String>,
    pub livemode: bool,
    pub metadata: Metadata,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sepa_debit: Option<SepaDebit>,
    #[serde(rename = "type")]
    pub kind: &'static str,
}

/// A card payment method's `card`.
#[derive(Debug, Clone, Serialize)]
pub struct PmCard {
    pub brand: &'static str,
    pub country: &'static str,
    pub exp_month: u32,
    pub exp_year: i32,
    pub funding: &'static str,
    pub last4: String,
}

/// A SEPA Direct Debit payment method's `sepa_debit`.
#[derive(Debug, Clone, Serialize)]
pub struct SepaDebit {
    pub bank_code: &'static str,
    pub country: &'static str,
    pub last4: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct SubscriptionDetails {
    pub metadata: Metadata,
    pub subscription: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct InvoiceParent {
    pub quote_details: Option<()>,
    pub subscription_details: Option<SubscriptionDetails>,
    #[serde(rename = "type")]
    pub kind: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct StatusTransitions {
    pub finalized_at: Option<i64>,
    pub marked_uncollectible_at: Option<i64>,
    pub paid_at: Option<i64>,
    pub voided_at: Option<i64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Period {
    pub end: i64,
    pub start: i64,
}

#[derive(Debug, Clone, Serialize)]
pub struct LineParent {
    pub invoice_item_details: Option<()>,
    pub subscription_item_details: Option<SubscriptionItemDetails>,
    #[serde(rename = "type")]
    pub kind: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct SubscriptionItemDetails {
    pub invoice_item: Option<String>,
    pub proration: bool,
    pub subscription: String,
    pub subscription_item: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct LineItem {
    pub id: String,
    pub object: &'static str,
    pub amount: i64,
    pub currency: String,
    pub description: String,
    pub invoice: String,
    pub livemode: bool,
    pub metadata: Metadata,
    pub parent: Option<LineParent>,
    pub period: Period,
    pub quantity: i64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Invoice {
    pub id: String,
    pub object: &'static str,
    pub account_country: &'static str,
    pub account_name: &'static str,
    pub amount_due: i64,
    pub amount_overpaid: i64,
    pub amount_paid: i64,
    pub amount_remaining: i64,
    pub attempt_count: i64,
    pub attempted: bool,
    pub auto_advance: bool,
    pub billing_reason: &'static str,
    pub collection_method: &'static str,
    pub created: i64,
    pub currency: String,
    pub customer: String,
    pub customer_email: Option<String>,
    pub customer_name: Option<String>,
    pub description: Option<String>,
    pub due_date: Option<i64>,
    pub hosted_invoice_url: Option<String>,
    pub invoice_pdf: Option<String>,
    pub lines: ListOf<LineItem>,
    pub livemode: bool,
    pub metadata: Metadata,
    pub next_payment_attempt: Option<i64>,
    pub number: Option<String>,
    pub parent: Option<InvoiceParent>,
    pub period_end: i64,
    pub period_start: i64,
    pub status: &'static str,
    pub status_transitions: StatusTransitions,
    pub subtotal: i64,
    pub total: i64,
    /// Paid outside Stripe (basil+); only written when set, as the demo's older invoices
    /// were.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount_paid_off_stripe: Option<i64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct InvoicePaymentTarget {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub payment_intent: String,
    /// A payment made outside Stripe and recorded on the invoice (`type: payment_record`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payment_record: Option<String>,
    #[serde(rename = "type")]
    pub kind: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct InvoicePaymentTransitions {
    pub canceled_at: Option<i64>,
    pub paid_at: Option<i64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct InvoicePayment {
    pub id: String,
    pub object: &'static str,
    pub amount_paid: Option<i64>,
    pub amount_requested: i64,
    pub created: i64,
    pub currency: String,
    pub invoice: String,
    pub is_default: bool,
    pub livemode: bool,
    pub payment: InvoicePaymentTarget,
    pub status: &'static str,
    pub status_transitions: InvoicePaymentTransitions,
}
