//! The flattened rows of the snapshot's tables: one plain struct per table, what the
//! domain computes on. They are built from the typed Stripe models by the IO crate (`source::from_wire`), stored as polars
//! columns by `source::tables`, and carry money as i64 minor units with a [`Currency`].
//! Pure data: no IO.

pub use compact_str::CompactString;

pub use crate::model::compact::{Metadata, Shared, StripeId, Word};
pub use crate::model::rate::ExchangeRate;

use serde::{Deserialize, Serialize};

use crate::model::status::{
    ChargeStatus, DisputeStatus, FraudType, InvoiceStatus, PayoutStatus, ReconciliationStatus,
    RefundStatus, SubscriptionStatus, TraceIdStatus,
};
use crate::money::{Currency, Money};

/// The placeholder for a currency Stripe did not send or sent malformed (ISO's "no
/// currency" code). Amounts in it are still shown, never dropped.
pub fn unknown_currency() -> Currency {
    Currency::XXX
}

/// Reads a Stripe currency field leniently.
pub fn currency_of(raw: Option<&str>) -> Currency {
    raw.and_then(|c| Currency::parse(c).ok())
        .unwrap_or_else(unknown_currency)
}

/// A payout to the bank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PayoutRow {
    pub id: String,
    pub amount: i64,
    pub currency: Currency,
    pub arrival_date: i64,
    pub created: i64,
    pub status: PayoutStatus,
    pub automatic: bool,
    /// `standard` or `instant`.
    pub method: String,
    pub reconciliation_status: ReconciliationStatus,
    pub failure_code: Option<String>,
    pub failure_message: Option<String>,
    pub balance_transaction: Option<String>,
    pub failure_balance_transaction: Option<String>,
    pub description: Option<String>,
    pub statement_descriptor: Option<String>,
    /// Set on a payout that reverses another: the payout it reverses.
    #[serde(default)]
    pub original_payout: Option<String>,
    /// Set on a payout that was reversed: the payout that reverses it.
    #[serde(default)]
    pub reversed_by: Option<String>,
    /// `trace_id.value`: the reference the bank shows for the deposit, once Stripe has it.
    #[serde(default)]
    pub trace_id: Option<String>,
    /// `trace_id.status` (`pending`, `supported`, `unsupported`); `None` when Stripe sent
    /// no `trace_id`.
    #[serde(default)]
    pub trace_id_status: Option<TraceIdStatus>,
}

impl PayoutRow {
    pub fn money(&self) -> Money {
        Money::new(self.amount, self.currency)
    }
}

/// A balance transaction, with the payout it was listed under (`?payout=`), if any.
///
/// A large account holds a million of these, so the row is kept compact (168 bytes, the
/// exchange rate in what was padding) and
/// mostly free of heap allocations of its own: the ids are [`StripeId`]s (inline), Stripe's
/// short open-set words (`type`, `reporting_category`, `status`) are [`Word`]s (an unknown
/// word is still held as sent), the fee's parts are one pointer ([`FeeParts`]), and the
/// payout id and the description are shared by the rows that hold the same one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BalanceTxnRow {
    pub id: StripeId,
    /// The automatic payout whose `?payout=` listing returned this transaction.
    pub payout: Option<PayoutId>,
    /// Stripe's `type` (open set: `charge`, `refund`, `payout`, `adjustment`, ...).
    pub kind: Word,
    pub reporting_category: Word,
    pub source: Option<StripeId>,
    pub created: i64,
    pub available_on: i64,
    pub currency: Currency,
    pub amount: i64,
    pub fee: i64,
    pub net: i64,
    /// Shared by the lines with the same text (a million lines carry about ten thousand
    /// descriptions: "Payment for invoice ...", "STRIPE PAYOUT", a platform's fee line).
    pub description: Option<SharedText>,
    pub status: Word,
    /// Stripe's itemisation of `fee` (`fee_details`); empty when Stripe gave none or the
    /// cache predates it.
    #[serde(default)]
    pub fee_details: FeeParts,
    /// Stripe's `exchange_rate`: set when the line was settled in a currency other than the
    /// one the customer paid in. Five bytes that were padding (see [`ExchangeRate`]).
    #[serde(default)]
    pub exchange_rate: ExchangeRate,
}

/// A text held by many rows at once, one allocation for all of them. Reads as a `&str`.
pub type SharedText = Shared;

/// A payout id held by many rows at once (every line of a payout holds the same one):
/// one allocation per payout, cloned by reference count. Reads as a `&str`.
pub type PayoutId = Shared;

