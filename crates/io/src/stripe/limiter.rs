//! Client-side pacing: how fast (a rate limiter whose rate follows [`super::pace`]: the
//! budget, lowered on 429s and won back), how many requests at once (Little's law, from
//! the measured latency), and how patiently (timeouts, retry backoff, and how long a run
//! may go without any success before it gives up).
//!
//! Stripe allows 100 req/s live, 25 in test mode, 25 per endpoint and 20 for search
//! (RULES.md, "Stripe facts"). tieout's default budget is 20 req/s in either mode
//! (`--rate` or the settings file change it, up to the mode's ceiling) and 18 for search
//! endpoints, with a small burst so a fresh client cannot spike past the limit.
//!
//! Two lanes share the budget ([`Lane`]): a request in the foreground lane always gets
//! the next free slot; a background request takes a slot only when no foreground request
//! waits. A sync puts its long page chains (a list read page after page, each page
//! waiting for the one before) in the foreground and its wide fan-outs (one read per
//! payout or per invoice, many at once) in the background, so the fan-outs fill every
//! slot the chains leave free but never make a chain wait behind them: a long list
//! then pages at the speed of the network, not at its share of a crowded queue.

use std::num::NonZeroU32;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};

use super::pace::{Change, Pace};
use tieout_core::model::Mode;

/// Pacing and patience of a [`super::Client`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateConfig {
    /// The budget: requests per second over all endpoints; 0 turns the limiter off. The
    /// client slows below it on 429s and comes back to it ([`super::pace`]).
    pub per_second: u32,
    /// Requests per second to search endpoints (`.../search`), on top of `per_second`;
    /// 0 turns it off.
    pub search_per_second: u32,
    /// The most requests one fan-out keeps in flight ([`super::Client::in_flight`]
    /// follows the measured latency up to this).
    pub max_concurrency: usize,
    /// First retry waits about this long; each further retry doubles it.
    pub backoff_base: Duration,
    /// No retry waits longer than this.
    pub backoff_cap: Duration,
    /// A request that has not completed in this time counts as a network failure.
    pub request_timeout: Duration,
    /// Rate-limited, 5xx and network failures are retried for as long as the client
    /// makes progress; once this long has passed without a single successful request,
    /// the failing request gives up.
    pub give_up_after: Duration,
}

/// Stripe's own ceiling for a mode, req/s: 100 live, 25 in test mode. A budget above it
/// is refused ([`RateConfig::with_budget`]).
pub fn ceiling(mode: Mode) -> u32 {
    match mode {
        Mode::Live => 100,
        Mode::Test => 25,
    }
}

/// The default budget, req/s (both modes: a live account's own integration shares
/// Stripe's 100).
pub const DEFAULT_BUDGET: u32 = 20;
/// How long a run may see no successful request at all before it gives up.
pub const DEFAULT_GIVE_UP_AFTER: Duration = Duration::from_secs(180);

impl RateConfig {
    /// Defaults for a mode: 20 req/s (live and test), 18 for search, in flight from the
    /// latency up to 200, giving up after 3 minutes without a success.
    pub fn for_mode(mode: Mode) -> Self {
        let per_second = match mode {
            Mode::Live => DEFAULT_BUDGET,
            Mode::Test => DEFAULT_BUDGET,
        };
        Self {
            per_second,
            search_per_second: 18,
            max_concurrency: 200,
            backoff_base: Duration::from_millis(500),
            backoff_cap: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            give_up_after: DEFAULT_GIVE_UP_AFTER,
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
            give_up_after: Duration::from_secs(2),
        }
    }

