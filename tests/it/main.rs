//! The one integration-test crate (so heavy dependencies link once). Each topic adds a
//! `mod <topic>;` line and its file `tests/it/<topic>.rs`; shared helpers live in `support`.

mod support;

mod fake_stripe;
