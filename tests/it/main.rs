//! The one integration-test crate (so heavy dependencies link once): each topic is a
//! module (`mod <topic>;` plus `tests/it/<topic>.rs`); shared helpers live in `support`.

mod support;

mod balance;
mod bank;
mod client;
mod client_fake;
mod close;
mod congestion;
mod docs;
mod drift;
mod dunning;
mod dunning_since;
mod expiring_cards;
mod fake_stripe;
mod floors;
mod fuzz_bank;
mod fuzz_json;
mod fuzz_kit;
mod fuzz_tickets;
mod fuzz_toml;
mod hardening_config;
mod hardening_corpus;
mod hardening_csv;
mod hardening_faults;
mod hardening_permissions;
mod hardening_readonly;
mod hardening_secrets;
mod house;
mod journal;
mod keys;
mod man_and_completions;
mod query;
mod reconcile;
mod recovery;
mod refund_gate;
mod schedule;
mod screenshots;
mod shared_limit;
mod suggest;
mod sync;
mod sync_resume;
mod tickets_exports;
mod tui;
mod tui_gaps;
mod tui_layers;
