//! A stateful fake Stripe API server for tests, benches and manual runs.
//!
//! It binds `127.0.0.1` only (port 0 by default) and is test infrastructure: it serves a
//! fixture directory (the bundled demo account by default) through Stripe's real endpoints
//! with real list envelopes, cursors, filters and expansions; answers like Stripe on bad
//! keys (401), missing restricted-key permissions (403 naming the `rak_...` slug), unknown
//! ids (404) and bad parameters (400); accepts one write, an idempotent `POST /v1/refunds`;
//! and injects faults on demand (status codes, slow answers, truncated bodies, connection
//! resets, a token-bucket rate limit). Every request is logged for assertions.
//!
//! ```no_run
//! # async fn demo() {
//! use tieout_testkit::fake_stripe::{FakeConfig, FakeStripe, Fault};
//! let fake = FakeStripe::start(FakeConfig::default().rate_limit(25)).await;
//! fake.inject(Fault::status("/v1/payouts", 500, 2));
//! let url = fake.base_url(); // http://127.0.0.1:<port>
//! # }
//! ```

mod config;
mod errors;
pub mod events;
mod gate;
mod list;
mod log;
mod params;
mod refunds;
mod routes;
mod store;

use std::collections::HashMap;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub use config::{
    AcceptedKeys, FakeConfig, Fault, RateLimit, TEST_KEY, VersionCheck, demo_fixtures,
    mini_fixtures,
};
pub use errors::ApiErr;
pub use log::{AuthSeen, FakeStats, LoggedRequest};
pub use params::{Params, Range};
pub use store::{FixtureError, ObjectKind, Store};

/// The server could not start.
#[derive(Debug, thiserror::Error)]
pub enum FakeError {
    #[error(transparent)]
    Fixtures(#[from] FixtureError),
    #[error("fake Stripe server: cannot listen on 127.0.0.1:{port}: {source}")]
    Bind { port: u16, source: io::Error },
}

/// Locks a mutex, recovering the data if a panicking test thread poisoned it.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A token bucket (`RateLimit`), refilled continuously.
#[derive(Debug, Clone)]
struct Bucket {
    limit: RateLimit,
    tokens: f64,
    last: Instant,
}

impl Bucket {
    fn new(limit: RateLimit) -> Bucket {
        Bucket {
            limit,
            tokens: f64::from(limit.burst.max(1)),
            last: Instant::now(),
        }
    }

    fn take(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        let burst = f64::from(self.limit.burst.max(1));
        self.tokens = (self.tokens + elapsed * f64::from(self.limit.per_second)).min(burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Everything that changes while the server runs.
struct State {
    store: Store,
    cfg: FakeConfig,
    bucket: Option<Bucket>,
    remembered: HashMap<String, refunds::Remembered>,
    created_refunds: Vec<String>,
    stats: FakeStats,
}

/// Shared by the accept loop, every connection and the [`FakeStripe`] handle.
struct Shared {
    state: Mutex<State>,
    log: Mutex<Vec<LoggedRequest>>,
    next_request: AtomicU64,
    /// When the server started ([`LoggedRequest::received_ms`] counts from here).
    started: Instant,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }
}

/// A running fake Stripe server. Dropping it stops the server.
pub struct FakeStripe {
    addr: SocketAddr,
    /// The thread that started it (a test's name under the default test harness).
    owner: String,
    shared: Arc<Shared>,
    stop: Option<watch::Sender<bool>>,
    task: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for FakeStripe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeStripe")
            .field("addr", &self.addr)
            .finish()
    }
}

impl FakeStripe {
    /// Starts a server (inside a tokio runtime). Panics with a clear message when the
    /// fixtures cannot be loaded or the port is taken: it is test infrastructure.
    pub async fn start(cfg: FakeConfig) -> FakeStripe {
        match FakeStripe::try_start(cfg).await {
            Ok(fake) => fake,
            Err(e) => panic!("{e}"),
        }
    }

