//! Payout tie-out: each payout of a month against the balance transactions it paid out.
