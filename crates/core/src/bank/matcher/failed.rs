//! Pass 2, failed: a failed payout is paired with its credit and the debit that took it
//! back, settled as failed when the statement shows neither, and sent to review when it
//! shows only one of them or several that could be.

use jiff::civil::Date;

use super::state::State;
use super::window::{add_business_days, window};
use super::{BankStatus, MatchOptions, MatchRule};
use crate::model::status::PayoutStatus;

/// Pass 2: a failed payout's credit and debit-back.
pub(super) fn failed_pass(s: &mut State<'_>, o: &MatchOptions) {
    for i in 0..s.payouts.len() {
        let p = s.payouts[i];
        if s.result[i].is_some() || p.status != PayoutStatus::Failed {
            continue;
        }
        let (lo, hi) = window(p, o);
        let back_hi = add_business_days(p.arrival, o.return_business_days);
        let pick = |amount: i64, hi: Date| -> Vec<usize> {
            (0..s.lines.len())
                .filter(|&l| {
                    let line = &s.lines[l];
                    !s.used[l]
                        && line.currency == p.currency
                        && line.amount == amount
                        && lo <= line.date
                        && line.date <= hi
                })
                .collect()
        };
        let credits = pick(p.amount, hi);
        let debits = pick(-p.amount, back_hi);
        let code = p.failure_code.as_deref().unwrap_or("no code");
        match (credits.as_slice(), debits.as_slice()) {
            ([], []) => s.settle(
                i,
                BankStatus::Failed,
                format!("failed at Stripe ({code}); nothing on the statement, as expected"),
            ),
            ([c], [d]) if s.lines[*d].date >= s.lines[*c].date => {
                let note = format!(
                    "failed at Stripe ({code}): credited on {} and debited back on {}",
                    s.lines[*c].date, s.lines[*d].date
                );
                s.matched(i, MatchRule::Return, &[*c, *d], note);
            }
            (cs, ds) => {
                let why = match (cs.len(), ds.len()) {
                    (0, _) => {
                        "failed at Stripe, but a debit of the amount with no credit before it"
                    }
                    (_, 0) => "failed at Stripe, but credited and no debit-back found",
                    _ => "failed at Stripe; several credits or debits could be its return",
                };
                s.review[i] = cs.iter().chain(ds).map(|&l| (l, why.to_string())).collect();
            }
        }
    }
}
