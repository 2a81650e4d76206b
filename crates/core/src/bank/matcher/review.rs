//! Pass 5, review: every payout still open gets its ranked candidates (at most three) and
//! a status: `review` with the reason, `pending` while its window is open, `missing` when
//! the window has closed and nothing is near.

use super::state::State;
use super::text::{descriptors, looks_like_stripe};
use super::window::{days_between, in_window, window};
use super::{BankStatus, Candidate, MatchOptions, PayoutMatch};
use crate::money::format_major;

/// Pass 5: what is left gets candidates and a status.
pub(super) fn review_pass(s: &mut State<'_>, o: &MatchOptions) {
    let descriptors = descriptors(&s.payouts);
    for i in 0..s.payouts.len() {
        if s.result[i].is_some() {
            continue;
        }
        let p = s.payouts[i];
        let (_, hi) = window(p, o);
        // (rank, not Stripe-looking, |days|, line, reason)
        let not_stripe = |l: usize| !looks_like_stripe(s.lines[l], &descriptors);
        let mut ranked: Vec<(u8, bool, i64, usize, String)> = s.review[i]
            .iter()
            .map(|(l, why)| {
                let d = days_between(p.arrival, s.lines[*l].date).abs();
                (0, not_stripe(*l), d, *l, why.clone())
            })
            .collect();
        let equal_in_window: Vec<usize> = (0..s.lines.len())
            .filter(|&l| {
                let line = &s.lines[l];
                !s.used[l]
                    && line.currency == p.currency
                    && line.amount == p.amount
                    && in_window(p, line, o)
            })
            .collect();
        if ranked.is_empty() {
            for l in 0..s.lines.len() {
                if s.used[l] {
                    continue;
                }
                let line = &s.lines[l];
                let d = days_between(p.arrival, line.date);
                let near = d.abs() <= 31;
                let reason = if equal_in_window.contains(&l) {
                    Some((
                        1,
                        format!("{} equal candidates in the window", equal_in_window.len()),
                    ))
                } else if line.currency == p.currency && line.amount == p.amount && near {
                    Some((
                        2,
                        format!("outside the date window ({d} days from arrival)"),
                    ))
                } else if line.currency != p.currency
                    && line.amount == p.amount
                    && in_window(p, line, o)
                {
                    Some((
                        3,
                        format!("currency off: the line is in {}", line.currency.upper()),
                    ))
                } else if line.currency == p.currency
                    && line.amount.signum() == p.amount.signum()
                    && in_window(p, line, o)
                    && (i128::from(line.amount) - i128::from(p.amount)).abs() * 20
                        <= i128::from(p.amount).abs()
                {
                    Some((
                        4,
                        format!(
                            "amount off by {}",
                            format_major(line.amount.saturating_sub(p.amount), p.currency)
                        ),
                    ))
                } else {
                    None
                };
                if let Some((rank, why)) = reason {
                    ranked.push((rank, not_stripe(l), d.abs(), l, why));
                }
            }
        }
        ranked.sort();
        ranked.truncate(3);
        let candidates: Vec<Candidate> = ranked
            .iter()
            .map(|(_, _, _, l, why)| Candidate {
                line: s.lines[*l].clone(),
                reason: why.clone(),
            })
            .collect();
        let due = o.today > hi;
        let forced = !s.review[i].is_empty() || equal_in_window.len() > 1;
        let (status, note) = if candidates.is_empty() {
            if due {
                (
                    BankStatus::Missing,
                    format!("no deposit by {hi}, the end of the window"),
                )
            } else {
                (
                    BankStatus::Pending,
                    format!("not due yet: expected by {hi}"),
                )
            }
        } else if due || forced {
            let list: Vec<String> = candidates
                .iter()
                .map(|c| format!("{} ({})", c.line.line_id(), c.reason))
                .collect();
            (BankStatus::Review, format!("review: {}", list.join("; ")))
        } else {
            (
                BankStatus::Pending,
                format!("not due yet: expected by {hi}"),
            )
        };
        s.result[i] = Some(PayoutMatch {
            payout: p.clone(),
            status,
            rule: None,
            lines: Vec::new(),
            candidates: if status == BankStatus::Review {
                candidates
            } else {
                Vec::new()
            },
            note,
        });
    }
}
