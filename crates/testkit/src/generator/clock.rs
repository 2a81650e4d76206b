//! Calendar helpers for the generator (UTC only; Stripe's timestamps are unix seconds).

use jiff::{Span, Timestamp, tz::TimeZone};

pub const DAY: i64 = 86_400;
pub const HOUR: i64 = 3_600;

/// The demo's fixed "now": 2026-11-30T12:00:00Z.
pub const DEMO_NOW: i64 = tieout_io::source::demo::DEMO_NOW;

/// Midnight UTC of the day `ts` falls in.
pub fn day_start(ts: i64) -> i64 {
    ts - ts.rem_euclid(DAY)
}

/// 0 = Sunday, 1 = Monday, ... 6 = Saturday.
pub fn weekday(ts: i64) -> i64 {
    (ts.div_euclid(DAY) + 4).rem_euclid(7)
}

/// `ts` plus `n` calendar months (UTC; the day is clamped at month end, as Stripe does).
pub fn add_months(ts: i64, n: i64) -> i64 {
    let Ok(t) = Timestamp::from_second(ts) else {
        return ts;
    };
    let z = t.to_zoned(TimeZone::UTC);
    z.checked_add(Span::new().months(n))
        .map(|z| z.timestamp().as_second())
        .unwrap_or(ts)
}

/// Unix seconds of a UTC civil time; the inputs are compile-time constants of the
/// generator, so a bad one is a programming error reported as 0.
pub fn utc(y: i16, m: i8, d: i8, h: i8, min: i8) -> i64 {
    jiff::civil::date(y, m, d)
        .at(h, min, 0, 0)
        .to_zoned(TimeZone::UTC)
        .map(|z| z.timestamp().as_second())
        .unwrap_or(0)
}

/// `YYYY-MM-DD` of a UTC instant.
pub fn ymd(ts: i64) -> String {
    tieout_core::time::date_in(ts, &TimeZone::UTC)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_now_is_what_it_says() {
        assert_eq!(tieout_core::time::iso_utc(DEMO_NOW), "2026-11-30T12:00:00Z");
        assert_eq!(utc(2026, 11, 30, 12, 0), DEMO_NOW);
        assert_eq!(weekday(DEMO_NOW), 1, "2026-11-30 is a Monday");
        assert_eq!(
            tieout_core::time::iso_utc(add_months(utc(2026, 1, 31, 9, 0), 1)),
            "2026-02-28T09:00:00Z"
        );
    }
}
