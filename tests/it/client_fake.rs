//! tieout's real Stripe client against the fake Stripe server: pagination, filters,
//! retries through injected faults, typed errors carrying the fake's `Request-Id`, and a
//! request log that holds nothing but GETs.

use tieout::cli::FailKind;
use tieout::secrets::ApiKey;
use tieout::stripe::models::{BalanceTransaction, Customer, Payout};
use tieout::stripe::query::params;
use tieout::stripe::{API_VERSION, Client, ClientConfig, RateConfig, StripeError};

use crate::support::{FakeConfig, FakeStripe, Fault, TEST_KEY};

fn client(fake: &FakeStripe) -> Client {
    let key = ApiKey::parse(TEST_KEY).expect("the fake's test key parses");
    let mut cfg = ClientConfig::new(fake.base_url(), key);
    cfg.rate = RateConfig::unthrottled();
    Client::new(cfg).expect("a client for the fake")
}

#[tokio::test]
async fn the_client_pages_and_filters_through_the_fake() {
    let fake = FakeStripe::start(FakeConfig::mini()).await;
    let c = client(&fake);
    let payouts: Vec<Payout> = c.list_all("/v1/payouts", &[]).await.expect("payouts");
    let ids: Vec<&str> = payouts.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["po_Mini4", "po_Mini3", "po_Mini2", "po_Mini1"]);
    let lines: Vec<BalanceTransaction> = c
        .list_all(
            "/v1/balance_transactions",
            &params([("payout", "po_Mini2")]),
        )
        .await
        .expect("lines of po_Mini2");
    assert_eq!(lines.len(), 4);
    assert_eq!(lines.iter().filter_map(|t| t.net).sum::<i64>(), 0);
    let found: Vec<Customer> = c
        .search_all(
            "/v1/customers/search",
            &params([("query", "email:'BOB@example.com'")]),
        )
        .await
        .expect("search");
    assert_eq!(found.len(), 2);

    let log = fake.requests();
    assert!(log.iter().all(|r| r.method == "GET"), "{log:?}");
    assert!(
        log.iter()
            .all(|r| r.stripe_version.as_deref() == Some(API_VERSION))
    );
    assert!(
        log.iter()
            .filter(|r| r.path != "/v1/customers/search")
            .all(|r| r.param("limit").as_deref() == Some("100"))
    );
}

#[tokio::test]
async fn the_client_retries_through_429s_and_500s() {
    let fake = FakeStripe::start(FakeConfig::mini()).await;
    fake.inject(Fault::Status {
        path_prefix: "/v1/balance_transactions".into(),
        status: 429,
        times: 2,
        should_retry: Some(true),
    });
    fake.inject(Fault::status("/v1/balance_transactions", 500, 1));
    let c = client(&fake);
    let all: Vec<BalanceTransaction> = c
        .list_all("/v1/balance_transactions", &[])
        .await
        .expect("the list survives the faults");
    assert_eq!(all.len(), 10);
    assert_eq!(fake.pending_faults(), 0);
    assert_eq!(fake.stats().faults_fired, 3);
    assert_eq!(c.stats().retries, 3);
}

#[tokio::test]
async fn errors_name_the_permission_and_the_request_id() {
    let fake = FakeStripe::start(FakeConfig::mini().deny(TEST_KEY, ["rak_payout_read"])).await;
    let c = client(&fake);
    let err = c
        .list_all::<Payout>("/v1/payouts", &[])
        .await
        .expect_err("403");
    assert!(
        matches!(&err, StripeError::MissingPermission { permission: Some(p), .. } if p == "rak_payout_read"),
        "{err:?}"
    );
    assert_eq!(err.fail_kind(), FailKind::Key);
    let logged = fake.requests().last().map(|r| r.request_id.clone());
    assert_eq!(err.request_id().map(str::to_string), logged);
    assert!(!err.to_string().contains(TEST_KEY));

    let missing = c
        .get::<serde_json::Value>("/v1/charges/ch_Nope", &[])
        .await
        .expect_err("404");
    assert!(missing.is_not_found(), "{missing:?}");
}