    /// Starts a server, or says why it could not.
    pub async fn try_start(cfg: FakeConfig) -> Result<FakeStripe, FakeError> {
        let store = Store::load(&cfg.fixtures)?;
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, cfg.port))
            .await
            .map_err(|source| FakeError::Bind {
                port: cfg.port,
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| FakeError::Bind {
            port: cfg.port,
            source,
        })?;
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                store,
                bucket: cfg.rate_limit.map(Bucket::new),
                cfg,
                remembered: HashMap::new(),
                created_refunds: Vec::new(),
                stats: FakeStats::default(),
            }),
            log: Mutex::new(Vec::new()),
            next_request: AtomicU64::new(0),
            started: Instant::now(),
        });
        let router = routes::router(shared.clone());
        let (stop, stopped) = watch::channel(false);
        let task = tokio::spawn(accept_loop(listener, shared.clone(), router, stopped));
        let owner = std::thread::current()
            .name()
            .unwrap_or("unnamed")
            .to_string();
        Ok(FakeStripe {
            addr,
            owner,
            shared,
            stop: Some(stop),
            task: Some(task),
        })
    }

    /// `http://127.0.0.1:<port>` (no trailing slash); paths are `/v1/...`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The `acct_...` id of the served account.
    pub fn account_id(&self) -> String {
        self.shared.state().store.account_id().to_string()
    }

    /// Stops accepting and drops open connections, then waits for the server task.
    pub async fn shutdown(mut self) {
        self.stop.take();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }

    // --- request log and counters ---

    /// Every request so far, in arrival order (completed ones; in-flight ones appear
    /// when answered).
    pub fn requests(&self) -> Vec<LoggedRequest> {
        lock(&self.shared.log).clone()
    }

    /// Forgets the request log and zeroes the counters.
    pub fn clear_requests(&self) {
        lock(&self.shared.log).clear();
        self.shared.state().stats = FakeStats::default();
    }

    pub fn stats(&self) -> FakeStats {
        self.shared.state().stats.clone()
    }

    // --- faults and behaviour, changeable while running ---

    pub fn inject(&self, fault: Fault) {
        self.shared.state().cfg.faults.push(fault);
    }

    pub fn clear_faults(&self) {
        self.shared.state().cfg.faults.clear();
    }

    /// How many injected faults still have shots left.
    pub fn pending_faults(&self) -> usize {
        self.shared
            .state()
            .cfg
            .faults
            .iter()
            .filter(|f| f.times() > 0)
            .count()
    }

    pub fn set_latency(&self, latency: Duration) {
        self.shared.state().cfg.latency = latency;
    }

    /// Sets (or removes) the rate limit; the bucket starts full.
    pub fn set_rate_limit(&self, limit: Option<RateLimit>) {
        let mut st = self.shared.state();
        st.cfg.rate_limit = limit;
        st.bucket = limit.map(Bucket::new);
    }

    pub fn set_refund_status(&self, status: &str) {
        self.shared.state().cfg.refund_status = status.to_string();
    }

    /// Refuse every refund of `charge` from now on, with `message`.
    pub fn decline_refunds_of(&self, charge: &str, message: &str) {
        self.shared
            .state()
            .cfg
            .refund_declines
            .insert(charge.to_string(), message.to_string());
    }

    pub fn set_livemode(&self, livemode: bool) {
        self.shared.state().cfg.livemode = livemode;
    }

    pub fn set_version_check(&self, check: VersionCheck) {
        self.shared.state().cfg.version_check = check;
    }

    pub fn set_accepted_keys(&self, keys: AcceptedKeys) {
        self.shared.state().cfg.accepted_keys = keys;
    }

    /// Takes a permission slug away from a key (its requests needing it get 403).
    pub fn deny(&self, key: &str, slug: &str) {
        self.shared
            .state()
            .cfg
            .denied
            .entry(key.to_string())
            .or_default()
            .insert(slug.to_string());
    }

    /// Gives a denied permission slug back.
    pub fn allow(&self, key: &str, slug: &str) {
        if let Some(set) = self.shared.state().cfg.denied.get_mut(key) {
            set.remove(slug);
        }
    }

    // --- the data ---

    /// Any stored object by id (as currently served, e.g. a charge after a refund).
    pub fn object(&self, id: &str) -> Option<Value> {
        let st = self.shared.state();
        if id == st.store.account_id() {
            return Some(st.store.account.clone());
        }
        st.store.lookup(id).cloned()
    }

    /// Runs `f` on the served account (changes to it are served from the next request
    /// on): the generator's next day ([`crate::generator::next_day`]) goes through here.
    pub fn with_store<T>(&self, f: impl FnOnce(&mut Store) -> T) -> T {
        f(&mut self.shared.state().store)
    }

    /// Inserts or replaces an object (its type comes from its `object` field).
    pub fn put(&self, value: Value) -> Result<ObjectKind, String> {
        self.shared.state().store.put(value)
    }

    /// How many objects of a type are stored.
    pub fn count(&self, kind: ObjectKind) -> usize {
        self.shared.state().store.table(kind).len()
    }

    /// The refunds created through `POST /v1/refunds`, oldest first.
    pub fn created_refunds(&self) -> Vec<Value> {
        let st = self.shared.state();
        st.created_refunds
            .iter()
            .filter_map(|id| st.store.get(ObjectKind::Refund, id).cloned())
            .collect()
    }
}

