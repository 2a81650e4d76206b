//! Compact holders for the strings of the million-row tables, so a large account's rows fit
//! in memory without a heap allocation per field:
//!
//! - [`Word`]: a word of one of Stripe's open vocabularies (a balance transaction's `type`,
//!   `reporting_category` and `status`, a fee part's `type`). `Copy`, one machine word (a
//!   pointer to the word's entry), no heap: the words Stripe documents are static strings,
//!   and a word Stripe adds later is kept as sent, stored once for the whole process.
//! - [`StripeId`]: an object id. Stripe's ids (`txn_`, `ch_`, `po_`, `pi_`, `in_` and 24
//!   characters) are 27–28 bytes: held inline in 32 bytes, with a heap fallback for a longer
//!   id, so nothing Stripe sends is cut.
//!
//! - [`InlineText`]: an export cell's short text made on the stack.
//! - [`Metadata`]: an object's `metadata` map, one allocation (or none) instead of a
//!   `BTreeMap`'s node of eleven slots.
//!
//! `Word` and `StripeId` read as `&str` (`Deref`), compare, hash and order as their text, and
//! serialise as a plain string, so they stand where a `String` stood. Pure data: no IO.

use std::borrow::Borrow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::{Arc, Mutex, OnceLock};

use compact_str::CompactString;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A short ASCII text made on the stack: an export cell's date or amount (an `i64` of
/// minor units at exponent 0 to 3 is at most 22 bytes, a timestamp 23), written as bytes
/// with neither a heap allocation nor a UTF-8 check (a million-line CSV makes five a line).
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct InlineText {
    len: u8,
    bytes: [u8; InlineText::CAPACITY],
}

impl InlineText {
    pub const CAPACITY: usize = 24;

    pub fn new() -> InlineText {
        InlineText::default()
    }

    /// Appends `bytes`, ASCII as the callers' digits and punctuation are: a byte outside
    /// ASCII is written as `?`, and bytes past [`InlineText::CAPACITY`] are dropped, so the
    /// text stays ASCII and nothing panics.
    pub fn push_ascii(&mut self, bytes: &[u8]) {
        let at = usize::from(self.len);
        let n = bytes.len().min(Self::CAPACITY - at);
        for (slot, &b) in self.bytes[at..at + n].iter_mut().zip(bytes) {
            *slot = if b.is_ascii() { b } else { b'?' };
        }
        // n <= CAPACITY - at, so the sum fits CAPACITY (24) and a u8.
        self.len = u8::try_from(at + n).unwrap_or(u8::MAX);
    }

    /// The text's bytes (ASCII).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// The text as a `String`.
    pub fn to_text(&self) -> String {
        self.as_bytes().iter().map(|&b| char::from(b)).collect()
    }
}

impl fmt::Debug for InlineText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_text(), f)
    }
}

/// A word of one of Stripe's open vocabularies: `Copy` and heap-free.
///
/// The words below are held as static strings. Any other word (one Stripe added after this
/// list, or a test's) is stored once per process and shared by every row that holds it:
/// these vocabularies have tens of words, so what is stored stays a few bytes per word
/// Stripe ever sent. A `Word` points at its entry (the static list's slot, or the stored
/// copy's), so it is one pointer, not a pointer and a length: a balance transaction holds
/// four, a million lines 32 MB less.
#[derive(Clone, Copy)]
pub struct Word(&'static &'static str);

