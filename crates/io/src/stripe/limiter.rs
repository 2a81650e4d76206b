//! Client-side pacing: how fast (a governor rate limiter per bucket, below Stripe's own
//! limits), how many requests at once, and how patiently (timeouts and retry backoff).
//!
//! Stripe allows 100 req/s live, 25 in test mode, 25 per endpoint and 20 for search
//! (ARCHITECTURE.md, "Stripe facts"). tieout stays below: 20 req/s overall in either mode and 18
//! for search endpoints, with a small burst so a fresh client cannot spike past the limit.
//!
//! Two lanes share the budget ([`Lane`]): a request in the foreground lane always gets
//! the next free slot; a background request takes a slot only when no foreground request
//! waits. A sync puts its long page chains (a list read page after page, each page
//! waiting for the one before) in the foreground and its wide fan-outs (one read per
//! payout or per invoice, many at once) in the background, so the fan-outs fill every
//! slot the chains leave free but never make a chain wait behind them: a long list
//! then pages at the speed of the network, not at its share of a crowded queue.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};

use crate::source::Mode;

/// Pacing and patience of a [`super::Client`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateConfig {
    /// Requests per second over all endpoints; 0 turns the limiter off.
    pub per_second: u32,
    /// Requests per second to search endpoints (`.../search`), on top of `per_second`;
    /// 0 turns it off.
    pub search_per_second: u32,
    /// How many independent requests callers should run at once
    /// ([`super::Client::max_concurrency`]).
    pub max_concurrency: usize,
    /// First retry waits about this long; each further retry doubles it.
    pub backoff_base: Duration,
    /// No retry waits longer than this.
    pub backoff_cap: Duration,
    /// A request that has not completed in this time counts as a network failure.
    pub request_timeout: Duration,
}

impl RateConfig {
    /// Defaults for a mode: 20 req/s (live and test), 18 for search, 8 at once.
    pub fn for_mode(mode: Mode) -> Self {
        let per_second = match mode {
            Mode::Live => 20,
            Mode::Test => 20,
        };
        Self {
            per_second,
            search_per_second: 18,
            max_concurrency: 8,
            backoff_base: Duration::from_millis(500),
            backoff_cap: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
        }
    }

    /// No pacing and near-instant retries: for tests against a loopback server.
    pub fn unthrottled() -> Self {
        Self {
            per_second: 0,
            search_per_second: 0,
            max_concurrency: 8,
            backoff_base: Duration::from_millis(1),
            backoff_cap: Duration::from_millis(5),
            request_timeout: Duration::from_secs(10),
        }
    }
}

impl Default for RateConfig {
    fn default() -> Self {
        Self::for_mode(Mode::Test)
    }
}

/// The quota for a rate: `per_second`, with a burst of a quarter of it (at least 1), so
/// the first second can never see much more than 1.25x the rate. None for 0 (no limit).
fn quota(per_second: u32) -> Option<Quota> {
    let rate = NonZeroU32::new(per_second)?;
    let burst = NonZeroU32::new((per_second / 4).max(1)).unwrap_or(NonZeroU32::MIN);
    Some(Quota::per_second(rate).allow_burst(burst))
}

fn limiter(per_second: u32) -> Option<Arc<DefaultDirectRateLimiter>> {
    quota(per_second).map(|q| Arc::new(RateLimiter::direct(q)))
}

/// Which requests get a free slot first (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lane {
    /// Gets the next free slot.
    #[default]
    Foreground,
    /// Gets a slot only when no foreground request is waiting.
    Background,
}

/// The shared limiters of a client (cloned clients share them).
#[derive(Clone)]
pub struct Limiter {
    all: Option<Arc<DefaultDirectRateLimiter>>,
    search: Option<Arc<DefaultDirectRateLimiter>>,
    /// Foreground requests waiting for a slot of `all`.
    foreground_waiting: Arc<AtomicUsize>,
    /// One slot of `all` (how long a background request waits before looking again).
    slot: Duration,
}

/// Counts a waiting foreground request for as long as it lives (a dropped request stops
/// counting too).
struct Waiting<'a>(&'a AtomicUsize);

impl<'a> Waiting<'a> {
    fn new(count: &'a AtomicUsize) -> Self {
        count.fetch_add(1, Ordering::SeqCst);
        Waiting(count)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl std::fmt::Debug for Limiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Limiter")
            .field("all", &self.all.is_some())
            .field("search", &self.search.is_some())
            .finish()
    }
}

/// Whether `path` is a search endpoint (`/v1/customers/search`, ...).
pub fn is_search(path: &str) -> bool {
    path.trim_end_matches('/').ends_with("/search")
}

