//! Calendar arithmetic the jobs share: months in a time zone, ISO 8601 UTC text, days
//! between instants. Times travel as unix seconds (what Stripe sends); jiff does the
//! calendar and time-zone work.

use std::fmt;
use std::str::FromStr;

use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::{Timestamp, Zoned};

use crate::model::compact::InlineText;

/// A calendar month such as `2026-10`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Month {
    pub year: i16,
    pub month: i8,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeError {
    #[error("'{0}' is not a month: write it as YYYY-MM, e.g. 2026-10")]
    BadMonth(String),
    #[error("'{0}' is not a time zone: use an IANA name such as UTC or Europe/Berlin")]
    BadZone(String),
    #[error("'{0}' is not an RFC 3339 time: write it like 2026-11-30T09:00:00Z")]
    BadInstant(String),
    #[error("'{0}' is not a day: write it as YYYY-MM-DD")]
    BadDay(String),
}

impl Month {
    /// The month as a reader names it: "October 2026".
    pub fn title(&self) -> String {
        self.first_day().strftime("%B %Y").to_string()
    }

    pub fn first_day(&self) -> Date {
        // Constructed only from validated parts.
        Date::new(self.year, self.month, 1).unwrap_or(Date::MIN)
    }

    pub fn next(&self) -> Month {
        if self.month == 12 {
            Month {
                year: self.year + 1,
                month: 1,
            }
        } else {
            Month {
                year: self.year,
                month: self.month + 1,
            }
        }
    }

    pub fn prev(&self) -> Month {
        if self.month == 1 {
            Month {
                year: self.year - 1,
                month: 12,
            }
        } else {
            Month {
                year: self.year,
                month: self.month - 1,
            }
        }
    }

    /// `[start, end)` of the month in `tz`, as unix seconds: the first instant of the
    /// month is in, the first instant of the next month is out.
    pub fn range(&self, tz: &TimeZone) -> (i64, i64) {
        let start = start_of_day(self.first_day(), tz);
        let end = start_of_day(self.next().first_day(), tz);
        (start, end)
    }

    /// The month an instant falls in, in `tz`.
    pub fn of(ts: i64, tz: &TimeZone) -> Month {
        let z = to_zoned(ts, tz);
        Month {
            year: z.year(),
            month: z.month(),
        }
    }
}

fn start_of_day(d: Date, tz: &TimeZone) -> i64 {
    d.to_zoned(tz.clone())
        .map(|z| z.timestamp().as_second())
        .unwrap_or(0)
}

impl fmt::Display for Month {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}", self.year, self.month)
    }
}

impl FromStr for Month {
    type Err = TimeError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || TimeError::BadMonth(s.to_string());
        let (y, m) = s.trim().split_once('-').ok_or_else(bad)?;
        if y.len() != 4 || m.len() != 2 {
            return Err(bad());
        }
        let year: i16 = y.parse().map_err(|_| bad())?;
        let month: i8 = m.parse().map_err(|_| bad())?;
        if !(1..=12).contains(&month) || !(1970..=9999).contains(&year) {
            return Err(bad());
        }
        Ok(Month { year, month })
    }
}

/// Parses a time-zone name (`UTC`, `Europe/Berlin`).
pub fn parse_tz(name: &str) -> Result<TimeZone, TimeError> {
    if name.eq_ignore_ascii_case("utc") {
        return Ok(TimeZone::UTC);
    }
    TimeZone::get(name).map_err(|_| TimeError::BadZone(name.to_string()))
}

/// The zone as reports and screens name it: its IANA name (`Europe/Berlin`), else a fixed
/// zone's offset (`+02:00`), else `UTC`. The one naming of a zone, for the CLI and the TUI.
pub fn zone_name(tz: &TimeZone) -> String {
    match tz.iana_name() {
        Some(name) => name.to_string(),
        None => tz
            .to_fixed_offset()
            .map_or_else(|_| "UTC".to_string(), |o| o.to_string()),
    }
}