/// Stripe's documented words of the vocabularies a [`Word`] holds, sorted (binary search):
/// balance transaction types and reporting categories, their statuses, fee part types.
static KNOWN: &[&str] = &[
    "",
    "adjustment",
    "advance",
    "advance_funding",
    "anticipation_repayment",
    "application_fee",
    "application_fee_refund",
    "available",
    "charge",
    "charge_failure",
    "climate_order_purchase",
    "climate_order_refund",
    "connect_collection_transfer",
    "connect_reserved_funds",
    "contribution",
    "dispute",
    "dispute_reversal",
    "fee",
    "issuing_authorization_hold",
    "issuing_authorization_release",
    "issuing_dispute",
    "issuing_transaction",
    "obligation",
    "obligation_outbound",
    "obligation_reversal_inbound",
    "other_adjustment",
    "partial_capture_reversal",
    "payment",
    "payment_failure_refund",
    "payment_method_passthrough_fee",
    "payment_network_reserve_hold",
    "payment_network_reserve_release",
    "payment_refund",
    "payment_reversal",
    "payment_unreconciled",
    "payout",
    "payout_cancel",
    "payout_failure",
    "payout_minimum_balance_hold",
    "payout_minimum_balance_release",
    "payout_reversal",
    "pending",
    "platform_earning",
    "platform_earning_refund",
    "refund",
    "refund_failure",
    "reserve_transaction",
    "reserved_funds",
    "risk_reserved_funds",
    "stripe_balance_payment_debit",
    "stripe_balance_payment_debit_reversal",
    "stripe_fee",
    "stripe_fx_fee",
    "tax",
    "tax_fee",
    "topup",
    "topup_reversal",
    "transfer",
    "transfer_cancel",
    "transfer_failure",
    "transfer_refund",
    "transfer_reversal",
    "unreconciled_customer_funds",
    "withheld_tax",
];

impl Word {
    /// The word for `text`, kept exactly as sent.
    pub fn new(text: &str) -> Word {
        match KNOWN.binary_search(&text) {
            Ok(i) => Word(&KNOWN[i]),
            Err(_) => Word(stored(text)),
        }
    }

    pub fn as_str(&self) -> &'static str {
        self.0
    }
}

/// The process's one copy of a word outside [`KNOWN`], and its entry. Each thread keeps
/// the entries it has looked up, so the rows a table's read builds on all cores (an
/// intent's status, a charge's outcome, a word in every row) do not queue on the lock.
fn stored(text: &str) -> &'static &'static str {
    thread_local! {
        static SEEN: RefCell<HashMap<&'static str, &'static &'static str>> =
            RefCell::default();
    }
    if let Some(entry) = SEEN.with(|seen| seen.borrow().get(text).copied()) {
        return entry;
    }
    let entry = stored_once(text);
    SEEN.with(|seen| seen.borrow_mut().insert(entry, entry));
    entry
}

/// [`stored`]'s process-wide set: the entry for `text`, added when first seen.
fn stored_once(text: &str) -> &'static &'static str {
    static OTHERS: OnceLock<Mutex<HashMap<&'static str, &'static &'static str>>> = OnceLock::new();
    let mut others = OTHERS
        .get_or_init(Mutex::default)
        .lock()
        // The set is only ever added to whole, so a panic elsewhere cannot leave it half
        // written: its contents stay good.
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(entry) = others.get(text) {
        return entry;
    }
    let word: &'static str = Box::leak(Box::from(text));
    let entry: &'static &'static str = Box::leak(Box::new(word));
    others.insert(word, entry);
    entry
}

/// An object id: inline up to [`StripeId::INLINE`] bytes (every id Stripe issues today),
/// on the heap beyond.
#[derive(Clone)]
pub struct StripeId(IdRepr);

#[derive(Clone)]
enum IdRepr {
    Inline {
        len: u8,
        bytes: [u8; StripeId::INLINE],
    },
    Heap(Box<str>),
}

impl StripeId {
    /// The longest id held without a heap allocation (the type is then 32 bytes).
    pub const INLINE: usize = 30;

    pub fn new(text: &str) -> StripeId {
        match u8::try_from(text.len()) {
            Ok(len) if text.len() <= Self::INLINE => {
                let mut bytes = [0; Self::INLINE];
                bytes[..text.len()].copy_from_slice(text.as_bytes());
                StripeId(IdRepr::Inline { len, bytes })
            }
            _ => StripeId(IdRepr::Heap(Box::from(text))),
        }
    }

