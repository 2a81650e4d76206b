//! Reusable widgets: the virtualised data table, a titled panel, the facts above a
//! drill-down's table, and small text helpers.

pub mod facts;
pub mod panel;
pub mod table;
pub mod text;
