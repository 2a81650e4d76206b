//! The bundled demo account: `fixtures/demo/*.json`, embedded in the binary (so `--demo`
//! works from any folder, on a fresh clone and once installed), parsed through the Stripe
//! models into rows. Also loads a generated account directory from disk
//! ([`load_dir`], for the large benchmark accounts of `gen-demo --scale N`), and
//! exposes the raw files for the fake Stripe server ([`demo_file`]).
//!
//! The demo's clock is 2026-11-30T12:00:00Z (`meta.json`'s `generated_for_now`); run
//! commands on it with `--now 2026-11-30T12:00:00Z` for the outcomes its data was built for.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufReader, Read};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use serde::de::{DeserializeOwned, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

use crate::stripe::models;
use tieout_core::model::rows::{
    ChargeRow, CustomerRow, DisputeRow, FraudWarningRow, InvoicePaymentRow, InvoiceRow,
    PaymentIntentRow, PayoutId, PayoutRow, RefundRow, RenewalMethodRow, SubscriptionRow,
};
use tieout_core::model::{AccountData, Mode, Origin, SnapshotMeta};

/// The demo's fixed clock: 2026-11-30T12:00:00Z.
pub const DEMO_NOW: i64 = 1_796_040_000;

macro_rules! demo_files {
    ($($name:literal),+ $(,)?) => {
        /// Every file of `fixtures/demo`, by file name, as embedded at build time.
        pub const DEMO_FILES: &[(&str, &str)] = &[
            $(($name, include_str!(concat!("../../../../fixtures/demo/", $name))),)+
        ];
    };
}

demo_files!(
    "account.json",
    "balance.json",
    "meta.json",
    "payouts.json",
    "payout_lines.json",
    "balance_transactions.json",
    "invoices.json",
    "invoice_payments.json",
    "payment_intents.json",
    "charges.json",
    "refunds.json",
    "disputes.json",
    "customers.json",
    "subscriptions.json",
    "payment_methods.json",
    "early_fraud_warnings.json",
    "tickets.csv",
    "bank-usd.csv",
    "bank-eur.csv",
    "bank-jpy.csv",
);

/// The demo's bank statements (one account per currency, tieout's own CSV layout), by
/// file name, as the Tie-out tab loads them on the demo.
pub const DEMO_BANK_STATEMENTS: [&str; 3] = ["bank-usd.csv", "bank-eur.csv", "bank-jpy.csv"];

/// The demo's bundled bank statements as lines (read with the built-in `tieout` profile).
pub fn demo_bank_lines() -> Result<Vec<tieout_core::bank::BankLine>, tieout_core::failure::Failure>
{
    let profile = tieout_core::bank::csv::CsvProfile::built_in("tieout").ok_or_else(|| {
        tieout_core::failure::Failure::other("the built-in bank profile 'tieout' is missing")
    })?;
    let mut lines = Vec::new();
    for name in DEMO_BANK_STATEMENTS {
        let text = demo_file(name).unwrap_or_default();
        lines.extend(tieout_core::bank::read_statement(
            name,
            text.as_bytes(),
            &profile,
        )?);
    }
    Ok(lines)
}

/// The raw text of one demo file (`"payouts.json"`, `"tickets.csv"`, ...).
pub fn demo_file(name: &str) -> Option<&'static str> {
    DEMO_FILES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The demo's refund tickets (`ticket_id,email,order_id,message`).
pub fn demo_tickets_csv() -> &'static str {
    demo_file("tickets.csv").unwrap_or("ticket_id,email,order_id,message\n")
}

/// A demo or generated account that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    #[error(
        "the demo file {file} could not be parsed ({source}); regenerate it with `gen-demo --seed 7 --scale 1 --out fixtures/demo`"
    )]
    Parse {
        file: String,
        source: serde_json::Error,
    },
    #[error("could not read {path}: {source}; point to a folder written by `gen-demo`")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the demo file {0} is missing from this build")]
    Missing(String),
}

/// `meta.json`.
#[derive(Debug, Clone, Deserialize)]
struct Meta {
    generated_for_now: i64,
    #[serde(default)]
    window_start: Option<i64>,
    #[serde(default)]
    window_end: Option<i64>,
}

