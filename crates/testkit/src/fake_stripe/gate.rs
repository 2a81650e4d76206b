//! The front door every request passes before the routes: numbering (`Request-Id`), the
//! rate limiter, injected faults and latency, then authentication (`Authorization: Bearer`),
//! the `Stripe-Version` and `Stripe-Account` checks and restricted-key permissions. It also
//! writes the request log.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Method, Request, Response};
use axum::response::IntoResponse;
use hyper::body::Incoming;
use tower::ServiceExt;

use super::config::Fault;
use super::errors::ApiErr;
use super::log::{AuthSeen, LoggedRequest};
use super::params::Params;
use super::store::ObjectKind;
use super::{Shared, State, lock};

/// Returned to hyper to drop the connection without an answer.
#[derive(Debug)]
pub(super) struct ConnectionReset;

impl std::fmt::Display for ConnectionReset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("connection reset by an injected fault")
    }
}

impl std::error::Error for ConnectionReset {}

/// The permission slug a request needs, if any (RULES.md, "Stripe facts").
pub(super) fn permission_for(method: &Method, path: &str) -> Option<&'static str> {
    let rest = path.strip_prefix("/v1/")?;
    let first = rest.split('/').next().unwrap_or_default();
    match (method, first) {
        (&Method::POST, "refunds") => Some("rak_refund_write"),
        (_, "account") => Some("rak_accounts_kyc_id_numbers_read"),
        (_, "balance") => Some("rak_balance_read"),
        (_, "events") => Some("rak_event_read"),
        (_, "radar") => Some(ObjectKind::EarlyFraudWarning.read_permission()),
        (_, other) => ObjectKind::from_plural(other).map(ObjectKind::read_permission),
    }
}

/// The permission an `expand[]` path needs beyond the endpoint's own: the deepest
/// payment method or customer it expands (`data.customer.invoice_settings.default_payment_method`
/// needs the payment-method read).
fn expansion_permission(path: &str) -> Option<&'static str> {
    let segs: Vec<&str> = path.split('.').collect();
    if segs
        .iter()
        .any(|s| matches!(*s, "default_payment_method" | "payment_method"))
    {
        Some(ObjectKind::PaymentMethod.read_permission())
    } else if segs.contains(&"customer") {
        Some(ObjectKind::Customer.read_permission())
    } else {
        None
    }
}

/// `rk_test_` / `sk_live_` / ... : the part of a key that says what it is.
fn key_prefix(key: &str) -> &str {
    let mut underscores = key.match_indices('_').map(|(i, _)| i);
    match (underscores.next(), underscores.next()) {
        (Some(_), Some(second)) => &key[..=second],
        _ => "",
    }
}

fn last_chars(key: &str, n: usize) -> &str {
    let start = key
        .char_indices()
        .rev()
        .nth(n.saturating_sub(1))
        .map_or(0, |(i, _)| i);
    &key[start..]
}

/// As in Stripe's 401: `rk_test_****abcd`.
pub(super) fn mask_401(key: &str) -> String {
    format!("{}****{}", key_prefix(key), last_chars(key, 4))
}

/// As in Stripe's 403: `rk_test_********...qs8Kgd` (prefix, stars, last six).
pub(super) fn mask_403(key: &str) -> String {
    let prefix = key_prefix(key);
    let tail = last_chars(key, 6);
    let hidden = key.len().saturating_sub(prefix.len() + tail.len()).max(3);
    format!("{prefix}{}{tail}", "*".repeat(hidden))
}

fn forbidden(key: &str, account: &str, slug: &str) -> ApiErr {
    ApiErr::new(
        403,
        "invalid_request_error",
        format!(
            "The provided key '{}' does not have the required permissions for this endpoint on account '{account}'. Having the '{slug}' permission would allow this request to continue.",
            mask_403(key)
        ),
    )
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get("authorization")?.to_str().ok()?;
    let (scheme, key) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| key.trim())
}

