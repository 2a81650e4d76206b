//! Picks where a command's data comes from (demo, cache, or fresh from Stripe) and loads it.
