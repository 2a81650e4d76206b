//! The journal's month-end assertion against the Stripe balance: the clearing account
//! holds what later payouts pay out of the lines created by the month's end; the
//! roll-forward's closing (`tieout balance`) is the whole Stripe balance then. The two
//! agree, or the journal says by how much and why: lines no payout had paid out yet,
//! payouts made by the month's end that arrived after it, payouts Stripe could not
//! itemise (their lines never pass through clearing), and the rest (tie-out differences,
//! lines before the data's first).

use std::collections::{BTreeMap, HashMap};

use jiff::tz::TimeZone;

use crate::domain::balance::{Rollforward, is_payout_category};
use crate::model::rows::{BalanceTxnRow, PayoutRow};
use crate::money::Currency;
use crate::time::Month;

use super::model::Journal;

/// What the tie needs beyond the journal: the lines and payouts of the data, the month's
/// roll-forward, and whether the lines reach back to the account's first.
pub struct BalanceTieInput<'a> {
    pub lines: &'a [BalanceTxnRow],
    pub payouts: &'a [PayoutRow],
    pub rollforward: &'a [Rollforward],
    pub lines_complete: bool,
}

impl<'a> BalanceTieInput<'a> {
    /// The account's lines and payouts with the month's roll-forward.
    pub fn of(data: &'a crate::model::AccountData, rollforward: &'a [Rollforward]) -> Self {
        BalanceTieInput {
            lines: &data.balance_transactions,
            payouts: &data.payouts,
            rollforward,
            lines_complete: data.meta.lines_complete,
        }
    }
}

/// One currency's clearing balance at the month's end against Stripe's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalanceTie {
    pub currency: Currency,
    /// The roll-forward's closing: the Stripe balance at the month's end.
    pub stripe_closing: i128,
    /// Whether that closing is the whole balance (the lines reach back to the account's
    /// first, or the opening was derived from `GET /v1/balance`), not only what the
    /// lines the data holds add up to.
    pub closing_known: bool,
    /// What the clearing account asserts.
    pub clearing: i64,
    /// The net of the lines created by the month's end that no payout in the data pays out.
    pub not_in_a_payout: i128,
    /// The net of the payouts' own lines created by the month's end whose payouts arrive
    /// after it (money on its way to the bank).
    pub in_transit: i128,
    /// The payouts Stripe could not itemise, as far as the clearing account misses them:
    /// their own lines created by the month's end (with no payout named, since no
    /// `?payout=` listing returns them), plus the month's such payouts clearing was
    /// credited with.
    pub unitemised: i128,
}

impl BalanceTie {
    /// Stripe's closing less the clearing balance.
    pub fn difference(&self) -> i128 {
        self.stripe_closing - i128::from(self.clearing)
    }

    /// The part of the difference the two named parts do not explain.
    pub fn rest(&self) -> i128 {
        self.difference() - self.not_in_a_payout - self.in_transit - self.unitemised
    }
}

