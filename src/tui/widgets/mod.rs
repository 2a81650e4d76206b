//! Reusable widgets: the virtualised data table, a titled panel, and small text helpers.

pub mod panel;
pub mod table;
pub mod text;
