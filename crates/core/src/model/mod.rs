//! The account as tieout understands it, whatever it was read from: plain rows of the
//! objects the three jobs compute on ([`rows`], their strings held compactly by [`compact`]),
//! the status vocabulary Stripe uses for them
//! ([`status`]), what a snapshot is of ([`SnapshotMeta`]), what a read of it is made of
//! ([`resource`]: the [`Resource`]s a sync reads, the [`Parts`] one read makes, the
//! [`AccountIdent`] it reads), and where an id opens in the Stripe Dashboard
//! ([`dashboard`]). No IO: the IO crate turns Stripe's answers, the demo files or the
//! cache into these.

pub mod balance;
pub mod compact;
pub mod dashboard;
pub mod events;
pub mod rate;
pub mod resource;
pub mod rows;
pub mod status;

pub use balance::StripeBalance;
pub use resource::{AccountIdent, Parts, Resource};

use serde::{Deserialize, Serialize};
use strum::IntoStaticStr;

use rows::{
    BalanceTxnRow, ChargeRow, CustomerRow, DisputeRow, FraudWarningRow, InvoicePaymentRow,
    InvoiceRow, PaymentIntentRow, PayoutRow, RefundRow, RenewalMethodRow, SubscriptionRow,
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
    /// The account's default currency (`GET /v1/account`), when the key may read it: the
    /// worklist shows it first.
    #[serde(default)]
    pub default_currency: Option<crate::money::Currency>,
    /// Whether the payment methods active subscriptions renew with were read (the
    /// expiring-cards check): an older cache has not read them.
    #[serde(default)]
    pub payment_methods: MethodsRead,
    /// The paid and void invoices created at or after this instant (unix seconds) were
    /// read (the recovery picture's outcomes); `None`: none were, or a cache written before
    /// tieout recorded it. The demo holds every invoice (`Some(i64::MIN)`).
    #[serde(default)]
    pub settled_invoices_since: Option<i64>,
    /// Stripe's balance (`GET /v1/balance`) with the instant it was read: absent in a cache
    /// or read made before tieout read it, or when the read did not ask for it.
    #[serde(default)]
    pub balance: Option<StripeBalance>,
    /// The balance transactions are every line the account has, not only those of the
    /// window's payouts, so a month's opening can be summed from the lines (the demo, or a
    /// read that listed them all); false in an older cache.
    #[serde(default)]
    pub lines_complete: bool,
    /// Every balance transaction created at or after this instant is in the snapshot,
    /// paid out or not (a sync lists the window's lines by `created` beside its payouts'
    /// lines); `None` in a read that did not, or a cache written before tieout did.
    #[serde(default)]
    pub lines_since: Option<i64>,
    /// Whether the early fraud warnings were read (`GET /v1/radar/early_fraud_warnings`):
    /// an older cache has not read them, and a key without Radar's read is refused.
    #[serde(default)]
    pub fraud_warnings: MethodsRead,
}

impl SnapshotMeta {
    /// Whether every line created at or after `from` is in the snapshot.
    pub fn lines_cover(&self, from: i64) -> bool {
        self.lines_complete || self.lines_since.is_some_and(|s| s <= from)
    }

    /// Stripe's balance, for a roll-forward of lines from `from`: only when the snapshot
    /// holds every line since then, since the opening derived back from the balance
    /// subtracts them (a snapshot of the payouts' lines alone lacks the unpaid ones).
    pub fn balance_for(&self, from: i64) -> Option<&StripeBalance> {
        self.balance.as_ref().filter(|_| self.lines_cover(from))
    }
}

/// Whether a read looked at an optional resource: the payment methods subscriptions renew
/// with, or the early fraud warnings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum MethodsRead {
    /// Not read: a cache saved before tieout read them, or a read that did not ask.
    #[default]
    NotRead,
    /// Read: its table (`renewal_methods`: every active subscription; `fraud_warnings`:
    /// every warning since the charges' start) is complete.
    Read,
    /// The key may not make the read: Stripe's 403 named `permission`.
    Refused { permission: String },
}

