//! Fuzzing the Stripe JSON models (`src/stripe/models.rs`) the way the client reads them
//! (bytes through `serde_path_to_error`, single objects and list pages), from Stripe's
//! canonical objects (`fixtures/stripe/fixtures3.json`) and the demo account's objects
//! (`fixtures/demo/*.json`):
//!
//! - lenient mutations (a field removed, set to `null`, a string replaced by any other
//!   string, e.g. an enum value this tieout does not know, an unknown field added) always
//!   parse;
//! - hostile mutations (any node replaced by any JSON value) never panic, and a refusal
//!   names a path that leads to the mutated node;
//! - mangled bytes (truncated, bytes flipped or inserted) and arbitrary JSON documents
//!   never panic, and a refusal names the line and column.

use std::sync::OnceLock;

use proptest::prelude::*;
use proptest::sample::Index;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use tieout::stripe::models::{
    Account, Balance, BalanceTransaction, Charge, Customer, Dispute, ErrorBody, Invoice,
    InvoicePayment, List, PaymentIntent, Payout, Refund, Subscription,
};

use crate::fuzz_kit::fuzz;

/// The object types the client reads, by their `object` name.
const KINDS: &[&str] = &[
    "account",
    "balance",
    "payout",
    "balance_transaction",
    "invoice",
    "invoice_payment",
    "payment_intent",
    "charge",
    "refund",
    "dispute",
    "customer",
    "subscription",
];

/// Demo files and how many of their objects seed the mutations.
const DEMO_FILES: &[(&str, &str)] = &[
    ("account", "account.json"),
    ("balance", "balance.json"),
    ("payout", "payouts.json"),
    ("balance_transaction", "balance_transactions.json"),
    ("invoice", "invoices.json"),
    ("invoice_payment", "invoice_payments.json"),
    ("payment_intent", "payment_intents.json"),
    ("charge", "charges.json"),
    ("refund", "refunds.json"),
    ("dispute", "disputes.json"),
    ("customer", "customers.json"),
    ("subscription", "subscriptions.json"),
];
const DEMO_PER_FILE: usize = 6;

/// Field names the models know, so arbitrary documents hit real fields.
const FIELD_NAMES: &[&str] = &[
    "id",
    "object",
    "amount",
    "amount_paid",
    "amount_due",
    "currency",
    "status",
    "data",
    "has_more",
    "next_page",
    "metadata",
    "created",
    "customer",
    "charge",
    "invoice",
    "balance_transaction",
    "items",
    "price",
    "recurring",
    "plan",
    "parent",
    "subscription_details",
    "subscription",
    "payments",
    "payment",
    "payment_intent",
    "last_payment_error",
    "outcome",
    "billing_details",
    "fee_details",
    "available",
    "pending",
    "settings",
    "dashboard",
    "business_profile",
    "type",
    "error",
    "automatic",
    "disputed",
    "livemode",
    "interval_count",
];

/// `(kind, object)` seeds: Stripe's canonical objects, then some of the demo's.
fn bases() -> &'static [(&'static str, Value)] {
    static BASES: OnceLock<Vec<(&'static str, Value)>> = OnceLock::new();
    BASES.get_or_init(|| {
        let root = env!("CARGO_MANIFEST_DIR");
        let canonical: Value = serde_json::from_str(
            &std::fs::read_to_string(format!("{root}/fixtures/stripe/fixtures3.json"))
                .expect("read fixtures3.json"),
        )
        .expect("fixtures3.json is JSON");
        let mut out = Vec::new();
        for kind in KINDS {
            let obj = canonical["resources"][*kind].clone();
            assert!(obj.is_object(), "fixtures3.json has no {kind}");
            out.push((*kind, obj));
        }
        for (kind, file) in DEMO_FILES {
            let text = std::fs::read_to_string(format!("{root}/fixtures/demo/{file}"))
                .expect("read a demo file");
            match serde_json::from_str::<Value>(&text).expect("demo JSON") {
                Value::Array(items) => out.extend(
                    items
                        .into_iter()
                        .take(DEMO_PER_FILE)
                        .map(|item| (*kind, item)),
                ),
                single => out.push((*kind, single)),
            }
        }
        out
    })
}

/// Parses `bytes` as `T` exactly as the client does; a refusal is `(path, message)`.
fn parse_as<T: DeserializeOwned>(bytes: &[u8]) -> Result<(), (String, String)> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize::<_, T>(&mut de)
        .map(|_| ())
        .map_err(|e| (e.path().to_string(), e.into_inner().to_string()))
}

