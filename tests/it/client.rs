//! The Stripe client end to end over loopback: small scripted axum servers (started by
//! each test on 127.0.0.1:0) answer as Stripe would, including its failures.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use futures::StreamExt;
use serde_json::{Value, json};

use tieout::cli::FailKind;
use tieout::secrets::ApiKey;
use tieout::stripe::models::{Balance, Customer, Payout};
use tieout::stripe::query::params;
use tieout::stripe::{API_VERSION, Client, ClientConfig, RateConfig, StripeError};

pub(crate) const KEY: &str = "rk_test_51TestKeyForTieoutClient0000WXYZ";

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    pub(crate) method: String,
    pub(crate) path: String,
    /// The raw query string, exactly as sent.
    pub(crate) raw_query: String,
    pub(crate) query: HashMap<String, String>,
    pub(crate) headers: HeaderMap,
}

/// status, headers, body.
pub(crate) type Reply = (u16, Vec<(&'static str, String)>, String);
type Script = dyn Fn(&Seen, usize) -> Reply + Send + Sync;

#[derive(Clone)]
struct ServerState {
    log: Arc<Mutex<Vec<Seen>>>,
    script: Arc<Script>,
}

pub(crate) struct Server {
    pub(crate) base: String,
    log: Arc<Mutex<Vec<Seen>>>,
}

impl Server {
    pub(crate) fn seen(&self) -> Vec<Seen> {
        self.log.lock().expect("log").clone()
    }
}

async fn handle(State(st): State<ServerState>, req: Request) -> Response {
    let raw_query = req.uri().query().unwrap_or("").to_string();
    let query = form_pairs(&raw_query);
    let seen = Seen {
        method: req.method().to_string(),
        path: req.uri().path().to_string(),
        raw_query,
        query,
        headers: req.headers().clone(),
    };
    let nth = {
        let mut log = st.log.lock().expect("log");
        let nth = log.iter().filter(|s| s.path == seen.path).count();
        log.push(seen.clone());
        nth
    };
    let (status, headers, body) = (st.script)(&seen, nth);
    let mut builder = Response::builder()
        .status(StatusCode::from_u16(status).expect("status"))
        .header("content-type", "application/json");
    for (name, value) in headers {
        builder = builder.header(name, value);
    }
    builder.body(Body::from(body)).expect("response")
}

/// Decodes `a=1&b%5B%5D=2` into a map (last value wins).
fn form_pairs(raw: &str) -> HashMap<String, String> {
    raw.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (unescape(k), unescape(v))
        })
        .collect()
}

fn unescape(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(if bytes[i] == b'+' { b' ' } else { bytes[i] });
        i += 1;
    }
    String::from_utf8(out).expect("utf8")
}

pub(crate) async fn start(
    script: impl Fn(&Seen, usize) -> Reply + Send + Sync + 'static,
) -> Server {
    let log = Arc::new(Mutex::new(Vec::new()));
    let state = ServerState {
        log: log.clone(),
        script: Arc::new(script),
    };
    let app = Router::new().fallback(handle).with_state(state);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        axum::serve(listener, app).await.expect("serve");
    });
    Server {
        base: format!("http://{addr}"),
        log,
    }
}

fn client_for(server: &Server) -> Client {
    client_with(server, None, 4)
}

fn client_with(server: &Server, account: Option<&str>, max_attempts: u32) -> Client {
    let key = ApiKey::parse(KEY).expect("test key");
    Client::new(ClientConfig {
        api_base: server.base.clone(),
        key,
        stripe_account: account.map(str::to_string),
        rate: RateConfig::unthrottled(),
        max_attempts,
    })
    .expect("client")
}

pub(crate) fn ok(body: Value) -> Reply {
    (
        200,
        vec![("request-id", "req_ok".to_string())],
        body.to_string(),
    )
}

pub(crate) fn error_reply(status: u16, request_id: &str, error: Value) -> Reply {
    (
        status,
        vec![("request-id", request_id.to_string())],
        json!({ "error": error }).to_string(),
    )
}

pub(crate) fn assert_only_gets(server: &Server) {
    let seen = server.seen();
    assert!(!seen.is_empty(), "the server saw no request");
    for s in seen {
        assert_eq!(s.method, "GET", "the client sent {} {}", s.method, s.path);
    }
}

fn payout(i: usize) -> Value {
    json!({"id": format!("po_{i:03}"), "object": "payout", "amount": i * 100, "currency": "usd",
           "automatic": true, "status": "paid"})
}

