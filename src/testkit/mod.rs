//! Test infrastructure shipped in the library so integration tests, benches and the manual
//! `fake_stripe` binary share one implementation.
//!
//! [`fake_stripe`] is a stateful fake of the Stripe API: an axum server that binds the
//! loopback interface only (`127.0.0.1`), serves Stripe-shaped JSON from a fixture
//! directory through the real endpoints (pagination, filters, expansions, errors), checks
//! keys and restricted-key permissions, and injects faults on demand. It is never used by
//! tieout itself at run time and never talks to the real Stripe.

pub mod fake_stripe;
