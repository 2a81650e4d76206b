//! Writers for what tieout hands over: CSV (RFC 4180, spreadsheet-safe), Markdown and
//! JSON exports, and the close packet. Every file is written atomically.

pub mod close_packet;
pub mod close_readme;
pub mod csv_out;
pub mod dunning;
pub mod files;
pub mod month_lines;
pub mod packet;
pub mod reconciliation;
pub mod refunds;
