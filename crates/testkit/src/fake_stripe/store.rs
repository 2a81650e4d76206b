//! The fake's in-memory data: Stripe objects kept as raw JSON (exactly what the fixtures
//! hold), one table per object type ordered the way Stripe lists them (newest `created`
//! first, then id descending), plus the account, the balance and which balance
//! transactions each automatic payout paid out.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Bound;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// The object types served as lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ObjectKind {
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
    PaymentMethod,
    EarlyFraudWarning,
}

impl ObjectKind {
    pub const ALL: [ObjectKind; 12] = [
        ObjectKind::Payout,
        ObjectKind::BalanceTransaction,
        ObjectKind::Invoice,
        ObjectKind::InvoicePayment,
        ObjectKind::PaymentIntent,
        ObjectKind::Charge,
        ObjectKind::Refund,
        ObjectKind::Dispute,
        ObjectKind::Customer,
        ObjectKind::Subscription,
        ObjectKind::PaymentMethod,
        ObjectKind::EarlyFraudWarning,
    ];

    /// The `object` field value (`"payout"`).
    pub fn object(self) -> &'static str {
        match self {
            ObjectKind::Payout => "payout",
            ObjectKind::BalanceTransaction => "balance_transaction",
            ObjectKind::Invoice => "invoice",
            ObjectKind::InvoicePayment => "invoice_payment",
            ObjectKind::PaymentIntent => "payment_intent",
            ObjectKind::Charge => "charge",
            ObjectKind::Refund => "refund",
            ObjectKind::Dispute => "dispute",
            ObjectKind::Customer => "customer",
            ObjectKind::Subscription => "subscription",
            ObjectKind::PaymentMethod => "payment_method",
            ObjectKind::EarlyFraudWarning => "radar.early_fraud_warning",
        }
    }

    /// The collection name: the fixture file stem and the URL segment (`"payouts"`).
    pub fn plural(self) -> &'static str {
        match self {
            ObjectKind::Payout => "payouts",
            ObjectKind::BalanceTransaction => "balance_transactions",
            ObjectKind::Invoice => "invoices",
            ObjectKind::InvoicePayment => "invoice_payments",
            ObjectKind::PaymentIntent => "payment_intents",
            ObjectKind::Charge => "charges",
            ObjectKind::Refund => "refunds",
            ObjectKind::Dispute => "disputes",
            ObjectKind::Customer => "customers",
            ObjectKind::Subscription => "subscriptions",
            ObjectKind::PaymentMethod => "payment_methods",
            ObjectKind::EarlyFraudWarning => "early_fraud_warnings",
        }
    }

    /// The list URL (`"/v1/payouts"`; Radar's under `/v1/radar/`).
    pub fn path(self) -> String {
        match self {
            ObjectKind::EarlyFraudWarning => format!("/v1/radar/{}", self.plural()),
            _ => format!("/v1/{}", self.plural()),
        }
    }

    /// How Stripe names it in "No such ...: 'id'".
    pub fn noun(self) -> &'static str {
        match self {
            ObjectKind::BalanceTransaction => "balance transaction",
            ObjectKind::PaymentMethod => "payment method",
            ObjectKind::EarlyFraudWarning => "early fraud warning",
            other => other.object(),
        }
    }

    pub fn from_object(object: &str) -> Option<ObjectKind> {
        ObjectKind::ALL.into_iter().find(|k| k.object() == object)
    }

    pub fn from_plural(plural: &str) -> Option<ObjectKind> {
        ObjectKind::ALL.into_iter().find(|k| k.plural() == plural)
    }

    /// The restricted-key permission a GET of this type needs (RULES.md, "Stripe facts").
    pub fn read_permission(self) -> &'static str {
        match self {
            ObjectKind::Payout => "rak_payout_read",
            ObjectKind::BalanceTransaction => "rak_balance_read",
            ObjectKind::Invoice | ObjectKind::InvoicePayment => "rak_invoice_read",
            ObjectKind::PaymentIntent => "rak_payment_intent_read",
            ObjectKind::Charge | ObjectKind::Refund => "rak_charge_read",
            ObjectKind::Dispute => "rak_dispute_read",
            ObjectKind::Customer => "rak_customer_read",
            ObjectKind::Subscription => "rak_subscription_read",
            ObjectKind::PaymentMethod => "rak_payment_method_read",
            ObjectKind::EarlyFraudWarning => "rak_radar_early_fraud_warning_read",
        }
    }
}