/// 250 payouts, served newest first in pages that honour `limit` and `starting_after`.
fn paginated_payouts(seen: &Seen, _nth: usize) -> Reply {
    let all: Vec<Value> = (0..250).map(payout).collect();
    let limit: usize = seen
        .query
        .get("limit")
        .and_then(|l| l.parse().ok())
        .unwrap_or(10);
    let start = match seen.query.get("starting_after") {
        Some(id) => {
            all.iter()
                .position(|p| p["id"] == json!(id))
                .expect("cursor is a known id")
                + 1
        }
        None => 0,
    };
    let end = (start + limit).min(all.len());
    ok(json!({
        "object": "list", "url": "/v1/payouts",
        "has_more": end < all.len(),
        "data": all[start..end],
    }))
}

#[tokio::test]
async fn lists_follow_starting_after_until_has_more_is_false() {
    let server = start(paginated_payouts).await;
    let client = client_for(&server);
    let q = params([
        ("created[gte]", "1700000000"),
        ("expand[]", "data.destination"),
    ]);
    let payouts: Vec<Payout> = client.list_all("/v1/payouts", &q).await.expect("all pages");
    assert_eq!(payouts.len(), 250);
    let ids: Vec<&str> = payouts.iter().map(|p| p.id.as_str()).collect();
    let expected: Vec<String> = (0..250).map(|i| format!("po_{i:03}")).collect();
    assert_eq!(ids, expected);

    let seen = server.seen();
    assert_eq!(seen.len(), 3, "three pages of at most 100");
    for s in &seen {
        assert_eq!(s.query.get("limit").map(String::as_str), Some("100"));
        assert_eq!(
            s.query.get("created[gte]").map(String::as_str),
            Some("1700000000")
        );
        assert!(
            s.raw_query.contains("created[gte]=1700000000")
                && s.raw_query.contains("expand[]=data.destination"),
            "brackets are sent literally: {}",
            s.raw_query
        );
    }
    assert_eq!(seen[0].query.get("starting_after"), None);
    assert_eq!(
        seen[1].query.get("starting_after").map(String::as_str),
        Some("po_099")
    );
    assert_eq!(
        seen[2].query.get("starting_after").map(String::as_str),
        Some("po_199")
    );
    assert_only_gets(&server);
    let stats = client.stats();
    assert_eq!(stats.requests, 3);
    assert_eq!(stats.retries, 0);
    assert_eq!(stats.by_endpoint.get("/v1/payouts"), Some(&3));
}

#[tokio::test]
async fn the_list_stream_yields_items_lazily() {
    let server = start(paginated_payouts).await;
    let client = client_for(&server);
    let first: Vec<_> = client
        .list::<Payout>("/v1/payouts", &[])
        .take(5)
        .collect()
        .await;
    assert_eq!(first.len(), 5);
    assert_eq!(first[4].as_ref().expect("ok").id, "po_004");
    assert_eq!(server.seen().len(), 1, "only the first page was fetched");
}

#[tokio::test]
async fn an_error_mid_list_ends_the_stream_with_the_error() {
    let server = start(|seen: &Seen, nth| {
        if nth == 0 {
            paginated_payouts(seen, nth)
        } else {
            error_reply(
                403,
                "req_forbidden",
                json!({"type": "invalid_request_error",
                       "message": "Having the 'rak_payout_read' permission would allow this request to continue."}),
            )
        }
    })
    .await;
    let client = client_for(&server);
    let items: Vec<Result<Payout, StripeError>> = client.list("/v1/payouts", &[]).collect().await;
    assert_eq!(items.len(), 101, "100 items, then the error, then the end");
    assert!(items[..100].iter().all(Result::is_ok));
    let err = items[100].as_ref().expect_err("error last");
    assert_eq!(err.missing_permission(), Some("rak_payout_read"));
}

