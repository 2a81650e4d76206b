//! Stripe's balance as read with a snapshot (`GET /v1/balance`): per currency, the
//! available and pending amounts, each summed over source types, and when they were read.
//! The roll-forward compares the month that holds that instant against it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::money::Currency;

/// Stripe's balance at `read_at`, per currency, each summed over source types.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StripeBalance {
    /// When the balance was read (unix seconds).
    pub read_at: i64,
    /// currency -> (available, pending), minor units.
    pub amounts: BTreeMap<Currency, (i128, i128)>,
}

impl StripeBalance {
    /// available + pending in `currency`, when Stripe named it.
    pub fn total(&self, currency: Currency) -> Option<i128> {
        self.amounts.get(&currency).map(|(a, p)| a + p)
    }

    /// Adds an `available` (or `pending`) entry: Stripe lists one entry a currency, but a
    /// repeated one is summed rather than lost.
    pub fn add(&mut self, currency: Currency, amount: i64, pending: bool) {
        let e = self.amounts.entry(currency).or_default();
        if pending {
            e.1 += i128::from(amount);
        } else {
            e.0 += i128::from(amount);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_balance_reads_back_as_it_was_written() {
        let mut b = StripeBalance {
            read_at: 1_796_040_000,
            ..Default::default()
        };
        b.add(Currency::USD, 100, false);
        b.add(Currency::USD, 5, true);
        b.add(Currency::USD, 1, true);
        assert_eq!(b.total(Currency::USD), Some(106));
        let json = serde_json::to_string(&b).expect("json");
        let back: StripeBalance = serde_json::from_str(&json).expect("back");
        assert_eq!(back, b);
    }
}
