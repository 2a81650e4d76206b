//! Typed models of the Stripe objects tieout reads, pinned to the shapes of
//! `2026-07-29.dahlia` but parsed leniently: every field that can be absent is an `Option`
//! (or defaults when `null`), every enum carries an `Unknown(String)` arm, and unknown
//! fields are ignored. Pre-2025 fields (`invoice.payment_intent`, `invoice.charge`,
//! `invoice.subscription`, `subscription.current_period_*`) are kept as optional so older
//! shapes parse; the domain prefers the new ones.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};

/// Treats an explicit JSON `null` as the type's default (an empty list, `false`, ...).
pub fn null_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// Stripe metadata: string values, but tolerate numbers or `null` from odd producers.
pub fn lenient_metadata<'de, D>(d: D) -> Result<BTreeMap<String, String>, D::Error>
where
    D: Deserializer<'de>,
{
    let raw = Option::<BTreeMap<String, serde_json::Value>>::deserialize(d)?.unwrap_or_default();
    Ok(raw
        .into_iter()
        .filter_map(|(k, v)| match v {
            serde_json::Value::Null => None,
            serde_json::Value::String(s) => Some((k, s)),
            other => Some((k, other.to_string())),
        })
        .collect())
}

pub use tieout_core::model::status::*;

/// An expandable field: either the id or the object itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Expandable<T> {
    Id(String),
    Object(Box<T>),
}

/// Objects that have an id, so an [`Expandable`] can always name what it points at.
pub trait HasId {
    fn id(&self) -> &str;
}

impl<T: HasId> Expandable<T> {
    pub fn id(&self) -> &str {
        match self {
            Self::Id(id) => id,
            Self::Object(obj) => obj.id(),
        }
    }

    pub fn object(&self) -> Option<&T> {
        match self {
            Self::Id(_) => None,
            Self::Object(obj) => Some(obj),
        }
    }
}

/// Any object we only need the id of (a bank account, a connected account, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnyObject {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub object: Option<String>,
}

macro_rules! has_id {
    ($($t:ty),+) => { $(impl HasId for $t { fn id(&self) -> &str { &self.id } })+ };
}

/// The list envelope, for both cursor lists (`has_more`) and search (`next_page`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(deserialize = "T: Deserialize<'de>", serialize = "T: Serialize"))]
pub struct List<T> {
    #[serde(default, deserialize_with = "null_default")]
    pub data: Vec<T>,
    #[serde(default, deserialize_with = "null_default")]
    pub has_more: bool,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub next_page: Option<String>,
}

impl<T> Default for List<T> {
    fn default() -> Self {
        Self {
            data: Vec::new(),
            has_more: false,
            url: None,
            next_page: None,
        }
    }
}

/// `GET /v1/account`. Has no `livemode`; a restricted key may not be allowed to read it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Account {
    pub id: String,
    #[serde(default)]
    pub business_profile: Option<BusinessProfile>,
    #[serde(default)]
    pub settings: Option<AccountSettings>,
    #[serde(default)]
    pub email: Option<String>,
    #[serde(default)]
    pub country: Option<String>,
    #[serde(default)]
    pub default_currency: Option<String>,
}

