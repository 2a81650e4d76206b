//! Pass 1, reference: the payouts whose trace id or `po_` id the bank text names, grouped
//! with the lines that name them. A group whose sums agree is matched, even outside the
//! date window; one whose sums or currencies differ goes to review, never on to the later
//! passes.

use std::collections::BTreeSet;

use super::state::{State, expected};
use super::text::{normalise, plural};
use super::window::{days_between, in_window};
use super::{MatchOptions, MatchRule};
use crate::money::format_major;

/// Pass 1: payouts named in the bank text, grouped with the lines that name them.
pub(super) fn reference_pass(s: &mut State<'_>, o: &MatchOptions) {
    let keys: Vec<Vec<(String, &'static str)>> = s
        .payouts
        .iter()
        .map(|p| {
            let mut k = vec![(normalise(&p.id), "payout id")];
            if let Some(t) = &p.trace_id {
                let t = normalise(t);
                if t.len() >= 6 {
                    k.push((t, "trace id"));
                }
            }
            k
        })
        .collect();
    // Edges payout -> line, with what was named.
    let mut edges: Vec<(usize, usize, &'static str)> = Vec::new();
    for (li, line) in s.lines.iter().enumerate() {
        let text = normalise(&line.text());
        for (i, key) in keys.iter().enumerate() {
            if s.result[i].is_some() || !expected(s.payouts[i]) {
                continue;
            }
            if let Some((_, what)) = key.iter().find(|(k, _)| text.contains(k.as_str())) {
                edges.push((i, li, what));
            }
        }
    }
    // Connected groups of payouts and lines, found from the smallest payout index.
    let mut seen_p = vec![false; s.payouts.len()];
    for start in 0..s.payouts.len() {
        if seen_p[start] || !edges.iter().any(|e| e.0 == start) {
            continue;
        }
        let mut ps = BTreeSet::from([start]);
        let mut ls = BTreeSet::new();
        loop {
            let before = (ps.len(), ls.len());
            for &(p, l, _) in &edges {
                if ps.contains(&p) || ls.contains(&l) {
                    ps.insert(p);
                    ls.insert(l);
                }
            }
            if (ps.len(), ls.len()) == before {
                break;
            }
        }
        for &p in &ps {
            seen_p[p] = true;
        }
        let ls: Vec<usize> = ls.into_iter().collect();
        let currency_ok = ps
            .iter()
            .map(|&p| s.payouts[p].currency)
            .chain(ls.iter().map(|&l| s.lines[l].currency))
            .collect::<BTreeSet<_>>()
            .len()
            == 1;
        let p_sum = ps
            .iter()
            .fold(0_i64, |a, &p| a.saturating_add(s.payouts[p].amount));
        let l_sum = ls
            .iter()
            .fold(0_i64, |a, &l| a.saturating_add(s.lines[l].amount));
        for &p in &ps {
            let named: BTreeSet<&str> = edges.iter().filter(|e| e.0 == p).map(|e| e.2).collect();
            let named = named.into_iter().collect::<Vec<_>>().join(" and ");
            let payout = s.payouts[p];
            if currency_ok && p_sum == l_sum {
                let mut note = format!("the bank text names the {named}");
                if ps.len() > 1 {
                    note.push_str(&format!(
                        "; one deposit for {}",
                        plural(ps.len(), "payout", "payouts")
                    ));
                }
                if ls.len() > 1 {
                    note.push_str(&format!("; split across {} bank lines", ls.len()));
                }
                let outside: Vec<String> = ls
                    .iter()
                    .filter(|&&l| !in_window(payout, s.lines[l], o))
                    .map(|&l| format!("{} days", days_between(payout.arrival, s.lines[l].date)))
                    .collect();
                if !outside.is_empty() {
                    note.push_str(&format!(
                        "; outside the date window ({})",
                        outside.join(", ")
                    ));
                }
                s.matched(p, MatchRule::Reference, &ls, note);
            } else {
                let why = if currency_ok {
                    format!(
                        "amount mismatch: the bank text names the {named} but the bank amount is {} and the payout{} {}",
                        format_major(l_sum, payout.currency),
                        if ps.len() > 1 { "s total" } else { " is" },
                        format_major(p_sum, payout.currency)
                    )
                } else {
                    format!(
                        "currency mismatch: the bank text names the {named} but the currencies differ"
                    )
                };
                s.review[p] = ls.iter().map(|&l| (l, why.clone())).collect();
                for &l in &ls {
                    s.used[l] = true;
                }
            }
        }
    }
}