    /// The id's bytes, without the UTF-8 check [`StripeId::as_str`] makes: what sorting
    /// and comparing read (a tie-out of a million lines compares ids millions of times,
    /// and bytes order as their text does).
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            IdRepr::Inline { len, bytes } => &bytes[..usize::from(*len)],
            IdRepr::Heap(text) => text.as_bytes(),
        }
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            // The bytes are a whole `&str` copied in by `new`, so they are UTF-8.
            IdRepr::Inline { len, bytes } => {
                std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or_default()
            }
            IdRepr::Heap(text) => text,
        }
    }
}

impl Default for StripeId {
    fn default() -> Self {
        StripeId::new("")
    }
}

/// A text many rows hold at once (a payout's id on each of its lines, a description a
/// thousand lines repeat): one allocation shared by reference count, and one pointer in
/// each row (an `Arc<str>` is two: a million lines hold two of these, 16 MB less). Cloned
/// by reference count; reads as `&str`.
#[derive(Clone)]
pub struct Shared(Arc<Box<str>>);

impl Shared {
    /// A new shared copy of `text`.
    pub fn new(text: &str) -> Shared {
        Shared(Arc::new(Box::from(text)))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `self` and `other` are the same shared copy (not merely the same text).
    pub fn same_copy(&self, other: &Shared) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// What [`Word`] and [`StripeId`] share: reading, comparing, hashing, ordering, printing and
/// serialising as their text.
macro_rules! reads_as_str {
    ($t:ty) => {
        impl Deref for $t {
            type Target = str;
            fn deref(&self) -> &str {
                self.as_str()
            }
        }
        impl AsRef<str> for $t {
            fn as_ref(&self) -> &str {
                self.as_str()
            }
        }
        impl Borrow<str> for $t {
            fn borrow(&self) -> &str {
                self.as_str()
            }
        }
        impl PartialEq for $t {
            fn eq(&self, other: &Self) -> bool {
                self.as_bytes() == other.as_bytes()
            }
        }
        impl Eq for $t {}
        impl PartialEq<str> for $t {
            fn eq(&self, other: &str) -> bool {
                self.as_bytes() == other.as_bytes()
            }
        }
        impl PartialEq<&str> for $t {
            fn eq(&self, other: &&str) -> bool {
                self.as_bytes() == other.as_bytes()
            }
        }
        impl PartialEq<String> for $t {
            fn eq(&self, other: &String) -> bool {
                self.as_str() == other.as_str()
            }
        }
        impl PartialEq<$t> for str {
            fn eq(&self, other: &$t) -> bool {
                self == other.as_str()
            }
        }
        impl PartialEq<$t> for &str {
            fn eq(&self, other: &$t) -> bool {
                *self == other.as_str()
            }
        }
        impl PartialEq<$t> for String {
            fn eq(&self, other: &$t) -> bool {
                self.as_str() == other.as_str()
            }
        }
        impl Hash for $t {
            fn hash<H: Hasher>(&self, state: &mut H) {
                self.as_str().hash(state)
            }
        }
        impl PartialOrd for $t {
            fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }
        impl Ord for $t {
            // A `str` orders by its bytes, so this is the text's order.
            fn cmp(&self, other: &Self) -> std::cmp::Ordering {
                self.as_bytes().cmp(other.as_bytes())
            }
        }
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
        impl fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(self.as_str(), f)
            }
        }
        impl From<&str> for $t {
            fn from(text: &str) -> Self {
                <$t>::new(text)
            }
        }
        impl From<&String> for $t {
            fn from(text: &String) -> Self {
                <$t>::new(text)
            }
        }
        impl From<String> for $t {
            fn from(text: String) -> Self {
                <$t>::new(&text)
            }
        }
        impl From<$t> for String {
            fn from(text: $t) -> String {
                text.as_str().to_owned()
            }
        }
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
                Ok(<$t>::new(&text))
            }
        }
    };
}

reads_as_str!(Word);
reads_as_str!(StripeId);
reads_as_str!(Shared);

/// An object's `metadata`: Stripe's string-to-string map, kept sorted by key (as a
/// `BTreeMap` would, so it serialises the same) in one allocation, with short keys and
/// values inline ([`CompactString`]). Most charges have none, the rest one or two pairs:
/// an empty map is 16 bytes and no heap.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Metadata(Box<[(CompactString, CompactString)]>);