    /// Sets the budget (`--rate`, the settings file), refusing 0 and anything above the
    /// mode's ceiling with a message that says what is allowed.
    pub fn with_budget(mut self, per_second: u32, mode: Mode) -> Result<Self, String> {
        let top = ceiling(mode);
        if per_second == 0 || per_second > top {
            return Err(format!(
                "a rate of {per_second} req/s is not allowed in {} mode: Stripe allows at \
                 most {top} req/s per account there (shared with the account's other \
                 integrations); give 1 to {top}",
                mode.as_str()
            ));
        }
        self.per_second = per_second;
        Ok(self)
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

/// One step of a generic cell rate algorithm at `rate` req/s with a burst of a quarter
/// of it (at least 1): `Ok` takes a slot at `now`, `Err(wait)` says how long until one
/// is free. `tat` is the theoretical arrival time of the next request; the rate may
/// change between calls (the pace follows 429s).
pub fn take_slot(tat: &mut Option<Instant>, now: Instant, rate: f64) -> Result<(), Duration> {
    let rate = rate.max(1e-3);
    let interval = Duration::from_secs_f64(1.0 / rate);
    let burst = (rate / 4.0).floor().max(1.0);
    let tolerance = interval.mul_f64(burst - 1.0);
    let next = tat.map_or(now, |t| t.max(now));
    let ahead = next.saturating_duration_since(now);
    if ahead > tolerance {
        return Err(ahead - tolerance);
    }
    *tat = Some(next + interval);
    Ok(())
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

/// How fast the client goes now, for progress reports.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PaceReport {
    /// The rate now, req/s, and the budget (both 0 without a limit).
    pub per_second: f64,
    pub budget: f64,
    /// The last change was a 429's decrease (still below the budget).
    pub rate_limited: bool,
}

struct PaceState {
    pace: Pace,
    tat: Option<Instant>,
    last_success: Option<Instant>,
}

/// The shared limiters of a client (cloned clients share them).
#[derive(Clone)]
pub struct Limiter {
    state: Arc<Mutex<PaceState>>,
    limited: bool,
    search: Option<Arc<DefaultDirectRateLimiter>>,
    /// Foreground requests waiting for a slot.
    foreground_waiting: Arc<AtomicUsize>,
    reports: Arc<tokio::sync::watch::Sender<PaceReport>>,
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
            .field("limited", &self.limited)
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
        let pace = Pace::new(config.per_second, config.max_concurrency.max(1));
        let report = PaceReport {
            per_second: f64::from(config.per_second),
            budget: f64::from(config.per_second),
            rate_limited: false,
        };
        Self {
            state: Arc::new(Mutex::new(PaceState {
                pace,
                tat: None,
                last_success: None,
            })),
            limited: config.per_second > 0,
            search: limiter(config.search_per_second),
            foreground_waiting: Arc::new(AtomicUsize::new(0)),
            reports: Arc::new(tokio::sync::watch::channel(report).0),
        }
    }

    fn state(&self) -> MutexGuard<'_, PaceState> {
        // A poisoned lock only means another thread panicked mid-update: keep pacing.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A slot now, or how long until the next one.
    fn try_take(&self) -> Result<(), Duration> {
        let mut st = self.state();
        let rate = st.pace.rate().unwrap_or(f64::MAX);
        take_slot(&mut st.tat, Instant::now(), rate)
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
        if !self.limited {
            return;
        }
        let _waiting = (lane == Lane::Foreground).then(|| Waiting::new(&self.foreground_waiting));
        loop {
            if lane == Lane::Background && self.foreground_waiting.load(Ordering::SeqCst) > 0 {
                tokio::time::sleep(self.slot()).await;
                continue;
            }
            match self.try_take() {
                Ok(()) => return,
                Err(wait) => tokio::time::sleep(wait).await,
            }
        }
    }

    /// One slot at the current rate (how long a background request waits before looking
    /// again).
    fn slot(&self) -> Duration {
        let rate = self.state().pace.rate().unwrap_or(1000.0).max(1.0);
        Duration::from_secs_f64(1.0 / rate)
    }

    /// How many requests one fan-out should keep in flight now.
    pub fn in_flight(&self) -> usize {
        self.state().pace.in_flight_target()
    }

    /// The median of the recent latencies (what the in-flight target is computed from).
    pub fn latency(&self) -> Duration {
        self.state().pace.latency()
    }

    /// The rate now and the budget (for progress and benches).
    pub fn report(&self) -> PaceReport {
        *self.reports.borrow()
    }

    /// Every change of pace, as it happens.
    pub fn reports(&self) -> tokio::sync::watch::Receiver<PaceReport> {
        self.reports.subscribe()
    }

    fn publish(&self, st: &PaceState, change: Option<Change>) {
        let Some(change) = change else { return };
        let report = PaceReport {
            per_second: st.pace.rate().unwrap_or(0.0),
            budget: st.pace.budget().unwrap_or(0.0),
            rate_limited: matches!(change, Change::Slowed(_)) || st.pace.rate() < st.pace.budget(),
        };
        self.reports.send_replace(report);
    }

    /// A request sent at `sent` succeeded now.
    pub fn succeeded(&self, sent: Instant) {
        let now = Instant::now();
        let mut st = self.state();
        st.pace.on_latency(now.saturating_duration_since(sent));
        st.last_success = Some(now);
        let change = st.pace.on_success(now);
        self.publish(&st, change);
    }

    /// A request sent at `sent` was answered 429 now.
    pub fn rate_limited(&self, sent: Instant) {
        let mut st = self.state();
        let change = st.pace.on_congestion(sent, Instant::now());
        if let Some(Change::Slowed(rate)) = change {
            tracing::info!(rate, "Stripe answered 429: slowing down");
        }
        self.publish(&st, change);
    }

    /// The last time any request of this client succeeded.
    pub fn last_success(&self) -> Option<Instant> {
        self.state().last_success
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
        let t0 = Instant::now();
        let mut tat = None;
        let granted = (0..20)
            .filter(|_| take_slot(&mut tat, t0, 20.0).is_ok())
            .count();
        assert_eq!(granted, 5, "a fresh limiter grants only its burst at once");
        // One second later, 20 more cells have been earned but only the burst is usable.
        let t1 = t0 + Duration::from_secs(1);
        let granted = (0..40)
            .filter(|_| take_slot(&mut tat, t1, 20.0).is_ok())
            .count();
        assert_eq!(granted, 5);
        // Over a steady second, 20 requests pass: one per 50 ms.
        let steady = (1..=20u32)
            .filter(|i| take_slot(&mut tat, t1 + Duration::from_millis(50) * *i, 20.0).is_ok())
            .count();
        assert_eq!(steady, 20);
        // A lower rate (after a 429) spaces the slots out at once.
        let t2 = t1 + Duration::from_secs(2);
        let mut tat = None;
        assert!(take_slot(&mut tat, t2, 2.0).is_ok());
        let wait = take_slot(&mut tat, t2, 2.0).expect_err("one slot per 500 ms");
        assert_eq!(wait, Duration::from_millis(500));
        assert!(limiter(0).is_none());
    }

    #[test]
    fn budgets_above_stripes_ceilings_are_refused() {
        let c = RateConfig::for_mode(Mode::Test);
        assert_eq!(
            c.clone().with_budget(25, Mode::Test).map(|c| c.per_second),
            Ok(25)
        );
        let err = c.clone().with_budget(26, Mode::Test).expect_err("above 25");
        assert!(err.contains("at most 25 req/s"), "{err}");
        assert_eq!(
            c.clone().with_budget(100, Mode::Live).map(|c| c.per_second),
            Ok(100)
        );
        assert!(c.clone().with_budget(101, Mode::Live).is_err());
        assert!(c.with_budget(0, Mode::Live).is_err());
    }
}