#[tokio::test]
async fn search_pages_with_next_page() {
    let server = start(|seen: &Seen, _| {
        let page = seen.query.get("page").cloned();
        let (data, next): (Vec<Value>, Option<&str>) = match page.as_deref() {
            None => (
                (0..100)
                    .map(|i| json!({"id": format!("cus_a{i}"), "email": "x@example.com"}))
                    .collect(),
                Some("page_2"),
            ),
            Some("page_2") => (
                (0..30)
                    .map(|i| json!({"id": format!("cus_b{i}"), "email": "x@example.com"}))
                    .collect(),
                None,
            ),
            Some(other) => panic!("unexpected page {other}"),
        };
        ok(
            json!({"object": "search_result", "url": "/v1/customers/search",
                  "has_more": next.is_some(), "next_page": next, "data": data}),
        )
    })
    .await;
    let client = client_for(&server);
    let q = params([("query", "email:'x@example.com'")]);
    let found: Vec<Customer> = client
        .search_all("/v1/customers/search", &q)
        .await
        .expect("search");
    assert_eq!(found.len(), 130);
    assert_eq!(found[100].id, "cus_b0");
    let seen = server.seen();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].query.get("page"), None, "no page on the first call");
    assert_eq!(
        seen[1].query.get("page").map(String::as_str),
        Some("page_2")
    );
    for s in &seen {
        assert_eq!(
            s.query.get("query").map(String::as_str),
            Some("email:'x@example.com'")
        );
        assert_eq!(s.query.get("limit").map(String::as_str), Some("100"));
    }
    assert_only_gets(&server);
}

#[tokio::test]
async fn a_401_is_a_key_error_and_is_not_retried() {
    let server = start(|_: &Seen, _| {
        error_reply(
            401,
            "req_401",
            json!({"type": "invalid_request_error",
                   "message": format!("Invalid API Key provided: {KEY}")}),
        )
    })
    .await;
    let client = client_for(&server);
    let err = client
        .get::<Balance>("/v1/balance", &[])
        .await
        .expect_err("401");
    assert!(
        matches!(err, StripeError::InvalidKey { expired: false, .. }),
        "{err:?}"
    );
    assert_eq!(err.fail_kind(), FailKind::Key);
    assert_eq!(err.request_id(), Some("req_401"));
    let text = err.to_string();
    assert!(text.contains("tieout login"), "{text}");
    assert!(text.contains("req_401"), "{text}");
    assert!(!text.contains(KEY), "the key leaked into: {text}");
    assert!(
        !format!("{err:?}").contains(KEY),
        "the key leaked into Debug"
    );
    assert_eq!(server.seen().len(), 1);
}

#[tokio::test]
async fn an_expired_key_says_so() {
    let server = start(|_: &Seen, _| {
        error_reply(
            401,
            "req_exp",
            json!({"type": "invalid_request_error", "code": "api_key_expired",
                   "message": "Expired API Key provided: rk_test_***WXYZ"}),
        )
    })
    .await;
    let err = client_for(&server)
        .get::<Balance>("/v1/balance", &[])
        .await
        .expect_err("401");
    assert!(matches!(err, StripeError::InvalidKey { expired: true, .. }));
    assert!(err.to_string().contains("expired"));
}

#[tokio::test]
async fn a_403_names_the_missing_permission() {
    let server = start(|_: &Seen, _| {
        error_reply(
            403,
            "req_403",
            json!({"type": "invalid_request_error",
                   "message": "The provided key 'rk_test_***...WXYZ' does not have the required permissions for this endpoint on account 'acct_1PJB'. Having the 'rak_subscription_read' permission would allow this request to continue."}),
        )
    })
    .await;
    let client = client_for(&server);
    let err = client
        .list_all::<Value>("/v1/subscriptions", &[])
        .await
        .expect_err("403");
    assert_eq!(err.missing_permission(), Some("rak_subscription_read"));
    assert_eq!(err.fail_kind(), FailKind::Key);
    assert_eq!(err.request_id(), Some("req_403"));
    let text = err.to_string();
    assert!(text.contains("'rak_subscription_read'"), "{text}");
    assert!(text.contains("Subscriptions"), "{text}");
    assert!(text.contains("Dashboard"), "{text}");
    assert_eq!(server.seen().len(), 1, "403 is not retried");
}

#[tokio::test]
async fn a_404_is_not_found() {
    let server = start(|_: &Seen, _| {
        error_reply(
            404,
            "req_404",
            json!({"type": "invalid_request_error", "code": "resource_missing",
                   "message": "No such charge: 'ch_nope'"}),
        )
    })
    .await;
    let err = client_for(&server)
        .get::<Value>("/v1/charges/ch_nope", &[])
        .await
        .expect_err("404");
    assert!(err.is_not_found());
    assert_eq!(err.fail_kind(), FailKind::Stripe);
    assert!(err.to_string().contains("No such charge"));
    assert_eq!(err.request_id(), Some("req_404"));
}