impl Account {
    /// The name people know the account by: the Dashboard display name, else the
    /// business name.
    pub fn display_name(&self) -> Option<&str> {
        self.settings
            .as_ref()
            .and_then(|s| s.dashboard.as_ref())
            .and_then(|d| d.display_name.as_deref())
            .or_else(|| {
                self.business_profile
                    .as_ref()
                    .and_then(|b| b.name.as_deref())
            })
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BusinessProfile {
    #[serde(default)]
    pub name: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AccountSettings {
    #[serde(default)]
    pub dashboard: Option<DashboardSettings>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DashboardSettings {
    #[serde(default)]
    pub display_name: Option<String>,
    #[serde(default)]
    pub timezone: Option<String>,
}

/// `GET /v1/balance`: a cheap read any balance-reading key may make; used to verify keys.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Balance {
    #[serde(default, deserialize_with = "null_default")]
    pub available: Vec<BalanceAmount>,
    #[serde(default, deserialize_with = "null_default")]
    pub pending: Vec<BalanceAmount>,
    #[serde(default)]
    pub livemode: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BalanceAmount {
    #[serde(default, deserialize_with = "null_default")]
    pub amount: i64,
    #[serde(default, deserialize_with = "null_default")]
    pub currency: String,
}

/// A payout to the bank (`po_...`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Payout {
    pub id: String,
    #[serde(default)]
    pub amount: Option<i64>,
    #[serde(default)]
    pub arrival_date: Option<i64>,
    #[serde(default, deserialize_with = "null_default")]
    pub automatic: bool,
    #[serde(default)]
    pub balance_transaction: Option<Expandable<BalanceTransaction>>,
    #[serde(default)]
    pub created: Option<i64>,
    #[serde(default)]
    pub currency: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub failure_balance_transaction: Option<Expandable<BalanceTransaction>>,
    #[serde(default)]
    pub failure_code: Option<String>,
    #[serde(default)]
    pub failure_message: Option<String>,
    #[serde(default)]
    pub livemode: Option<bool>,
    #[serde(default, deserialize_with = "lenient_metadata")]
    pub metadata: BTreeMap<String, String>,
    /// `standard` or `instant`.
    #[serde(default)]
    pub method: Option<String>,
    #[serde(default)]
    pub reconciliation_status: Option<ReconciliationStatus>,
    #[serde(default)]
    pub status: Option<PayoutStatus>,
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    #[serde(default)]
    pub original_payout: Option<Expandable<AnyObject>>,
    #[serde(default)]
    pub reversed_by: Option<Expandable<AnyObject>>,
    #[serde(default)]
    pub statement_descriptor: Option<String>,
}

/// A movement of the Stripe balance (`txn_...`). Lists under `?payout=` include the
/// payout's own `type=payout` transaction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BalanceTransaction {
    pub id: String,
    #[serde(default)]
    pub amount: Option<i64>,
    #[serde(default)]
    pub available_on: Option<i64>,
    #[serde(default)]
    pub created: Option<i64>,
    #[serde(default)]
    pub currency: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub fee: Option<i64>,
    #[serde(default, deserialize_with = "null_default")]
    pub fee_details: Vec<FeeDetail>,
    #[serde(default)]
    pub net: Option<i64>,
    #[serde(default)]
    pub reporting_category: Option<String>,
    #[serde(default)]
    pub source: Option<Expandable<AnyObject>>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FeeDetail {
    #[serde(default, deserialize_with = "null_default")]
    pub amount: i64,
    #[serde(default)]
    pub currency: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
}

/// An invoice (`in_...`). Since basil it carries no `payment_intent`, `charge` or
/// `subscription`; those are read from `payments` and `parent`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Invoice {
    pub id: String,
    #[serde(default)]
    pub number: Option<String>,
    #[serde(default)]
    pub customer: Option<Expandable<Customer>>,
    #[serde(default)]
    pub customer_email: Option<String>,
    #[serde(default)]
    pub customer_name: Option<String>,
    #[serde(default)]
    pub status: Option<InvoiceStatus>,
    #[serde(default)]
    pub collection_method: Option<String>,
    #[serde(default)]
    pub currency: Option<String>,
    #[serde(default)]
    pub amount_due: Option<i64>,
    #[serde(default)]
    pub amount_paid: Option<i64>,
    #[serde(default)]
    pub amount_remaining: Option<i64>,
    #[serde(default)]
    pub total: Option<i64>,
    #[serde(default, deserialize_with = "null_default")]
    pub attempt_count: i64,
    #[serde(default, deserialize_with = "null_default")]
    pub attempted: bool,
    #[serde(default)]
    pub next_payment_attempt: Option<i64>,
    #[serde(default)]
    pub due_date: Option<i64>,
    #[serde(default)]
    pub created: Option<i64>,
    #[serde(default)]
    pub hosted_invoice_url: Option<String>,
    #[serde(default)]
    pub billing_reason: Option<String>,
    #[serde(default)]
    pub livemode: Option<bool>,
    #[serde(default)]
    pub parent: Option<InvoiceParent>,
    /// Only present when expanded (`expand[]=data.payments`); holds the first handful.
    #[serde(default)]
    pub payments: Option<List<InvoicePayment>>,
    #[serde(default)]
    pub status_transitions: Option<InvoiceStatusTransitions>,
    #[serde(default, deserialize_with = "lenient_metadata")]
    pub metadata: BTreeMap<String, String>,
    /// Pre-basil shapes only.
    #[serde(default)]
    pub payment_intent: Option<Expandable<PaymentIntent>>,
    /// Pre-basil shapes only.
    #[serde(default)]
    pub charge: Option<Expandable<Charge>>,
    /// Pre-basil shapes only.
    #[serde(default)]
    pub subscription: Option<Expandable<AnyObject>>,
}

impl Invoice {
    /// The subscription this invoice bills: `parent.subscription_details.subscription`,
    /// else the pre-basil `subscription` field.
    pub fn subscription_id(&self) -> Option<&str> {
        self.parent
            .as_ref()
            .and_then(|p| p.subscription_details.as_ref())
            .and_then(|s| s.subscription.as_ref())
            .map(Expandable::id)
            .or_else(|| self.subscription.as_ref().map(Expandable::id))
    }

    pub fn customer_id(&self) -> Option<&str> {
        self.customer.as_ref().map(Expandable::id)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InvoiceParent {
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    #[serde(default)]
    pub subscription_details: Option<SubscriptionDetails>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionDetails {
    #[serde(default)]
    pub subscription: Option<Expandable<AnyObject>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InvoiceStatusTransitions {
    #[serde(default)]
    pub finalized_at: Option<i64>,
    #[serde(default)]
    pub marked_uncollectible_at: Option<i64>,
    #[serde(default)]
    pub paid_at: Option<i64>,
    #[serde(default)]
    pub voided_at: Option<i64>,
}

/// One payment attempt slot of an invoice (`inpay_...`), basil and later.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvoicePayment {
    pub id: String,
    #[serde(default)]
    pub amount_paid: Option<i64>,
    #[serde(default)]
    pub amount_requested: Option<i64>,
    #[serde(default)]
    pub created: Option<i64>,
    #[serde(default)]
    pub currency: Option<String>,
    #[serde(default)]
    pub invoice: Option<Expandable<AnyObject>>,
    #[serde(default, deserialize_with = "null_default")]
    pub is_default: bool,
    #[serde(default)]
    pub livemode: Option<bool>,
    #[serde(default)]
    pub payment: Option<InvoicePaymentTarget>,
    #[serde(default)]
    pub status: Option<InvoicePaymentStatus>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InvoicePaymentTarget {
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    #[serde(default)]
    pub payment_intent: Option<Expandable<PaymentIntent>>,
    #[serde(default)]
    pub charge: Option<Expandable<Charge>>,
}

/// A PaymentIntent (`pi_...`); `last_payment_error` holds the latest decline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaymentIntent {
    pub id: String,
    #[serde(default)]
    pub amount: Option<i64>,
    #[serde(default)]
    pub amount_received: Option<i64>,
    #[serde(default)]
    pub currency: Option<String>,
    #[serde(default)]
    pub customer: Option<Expandable<AnyObject>>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub created: Option<i64>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub last_payment_error: Option<ApiError>,
    #[serde(default)]
    pub latest_charge: Option<Expandable<Charge>>,
    #[serde(default)]
    pub livemode: Option<bool>,
    #[serde(default, deserialize_with = "lenient_metadata")]
    pub metadata: BTreeMap<String, String>,
}

/// Stripe's error object: the body of a failed request (`{"error": {...}}`) and a
/// PaymentIntent's `last_payment_error`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ApiError {
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub decline_code: Option<String>,
    #[serde(default)]
    pub advice_code: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub param: Option<String>,
    #[serde(default)]
    pub network_decline_code: Option<String>,
    #[serde(default)]
    pub network_advice_code: Option<String>,
    #[serde(default)]
    pub doc_url: Option<String>,
    #[serde(default)]
    pub payment_method_type: Option<String>,
    /// The failed charge; an id here (the error body may also carry an object elsewhere).
    #[serde(default, deserialize_with = "id_or_object")]
    pub charge: Option<String>,
}

/// Reads an expandable reference as its id, whichever form it came in.
pub fn id_or_object<'de, D>(d: D) -> Result<Option<String>, D::Error>
where
    D: Deserializer<'de>,
{
    Ok(
        match Option::<Expandable<AnyObject>>::deserialize(d).unwrap_or(None) {
            Some(Expandable::Id(id)) => Some(id),
            Some(Expandable::Object(o)) => Some(o.id),
            None => None,
        },
    )
}

/// The body of a failed API request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    #[serde(default)]
    pub error: ApiError,
}

/// A charge (`ch_...`), including failed ones with their `outcome`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Charge {
    pub id: String,
    #[serde(default)]
    pub amount: Option<i64>,
    #[serde(default)]
    pub amount_captured: Option<i64>,
    #[serde(default)]
    pub amount_refunded: Option<i64>,
    #[serde(default)]
    pub balance_transaction: Option<Expandable<AnyObject>>,
    #[serde(default)]
    pub billing_details: Option<BillingDetails>,
    #[serde(default, deserialize_with = "null_default")]
    pub captured: bool,
    #[serde(default)]
    pub created: Option<i64>,
    #[serde(default)]
    pub currency: Option<String>,
    #[serde(default)]
    pub customer: Option<Expandable<AnyObject>>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub disputed: bool,
    #[serde(default)]
    pub failure_code: Option<String>,
    #[serde(default)]
    pub failure_message: Option<String>,
    #[serde(default)]
    pub livemode: Option<bool>,
    #[serde(default, deserialize_with = "lenient_metadata")]
    pub metadata: BTreeMap<String, String>,
    #[serde(default)]
    pub outcome: Option<Outcome>,
    #[serde(default, deserialize_with = "null_default")]
    pub paid: bool,
    #[serde(default)]
    pub payment_intent: Option<Expandable<AnyObject>>,
    #[serde(default)]
    pub receipt_email: Option<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub refunded: bool,
    #[serde(default)]
    pub status: Option<ChargeStatus>,
    /// Pre-basil shapes only.
    #[serde(default)]
    pub invoice: Option<Expandable<AnyObject>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BillingDetails {
    #[serde(default)]
    pub email: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
}

/// What the network and Radar said about a charge.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    #[serde(default)]
    pub network_status: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub risk_level: Option<String>,
    #[serde(default)]
    pub seller_message: Option<String>,
    #[serde(default)]
    pub advice_code: Option<String>,
    #[serde(default)]
    pub network_decline_code: Option<String>,
    #[serde(default)]
    pub network_advice_code: Option<String>,
}

/// A refund (`re_...`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Refund {
    pub id: String,
    #[serde(default)]
    pub amount: Option<i64>,
    #[serde(default)]
    pub charge: Option<Expandable<AnyObject>>,
    #[serde(default)]
    pub payment_intent: Option<Expandable<AnyObject>>,
    #[serde(default)]
    pub currency: Option<String>,
    #[serde(default)]
    pub status: Option<RefundStatus>,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub failure_reason: Option<String>,
    #[serde(default)]
    pub pending_reason: Option<String>,
    #[serde(default)]
    pub created: Option<i64>,
    #[serde(default)]
    pub balance_transaction: Option<Expandable<AnyObject>>,
    #[serde(default, deserialize_with = "lenient_metadata")]
    pub metadata: BTreeMap<String, String>,
    #[serde(default)]
    pub livemode: Option<bool>,
}

/// A dispute (`dp_...` or `du_...`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dispute {
    pub id: String,
    #[serde(default)]
    pub amount: Option<i64>,
    #[serde(default)]
    pub charge: Option<Expandable<AnyObject>>,
    #[serde(default)]
    pub payment_intent: Option<Expandable<AnyObject>>,
    #[serde(default)]
    pub currency: Option<String>,
    #[serde(default)]
    pub status: Option<DisputeStatus>,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub created: Option<i64>,
    #[serde(default, deserialize_with = "null_default")]
    pub is_charge_refundable: bool,
    #[serde(default)]
    pub livemode: Option<bool>,
}

