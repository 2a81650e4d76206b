//! From a tied-out month to the books: the account map, the journal of the month's
//! payouts (clearing-account pattern, `daily` or `per-payout`), and its renderings for
//! beancount, hledger, ledger, QuickBooks Online and Xero. Pure: rows in, bytes out.
//! See ARCHITECTURE.md at the repository's root.

pub mod accounts;
mod accrual;
pub mod balance_tie;
mod lines;
pub mod model;
pub mod render;

#[cfg(test)]
mod accrual_tests;
#[cfg(test)]
mod roundtrip_tests;
#[cfg(test)]
mod tests;

pub use accounts::{AccountMap, DEFAULT_MAP, MAP_FILE, MapError, Unmapped};
pub use model::{Entry, EntryKind, Journal, JournalError, Posting, Style, SuspenseItem, build};
pub use render::{Format, RenderError, XERO_MAX_LINES, render};