impl Metadata {
    pub fn new() -> Metadata {
        Metadata::default()
    }

    fn position(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.position(key).ok().map(|i| self.0[i].1.as_str())
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_ok()
    }

    /// Sets `key` to `value`, returning the value it replaced.
    pub fn insert(
        &mut self,
        key: impl Into<CompactString>,
        value: impl Into<CompactString>,
    ) -> Option<CompactString> {
        let (key, value) = (key.into(), value.into());
        match self.position(&key) {
            Ok(i) => Some(std::mem::replace(&mut self.0[i].1, value)),
            Err(i) => {
                let mut pairs = std::mem::take(&mut self.0).into_vec();
                pairs.insert(i, (key, value));
                self.0 = pairs.into_boxed_slice();
                None
            }
        }
    }

    pub fn clear(&mut self) {
        self.0 = Box::default();
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The pairs in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

impl<K: Into<CompactString>, V: Into<CompactString>> FromIterator<(K, V)> for Metadata {
    /// Later pairs win over earlier ones with the same key, as in a map.
    fn from_iter<I: IntoIterator<Item = (K, V)>>(pairs: I) -> Self {
        let mut pairs: Vec<(CompactString, CompactString)> = pairs
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        // A stable sort keeps equal keys in arrival order; the last of each run is kept.
        pairs.sort_by(|a, b| a.0.cmp(&b.0));
        let mut kept: Vec<(CompactString, CompactString)> = Vec::with_capacity(pairs.len());
        for pair in pairs {
            match kept.last_mut() {
                Some(last) if last.0 == pair.0 => *last = pair,
                _ => kept.push(pair),
            }
        }
        Metadata(kept.into_boxed_slice())
    }
}

impl From<std::collections::BTreeMap<String, String>> for Metadata {
    fn from(map: std::collections::BTreeMap<String, String>) -> Self {
        map.into_iter().collect()
    }
}

impl<'a> IntoIterator for &'a Metadata {
    type Item = (&'a str, &'a str);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (CompactString, CompactString)>,
        fn(&'a (CompactString, CompactString)) -> (&'a str, &'a str),
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

impl fmt::Debug for Metadata {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Serialize for Metadata {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for Metadata {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        std::collections::BTreeMap::<CompactString, CompactString>::deserialize(deserializer)
            .map(|map| map.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_known_words_are_sorted_and_distinct() {
        assert!(
            KNOWN.windows(2).all(|w| w[0] < w[1]),
            "KNOWN must stay sorted"
        );
    }

    #[test]
    fn a_known_word_is_the_static_one_and_a_new_word_is_stored_once() {
        let charge = KNOWN.binary_search(&"charge").map(|i| KNOWN[i]);
        assert!(charge.is_ok_and(|known| std::ptr::eq(Word::new("charge").as_str(), known)));
        let a = Word::new("a_type_stripe_added_in_2031");
        let b = Word::new(&String::from("a_type_stripe_added_in_2031"));
        assert!(std::ptr::eq(a.as_str(), b.as_str()));
        assert_eq!(a, "a_type_stripe_added_in_2031");
    }

    #[test]
    fn inline_text_keeps_ascii_within_its_capacity_and_never_panics() {
        let mut t = InlineText::new();
        t.push_ascii(b"2026-11-30T23:59:59Z");
        assert_eq!(t.as_bytes(), b"2026-11-30T23:59:59Z");
        assert_eq!(t.to_text(), "2026-11-30T23:59:59Z");
        t.push_ascii(b"abcdefgh");
        assert_eq!(t.to_text(), "2026-11-30T23:59:59Zabcd", "cut at 24 bytes");
        t.push_ascii(b"more");
        assert_eq!(t.as_bytes().len(), InlineText::CAPACITY);
        let mut odd = InlineText::new();
        odd.push_ascii("-1\u{e9}".as_bytes());
        assert_eq!(
            odd.to_text(),
            "-1??",
            "a byte outside ASCII is never stored as such"
        );
    }

    #[test]
    fn the_holders_are_as_small_as_promised() {
        assert_eq!(std::mem::size_of::<Word>(), 8);
        assert_eq!(std::mem::size_of::<Option<Word>>(), 8);
        assert_eq!(std::mem::size_of::<StripeId>(), 32);
        assert_eq!(std::mem::size_of::<Option<StripeId>>(), 32);
        assert_eq!(std::mem::size_of::<Option<Shared>>(), 8);
    }

    #[test]
    fn an_id_longer_than_the_inline_room_is_kept_whole() {
        let long = format!("txn_{}", "x".repeat(200));
        assert_eq!(StripeId::new(&long).as_str(), long);
        let edge = "y".repeat(StripeId::INLINE);
        assert_eq!(StripeId::new(&edge).as_str(), edge);
        let over = "z".repeat(StripeId::INLINE + 1);
        assert_eq!(StripeId::new(&over).as_str(), over);
    }

    #[test]
    fn they_serialise_as_plain_strings() {
        let id = StripeId::new("txn_1MiN3gLkdIwHu7ixxapQrznl");
        let json = serde_json::to_string(&(id.clone(), Word::new("charge"))).unwrap_or_default();
        assert_eq!(json, r#"["txn_1MiN3gLkdIwHu7ixxapQrznl","charge"]"#);
        let back: (StripeId, Word) = serde_json::from_str(&json).expect("reads back");
        assert_eq!(back, (id, Word::new("charge")));
    }

    #[test]
    fn metadata_keeps_its_pairs_sorted_and_serialises_as_a_map() {
        let mut m: Metadata = [("order_id", "6735"), ("channel", "web")]
            .into_iter()
            .collect();
        assert_eq!(m.get("order_id"), Some("6735"));
        assert!(!m.contains_key("note"));
        assert_eq!(m.insert("note", "gift"), None);
        assert_eq!(m.insert("note", "rush").as_deref(), Some("gift"));
        let json = serde_json::to_string(&m).unwrap_or_default();
        assert_eq!(json, r#"{"channel":"web","note":"rush","order_id":"6735"}"#);
        let back: Metadata = serde_json::from_str(&json).expect("reads back");
        assert_eq!(back, m);
        m.clear();
        assert!(m.is_empty());
    }

    proptest! {
        #[test]
        fn metadata_is_the_map_it_was_built_from(
            pairs in proptest::collection::vec(("[a-c]{0,3}", "\\PC{0,30}"), 0..8)
        ) {
            let map: std::collections::BTreeMap<String, String> = pairs.iter().cloned().collect();
            let meta: Metadata = pairs.into_iter().collect();
            prop_assert_eq!(
                serde_json::to_string(&meta).unwrap_or_default(),
                serde_json::to_string(&map).unwrap_or_default()
            );
            prop_assert_eq!(meta.len(), map.len());
            for (k, v) in &map {
                prop_assert_eq!(meta.get(k), Some(v.as_str()));
            }
        }

        #[test]
        fn an_id_reads_compares_and_orders_as_its_text(a in "\\PC{0,40}", b in "\\PC{0,40}") {
            let (ia, ib) = (StripeId::new(&a), StripeId::new(&b));
            prop_assert_eq!(ia.as_str(), a.as_str());
            prop_assert_eq!(ia.cmp(&ib), a.cmp(&b));
            prop_assert_eq!(ia == ib, a == b);
            let (wa, wb) = (Word::new(&a), Word::new(&b));
            prop_assert_eq!(wa.as_str(), a.as_str());
            prop_assert_eq!(wa.cmp(&wb), a.cmp(&b));
            let (sa, sb) = (Shared::new(&a), Shared::new(&b));
            prop_assert_eq!(sa.as_str(), a.as_str());
            prop_assert_eq!(sa.cmp(&sb), a.cmp(&b));
            prop_assert_eq!(sa == sb, a == b);
            prop_assert!(sa.same_copy(&sa.clone()) && !sa.same_copy(&Shared::new(&a)));
            prop_assert_eq!(serde_json::to_string(&sa).unwrap_or_default(), serde_json::to_string(&a).unwrap_or_default());
        }
    }
}
