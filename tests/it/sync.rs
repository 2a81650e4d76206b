//! `sync` end to end through the fake Stripe server: the snapshot it stores equals the
//! fixtures read directly (restricted to what a sync reads), injected 429s, 500s, resets
//! and truncated bodies are retried to the same result, a second sync does not refetch
//! settled payouts' lines, and a failing sync leaves the previous cache as it was.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::de::DeserializeOwned;
use serde_json::json;

use tieout::model::rows::{
    ChargeRow, CustomerRow, DisputeRow, InvoicePaymentRow, InvoiceRow, PaymentIntentRow, PayoutRow,
    RefundRow, SubscriptionRow,
};
use tieout::model::{AccountData, Mode, Origin, SnapshotMeta};
use tieout::secrets::ApiKey;
use tieout::source::cache::Cache;
use tieout::source::progress::{Progress, Quiet, SyncEvent};
use tieout::source::sync::{self, SyncOptions, failing_payment_intent, itemisable};
use tieout::stripe::models;
use tieout::stripe::{Client, ClientConfig, RateConfig};
use tieout_testkit::fake_stripe::{LoggedRequest, mini_fixtures};

use crate::support::{FakeConfig, FakeStripe, Fault, NOW, TEST_KEY, Tieout, start_fake};

fn now() -> i64 {
    tieout::time::parse_instant(NOW).expect("NOW")
}

fn client(fake: &FakeStripe) -> Client {
    let key = ApiKey::parse(TEST_KEY).expect("test key");
    let mut cfg = ClientConfig::new(fake.base_url(), key);
    cfg.rate = RateConfig::unthrottled();
    cfg.max_attempts = 5;
    Client::new(cfg).expect("client")
}

fn read<T: DeserializeOwned>(dir: &Path, name: &str) -> Vec<T> {
    let path = dir.join(format!("{name}.json"));
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).expect("fixture parses"),
        Err(_) => Vec::new(),
    }
}

/// Every object of a fixture directory as rows, read straight from the JSON (no HTTP).
fn fixture_rows(dir: &Path) -> AccountData {
    let lines: BTreeMap<String, Vec<String>> =
        serde_json::from_slice(&std::fs::read(dir.join("payout_lines.json")).expect("lines"))
            .expect("lines parse");
    let payout_of: BTreeMap<&str, &str> = lines
        .iter()
        .flat_map(|(po, txns)| txns.iter().map(move |t| (t.as_str(), po.as_str())))
        .collect();
    let mut d = AccountData::empty(SnapshotMeta {
        account_id: String::new(),
        account_name: None,
        mode: Mode::Test,
        origin: Origin::Live,
        api_version: String::new(),
        fetched_at: 0,
        window_start: 0,
        window_end: 0,
        default_currency: None,
        payment_methods: Default::default(),
        settled_invoices_since: None,
        balance: None,
        lines_complete: false,
        lines_since: None,
        fraud_warnings: Default::default(),
    });
    d.payouts = read::<models::Payout>(dir, "payouts")
        .iter()
        .map(PayoutRow::from)
        .collect();
    d.balance_transactions = read::<models::BalanceTransaction>(dir, "balance_transactions")
        .iter()
        .map(|t| {
            let payout = payout_of.get(t.id.as_str()).map(|p| (*p).into());
            tieout::source::from_wire::balance_txn_row(t, payout.as_ref())
        })
        .collect();
    d.invoices = read::<models::Invoice>(dir, "invoices")
        .iter()
        .map(InvoiceRow::from)
        .collect();
    d.invoice_payments = read::<models::InvoicePayment>(dir, "invoice_payments")
        .iter()
        .map(InvoicePaymentRow::from)
        .collect();
    d.payment_intents = read::<models::PaymentIntent>(dir, "payment_intents")
        .iter()
        .map(PaymentIntentRow::from)
        .collect();
    d.charges = read::<models::Charge>(dir, "charges")
        .iter()
        .map(ChargeRow::from)
        .collect();
    d.refunds = read::<models::Refund>(dir, "refunds")
        .iter()
        .map(RefundRow::from)
        .collect();
    d.disputes = read::<models::Dispute>(dir, "disputes")
        .iter()
        .map(DisputeRow::from)
        .collect();
    d.customers = read::<models::Customer>(dir, "customers")
        .iter()
        .map(CustomerRow::from)
        .collect();
    d.subscriptions = read::<models::Subscription>(dir, "subscriptions")
        .iter()
        .map(SubscriptionRow::from)
        .collect();
    d
}