/// Parses as the model of `kind`, alone or as a list page.
fn parse_kind(kind: &str, list: bool, bytes: &[u8]) -> Result<(), (String, String)> {
    macro_rules! by_kind {
        ($($name:literal => $t:ty),+ $(,)?) => {
            match (kind, list) {
                $(
                    ($name, false) => parse_as::<$t>(bytes),
                    ($name, true) => parse_as::<List<$t>>(bytes),
                )+
                _ => parse_as::<ErrorBody>(bytes),
            }
        };
    }
    by_kind!(
        "account" => Account,
        "balance" => Balance,
        "payout" => Payout,
        "balance_transaction" => BalanceTransaction,
        "invoice" => Invoice,
        "invoice_payment" => InvoicePayment,
        "payment_intent" => PaymentIntent,
        "charge" => Charge,
        "refund" => Refund,
        "dispute" => Dispute,
        "customer" => Customer,
        "subscription" => Subscription,
    )
}

/// A step into a JSON document.
#[derive(Debug, Clone, PartialEq)]
enum Seg {
    Key(String),
    At(usize),
}

/// Renders a path the way `serde_path_to_error` does (`data[0].amount`).
fn render(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Seg::At(i) => out.push_str(&format!("[{i}]")),
        }
    }
    if out.is_empty() { ".".to_string() } else { out }
}

/// Every node's path (the root excluded), depth first.
fn paths(v: &Value) -> Vec<Vec<Seg>> {
    fn walk(v: &Value, here: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
        match v {
            Value::Object(m) => {
                for (k, child) in m {
                    here.push(Seg::Key(k.clone()));
                    out.push(here.clone());
                    walk(child, here, out);
                    here.pop();
                }
            }
            Value::Array(a) => {
                for (i, child) in a.iter().enumerate() {
                    here.push(Seg::At(i));
                    out.push(here.clone());
                    walk(child, here, out);
                    here.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut Vec::new(), &mut out);
    out
}

fn node_mut<'a>(v: &'a mut Value, path: &[Seg]) -> Option<&'a mut Value> {
    path.iter().try_fold(v, |v, seg| match seg {
        Seg::Key(k) => v.get_mut(k.as_str()),
        Seg::At(i) => v.get_mut(*i),
    })
}

/// A change that a lenient model must accept.
#[derive(Debug, Clone)]
enum Lenient {
    /// Remove an object member (never an `id`) or an array element.
    Remove,
    /// Set an object member (never an `id`) to `null`.
    Null,
    /// Replace a string with another string (an unknown enum value, an odd id, ...).
    OtherString(String),
    /// Add a member no model knows to an object.
    Unknown(String, Value),
}

/// Applies a lenient change at the `at`-th node; returns whether anything changed.
fn apply_lenient(doc: &mut Value, at: Index, op: &Lenient) -> bool {
    let all = paths(doc);
    if all.is_empty() {
        return false;
    }
    let path = at.get(&all).clone();
    let Some((last, parent_path)) = path.split_last() else {
        return false;
    };
    if *last == Seg::Key("id".into()) && matches!(op, Lenient::Remove | Lenient::Null) {
        return false;
    }
    match op {
        Lenient::Remove => match (node_mut(doc, parent_path), last) {
            (Some(Value::Object(m)), Seg::Key(k)) => m.remove(k).is_some(),
            (Some(Value::Array(a)), Seg::At(i)) => {
                a.remove(*i);
                true
            }
            _ => false,
        },
        Lenient::Null => match (node_mut(doc, parent_path), last) {
            (Some(Value::Object(m)), Seg::Key(k)) => {
                m.insert(k.clone(), Value::Null);
                true
            }
            _ => false,
        },
        Lenient::OtherString(s) => match node_mut(doc, &path) {
            Some(node @ Value::String(_)) => {
                *node = Value::String(s.clone());
                true
            }
            _ => false,
        },
        Lenient::Unknown(k, v) => match node_mut(doc, &path) {
            Some(Value::Object(m)) => {
                m.insert(format!("x_fuzz_{k}"), v.clone());
                true
            }
            _ => false,
        },
    }
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[a-z_]{0,24}",
        Just(String::new()),
        Just("requires_capture_v2".to_string()),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(FIELD_NAMES).prop_map(str::to_string),
        1 => "[a-z_]{1,12}",
    ]
}