/// Stripe's list order as a key: ascending keys are newest first, ties by id descending.
pub type SortKey = (Reverse<i64>, Reverse<String>);

fn sort_key(value: &Value) -> Option<SortKey> {
    let id = value.get("id")?.as_str()?.to_string();
    let created = value.get("created").and_then(Value::as_i64).unwrap_or(0);
    Some((Reverse(created), Reverse(id)))
}

/// One object type's rows in list order.
#[derive(Debug, Default, Clone)]
pub struct Table {
    rows: BTreeMap<SortKey, Value>,
    keys: HashMap<String, SortKey>,
}

impl Table {
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn get(&self, id: &str) -> Option<&Value> {
        self.rows.get(self.keys.get(id)?)
    }

    pub fn get_mut(&mut self, id: &str) -> Option<&mut Value> {
        self.rows.get_mut(self.keys.get(id)?)
    }

    pub fn key_of(&self, id: &str) -> Option<&SortKey> {
        self.keys.get(id)
    }

    /// Inserts or replaces (by id). Returns false if the value has no string `id`.
    pub fn put(&mut self, value: Value) -> bool {
        let Some(key) = sort_key(&value) else {
            return false;
        };
        let id = key.1.0.clone();
        if let Some(old) = self.keys.insert(id, key.clone()) {
            self.rows.remove(&old);
        }
        self.rows.insert(key, value);
        true
    }

    /// All rows, newest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Value> {
        self.rows.values()
    }

    /// Rows strictly older than `cursor` (what `starting_after` pages through).
    pub fn after(&self, cursor: &SortKey) -> impl DoubleEndedIterator<Item = &Value> {
        self.rows
            .range((Bound::Excluded(cursor.clone()), Bound::Unbounded))
            .map(|(_, v)| v)
    }

    /// Rows strictly newer than `cursor`, nearest first (what `ending_before` pages through).
    pub fn before(&self, cursor: &SortKey) -> impl Iterator<Item = &Value> {
        self.rows.range(..cursor.clone()).rev().map(|(_, v)| v)
    }
}

/// A fixture directory that could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("fake Stripe fixtures: {path}: {message}")]
pub struct FixtureError {
    pub path: PathBuf,
    pub message: String,
}

/// The invoice an invoice payment belongs to (an id, or an expanded object's id).
fn invoice_of(value: &Value) -> Option<&str> {
    match value.get("invoice")? {
        Value::String(id) => Some(id),
        other => other.get("id").and_then(Value::as_str),
    }
}

/// The whole fake account.
#[derive(Debug, Clone)]
pub struct Store {
    pub account: Value,
    pub balance: Value,
    /// `po_...` → the `txn_...` ids it paid out (its own payout transaction included).
    pub payout_lines: HashMap<String, Vec<String>>,
    tables: BTreeMap<ObjectKind, Table>,
    kind_of: HashMap<String, ObjectKind>,
    /// `in_...` → its invoice payments' list keys: what the `payments` includable reads,
    /// without a scan of every invoice payment per invoice of a page (a `--scale 100`
    /// account holds hundreds of thousands).
    payments_of_invoice: HashMap<String, BTreeSet<SortKey>>,
    /// The change log `GET /v1/events` serves ([`Store::record`] adds to it).
    pub events: super::events::EventLog,
}

fn read_json(path: &Path) -> Result<Option<Value>, FixtureError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(FixtureError {
                path: path.to_path_buf(),
                message: format!("cannot read: {e}"),
            });
        }
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| FixtureError {
            path: path.to_path_buf(),
            message: format!("not valid JSON: {e}"),
        })
}