/// What a sync with `opts` should hold of `all`: payouts in the window and the lines of
/// the itemisable ones, open and uncollectible invoices, the open ones' payments, the
/// failing ones' payment intents, charges since `charges_since` plus the failed charges
/// those intents point at, and every refund, dispute, customer and subscription.
fn expected(all: &AccountData, opts: &SyncOptions) -> AccountData {
    let mut d = AccountData::empty(all.meta.clone());
    let (start, end) = opts.window;
    d.payouts = all
        .payouts
        .iter()
        .filter(|p| p.arrival_date >= start && p.arrival_date < end)
        .cloned()
        .collect();
    let itemised: BTreeSet<&str> = d
        .payouts
        .iter()
        .filter(|p| itemisable(p))
        .map(|p| p.id.as_str())
        .collect();
    // The itemised payouts' lines with their payout, and every other line created since
    // `lines_since` (not yet paid out, or paid by a payout Stripe cannot itemise) without.
    let paid = |t: &&tieout::model::rows::BalanceTxnRow| {
        t.payout.as_deref().is_some_and(|p| itemised.contains(p))
    };
    d.balance_transactions = all
        .balance_transactions
        .iter()
        .filter(paid)
        .cloned()
        .chain(
            all.balance_transactions
                .iter()
                .filter(|t| !paid(t) && opts.lines_since.is_some_and(|s| t.created >= s))
                .map(|t| {
                    let mut t = t.clone();
                    t.payout = None;
                    t
                }),
        )
        .collect();
    // Open and uncollectible invoices, and every paid and void one since
    // `settled_invoices_since` (whether it failed first is for its charges to tell), all
    // with their payments.
    let settled = |i: &&tieout::model::rows::InvoiceRow| {
        matches!(i.status.as_str(), "paid" | "void")
            && opts.settled_invoices_since.is_some_and(|t| i.created >= t)
    };
    d.invoices = all
        .invoices
        .iter()
        .filter(|i| matches!(i.status.as_str(), "open" | "uncollectible") || settled(i))
        .cloned()
        .collect();
    let listed: BTreeSet<&str> = d.invoices.iter().map(|i| i.id.as_str()).collect();
    d.invoice_payments = all
        .invoice_payments
        .iter()
        .filter(|p| listed.contains(p.invoice.as_str()))
        .cloned()
        .collect();
    let failing: BTreeSet<String> = d
        .invoices
        .iter()
        .filter_map(|inv| {
            let pays: Vec<&InvoicePaymentRow> = d
                .invoice_payments
                .iter()
                .filter(|p| p.invoice == inv.id)
                .collect();
            failing_payment_intent(inv, &pays)
        })
        .collect();
    d.payment_intents = all
        .payment_intents
        .iter()
        .filter(|pi| failing.contains(pi.id.as_str()))
        .cloned()
        .collect();
    let failed_charges: BTreeSet<&str> = d
        .payment_intents
        .iter()
        .filter_map(|pi| pi.latest_charge.as_deref())
        .collect();
    d.charges = all
        .charges
        .iter()
        .filter(|c| c.created >= opts.charges_since || failed_charges.contains(c.id.as_str()))
        .cloned()
        .collect();
    d.refunds = all.refunds.clone();
    d.disputes = all.disputes.clone();
    d.customers = all.customers.clone();
    d.subscriptions = all.subscriptions.clone();
    d.renewal_methods = all.renewal_methods.clone();
    d
}

/// Each table sorted by id, so tables compare as sets of rows.
fn sorted(mut d: AccountData) -> AccountData {
    d.payouts.sort_by(|a, b| a.id.cmp(&b.id));
    d.balance_transactions.sort_by(|a, b| a.id.cmp(&b.id));
    d.invoices.sort_by(|a, b| a.id.cmp(&b.id));
    d.invoice_payments.sort_by(|a, b| a.id.cmp(&b.id));
    d.payment_intents.sort_by(|a, b| a.id.cmp(&b.id));
    d.charges.sort_by(|a, b| a.id.cmp(&b.id));
    d.refunds.sort_by(|a, b| a.id.cmp(&b.id));
    d.disputes.sort_by(|a, b| a.id.cmp(&b.id));
    d.customers.sort_by(|a, b| a.id.cmp(&b.id));
    d.subscriptions.sort_by(|a, b| a.id.cmp(&b.id));
    d.renewal_methods
        .sort_by(|a, b| a.subscription.cmp(&b.subscription));
    d
}

#[track_caller]
fn assert_same_rows(got: &AccountData, want: &AccountData) {
    let (got, want) = (sorted(got.clone()), sorted(want.clone()));
    assert_eq!(got.payouts, want.payouts, "payouts");
    assert_eq!(
        got.balance_transactions, want.balance_transactions,
        "balance transactions"
    );
    assert_eq!(got.invoices, want.invoices, "invoices");
    assert_eq!(
        got.invoice_payments, want.invoice_payments,
        "invoice payments"
    );
    assert_eq!(got.payment_intents, want.payment_intents, "payment intents");
    assert_eq!(got.charges, want.charges, "charges");
    assert_eq!(got.refunds, want.refunds, "refunds");
    assert_eq!(got.disputes, want.disputes, "disputes");
    assert_eq!(got.customers, want.customers, "customers");
    assert_eq!(got.subscriptions, want.subscriptions, "subscriptions");
    // The card read: one row per active subscription (the fixtures without
    // payment_methods.json give rows without a method, which the files cannot hold).
    let active = |d: &AccountData| -> Vec<String> {
        let mut ids: Vec<String> = d
            .subscriptions
            .iter()
            .filter(|s| s.status.as_str() == "active")
            .map(|s| s.id.clone())
            .collect();
        ids.sort();
        ids
    };
    let listed: Vec<String> = got
        .renewal_methods
        .iter()
        .map(|r| r.subscription.clone())
        .collect();
    if !got.subscriptions.is_empty() {
        assert_eq!(listed, active(&want), "renewal methods");
    }
    if !want.renewal_methods.is_empty() {
        assert_eq!(got.renewal_methods, want.renewal_methods, "renewal methods");
    }
}

