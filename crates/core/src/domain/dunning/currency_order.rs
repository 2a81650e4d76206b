//! The one order of the worklist's currencies (RULES.md, "Worklist"): the
//! account's default currency first, then the others by the number of invoices on the
//! list (most first), ties by code. Amounts in different currencies are never compared,
//! so a KWD total (three decimals) never outranks a EUR one by its minor units.
//!
//! The pane, the Markdown and the JSON all order currencies through [`CurrencyOrder`].

use std::cmp::Ordering;
use std::collections::HashMap;

use crate::money::{Currency, Money, Totals};

/// The rank of each currency of a worklist. Currencies it does not know (written off
/// only, say) come after the known ones, by code, the default still first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CurrencyOrder {
    default: Option<Currency>,
    rank: HashMap<Currency, usize>,
}

impl CurrencyOrder {
    /// The order of currencies with `counts` invoices on the list each.
    pub fn new(
        default: Option<Currency>,
        counts: impl IntoIterator<Item = (Currency, usize)>,
    ) -> Self {
        let mut all: Vec<(Currency, usize)> = counts.into_iter().collect();
        all.sort_by(|a, b| {
            let first = |c: Currency| Some(c) != default;
            first(a.0)
                .cmp(&first(b.0))
                .then_with(|| b.1.cmp(&a.1))
                .then_with(|| a.0.cmp(&b.0))
        });
        all.dedup_by_key(|(c, _)| *c);
        let rank = all.iter().enumerate().map(|(i, (c, _))| (*c, i)).collect();
        Self { default, rank }
    }

    /// The account's default currency this order puts first.
    pub fn default_currency(&self) -> Option<Currency> {
        self.default
    }

    /// `a` before `b` in this order.
    pub fn cmp(&self, a: Currency, b: Currency) -> Ordering {
        self.key(a).cmp(&self.key(b))
    }

    fn key(&self, c: Currency) -> (bool, usize, Currency) {
        (
            Some(c) != self.default,
            self.rank.get(&c).copied().unwrap_or(usize::MAX),
            c,
        )
    }

    /// `t`'s amounts in this order.
    pub fn amounts(&self, t: &Totals) -> Vec<Money> {
        let mut out: Vec<Money> = t.iter().collect();
        out.sort_by(|a, b| self.cmp(a.currency, b.currency));
        out
    }

    /// Sorts `items` by the currency `of` each, in this order (stable).
    pub fn sort<T>(&self, items: &mut [T], of: impl Fn(&T) -> Currency) {
        items.sort_by(|a, b| self.cmp(of(a), of(b)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(code: &str) -> Currency {
        Currency::parse(code).expect("code")
    }

    #[test]
    fn default_first_then_by_invoice_count_then_by_code() {
        let o = CurrencyOrder::new(
            Some(c("usd")),
            [(c("eur"), 2), (c("usd"), 1), (c("gbp"), 2), (c("kwd"), 5)],
        );
        let mut got = vec![c("eur"), c("gbp"), c("kwd"), c("usd"), c("jpy")];
        o.sort(&mut got, |x| *x);
        // jpy is not on the list: after the others.
        assert_eq!(got, [c("usd"), c("kwd"), c("eur"), c("gbp"), c("jpy")]);
        let none = CurrencyOrder::new(None, [(c("eur"), 1), (c("chf"), 1)]);
        assert_eq!(none.cmp(c("chf"), c("eur")), Ordering::Less);
        // The default comes first even when nothing on the list is in it.
        let far = CurrencyOrder::new(Some(c("sek")), [(c("eur"), 3)]);
        assert_eq!(far.cmp(c("sek"), c("eur")), Ordering::Less);
    }

    #[test]
    fn amounts_are_never_compared_across_currencies() {
        let mut t = Totals::new();
        t.add_minor(9_000_000, c("kwd")).expect("add");
        t.add_minor(100, c("eur")).expect("add");
        let o = CurrencyOrder::new(None, [(c("kwd"), 1), (c("eur"), 1)]);
        let got: Vec<Currency> = o.amounts(&t).iter().map(|m| m.currency).collect();
        assert_eq!(
            got,
            [c("eur"), c("kwd")],
            "ties by code, not by minor units"
        );
    }
}
