//! The read-only Stripe client: GET and nothing else.
//!
//! There is no method parameter anywhere: every request goes through
//! `reqwest::Client::get`. Each request carries `Authorization: Bearer <key>` (marked
//! sensitive, never logged), `Stripe-Version` ([`super::API_VERSION`]), the optional
//! `Stripe-Account`, and a `User-Agent` naming tieout's version. Requests are paced by a
//! shared rate limiter, retried per [`super::retry`], counted in [`RequestStats`], and
//! failures come back as a typed [`StripeError`].
//!
//! Lists page with `limit=100` and `starting_after=<last id>` while `has_more`
//! ([`Client::list`], [`Client::list_all`]); search endpoints page with
//! `page=<next_page>` ([`Client::search`], [`Client::search_all`]).
//!
//! Independent requests run concurrently, [`Client::in_flight`] at a time (the budget
//! times the measured latency, [`super::pace`]); the rate limiter keeps the total below
//! the budget whatever the concurrency, slowing down when Stripe answers 429:
//!
//! ```no_run
//! # async fn demo(client: tieout::stripe::Client, payout_ids: Vec<String>) -> Result<(), tieout::stripe::StripeError> {
//! use tieout::stripe::models::BalanceTransaction;
//! use tieout::stripe::query::params;
//! // In input order, stopping at the first error:
//! let per_payout: Vec<Vec<BalanceTransaction>> = client
//!     .map_concurrent(payout_ids, |id| {
//!         let client = client.clone();
//!         async move {
//!             client.list_all("/v1/balance_transactions", &params([("payout", id)])).await
//!         }
//!     })
//!     .await?;
//! // Or by hand, in completion order:
//! // futures::stream::iter(ids).map(|id| ...).buffer_unordered(client.in_flight())
//! # Ok(()) }
//! ```

use std::collections::VecDeque;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::stream::{self, BoxStream, StreamExt};
use reqwest::header::{HeaderMap, HeaderValue};
use serde::de::DeserializeOwned;

use super::error::{StripeError, parse_permission};
use super::limiter::{Lane, Limiter, PaceReport, RateConfig};
use super::models::{ErrorBody, HasId, List};
use super::query;
use super::retry;
use super::stats::{RequestStats, StatsCell};
use crate::secrets::{ApiKey, scrub_keys};

mod failure;
use failure::*;

mod paging;
pub use paging::Listed;

/// Stripe's API base.
pub const DEFAULT_API_BASE: &str = "https://api.stripe.com";
/// Attempts per request (the first one included) unless configured otherwise: no cap,
/// [`RateConfig::give_up_after`] decides when a failing request stops.
pub const DEFAULT_MAX_ATTEMPTS: u32 = u32::MAX;
/// The longest a `Retry-After` header may make a retry wait.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);
/// Items per list page (Stripe's maximum).
pub const PAGE_LIMIT: &str = "100";

/// How to reach Stripe. `Debug` shows the key masked.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// `https://api.stripe.com`, or a loopback `http://127.0.0.1:PORT` (tests, the fake
    /// server). Paths (`/v1/...`) are appended to it.
    pub api_base: String,
    pub key: ApiKey,
    /// Sent as `Stripe-Account` (Connect: act on a connected account).
    pub stripe_account: Option<String>,
    pub rate: RateConfig,
    /// Attempts per request, the first included (at least 1).
    pub max_attempts: u32,
}

impl ClientConfig {
    /// The defaults for `key`: its mode's rate, 4 attempts, no `Stripe-Account`.
    pub fn new(api_base: impl Into<String>, key: ApiKey) -> Self {
        let rate = RateConfig::for_mode(key.mode());
        Self {
            api_base: api_base.into(),
            key,
            stripe_account: None,
            rate,
            max_attempts: DEFAULT_MAX_ATTEMPTS,
        }
    }
}