/// Declares the account's tables once: for each, its [`Table`] variant, its name (the
/// `AccountData` field, the Parquet file stem, the manifest's row-count key) and its row
/// type. From this one list come [`Table`], [`Table::ALL`], [`Table::name`], the fields of
/// [`AccountData`], [`AccountData::empty`] and the per-table accessors. A new table is a
/// row type, one line here and its frame conversion in the IO crate (an exhaustive
/// `match` there, which the compiler points to).
macro_rules! tables {
    ($($(#[$doc:meta])* $variant:ident => $field:ident: $row:ty,)*) => {
        /// One of the account's tables (see [`AccountData`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Table {
            $($(#[$doc])* $variant,)*
        }

        impl Table {
            /// Every table, in the order they are stored.
            pub const ALL: [Table; Table::COUNT] = [$(Table::$variant,)*];
            /// How many tables there are.
            pub const COUNT: usize = [$(stringify!($variant),)*].len();

            /// The table's name: its `AccountData` field and its Parquet file stem.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Table::$variant => stringify!($field),)*
                }
            }

            /// The table named `name` (as [`Table::name`] gives it).
            pub fn from_name(name: &str) -> Option<Table> {
                Table::ALL.into_iter().find(|t| t.name() == name)
            }

            /// The table's position in [`Table::ALL`].
            pub const fn index(self) -> usize {
                self as usize
            }
        }

        /// The account's data as plain rows: what the domain computes on.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        pub struct AccountData {
            pub meta: SnapshotMeta,
            $(pub $field: Vec<$row>,)*
        }

        impl AccountData {
            /// An account with no objects, e.g. before the first sync.
            pub fn empty(meta: SnapshotMeta) -> Self {
                Self {
                    meta,
                    $($field: Vec::new(),)*
                }
            }

            /// How many rows `table` holds.
            pub fn row_count(&self, table: Table) -> usize {
                match table {
                    $(Table::$variant => self.$field.len(),)*
                }
            }

            /// Replaces `table`'s rows with `from`'s, leaving `from`'s empty.
            pub fn take_table(&mut self, table: Table, from: &mut AccountData) {
                match table {
                    $(Table::$variant => self.$field = std::mem::take(&mut from.$field),)*
                }
            }

            /// Makes room for `additional` more rows of `table` (one allocation for a table
            /// that arrives in slices). A hint: when the room cannot be had (a damaged
            /// count), nothing is reserved and the rows grow as they come.
            pub fn reserve_table(&mut self, table: Table, additional: usize) {
                let _ = match table {
                    $(Table::$variant => self.$field.try_reserve_exact(additional),)*
                };
            }

            /// Appends `from`'s rows of `table` to this account's, leaving `from`'s empty.
            pub fn append_table(&mut self, table: Table, from: &mut AccountData) {
                match table {
                    $(Table::$variant => self.$field.append(&mut from.$field),)*
                }
            }
        }
    };
}

tables! {
    Payouts => payouts: PayoutRow,
    BalanceTransactions => balance_transactions: BalanceTxnRow,
    Invoices => invoices: InvoiceRow,
    InvoicePayments => invoice_payments: InvoicePaymentRow,
    PaymentIntents => payment_intents: PaymentIntentRow,
    Charges => charges: ChargeRow,
    Refunds => refunds: RefundRow,
    Disputes => disputes: DisputeRow,
    Customers => customers: CustomerRow,
    Subscriptions => subscriptions: SubscriptionRow,
    RenewalMethods => renewal_methods: RenewalMethodRow,
    FraudWarnings => fraud_warnings: FraudWarningRow,
}

impl std::fmt::Display for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_named_as_the_cache_files_and_found_by_name() {
        let names: Vec<&str> = Table::ALL.iter().map(|t| t.name()).collect();
        assert_eq!(
            names,
            [
                "payouts",
                "balance_transactions",
                "invoices",
                "invoice_payments",
                "payment_intents",
                "charges",
                "refunds",
                "disputes",
                "customers",
                "subscriptions",
                "renewal_methods",
                "fraud_warnings",
            ]
        );
        for (i, t) in Table::ALL.into_iter().enumerate() {
            assert_eq!(t.index(), i);
            assert_eq!(Table::from_name(t.name()), Some(t));
        }
        assert_eq!(Table::from_name("nope"), None);
    }
}
