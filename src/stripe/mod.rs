//! The only code that speaks HTTP to Stripe, and the typed models of what it reads.

pub mod models;

/// The API version every request pins (`Stripe-Version`). The models were checked
/// against its shapes.
pub const API_VERSION: &str = "2026-07-29.dahlia";
