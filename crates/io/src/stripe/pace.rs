//! The pace controller: how fast a client may send and how many of its requests should
//! be in flight, from what it has seen so far. Pure arithmetic over latencies and
//! instants handed in by the caller (no clock, no IO), so every reaction is unit-tested.
//!
//! - **In flight from the budget** (Little's law): requests in flight = rate x latency.
//!   With the rate the budget and the latency the median of the recent answers, the
//!   target is `ceil(rate * median * HEADROOM)`, bounded by `[MIN_IN_FLIGHT, max]`: at
//!   150 ms and 20 req/s that is 5 in flight, at 1 s and 100 req/s 150. The headroom
//!   covers the spread of latencies around the median; the excess simply waits in the
//!   rate limiter, which keeps the pace.
//! - **429 as congestion** (AIMD): a 429 halves the rate (multiplicative decrease, never
//!   below [`MIN_RATE`]), once per round: a 429 to a request sent before the last
//!   decrease is the same congestion seen late and changes nothing. Every success then
//!   adds [`INCREASE_PER_SECOND`] req/s per second since the last change (additive
//!   increase) until the rate is back at the budget.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// Multiplier of rate x latency: room for answers slower than the median.
pub const HEADROOM: f64 = 1.5;
/// Fewest requests in flight (one chain and a little overlap).
pub const MIN_IN_FLIGHT: usize = 2;
/// The slowest a congested client goes, req/s.
pub const MIN_RATE: f64 = 0.5;
/// Additive increase after a decrease: req/s gained per second without a 429.
pub const INCREASE_PER_SECOND: f64 = 0.25;
/// Multiplicative decrease on a 429.
pub const DECREASE: f64 = 0.5;
/// Latencies remembered for the median.
pub const WINDOW: usize = 32;
/// The latency assumed before any answer came back (real list pages take 300-800 ms).
pub const INITIAL_LATENCY: Duration = Duration::from_millis(300);

/// What a reaction changed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Change {
    /// The rate went down to this many req/s (a 429).
    Slowed(f64),
    /// The rate went up to this many req/s (it is back at the budget when it equals it).
    Recovered(f64),
}

/// The controller of one client (shared by its clones behind a lock).
#[derive(Debug, Clone)]
pub struct Pace {
    /// The configured budget, req/s; `None`: no limit (unthrottled tests).
    budget: Option<f64>,
    rate: f64,
    max_in_flight: usize,
    latencies: VecDeque<Duration>,
    /// When the rate last went down (a 429 to a request sent before it is stale).
    last_decrease: Option<Instant>,
    /// When the additive increase last credited time.
    last_increase: Option<Instant>,
}

impl Pace {
    /// A controller for `budget` req/s (0: no limit) with at most `max_in_flight` at once.
    pub fn new(budget: u32, max_in_flight: usize) -> Self {
        let budget = (budget > 0).then_some(f64::from(budget));
        Self {
            budget,
            rate: budget.unwrap_or(0.0),
            max_in_flight: max_in_flight.max(1),
            latencies: VecDeque::with_capacity(WINDOW),
            last_decrease: None,
            last_increase: None,
        }
    }

    /// The rate now, req/s (`None` without a limit).
    pub fn rate(&self) -> Option<f64> {
        self.budget.map(|_| self.rate)
    }

    pub fn budget(&self) -> Option<f64> {
        self.budget
    }

    /// The median of the recent latencies ([`INITIAL_LATENCY`] before the first).
    pub fn latency(&self) -> Duration {
        if self.latencies.is_empty() {
            return INITIAL_LATENCY;
        }
        let mut sorted: Vec<Duration> = self.latencies.iter().copied().collect();
        sorted.sort_unstable();
        sorted[sorted.len() / 2]
    }

    /// How many requests should be in flight (see the module docs). Without a limit,
    /// the upper bound.
    pub fn in_flight_target(&self) -> usize {
        if self.budget.is_none() {
            return self.max_in_flight;
        }
        let want = (self.rate * self.latency().as_secs_f64() * HEADROOM).ceil();
        // `want` is finite and non-negative; the cast saturates at the bound anyway.
        let want = if want.is_finite() { want as usize } else { 0 };
        want.clamp(MIN_IN_FLIGHT.min(self.max_in_flight), self.max_in_flight)
    }

    /// An answer came back `latency` after it was sent.
    pub fn on_latency(&mut self, latency: Duration) {
        if self.latencies.len() == WINDOW {
            self.latencies.pop_front();
        }
        self.latencies.push_back(latency);
    }

    /// A request succeeded at `now`: the additive increase, if the rate is below the
    /// budget.
    pub fn on_success(&mut self, now: Instant) -> Option<Change> {
        let budget = self.budget?;
        if self.rate >= budget {
            self.last_increase = Some(now);
            return None;
        }
        let since = self
            .last_increase
            .map_or(Duration::ZERO, |t| now.saturating_duration_since(t));
        self.last_increase = Some(now);
        let before = self.rate;
        self.rate = (self.rate + INCREASE_PER_SECOND * since.as_secs_f64()).min(budget);
        // Report whole req/s steps only, so the progress line does not flicker.
        (self.rate.floor() > before.floor() || self.rate >= budget)
            .then_some(Change::Recovered(self.rate))
    }

