//! Writers for what tieout hands over: CSV (RFC 4180, spreadsheet-safe), Markdown and
//! JSON exports, and the close packet. Every file is written atomically.

pub mod csv_out;
pub mod dunning;
pub mod files;
pub mod reconciliation;
pub mod refunds;
