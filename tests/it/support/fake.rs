//! Starting the fake Stripe server from tests, and raw requests to it.
//!
//! Async tests (`#[tokio::test]`) call `FakeStripe::start(cfg).await` directly. Sync tests
//! (e.g. ones that run the `tieout` binary) use [`start_fake`], which runs the server on a
//! runtime of its own that lives as long as the returned handle.

use std::ops::Deref;

use serde_json::Value;
use tieout_testkit::fake_stripe::{FakeConfig, FakeStripe, TEST_KEY};

use super::STRIPE_VERSION;

/// A fake server with the runtime it runs on. Derefs to [`FakeStripe`].
pub struct RunningFake {
    fake: Option<FakeStripe>,
    rt: Option<tokio::runtime::Runtime>,
}

impl RunningFake {
    /// The runtime the server runs on (e.g. to `block_on` a reqwest call).
    pub fn rt(&self) -> &tokio::runtime::Runtime {
        self.rt
            .as_ref()
            .expect("runtime lives as long as the handle")
    }

    /// A GET with the test key and `Stripe-Version`, from sync code.
    pub fn get(&self, path_and_query: &str) -> (u16, Value) {
        let base = self.base_url();
        self.rt().block_on(async {
            let resp = StripeReq::get(&base, path_and_query).send().await;
            (resp.status, resp.json)
        })
    }
}

impl Deref for RunningFake {
    type Target = FakeStripe;
    fn deref(&self) -> &FakeStripe {
        self.fake
            .as_ref()
            .expect("server lives as long as the handle")
    }
}

impl Drop for RunningFake {
    fn drop(&mut self) {
        if let (Some(fake), Some(rt)) = (self.fake.take(), self.rt.as_ref()) {
            rt.block_on(fake.shutdown());
        }
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}

/// Starts a fake server on its own two-thread runtime, for sync tests.
pub fn start_fake(cfg: FakeConfig) -> RunningFake {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime for the fake server");
    let fake = rt.block_on(FakeStripe::start(cfg));
    RunningFake {
        fake: Some(fake),
        rt: Some(rt),
    }
}

/// One HTTP client for all tests (building one loads TLS roots, which is slow). It keeps
/// no idle connections, so nothing outlives the runtime of the test that opened it.
fn http() -> &'static reqwest::Client {
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    CLIENT.get_or_init(|| {
        tieout_io::stripe::tls::client_builder()
            .pool_max_idle_per_host(0)
            .no_proxy()
            .build()
            .expect("an HTTP client")
    })
}

/// A raw request to the fake, with the test key and `Stripe-Version` by default.
#[derive(Debug, Clone)]
pub struct StripeReq {
    method: reqwest::Method,
    url: String,
    key: Option<String>,
    version: Option<String>,
    headers: Vec<(String, String)>,
    form: Vec<(String, String)>,
}

/// What came back.
#[derive(Debug, Clone)]
pub struct StripeResp {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
    /// The body parsed as JSON (`Value::Null` when it is not JSON).
    pub json: Value,
}

