//! Invoices, their payments and the PaymentIntents whose last error says why a payment
//! failed.

use super::*;

/// An invoice (`in_...`). Since basil it carries no `payment_intent`, `charge` or
/// `subscription`; those are read from `payments` and `parent`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Invoice {
    pub id: String,
    pub number: Option<String>,
    pub customer: Option<Expandable<Customer>>,
    pub customer_email: Option<String>,
    pub customer_name: Option<String>,
    pub status: Option<InvoiceStatus>,
    pub collection_method: Option<String>,
    pub currency: Option<String>,
    pub amount_due: Option<i64>,
    pub amount_paid: Option<i64>,
    pub amount_remaining: Option<i64>,
    pub total: Option<i64>,
    #[serde(default, deserialize_with = "null_default")]
    pub attempt_count: i64,
    #[serde(default, deserialize_with = "null_default")]
    pub attempted: bool,
    pub next_payment_attempt: Option<i64>,
    pub due_date: Option<i64>,
    pub created: Option<i64>,
    pub hosted_invoice_url: Option<String>,
    pub billing_reason: Option<String>,
    pub livemode: Option<bool>,
    pub parent: Option<InvoiceParent>,
    /// Only present when expanded (`expand[]=data.payments`); holds the first handful.
    pub payments: Option<List<InvoicePayment>>,
    pub status_transitions: Option<InvoiceStatusTransitions>,
    /// What was paid outside Stripe (basil+; the pinned API has no `paid_out_of_band`).
    pub amount_paid_off_stripe: Option<i64>,
    #[serde(default, deserialize_with = "lenient_metadata")]
    pub metadata: BTreeMap<String, String>,
    /// Pre-basil shapes only.
    pub payment_intent: Option<Expandable<PaymentIntent>>,
    /// Pre-basil shapes only.
    pub charge: Option<Expandable<Charge>>,
    /// Pre-basil shapes only.
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
#[serde(default)]
pub struct InvoiceParent {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub subscription_details: Option<SubscriptionDetails>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SubscriptionDetails {
    /// Expanded by the open invoices' read (`data.parent.subscription_details.subscription`):
    /// the subscription's own default payment method and status (the wrong card).
    #[serde(deserialize_with = "lenient_expandable")]
    pub subscription: Option<Expandable<Subscription>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct InvoiceStatusTransitions {
    pub finalized_at: Option<i64>,
    pub marked_uncollectible_at: Option<i64>,
    pub paid_at: Option<i64>,
    pub voided_at: Option<i64>,
}

/// One payment attempt slot of an invoice (`inpay_...`), basil and later.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvoicePayment {
    pub id: String,
    pub amount_paid: Option<i64>,
    pub amount_requested: Option<i64>,
    pub created: Option<i64>,
    pub currency: Option<String>,
    pub invoice: Option<Expandable<AnyObject>>,
    #[serde(default, deserialize_with = "null_default")]
    pub is_default: bool,
    pub livemode: Option<bool>,
    pub payment: Option<InvoicePaymentTarget>,
    pub status: Option<InvoicePaymentStatus>,
    pub status_transitions: Option<InvoicePaymentTransitions>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct InvoicePaymentTransitions {
    pub canceled_at: Option<i64>,
    pub paid_at: Option<i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct InvoicePaymentTarget {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub payment_intent: Option<Expandable<PaymentIntent>>,
    pub charge: Option<Expandable<Charge>>,
}

/// A PaymentIntent (`pi_...`); `last_payment_error` holds the latest decline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaymentIntent {
    pub id: String,
    pub amount: Option<i64>,
    pub amount_received: Option<i64>,
    pub currency: Option<String>,
    pub customer: Option<Expandable<AnyObject>>,
    pub status: Option<String>,
    pub created: Option<i64>,
    pub description: Option<String>,
    pub last_payment_error: Option<ApiError>,
    pub latest_charge: Option<Expandable<Charge>>,
    pub livemode: Option<bool>,
    #[serde(default, deserialize_with = "lenient_metadata")]
    pub metadata: BTreeMap<String, String>,
}
