//! When to retry a read and how long to wait first.
//!
//! Every request tieout sends is a GET, so repeating one is always safe. Retried:
//! 429, 409, 5xx, connection failures and timeouts, and 2xx answers whose body was cut
//! short or is not JSON. `Stripe-Should-Retry` overrides the status: `false` never
//! retries, `true` always does (within the attempt budget). Waits grow exponentially,
//! `min(base * 2^(n-1), cap)`, jittered into `[x/2, x]` so parallel clients spread out;
//! a `Retry-After` (seconds) makes the wait at least that long.

use std::time::Duration;

use rand::Rng;

/// Whether an error answer with `status` (and the `Stripe-Should-Retry` header, when
/// sent) is worth another attempt.
pub fn should_retry_status(status: u16, should_retry: Option<bool>) -> bool {
    match should_retry {
        Some(verdict) => verdict,
        None => status == 429 || status == 409 || status >= 500,
    }
}

/// Parses `Stripe-Should-Retry` (`true`/`false`; anything else counts as absent).
pub fn parse_should_retry(value: Option<&str>) -> Option<bool> {
    match value.map(str::trim) {
        Some(v) if v.eq_ignore_ascii_case("true") => Some(true),
        Some(v) if v.eq_ignore_ascii_case("false") => Some(false),
        _ => None,
    }
}

/// Parses `Retry-After` in seconds (`"2"`, `"0.5"`); an HTTP date or anything else
/// counts as absent (Stripe does not document the header; the backoff applies).
pub fn parse_retry_after(value: Option<&str>) -> Option<Duration> {
    let secs: f64 = value?.trim().parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(86_400.0)))
}

/// The un-jittered wait before retry number `retry` (1 for the first retry).
pub fn backoff_ceiling(retry: u32, base: Duration, cap: Duration) -> Duration {
    let factor = 2u32.saturating_pow(retry.saturating_sub(1).min(30));
    base.saturating_mul(factor).min(cap)
}

/// The wait before retry number `retry`: the ceiling jittered into `[x/2, x]`.
pub fn backoff(retry: u32, base: Duration, cap: Duration) -> Duration {
    let ceiling = backoff_ceiling(retry, base, cap);
    let half = ceiling / 2;
    let spread = ceiling.saturating_sub(half);
    let nanos = u64::try_from(spread.as_nanos()).unwrap_or(u64::MAX);
    let extra = if nanos == 0 {
        0
    } else {
        rand::rng().random_range(0..=nanos)
    };
    half + Duration::from_nanos(extra)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_worth_retrying() {
        for s in [429, 409, 500, 502, 503, 504] {
            assert!(should_retry_status(s, None), "{s}");
        }
        for s in [400, 401, 402, 403, 404] {
            assert!(!should_retry_status(s, None), "{s}");
        }
        assert!(!should_retry_status(503, Some(false)));
        assert!(!should_retry_status(429, Some(false)));
        assert!(should_retry_status(400, Some(true)));
    }

    #[test]
    fn retry_after_in_seconds() {
        assert_eq!(parse_retry_after(Some("2")), Some(Duration::from_secs(2)));
        assert_eq!(
            parse_retry_after(Some(" 0.5 ")),
            Some(Duration::from_millis(500))
        );
        assert_eq!(
            parse_retry_after(Some("Wed, 21 Oct 2026 07:28:00 GMT")),
            None
        );
        assert_eq!(parse_retry_after(Some("-1")), None);
        assert_eq!(parse_retry_after(None), None);
    }

    #[test]
    fn header_parsing() {
        assert_eq!(parse_should_retry(Some("true")), Some(true));
        assert_eq!(parse_should_retry(Some(" False ")), Some(false));
        assert_eq!(parse_should_retry(Some("maybe")), None);
        assert_eq!(parse_should_retry(None), None);
    }

    #[test]
    fn backoff_doubles_up_to_the_cap_and_jitters_within_half() {
        let base = Duration::from_millis(500);
        let cap = Duration::from_secs(5);
        let ceilings: Vec<u128> = (1..=6)
            .map(|n| backoff_ceiling(n, base, cap).as_millis())
            .collect();
        assert_eq!(ceilings, vec![500, 1000, 2000, 4000, 5000, 5000]);
        for n in 1..=8 {
            let x = backoff_ceiling(n, base, cap);
            for _ in 0..50 {
                let d = backoff(n, base, cap);
                assert!(
                    d >= x / 2 && d <= x,
                    "retry {n}: {d:?} outside [{:?}, {x:?}]",
                    x / 2
                );
            }
        }
        assert_eq!(
            backoff_ceiling(u32::MAX, base, cap),
            cap,
            "huge retry counts do not overflow"
        );
    }
}