/// Answers kept from an earlier run that was interrupted (a sync's journal): a GET whose
/// answer is kept is not sent again, and every successful answer is kept.
pub trait Journal: Send + Sync {
    /// The body kept for `request` (path and query: `/v1/charges?limit=100`), if any.
    fn kept(&self, request: &str) -> Option<Vec<u8>>;
    /// Keeps the body of a successful answer to `request`.
    fn keep(&self, request: &str, body: &[u8]);
}

/// A read-only Stripe client. Cheap to clone; clones share the rate limiter and stats.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
    /// The lane its requests wait in for the shared budget ([`Client::background`]).
    lane: Lane,
    /// Where answers are kept and replayed from ([`Client::with_journal`]).
    journal: Option<Arc<dyn Journal>>,
}

struct Inner {
    http: reqwest::Client,
    base: String,
    key: ApiKey,
    headers: HeaderMap,
    stripe_account: Option<String>,
    rate: RateConfig,
    limiter: Limiter,
    max_attempts: u32,
    stats: StatsCell,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("base", &self.inner.base)
            .field("key", &self.inner.key)
            .field("stripe_account", &self.inner.stripe_account)
            .field("max_attempts", &self.inner.max_attempts)
            .field("lane", &self.lane)
            .finish()
    }
}

/// Ids of list items, so a list can page on from its last item. Models implement it;
/// raw JSON objects do too (their `id` field).
impl HasId for serde_json::Value {
    fn id(&self) -> &str {
        self.get("id").and_then(|v| v.as_str()).unwrap_or("")
    }
}

fn config_error(detail: impl Into<String>) -> StripeError {
    StripeError::Config {
        detail: detail.into(),
    }
}

/// Checks the base URL: https, or plain http only to this machine (the key must never
/// cross a network unencrypted). Returns it without a trailing `/`.
fn check_base(api_base: &str) -> Result<String, StripeError> {
    let trimmed = api_base.trim().trim_end_matches('/');
    let url = reqwest::Url::parse(trimmed).map_err(|e| {
        config_error(format!(
            "the API base '{trimmed}' is not a URL ({e}): use --api-base https://api.stripe.com \
             or a loopback address like http://127.0.0.1:12111"
        ))
    })?;
    let loopback = url.host_str().is_some_and(|h| {
        let h = h.trim_start_matches('[').trim_end_matches(']');
        h.eq_ignore_ascii_case("localhost")
            || h.parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    });
    match url.scheme() {
        "https" => {}
        "http" if loopback => {}
        "http" => {
            return Err(config_error(format!(
                "the API base '{trimmed}' is plain http to another machine, which would send \
                 the key unencrypted: use https, or http only to 127.0.0.1/localhost"
            )));
        }
        other => {
            return Err(config_error(format!(
                "the API base '{trimmed}' uses '{other}': use an https:// URL (or http:// to \
                 127.0.0.1 for a local fake server)"
            )));
        }
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(config_error(format!(
            "the API base '{trimmed}' has a query or fragment: give just the scheme, host and \
             port, e.g. https://api.stripe.com"
        )));
    }
    Ok(trimmed.to_string())
}

impl Client {
    /// Builds a client. Fails on a base URL that is not https (or http to loopback) and
    /// on a `Stripe-Account` that cannot be a header.
    pub fn new(config: ClientConfig) -> Result<Client, StripeError> {
        let base = check_base(&config.api_base)?;
        let mut headers = HeaderMap::new();
        let mut auth = HeaderValue::from_str(&format!("Bearer {}", config.key.expose()))
            .map_err(|_| config_error("the key contains characters a header cannot carry"))?;
        auth.set_sensitive(true);
        headers.insert(reqwest::header::AUTHORIZATION, auth);
        headers.insert(
            "Stripe-Version",
            HeaderValue::from_static(super::API_VERSION),
        );
        let stripe_account = config
            .stripe_account
            .map(|a| a.trim().to_string())
            .filter(|a| !a.is_empty());
        if let Some(acct) = &stripe_account {
            let value = HeaderValue::from_str(acct)
                .ok()
                .filter(|_| acct.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
                .ok_or_else(|| {
                    config_error(format!(
                        "--stripe-account '{acct}' is not an account id: give one like acct_1A2b3C"
                    ))
                })?;
            headers.insert("Stripe-Account", value);
        }
        let http = super::tls::client_builder()
            .user_agent(format!("tieout/{}", env!("CARGO_PKG_VERSION")))
            .timeout(config.rate.request_timeout)
            .connect_timeout(config.rate.request_timeout.min(Duration::from_secs(10)))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| config_error(format!("the HTTP client could not start: {e}")))?;
        Ok(Client {
            inner: Arc::new(Inner {
                http,
                base,
                limiter: Limiter::new(&config.rate),
                key: config.key,
                headers,
                stripe_account,
                rate: config.rate,
                max_attempts: config.max_attempts.max(1),
                stats: StatsCell::default(),
            }),
            lane: Lane::Foreground,
            journal: None,
        })
    }

