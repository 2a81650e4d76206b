//! Reusable widgets: the virtualised data table, and small text helpers.

pub mod table;
pub mod text;