/// One part of a balance transaction's fee, as Stripe itemises it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeeDetailRow {
    /// `stripe_fee`, `application_fee`, `payment_method_passthrough_fee`, `tax`,
    /// `withheld_tax`, ... (an open set).
    pub kind: Word,
    /// Minor units of `currency`, positive when assessed.
    pub amount: i64,
    pub currency: Currency,
    pub description: Option<CompactString>,
    /// The Connect application that earned an `application_fee`.
    pub application: Option<Box<str>>,
}

/// A balance transaction's fee parts: none on most lines, one on a charge's. The row holds
/// one pointer (16 bytes; nothing allocated when there are none) and the parts sit on the
/// heap in a slice of exactly their number: a part held in the row itself cost every line
/// its 64 bytes, those without parts too (a million lines, a third with one part: 56 MB
/// in the rows against 24 MB on the heap). Reads as a slice of [`FeeDetailRow`]s and
/// serialises as a list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FeeParts(Option<Box<[FeeDetailRow]>>);

impl FeeParts {
    /// No fee parts (Stripe gave none, or the cache predates them).
    pub const NONE: FeeParts = FeeParts(None);

    pub fn as_slice(&self) -> &[FeeDetailRow] {
        self.0.as_deref().unwrap_or_default()
    }
}

impl std::ops::Deref for FeeParts {
    type Target = [FeeDetailRow];
    fn deref(&self) -> &[FeeDetailRow] {
        self.as_slice()
    }
}

impl From<Vec<FeeDetailRow>> for FeeParts {
    fn from(parts: Vec<FeeDetailRow>) -> Self {
        if parts.is_empty() {
            FeeParts::NONE
        } else {
            FeeParts(Some(parts.into_boxed_slice()))
        }
    }
}

impl FromIterator<FeeDetailRow> for FeeParts {
    fn from_iter<I: IntoIterator<Item = FeeDetailRow>>(parts: I) -> Self {
        parts.into_iter().collect::<Vec<_>>().into()
    }
}

impl Serialize for FeeParts {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for FeeParts {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(FeePartsVisitor)
    }
}

/// Reads a list of fee parts into one allocation of exactly their number: a `Vec` would
/// start at four slots and shrink, leaving a freed 256-byte block per line read (a third
/// of a million of them, kept by the allocator, cost more than the rows saved).
struct FeePartsVisitor;

impl<'de> serde::de::Visitor<'de> for FeePartsVisitor {
    type Value = FeeParts;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list of fee details")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<FeeParts, A::Error> {
        let Some(first) = seq.next_element::<FeeDetailRow>()? else {
            return Ok(FeeParts::NONE);
        };
        let Some(second) = seq.next_element::<FeeDetailRow>()? else {
            return Ok(FeeParts(Some(Box::new([first]))));
        };
        let mut parts = vec![first, second];
        while let Some(part) = seq.next_element()? {
            parts.push(part);
        }
        Ok(parts.into())
    }
}

/// An invoice, flattened. A large account holds a hundred thousand: ids are
/// [`StripeId`]s, Stripe's words [`Word`]s, and the short texts (number, customer's email
/// and name) [`CompactString`]s, inline up to 24 bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvoiceRow {
    pub id: StripeId,
    pub number: Option<CompactString>,
    pub customer: Option<StripeId>,
    pub customer_email: Option<CompactString>,
    pub customer_name: Option<CompactString>,
    pub status: InvoiceStatus,
    pub collection_method: Option<Word>,
    pub currency: Currency,
    pub amount_due: i64,
    pub amount_paid: i64,
    pub amount_remaining: i64,
    pub attempt_count: i64,
    pub attempted: bool,
    pub next_payment_attempt: Option<i64>,
    pub due_date: Option<i64>,
    pub created: i64,
    pub subscription: Option<StripeId>,
    pub hosted_invoice_url: Option<String>,
    pub billing_reason: Option<Word>,
    /// Pre-basil `invoice.payment_intent`, kept so older shapes still find their decline.
    pub legacy_payment_intent: Option<StripeId>,
    /// Pre-basil `invoice.charge`.
    pub legacy_charge: Option<StripeId>,
    /// `status_transitions`: when the invoice was paid, voided or written off (the
    /// recovery picture's outcome times). Empty in a cache saved before tieout read them.
    #[serde(default)]
    pub status_transitions: StatusTransitions,
    /// `amount_paid_off_stripe` (basil+): what was paid outside Stripe (the pinned API has
    /// no `paid_out_of_band`). Zero when not sent.
    #[serde(default)]
    pub amount_paid_off_stripe: i64,
}

/// An invoice's `status_transitions` (nullable timestamps, unix seconds).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusTransitions {
    pub paid_at: Option<i64>,
    pub voided_at: Option<i64>,
    pub marked_uncollectible_at: Option<i64>,
}

