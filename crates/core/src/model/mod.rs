//! The account as tieout understands it, whatever it was read from: plain rows of the
//! objects the three jobs compute on ([`rows`]), the status vocabulary Stripe uses for them
//! ([`status`]), and what a snapshot is of ([`SnapshotMeta`]). No IO: the IO crate turns
//! Stripe's answers, the demo files or the cache into these.

pub mod rows;
pub mod status;

use serde::{Deserialize, Serialize};
use strum::IntoStaticStr;

use rows::{
    BalanceTxnRow, ChargeRow, CustomerRow, DisputeRow, InvoicePaymentRow, InvoiceRow,
    PaymentIntentRow, PayoutRow, RefundRow, SubscriptionRow,
};

/// Live or test mode, as the key (and every object's `livemode`) says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Mode {
    Live,
    Test,
}

impl Mode {
    pub fn as_str(&self) -> &'static str {
        self.into()
    }
}

/// How the data at hand was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Origin {
    /// The bundled demo account (`fixtures/demo`), no key, no network.
    Demo,
    /// Read from Stripe in this run.
    Live,
    /// Read from the on-disk cache of an earlier sync.
    Cache,
}

impl Origin {
    pub fn as_str(&self) -> &'static str {
        self.into()
    }
}

/// What a snapshot is of and when it was read. Also the cache's manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SnapshotMeta {
    pub account_id: String,
    pub account_name: Option<String>,
    pub mode: Mode,
    pub origin: Origin,
    /// The `Stripe-Version` the reads were made with.
    pub api_version: String,
    /// Unix seconds when the data was read from Stripe (for the demo: when it was generated).
    pub fetched_at: i64,
    /// Payouts arriving in `[window_start, window_end)` (unix seconds) are included.
    pub window_start: i64,
    pub window_end: i64,
}

/// The account's data as plain rows: what the domain computes on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AccountData {
    pub meta: SnapshotMeta,
    pub payouts: Vec<PayoutRow>,
    pub balance_transactions: Vec<BalanceTxnRow>,
    pub invoices: Vec<InvoiceRow>,
    pub invoice_payments: Vec<InvoicePaymentRow>,
    pub payment_intents: Vec<PaymentIntentRow>,
    pub charges: Vec<ChargeRow>,
    pub refunds: Vec<RefundRow>,
    pub disputes: Vec<DisputeRow>,
    pub customers: Vec<CustomerRow>,
    pub subscriptions: Vec<SubscriptionRow>,
}

impl AccountData {
    /// An account with no objects, e.g. before the first sync.
    pub fn empty(meta: SnapshotMeta) -> Self {
        Self {
            meta,
            payouts: Vec::new(),
            balance_transactions: Vec::new(),
            invoices: Vec::new(),
            invoice_payments: Vec::new(),
            payment_intents: Vec::new(),
            charges: Vec::new(),
            refunds: Vec::new(),
            disputes: Vec::new(),
            customers: Vec::new(),
            subscriptions: Vec::new(),
        }
    }
}