/// Parses `--now` (RFC 3339) into unix seconds.
pub fn parse_instant(text: &str) -> Result<i64, TimeError> {
    text.trim()
        .parse::<Timestamp>()
        .map(|t| t.as_second())
        .map_err(|_| TimeError::BadInstant(text.to_string()))
}

/// Parses a day `YYYY-MM-DD`.
pub fn parse_day(text: &str) -> Result<Date, TimeError> {
    text.trim()
        .parse::<Date>()
        .map_err(|_| TimeError::BadDay(text.to_string()))
}

/// The wall clock, in unix seconds.
pub fn now_unix() -> i64 {
    Timestamp::now().as_second()
}

fn to_zoned(ts: i64, tz: &TimeZone) -> Zoned {
    Timestamp::from_second(ts)
        .unwrap_or(Timestamp::UNIX_EPOCH)
        .to_zoned(tz.clone())
}

/// ISO 8601 in UTC, to the second: `2026-10-31T23:00:00Z` (the `_utc` export columns).
pub fn iso_utc(ts: i64) -> String {
    iso_utc_inline(ts).to_text()
}

/// [`iso_utc`]'s text made on the stack: what exports use, which write millions of these.
pub fn iso_utc_inline(ts: i64) -> InlineText {
    let mut out = InlineText::new();
    let days = ts.div_euclid(86_400);
    let secs = ts.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    if !(0..=9999).contains(&y) {
        // Years 0000-9999 by arithmetic; the rest as jiff formats them (at most 23 bytes:
        // `-009999-01-01T00:00:00Z`), or nothing past jiff's range.
        if let Ok(t) = Timestamp::from_second(ts) {
            out.push_ascii(t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string().as_bytes());
        }
        return out;
    }
    // Digits into a fixed pattern: no formatting machinery per field.
    let mut text = *b"0000-00-00T00:00:00Z";
    for (at, width, value) in [
        (0, 4, y),
        (5, 2, m),
        (8, 2, d),
        (11, 2, secs / 3600),
        (14, 2, secs % 3600 / 60),
        (17, 2, secs % 60),
    ] {
        let mut v = value;
        for slot in text[at..at + width].iter_mut().rev() {
            *slot = b'0' + (v % 10) as u8;
            v /= 10;
        }
    }
    out.push_ascii(&text);
    out
}

/// The proleptic Gregorian (year, month, day) of a day count from 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// An optional instant as ISO UTC, empty when absent.
pub fn iso_utc_opt(ts: Option<i64>) -> String {
    ts.map(iso_utc).unwrap_or_default()
}

/// The calendar date of an instant in `tz`: `2026-10-31`.
pub fn date_in(ts: i64, tz: &TimeZone) -> String {
    to_zoned(ts, tz).date().to_string()
}

/// An instant as a person reads it next to `now` in `tz`: `07:30` the same day, else
/// `2026-12-04 07:30`.
pub fn clock_in(ts: i64, now: i64, tz: &TimeZone) -> String {
    let at = to_zoned(ts, tz);
    let hhmm = at.strftime("%H:%M").to_string();
    if at.date() == to_zoned(now, tz).date() {
        hhmm
    } else {
        format!("{} {hhmm}", at.date())
    }
}

/// Whole days from `from` to `to` (floor), negative when `to` is earlier.
pub fn days_between(from: i64, to: i64) -> i64 {
    (to - from).div_euclid(86_400)
}