/// The default fake serves the bundled demo account: every list reads back complete
/// through the real client, each automatic payout's `?payout=` listing is exactly its
/// `payout_lines.json` entry, and manual payouts are refused as Stripe refuses them.
#[tokio::test]
async fn the_demo_account_reads_back_whole_through_the_client() {
    use std::collections::{BTreeMap, BTreeSet};

    use tieout::stripe::models::{
        Charge, Dispute, Invoice, InvoicePayment, PaymentIntent, Refund, Subscription,
    };
    use tieout_testkit::fake_stripe::demo_fixtures;

    let dir = demo_fixtures();
    let meta: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("meta.json")).expect("demo meta.json"),
    )
    .expect("meta.json is JSON");
    let count = |name: &str| meta["counts"][name].as_u64().expect("a count") as usize;
    let fake = FakeStripe::start(FakeConfig::default()).await;
    assert_eq!(
        fake.account_id(),
        meta["account"].as_str().expect("account")
    );
    let c = client(&fake);

    macro_rules! all {
        ($t:ty, $path:expr, $query:expr) => {
            c.list_all::<$t>($path, &params($query))
                .await
                .unwrap_or_else(|e| panic!("{}: {e}", $path))
        };
    }
    let payouts = all!(Payout, "/v1/payouts", [("", ""); 0]);
    assert_eq!(payouts.len(), count("payouts"));
    assert_eq!(
        all!(
            BalanceTransaction,
            "/v1/balance_transactions",
            [("", ""); 0]
        )
        .len(),
        count("balance_transactions")
    );
    assert_eq!(
        all!(Charge, "/v1/charges", [("", ""); 0]).len(),
        count("charges")
    );
    assert_eq!(
        all!(PaymentIntent, "/v1/payment_intents", [("", ""); 0]).len(),
        count("payment_intents")
    );
    assert_eq!(
        all!(Invoice, "/v1/invoices", [("", ""); 0]).len(),
        count("invoices")
    );
    assert_eq!(
        all!(InvoicePayment, "/v1/invoice_payments", [("", ""); 0]).len(),
        count("invoice_payments")
    );
    assert_eq!(
        all!(Refund, "/v1/refunds", [("", ""); 0]).len(),
        count("refunds")
    );
    assert_eq!(
        all!(Dispute, "/v1/disputes", [("", ""); 0]).len(),
        count("disputes")
    );
    assert_eq!(
        all!(Customer, "/v1/customers", [("", ""); 0]).len(),
        count("customers")
    );
    assert_eq!(
        all!(Subscription, "/v1/subscriptions", [("status", "all")]).len(),
        count("subscriptions")
    );

    let lines: BTreeMap<String, BTreeSet<String>> = serde_json::from_str(
        &std::fs::read_to_string(dir.join("payout_lines.json")).expect("payout_lines.json"),
    )
    .expect("payout_lines.json parses");
    let mut manual = 0;
    for p in &payouts {
        let got = c
            .list_all::<BalanceTransaction>(
                "/v1/balance_transactions",
                &params([("payout", p.id.as_str())]),
            )
            .await;
        if p.automatic {
            let got: BTreeSet<String> = got
                .unwrap_or_else(|e| panic!("{}: {e}", p.id))
                .into_iter()
                .map(|t| t.id)
                .collect();
            let want = lines.get(&p.id).cloned().unwrap_or_default();
            assert_eq!(got, want, "lines of {}", p.id);
        } else {
            manual += 1;
            let err = got.expect_err("a manual payout cannot be listed by payout");
            assert_eq!(err.status(), Some(400), "{err:?}");
        }
    }
    assert!(manual >= 1, "the demo has a manual payout");
    assert!(fake.requests().iter().all(|r| r.method == "GET"));
}
