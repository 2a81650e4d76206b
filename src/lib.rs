//! tieout: a terminal workbench over one Stripe account.
//!
//! Data flows one way: `secrets` gives the key, `stripe` reads the API (GET only),
//! `source` turns what was read (or the bundled demo) into a snapshot, `domain` computes
//! the three jobs with no IO, `report` writes the exports, and `tui`/`cli` are the shells.

#![forbid(unsafe_code)]

pub mod audit;
pub mod cli;
pub mod domain;
pub mod generator;
pub mod money;
pub mod refund_exec;
pub mod report;
pub mod secrets;
pub mod source;
pub mod stripe;
pub mod testkit;
pub mod time;
pub mod tui;