impl Limiter {
    pub fn new(config: &RateConfig) -> Self {
        Self {
            all: limiter(config.per_second),
            search: limiter(config.search_per_second),
            foreground_waiting: Arc::new(AtomicUsize::new(0)),
            slot: Duration::from_secs(1) / config.per_second.max(1),
        }
    }

    /// Waits until a request to `path` may be sent (foreground lane).
    pub async fn until_ready(&self, path: &str) {
        self.until_ready_in(path, Lane::Foreground).await;
    }

    /// Waits until a request to `path` in `lane` may be sent.
    pub async fn until_ready_in(&self, path: &str, lane: Lane) {
        if is_search(path)
            && let Some(search) = &self.search
        {
            search.until_ready().await;
        }
        let Some(all) = &self.all else { return };
        match lane {
            Lane::Foreground => {
                let _waiting = Waiting::new(&self.foreground_waiting);
                all.until_ready().await;
            }
            Lane::Background => loop {
                if self.foreground_waiting.load(Ordering::SeqCst) > 0 {
                    tokio::time::sleep(self.slot).await;
                    continue;
                }
                match all.check() {
                    Ok(()) => return,
                    Err(not_until) => {
                        let wait = not_until.wait_time_from(DefaultClock::default().now());
                        tokio::time::sleep(wait).await;
                    }
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_stay_below_stripes_limits() {
        for mode in [Mode::Live, Mode::Test] {
            let c = RateConfig::for_mode(mode);
            assert_eq!(c.per_second, 20);
            assert_eq!(c.search_per_second, 18);
            assert!(c.max_concurrency >= 1);
        }
        assert_eq!(RateConfig::default(), RateConfig::for_mode(Mode::Test));
    }

    #[tokio::test]
    async fn foreground_requests_never_wait_behind_background_ones() {
        let config = RateConfig {
            per_second: 50,
            ..RateConfig::unthrottled()
        };
        let limiter = Limiter::new(&config);
        let background_sent = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        // Ten background requesters take every slot they can get.
        let mut tasks = Vec::new();
        for _ in 0..10 {
            let (limiter, sent, stop) = (limiter.clone(), background_sent.clone(), stop.clone());
            tasks.push(tokio::spawn(async move {
                while !stop.load(Ordering::SeqCst) {
                    limiter
                        .until_ready_in("/v1/payment_intents/pi_1", Lane::Background)
                        .await;
                    sent.fetch_add(1, Ordering::SeqCst);
                }
            }));
        }
        // Let them use up the burst, then page a list of 10 pages in the foreground.
        while background_sent.load(Ordering::SeqCst) < 12 {
            tokio::task::yield_now().await;
        }
        let before = background_sent.load(Ordering::SeqCst);
        for _ in 0..10 {
            limiter
                .until_ready_in("/v1/charges", Lane::Foreground)
                .await;
        }
        let meanwhile = background_sent.load(Ordering::SeqCst) - before;
        stop.store(true, Ordering::SeqCst);
        for t in tasks {
            t.abort();
        }
        // With one shared queue the ten pages would have waited behind ~ten background
        // requests each (~100); the foreground takes each next slot instead.
        assert!(
            meanwhile <= 5,
            "{meanwhile} background requests got in between"
        );
        assert_eq!(limiter.foreground_waiting.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn search_paths_are_recognised() {
        assert!(is_search("/v1/customers/search"));
        assert!(is_search("/v1/charges/search/"));
        assert!(!is_search("/v1/customers"));
        assert!(!is_search("/v1/researchers"));
    }

    #[test]
    fn burst_is_bounded_and_refills_at_the_rate() {
        use governor::clock::FakeRelativeClock;
        let clock = FakeRelativeClock::default();
        let l = RateLimiter::direct_with_clock(quota(20).expect("quota"), clock.clone());
        let granted = (0..20).filter(|_| l.check().is_ok()).count();
        assert_eq!(granted, 5, "a fresh limiter grants only its burst at once");
        // One second later, 20 more cells have been earned but only the burst is usable.
        clock.advance(Duration::from_secs(1));
        let granted = (0..40).filter(|_| l.check().is_ok()).count();
        assert_eq!(granted, 5);
        // Over a steady second, 20 requests pass: one per 50 ms.
        let mut steady = 0;
        for _ in 0..20 {
            clock.advance(Duration::from_millis(50));
            if l.check().is_ok() {
                steady += 1;
            }
        }
        assert_eq!(steady, 20);
        assert!(limiter(0).is_none());
    }
}
