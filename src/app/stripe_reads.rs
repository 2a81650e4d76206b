//! The Stripe reads a ticket-scoped fetch makes ([`StripeReads`]: every item of a list or
//! a search, with each page's Request-Id), provided by the Stripe client and by the tests'
//! recording doubles, and how the trail names such a request ([`describe`]).

use std::future::Future;

use serde::de::DeserializeOwned;

use crate::stripe::Listed;
use crate::stripe::models::HasId;

/// The two reads the ticket fetch needs; the Stripe client provides them (tests may
/// provide a recording double).
pub trait StripeReads {
    type Error: std::fmt::Display;
    /// Every item of a cursor-paginated list, with each page's Request-Id.
    fn list_all<T>(
        &self,
        path: &str,
        query: &[(String, String)],
    ) -> impl Future<Output = Result<Listed<T>, Self::Error>>
    where
        T: DeserializeOwned + HasId + Send + 'static;
    /// Every result of a search endpoint, with each page's Request-Id.
    fn search_all<T>(
        &self,
        path: &str,
        query: &[(String, String)],
    ) -> impl Future<Output = Result<Listed<T>, Self::Error>>
    where
        T: DeserializeOwned + HasId + Send + 'static;
    /// Whether `e` stops only the ticket that met it (Stripe or the network failing after
    /// the client's retries, a search that timed out) rather than the whole batch (a key
    /// or permission problem every ticket would meet).
    fn per_ticket(_e: &Self::Error) -> bool {
        true
    }
}

impl StripeReads for crate::stripe::Client {
    type Error = crate::stripe::StripeError;
    fn per_ticket(e: &Self::Error) -> bool {
        e.fail_kind() == crate::failure::FailKind::Stripe
    }
    fn list_all<T>(
        &self,
        path: &str,
        query: &[(String, String)],
    ) -> impl Future<Output = Result<Listed<T>, Self::Error>>
    where
        T: DeserializeOwned + HasId + Send + 'static,
    {
        crate::stripe::Client::list_all_traced(self, path, query)
    }
    fn search_all<T>(
        &self,
        path: &str,
        query: &[(String, String)],
    ) -> impl Future<Output = Result<Listed<T>, Self::Error>>
    where
        T: DeserializeOwned + HasId + Send + 'static,
    {
        crate::stripe::Client::search_all_traced(self, path, query)
    }
}

/// `GET /v1/charges?customer=cus_a`: a request as the trail names it (path and query
/// only: the key travels in a header and is never part of it).
pub fn describe(path: &str, query: &[(String, String)]) -> String {
    let q: Vec<String> = query.iter().map(|(k, v)| format!("{k}={v}")).collect();
    if q.is_empty() {
        format!("GET {path}")
    } else {
        format!("GET {path}?{}", q.join("&"))
    }
}
