//! The manual `fake_stripe` binary, run as a user runs it.

use serde_json::Value;

/// The manual binary: prints where it listens, serves, logs with --verbose, appends its
/// request log to `TIEOUT_FAKE_REQUEST_LOG` and reports its count when interrupted.
#[cfg(unix)]
#[test]
fn the_fake_stripe_binary_serves_until_interrupted() {
    use std::io::{BufRead, BufReader, Read};
    use std::process::{Command, Stdio};

    let dir = tempfile::tempdir().expect("temp dir");
    let log_path = dir.path().join("requests.jsonl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_fake_stripe"))
        .args(["--port", "0", "--verbose", "--deny", "rak_payout_read"])
        .arg("--fixtures")
        .arg(tieout_testkit::fake_stripe::mini_fixtures())
        .env("TIEOUT_FAKE_REQUEST_LOG", &log_path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("fake_stripe starts");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    stdout.read_line(&mut first).expect("the first line");
    let url = first
        .trim()
        .rsplit(' ')
        .next()
        .expect("a URL at the end of the first line")
        .to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{first}");

    let fake_rt = tokio::runtime::Runtime::new().expect("runtime");
    let (balance, payouts) = fake_rt.block_on(async {
        let get = |path: &str| {
            tieout_io::stripe::tls::client_builder()
                .build()
                .expect("an HTTP client")
                .get(format!("{url}{path}"))
                .bearer_auth(tieout_testkit::fake_stripe::TEST_KEY)
                .header("Stripe-Version", tieout_io::stripe::API_VERSION)
                .send()
        };
        (
            get("/v1/balance").await.expect("balance answers").status(),
            get("/v1/payouts").await.expect("payouts answers").status(),
        )
    });
    assert_eq!(balance.as_u16(), 200);
    assert_eq!(payouts.as_u16(), 403);

    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    // Bounded, so a server that ignores Ctrl-C fails this test instead of hanging CI.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().expect("fake_stripe's status") {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("fake_stripe still runs a minute after Ctrl-C");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    let mut rest = String::new();
    stdout
        .read_to_string(&mut rest)
        .expect("the rest of stdout");
    assert!(
        rest.contains("served 2 requests (0 rate-limited)"),
        "{rest}"
    );
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("stderr");
    assert!(stderr.contains("GET /v1/payouts -> 403"), "{stderr}");

    let log = std::fs::read_to_string(&log_path).expect("the exported request log");
    let lines: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 2, "{log}");
    assert_eq!(lines[0]["method"], "GET");
    assert_eq!(lines[0]["path"], "/v1/balance");
    assert_eq!(lines[1]["status"], 403);
    assert_eq!(lines[0]["test"], "main");
}
