//! The one integration-test crate: each topic is a module.

mod client;
