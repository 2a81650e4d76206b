//! What the fake saw: one entry per request (never the key itself, only whether it was
//! accepted) and running counters, for assertions such as "no method other than GET was
//! sent" or "the client stayed under the rate limit".

use std::collections::BTreeMap;

/// How the request authenticated. The key itself is never stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthSeen {
    /// No `Authorization: Bearer` header.
    Missing,
    /// A key the fake accepts.
    Accepted,
    /// A key the fake does not accept (answered 401).
    Rejected,
    /// Not checked: the request was answered (rate limit, fault) before authentication.
    NotChecked,
}

/// One request as the fake received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedRequest {
    /// The `Request-Id` it was answered with (`req_fake_<n>`).
    pub request_id: String,
    pub method: String,
    pub path: String,
    /// The raw query string (without `?`), as sent.
    pub query: String,
    pub stripe_version: Option<String>,
    pub stripe_account: Option<String>,
    pub idempotency_key: Option<String>,
    pub auth: AuthSeen,
    /// The status answered; `None` when the connection was reset instead.
    pub status: Option<u16>,
    /// The injected fault that shaped the answer, if any (`"status 429"`, `"reset"`, ...).
    pub fault: Option<String>,
    /// When it arrived, in milliseconds since the server started (pacing benchmarks).
    pub received_ms: u64,
}

impl LoggedRequest {
    /// The decoded query parameters, in order.
    pub fn query_pairs(&self) -> Vec<(String, String)> {
        form_urlencoded::parse(self.query.as_bytes())
            .into_owned()
            .collect()
    }

    /// The last value of one query parameter (`"limit"`, `"created[gte]"`, `"expand[]"`).
    pub fn param(&self, name: &str) -> Option<String> {
        self.query_pairs()
            .into_iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
    }
}

/// Counters since the server started (or since [`super::FakeStripe::clear_requests`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FakeStats {
    /// Every request received, answered or reset.
    pub requests: u64,
    /// 429s answered by the rate limiter (not by injected faults).
    pub rate_limited: u64,
    /// Requests shaped by an injected fault.
    pub faults_fired: u64,
    /// Connections reset by a `Fault::Reset`.
    pub resets: u64,
    /// Answers per HTTP status.
    pub by_status: BTreeMap<u16, u64>,
}
