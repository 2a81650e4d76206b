//! Pass 4, aggregate: one bank line equal to the sum of a few payouts in its window, or one
//! payout equal to the sum of a few lines, when exactly one subset fits and no other
//! proposal wants the same payout or line. Holds the small subset search it needs.

use std::collections::BTreeMap;

use super::state::{State, expected};
use super::window::in_window;
use super::{MatchOptions, MatchRule};

/// The subsets of `pool` (indices) of 2..=max items whose `value`s sum to `target`; stops
/// after two, since only a unique fit is used.
fn fits(pool: &[usize], value: &dyn Fn(usize) -> i64, target: i64, max: usize) -> Vec<Vec<usize>> {
    fn go(
        pool: &[usize],
        value: &dyn Fn(usize) -> i64,
        left: i64,
        max: usize,
        pick: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if out.len() >= 2 {
            return;
        }
        if left == 0 && pick.len() >= 2 {
            out.push(pick.clone());
            return;
        }
        if pick.len() == max {
            return;
        }
        for (k, &x) in pool.iter().enumerate() {
            pick.push(x);
            go(
                &pool[k + 1..],
                value,
                left.saturating_sub(value(x)),
                max,
                pick,
                out,
            );
            pick.pop();
        }
    }
    let mut out = Vec::new();
    go(pool, value, target, max, &mut Vec::new(), &mut out);
    out
}

/// The most items an aggregate search looks at, so it stays small.
const POOL_LIMIT: usize = 12;

/// The one subset of a small `pool` that sums to `target`, if exactly one does.
fn unique_fit(
    pool: &[usize],
    value: &dyn Fn(usize) -> i64,
    target: i64,
    o: &MatchOptions,
) -> Option<Vec<usize>> {
    if pool.len() < 2 || pool.len() > POOL_LIMIT {
        return None;
    }
    match fits(pool, value, target, o.max_subset).as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// Pass 4: one line for several payouts, or one payout in several lines.
pub(super) fn aggregate_pass(s: &mut State<'_>, o: &MatchOptions) {
    let open: Vec<usize> = s.open().filter(|&i| expected(s.payouts[i])).collect();
    let free: Vec<usize> = (0..s.lines.len()).filter(|&l| !s.used[l]).collect();
    let same_sign =
        |a: i64, b: i64| a.signum() == b.signum() && a.unsigned_abs() < b.unsigned_abs();
    // (payouts, lines) proposals.
    let mut proposals: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
    for &l in &free {
        let line = &s.lines[l];
        let pool: Vec<usize> = open
            .iter()
            .copied()
            .filter(|&i| {
                let p = s.payouts[i];
                p.currency == line.currency
                    && same_sign(p.amount, line.amount)
                    && in_window(p, line, o)
            })
            .collect();
        if let Some(one) = unique_fit(&pool, &|i| s.payouts[i].amount, line.amount, o) {
            proposals.push((one, vec![l]));
        }
    }
    for &i in &open {
        let p = s.payouts[i];
        let pool: Vec<usize> = free
            .iter()
            .copied()
            .filter(|&l| {
                let line = &s.lines[l];
                line.currency == p.currency
                    && same_sign(line.amount, p.amount)
                    && in_window(p, line, o)
            })
            .collect();
        if let Some(one) = unique_fit(&pool, &|l| s.lines[l].amount, p.amount, o) {
            proposals.push((vec![i], one));
        }
    }
    let mut uses_p: BTreeMap<usize, usize> = BTreeMap::new();
    let mut uses_l: BTreeMap<usize, usize> = BTreeMap::new();
    for (ps, ls) in &proposals {
        for p in ps {
            *uses_p.entry(*p).or_default() += 1;
        }
        for l in ls {
            *uses_l.entry(*l).or_default() += 1;
        }
    }
    for (ps, ls) in &proposals {
        if ps.iter().any(|p| uses_p[p] > 1) || ls.iter().any(|l| uses_l[l] > 1) {
            continue;
        }
        for &p in ps {
            let note = if ps.len() > 1 {
                let others: Vec<&str> = ps
                    .iter()
                    .filter(|&&q| q != p)
                    .map(|&q| s.payouts[q].id.as_str())
                    .collect();
                format!(
                    "one bank line for {} payouts (with {})",
                    ps.len(),
                    others.join(", ")
                )
            } else {
                format!("split across {} bank lines", ls.len())
            };
            s.matched(p, MatchRule::Aggregate, ls, note);
        }
    }
}
