//! tieout: a terminal workbench over one Stripe account.
//!
//! Three floors, each a crate, each importing only from below (see ARCHITECTURE.md):
//! `tieout-core` holds the vocabulary and the rules with no IO (money, time, the account
//! model, the three jobs, the report renderers); `tieout-io` reads Stripe (GET only), the
//! keychain and the cache; this package holds the use cases (`app`) and the two shells on
//! top of them (`cli`, `tui`). The lower floors are re-exported here under their usual
//! names so `tieout::money`, `tieout::source`, ... read the same from every test.

#![forbid(unsafe_code)]

pub mod app;
pub mod cli;
pub mod tui;

pub use tieout_core::{bank, domain, failure, model, money, report, time};
pub use tieout_io::{files, packet_dir, query, secrets, source, stripe};