/// Whole calendar months from `from` to `to` in `tz`: the largest n such that adding n
/// months to `from` does not pass `to`. Zero when `to <= from`.
pub fn whole_months_between(from: i64, to: i64, tz: &TimeZone) -> i64 {
    if to <= from {
        return 0;
    }
    let a = to_zoned(from, tz);
    let b = to_zoned(to, tz);
    let mut n = i64::from(b.year() - a.year()) * 12 + i64::from(b.month() - a.month());
    while n > 0 {
        let stepped = a.checked_add(jiff::Span::new().months(n)).ok();
        match stepped {
            Some(s) if s.timestamp() <= b.timestamp() => break,
            _ => n -= 1,
        }
    }
    n.max(0)
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_clock_time_names_the_date_only_when_it_is_not_today() {
        let tz = jiff::tz::TimeZone::UTC;
        let now = super::parse_instant("2026-12-05T10:00:00Z").expect("now");
        let same = super::parse_instant("2026-12-05T07:30:00Z").expect("same day");
        let before = super::parse_instant("2026-12-04T23:59:00Z").expect("day before");
        assert_eq!(super::clock_in(same, now, &tz), "07:30");
        assert_eq!(super::clock_in(before, now, &tz), "2026-12-04 23:59");
    }

    #[test]
    fn zones_are_named_by_iana_name_else_offset() {
        assert_eq!(zone_name(&TimeZone::UTC), "UTC");
        let berlin = parse_tz("Europe/Berlin").expect("zone");
        assert_eq!(zone_name(&berlin), "Europe/Berlin");
        let fixed = TimeZone::fixed(jiff::tz::offset(2));
        assert_eq!(zone_name(&fixed), "+02");
    }

    #[test]
    fn a_month_titles_as_a_reader_names_it() {
        let m: Month = "2026-10".parse().expect("month");
        assert_eq!(m.title(), "October 2026");
        let m: Month = "2025-01".parse().expect("month");
        assert_eq!(m.title(), "January 2025");
    }
    #[test]
    fn iso_utc_agrees_with_jiff_across_the_range() {
        let jiff = |ts: i64| {
            Timestamp::from_second(ts)
                .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
                .unwrap_or_default()
        };
        let mut ts: i64 = -62_167_219_200 - 86_400 * 3; // before 0000-01-01, then on
        let mut step: i64 = 1;
        while ts < 253_402_300_799 + 86_400 * 3 {
            assert_eq!(super::iso_utc(ts), jiff(ts), "{ts}");
            ts += step;
            step = (step * 7 + 13) % 9_999_991 + 1;
        }
        for ts in [
            0,
            -1,
            1_796_040_000,
            951_782_400,
            4_107_542_399,
            i64::MIN,
            i64::MAX,
        ] {
            assert_eq!(super::iso_utc(ts), jiff(ts), "{ts}");
        }
    }

    use super::*;

    #[test]
    fn month_ranges_respect_the_zone() {
        let m: Month = "2026-10".parse().expect("month");
        let (s, e) = m.range(&TimeZone::UTC);
        assert_eq!(iso_utc(s), "2026-10-01T00:00:00Z");
        assert_eq!(iso_utc(e), "2026-11-01T00:00:00Z");
        let berlin = parse_tz("Europe/Berlin").expect("zone");
        let (s, e) = m.range(&berlin);
        assert_eq!(iso_utc(s), "2026-09-30T22:00:00Z");
        assert_eq!(iso_utc(e), "2026-10-31T23:00:00Z");
    }

    #[test]
    fn bad_months_are_refused() {
        for bad in ["2026-13", "2026-0", "26-10", "2026/10", "", "2026-10-01"] {
            assert!(bad.parse::<Month>().is_err(), "{bad}");
        }
        assert_eq!(
            "2026-12".parse::<Month>().map(|m| m.next().to_string()),
            Ok("2027-01".into())
        );
    }

    #[test]
    fn whole_months_count_calendar_months() {
        let tz = TimeZone::UTC;
        let jan31 = parse_instant("2026-01-31T00:00:00Z").expect("t");
        let feb28 = parse_instant("2026-02-28T00:00:00Z").expect("t");
        let mar01 = parse_instant("2026-03-01T00:00:00Z").expect("t");
        let dec15 = parse_instant("2026-12-15T00:00:00Z").expect("t");
        assert_eq!(whole_months_between(jan31, feb28, &tz), 1);
        assert_eq!(whole_months_between(feb28, mar01, &tz), 0);
        assert_eq!(whole_months_between(jan31, dec15, &tz), 10);
        assert_eq!(whole_months_between(dec15, jan31, &tz), 0);
    }

    #[test]
    fn days_between_floors() {
        assert_eq!(days_between(0, 86_399), 0);
        assert_eq!(days_between(0, 86_400 * 31), 31);
        assert_eq!(days_between(86_400, 0), -1);
    }
}