    /// A request sent at `sent` was answered 429 at `now`: the multiplicative decrease,
    /// unless it was sent before the last one (the same congestion, seen late).
    pub fn on_congestion(&mut self, sent: Instant, now: Instant) -> Option<Change> {
        self.budget?;
        if self.last_decrease.is_some_and(|d| sent < d) {
            return None;
        }
        self.rate = (self.rate * DECREASE).max(MIN_RATE);
        self.last_decrease = Some(now);
        self.last_increase = Some(now);
        Some(Change::Slowed(self.rate))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn at_latency(budget: u32, latency: Duration) -> Pace {
        let mut p = Pace::new(budget, 256);
        for _ in 0..WINDOW {
            p.on_latency(latency);
        }
        p
    }

    #[test]
    fn in_flight_follows_littles_law_with_headroom() {
        // rate x latency x 1.5, rounded up.
        assert_eq!(at_latency(20, ms(150)).in_flight_target(), 5);
        assert_eq!(at_latency(20, ms(300)).in_flight_target(), 9);
        assert_eq!(at_latency(20, ms(600)).in_flight_target(), 18);
        assert_eq!(at_latency(20, ms(1000)).in_flight_target(), 30);
        assert_eq!(at_latency(100, ms(1000)).in_flight_target(), 150);
        assert_eq!(at_latency(100, ms(150)).in_flight_target(), 23);
        // Bounded both ways.
        assert_eq!(at_latency(20, ms(1)).in_flight_target(), MIN_IN_FLIGHT);
        let mut capped = Pace::new(100, 40);
        capped.on_latency(ms(1000));
        assert_eq!(capped.in_flight_target(), 40);
        // Before any answer: the initial guess.
        assert_eq!(Pace::new(20, 256).in_flight_target(), 9);
        // No limit: the bound.
        assert_eq!(Pace::new(0, 8).in_flight_target(), 8);
    }

    #[test]
    fn the_median_ignores_a_few_slow_answers() {
        let mut p = at_latency(20, ms(300));
        for _ in 0..10 {
            p.on_latency(ms(5000));
        }
        assert_eq!(p.latency(), ms(300));
        // The window forgets old answers.
        for _ in 0..WINDOW {
            p.on_latency(ms(600));
        }
        assert_eq!(p.latency(), ms(600));
    }

    #[test]
    fn a_429_halves_the_rate_once_per_round_and_successes_win_it_back() {
        let t0 = Instant::now();
        let mut p = Pace::new(20, 256);
        assert_eq!(p.on_congestion(t0, t0 + ms(10)), Some(Change::Slowed(10.0)));
        // Requests sent before that decrease were answered 429 too: the same congestion.
        assert_eq!(p.on_congestion(t0 + ms(5), t0 + ms(20)), None);
        assert_eq!(p.rate(), Some(10.0));
        // A request sent after it meets congestion again: halve again.
        assert_eq!(
            p.on_congestion(t0 + ms(30), t0 + ms(40)),
            Some(Change::Slowed(5.0))
        );
        // Never below the floor.
        for i in 0..20u64 {
            p.on_congestion(t0 + ms(100 + 20 * i), t0 + ms(110 + 20 * i));
        }
        assert_eq!(p.rate(), Some(MIN_RATE));
        // Additive increase: INCREASE_PER_SECOND per second of successes, counted from
        // the last decrease (at t0 + 490 ms).
        let later = t0 + ms(490);
        p.on_success(later);
        let four_s = p.on_success(later + Duration::from_secs(4));
        assert_eq!(four_s, Some(Change::Recovered(MIN_RATE + 1.0)));
        // Capped at the budget, and reported when it gets there.
        let back = p.on_success(later + Duration::from_secs(1000));
        assert_eq!(back, Some(Change::Recovered(20.0)));
        assert_eq!(p.on_success(later + Duration::from_secs(1001)), None);
    }

    #[test]
    fn without_a_limit_nothing_reacts() {
        let t0 = Instant::now();
        let mut p = Pace::new(0, 8);
        assert_eq!(p.on_congestion(t0, t0), None);
        assert_eq!(p.on_success(t0), None);
        assert_eq!(p.rate(), None);
    }

    proptest! {
        #[test]
        fn the_rate_stays_within_floor_and_budget(
            budget in 1u32..=100,
            events in proptest::collection::vec((any::<bool>(), 0u64..3000), 0..200),
        ) {
            let t0 = Instant::now();
            let mut p = Pace::new(budget, 256);
            let mut now = t0;
            for (congested, gap) in events {
                let sent = now;
                now += ms(gap);
                if congested {
                    p.on_congestion(sent, now);
                } else {
                    p.on_success(now);
                }
                let rate = p.rate().unwrap_or(0.0);
                prop_assert!(rate >= MIN_RATE.min(f64::from(budget)) - 1e-9);
                prop_assert!(rate <= f64::from(budget) + 1e-9);
                let target = p.in_flight_target();
                prop_assert!((MIN_IN_FLIGHT..=256).contains(&target));
            }
        }

        #[test]
        fn in_flight_grows_with_latency_and_budget(
            budget in 1u32..=100,
            a in 1u64..2000,
            b in 1u64..2000,
        ) {
            let (lo, hi) = (a.min(b), a.max(b));
            prop_assert!(at_latency(budget, ms(lo)).in_flight_target()
                <= at_latency(budget, ms(hi)).in_flight_target());
            prop_assert!(at_latency(budget, ms(lo)).in_flight_target()
                <= at_latency((budget + 10).min(100), ms(lo)).in_flight_target());
        }
    }
}