/// When set, every fake appends its request log to this file as JSON lines when it stops
/// (`{"test", "method", "path", "status"}`), so a CI step can check a whole test run, e.g.
/// that nothing but GET was sent outside the refund tests.
pub const REQUEST_LOG_ENV: &str = "TIEOUT_FAKE_REQUEST_LOG";

impl FakeStripe {
    fn export_log(&self) {
        let Some(path) = std::env::var_os(REQUEST_LOG_ENV) else {
            return;
        };
        let mut lines = String::new();
        for r in lock(&self.shared.log).iter() {
            let line = serde_json::json!({
                "test": self.owner,
                "method": r.method,
                "path": r.path,
                "status": r.status,
            });
            lines.push_str(&line.to_string());
            lines.push('\n');
        }
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| io::Write::write_all(&mut f, lines.as_bytes()));
        if let Err(e) = written {
            eprintln!(
                "fake Stripe server: cannot append the request log to {}: {e}",
                std::path::Path::new(&path).display()
            );
        }
    }
}

impl Drop for FakeStripe {
    fn drop(&mut self) {
        self.export_log();
        // Dropping the sender wakes the accept loop and every connection task.
        self.stop.take();
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// A TCP stream that closes with a reset (SO_LINGER 0) when its flag is set.
struct ResetOnDrop {
    inner: TcpStream,
    reset: Arc<AtomicBool>,
}

impl Drop for ResetOnDrop {
    fn drop(&mut self) {
        if self.reset.load(Ordering::SeqCst) {
            let _ = self.inner.set_zero_linger();
        }
    }
}

impl AsyncRead for ResetOnDrop {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for ResetOnDrop {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

async fn accept_loop(
    listener: TcpListener,
    shared: Arc<Shared>,
    router: axum::Router,
    mut stopped: watch::Receiver<bool>,
) {
    loop {
        let accepted = tokio::select! {
            _ = stopped.changed() => break,
            accepted = listener.accept() => accepted,
        };
        let Ok((stream, _)) = accepted else {
            // Out of file descriptors or similar: back off instead of spinning.
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        let reset = Arc::new(AtomicBool::new(false));
        let io = hyper_util::rt::TokioIo::new(ResetOnDrop {
            inner: stream,
            reset: reset.clone(),
        });
        let shared = shared.clone();
        let router = router.clone();
        let service = hyper::service::service_fn(move |req| {
            gate::handle(shared.clone(), router.clone(), req, reset.clone())
        });
        let mut stopped = stopped.clone();
        tokio::spawn(async move {
            let conn = hyper::server::conn::http1::Builder::new()
                .keep_alive(true)
                .serve_connection(io, service);
            tokio::select! {
                _ = conn => {}
                _ = stopped.changed() => {}
            }
        });
    }
}
