//! The date window a deposit may land in: calendar and business-day arithmetic (Monday
//! to Friday, no holiday calendar) and the window around a payout's `arrival_date`.

use jiff::civil::{Date, Weekday};

use super::{MatchOptions, PayoutKey};
use crate::bank::BankLine;

/// Calendar days from `from` to `to`, negative when `to` comes first.
pub(super) fn days_between(from: Date, to: Date) -> i64 {
    from.until(to).map(|s| i64::from(s.get_days())).unwrap_or(0)
}

/// `d` plus `n` calendar days (`d` itself when that leaves the calendar).
pub(super) fn add_days(d: Date, n: i64) -> Date {
    d.checked_add(jiff::Span::new().days(n)).unwrap_or(d)
}

/// `d` plus `n` business days (Monday to Friday; no holiday calendar).
pub fn add_business_days(d: Date, n: i64) -> Date {
    let mut out = d;
    let mut left = n;
    while left > 0 {
        out = add_days(out, 1);
        if !matches!(out.weekday(), Weekday::Saturday | Weekday::Sunday) {
            left -= 1;
        }
    }
    out
}

/// The first and last day a payout's deposit may be booked on.
pub(super) fn window(p: &PayoutKey, o: &MatchOptions) -> (Date, Date) {
    (
        add_days(p.arrival, -o.days_before),
        add_business_days(p.arrival, o.business_days_after),
    )
}

/// Whether the line is booked inside the payout's window.
pub(super) fn in_window(p: &PayoutKey, l: &BankLine, o: &MatchOptions) -> bool {
    let (lo, hi) = window(p, o);
    lo <= l.date && l.date <= hi
}