/// Any JSON value: nulls, booleans, huge and negative numbers, floats, odd strings,
/// shallow arrays and objects whose keys are mostly the models' field names.
fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f)
            .map(Value::Number)),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 32, 5, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::vec((key(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn lenient_op() -> impl Strategy<Value = Lenient> {
    prop_oneof![
        Just(Lenient::Remove),
        Just(Lenient::Null),
        text().prop_map(Lenient::OtherString),
        ("[a-z]{1,8}", json()).prop_map(|(k, v)| Lenient::Unknown(k, v)),
    ]
}

/// The document to parse: the object itself or a one-item list page around it; returns
/// it with the path prefix its object sits under.
fn framed(obj: Value, list: bool) -> (Value, Vec<Seg>) {
    if list {
        let page = serde_json::json!({"object": "list", "data": [obj], "has_more": false,
                                      "url": "/v1/fuzz"});
        (page, vec![Seg::Key("data".into()), Seg::At(0)])
    } else {
        (obj, Vec::new())
    }
}

#[test]
fn fuzz_models_accept_lenient_mutations_of_real_objects() {
    let n = bases().len();
    let strategy = (
        0..n,
        any::<bool>(),
        proptest::collection::vec((any::<Index>(), lenient_op()), 1..5),
    );
    fuzz("json_lenient_mutations", 600, strategy, |(i, list, ops)| {
        let (kind, base) = &bases()[i];
        let mut obj = base.clone();
        for (at, op) in &ops {
            apply_lenient(&mut obj, *at, op);
        }
        let (doc, _) = framed(obj, list);
        let bytes = serde_json::to_vec(&doc).expect("serialise");
        if let Err((path, msg)) = parse_kind(kind, list, &bytes) {
            return Err(TestCaseError::fail(format!(
                "{kind} (list: {list}) refused a lenient change at '{path}': {msg}\n{doc}"
            )));
        }
        Ok(())
    });
}

#[test]
fn fuzz_models_refuse_hostile_mutations_at_the_changed_place() {
    let n = bases().len();
    let strategy = (0..n, any::<bool>(), any::<Index>(), json());
    fuzz(
        "json_hostile_mutations",
        600,
        strategy,
        |(i, list, at, value)| {
            let (kind, base) = &bases()[i];
            let mut obj = base.clone();
            let all = paths(&obj);
            let path = at.get(&all).clone();
            if let Some(node) = node_mut(&mut obj, &path) {
                *node = value;
            }
            let (doc, prefix) = framed(obj, list);
            let changed = render(&[prefix, path].concat());
            let bytes = serde_json::to_vec(&doc).expect("serialise");
            if let Err((err_path, msg)) = parse_kind(kind, list, &bytes) {
                // The error is on the way to the changed node, or inside the new value.
                let within = |outer: &str, inner: &str| {
                    outer == "."
                        || inner == outer
                        || inner.starts_with(&format!("{outer}."))
                        || inner.starts_with(&format!("{outer}["))
                };
                let leads_there = within(&err_path, &changed) || within(&changed, &err_path);
                prop_assert!(
                    leads_there,
                    "{kind}: changed '{changed}' but the error names '{err_path}': {msg}"
                );
                prop_assert!(
                    msg.contains(" line ") && msg.contains(" column "),
                    "no line/column in: {msg}"
                );
            }
            Ok(())
        },
    );
}

/// A byte-level mangling of a serialised object.
#[derive(Debug, Clone)]
enum Mangle {
    Truncate(Index),
    Flip(Index, u8),
    Insert(Index, Vec<u8>),
}

fn mangle() -> impl Strategy<Value = Mangle> {
    prop_oneof![
        any::<Index>().prop_map(Mangle::Truncate),
        (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Mangle::Flip(i, b)),
        (
            any::<Index>(),
            proptest::collection::vec(
                prop_oneof![
                    any::<u8>(),
                    proptest::sample::select(b"{}[]\",:0-9e.\\nultrfa\xff\xc3".to_vec())
                ],
                1..6
            )
        )
            .prop_map(|(i, b)| Mangle::Insert(i, b)),
    ]
}

#[test]
fn fuzz_models_never_panic_on_mangled_bytes() {
    let n = bases().len();
    let strategy = (
        0..n,
        any::<bool>(),
        proptest::collection::vec(mangle(), 1..4),
    );
    fuzz("json_mangled_bytes", 500, strategy, |(i, list, mangles)| {
        let (kind, base) = &bases()[i];
        let (doc, _) = framed(base.clone(), list);
        let mut bytes = serde_json::to_vec(&doc).expect("serialise");
        for m in &mangles {
            if bytes.is_empty() {
                break;
            }
            match m {
                Mangle::Truncate(at) => bytes.truncate(at.index(bytes.len())),
                Mangle::Flip(at, b) => {
                    let i = at.index(bytes.len());
                    bytes[i] = *b;
                }
                Mangle::Insert(at, b) => {
                    let i = at.index(bytes.len());
                    bytes.splice(i..i, b.iter().copied());
                }
            }
        }
        if let Err((_, msg)) = parse_kind(kind, list, &bytes) {
            prop_assert!(
                msg.contains(" line ") && msg.contains(" column "),
                "no line/column in: {msg}"
            );
        }
        Ok(())
    });
}

#[test]
fn fuzz_models_never_panic_on_arbitrary_documents() {
    let strategy = (
        proptest::sample::select(KINDS.iter().copied().chain(["error"]).collect::<Vec<_>>()),
        any::<bool>(),
        json(),
    );
    fuzz(
        "json_arbitrary_documents",
        800,
        strategy,
        |(kind, list, doc)| {
            let bytes = serde_json::to_vec(&doc).expect("serialise");
            if let Err((_, msg)) = parse_kind(kind, list, &bytes) {
                prop_assert!(
                    msg.contains(" line ") && msg.contains(" column "),
                    "no line/column in: {msg}"
                );
            }
            Ok(())
        },
    );
}