/// A customer (`cus_...`). A deleted customer comes back with `deleted: true`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Customer {
    pub id: String,
    #[serde(default)]
    pub email: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub created: Option<i64>,
    #[serde(default, deserialize_with = "null_default")]
    pub deleted: bool,
    #[serde(default)]
    pub livemode: Option<bool>,
    #[serde(default, deserialize_with = "lenient_metadata")]
    pub metadata: BTreeMap<String, String>,
}

/// A subscription (`sub_...`). Periods live on its items since basil.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Subscription {
    pub id: String,
    #[serde(default)]
    pub customer: Option<Expandable<AnyObject>>,
    #[serde(default)]
    pub status: Option<SubscriptionStatus>,
    #[serde(default)]
    pub items: Option<List<SubscriptionItem>>,
    #[serde(default)]
    pub created: Option<i64>,
    #[serde(default)]
    pub currency: Option<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub cancel_at_period_end: bool,
    #[serde(default)]
    pub canceled_at: Option<i64>,
    #[serde(default)]
    pub latest_invoice: Option<Expandable<AnyObject>>,
    #[serde(default)]
    pub collection_method: Option<String>,
    #[serde(default)]
    pub livemode: Option<bool>,
    /// Pre-basil shapes only.
    #[serde(default)]
    pub current_period_start: Option<i64>,
    /// Pre-basil shapes only.
    #[serde(default)]
    pub current_period_end: Option<i64>,
    /// Legacy (single-plan) shapes only; the interval lives on the items otherwise.
    #[serde(default)]
    pub plan: Option<Plan>,
}

