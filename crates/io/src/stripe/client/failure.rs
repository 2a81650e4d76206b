//! One failed attempt and what it becomes: whether it is retried, and the typed
//! [`StripeError`] (key scrubbed) that the caller sees when it is not.

use super::*;

/// One failed attempt, before it becomes a [`StripeError`].
pub(super) enum Fail {
    Status {
        status: u16,
        body: Option<Box<ErrorBody>>,
        should_retry: Option<bool>,
        /// `Retry-After`, when sent.
        retry_after: Option<Duration>,
        /// `Stripe-Rate-Limited-Reason` (on a 429), when sent.
        limited_reason: Option<String>,
        request_id: Option<String>,
    },
    Transport {
        detail: String,
        request_id: Option<String>,
        should_retry: Option<bool>,
    },
    Decode {
        at: String,
        detail: String,
        request_id: Option<String>,
    },
    Config(String),
}

impl Fail {
    pub(super) fn retryable(&self) -> bool {
        match self {
            Fail::Status {
                status,
                should_retry,
                ..
            } => retry::should_retry_status(*status, *should_retry),
            Fail::Transport { should_retry, .. } => should_retry.unwrap_or(true),
            Fail::Decode { .. } | Fail::Config(_) => false,
        }
    }

    /// How long the answer asked to wait (`Retry-After`).
    pub(super) fn retry_after(&self) -> Option<Duration> {
        match self {
            Fail::Status { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    pub(super) fn is_429(&self) -> bool {
        matches!(self, Fail::Status { status: 429, .. })
    }

    /// A 429 that says the account's budget is used up, so every request should slow
    /// down: Stripe's `global-rate` / `global-concurrency`, or a 429 that names no reason
    /// (but not `lock_timeout`: contention on one object). An endpoint's or a resource's
    /// own limit (`endpoint-rate`, `resource-specific`, ...) is waited out by that request's
    /// retries without slowing the others.
    pub(super) fn is_congestion(&self) -> bool {
        match self {
            Fail::Status {
                status: 429,
                body,
                limited_reason,
                ..
            } => {
                let lock = body
                    .as_ref()
                    .and_then(|b| b.error.code.as_deref())
                    .is_some_and(|c| c == "lock_timeout");
                let global = limited_reason
                    .as_deref()
                    .is_none_or(|r| r.trim().starts_with("global"));
                global && !lock
            }
            _ => false,
        }
    }

    /// The final error. Texts quoted from the answer are scrubbed of anything that looks
    /// like a key (and of this client's key) before they are kept anywhere.
    pub(super) fn into_error(self, path: &str, attempts: u32, key: &ApiKey) -> StripeError {
        let path = path.to_string();
        let clean = |text: String| key.scrub(&scrub_keys(&text));
        match self {
            Fail::Status {
                status,
                body,
                request_id,
                ..
            } => {
                let mut api = body.map(|b| b.error).unwrap_or_default();
                api.message = api.message.map(clean);
                match status {
                    401 => StripeError::InvalidKey {
                        path,
                        expired: api.code.as_deref() == Some("api_key_expired"),
                        message: api.message,
                        request_id,
                    },
                    403 => StripeError::MissingPermission {
                        path,
                        permission: api.message.as_deref().and_then(parse_permission),
                        message: api.message,
                        request_id,
                    },
                    404 => StripeError::NotFound {
                        path,
                        message: api.message,
                        request_id,
                    },
                    429 => StripeError::RateLimited {
                        path,
                        attempts,
                        request_id,
                    },
                    _ => StripeError::Api {
                        path,
                        status,
                        kind: api.kind,
                        code: api.code,
                        message: api.message,
                        attempts,
                        request_id,
                    },
                }
            }
            Fail::Transport {
                detail, request_id, ..
            } => StripeError::Network {
                path,
                attempts,
                detail: clean(detail),
                request_id,
            },
            Fail::Decode {
                at,
                detail,
                request_id,
            } => StripeError::Decode {
                path,
                at,
                detail: clean(detail),
                request_id,
            },
            Fail::Config(detail) => StripeError::Config {
                detail: clean(detail),
            },
        }
    }
}

pub(super) fn header_str(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// Describes a transport error without the URL's query (it may hold an email) and
/// without any header.
pub(super) fn transport_detail(e: &reqwest::Error) -> String {
    let what = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "could not connect"
    } else if e.is_body() || e.is_decode() {
        "the answer was cut short"
    } else {
        "the connection failed"
    };
    let mut source: Option<&dyn std::error::Error> = std::error::Error::source(e);
    let mut root = None;
    while let Some(s) = source {
        root = Some(s.to_string());
        source = s.source();
    }
    match root {
        Some(r) => format!("{what}: {r}"),
        None => what.to_string(),
    }
}
