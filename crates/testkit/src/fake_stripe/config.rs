//! What a fake server serves and how it misbehaves: fixtures, accepted keys, denied
//! permissions, the `Stripe-Version` check, latency, a rate limit, refund outcomes and
//! injected faults. Everything here can also be changed while the server runs (see the
//! setters on [`super::FakeStripe`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;

/// A recognisable restricted test key the fake accepts by default (any `rk_test_`/`sk_test_`
/// key is accepted unless [`FakeConfig::accept_only`] says otherwise).
pub const TEST_KEY: &str = "rk_test_51TieoutFakeKey0000000000000000000000000abcd";

/// The fixture set used by default: the bundled demo account (`fixtures/demo`).
pub fn demo_fixtures() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/demo"))
}

/// A small hand-made fixture set with known contents, for the fake's own tests.
pub fn mini_fixtures() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/fake_mini"
    ))
}

/// Which `Authorization: Bearer` keys are accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AcceptedKeys {
    /// Any key starting with `rk_test_` or `sk_test_`.
    AnyTestKey,
    /// Exactly these keys (may include live-looking keys for livemode tests).
    Only(BTreeSet<String>),
}

impl AcceptedKeys {
    pub fn accepts(&self, key: &str) -> bool {
        match self {
            AcceptedKeys::AnyTestKey => {
                (key.starts_with("rk_test_") || key.starts_with("sk_test_")) && key.len() > 8
            }
            AcceptedKeys::Only(keys) => keys.contains(key),
        }
    }
}

/// What the server does with the `Stripe-Version` request header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionCheck {
    /// Accept requests with or without it (real Stripe's behaviour).
    Ignore,
    /// Answer 400 to a request that has no `Stripe-Version` (proves the client sends it).
    Required,
    /// Answer 400 unless the header equals this version.
    Exactly(String),
}

/// A fault to inject. Faults match on a path prefix (`""` matches every path) and fire
/// `times` times (use [`Fault::ALWAYS`] for "until cleared"); the first matching fault with
/// remaining shots decides, except `Slow`, whose delays add up and let the request go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// Answer `status` with a Stripe error body. For 429 the response carries
    /// `Stripe-Rate-Limited-Reason: endpoint-rate` and `code: rate_limit`.
    /// `should_retry`: `Some(b)` sends `Stripe-Should-Retry: b`, `None` sends no header.
    Status {
        path_prefix: String,
        status: u16,
        times: u32,
        should_retry: Option<bool>,
    },
    /// A 429 `lock_timeout` (object lock contention): no `Stripe-Rate-Limited-Reason`.
    LockTimeout { path_prefix: String, times: u32 },
    /// Delay matching requests by `delay` before answering them normally.
    Slow {
        path_prefix: String,
        delay: Duration,
        times: u32,
    },
    /// Answer normally but cut the body in half (the status stays as it was, e.g. 200).
    Truncate { path_prefix: String, times: u32 },
    /// Close the connection with a TCP reset and no response at all.
    Reset { path_prefix: String, times: u32 },
    /// Answer `status` (a Stripe error body, no `Stripe-Should-Retry`) to every `n`th
    /// matching request that passed the rate limit (the `n`th, `2n`th, ...); `seen`
    /// counts them. `times` bounds the firings.
    Every {
        path_prefix: String,
        n: u32,
        status: u16,
        seen: u32,
        times: u32,
    },
}

impl Fault {
    /// `times` value for a fault that fires until cleared.
    pub const ALWAYS: u32 = u32::MAX;

    /// Shorthand: `status` on `path_prefix`, `times` times, no `Stripe-Should-Retry`.
    pub fn status(path_prefix: &str, status: u16, times: u32) -> Fault {
        Fault::Status {
            path_prefix: path_prefix.to_string(),
            status,
            times,
            should_retry: None,
        }
    }

    /// Shorthand: `status` on every `n`th request to any path, until cleared.
    pub fn every(n: u32, status: u16) -> Fault {
        Fault::Every {
            path_prefix: String::new(),
            n,
            status,
            seen: 0,
            times: Fault::ALWAYS,
        }
    }

    /// Whether a request is one this fault hits: its path starts with the prefix; a prefix
    /// with `?` (`/v1/charges?customer=cus_1`) also needs the query to contain what follows
    /// the `?` (to fail one ticket's lookups and not the others').
    pub fn matches(&self, path: &str, query: &str) -> bool {
        match self.path_prefix().split_once('?') {
            Some((p, q)) => path.starts_with(p) && query.split('&').any(|pair| pair == q),
            None => path.starts_with(self.path_prefix()),
        }
    }

    pub fn path_prefix(&self) -> &str {
        match self {
            Fault::Status { path_prefix, .. }
            | Fault::LockTimeout { path_prefix, .. }
            | Fault::Slow { path_prefix, .. }
            | Fault::Truncate { path_prefix, .. }
            | Fault::Reset { path_prefix, .. }
            | Fault::Every { path_prefix, .. } => path_prefix,
        }
    }

    /// Shots left.
    pub fn times(&self) -> u32 {
        match self {
            Fault::Status { times, .. }
            | Fault::LockTimeout { times, .. }
            | Fault::Slow { times, .. }
            | Fault::Truncate { times, .. }
            | Fault::Reset { times, .. }
            | Fault::Every { times, .. } => *times,
        }
    }

