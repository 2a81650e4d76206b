//! tieout's ground floor: the account's vocabulary and the rules, with no IO.
//!
//! `money` (integer minor units with Stripe's exponents), `time` (months and zones),
//! `model` (the account as plain rows and the status vocabulary), `failure` (what went
//! wrong, as a kind and a message), `controls` (control characters made visible), `domain` (the three jobs: the dunning worklist, the
//! payout tie-out, refund recommendations and the approval gate's rules) and `report` (the
//! exports as bytes). Nothing here reads a file, the network, the clock or the keychain:
//! the dependency tree has no tokio, reqwest, polars, ratatui or keyring, so a rule that
//! tried would not compile. See ARCHITECTURE.md at the repository's root.

#![forbid(unsafe_code)]

pub mod bank;
pub mod controls;
pub mod domain;
pub mod failure;
pub mod journal;
pub mod model;
pub mod money;
pub mod report;
pub mod time;
