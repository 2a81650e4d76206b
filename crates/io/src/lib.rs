//! tieout's IO floor: everything that touches the network, the keychain or the disk for
//! the account's data, below the use cases and above the rules.
//!
//! `stripe` is the read-only client (GET only; the test-mode refund writer is its one
//! exception, behind the approval gate), `secrets` the OS keychain, `source` the snapshot
//! (sync, Parquet cache, bundled demo), `files` atomic file writes and `packet_dir` the
//! close packet's folder on disk. See ARCHITECTURE.md at the repository's root.

#![forbid(unsafe_code)]

pub mod files;
pub mod packet_dir;
pub mod query;
pub mod secrets;
pub mod source;
pub mod stripe;