#[tokio::test]
async fn a_429_with_should_retry_is_retried_then_succeeds() {
    let server = start(|_: &Seen, nth| {
        if nth == 0 {
            (
                429,
                vec![
                    ("request-id", "req_429".into()),
                    ("stripe-should-retry", "true".into()),
                    ("stripe-rate-limited-reason", "global-rate".into()),
                ],
                json!({"error": {"type": "invalid_request_error", "code": "rate_limit"}})
                    .to_string(),
            )
        } else {
            ok(json!({"available": [{"amount": 5, "currency": "usd"}], "pending": []}))
        }
    })
    .await;
    let client = client_for(&server);
    let balance: Balance = client.get("/v1/balance", &[]).await.expect("retried");
    assert_eq!(balance.available[0].amount, 5);
    let stats = client.stats();
    assert_eq!(
        (stats.requests, stats.retries, stats.rate_limited),
        (2, 1, 1)
    );
}

#[tokio::test]
async fn a_plain_429_is_retried_too_and_reported_after_the_last_attempt() {
    let server = start(|_: &Seen, nth| {
        error_reply(
            429,
            &format!("req_429_{nth}"),
            json!({"type": "invalid_request_error", "code": "rate_limit"}),
        )
    })
    .await;
    let client = client_with(&server, None, 3);
    let err = client
        .get::<Balance>("/v1/balance", &[])
        .await
        .expect_err("429s");
    assert!(
        matches!(err, StripeError::RateLimited { attempts: 3, .. }),
        "{err:?}"
    );
    assert_eq!(err.request_id(), Some("req_429_2"), "the last attempt's id");
    assert_eq!(err.fail_kind(), FailKind::Stripe);
    assert_eq!(client.stats().rate_limited, 3);
    assert_eq!(server.seen().len(), 3);
}

#[tokio::test]
async fn server_errors_are_retried_then_succeed() {
    let server = start(|_: &Seen, nth| {
        if nth < 2 {
            error_reply(500, &format!("req_500_{nth}"), json!({"type": "api_error"}))
        } else {
            ok(json!({"available": [], "pending": []}))
        }
    })
    .await;
    let client = client_for(&server);
    client
        .get::<Balance>("/v1/balance", &[])
        .await
        .expect("third attempt succeeds");
    assert_eq!(server.seen().len(), 3);
    assert_eq!(client.stats().retries, 2);
}

#[tokio::test]
async fn a_409_is_retried() {
    let server = start(|_: &Seen, nth| {
        if nth == 0 {
            error_reply(
                409,
                "req_409",
                json!({"type": "invalid_request_error", "code": "lock_timeout"}),
            )
        } else {
            ok(json!({"available": [], "pending": []}))
        }
    })
    .await;
    client_for(&server)
        .get::<Balance>("/v1/balance", &[])
        .await
        .expect("retried");
    assert_eq!(server.seen().len(), 2);
}

