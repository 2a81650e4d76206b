//! Payouts and the balance transactions they pay out, with their fee details.

use super::*;

/// A payout to the bank (`po_...`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Payout {
    pub id: String,
    pub amount: Option<i64>,
    pub arrival_date: Option<i64>,
    #[serde(default, deserialize_with = "null_default")]
    pub automatic: bool,
    pub balance_transaction: Option<Expandable<BalanceTransaction>>,
    pub created: Option<i64>,
    pub currency: Option<String>,
    pub description: Option<String>,
    pub failure_balance_transaction: Option<Expandable<BalanceTransaction>>,
    pub failure_code: Option<String>,
    pub failure_message: Option<String>,
    pub livemode: Option<bool>,
    #[serde(default, deserialize_with = "lenient_metadata")]
    pub metadata: BTreeMap<String, String>,
    /// `standard` or `instant`.
    pub method: Option<String>,
    pub reconciliation_status: Option<ReconciliationStatus>,
    pub status: Option<PayoutStatus>,
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    pub original_payout: Option<Expandable<AnyObject>>,
    pub reversed_by: Option<Expandable<AnyObject>>,
    pub statement_descriptor: Option<String>,
    /// The bank's reference for the deposit; Stripe fills it up to ten days after the
    /// payout is paid.
    pub trace_id: Option<TraceId>,
}

/// `payout.trace_id`: a status and, once the bank gives one, the value.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TraceId {
    pub status: Option<TraceIdStatus>,
    pub value: Option<String>,
}

/// A movement of the Stripe balance (`txn_...`). Lists under `?payout=` include the
/// payout's own `type=payout` transaction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BalanceTransaction {
    pub id: String,
    pub amount: Option<i64>,
    pub available_on: Option<i64>,
    pub created: Option<i64>,
    pub currency: Option<String>,
    pub description: Option<String>,
    pub fee: Option<i64>,
    #[serde(default, deserialize_with = "null_default")]
    pub fee_details: Vec<FeeDetail>,
    /// Set when the line was converted: Stripe's decimal, read exactly (text, number or
    /// `null`; anything else is no rate).
    #[serde(default)]
    pub exchange_rate: tieout_core::model::rate::ExchangeRate,
    pub net: Option<i64>,
    pub reporting_category: Option<String>,
    pub source: Option<Expandable<AnyObject>>,
    pub status: Option<String>,
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FeeDetail {
    #[serde(deserialize_with = "null_default")]
    pub amount: i64,
    pub currency: Option<String>,
    pub description: Option<String>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// The Connect application that earned an `application_fee` (its id).
    pub application: Option<String>,
}