/// Feeds each element of a JSON array to `f`, without holding the whole array.
fn each_in_array<'de, D, T, F>(d: D, f: &mut F) -> Result<(), D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
    F: FnMut(T),
{
    struct V<'f, T, F> {
        f: &'f mut F,
        _t: PhantomData<T>,
    }
    impl<'de, T: Deserialize<'de>, F: FnMut(T)> Visitor<'de> for V<'_, T, F> {
        type Value = ();
        fn expecting(&self, out: &mut std::fmt::Formatter) -> std::fmt::Result {
            out.write_str("a JSON array of Stripe objects")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while let Some(x) = seq.next_element::<T>()? {
                (self.f)(x);
            }
            Ok(())
        }
    }
    d.deserialize_seq(V { f, _t: PhantomData })
}

/// Where the files come from: the embedded demo or a folder.
enum Src<'a> {
    Embedded,
    Dir(&'a Path),
}

impl Src<'_> {
    fn parse_err(file: &str) -> impl FnOnce(serde_json::Error) -> DemoError + '_ {
        move |source| DemoError::Parse {
            file: file.to_string(),
            source,
        }
    }

    fn open(&self, path: &Path) -> Result<BufReader<File>, DemoError> {
        File::open(path)
            .map(|f| BufReader::with_capacity(1 << 20, f))
            .map_err(|source| DemoError::Io {
                path: path.to_path_buf(),
                source,
            })
    }

    /// Parses a whole (small) file.
    fn value<T: DeserializeOwned>(&self, file: &str) -> Result<T, DemoError> {
        match self {
            Src::Embedded => {
                let text = demo_file(file).ok_or_else(|| DemoError::Missing(file.into()))?;
                serde_json::from_str(text).map_err(Self::parse_err(file))
            }
            Src::Dir(dir) => {
                let r = self.open(&dir.join(file))?;
                serde_json::from_reader(r).map_err(Self::parse_err(file))
            }
        }
    }

    /// Streams the elements of an array file into `f`.
    fn each<T: DeserializeOwned, F: FnMut(T)>(
        &self,
        file: &str,
        mut f: F,
    ) -> Result<(), DemoError> {
        match self {
            Src::Embedded => {
                let text = demo_file(file).ok_or_else(|| DemoError::Missing(file.into()))?;
                let mut de = serde_json::Deserializer::from_str(text);
                each_in_array(&mut de, &mut f).map_err(Self::parse_err(file))?;
                de.end().map_err(Self::parse_err(file))
            }
            Src::Dir(dir) => {
                let r = self.open(&dir.join(file))?;
                let mut de = serde_json::Deserializer::from_reader(r);
                each_in_array(&mut de, &mut f).map_err(Self::parse_err(file))?;
                de.end().map_err(Self::parse_err(file))
            }
        }
    }

    /// Reads a whole small text file.
    fn text(&self, file: &str) -> Result<String, DemoError> {
        match self {
            Src::Embedded => demo_file(file)
                .map(str::to_string)
                .ok_or_else(|| DemoError::Missing(file.into())),
            Src::Dir(dir) => {
                let path = dir.join(file);
                let mut s = String::new();
                self.open(&path)?
                    .read_to_string(&mut s)
                    .map_err(|source| DemoError::Io { path, source })?;
                Ok(s)
            }
        }
    }
}

/// The bundled demo account.
pub fn load_demo() -> Result<AccountData, DemoError> {
    load(&Src::Embedded)
}

/// A generated account in a folder (`gen-demo --out DIR`), e.g. the large
/// benchmark account. Streams the arrays, so memory holds the rows, not the JSON.
pub fn load_dir(path: &Path) -> Result<AccountData, DemoError> {
    load(&Src::Dir(path))
}

/// Writes a generated account folder (`gen-demo --out DIR`) into the cache under
/// `cache` as if `profile` had synced it (origin `cache`, the generated account's id, test
/// mode), so `--cached` commands, the TUI and the benches can open it without a key. A
/// developer tool for the large benchmark accounts (`benches/`); returns what was saved.
pub fn cache_from_dir(
    dir: &Path,
    cache: &super::cache::Cache,
    profile: &str,
) -> Result<super::cache::Saved, String> {
    let data = load_dir(dir).map_err(|e| e.to_string())?;
    let snapshot = super::tables::Snapshot::from_data(&data).map_err(|e| e.to_string())?;
    drop(data);
    let saved = cache.save(&snapshot).map_err(|e| e.to_string())?;
    let pointer = super::cache::ProfilePointer {
        account_id: snapshot.meta.account_id.clone(),
        mode: snapshot.meta.mode,
        updated_at: snapshot.meta.fetched_at,
    };
    cache
        .set_last_used(profile, &pointer)
        .map_err(|e| e.to_string())?;
    Ok(saved)
}