/// Sets `j.balance_tie`: one tie per currency the clearing account is used in and the
/// roll-forward has.
pub fn attach(j: &mut Journal, input: &BalanceTieInput<'_>, month: Month, tz: &TimeZone) {
    let (_, end) = month.range(tz);
    let arrives: HashMap<&str, i64> = input
        .payouts
        .iter()
        .map(|p| (p.id.as_str(), p.arrival_date))
        .collect();
    let mut parts: BTreeMap<Currency, (i128, i128, i128)> = BTreeMap::new();
    for l in input.lines.iter().filter(|l| l.created < end) {
        let e = parts.entry(l.currency).or_default();
        let net = i128::from(l.net);
        let payout_line = is_payout_category(l.reporting_category.as_str());
        match l.payout.as_deref() {
            None if !payout_line => e.0 += net,
            None => e.2 += net,
            Some(p) if payout_line && arrives.get(p).is_some_and(|a| *a >= end) => e.1 += net,
            Some(_) => {}
        }
    }
    j.balance_tie = input
        .rollforward
        .iter()
        .filter_map(|rf| {
            let clearing = j
                .clearing
                .contains_key(&rf.currency)
                .then(|| j.clearing_at_end.get(&rf.currency).copied().unwrap_or(0))?;
            let (not_in_a_payout, in_transit, own_unitemised) =
                parts.get(&rf.currency).copied().unwrap_or_default();
            let credited = j.unitemised_out.get(&rf.currency).copied().unwrap_or(0);
            Some(BalanceTie {
                currency: rf.currency,
                stripe_closing: rf.closing,
                closing_known: input.lines_complete || rf.opening_derived.is_some(),
                clearing,
                not_in_a_payout,
                in_transit,
                unitemised: own_unitemised + i128::from(credited),
            })
        })
        .collect();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::balance::OpeningSource;
    use crate::domain::tieout::testdata::{line, month, own, payout, sample_month};
    use crate::journal::{AccountMap, Style, build};

    fn rollforward(closing: i128) -> Rollforward {
        Rollforward {
            currency: Currency::USD,
            opening: 0,
            opening_source: OpeningSource::Summed,
            opening_summed: Some(0),
            opening_derived: None,
            opening_difference: None,
            activity: closing,
            payouts: 0,
            closing,
            closing_available: closing,
            closing_pending: 0,
            stripe_balance: None,
            difference: None,
        }
    }

    /// Each line created by the month's end lands in the part that explains it, and what
    /// none explains is the rest; the note names every part and says "less" or "more".
    #[test]
    fn the_difference_is_split_into_its_parts_and_the_rest() {
        let map = AccountMap::default_map().expect("map");
        let m = month("2026-10");
        let mut j =
            build(&sample_month(), &[], &map, Style::Daily, &TimeZone::UTC).expect("journal");
        let clearing = j.clearing_at_end[&Currency::USD];
        let late = payout("po_late", 700, "2026-11-03T00:00:00Z");
        let mut unpaid = line("txn_unpaid", "-", "charge", "charge", 1_000, 0);
        unpaid.payout = None;
        let mut manual = own(&payout("po_manual2", 300, "2026-10-20T00:00:00Z"));
        manual.payout = None;
        let mut in_transit = own(&late);
        in_transit.created = 1_792_000_000; // 2026-10-14, before the month's end
        let lines = [unpaid, manual, in_transit];
        let payouts = [late];
        let closing = i128::from(clearing) + 1_000 - 700 - 300 + 25;
        let rf = [rollforward(closing)];
        let input = BalanceTieInput {
            lines: &lines,
            payouts: &payouts,
            rollforward: &rf,
            lines_complete: true,
        };
        attach(&mut j, &input, m, &TimeZone::UTC);
        let t = &j.balance_tie[0];
        assert_eq!(t.not_in_a_payout, 1_000);
        assert_eq!(t.in_transit, -700);
        let credited = i128::from(j.unitemised_out.get(&Currency::USD).copied().unwrap_or(0));
        assert_eq!(t.unitemised, -300 + credited);
        assert_eq!(t.rest(), 25 - credited);
        assert_eq!(t.difference(), 25);
        let note = crate::journal::render::balance_tie_note(t, m);
        assert!(
            note.contains("0.25 USD more than the clearing account holds"),
            "{note}"
        );
        assert!(
            note.contains("10.00 USD of lines no payout had paid out yet"),
            "{note}"
        );
        assert!(note.contains("-7.00 USD of payouts made by then"), "{note}");
    }

    /// Without every line and without Stripe's balance the closing is only what the lines
    /// hold, and the note says so instead of comparing.
    #[test]
    fn an_unknown_closing_is_said_to_be_unknown() {
        let t = BalanceTie {
            currency: Currency::USD,
            stripe_closing: 1_234,
            closing_known: false,
            clearing: 0,
            not_in_a_payout: 0,
            in_transit: 0,
            unitemised: 0,
        };
        let note = crate::journal::render::balance_tie_note(&t, month("2026-10"));
        assert!(note.contains("not the whole balance"), "{note}");
        assert!(note.contains("run tieout sync"), "{note}");
    }
}