/// One payment attempt slot of an invoice (ids inline, status a [`Word`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvoicePaymentRow {
    pub id: StripeId,
    pub invoice: StripeId,
    pub payment_intent: Option<StripeId>,
    pub charge: Option<StripeId>,
    pub status: Word,
    pub is_default: bool,
    pub amount_requested: i64,
    pub amount_paid: Option<i64>,
    pub currency: Currency,
    pub created: i64,
    /// `payment.type`: `payment_intent`, `charge` or `payment_record` (a payment made
    /// outside Stripe and recorded on the invoice).
    #[serde(default)]
    pub payment_type: Option<Word>,
    /// `status_transitions.paid_at`.
    #[serde(default)]
    pub paid_at: Option<i64>,
}

/// A PaymentIntent with its `last_payment_error` flattened (ids inline, status and the
/// error's codes [`Word`]s).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaymentIntentRow {
    pub id: StripeId,
    pub customer: Option<StripeId>,
    pub status: Word,
    pub amount: i64,
    pub currency: Currency,
    pub created: i64,
    pub latest_charge: Option<StripeId>,
    pub error_code: Option<Word>,
    pub error_decline_code: Option<Word>,
    pub error_advice_code: Option<Word>,
    pub error_message: Option<CompactString>,
    pub error_charge: Option<StripeId>,
    pub error_network_decline_code: Option<Word>,
    /// `last_payment_error.payment_method`: the payment method the latest failure was on,
    /// and when it was made (the wrong card compares it with the customer's default).
    #[serde(default)]
    pub error_payment_method: Option<StripeId>,
    #[serde(default)]
    pub error_payment_method_created: Option<i64>,
}

/// A charge, succeeded or failed, with its outcome flattened.
///
/// A large account holds hundreds of thousands: the ids are [`StripeId`]s, the outcome's
/// and failure's codes [`Word`]s and the metadata a [`Metadata`], so most of a charge sits
/// in the row itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChargeRow {
    pub id: StripeId,
    pub customer: Option<StripeId>,
    pub payment_intent: Option<StripeId>,
    pub amount: i64,
    pub amount_captured: i64,
    pub amount_refunded: i64,
    pub currency: Currency,
    pub status: ChargeStatus,
    pub created: i64,
    pub description: Option<CompactString>,
    pub metadata: Metadata,
    pub disputed: bool,
    pub refunded: bool,
    pub failure_code: Option<Word>,
    /// Shared by the charges with the same text, as the three texts below (a decline's
    /// message and the seller message are Stripe's sentences, a customer's email repeats
    /// on each of its charges): one pointer a row, one copy per text when read from the
    /// cache.
    pub failure_message: Option<SharedText>,
    pub outcome_type: Option<Word>,
    pub outcome_reason: Option<Word>,
    pub outcome_network_status: Option<Word>,
    pub outcome_advice_code: Option<Word>,
    pub outcome_seller_message: Option<SharedText>,
    pub balance_transaction: Option<StripeId>,
    pub receipt_email: Option<SharedText>,
    pub billing_email: Option<SharedText>,
    /// The payment method the charge was made on (`pm_…`, or a legacy `card_…`/`src_…`).
    #[serde(default)]
    pub payment_method: Option<StripeId>,
}

impl ChargeRow {
    /// What can still be refunded: `amount_captured - amount_refunded`, never negative.
    pub fn refundable(&self) -> i64 {
        (self.amount_captured - self.amount_refunded).max(0)
    }
}

/// A refund.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RefundRow {
    pub id: String,
    pub charge: Option<String>,
    pub payment_intent: Option<String>,
    pub amount: i64,
    pub currency: Currency,
    pub status: RefundStatus,
    pub reason: Option<String>,
    pub failure_reason: Option<String>,
    pub created: i64,
}

/// A dispute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DisputeRow {
    pub id: String,
    pub charge: Option<String>,
    pub payment_intent: Option<String>,
    pub amount: i64,
    pub currency: Currency,
    pub status: DisputeStatus,
    pub reason: Option<String>,
    pub created: i64,
    pub is_charge_refundable: bool,
}

/// An early fraud warning (`issfr_…`): the card network flagged a charge as fraudulent,
/// usually weeks before a dispute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FraudWarningRow {
    pub id: String,
    /// The charge it is for (`None` when Stripe gave none).
    pub charge: Option<String>,
    pub payment_intent: Option<String>,
    pub created: i64,
    pub fraud_type: FraudType,
    /// Stripe's word: no dispute yet and not fully refunded.
    pub actionable: bool,
    /// The fee Stripe kept on the charge (its balance transaction's), when read with it.
    #[serde(default)]
    pub charge_fee: Option<i64>,
}

