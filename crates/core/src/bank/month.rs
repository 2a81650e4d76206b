//! The bank leg of one month's tie-out, shared by `tieout reconcile`, the close packet and
//! the Tie-out pane: the month's payouts matched to the statements' lines as of a clock.
//! The payouts of the two weeks either side of the month are matched too (and then left
//! out of the result), so a neighbouring month's deposit is neither taken by a payout of
//! this month nor listed as an unmatched Stripe line.

use std::collections::BTreeSet;

use super::{BankLine, BankMatch, MatchOptions, PayoutKey, match_payouts};
use crate::domain::tieout::MonthTieOut;
use crate::model::rows::PayoutRow;

/// How far either side of the month the neighbouring payouts are matched (seconds).
pub const NEIGHBOURS: i64 = 14 * 86_400;

/// Matches `tieout`'s payouts to `lines` as of `now` (unix seconds); `all` is every payout
/// on hand, from which the neighbours are taken.
pub fn match_month(
    tieout: &MonthTieOut,
    all: &[PayoutRow],
    lines: &[BankLine],
    now: i64,
) -> BankMatch {
    let first = tieout.month.first_day();
    let last = tieout.month.next().first_day().yesterday().unwrap_or(first);
    let in_month: BTreeSet<&str> = tieout
        .payouts
        .iter()
        .map(|p| p.payout.id.as_str())
        .collect();
    let mut keys: Vec<PayoutKey> = tieout
        .payouts
        .iter()
        .map(|p| PayoutKey::from_row(&p.payout))
        .collect();
    keys.extend(
        all.iter()
            .filter(|p| {
                p.arrival_date >= tieout.start - NEIGHBOURS
                    && p.arrival_date < tieout.end + NEIGHBOURS
            })
            .filter(|p| !in_month.contains(p.id.as_str()))
            .map(PayoutKey::from_row),
    );
    let today = jiff::Timestamp::from_second(now)
        .map(|t| t.to_zoned(jiff::tz::TimeZone::UTC).date())
        .unwrap_or_default();
    let mut m = match_payouts(&keys, lines, &MatchOptions::new(today).listing(first, last));
    m.payouts
        .retain(|p| in_month.contains(p.payout.id.as_str()));
    m
}
