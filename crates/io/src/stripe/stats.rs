//! Counters of what a client sent: requests, retries, 429s, and requests per endpoint
//! (ids folded, so `/v1/charges/ch_1` and `/v1/charges/ch_2` count as one endpoint).

use std::collections::BTreeMap;
use std::sync::Mutex;

/// A snapshot of a client's counters (shared by its clones).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestStats {
    /// HTTP requests sent, retries included.
    pub requests: u64,
    /// Requests that were repeats of a failed attempt.
    pub retries: u64,
    /// 429 answers received.
    pub rate_limited: u64,
    /// Answers taken from an interrupted sync's journal instead of sent again (not
    /// counted in `requests`).
    pub replayed: u64,
    /// Requests sent per endpoint (`/v1/charges/{id}`).
    pub by_endpoint: BTreeMap<String, u64>,
}

/// `/v1/charges/ch_123/refunds` -> `/v1/charges/{id}/refunds`: a segment with an
/// underscore after a lowercase prefix (Stripe ids) is folded.
pub fn endpoint_of(path: &str) -> String {
    path.split('/')
        .map(|seg| {
            let looks_like_id = seg.split_once('_').is_some_and(|(p, rest)| {
                !p.is_empty()
                    && p.bytes().all(|b| b.is_ascii_lowercase())
                    && !rest.is_empty()
                    && rest
                        .bytes()
                        .any(|b| b.is_ascii_digit() || b.is_ascii_uppercase())
            });
            if looks_like_id { "{id}" } else { seg }
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[derive(Debug, Default)]
pub(crate) struct StatsCell(Mutex<RequestStats>);

impl StatsCell {
    fn with(&self, f: impl FnOnce(&mut RequestStats)) {
        // A poisoned lock only means another thread panicked mid-count: keep counting.
        let mut guard = self.0.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut guard);
    }

    pub(crate) fn sent(&self, path: &str, retry: bool) {
        let endpoint = endpoint_of(path);
        self.with(|s| {
            s.requests += 1;
            if retry {
                s.retries += 1;
            }
            *s.by_endpoint.entry(endpoint).or_default() += 1;
        });
    }

    pub(crate) fn replayed(&self) {
        self.with(|s| s.replayed += 1);
    }

    pub(crate) fn saw_429(&self) {
        self.with(|s| s.rate_limited += 1);
    }

    pub(crate) fn snapshot(&self) -> RequestStats {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_folded() {
        assert_eq!(endpoint_of("/v1/charges/ch_3Abc12"), "/v1/charges/{id}");
        assert_eq!(
            endpoint_of("/v1/invoices/in_1Q2w/payments"),
            "/v1/invoices/{id}/payments"
        );
        assert_eq!(
            endpoint_of("/v1/balance_transactions"),
            "/v1/balance_transactions"
        );
        assert_eq!(endpoint_of("/v1/invoice_payments"), "/v1/invoice_payments");
        assert_eq!(endpoint_of("/v1/customers/search"), "/v1/customers/search");
    }

    #[test]
    fn counts_accumulate() {
        let c = StatsCell::default();
        c.sent("/v1/payouts", false);
        c.sent("/v1/payouts", true);
        c.sent("/v1/charges/ch_1", false);
        c.saw_429();
        let s = c.snapshot();
        assert_eq!(s.requests, 3);
        assert_eq!(s.retries, 1);
        assert_eq!(s.rate_limited, 1);
        assert_eq!(s.by_endpoint.get("/v1/payouts"), Some(&2));
        assert_eq!(s.by_endpoint.get("/v1/charges/{id}"), Some(&1));
    }
}