/// A customer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CustomerRow {
    pub id: String,
    pub email: Option<String>,
    pub name: Option<String>,
    pub created: i64,
    pub deleted: bool,
    /// `invoice_settings.default_payment_method`: what the customer's invoices are charged
    /// to when the subscription names none.
    #[serde(default)]
    pub invoice_default_payment_method: Option<String>,
    /// When that payment method was made, when the read expanded it.
    #[serde(default)]
    pub invoice_default_created: Option<i64>,
    /// The legacy `default_source` (`card_…`/`src_…`), charged when no invoice default
    /// is set.
    #[serde(default)]
    pub default_source: Option<String>,
}

impl CustomerRow {
    /// The payment method the customer's invoices fall back to: the invoice default, else
    /// the legacy default source.
    pub fn invoice_method(&self) -> Option<&str> {
        self.invoice_default_payment_method
            .as_deref()
            .or(self.default_source.as_deref())
    }
}

/// A subscription with its current period and interval taken from its first item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionRow {
    pub id: String,
    pub customer: Option<String>,
    pub status: SubscriptionStatus,
    pub current_period_start: Option<i64>,
    pub current_period_end: Option<i64>,
    /// `day`, `week`, `month` or `year`.
    pub interval: Option<String>,
    pub interval_count: i64,
    pub latest_invoice: Option<String>,
    pub created: i64,
    pub cancel_at_period_end: bool,
    pub currency: Currency,
    pub unit_amount: Option<i64>,
    /// The subscription's own `default_payment_method`: Stripe charges it before the
    /// customer's invoice default.
    #[serde(default)]
    pub default_payment_method: Option<String>,
    /// The legacy `default_source`, charged before the customer's when the subscription
    /// names no default payment method.
    #[serde(default)]
    pub default_source: Option<String>,
}

impl SubscriptionRow {
    /// The payment method Stripe charges the subscription's invoices to first: its own
    /// default payment method, else its own default source.
    pub fn own_method(&self) -> Option<&str> {
        self.default_payment_method
            .as_deref()
            .or(self.default_source.as_deref())
    }
}

/// One active subscription as the card check read it (`GET /v1/subscriptions?status=active`
/// with its default payment method and its customer's invoice default expanded): when it
/// renews, what the renewal charges, and the payment method the renewal is charged to
/// (chosen by [`crate::domain::dunning::expiring::chosen`]), flattened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RenewalMethodRow {
    pub subscription: String,
    pub customer: Option<String>,
    pub customer_email: Option<String>,
    pub customer_name: Option<String>,
    pub status: SubscriptionStatus,
    pub cancel_at_period_end: bool,
    /// The next renewal: the earliest item-level `current_period_end` (2025+ API).
    pub current_period_end: Option<i64>,
    pub currency: Currency,
    /// What the renewal charges: each item's unit amount times its quantity, summed
    /// (`None` when an item's price has no unit amount, e.g. metered or tiered).
    pub amount: Option<i64>,
    /// `subscription_default` or `customer_invoice_default`; `None` when neither is set.
    pub method_source: Option<String>,
    pub payment_method: Option<String>,
    /// Stripe's `type` of the payment method: `card`, `sepa_debit`, `us_bank_account`, ...
    pub method_type: Option<String>,
    pub card_brand: Option<String>,
    pub card_last4: Option<String>,
    pub card_exp_month: Option<i64>,
    pub card_exp_year: Option<i64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_balance_transaction_row_is_as_small_as_promised() {
        assert_eq!(std::mem::size_of::<FeeParts>(), 16);
        assert_eq!(std::mem::size_of::<BalanceTxnRow>(), 168);
    }

    #[test]
    fn fee_parts_read_and_write_as_the_list_they_were() {
        let part = |kind: &str, amount| FeeDetailRow {
            kind: Word::new(kind),
            amount,
            currency: "usd".parse().expect("usd"),
            description: Some("Stripe processing fees".into()),
            application: None,
        };
        for parts in [
            vec![],
            vec![part("stripe_fee", 59)],
            vec![part("stripe_fee", 59), part("tax", 5)],
        ] {
            let held = FeeParts::from(parts.clone());
            assert_eq!(held.as_slice(), parts.as_slice());
            let json = serde_json::to_string(&held).expect("json");
            assert_eq!(json, serde_json::to_string(&parts).expect("json"));
            let back: FeeParts = serde_json::from_str(&json).expect("back");
            assert_eq!(back, held);
        }
        assert_eq!(FeeParts::default(), FeeParts::NONE);
    }
}
