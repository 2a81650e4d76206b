//! 429 as congestion (issue 19), the client against servers that push back: under a
//! token bucket it slows down (and says so) and every read succeeds; `Retry-After` is
//! waited out; a server that never stops answering 429 makes a request give up only once
//! nothing has succeeded for the configured time, naming the endpoint and the last
//! Request-Id.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

use tieout::secrets::ApiKey;
use tieout::stripe::{Client, ClientConfig, RateConfig, StripeError};
use tieout_testkit::fake_stripe::RateLimit;

use crate::client::{Seen, error_reply, ok, start};
use crate::support::{FakeConfig, FakeStripe, Fault, TEST_KEY};

fn client(base: &str, rate: RateConfig) -> Client {
    let key = ApiKey::parse(TEST_KEY).expect("test key");
    let mut cfg = ClientConfig::new(base, key);
    cfg.rate = rate;
    Client::new(cfg).expect("client")
}

/// The default budget (20 req/s) with short waits, so the test stays quick.
fn quick_budget() -> RateConfig {
    RateConfig {
        backoff_base: Duration::from_millis(20),
        backoff_cap: Duration::from_millis(200),
        give_up_after: Duration::from_secs(20),
        ..RateConfig::for_mode(tieout::model::Mode::Test)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_a_token_bucket_the_client_slows_says_so_and_every_read_succeeds() {
    let fake = FakeStripe::start(FakeConfig::default().latency(Duration::from_millis(20))).await;
    fake.set_rate_limit(Some(RateLimit {
        per_second: 5,
        burst: 5,
    }));
    let c = client(&fake.base_url(), quick_budget());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut reports = c.pace_reports();
    let watcher = {
        let seen = seen.clone();
        tokio::spawn(async move {
            while reports.changed().await.is_ok() {
                let r = *reports.borrow_and_update();
                seen.lock().expect("reports").push(r);
            }
        })
    };
    let fan = c.background();
    let reads = c
        .map_concurrent(0..40, |_| {
            let fan = fan.clone();
            async move { fan.get::<serde_json::Value>("/v1/balance", &[]).await }
        })
        .await
        .expect("every read succeeds under back-pressure");
    assert_eq!(reads.len(), 40);
    watcher.abort();

    let stats = c.stats();
    assert!(
        stats.rate_limited >= 1,
        "the bucket never pushed back: {stats:?}"
    );
    assert_eq!(
        fake.requests()
            .iter()
            .filter(|r| r.status == Some(200))
            .count(),
        40,
        "each read answered once"
    );
    // Multiplicative decrease: at least halved from the budget, and reported.
    let pace = c.pace();
    assert!(pace.per_second <= 10.0, "{pace:?}");
    let reports = seen.lock().expect("reports").clone();
    assert!(
        reports
            .iter()
            .any(|r| r.rate_limited && r.per_second < r.budget),
        "{reports:?}"
    );
    // Fewer in flight once slower (Little's law on the lowered rate and ~20 ms answers:
    // well under one request, so the floor of two).
    assert!(c.in_flight() <= 3, "{}", c.in_flight());
}

#[tokio::test]
async fn retry_after_is_waited_out() {
    let server = start(|_: &Seen, nth| {
        if nth == 0 {
            (
                429,
                vec![
                    ("request-id", "req_wait".into()),
                    ("retry-after", "1".into()),
                ],
                json!({"error": {"type": "invalid_request_error", "code": "rate_limit"}})
                    .to_string(),
            )
        } else {
            ok(json!({"available": [], "pending": []}))
        }
    })
    .await;
    let c = client(&server.base, RateConfig::unthrottled());
    let started = Instant::now();
    c.get::<serde_json::Value>("/v1/balance", &[])
        .await
        .expect("retried after the wait");
    // The backoff alone is a few milliseconds here; the header asked for a second.
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(c.stats().retries, 1);
}

#[tokio::test]
async fn stripe_should_retry_false_is_final_even_for_a_429() {
    let server = start(|_: &Seen, nth| {
        (
            429,
            vec![
                ("request-id", format!("req_no_{nth}")),
                ("stripe-should-retry", "false".into()),
            ],
            json!({"error": {"type": "invalid_request_error", "code": "lock_timeout"}}).to_string(),
        )
    })
    .await;
    let c = client(&server.base, RateConfig::unthrottled());
    let err = c
        .get::<serde_json::Value>("/v1/balance", &[])
        .await
        .expect_err("not retried");
    assert!(
        matches!(err, StripeError::RateLimited { attempts: 1, .. }),
        "{err:?}"
    );
    assert_eq!(server.seen().len(), 1);
}

#[tokio::test]
async fn rate_limited_for_good_gives_up_after_the_quiet_time_naming_endpoint_and_request() {
    let server = start(|_: &Seen, nth| {
        error_reply(
            429,
            &format!("req_busy_{nth}"),
            json!({"type": "invalid_request_error", "code": "rate_limit"}),
        )
    })
    .await;
    let rate = RateConfig {
        give_up_after: Duration::from_millis(600),
        ..RateConfig::unthrottled()
    };
    let c = client(&server.base, rate);
    let err = c
        .get::<serde_json::Value>("/v1/charges", &[])
        .await
        .expect_err("gives up");
    let StripeError::RateLimited { attempts, .. } = &err else {
        panic!("{err:?}");
    };
    // Far beyond the old fixed four attempts: it kept trying while the time ran.
    assert!(*attempts > 4, "{attempts}");
    let last = format!("req_busy_{}", server.seen().len() - 1);
    assert_eq!(err.request_id(), Some(last.as_str()));
    let text = err.to_string();
    assert!(
        text.contains("GET /v1/charges") && text.contains(&last),
        "{text}"
    );
    assert_eq!(err.fail_kind(), tieout::failure::FailKind::Stripe);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_request_keeps_trying_while_other_requests_succeed() {
    // /v1/charges answers 500 for a while; /v1/balance succeeds meanwhile, so the run
    // makes progress and the charges read does not give up although its time ran out.
    let fake = FakeStripe::start(FakeConfig::default()).await;
    fake.inject(Fault::status("/v1/charges", 500, 60));
    let rate = RateConfig {
        give_up_after: Duration::from_millis(300),
        backoff_base: Duration::from_millis(10),
        backoff_cap: Duration::from_millis(20),
        ..RateConfig::unthrottled()
    };
    let c = client(&fake.base_url(), rate);
    let busy = c.clone();
    let keep_busy = tokio::spawn(async move {
        loop {
            let _ = busy.get::<serde_json::Value>("/v1/balance", &[]).await;
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
    let charges: Vec<serde_json::Value> = c
        .list_all("/v1/charges", &[])
        .await
        .expect("succeeds once the 500s stop");
    keep_busy.abort();
    assert!(!charges.is_empty());
    assert_eq!(fake.pending_faults(), 0, "all 60 failures were met");
}
