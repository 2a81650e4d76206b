//! Where the account's data comes from: the live Stripe API, the bundled demo account, or
//! the on-disk cache of an earlier sync. Whatever the origin, the result is a
//! [`tables::Snapshot`] (polars tables, cached as Parquet) and, for the domain,
//! [`AccountData`] (plain rows, defined in the core crate's `model`).

pub mod cache;
pub mod demo;
pub mod from_wire;
pub mod progress;
pub mod sync;
pub mod tables;
/// Rows for tests, shared with the upper floors' tests through the `testdata` feature.
#[cfg(any(test, feature = "testdata"))]
pub mod testdata;
