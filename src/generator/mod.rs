//! A deterministic, seeded generator of a realistic Stripe test account as Stripe-shaped
//! JSON: the bundled demo (`fixtures/demo`) and, scaled up, large accounts for benchmarks.