    pub(crate) fn times_mut(&mut self) -> &mut u32 {
        match self {
            Fault::Status { times, .. }
            | Fault::LockTimeout { times, .. }
            | Fault::Slow { times, .. }
            | Fault::Truncate { times, .. }
            | Fault::Reset { times, .. }
            | Fault::Every { times, .. } => times,
        }
    }

    /// A short label for the request log (`"status 429"`, `"reset"`, ...).
    pub fn label(&self) -> String {
        match self {
            Fault::Status { status, .. } => format!("status {status}"),
            Fault::LockTimeout { .. } => "lock_timeout".to_string(),
            Fault::Slow { delay, .. } => format!("slow {}ms", delay.as_millis()),
            Fault::Truncate { .. } => "truncate".to_string(),
            Fault::Reset { .. } => "reset".to_string(),
            Fault::Every { status, n, .. } => format!("status {status} (every {n})"),
        }
    }
}

/// A token-bucket limit on the whole server: `per_second` tokens refill each second,
/// at most `burst` are held; a request that finds no token gets a 429.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    pub per_second: u32,
    pub burst: u32,
}

impl RateLimit {
    /// `per_second` requests a second with a burst of one second's worth.
    pub fn per_second(per_second: u32) -> RateLimit {
        RateLimit {
            per_second,
            burst: per_second.max(1),
        }
    }
}

/// Everything a fake server is started with. `FakeConfig::default()` serves the demo
/// fixtures (`fixtures/demo`) to any test key, requires `Stripe-Version`, and injects nothing.
#[derive(Debug, Clone)]
pub struct FakeConfig {
    /// Fixture directory (see TEAM.md "Demo fixtures"); missing files mean empty lists.
    pub fixtures: PathBuf,
    /// Port on 127.0.0.1; 0 (the default) picks a free one.
    pub port: u16,
    pub accepted_keys: AcceptedKeys,
    /// Per key: permission slugs (`rak_payout_read`, ...) it lacks, answered with 403.
    /// The key `"*"` applies to every key.
    pub denied: BTreeMap<String, BTreeSet<String>>,
    /// Whether restricted (`rk_`) keys may read `GET /v1/account` (real Stripe: no).
    pub account_readable_by_restricted_keys: bool,
    pub version_check: VersionCheck,
    /// Added to every request before it is answered.
    pub latency: Duration,
    pub rate_limit: Option<RateLimit>,
    /// Status given to refunds created by `POST /v1/refunds`: `succeeded` (default),
    /// `pending`, `requires_action`, `failed` or `canceled`.
    pub refund_status: String,
    /// Charges whose refund `POST /v1/refunds` refuses, with the message Stripe's error
    /// carries (code `charge_expired_for_refund`): one refund of a batch failing.
    pub refund_declines: BTreeMap<String, String>,
    /// Make every object in responses say `livemode: true`.
    pub livemode: bool,
    pub faults: Vec<Fault>,
    /// Print one line per request to stderr (`req_fake_3 GET /v1/payouts?limit=100 -> 200`).
    pub echo_requests: bool,
}

impl Default for FakeConfig {
    fn default() -> Self {
        FakeConfig {
            fixtures: demo_fixtures(),
            port: 0,
            accepted_keys: AcceptedKeys::AnyTestKey,
            denied: BTreeMap::new(),
            account_readable_by_restricted_keys: false,
            version_check: VersionCheck::Required,
            latency: Duration::ZERO,
            rate_limit: None,
            refund_status: "succeeded".to_string(),
            refund_declines: BTreeMap::new(),
            livemode: false,
            faults: Vec::new(),
            echo_requests: false,
        }
    }
}

impl FakeConfig {
    /// The default config over the small known fixture set (`tests/fixtures/fake_mini`).
    pub fn mini() -> FakeConfig {
        FakeConfig::default().fixtures(mini_fixtures())
    }

    pub fn fixtures(mut self, dir: impl Into<PathBuf>) -> Self {
        self.fixtures = dir.into();
        self
    }

    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// Accept only these keys (instead of any test key).
    pub fn accept_only<I, S>(mut self, keys: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.accepted_keys = AcceptedKeys::Only(keys.into_iter().map(Into::into).collect());
        self
    }

    /// Let `key` (`"*"`: every key) lack these permission slugs (requests needing one
    /// get 403).
    pub fn deny<I, S>(mut self, key: &str, slugs: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.denied
            .entry(key.to_string())
            .or_default()
            .extend(slugs.into_iter().map(Into::into));
        self
    }

    pub fn account_readable_by_restricted_keys(mut self, yes: bool) -> Self {
        self.account_readable_by_restricted_keys = yes;
        self
    }

    pub fn version_check(mut self, check: VersionCheck) -> Self {
        self.version_check = check;
        self
    }

    pub fn latency(mut self, latency: Duration) -> Self {
        self.latency = latency;
        self
    }

    pub fn rate_limit(mut self, per_second: u32) -> Self {
        self.rate_limit = Some(RateLimit::per_second(per_second));
        self
    }

    pub fn refund_status(mut self, status: &str) -> Self {
        self.refund_status = status.to_string();
        self
    }

    /// Refuse refunds of `charge` with `message` (see [`FakeConfig::refund_declines`]).
    pub fn decline_refunds_of(mut self, charge: &str, message: &str) -> Self {
        self.refund_declines
            .insert(charge.to_string(), message.to_string());
        self
    }

    pub fn livemode(mut self, livemode: bool) -> Self {
        self.livemode = livemode;
        self
    }

    pub fn fault(mut self, fault: Fault) -> Self {
        self.faults.push(fault);
        self
    }
}