impl StripeResp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// `error.message` of a Stripe error body.
    pub fn error_message(&self) -> &str {
        self.json["error"]["message"].as_str().unwrap_or_default()
    }

    /// The ids in a list's `data`.
    pub fn ids(&self) -> Vec<String> {
        self.json["data"]
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .filter_map(|v| v["id"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }
}

impl StripeReq {
    pub fn get(base_url: &str, path_and_query: &str) -> StripeReq {
        StripeReq::new(reqwest::Method::GET, base_url, path_and_query)
    }

    pub fn post(base_url: &str, path: &str) -> StripeReq {
        StripeReq::new(reqwest::Method::POST, base_url, path)
    }

    pub fn new(method: reqwest::Method, base_url: &str, path_and_query: &str) -> StripeReq {
        StripeReq {
            method,
            url: format!("{base_url}{path_and_query}"),
            key: Some(TEST_KEY.to_string()),
            version: Some(STRIPE_VERSION.to_string()),
            headers: Vec::new(),
            form: Vec::new(),
        }
    }

    /// Use another key (`None`: no Authorization header).
    pub fn key(mut self, key: Option<&str>) -> Self {
        self.key = key.map(str::to_string);
        self
    }

    /// Send another `Stripe-Version` (`None`: no header).
    pub fn version(mut self, version: Option<&str>) -> Self {
        self.version = version.map(str::to_string);
        self
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    pub fn form(mut self, name: &str, value: &str) -> Self {
        self.form.push((name.to_string(), value.to_string()));
        self
    }

    /// Sends and reads the whole answer; panics on a transport error.
    pub async fn send(self) -> StripeResp {
        match self.try_send().await {
            Ok(resp) => resp,
            Err(e) => panic!("request failed: {e}"),
        }
    }

    /// Sends and reads the whole answer, or the transport error (reset, ...).
    pub async fn try_send(self) -> Result<StripeResp, reqwest::Error> {
        let mut req = http().request(self.method, &self.url);
        if let Some(key) = &self.key {
            req = req.bearer_auth(key);
        }
        if let Some(v) = &self.version {
            req = req.header("Stripe-Version", v);
        }
        for (k, v) in &self.headers {
            req = req.header(k, v);
        }
        if !self.form.is_empty() {
            let body: String = form_urlencoded::Serializer::new(String::new())
                .extend_pairs(&self.form)
                .finish();
            req = req
                .header("Content-Type", "application/x-www-form-urlencoded")
                .body(body);
        }
        let resp = req.send().await?;
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let text = resp.text().await?;
        let json = serde_json::from_str(&text).unwrap_or(Value::Null);
        Ok(StripeResp {
            status,
            headers,
            text,
            json,
        })
    }
}

/// The demo's fake-Stripe fixtures with one line taken out of a tied October 2026 payout's
/// `?payout=` listing, so that payout no longer ties out: the fixture folder, the payout's
/// id, and the line that went missing.
pub fn demo_fixtures_missing_one_line() -> (
    tempfile::TempDir,
    String,
    tieout::model::rows::BalanceTxnRow,
) {
    use tieout::domain::tieout::{Verdict, tie_out_month};

    let data = tieout::source::demo::load_demo().expect("demo");
    let month: tieout::time::Month = "2026-10".parse().expect("month");
    let clean = tie_out_month(
        &data.payouts,
        &data.balance_transactions,
        month,
        &jiff::tz::TimeZone::UTC,
    );
    let (victim, line) = clean
        .payouts
        .iter()
        .filter(|p| p.verdict == Verdict::Tied)
        .find_map(|p| {
            let it = p.itemisation.as_ref()?;
            it.lines.iter().find(|l| l.net != 0).map(|l| (p, l.clone()))
        })
        .expect("a tied payout with a non-zero line");

    let fixtures = demo_fixtures_copy();
    let lines_path = fixtures.path().join("payout_lines.json");
    let mut lines: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&std::fs::read(&lines_path).expect("payout_lines")).expect("json");
    lines
        .get_mut(&victim.payout.id)
        .and_then(|v| v.as_array_mut())
        .expect("the payout's lines")
        .retain(|id| id.as_str() != Some(line.id.as_str()));
    std::fs::write(&lines_path, serde_json::to_vec(&lines).expect("json")).expect("write");
    (fixtures, victim.payout.id.clone(), line)
}

/// A copy of the demo account's fixture files in a folder of its own, for a test to edit
/// one before a fake serves them.
pub fn demo_fixtures_copy() -> tempfile::TempDir {
    let src = tieout_testkit::fake_stripe::demo_fixtures();
    let fixtures = tempfile::tempdir().expect("tempdir");
    for entry in std::fs::read_dir(&src).expect("fixtures") {
        let p = entry.expect("entry").path();
        if p.is_file() {
            std::fs::copy(&p, fixtures.path().join(p.file_name().expect("name"))).expect("copy");
        }
    }
    fixtures
}