    /// A clone that keeps every successful answer in `journal` and takes an answer kept
    /// there instead of sending the request again (a sync that resumes).
    pub fn with_journal(&self, journal: Arc<dyn Journal>) -> Client {
        Client {
            journal: Some(journal),
            ..self.clone()
        }
    }

    /// A clone whose requests wait in the background lane of the shared budget: they get
    /// a slot only when no foreground request waits (see [`super::limiter`]). For wide
    /// fan-outs (one read per payout, per invoice) next to long page chains. A list read
    /// through it still pages on in the foreground: only its first page waits behind.
    pub fn background(&self) -> Client {
        Client {
            lane: Lane::Background,
            ..self.clone()
        }
    }

    fn foreground(&self) -> Client {
        Client {
            lane: Lane::Foreground,
            ..self.clone()
        }
    }

    /// The key this client reads with (masked in `Debug`).
    pub fn key(&self) -> &ApiKey {
        &self.inner.key
    }

    /// The API base, without a trailing `/`.
    pub fn api_base(&self) -> &str {
        &self.inner.base
    }

    /// The most independent requests to run at once (the bound of [`Client::in_flight`]).
    pub fn max_concurrency(&self) -> usize {
        self.inner.rate.max_concurrency.max(1)
    }

    /// How many independent requests to keep in flight now: the budget times the recent
    /// median latency, with headroom, bounded ([`super::pace`]).
    pub fn in_flight(&self) -> usize {
        self.inner
            .limiter
            .in_flight()
            .clamp(1, self.max_concurrency())
    }

    /// The median latency of the recent answers.
    pub fn latency(&self) -> Duration {
        self.inner.limiter.latency()
    }

    /// The rate now and the budget.
    pub fn pace(&self) -> PaceReport {
        self.inner.limiter.report()
    }

    /// Every change of pace (a 429 slowing the client, the rate won back), for progress.
    pub fn pace_reports(&self) -> tokio::sync::watch::Receiver<PaceReport> {
        self.inner.limiter.reports()
    }

    /// What this client (and its clones) sent so far.
    pub fn stats(&self) -> RequestStats {
        self.inner.stats.snapshot()
    }

    fn url(&self, path: &str, query: &[(String, String)]) -> String {
        let mut url = format!("{}{}", self.inner.base, query::encode_path(path));
        if !query.is_empty() {
            url.push('?');
            url.push_str(&query::encode(query));
        }
        url
    }

