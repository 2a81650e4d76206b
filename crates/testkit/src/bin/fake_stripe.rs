//! `fake_stripe`: the tests' fake Stripe API server, for manual runs on loopback.
//!
//! ```text
//! cargo run --bin fake_stripe -- --port 12111
//! STRIPE_API_KEY=rk_test_... cargo run -- --api-base http://127.0.0.1:12111 sync
//! ```

#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use tieout_testkit::fake_stripe::{FakeConfig, FakeStripe, Fault, TEST_KEY, VersionCheck};

/// A fake Stripe API on 127.0.0.1 serving a fixture folder (test infrastructure).
#[derive(Debug, Parser)]
#[command(name = "fake_stripe", version)]
struct Args {
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 12111)]
    port: u16,
    /// Fixture folder (default: the bundled demo account).
    #[arg(long, value_name = "DIR")]
    fixtures: Option<PathBuf>,
    /// Delay added to every answer, in milliseconds.
    #[arg(long, value_name = "N", default_value_t = 0)]
    latency_ms: u64,
    /// Answer 429 above N requests per second (token bucket).
    #[arg(long, value_name = "N")]
    rate_limit: Option<u32>,
    /// Status of refunds created by POST /v1/refunds.
    #[arg(long, default_value = "succeeded", value_parser = ["succeeded", "pending", "requires_action", "failed", "canceled"])]
    refund_status: String,
    /// Make every object say livemode: true.
    #[arg(long)]
    livemode: bool,
    /// Accept requests without a Stripe-Version header (e.g. from curl).
    #[arg(long)]
    no_version_check: bool,
    /// Let restricted keys read GET /v1/account (real Stripe refuses them).
    #[arg(long)]
    account_readable: bool,
    /// Accept only this key (default: any rk_test_/sk_test_ key).
    #[arg(long, value_name = "KEY")]
    only_key: Option<String>,
    /// Withhold a permission from every key (e.g. rak_payout_read); repeatable.
    #[arg(long, value_name = "SLUG")]
    deny: Vec<String>,
    /// Answer the first TIMES requests under PATH with STATUS and `Stripe-Should-Retry:
    /// false`, so a client gives up on them at once (e.g. `/v1/payouts:503:1`: a
    /// resource failing for good, then recovering); repeatable.
    #[arg(long, value_name = "PATH:STATUS:TIMES", value_parser = parse_fail)]
    fail: Vec<Fault>,
    /// Refuse every refund of this charge (Stripe's `charge_expired_for_refund`), to see a
    /// batch stop part-way; repeatable.
    #[arg(long, value_name = "CHARGE")]
    decline_refund: Vec<String>,
    /// Print one line per request to stderr.
    #[arg(long, short)]
    verbose: bool,
}

/// `--fail PATH:STATUS:TIMES` as a fault.
fn parse_fail(text: &str) -> Result<Fault, String> {
    let mut parts = text.rsplitn(3, ':');
    let (Some(times), Some(status), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(format!(
            "expected PATH:STATUS:TIMES (e.g. /v1/payouts:503:1), not {text}"
        ));
    };
    let status: u16 = status
        .parse()
        .map_err(|_| format!("{status} is not an HTTP status"))?;
    let times: u32 = times
        .parse()
        .map_err(|_| format!("{times} is not a number of requests"))?;
    Ok(Fault::Status {
        path_prefix: path.to_string(),
        status,
        times,
        should_retry: Some(false),
    })
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let mut cfg = FakeConfig::default()
        .port(args.port)
        .latency(Duration::from_millis(args.latency_ms))
        .refund_status(&args.refund_status)
        .livemode(args.livemode)
        .account_readable_by_restricted_keys(args.account_readable);
    if let Some(dir) = args.fixtures {
        cfg = cfg.fixtures(dir);
    }
    if let Some(n) = args.rate_limit {
        cfg = cfg.rate_limit(n);
    }
    if let Some(key) = &args.only_key {
        cfg = cfg.accept_only([key.clone()]);
    }
    cfg = cfg.deny("*", args.deny.iter().cloned());
    for fault in args.fail {
        cfg = cfg.fault(fault);
    }
    for charge in &args.decline_refund {
        cfg = cfg.decline_refunds_of(
            charge,
            "Charge is too old to be refunded (declined by the fake's --decline-refund).",
        );
    }
    cfg.echo_requests = args.verbose;
    if args.no_version_check {
        cfg = cfg.version_check(VersionCheck::Ignore);
    }
    let fixtures = cfg.fixtures.clone();
    // Listen for Ctrl-C before the address is printed: whoever reads that line may
    // interrupt at once, and a signal that came before the listener would be lost (or
    // ignored, when started in the background) and leave the server running.
    let interrupted = match Interrupt::listen() {
        Ok(i) => i,
        Err(e) => {
            eprintln!("fake_stripe: cannot listen for Ctrl-C: {e}");
            return ExitCode::from(2);
        }
    };
    let fake = match FakeStripe::try_start(cfg).await {
        Ok(fake) => fake,
        Err(e) => {
            eprintln!("fake_stripe: {e}");
            return ExitCode::from(2);
        }
    };
    println!("fake Stripe API listening on {}", fake.base_url());
    println!("fixtures: {}", fixtures.display());
    println!("account:  {}", fake.account_id());
    let key = match &args.only_key {
        Some(key) => {
            println!("accepted key: only the one given with --only-key");
            key.clone()
        }
        None => {
            println!("accepted keys: any rk_test_/sk_test_ key, e.g. {TEST_KEY}");
            TEST_KEY.to_string()
        }
    };
    if !args.deny.is_empty() {
        println!("denied to every key: {}", args.deny.join(", "));
    }
    println!();
    println!(
        "try:  STRIPE_API_KEY={} cargo run -- --api-base {} status",
        if args.only_key.is_some() {
            "<your key>"
        } else {
            key.as_str()
        },
        fake.base_url()
    );
    println!("stop with Ctrl-C");
    interrupted.wait().await;
    let stats = fake.stats();
    println!(
        "served {} requests ({} rate-limited)",
        stats.requests, stats.rate_limited
    );
    fake.shutdown().await;
    ExitCode::SUCCESS
}

/// Ctrl-C (SIGINT; on Unix also SIGTERM), listened for from the moment it is made.
struct Interrupt {
    #[cfg(unix)]
    int: tokio::signal::unix::Signal,
    #[cfg(unix)]
    term: tokio::signal::unix::Signal,
}

impl Interrupt {
    #[cfg(unix)]
    fn listen() -> std::io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Self {
            int: signal(SignalKind::interrupt())?,
            term: signal(SignalKind::terminate())?,
        })
    }

    #[cfg(not(unix))]
    fn listen() -> std::io::Result<Self> {
        Ok(Self {})
    }

    #[cfg(unix)]
    async fn wait(mut self) {
        tokio::select! {
            _ = self.int.recv() => {}
            _ = self.term.recv() => {}
        }
    }

    #[cfg(not(unix))]
    async fn wait(self) {
        if let Err(e) = tokio::signal::ctrl_c().await {
            eprintln!("fake_stripe: cannot wait for Ctrl-C: {e}");
        }
    }
}
