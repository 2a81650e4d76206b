//! The use cases: what a command or the TUI asks of the account, with the IO floor below
//! and the rules of the core crate. `load` picks and reads the data a job needs, `ticket_fetch`
//! answers refund tickets by reading only their customers, `tickets` reads a tickets
//! file (any helpdesk's export) for the command and the pane alike, `accounts` and
//! `journal` read the account map and write the month's journal, `refund_exec` carries out an
//! approved test-mode refund through the gate, and `audit` is the gate's append-only log.
//! The shells (`cli`, `tui`) call these; nothing here decides an exit code.

pub mod accounts;
pub mod audit;
pub mod balance;
pub mod bank;
pub mod close;
pub mod connect;
pub mod drift;
pub mod exports;
pub mod fraud_warnings;
pub mod journal;
pub mod load;
pub mod pane_reads;
pub mod permission_check;
pub mod query;
pub mod reconcile;
pub mod recovery;
pub mod refund_batch;
pub mod refund_exec;
pub mod run_history;
pub mod schedule;
pub mod settings;
pub mod stripe_reads;
pub mod suggest;
pub mod threads;
pub mod ticket_fetch;
pub mod tickets;
pub mod toml_file;
pub mod views;
pub mod workbench;

pub use connect::{client_config, connect, verify_key};

use jiff::tz::TimeZone;

/// What a use case needs to know to read the account: which profile's key, where Stripe
/// is, which data source, and the clock and zone. The shells build it (the CLI from its
/// flags, the TUI from its start-up options); the use cases never see a command line.
#[derive(Debug, Clone)]
pub struct ReadRequest {
    /// The keychain profile whose key is used (`STRIPE_API_KEY` overrides it).
    pub profile: String,
    /// Accept a full secret key (`sk_…`) instead of a restricted one.
    pub allow_secret_key: bool,
    /// The API's base URL (Stripe's, or a loopback fake's).
    pub api_base: String,
    /// `Stripe-Account`: read a connected account.
    pub stripe_account: Option<String>,
    /// Read the bundled demo account: no key, no network.
    pub demo: bool,
    /// Read the local cache of an earlier sync instead of Stripe.
    pub cached: bool,
    /// The clock, unix seconds.
    pub now: i64,
    pub tz: TimeZone,
    /// `--rate`: the budget in req/s (else the settings file's, else the default).
    pub rate: Option<u32>,
}

/// The platform's config folder for tieout (`TIEOUT_CONFIG_DIR` overrides): keymap, theme,
/// account map, bank profiles and saved queries all live here.
pub fn config_dir() -> Option<std::path::PathBuf> {
    if let Some(d) = std::env::var_os("TIEOUT_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Some(std::path::PathBuf::from(d));
    }
    directories::ProjectDirs::from("", "", "tieout").map(|p| p.config_dir().to_path_buf())
}

/// The platform's data folder for tieout (`TIEOUT_DATA_DIR` overrides), shared with the
/// cache: run records, the audit log, `tickets.csv`, the log file.
pub fn data_dir() -> Option<std::path::PathBuf> {
    crate::source::cache::data_root().ok()
}
