//! Reads under a rate limit shared with another integration (issue 19): the fake Stripe
//! with a 6 req/s token bucket, a simulated second integration spending 2 of those
//! tokens a second, a 500 on every fifth request and 20 ms latency. `sync`, `dunning`,
//! `reconcile` and `suggest` each finish with files byte-identical to a fault-free run
//! (the client slows down on 429s instead of giving up), and after each command's first
//! 10 seconds fewer than 5% of its requests are answered 429.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tieout_testkit::fake_stripe::RateLimit;

use crate::hardening_faults::{snapshot, with_data_dir};
use crate::support::{FakeConfig, Fault, TEST_KEY, Tieout, start_fake};

/// The second integration's requests carry this query, to tell them from tieout's.
const OTHER: &str = "integration=other";

/// Another integration on the same account: one GET every 500 ms until `stop`.
fn other_integration(
    addr: std::net::SocketAddr,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<u32> {
    std::thread::spawn(move || {
        let mut sent = 0;
        while !stop.load(Ordering::SeqCst) {
            if let Ok(mut s) = TcpStream::connect(addr) {
                let req = format!(
                    "GET /v1/balance?{OTHER} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {TEST_KEY}\r\nStripe-Version: {}\r\nConnection: close\r\n\r\n",
                    tieout::stripe::API_VERSION
                );
                let _ = s.write_all(req.as_bytes());
                let _ = s.read_to_end(&mut Vec::new());
                sent += 1;
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        sent
    })
}

#[test]
fn commands_finish_byte_identical_under_a_limit_shared_with_another_integration() {
    let tickets = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/demo/tickets.csv");
    let commands: Vec<(&str, Vec<&str>)> = vec![
        ("sync", vec!["sync"]),
        ("dunning", vec!["dunning", "--out", "out"]),
        (
            "reconcile",
            vec!["reconcile", "--month", "2026-10", "--out", "out"],
        ),
        (
            "suggest",
            vec!["suggest", "--tickets", tickets, "--out", "out"],
        ),
    ];
    let clean = start_fake(FakeConfig::default());
    let limited = start_fake(FakeConfig::default().latency(Duration::from_millis(20)));
    limited.set_rate_limit(Some(RateLimit {
        per_second: 6,
        burst: 6,
    }));
    limited.inject(Fault::every(5, 500));
    let stop = Arc::new(AtomicBool::new(false));
    let other = other_integration(limited.addr(), stop.clone());

    let mut measured = 0;
    for (label, args) in &commands {
        let a = with_data_dir(Tieout::against(&clean));
        let want = a.run(args);
        want.success();

        limited.clear_requests();
        // Patient as a user would be (the harness's 3 s is for failures that never end).
        let b = with_data_dir(Tieout::against(&limited)).env("TIEOUT_GIVE_UP_AFTER", "60");
        let got = b.run(args);
        got.success();
        // The same files (exports, or the cache a sync writes).
        assert_eq!(
            snapshot(&b.work_dir()),
            snapshot(&a.work_dir()),
            "{label}: exports differ from a fault-free run"
        );
        if *label == "sync" {
            assert_eq!(
                snapshot(&b.root().join("data")),
                snapshot(&a.root().join("data")),
                "sync: the cache differs from a fault-free run"
            );
        } else {
            assert_eq!(
                got.stdout.replace(&limited.base_url(), "<api>"),
                want.stdout.replace(&clean.base_url(), "<api>"),
                "{label}: stdout differs from a fault-free run"
            );
        }

        // Back-pressure, not failure: after the first 10 s, under 5% answered 429.
        let log: Vec<_> = limited
            .requests()
            .into_iter()
            .filter(|r| !r.query.contains(OTHER))
            .collect();
        let start = log.iter().map(|r| r.received_ms).min().unwrap_or(0);
        let later: Vec<_> = log
            .iter()
            .filter(|r| r.received_ms >= start + 10_000)
            .collect();
        let limited_later = later.iter().filter(|r| r.status == Some(429)).count();
        let five_hundreds = log.iter().filter(|r| r.status == Some(500)).count();
        let all_429 = log.iter().filter(|r| r.status == Some(429)).count();
        eprintln!(
            "{label}: {} requests, {all_429} answered 429, {five_hundreds} answered 500; after 10 s: {} requests, {limited_later} answered 429",
            log.len(),
            later.len()
        );
        assert!(five_hundreds > 0, "{label}: no 500 was injected");
        assert!(
            limited_later * 20 < later.len().max(1),
            "{label}: {limited_later} of {} requests after the first 10 s were answered 429",
            later.len()
        );
        measured += later.len();
    }
    stop.store(true, Ordering::SeqCst);
    let sent = other.join().expect("other integration");
    assert!(sent > 0);
    assert!(
        measured > 0,
        "no command ran past 10 s: the 429 share was never measured"
    );
}
