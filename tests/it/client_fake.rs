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