    /// GETs `path` (e.g. `/v1/balance`) with `query` and decodes the JSON answer.
    pub async fn get<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(String, String)],
    ) -> Result<T, StripeError> {
        self.get_traced(path, query).await.map(|(value, _)| value)
    }

    /// [`Client::get`], with the answer's `Request-Id` (none for an answer replayed from
    /// the journal, or when Stripe sent none).
    pub async fn get_traced<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(String, String)],
    ) -> Result<(T, Option<String>), StripeError> {
        let url = self.url(path, query);
        let request = url.get(self.inner.base.len()..).unwrap_or(&url);
        if let Some(journal) = &self.journal
            && let Some(body) = journal.kept(request)
        {
            // A damaged entry is read again from Stripe.
            if let Ok(value) = serde_json::from_slice::<T>(&body) {
                self.inner.stats.replayed();
                return Ok((value, None));
            }
        }
        let max = self.inner.max_attempts;
        let started = std::time::Instant::now();
        let mut attempt = 0;
        loop {
            attempt += 1;
            self.inner.limiter.until_ready_in(path, self.lane).await;
            self.inner.stats.sent(path, attempt > 1);
            let sent = std::time::Instant::now();
            let keep = self.journal.is_some();
            let fail = match self.attempt::<T>(&url, path, attempt, keep).await {
                Ok((value, body, request_id)) => {
                    self.inner.limiter.succeeded(sent);
                    if let (Some(journal), Some(body)) = (&self.journal, body) {
                        journal.keep(request, &body);
                    }
                    return Ok((value, request_id));
                }
                Err(fail) => fail,
            };
            if fail.is_429() {
                self.inner.stats.saw_429();
            }
            if fail.is_congestion() {
                self.inner.limiter.rate_limited(sent);
            }
            if fail.retryable() && attempt < max && !self.stalled(started) {
                let backoff = retry::backoff(
                    attempt,
                    self.inner.rate.backoff_base,
                    self.inner.rate.backoff_cap,
                );
                let wait = fail
                    .retry_after()
                    .map_or(backoff, |after| backoff.max(after.min(MAX_RETRY_AFTER)));
                tracing::debug!(path, attempt, ?wait, "retrying Stripe GET");
                tokio::time::sleep(wait).await;
                continue;
            }
            let error = fail.into_error(path, attempt, &self.inner.key);
            tracing::debug!(path, attempt, request_id = ?error.request_id(), "Stripe GET failed");
            return Err(error);
        }
    }

    /// No request of this client has succeeded for [`RateConfig::give_up_after`] (counted
    /// from the later of the last success and `started`, when this request began).
    fn stalled(&self, started: std::time::Instant) -> bool {
        let since = self
            .inner
            .limiter
            .last_success()
            .map_or(started, |t| t.max(started));
        since.elapsed() >= self.inner.rate.give_up_after
    }

    async fn attempt<T: DeserializeOwned>(
        &self,
        url: &str,
        path: &str,
        attempt: u32,
        keep: bool,
    ) -> Result<(T, Option<Vec<u8>>, Option<String>), Fail> {
        let response = self
            .inner
            .http
            .get(url)
            .headers(self.inner.headers.clone())
            .send()
            .await
            .map_err(|e| {
                if e.is_builder() {
                    Fail::Config(format!("the request to {path} could not be built"))
                } else {
                    Fail::Transport {
                        detail: transport_detail(&e),
                        request_id: None,
                        should_retry: None,
                    }
                }
            })?;
        let status = response.status().as_u16();
        let headers = response.headers();
        let request_id = header_str(headers, "request-id");
        let should_retry =
            retry::parse_should_retry(header_str(headers, "stripe-should-retry").as_deref());
        let retry_after = retry::parse_retry_after(header_str(headers, "retry-after").as_deref());
        let limited_reason = header_str(headers, "stripe-rate-limited-reason");
        tracing::debug!(path, attempt, status, request_id = ?request_id, "Stripe GET");
        let body = response.bytes().await.map_err(|e| Fail::Transport {
            detail: transport_detail(&e),
            request_id: request_id.clone(),
            should_retry,
        })?;
        if !(200..300).contains(&status) {
            return Err(Fail::Status {
                status,
                body: serde_json::from_slice::<ErrorBody>(&body)
                    .ok()
                    .map(Box::new),
                should_retry,
                retry_after,
                limited_reason,
                request_id,
            });
        }
        let mut de = serde_json::Deserializer::from_slice(&body);
        let value = serde_path_to_error::deserialize::<_, T>(&mut de).map_err(|e| {
            let at = e.path().to_string();
            let inner = e.into_inner();
            match inner.classify() {
                serde_json::error::Category::Data => Fail::Decode {
                    at,
                    detail: inner.to_string(),
                    request_id: request_id.clone(),
                },
                _ => Fail::Transport {
                    detail: format!(
                        "the answer was not complete JSON ({inner}, {} bytes)",
                        body.len()
                    ),
                    request_id: request_id.clone(),
                    should_retry,
                },
            }
        })?;
        Ok((value, keep.then(|| body.to_vec()), request_id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> ApiKey {
        ApiKey::parse("rk_test_0123456789abcdefWXYZ").expect("key")
    }

    #[test]
    fn base_urls_must_be_https_or_loopback_http() {
        assert_eq!(
            check_base("https://api.stripe.com/").expect("https"),
            "https://api.stripe.com"
        );
        check_base("http://127.0.0.1:12111").expect("loopback v4");
        check_base("http://localhost:8080").expect("localhost");
        check_base("http://[::1]:8080").expect("loopback v6");
        let err = check_base("http://api.example.com").expect_err("plain http");
        assert!(err.to_string().contains("unencrypted"), "{err}");
        check_base("ftp://x").expect_err("scheme");
        check_base("not a url").expect_err("not a url");
        check_base("https://api.stripe.com/?x=1").expect_err("query");
    }

    #[test]
    fn debug_masks_the_key() {
        let client = Client::new(ClientConfig::new("https://api.stripe.com", key())).expect("ok");
        let text = format!("{client:?}");
        assert!(text.contains("rk_test_...WXYZ"), "{text}");
        assert!(!text.contains("0123456789"), "{text}");
    }

    #[test]
    fn stripe_account_must_look_like_an_id() {
        let mut cfg = ClientConfig::new("https://api.stripe.com", key());
        cfg.stripe_account = Some("acct_1A2b\r\nX-Evil: 1".into());
        assert!(matches!(Client::new(cfg), Err(StripeError::Config { .. })));
        let mut cfg = ClientConfig::new("https://api.stripe.com", key());
        cfg.stripe_account = Some("acct_1A2b3C".into());
        Client::new(cfg).expect("valid account id");
    }

    #[tokio::test]
    async fn map_concurrent_keeps_input_order_whatever_finishes_first() {
        let mut cfg = ClientConfig::new("http://127.0.0.1:9", key());
        cfg.rate.max_concurrency = 3;
        assert_eq!(
            Client::new(cfg.clone()).expect("ok").in_flight(),
            3,
            "bounded"
        );
        let client = Client::new(cfg).expect("ok");
        // Item 0 finishes only once items 1..5 have all started: that needs the finished
        // items to free their slots while item 0 still runs (an in-order buffer would
        // hold them, and this would never finish).
        let started = std::sync::atomic::AtomicUsize::new(0);
        let others_started = tokio::sync::Notify::new();
        let run = client.map_concurrent(0..6u64, |i| {
            let (started, others_started) = (&started, &others_started);
            async move {
                if i == 0 {
                    others_started.notified().await;
                } else if started.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1 == 5 {
                    others_started.notify_one();
                }
                Ok::<_, StripeError>(i * 10)
            }
        });
        let out = tokio::time::timeout(Duration::from_secs(30), run)
            .await
            .expect("no head-of-line blocking")
            .expect("ok");
        assert_eq!(out, vec![0, 10, 20, 30, 40, 50], "input order");
        let failed = client
            .map_concurrent(0..4u64, |i| async move {
                if i == 2 {
                    Err(config_error("boom"))
                } else {
                    Ok(i)
                }
            })
            .await;
        assert!(matches!(failed, Err(StripeError::Config { .. })));
    }

    #[test]
    fn urls_keep_brackets_and_encode_paths() {
        let client = Client::new(ClientConfig::new("http://127.0.0.1:9", key())).expect("ok");
        let q = query::params([("created[gte]", "5"), ("expand[]", "data.payments")]);
        assert_eq!(
            client.url("/v1/invoices", &q),
            "http://127.0.0.1:9/v1/invoices?created[gte]=5&expand[]=data.payments"
        );
        assert_eq!(
            client.url("/v1/balance", &[]),
            "http://127.0.0.1:9/v1/balance"
        );
    }
}