/// Authentication, version, account and permission checks, in Stripe's order.
fn admit(st: &State, req: &Request<Incoming>, entry: &mut LoggedRequest) -> Result<(), ApiErr> {
    let Some(key) = bearer(req.headers()).filter(|k| !k.is_empty()) else {
        entry.auth = AuthSeen::Missing;
        return Err(ApiErr::new(
            401,
            "invalid_request_error",
            "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.",
        ));
    };
    if !st.cfg.accepted_keys.accepts(key) {
        entry.auth = AuthSeen::Rejected;
        return Err(ApiErr::new(
            401,
            "invalid_request_error",
            format!("Invalid API Key provided: {}", mask_401(key)),
        ));
    }
    entry.auth = AuthSeen::Accepted;
    match &st.cfg.version_check {
        super::VersionCheck::Ignore => {}
        super::VersionCheck::Required => {
            if entry.stripe_version.is_none() {
                return Err(ApiErr::invalid(
                    "The fake Stripe server requires a Stripe-Version header on every request (pin one API version, e.g. 2026-07-29.dahlia).",
                ));
            }
        }
        super::VersionCheck::Exactly(want) => {
            if entry.stripe_version.as_deref() != Some(want.as_str()) {
                return Err(ApiErr::invalid(format!(
                    "Invalid Stripe API version: {} (this fake serves {want})",
                    entry.stripe_version.as_deref().unwrap_or("<none>")
                )));
            }
        }
    }
    let account = st.store.account_id();
    if let Some(other) = entry.stripe_account.as_deref()
        && other != account
    {
        return Err(ApiErr::new(
            403,
            "invalid_request_error",
            format!(
                "The provided key '{}' does not have access to account '{other}' (or that account does not exist). Application access may have been revoked.",
                mask_403(key)
            ),
        )
        .code("account_invalid"));
    }
    let is_denied = |slug: &str| {
        [key, "*"]
            .iter()
            .any(|k| st.cfg.denied.get(*k).is_some_and(|d| d.contains(slug)))
    };
    if let Some(slug) = permission_for(req.method(), req.uri().path()) {
        let account_blocked = req.uri().path() == "/v1/account"
            && key.starts_with("rk_")
            && !st.cfg.account_readable_by_restricted_keys;
        if account_blocked || is_denied(slug) {
            return Err(forbidden(key, account, slug));
        }
    }
    let query = Params::parse(req.uri().query().unwrap_or_default().as_bytes());
    // Expanding an object needs the read permission of its type, as Stripe's 403 for
    // an expansion says.
    for path in query.all("expand") {
        if let Some(slug) = expansion_permission(path)
            && is_denied(slug)
        {
            return Err(forbidden(key, account, slug));
        }
    }
    // Expanding a balance transaction's `source` needs a permission of its own.
    if req.uri().path().starts_with("/v1/balance_transactions") {
        let expands_source = query
            .all("expand")
            .iter()
            .any(|e| e.split('.').any(|seg| seg == "source"));
        let slug = "rak_balance_transaction_source_read";
        if expands_source && is_denied(slug) {
            return Err(forbidden(key, account, slug));
        }
    }
    Ok(())
}

fn header(v: &str) -> HeaderValue {
    HeaderValue::from_str(v).unwrap_or_else(|_| HeaderValue::from_static("invalid"))
}

const RATE_LIMIT_MESSAGE: &str = "Request rate limit exceeded. You can learn more about rate limits here https://stripe.com/docs/rate-limits.";

/// The answer to an injected `Fault::Status`.
fn status_fault(status: u16, should_retry: Option<bool>) -> Response<Body> {
    let err = match status {
        429 => ApiErr::new(429, "invalid_request_error", RATE_LIMIT_MESSAGE).code("rate_limit"),
        409 => ApiErr::new(
            409,
            "invalid_request_error",
            "There is currently another in-progress request using this Stripe object (injected by the fake Stripe server).",
        )
        .code("lock_timeout"),
        s if s >= 500 => ApiErr::new(
            s,
            "api_error",
            "An unknown error occurred (injected by the fake Stripe server).",
        ),
        s => ApiErr::new(
            s,
            "invalid_request_error",
            format!("Injected {s} by the fake Stripe server."),
        ),
    };
    let mut resp = err.into_response();
    if status == 429 {
        resp.headers_mut()
            .insert("stripe-rate-limited-reason", header("endpoint-rate"));
    }
    if let Some(retry) = should_retry {
        resp.headers_mut().insert(
            "stripe-should-retry",
            header(if retry { "true" } else { "false" }),
        );
    }
    resp
}

async fn truncate(resp: Response<Body>) -> Response<Body> {
    let (mut parts, body) = resp.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let cut = bytes.slice(0..bytes.len() / 2);
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(cut))
}

fn record(shared: &Shared, entry: LoggedRequest) {
    let echo = {
        let mut st = shared.state();
        if let Some(status) = entry.status {
            *st.stats.by_status.entry(status).or_default() += 1;
        }
        st.cfg.echo_requests
    };
    if echo {
        let query = if entry.query.is_empty() {
            String::new()
        } else {
            format!("?{}", entry.query)
        };
        let status = entry
            .status
            .map_or_else(|| "reset".to_string(), |s| s.to_string());
        let fault = entry
            .fault
            .as_deref()
            .map(|f| format!(" [{f}]"))
            .unwrap_or_default();
        eprintln!(
            "{} {} {}{} -> {status}{fault}",
            entry.request_id, entry.method, entry.path, query
        );
    }
    lock(&shared.log).push(entry);
}