/// The tickets file of a generated account folder.
pub fn tickets_csv_in(path: &Path) -> Result<String, DemoError> {
    Src::Dir(path).text("tickets.csv")
}

fn load(src: &Src) -> Result<AccountData, DemoError> {
    let account: models::Account = src.value("account.json")?;
    let meta: Meta = src.value("meta.json")?;
    // Stripe's balance as the generator left it, read at the demo's clock.
    let balance: models::Balance = src.value("balance.json")?;

    // Which automatic payout paid out each balance transaction.
    let lines: BTreeMap<String, Vec<String>> = src.value("payout_lines.json")?;
    let mut paid_by: HashMap<String, PayoutId> =
        HashMap::with_capacity(lines.values().map(Vec::len).sum());
    for (po, txns) in lines {
        let po = PayoutId::from(po);
        for t in txns {
            paid_by.insert(t, po.clone());
        }
    }

    let mut payouts = Vec::new();
    src.each("payouts.json", |p: models::Payout| {
        payouts.push(PayoutRow::from(&p))
    })?;
    let mut balance_transactions = Vec::new();
    src.each(
        "balance_transactions.json",
        |t: models::BalanceTransaction| {
            let payout = paid_by.get(&t.id);
            balance_transactions.push(crate::source::from_wire::balance_txn_row(&t, payout));
        },
    )?;
    drop(paid_by);
    let mut invoices = Vec::new();
    src.each("invoices.json", |i: models::Invoice| {
        invoices.push(InvoiceRow::from(&i))
    })?;
    let mut invoice_payments = Vec::new();
    src.each("invoice_payments.json", |p: models::InvoicePayment| {
        invoice_payments.push(InvoicePaymentRow::from(&p))
    })?;
    let mut payment_intents = Vec::new();
    src.each("payment_intents.json", |p: models::PaymentIntent| {
        payment_intents.push(PaymentIntentRow::from(&p))
    })?;
    let mut charges = Vec::new();
    src.each("charges.json", |c: models::Charge| {
        charges.push(ChargeRow::from(&c))
    })?;
    let mut refunds = Vec::new();
    src.each("refunds.json", |r: models::Refund| {
        refunds.push(RefundRow::from(&r))
    })?;
    let mut disputes = Vec::new();
    src.each("disputes.json", |d: models::Dispute| {
        disputes.push(DisputeRow::from(&d))
    })?;
    let methods = payment_methods(src)?;
    let (fraud_warnings, fraud_read) = fraud_warnings(src)?;
    let mut customers = Vec::new();
    let mut wire_customers = HashMap::new();
    src.each("customers.json", |mut c: models::Customer| {
        // As the customer list reads it: the invoice default payment method expanded.
        if let (Some(pms), Some(settings)) = (&methods, c.invoice_settings.as_mut()) {
            expand_method(&mut settings.default_payment_method, pms);
        }
        customers.push(CustomerRow::from(&c));
        if methods.is_some() {
            wire_customers.insert(c.id.clone(), c);
        }
    })?;
    let mut subscriptions = Vec::new();
    let mut renewal_methods = Vec::new();
    src.each("subscriptions.json", |s: models::Subscription| {
        subscriptions.push(SubscriptionRow::from(&s));
        if let Some(pms) = &methods
            && s.status == Some(tieout_core::model::status::SubscriptionStatus::Active)
        {
            renewal_methods.push(RenewalMethodRow::from(&expanded(s, &wire_customers, pms)));
        }
    })?;
    drop(wire_customers);

    let first_arrival = payouts
        .iter()
        .map(|p| p.arrival_date)
        .min()
        .unwrap_or(meta.generated_for_now);
    let last_arrival = payouts
        .iter()
        .map(|p| p.arrival_date)
        .max()
        .unwrap_or(meta.generated_for_now);
    let meta = SnapshotMeta {
        account_id: account.id.clone(),
        account_name: account.display_name().map(str::to_string),
        mode: Mode::Test,
        origin: Origin::Demo,
        api_version: crate::stripe::API_VERSION.to_string(),
        fetched_at: meta.generated_for_now,
        window_start: meta.window_start.unwrap_or(first_arrival),
        window_end: meta.window_end.unwrap_or(last_arrival + 1),
        default_currency: account
            .default_currency
            .as_deref()
            .and_then(|c| tieout_core::money::Currency::parse(c).ok()),
        payment_methods: if methods.is_some() {
            tieout_core::model::MethodsRead::Read
        } else {
            tieout_core::model::MethodsRead::NotRead
        },
        // The demo is the whole account: every invoice, whatever its status.
        settled_invoices_since: Some(i64::MIN),
        balance: Some(balance.to_core(meta.generated_for_now)),
        // The generator writes every line the account has, paid out or not.
        lines_complete: true,
        lines_since: None,
        fraud_warnings: fraud_read,
    };
    Ok(AccountData {
        meta,
        payouts,
        balance_transactions,
        invoices,
        invoice_payments,
        payment_intents,
        charges,
        refunds,
        disputes,
        customers,
        subscriptions,
        renewal_methods,
        fraud_warnings,
    })
}