impl Subscription {
    /// The current period: the first item's period, else the pre-basil top-level fields.
    pub fn current_period(&self) -> (Option<i64>, Option<i64>) {
        let item = self.items.as_ref().and_then(|l| l.data.first());
        let start = item
            .and_then(|i| i.current_period_start)
            .or(self.current_period_start);
        let end = item
            .and_then(|i| i.current_period_end)
            .or(self.current_period_end);
        (start, end)
    }

    /// The billing interval (`month`, `year`, ...) and its count, from the first item's
    /// price, else its legacy plan, else the legacy top-level `plan`.
    pub fn interval(&self) -> Option<(String, i64)> {
        let item = self.items.as_ref().and_then(|l| l.data.first());
        if let Some(rec) = item
            .and_then(|i| i.price.as_ref())
            .and_then(|p| p.recurring.as_ref())
            && let Some(interval) = &rec.interval
        {
            return Some((interval.clone(), rec.interval_count.unwrap_or(1)));
        }
        let plan = item.and_then(|i| i.plan.as_ref()).or(self.plan.as_ref())?;
        Some((plan.interval.clone()?, plan.interval_count.unwrap_or(1)))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionItem {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub current_period_start: Option<i64>,
    #[serde(default)]
    pub current_period_end: Option<i64>,
    #[serde(default)]
    pub price: Option<Price>,
    #[serde(default)]
    pub plan: Option<Plan>,
    #[serde(default)]
    pub quantity: Option<i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Price {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub unit_amount: Option<i64>,
    #[serde(default)]
    pub currency: Option<String>,
    #[serde(default)]
    pub recurring: Option<Recurring>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Recurring {
    #[serde(default)]
    pub interval: Option<String>,
    #[serde(default)]
    pub interval_count: Option<i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub amount: Option<i64>,
    #[serde(default)]
    pub currency: Option<String>,
    #[serde(default)]
    pub interval: Option<String>,
    #[serde(default)]
    pub interval_count: Option<i64>,
}

has_id!(
    AnyObject,
    Account,
    Payout,
    BalanceTransaction,
    Invoice,
    InvoicePayment,
    PaymentIntent,
    Charge,
    Refund,
    Dispute,
    Customer,
    Subscription,
    SubscriptionItem,
    Price,
    Plan
);