fn lines_requests(log: &[LoggedRequest]) -> Vec<String> {
    log.iter()
        .filter(|r| r.path == "/v1/balance_transactions")
        .filter_map(|r| r.param("payout"))
        .collect()
}

async fn run_sync(
    fake: &FakeStripe,
    cache: &Cache,
    opts: &SyncOptions,
    progress: &dyn Progress,
) -> sync::SyncReport {
    sync::sync(&client(fake), None, opts, cache, "default", progress)
        .await
        .expect("sync succeeds")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sync_stores_exactly_what_the_account_holds() {
    let fake = FakeStripe::start(FakeConfig::mini()).await;
    let root = tempfile::tempdir().expect("tmp");
    let cache = Cache::at(root.path());
    let opts = SyncOptions::for_months(now(), &jiff::tz::TimeZone::UTC, 3);
    let events = std::sync::Mutex::new(Vec::new());
    let record = |e: SyncEvent| events.lock().expect("lock").push(e);
    let report = run_sync(&fake, &cache, &opts, &record).await;

    let want = expected(&fixture_rows(&mini_fixtures()), &opts);
    assert_same_rows(&report.data, &want);
    assert!(!report.data.balance_transactions.is_empty());
    assert!(!report.data.payment_intents.is_empty());
    let meta = &report.data.meta;
    assert_eq!(
        meta.account_id,
        fake.account_id(),
        "taken from the 403 on /v1/account"
    );
    assert_eq!(meta.mode, Mode::Test);
    assert_eq!(meta.origin, Origin::Live);
    assert_eq!((meta.window_start, meta.window_end), opts.window);
    assert_eq!(meta.api_version, tieout::stripe::API_VERSION);

    // The cache holds the same rows, and the profile points at it.
    let cached = cache
        .load(&fake.account_id(), Mode::Test)
        .expect("cache")
        .to_data()
        .expect("rows");
    assert_same_rows(&cached, &report.data);
    assert_eq!(
        cache
            .last_used("default")
            .expect("pointer")
            .map(|p| p.account_id),
        Some(fake.account_id())
    );

    let log = fake.requests();
    assert!(log.iter().all(|r| r.method == "GET"));
    // Lists page by 100 (the account and the balance are objects, not lists); manual and
    // instant payouts are never itemised.
    for r in log
        .iter()
        .filter(|r| r.path != "/v1/account" && r.path != "/v1/balance" && !r.path.contains("/pi_"))
    {
        assert_eq!(
            r.param("limit").as_deref(),
            Some("100"),
            "{} {}",
            r.path,
            r.query
        );
    }
    let mut itemised = lines_requests(&log);
    itemised.sort();
    assert_eq!(itemised, vec!["po_Mini1", "po_Mini2"]);
    // One PaymentIntent read per failing invoice, with the failed charge expanded.
    let pis: Vec<&LoggedRequest> = log
        .iter()
        .filter(|r| r.path.starts_with("/v1/payment_intents/"))
        .collect();
    assert_eq!(pis.len(), report.data.payment_intents.len());
    assert!(
        pis.iter()
            .all(|r| r.param("expand[]").as_deref() == Some("latest_charge"))
    );
    let open = log
        .iter()
        .find(|r| r.path == "/v1/invoices" && r.param("status").as_deref() == Some("open"))
        .expect("open invoices listed");
    // With its payments, and its customer (with its invoice default, for the card's date)
    // and subscription (the wrong card).
    let expands: Vec<String> = open
        .query_pairs()
        .into_iter()
        .filter(|(k, _)| k == "expand[]")
        .map(|(_, v)| v)
        .collect();
    assert_eq!(
        expands,
        [
            "data.payments",
            "data.customer.invoice_settings.default_payment_method",
            "data.customer",
            "data.parent.subscription_details.subscription"
        ]
    );
    assert_eq!(report.stats.requests as usize, log.len());

    // Progress told the story.
    let events = events.lock().expect("lock");
    assert!(events.contains(&SyncEvent::Listed {
        part: tieout::source::progress::Part::Payouts,
        count: report.data.payouts.len()
    }));
    assert!(events.iter().any(|e| matches!(
        e,
        SyncEvent::Fetched {
            part: tieout::source::progress::Part::BalanceTransactions,
            done: 2,
            total: 2,
            ..
        }
    )));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_are_retried_and_the_snapshot_is_still_complete() {
    let clean = FakeStripe::start(FakeConfig::mini()).await;
    let root = tempfile::tempdir().expect("tmp");
    let opts = SyncOptions::for_months(now(), &jiff::tz::TimeZone::UTC, 3);
    let baseline = run_sync(&clean, &Cache::at(root.path().join("a")), &opts, &Quiet).await;

    let fake = FakeStripe::start(FakeConfig::mini()).await;
    for fault in [
        Fault::status("/v1/payouts", 429, 2),
        Fault::status("/v1/balance_transactions", 500, 2),
        Fault::status("/v1/invoices", 429, 1),
        Fault::status("/v1/payment_intents", 503, 2),
        Fault::status("/v1/charges", 500, 1),
        Fault::status("/v1/customers", 429, 1),
        Fault::Truncate {
            path_prefix: "/v1/subscriptions".into(),
            times: 1,
        },
        Fault::Reset {
            path_prefix: "/v1/refunds".into(),
            times: 1,
        },
    ] {
        fake.inject(fault);
    }
    let report = run_sync(&fake, &Cache::at(root.path().join("b")), &opts, &Quiet).await;
    assert_eq!(fake.pending_faults(), 0, "every fault fired");
    assert_same_rows(&report.data, &baseline.data);
    assert!(report.stats.retries >= 10, "{:?}", report.stats);
    assert!(report.stats.rate_limited >= 4, "{:?}", report.stats);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_sync_does_not_refetch_settled_payouts_lines() {
    let fake = FakeStripe::start(FakeConfig::mini()).await;
    // po_Mini2 is still in transit at the first sync.
    let mut po2 = fake.object("po_Mini2").expect("po_Mini2");
    po2["status"] = json!("in_transit");
    fake.put(po2.clone()).expect("put");
    let root = tempfile::tempdir().expect("tmp");
    let cache = Cache::at(root.path());
    let opts = SyncOptions::for_months(now(), &jiff::tz::TimeZone::UTC, 3);
    let first = run_sync(&fake, &cache, &opts, &Quiet).await;
    let mut first_lines = lines_requests(&fake.requests());
    first_lines.sort();
    assert_eq!(first_lines, vec!["po_Mini1", "po_Mini2"]);

    // Second sync: po_Mini1 is settled and cached; po_Mini2 is not final yet.
    fake.clear_requests();
    let second = run_sync(&fake, &cache, &opts, &Quiet).await;
    assert_eq!(lines_requests(&fake.requests()), vec!["po_Mini2"]);
    assert_eq!(second.reused_payouts, 1);
    assert_eq!(
        second.reused_lines,
        first
            .data
            .balance_transactions
            .iter()
            .filter(|t| t.payout.as_deref() == Some("po_Mini1"))
            .count()
    );
    assert_same_rows(&second.data, &first.data);
    // Everything else was read again.
    let log = fake.requests();
    for path in [
        "/v1/payouts",
        "/v1/invoices",
        "/v1/charges",
        "/v1/refunds",
        "/v1/disputes",
        "/v1/customers",
        "/v1/subscriptions",
    ] {
        assert!(log.iter().any(|r| r.path == path), "{path} read again");
    }

    // po_Mini2 is paid now: fetched once more (its status changed), then kept.
    po2["status"] = json!("paid");
    fake.put(po2).expect("put");
    fake.clear_requests();
    run_sync(&fake, &cache, &opts, &Quiet).await;
    assert_eq!(lines_requests(&fake.requests()), vec!["po_Mini2"]);
    fake.clear_requests();
    let fourth = run_sync(&fake, &cache, &opts, &Quiet).await;
    assert!(lines_requests(&fake.requests()).is_empty());
    assert_eq!(fourth.reused_payouts, 2);
    assert_eq!(fourth.saved.manifest.generation, 4);
}

fn data_dir(t: &Tieout) -> std::path::PathBuf {
    t.root().join("data")
}

#[test]
fn tieout_sync_prints_what_it_stored_and_a_failed_sync_keeps_the_cache() {
    let fake = start_fake(FakeConfig::mini());
    let t = Tieout::against(&fake);
    let data = t.root().join("data").display().to_string();
    let t = t.env("TIEOUT_DATA_DIR", &data);
    let out = t.run(&["sync"]);
    out.success();
    let acct = fake.account_id();
    assert!(
        out.stdout.starts_with(&format!(
            "synced {acct}, test mode, as of 2026-11-30T12:00:00Z\n"
        )),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("payouts arriving 2026-09-01 to 2026-11-30 (UTC)")
    );
    assert!(
        out.stdout.contains("  balance transactions          10\n"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("requests: "), "{}", out.stdout);
    let dir = data_dir(&t).join("accounts").join(format!("{acct}_test"));
    assert!(
        out.stdout
            .contains(&format!("cache: {} (generation 1,", dir.display()))
    );
    // Not a terminal: plain progress lines on stderr.
    assert!(out.stderr.contains("payouts: 4\n"), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("balance transactions: 2 of 2 payouts, 7 lines"),
        "{}",
        out.stderr
    );
    let manifest = std::fs::read(dir.join("manifest.json")).expect("manifest");

    // Stripe keeps failing: exit 4, the cache is as it was. (`--full`: a refresh from
    // the events would not read the charges at all.)
    fake.inject(Fault::status("/v1/charges", 500, Fault::ALWAYS));
    let out = t.run(&["sync", "--full"]);
    out.code(4);
    assert!(
        out.stderr
            .contains("the previous cache, if any, is unchanged"),
        "{}",
        out.stderr
    );
    assert_eq!(
        std::fs::read(dir.join("manifest.json")).expect("manifest"),
        manifest
    );
    fake.clear_faults();

    // A missing permission: exit 3 naming it; the cache is still intact.
    fake.deny(TEST_KEY, "rak_dispute_read");
    let out = t.run(&["sync", "--full"]);
    out.code(3);
    assert!(out.stderr.contains("rak_dispute_read"), "{}", out.stderr);
    assert_eq!(
        std::fs::read(dir.join("manifest.json")).expect("manifest"),
        manifest
    );
    fake.allow(TEST_KEY, "rak_dispute_read");

    // The key never reaches the cache.
    for entry in walk(&data_dir(&t)) {
        let bytes = std::fs::read(&entry).expect("read");
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(TEST_KEY),
            "key leaked into {}",
            entry.display()
        );
    }

    // A refused key: exit 3.
    fake.set_accepted_keys(tieout_testkit::fake_stripe::AcceptedKeys::Only(
        [TEST_KEY.to_string()].into_iter().collect(),
    ));
    let bad = t.env(
        "STRIPE_API_KEY",
        "rk_test_51NotAcceptedKey00000000000000000000000000zzzz",
    );
    bad.run(&["sync"]).code(3);
}

#[test]
fn sync_refuses_demo_cached_and_zero_months() {
    let t = Tieout::new();
    t.run(&["--demo", "sync"]).code(2);
    t.run(&["--cached", "sync"]).code(2);
    t.run(&["sync", "--months", "0"]).code(2);
    let out = t.run(&["sync"]);
    out.code(3);
    assert!(out.stderr.contains("tieout login"), "{}", out.stderr);
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

fn paths(log: &[LoggedRequest]) -> BTreeSet<String> {
    log.iter()
        .map(|r| {
            if r.path.starts_with("/v1/payment_intents/") {
                "/v1/payment_intents/{id}".to_string()
            } else {
                r.path.clone()
            }
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fresh_reads_fetch_only_what_the_need_requires() {
    use tieout::app::load::Need;
    let tz = jiff::tz::TimeZone::UTC;
    let fake = FakeStripe::start(FakeConfig::mini()).await;
    let all = fixture_rows(&mini_fixtures());

    // A month: payouts arriving in it and their lines, and the balance (one request, the
    // same permission as the lines), nothing else.
    let month: tieout::time::Month = "2026-11".parse().expect("month");
    let opts = Need::Month(month).options(now(), &tz);
    let got = sync::read_fresh(&client(&fake), None, &opts, None, &Quiet)
        .await
        .expect("month");
    assert_eq!(
        paths(&fake.requests()),
        [
            "/v1/account",
            "/v1/payouts",
            "/v1/balance_transactions",
            "/v1/balance"
        ]
        .map(String::from)
        .into()
    );
    let mut ids: Vec<&str> = got.data.payouts.iter().map(|p| p.id.as_str()).collect();
    ids.sort();
    assert_eq!(ids, vec!["po_Mini2", "po_Mini3", "po_Mini4"]);
    assert_eq!(lines_requests(&fake.requests()), vec!["po_Mini2"]);
    let want = expected(&all, &opts);
    assert_eq!(
        sorted(got.data.clone()).balance_transactions,
        sorted(want).balance_transactions
    );
    assert!(got.data.invoices.is_empty() && got.data.charges.is_empty());

    // With a cache of the account, settled payouts' lines come from it.
    let root = tempfile::tempdir().expect("tmp");
    let cache = Cache::at(root.path());
    run_sync(
        &fake,
        &cache,
        &SyncOptions::for_months(now(), &tz, 3),
        &Quiet,
    )
    .await;
    fake.clear_requests();
    let again = sync::read_fresh(&client(&fake), None, &opts, Some(&cache), &Quiet)
        .await
        .expect("month from cache");
    assert!(lines_requests(&fake.requests()).is_empty());
    assert_same_rows(&again.data, &got.data);

    // Dunning: invoices and the failing ones' payment intents, and for the morning's line
    // on last month's recovery the paid and void invoices and the charges since the month
    // before it.
    fake.clear_requests();
    let opts = Need::Dunning.options(now(), &tz);
    let got = sync::read_fresh(&client(&fake), None, &opts, Some(&cache), &Quiet)
        .await
        .expect("dunning");
    assert_eq!(
        paths(&fake.requests()),
        [
            "/v1/account",
            "/v1/charges",
            "/v1/invoices",
            "/v1/payment_intents/{id}",
            // The cards: active subscriptions, their payment methods expanded.
            "/v1/subscriptions",
        ]
        .map(String::from)
        .into()
    );
    let want = expected(&all, &opts);
    let got = sorted(got.data);
    let want = sorted(want);
    assert_eq!(got.invoices, want.invoices);
    assert_eq!(got.payment_intents, want.payment_intents);
    assert_eq!(got.invoice_payments, want.invoice_payments);
    // The cards: one row per active subscription of the fixtures.
    assert_eq!(got.meta.payment_methods, tieout::model::MethodsRead::Read);
    assert_eq!(
        got.renewal_methods.len(),
        all.subscriptions
            .iter()
            .filter(|s| s.status.as_str() == "active")
            .count()
    );
    // The failed charges behind the worklist come with their payment intents, the others
    // since the month before last month from the charges list, each once.
    assert_eq!(got.charges, want.charges);
    let failed: BTreeSet<&str> = got
        .payment_intents
        .iter()
        .filter_map(|p| p.latest_charge.as_deref())
        .collect();
    let charges: BTreeSet<&str> = got.charges.iter().map(|c| c.id.as_str()).collect();
    assert!(charges.is_superset(&failed) && charges.len() == got.charges.len());
    assert!(
        charges.len() > failed.len(),
        "no charge but the failed ones was listed"
    );
    // No payouts; the customers are only the open invoices' own (expanded on their list).
    assert!(got.payouts.is_empty());
    let open_customers: BTreeSet<&str> = got
        .invoices
        .iter()
        .filter(|i| i.status.as_str() == "open")
        .filter_map(|i| i.customer.as_deref())
        .collect();
    let customers: BTreeSet<&str> = got.customers.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(customers, open_customers);
    assert_eq!((got.meta.window_start, got.meta.window_end), (0, 0));
}

/// The demo account through the fake, with 429s and 500s (and a reset and a cut body)
/// on the way: the snapshot equals the demo data read directly, restricted to what a sync
/// reads; a second sync keeps every settled payout's lines.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_account_syncs_completely_through_faults() {
    let tz = jiff::tz::TimeZone::UTC;
    let fake = FakeStripe::start(FakeConfig::default()).await;
    for fault in [
        Fault::status("/v1/payouts", 429, 2),
        Fault::status("/v1/balance_transactions", 500, 3),
        Fault::status("/v1/balance_transactions", 429, 3),
        Fault::status("/v1/invoices", 500, 1),
        Fault::status("/v1/payment_intents", 429, 4),
        Fault::status("/v1/charges", 502, 2),
        Fault::status("/v1/subscriptions", 429, 1),
        Fault::Reset {
            path_prefix: "/v1/customers".into(),
            times: 1,
        },
        Fault::Truncate {
            path_prefix: "/v1/refunds".into(),
            times: 1,
        },
    ] {
        fake.inject(fault);
    }
    let root = tempfile::tempdir().expect("tmp");
    let cache = Cache::at(root.path());
    let opts = SyncOptions::for_months(now(), &tz, 3);
    let report = run_sync(&fake, &cache, &opts, &Quiet).await;
    assert_eq!(fake.pending_faults(), 0, "every fault fired");

    let demo = tieout::source::demo::load_demo().expect("demo");
    let want = expected(&demo, &opts);
    assert_same_rows(&report.data, &want);
    // The demo is built to exercise every part: none of these may be trivially empty.
    assert!(
        report.data.payouts.len() >= 10,
        "{}",
        report.data.payouts.len()
    );
    assert!(report.data.balance_transactions.len() >= 300);
    assert!(report.data.payment_intents.len() >= 30);
    assert!(!report.data.invoices.is_empty() && !report.data.subscriptions.is_empty());
    // Every automatic, completed payout in the window had its lines listed.
    let itemised = want.payouts.iter().filter(|p| itemisable(p)).count();
    let mut listed = lines_requests(&fake.requests());
    listed.sort();
    listed.dedup();
    assert_eq!(listed.len(), itemised);
    assert!(report.stats.retries >= 18, "{:?}", report.stats);
    // No more requests than the data needs: one per page of each list, one per page of
    // each itemised payout's lines, one per failing invoice (retries aside).
    let pages = |n: usize| n.div_ceil(100).max(1);
    let mut lines_per_payout: BTreeMap<&str, usize> = BTreeMap::new();
    for t in &want.balance_transactions {
        if let Some(p) = t.payout.as_deref() {
            *lines_per_payout.entry(p).or_default() += 1;
        }
    }
    // And the window's lines listed by `created`, paid out or not.
    let created_since = |lines: &[tieout::model::rows::BalanceTxnRow]| {
        lines
            .iter()
            .filter(|t| opts.lines_since.is_some_and(|s| t.created >= s))
            .count()
    };
    lines_per_payout.insert("", created_since(&demo.balance_transactions));
    let count = |status: &str| {
        want.invoices
            .iter()
            .filter(|i| i.status.as_str() == status)
            .count()
    };
    // The account, the balance (with the payouts), then the lists.
    let budget = 2
        + pages(want.payouts.len())
        + lines_per_payout.values().map(|n| pages(*n)).sum::<usize>()
        + pages(count("open"))
        + pages(count("uncollectible"))
        // The paid and void invoices since `settled_invoices_since`, one list each.
        + ["paid", "void"]
            .iter()
            .map(|st| {
                pages(
                    demo.invoices
                        .iter()
                        .filter(|i| i.status.as_str() == *st)
                        .filter(|i| opts.settled_invoices_since.is_some_and(|t| i.created >= t))
                        .count(),
                )
            })
            .sum::<usize>()
        + want.payment_intents.len()
        + pages(want.customers.len())
        + pages(
            demo.charges
                .iter()
                .filter(|c| c.created >= opts.charges_since)
                .count(),
        )
        + pages(want.refunds.len())
        + pages(want.disputes.len())
        + pages(want.subscriptions.len())
        + pages(want.renewal_methods.len())
        // The early fraud warnings since the charges' start, their fees expanded.
        + pages(
            demo.fraud_warnings
                .iter()
                .filter(|w| w.created >= opts.charges_since)
                .count(),
        );
    assert_eq!(
        (report.stats.requests - report.stats.retries) as usize,
        budget,
        "{:?}",
        report.stats
    );

    fake.clear_requests();
    let second = run_sync(&fake, &cache, &opts, &Quiet).await;
    let settled = want.payouts.iter().filter(|p| sync::settled(p)).count();
    assert_eq!(second.reused_payouts, settled);
    assert_eq!(
        lines_requests(&fake.requests()).len(),
        itemised - settled,
        "only unsettled payouts' lines are read again"
    );
    assert_same_rows(&second.data, &report.data);
}

/// The files of a cache generation, by name, with their bytes.
pub(crate) fn cache_files(saved: &tieout::source::cache::Saved) -> BTreeMap<String, Vec<u8>> {
    let dir = saved.dir.join(saved.manifest.generation_dir());
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).expect("generation dir") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .to_string();
        files.insert(name, std::fs::read(&path).expect("read"));
    }
    files.insert(
        "manifest.json".into(),
        std::fs::read(saved.dir.join("manifest.json")).expect("manifest"),
    );
    files
}

/// Against a slow, rate-limited server (latency on every request, 429 above the limit)
/// with the client paced to the same budget, the demo account syncs completely into the
/// very same cache bytes as an unthrottled sync (completion order changes nothing), with
/// almost no 429s, and with no request the data does not need: no request twice, one per
/// page, and a PaymentIntent read only where there is a failed attempt to explain (never
/// for a `send_invoice` invoice nobody tried to pay).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paced_sync_under_a_rate_limit_stores_the_same_cache_with_no_needless_request() {
    let tz = jiff::tz::TimeZone::UTC;
    let opts = SyncOptions::for_months(now(), &tz, 3);
    let root = tempfile::tempdir().expect("tmp");

    let fast = FakeStripe::start(FakeConfig::default()).await;
    let unthrottled = run_sync(&fast, &Cache::at(root.path().join("a")), &opts, &Quiet).await;

    let slow = FakeStripe::start(
        FakeConfig::default()
            .latency(std::time::Duration::from_millis(30))
            .rate_limit(40),
    )
    .await;
    let mut cfg = ClientConfig::new(slow.base_url(), ApiKey::parse(TEST_KEY).expect("key"));
    cfg.rate.per_second = 40;
    let paced_client = Client::new(cfg).expect("client");
    let paced = sync::sync(
        &paced_client,
        None,
        &opts,
        &Cache::at(root.path().join("b")),
        "default",
        &Quiet,
    )
    .await
    .expect("the paced sync completes");

    // The same cache, byte for byte.
    assert_eq!(paced.saved.manifest, unthrottled.saved.manifest);
    let (a, b) = (cache_files(&unthrottled.saved), cache_files(&paced.saved));
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "same files"
    );
    for (name, bytes) in &a {
        assert!(b[name] == *bytes, "{name} differs between the two caches");
    }
    assert_eq!(paced.data, unthrottled.data);

    // Paced to the server's budget: almost no 429s (each one retried).
    let log = slow.requests();
    assert_eq!(paced.stats.requests as usize, log.len());
    assert!(
        paced.stats.rate_limited * 20 <= paced.stats.requests,
        "{:?}",
        paced.stats
    );
    let answered: Vec<&LoggedRequest> = log.iter().filter(|r| r.status != Some(429)).collect();
    assert_eq!(
        answered.len() as u64,
        paced.stats.requests - paced.stats.rate_limited,
        "only 429s were repeated"
    );
    let mut seen = BTreeSet::new();
    for r in &answered {
        assert!(
            seen.insert((r.path.clone(), r.query.clone())),
            "sent twice: {} {}",
            r.path,
            r.query
        );
    }

    // PaymentIntents: every one with an error behind an open invoice is read; any read
    // without an error belongs to a charge_automatically invoice (Stripe between attempts).
    let all = fixture_rows(&tieout_testkit::fake_stripe::demo_fixtures());
    let read: BTreeSet<&str> = answered
        .iter()
        .filter_map(|r| r.path.strip_prefix("/v1/payment_intents/"))
        .collect();
    let open: BTreeMap<&str, &InvoiceRow> = all
        .invoices
        .iter()
        .filter(|i| i.status.as_str() == "open")
        .map(|i| (i.id.as_str(), i))
        .collect();
    let invoice_of: BTreeMap<&str, &InvoiceRow> = all
        .invoice_payments
        .iter()
        .filter_map(|p| Some((p.payment_intent.as_deref()?, *open.get(p.invoice.as_str())?)))
        .collect();
    let mut skipped_send_invoice = 0;
    for pi in &all.payment_intents {
        let Some(inv) = invoice_of.get(pi.id.as_str()) else {
            assert!(
                !read.contains(pi.id.as_str()),
                "{} has no open invoice",
                pi.id
            );
            continue;
        };
        let has_error = pi.error_code.is_some() || pi.error_decline_code.is_some();
        let send_invoice = inv.collection_method.as_deref() == Some("send_invoice");
        if has_error {
            assert!(
                read.contains(pi.id.as_str()),
                "{} explains a failure",
                pi.id
            );
        } else if send_invoice {
            assert!(!inv.attempted, "{}", inv.id);
            assert!(!read.contains(pi.id.as_str()), "{} was never tried", pi.id);
            skipped_send_invoice += 1;
        }
    }
    assert!(
        skipped_send_invoice >= 1,
        "the demo has send_invoice invoices nobody tried to pay"
    );
    assert_eq!(read.len(), paced.data.payment_intents.len());

    // Every list is read in full pages of 100: one request per page, none more.
    let pages = |n: usize| n.div_ceil(100).max(1);
    let lists = |path: &str, status: Option<&str>| {
        answered
            .iter()
            .filter(|r| {
                r.path == path && (status.is_none() || r.param("status").as_deref() == status)
            })
            .count()
    };
    let d = &paced.data;
    let count = |status: &str| {
        d.invoices
            .iter()
            .filter(|i| i.status.as_str() == status)
            .count()
    };
    assert_eq!(lists("/v1/payouts", None), pages(d.payouts.len()));
    assert_eq!(lists("/v1/invoices", Some("open")), pages(count("open")));
    assert_eq!(
        lists("/v1/invoices", Some("uncollectible")),
        pages(count("uncollectible"))
    );
    assert_eq!(lists("/v1/customers", None), pages(d.customers.len()));
    assert_eq!(lists("/v1/refunds", None), pages(d.refunds.len()));
    assert_eq!(lists("/v1/disputes", None), pages(d.disputes.len()));
    assert_eq!(
        lists("/v1/subscriptions", Some("all")),
        pages(d.subscriptions.len())
    );
    assert_eq!(
        lists("/v1/subscriptions", Some("active")),
        pages(d.renewal_methods.len())
    );
    assert_eq!(
        lists("/v1/radar/early_fraud_warnings", None),
        pages(d.fraud_warnings.len())
    );
    let charges_listed = all
        .charges
        .iter()
        .filter(|c| c.created >= opts.charges_since)
        .count();
    assert_eq!(lists("/v1/charges", None), pages(charges_listed));
    let mut lines_per_payout: BTreeMap<&str, usize> = BTreeMap::new();
    for t in &d.balance_transactions {
        if let Some(p) = t.payout.as_deref() {
            *lines_per_payout.entry(p).or_default() += 1;
        }
    }
    // And the window's lines listed by `created`, paid out or not.
    lines_per_payout.insert(
        "",
        all.balance_transactions
            .iter()
            .filter(|t| opts.lines_since.is_some_and(|s| t.created >= s))
            .count(),
    );
    assert_eq!(
        lists("/v1/balance_transactions", None),
        lines_per_payout.values().map(|n| pages(*n)).sum::<usize>()
    );
}

/// `--cached` before any sync is a usage problem (exit 2) that says what to run, not an
/// unexplained failure.
#[test]
fn cached_before_any_sync_exits_2_and_says_to_sync() {
    let fake = start_fake(FakeConfig::mini());
    let t = Tieout::against(&fake);
    let data = t.root().join("data").display().to_string();
    let t = t.env("TIEOUT_DATA_DIR", &data);
    let out = t.run(&["--cached", "dunning"]);
    out.code(2);
    assert!(out.stderr.contains("tieout sync"), "{}", out.stderr);
}

/// Stripe fills `trace_id` up to ten days after a payout is paid and sends no event: the
/// next sync lists the window's payouts again, so the cache picks the value up (while the
/// settled payout's lines are still kept, not fetched again).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trace_id_that_arrives_after_the_payout_is_paid_reaches_the_cache() {
    let fake = FakeStripe::start(FakeConfig::mini()).await;
    let mut po1 = fake.object("po_Mini1").expect("po_Mini1");
    po1["trace_id"] = json!({"status": "pending", "value": null});
    fake.put(po1.clone()).expect("put");
    let root = tempfile::tempdir().expect("tmp");
    let cache = Cache::at(root.path());
    let opts = SyncOptions::for_months(now(), &jiff::tz::TimeZone::UTC, 3);
    let row = |d: &AccountData| {
        d.payouts
            .iter()
            .find(|p| p.id == "po_Mini1")
            .map(|p| {
                (
                    p.trace_id.clone(),
                    p.trace_id_status.as_ref().map(|s| s.as_str().to_string()),
                )
            })
            .expect("po_Mini1 synced")
    };
    let first = run_sync(&fake, &cache, &opts, &Quiet).await;
    assert_eq!(row(&first.data), (None, Some("pending".to_string())));

    po1["trace_id"] = json!({"status": "supported", "value": "FED26110300042"});
    fake.put(po1).expect("put");
    fake.clear_requests();
    let second = run_sync(&fake, &cache, &opts, &Quiet).await;
    let want = (
        Some("FED26110300042".to_string()),
        Some("supported".to_string()),
    );
    assert_eq!(row(&second.data), want);
    assert!(
        !lines_requests(&fake.requests()).contains(&"po_Mini1".to_string()),
        "the settled payout's lines are kept"
    );
    let cached = cache
        .load(&second.data.meta.account_id, Mode::Test)
        .expect("load")
        .to_data()
        .expect("rows");
    assert_eq!(row(&cached), want, "the cache holds the late trace id");
}
