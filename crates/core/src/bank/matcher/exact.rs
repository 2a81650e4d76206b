//! Pass 3, exact: one payout and one bank line of the same currency and signed amount,
//! the line inside the payout's date window and the pair unique both ways; repeated until
//! nothing changes.

use std::collections::BTreeMap;

use super::state::{State, expected};
use super::text::plural;
use super::window::{days_between, in_window};
use super::{MatchOptions, MatchRule};

/// Pass 3: one payout, one line, same amount and currency, in the window, unique both ways.
pub(super) fn exact_pass(s: &mut State<'_>, o: &MatchOptions) {
    loop {
        let open: Vec<usize> = s.open().filter(|&i| expected(s.payouts[i])).collect();
        let cands: Vec<(usize, Vec<usize>)> = open
            .iter()
            .map(|&i| {
                let p = s.payouts[i];
                let c = (0..s.lines.len())
                    .filter(|&l| {
                        let line = &s.lines[l];
                        !s.used[l]
                            && line.currency == p.currency
                            && line.amount == p.amount
                            && in_window(p, line, o)
                    })
                    .collect();
                (i, c)
            })
            .collect();
        let mut wanted: BTreeMap<usize, usize> = BTreeMap::new();
        for (_, c) in &cands {
            for &l in c {
                *wanted.entry(l).or_default() += 1;
            }
        }
        let accept: Vec<(usize, usize)> = cands
            .iter()
            .filter(|(_, c)| c.len() == 1 && wanted.get(&c[0]) == Some(&1))
            .map(|(i, c)| (*i, c[0]))
            .collect();
        if accept.is_empty() {
            return;
        }
        for (i, l) in accept {
            let d = days_between(s.payouts[i].arrival, s.lines[l].date);
            let note = if d == 0 {
                String::new()
            } else {
                format!(
                    "booked {} {} the arrival date",
                    plural(d.unsigned_abs() as usize, "day", "days"),
                    if d > 0 { "after" } else { "before" }
                )
            };
            s.matched(i, MatchRule::Exact, &[l], note);
        }
    }
}