/// `early_fraud_warnings.json` as rows, and whether it was read: a generated folder from
/// before the generator wrote it has not read them.
fn fraud_warnings(
    src: &Src,
) -> Result<(Vec<FraudWarningRow>, tieout_core::model::MethodsRead), DemoError> {
    const FILE: &str = "early_fraud_warnings.json";
    if let Src::Dir(dir) = src
        && !dir.join(FILE).exists()
    {
        return Ok((Vec::new(), tieout_core::model::MethodsRead::NotRead));
    }
    let mut rows = Vec::new();
    src.each(FILE, |w: models::EarlyFraudWarning| {
        rows.push(FraudWarningRow::from(&w))
    })?;
    Ok((rows, tieout_core::model::MethodsRead::Read))
}

/// `payment_methods.json` by id; `None` for a generated folder from before the generator
/// wrote it (its cards are then not read).
fn payment_methods(src: &Src) -> Result<Option<HashMap<String, models::PaymentMethod>>, DemoError> {
    const FILE: &str = "payment_methods.json";
    if let Src::Dir(dir) = src
        && !dir.join(FILE).exists()
    {
        return Ok(None);
    }
    let mut by_id = HashMap::new();
    src.each(FILE, |m: models::PaymentMethod| {
        by_id.insert(m.id.clone(), m);
    })?;
    Ok(Some(by_id))
}

/// `s` as the card read lists it: its default payment method, its customer and the
/// customer's invoice default expanded (what `expand[]=data.default_payment_method` and
/// `expand[]=data.customer.invoice_settings.default_payment_method` return), so the demo
/// goes through the same conversion as a live read.
fn expanded(
    mut s: models::Subscription,
    customers: &HashMap<String, models::Customer>,
    methods: &HashMap<String, models::PaymentMethod>,
) -> models::Subscription {
    let expand =
        |e: &mut Option<models::Expandable<models::PaymentMethod>>| expand_method(e, methods);
    expand(&mut s.default_payment_method);
    if let Some(models::Expandable::Id(id)) = &s.customer
        && let Some(c) = customers.get(id.as_str())
    {
        let mut c = c.clone();
        if let Some(settings) = c.invoice_settings.as_mut() {
            expand(&mut settings.default_payment_method);
        }
        s.customer = Some(models::Expandable::Object(Box::new(c)));
    }
    s
}

/// A payment method reference replaced by the object `methods` holds for it, if any.
fn expand_method(
    e: &mut Option<models::Expandable<models::PaymentMethod>>,
    methods: &HashMap<String, models::PaymentMethod>,
) {
    if let Some(models::Expandable::Id(id)) = e
        && let Some(m) = methods.get(id.as_str())
    {
        *e = Some(models::Expandable::Object(Box::new(m.clone())));
    }
}

#[cfg(test)]
mod tests;