#[tokio::test]
async fn should_retry_false_is_never_retried() {
    let server = start(|_: &Seen, _| {
        (
            503,
            vec![
                ("request-id", "req_noretry".into()),
                ("stripe-should-retry", "false".into()),
            ],
            json!({"error": {"type": "api_error", "message": "Do not retry this."}}).to_string(),
        )
    })
    .await;
    let err = client_for(&server)
        .get::<Balance>("/v1/balance", &[])
        .await
        .expect_err("503");
    assert!(
        matches!(
            err,
            StripeError::Api {
                status: 503,
                attempts: 1,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(server.seen().len(), 1);
    assert!(err.to_string().contains("req_noretry"));
}

#[tokio::test]
async fn should_retry_true_retries_even_a_400() {
    let server = start(|_: &Seen, nth| {
        if nth == 0 {
            (
                400,
                vec![("stripe-should-retry", "true".into())],
                json!({"error": {"type": "invalid_request_error"}}).to_string(),
            )
        } else {
            ok(json!({"available": [], "pending": []}))
        }
    })
    .await;
    client_for(&server)
        .get::<Balance>("/v1/balance", &[])
        .await
        .expect("retried");
    assert_eq!(server.seen().len(), 2);
}

#[tokio::test]
async fn a_400_is_not_retried() {
    let server = start(|_: &Seen, _| {
        error_reply(
            400,
            "req_400",
            json!({"type": "invalid_request_error",
                   "message": "Balance transaction history can only be filtered on automatic transfers, not manual."}),
        )
    })
    .await;
    let err = client_for(&server)
        .list_all::<Value>(
            "/v1/balance_transactions",
            &params([("payout", "po_manual")]),
        )
        .await
        .expect_err("400");
    assert_eq!(err.status(), Some(400));
    assert!(err.to_string().contains("automatic transfers"), "{err}");
    assert_eq!(server.seen().len(), 1);
}

#[tokio::test]
async fn a_truncated_body_is_retried() {
    let server = start(|_: &Seen, nth| {
        if nth == 0 {
            (
                200,
                vec![("request-id", "req_cut".into())],
                r#"{"object":"list","data":[{"id":"po_1","amo"#.to_string(),
            )
        } else {
            ok(json!({"object": "list", "has_more": false, "data": [payout(1)]}))
        }
    })
    .await;
    let client = client_for(&server);
    let payouts: Vec<Payout> = client.list_all("/v1/payouts", &[]).await.expect("retried");
    assert_eq!(payouts.len(), 1);
    assert_eq!(server.seen().len(), 2);
    assert_eq!(client.stats().retries, 1);
}

#[tokio::test]
async fn a_truncated_body_every_time_is_a_network_error() {
    let server = start(|_: &Seen, nth| {
        (
            200,
            vec![("request-id", format!("req_cut_{nth}"))],
            "{\"data\": [".to_string(),
        )
    })
    .await;
    let err = client_for(&server)
        .get::<Value>("/v1/payouts", &[])
        .await
        .expect_err("never complete");
    assert!(
        matches!(err, StripeError::Network { attempts: 4, .. }),
        "{err:?}"
    );
    assert_eq!(err.request_id(), Some("req_cut_3"));
    assert_eq!(err.fail_kind(), FailKind::Stripe);
}

#[tokio::test]
async fn a_wrong_shape_is_a_decode_error_with_the_json_path_and_is_not_retried() {
    let server = start(|_: &Seen, _| {
        ok(json!({"object": "list", "has_more": false,
                  "data": [payout(1), {"id": "po_bad", "amount": "lots"}]}))
    })
    .await;
    let err = client_for(&server)
        .list_all::<Payout>("/v1/payouts", &[])
        .await
        .expect_err("bad shape");
    match &err {
        StripeError::Decode { at, path, .. } => {
            assert_eq!(at, "data[1].amount");
            assert_eq!(path, "/v1/payouts");
        }
        other => panic!("expected a decode error, got {other:?}"),
    }
    assert_eq!(err.request_id(), Some("req_ok"));
    assert_eq!(server.seen().len(), 1);
}

#[tokio::test]
async fn attempts_exhausted_carry_the_last_request_id() {
    let server = start(|_: &Seen, nth| {
        error_reply(
            502,
            &format!("req_bad_gateway_{nth}"),
            json!({"type": "api_error", "message": "Bad gateway"}),
        )
    })
    .await;
    let client = client_for(&server);
    let err = client
        .get::<Balance>("/v1/balance", &[])
        .await
        .expect_err("502s");
    assert!(
        matches!(
            err,
            StripeError::Api {
                status: 502,
                attempts: 4,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(err.request_id(), Some("req_bad_gateway_3"));
    let text = err.to_string();
    assert!(text.contains("after 4 attempts"), "{text}");
    assert!(text.contains("req_bad_gateway_3"), "{text}");
    assert_eq!(server.seen().len(), 4);
    let stats = client.stats();
    assert_eq!((stats.requests, stats.retries), (4, 3));
}

#[tokio::test]
async fn connection_refused_is_a_network_error_after_retries() {
    // Bind, note the port, close it: nothing listens there now.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    drop(listener);
    let key = ApiKey::parse(KEY).expect("key");
    let client = Client::new(ClientConfig {
        api_base: format!("http://{addr}"),
        key,
        stripe_account: None,
        rate: RateConfig::unthrottled(),
        max_attempts: 2,
    })
    .expect("client");
    let err = client
        .get::<Balance>("/v1/balance", &[])
        .await
        .expect_err("refused");
    assert!(
        matches!(err, StripeError::Network { attempts: 2, .. }),
        "{err:?}"
    );
    assert_eq!(err.request_id(), None);
    assert!(err.to_string().contains("--api-base"), "{err}");
    assert_eq!(client.stats().requests, 2);
}

#[tokio::test]
async fn every_request_carries_version_auth_account_and_user_agent() {
    let server = start(|_: &Seen, _| ok(json!({"available": [], "pending": []}))).await;
    let client = client_with(&server, Some("acct_1Connected"), 4);
    client.get::<Balance>("/v1/balance", &[]).await.expect("ok");
    let seen = server.seen();
    let h = &seen[0].headers;
    let get = |name: &str| h.get(name).and_then(|v| v.to_str().ok()).unwrap_or("");
    assert_eq!(get("stripe-version"), API_VERSION);
    assert_eq!(get("authorization"), format!("Bearer {KEY}"));
    assert_eq!(get("stripe-account"), "acct_1Connected");
    assert!(
        get("user-agent").starts_with(&format!("tieout/{}", env!("CARGO_PKG_VERSION"))),
        "{}",
        get("user-agent")
    );
    assert!(h.get("idempotency-key").is_none());
    assert_only_gets(&server);

    // Without --stripe-account, no Stripe-Account header at all.
    let plain = client_for(&server);
    plain.get::<Balance>("/v1/balance", &[]).await.expect("ok");
    assert!(server.seen()[1].headers.get("stripe-account").is_none());
}

#[tokio::test]
async fn ids_in_paths_cannot_add_query_parameters() {
    let server = start(|_: &Seen, _| ok(json!({"id": "ch_1"}))).await;
    let client = client_for(&server);
    client
        .get::<Value>("/v1/charges/ch_1?expand[]=customer", &[])
        .await
        .expect("ok");
    let seen = server.seen();
    assert_eq!(seen[0].raw_query, "", "nothing leaked into the query");
    assert_eq!(seen[0].path, "/v1/charges/ch_1%3Fexpand%5B%5D%3Dcustomer");
}

#[tokio::test]
async fn map_concurrent_keeps_input_order_and_shares_stats() {
    let server = start(|seen: &Seen, _| {
        let id = seen.path.rsplit('/').next().unwrap_or("").to_string();
        ok(json!({"id": id, "object": "payout"}))
    })
    .await;
    let client = client_for(&server);
    let ids: Vec<String> = (0..20).map(|i| format!("po_{i}")).collect();
    let got: Vec<Payout> = client
        .map_concurrent(ids.clone(), |id| {
            let c = client.clone();
            async move { c.get::<Payout>(&format!("/v1/payouts/{id}"), &[]).await }
        })
        .await
        .expect("all");
    let got_ids: Vec<String> = got.into_iter().map(|p| p.id).collect();
    assert_eq!(got_ids, ids);
    let stats = client.stats();
    assert_eq!(stats.requests, 20);
    assert_eq!(stats.by_endpoint.get("/v1/payouts/{id}"), Some(&20));
    assert_only_gets(&server);
}

/// A measurement, not a check of speed (run it with `--ignored --nocapture`): 200
/// independent reads against the fake limiting at Stripe's test-mode 25 req/s, once with
/// the default pacing (20 req/s) and once unpaced, printing time, 429s and retries.
#[test]
#[ignore = "a measurement; prints numbers"]
fn measure_pacing_against_a_rate_limited_fake() {
    use crate::support::{FakeConfig, TEST_KEY, start_fake};
    let fake = start_fake(FakeConfig::mini().rate_limit(25));
    for (label, per_second) in [("paced at 20/s", 20), ("unpaced", 0)] {
        let key = ApiKey::parse(TEST_KEY).expect("key");
        let mut cfg = ClientConfig::new(fake.base_url(), key);
        cfg.rate.per_second = per_second;
        cfg.max_attempts = 8;
        let client = Client::new(cfg).expect("client");
        let started = std::time::Instant::now();
        let results = fake.rt().block_on(client.map_concurrent(0..200, |_| {
            let c = client.clone();
            async move { c.get::<Balance>("/v1/balance", &[]).await }
        }));
        let elapsed = started.elapsed();
        let stats = client.stats();
        assert_eq!(results.expect("all reads succeed").len(), 200);
        println!(
            "{label}: 200 reads in {:.1} s, {} requests, {} retries, {} answered 429",
            elapsed.as_secs_f64(),
            stats.requests,
            stats.retries,
            stats.rate_limited
        );
        std::thread::sleep(std::time::Duration::from_secs(2));
    }
}

#[tokio::test]
async fn a_list_that_does_not_advance_is_an_error_not_a_loop() {
    let server = start(|_: &Seen, _| {
        ok(json!({"object": "list", "has_more": true, "data": [payout(1), payout(2)]}))
    })
    .await;
    let items: Vec<Result<Payout, StripeError>> =
        client_for(&server).list("/v1/payouts", &[]).collect().await;
    assert_eq!(
        items.len(),
        3,
        "the first page, then the error, then the end"
    );
    let err = items[2].as_ref().expect_err("no advance");
    assert!(matches!(err, StripeError::Decode { .. }), "{err:?}");
    assert!(err.to_string().contains("did not advance"), "{err}");
    assert_eq!(server.seen().len(), 2);
}
