//! Typed models of the Stripe objects tieout reads, pinned to the shapes of
//! `2026-07-29.dahlia` but parsed leniently: every field that can be absent is an `Option`
//! (or defaults when `null`), every enum carries an `Unknown(String)` arm, and unknown
//! fields are ignored. Pre-2025 fields (`invoice.payment_intent`, `invoice.charge`,
//! `invoice.subscription`, `subscription.current_period_*`) are kept as optional so older
//! shapes parse; the domain prefers the new ones.
//!
//! How a missing field is kept from failing: an `Option` is `None` by itself; a struct
//! whose every field may be absent says `#[serde(default)]` once, at its top; an object
//! with an `id` (which Stripe always sends) marks its other non-`Option` fields one by one.
//!
//! The rooms: `account`, `payouts`, `invoices`, `charges`, `customers` and
//! `payment_methods`, `radar`; this file holds
//! the lenient readers, the expandable reference and the list envelope.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};

mod account;
mod charges;
mod customers;
mod invoices;
mod payment_methods;
mod payouts;
mod radar;

pub use account::*;
pub use charges::*;
pub use customers::*;
pub use invoices::*;
pub use payment_methods::*;
pub use payouts::*;
pub use radar::*;

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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AnyObject {
    pub id: String,
    pub object: Option<String>,
}

macro_rules! has_id {
    ($($t:ty),+) => { $(impl HasId for $t { fn id(&self) -> &str { &self.id } })+ };
}

/// The list envelope, for both cursor lists (`has_more`) and search (`next_page`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[serde(bound(deserialize = "T: Deserialize<'de>", serialize = "T: Serialize"))]
pub struct List<T> {
    #[serde(deserialize_with = "null_default")]
    pub data: Vec<T>,
    #[serde(deserialize_with = "null_default")]
    pub has_more: bool,
    pub url: Option<String>,
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

/// Stripe's error object: the body of a failed request (`{"error": {...}}`) and a
/// PaymentIntent's `last_payment_error`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ApiError {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub code: Option<String>,
    pub decline_code: Option<String>,
    pub advice_code: Option<String>,
    pub message: Option<String>,
    pub param: Option<String>,
    pub network_decline_code: Option<String>,
    pub network_advice_code: Option<String>,
    pub doc_url: Option<String>,
    pub payment_method_type: Option<String>,
    /// The failed charge; an id here (the error body may also carry an object elsewhere).
    #[serde(deserialize_with = "id_or_object")]
    pub charge: Option<String>,
    /// The payment method the failure was on (a PaymentIntent's `last_payment_error`
    /// carries the whole object); read leniently, any other shape is dropped.
    #[serde(deserialize_with = "payment_methods::lenient_value")]
    pub payment_method: Option<PaymentMethod>,
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
#[serde(default)]
pub struct ErrorBody {
    pub error: ApiError,
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
    EarlyFraudWarning,
    Customer,
    Subscription,
    SubscriptionItem,
    PaymentMethod,
    Price,
    Plan
);