impl Store {
    /// An empty account with a default `acct_` id.
    pub fn empty() -> Store {
        Store {
            account: json!({"id": "acct_1FakeStripe000000", "object": "account"}),
            balance: json!({"object": "balance", "available": [], "pending": [], "livemode": false}),
            payout_lines: HashMap::new(),
            tables: ObjectKind::ALL
                .into_iter()
                .map(|k| (k, Table::default()))
                .collect(),
            kind_of: HashMap::new(),
            payments_of_invoice: HashMap::new(),
            events: super::events::EventLog::default(),
        }
    }

    /// Loads a fixture directory (TEAM.md "Demo fixtures"). Missing files are empty.
    pub fn load(dir: &Path) -> Result<Store, FixtureError> {
        if !dir.is_dir() {
            return Err(FixtureError {
                path: dir.to_path_buf(),
                message: "is not a directory (pass a fixture folder such as fixtures/demo)"
                    .to_string(),
            });
        }
        let mut store = Store::empty();
        if let Some(account) = read_json(&dir.join("account.json"))? {
            store.account = account;
        }
        if let Some(balance) = read_json(&dir.join("balance.json"))? {
            store.balance = balance;
        }
        for kind in ObjectKind::ALL {
            let path = dir.join(format!("{}.json", kind.plural()));
            let Some(value) = read_json(&path)? else {
                continue;
            };
            let Value::Array(items) = value else {
                return Err(FixtureError {
                    path,
                    message: "expected a JSON array of objects".to_string(),
                });
            };
            for (i, item) in items.into_iter().enumerate() {
                if !store.put_kind(kind, item) {
                    return Err(FixtureError {
                        path,
                        message: format!("item {i} is not an object with a string \"id\""),
                    });
                }
            }
        }
        let lines_path = dir.join("payout_lines.json");
        if let Some(lines) = read_json(&lines_path)? {
            store.payout_lines = serde_json::from_value(lines).map_err(|e| FixtureError {
                path: lines_path,
                message: format!("expected {{\"po_...\": [\"txn_...\"]}}: {e}"),
            })?;
        }
        Ok(store)
    }

    pub fn account_id(&self) -> &str {
        self.account
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or("acct_unknown")
    }

    pub fn table(&self, kind: ObjectKind) -> &Table {
        static EMPTY: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
        self.tables
            .get(&kind)
            .unwrap_or_else(|| EMPTY.get_or_init(Table::default))
    }

    pub fn get(&self, kind: ObjectKind, id: &str) -> Option<&Value> {
        self.table(kind).get(id)
    }

    pub fn get_mut(&mut self, kind: ObjectKind, id: &str) -> Option<&mut Value> {
        self.tables.get_mut(&kind)?.get_mut(id)
    }

    /// Any object by id, whatever its type.
    pub fn lookup(&self, id: &str) -> Option<&Value> {
        let kind = self.kind_of.get(id)?;
        self.get(*kind, id)
    }

    /// Inserts or replaces an object into the table of `kind`.
    pub fn put_kind(&mut self, kind: ObjectKind, value: Value) -> bool {
        let Some(id) = value.get("id").and_then(Value::as_str).map(str::to_string) else {
            return false;
        };
        if !value.is_object() {
            return false;
        }
        if kind == ObjectKind::InvoicePayment {
            self.index_invoice_payment(&id, &value);
        }
        let ok = self.tables.entry(kind).or_default().put(value);
        if ok {
            self.kind_of.insert(id, kind);
        }
        ok
    }

    /// Moves an invoice payment's entry in `payments_of_invoice` from the copy it
    /// replaces (if any) to `value`'s invoice.
    fn index_invoice_payment(&mut self, id: &str, value: &Value) {
        let table = self.table(ObjectKind::InvoicePayment);
        let old = table
            .key_of(id)
            .cloned()
            .zip(table.get(id).and_then(invoice_of).map(str::to_string));
        if let Some((old_key, old_invoice)) = old
            && let Some(keys) = self.payments_of_invoice.get_mut(&old_invoice)
        {
            keys.remove(&old_key);
        }
        if let (Some(key), Some(invoice)) = (sort_key(value), invoice_of(value)) {
            self.payments_of_invoice
                .entry(invoice.to_string())
                .or_default()
                .insert(key);
        }
    }

