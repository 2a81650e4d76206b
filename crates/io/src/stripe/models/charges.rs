//! Charges (succeeded and failed, with their `outcome`), refunds and disputes.

use super::*;

/// A charge (`ch_...`), including failed ones with their `outcome`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Charge {
    pub id: String,
    pub amount: Option<i64>,
    pub amount_captured: Option<i64>,
    pub amount_refunded: Option<i64>,
    pub balance_transaction: Option<Expandable<AnyObject>>,
    pub billing_details: Option<BillingDetails>,
    #[serde(default, deserialize_with = "null_default")]
    pub captured: bool,
    pub created: Option<i64>,
    pub currency: Option<String>,
    pub customer: Option<Expandable<AnyObject>>,
    pub description: Option<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub disputed: bool,
    pub failure_code: Option<String>,
    pub failure_message: Option<String>,
    pub livemode: Option<bool>,
    #[serde(default, deserialize_with = "lenient_metadata")]
    pub metadata: BTreeMap<String, String>,
    pub outcome: Option<Outcome>,
    #[serde(default, deserialize_with = "null_default")]
    pub paid: bool,
    pub payment_intent: Option<Expandable<AnyObject>>,
    /// The payment method charged (`pm_…`; older charges a `card_…` or `src_…`).
    pub payment_method: Option<String>,
    pub receipt_email: Option<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub refunded: bool,
    pub status: Option<ChargeStatus>,
    /// Pre-basil shapes only.
    pub invoice: Option<Expandable<AnyObject>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BillingDetails {
    pub email: Option<String>,
    pub name: Option<String>,
}

/// What the network and Radar said about a charge.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Outcome {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub network_status: Option<String>,
    pub reason: Option<String>,
    pub risk_level: Option<String>,
    pub seller_message: Option<String>,
    pub advice_code: Option<String>,
    pub network_decline_code: Option<String>,
    pub network_advice_code: Option<String>,
}

/// A refund (`re_...`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Refund {
    pub id: String,
    pub amount: Option<i64>,
    pub charge: Option<Expandable<AnyObject>>,
    pub payment_intent: Option<Expandable<AnyObject>>,
    pub currency: Option<String>,
    pub status: Option<RefundStatus>,
    pub reason: Option<String>,
    pub failure_reason: Option<String>,
    pub pending_reason: Option<String>,
    pub created: Option<i64>,
    pub balance_transaction: Option<Expandable<AnyObject>>,
    #[serde(default, deserialize_with = "lenient_metadata")]
    pub metadata: BTreeMap<String, String>,
    pub livemode: Option<bool>,
}

/// A dispute (`dp_...` or `du_...`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dispute {
    pub id: String,
    pub amount: Option<i64>,
    pub charge: Option<Expandable<AnyObject>>,
    pub payment_intent: Option<Expandable<AnyObject>>,
    pub currency: Option<String>,
    pub status: Option<DisputeStatus>,
    pub reason: Option<String>,
    pub created: Option<i64>,
    #[serde(default, deserialize_with = "null_default")]
    pub is_charge_refundable: bool,
    pub livemode: Option<bool>,
}