/// Serves one request (the hyper service of every connection).
pub(super) async fn handle(
    shared: Arc<Shared>,
    router: axum::Router,
    req: Request<Incoming>,
    reset: Arc<AtomicBool>,
) -> Result<Response<Body>, ConnectionReset> {
    let n = shared.next_request.fetch_add(1, Ordering::SeqCst) + 1;
    let request_id = format!("req_fake_{n}");
    let text = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let mut entry = LoggedRequest {
        request_id: request_id.clone(),
        method: req.method().to_string(),
        path: req.uri().path().to_string(),
        query: req.uri().query().unwrap_or_default().to_string(),
        stripe_version: text("stripe-version"),
        stripe_account: text("stripe-account"),
        idempotency_key: text("idempotency-key"),
        auth: AuthSeen::NotChecked,
        status: None,
        fault: None,
        received_ms: u64::try_from(shared.started.elapsed().as_millis()).unwrap_or(u64::MAX),
    };

    // On arrival: the rate limiter takes a token, matching faults spend a shot.
    let (limited, delay, terminal, labels) = {
        let mut st = shared.state();
        st.stats.requests += 1;
        let limited = st.bucket.as_mut().is_some_and(|b| !b.take(Instant::now()));
        let mut delay = st.cfg.latency;
        let mut terminal: Option<Fault> = None;
        let mut labels = Vec::new();
        if limited {
            st.stats.rate_limited += 1;
        } else {
            for fault in st.cfg.faults.iter_mut() {
                if fault.times() == 0 || !fault.matches(&entry.path, &entry.query) {
                    continue;
                }
                if let Fault::Every { n, seen, .. } = fault {
                    *seen += 1;
                    if !(*seen).is_multiple_of((*n).max(1)) {
                        continue;
                    }
                }
                match &*fault {
                    Fault::Slow { delay: d, .. } => delay += *d,
                    _ if terminal.is_some() => continue,
                    other => terminal = Some(other.clone()),
                }
                if fault.times() != Fault::ALWAYS {
                    *fault.times_mut() -= 1;
                }
                labels.push(fault.label());
            }
            if !labels.is_empty() {
                st.stats.faults_fired += 1;
            }
        }
        (limited, delay, terminal, labels)
    };
    if !labels.is_empty() {
        entry.fault = Some(labels.join(", "));
    }
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }

    let mut cut = false;
    let mut resp = if limited {
        let mut resp = ApiErr::new(429, "invalid_request_error", RATE_LIMIT_MESSAGE)
            .code("rate_limit")
            .into_response();
        resp.headers_mut()
            .insert("stripe-rate-limited-reason", header("global-rate"));
        resp
    } else {
        match terminal {
            Some(Fault::Reset { .. }) => {
                reset.store(true, Ordering::SeqCst);
                shared.state().stats.resets += 1;
                record(&shared, entry);
                return Err(ConnectionReset);
            }
            Some(Fault::Status {
                status,
                should_retry,
                ..
            }) => status_fault(status, should_retry),
            Some(Fault::Every { status, .. }) => status_fault(status, None),
            Some(Fault::LockTimeout { .. }) => ApiErr::new(
                429,
                "invalid_request_error",
                "This object cannot be accessed right now because another API request or Stripe process is currently accessing it.",
            )
            .code("lock_timeout")
            .into_response(),
            other => {
                cut = matches!(other, Some(Fault::Truncate { .. }));
                let admitted = {
                    let st = shared.state();
                    admit(&st, &req, &mut entry)
                };
                match admitted {
                    Err(e) => e.into_response(),
                    Ok(()) => match router.oneshot(req.map(Body::new)).await {
                        Ok(resp) => resp,
                        Err(never) => match never {},
                    },
                }
            }
        }
    };
    if cut {
        resp = truncate(resp).await;
    }
    resp.headers_mut().insert("request-id", header(&request_id));
    if let Some(v) = entry.stripe_version.as_deref() {
        resp.headers_mut().insert("stripe-version", header(v));
    }
    entry.status = Some(resp.status().as_u16());
    record(&shared, entry);
    Ok(resp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_look_like_stripes() {
        let key = "rk_test_51AbCdEfGhIjKlMnqs8Kgd";
        assert_eq!(mask_401(key), "rk_test_****8Kgd");
        let m = mask_403(key);
        assert!(m.starts_with("rk_test_***") && m.ends_with("qs8Kgd"), "{m}");
        assert!(!m.contains("51AbCd"), "{m}");
        assert_eq!(mask_401("weird"), "****eird");
    }

    #[test]
    fn permissions_follow_the_notes() {
        let get = Method::GET;
        assert_eq!(
            permission_for(&get, "/v1/payouts/po_1"),
            Some("rak_payout_read")
        );
        assert_eq!(
            permission_for(&get, "/v1/balance_transactions"),
            Some("rak_balance_read")
        );
        assert_eq!(
            permission_for(&get, "/v1/balance"),
            Some("rak_balance_read")
        );
        assert_eq!(
            permission_for(&get, "/v1/invoice_payments"),
            Some("rak_invoice_read")
        );
        assert_eq!(permission_for(&get, "/v1/refunds"), Some("rak_charge_read"));
        assert_eq!(
            permission_for(&Method::POST, "/v1/refunds"),
            Some("rak_refund_write")
        );
        assert_eq!(
            permission_for(&get, "/v1/customers/search"),
            Some("rak_customer_read")
        );
        assert_eq!(permission_for(&get, "/v1/nothing"), None);
    }
}
