//! tieout's dev tooling, kept out of the product: a dev-dependency of the `tieout` package
//! and the home of its own binaries (`fake_stripe`, `gen-demo`, `gen-tickets`).
//!
//! [`fake_stripe`] is a stateful fake of the Stripe API: an axum server that binds the
//! loopback interface only (`127.0.0.1`), serves Stripe-shaped JSON from a fixture
//! directory through the real endpoints (pagination, filters, expansions, errors), checks
//! keys and restricted-key permissions, and injects faults on demand. It never talks to the
//! real Stripe. [`generator`] writes seeded demo accounts (the bundled `fixtures/demo` and
//! the large benchmark accounts) as Stripe-shaped JSON.

#![forbid(unsafe_code)]

pub mod fake_stripe;
pub mod generator;
pub mod many_tickets;
