//! The only code that speaks HTTP to Stripe, and the typed models of what it reads.
//!
//! [`Client`] sends GET and nothing else (SECURITY.md). Its pieces: [`limiter`] (pacing),
//! [`pace`] (the rate and requests in flight from latency and 429s),
//! [`retry`] (what to retry, backoff), [`query`] (Stripe-style query strings), [`stats`]
//! (request counters), [`tls`] (the one TLS setup of every HTTP client), [`error`] (typed failures with what to do), [`permissions`] (the
//! restricted-key permissions tieout needs), [`account`] (which account a key reads).

pub mod account;
pub mod blocking;
pub mod client;
pub mod error;
pub mod limiter;
pub mod models;
pub mod pace;
pub mod permissions;
pub mod query;
pub mod refund_writer;
pub mod retry;
pub mod stats;
pub mod tls;

#[cfg(test)]
mod parse_tests;

pub use client::{Client, ClientConfig, DEFAULT_API_BASE, DEFAULT_MAX_ATTEMPTS, Listed};
pub use error::StripeError;
pub use limiter::RateConfig;
pub use stats::RequestStats;

/// The API version every request pins (`Stripe-Version`). The models were checked
/// against its shapes.
pub const API_VERSION: &str = "2026-07-29.dahlia";