    /// An invoice's payments in list order (newest first).
    pub fn payments_of_invoice(&self, invoice_id: &str) -> impl Iterator<Item = &Value> {
        let table = self.table(ObjectKind::InvoicePayment);
        self.payments_of_invoice
            .get(invoice_id)
            .into_iter()
            .flatten()
            .filter_map(move |key| table.get(&key.1.0))
    }

    /// Inserts or replaces an object; its type comes from its `object` field.
    pub fn put(&mut self, value: Value) -> Result<ObjectKind, String> {
        let object = value
            .get("object")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let kind = ObjectKind::from_object(&object)
            .ok_or_else(|| format!("the fake does not store objects of type {object:?}"))?;
        if self.put_kind(kind, value) {
            Ok(kind)
        } else {
            Err("an object needs a string \"id\"".to_string())
        }
    }

    /// A change: stores `object` (a `*.deleted` event removes nothing: the fake keeps
    /// it) and logs an event of `kind` carrying it at `created`; returns the event id.
    pub fn record(&mut self, kind: &str, object: Value, created: i64) -> Result<String, String> {
        self.put(object.clone())?;
        Ok(self.events.push(kind, object, created))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_orders_newest_first_then_id_descending() {
        let mut t = Table::default();
        for (id, created) in [("a", 1), ("c", 2), ("b", 2), ("d", 0)] {
            assert!(t.put(json!({"id": id, "created": created})));
        }
        let ids: Vec<_> = t.iter().map(|v| v["id"].as_str().unwrap_or("")).collect();
        assert_eq!(ids, vec!["c", "b", "a", "d"]);
        let after_b = t.key_of("b").cloned().expect("b");
        let ids: Vec<_> = t
            .after(&after_b)
            .map(|v| v["id"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(ids, vec!["a", "d"]);
        let before_a = t.key_of("a").cloned().expect("a");
        let ids: Vec<_> = t
            .before(&before_a)
            .map(|v| v["id"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(ids, vec!["b", "c"]);
        // Replacing keeps one row per id, even when `created` changes.
        assert!(t.put(json!({"id": "a", "created": 5})));
        assert_eq!(t.len(), 4);
        assert_eq!(t.iter().next().map(|v| v["id"].clone()), Some(json!("a")));
    }

    #[test]
    fn an_invoices_payments_follow_replacements() {
        let mut store = Store::empty();
        for (id, invoice, created) in [
            ("inpay_a", "in_1", 1),
            ("inpay_b", "in_1", 2),
            ("inpay_c", "in_2", 3),
        ] {
            let ip = json!({"id": id, "object": "invoice_payment", "invoice": invoice, "created": created});
            assert!(store.put(ip).is_ok());
        }
        let ids = |store: &Store, invoice: &str| -> Vec<String> {
            store
                .payments_of_invoice(invoice)
                .map(|v| v["id"].as_str().unwrap_or("").to_string())
                .collect()
        };
        assert_eq!(ids(&store, "in_1"), vec!["inpay_b", "inpay_a"]);
        // Moved to another invoice (expanded this time): it leaves in_1's list.
        let moved = json!({"id": "inpay_a", "object": "invoice_payment", "invoice": {"id": "in_2"}, "created": 4});
        assert!(store.put(moved).is_ok());
        assert_eq!(ids(&store, "in_1"), vec!["inpay_b"]);
        assert_eq!(ids(&store, "in_2"), vec!["inpay_a", "inpay_c"]);
        assert!(ids(&store, "in_3").is_empty());
    }

    #[test]
    fn loads_the_mini_fixtures() {
        let store = Store::load(&super::super::config::mini_fixtures()).expect("mini fixtures");
        assert_eq!(store.account_id(), "acct_1MiniFake0000001");
        assert_eq!(store.table(ObjectKind::BalanceTransaction).len(), 10);
        assert_eq!(store.payout_lines["po_Mini1"].len(), 3);
        assert!(store.lookup("ch_Mini4").is_some());
    }

    #[test]
    fn a_missing_folder_is_a_clear_error() {
        let err = Store::load(Path::new("/nonexistent/fixtures")).expect_err("missing");
        assert!(err.to_string().contains("/nonexistent/fixtures"), "{err}");
    }
}
