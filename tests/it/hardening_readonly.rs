//! Hardening, read-only (SECURITY.md): everything the headless commands send to Stripe is a
//! GET, checked on the fake server's request log of a full sync and a close packet.

use crate::support::{FakeConfig, Tieout, start_fake};

#[test]
fn a_full_sync_and_close_send_only_gets() {
    let fake = start_fake(FakeConfig::default());
    let t = Tieout::against(&fake);
    t.run(&["sync"]).success();
    let out = t.work_dir().join("packet").display().to_string();
    t.run(&["close", "--month", "2026-10", "--out", &out])
        .success();
    let log = fake.requests();
    assert!(
        log.len() > 10,
        "too few requests to prove anything: {}",
        log.len()
    );
    for r in &log {
        assert_eq!(r.method, "GET", "{} {}?{}", r.method, r.path, r.query);
        assert!(
            r.idempotency_key.is_none(),
            "{}: an idempotency key on a read",
            r.path
        );
    }
}

// ---- scripts/check-request-log.sh, on crafted logs ---------------------------------------

/// One request as the fake writes it to `TIEOUT_FAKE_REQUEST_LOG`.
fn logged(test: &str, method: &str, path: &str) -> String {
    serde_json::json!({"test": test, "method": method, "path": path, "status": 200}).to_string()
}

/// Runs the check on `lines`; returns its exit code and everything it printed.
fn check_log(lines: &[String]) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("requests.jsonl");
    let mut text = lines.join("\n");
    if !text.is_empty() {
        text.push('\n');
    }
    std::fs::write(&log, text).expect("write the log");
    run_check(&log)
}

fn run_check(log: &std::path::Path) -> (Option<i32>, String) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/check-request-log.sh");
    let out = std::process::Command::new("sh")
        .arg(script)
        .arg(log)
        .env_remove("ALLOW")
        .output()
        .expect("sh runs the script");
    (
        out.status.code(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// The names of the tests in a file of `tests/it/` (functions under a test attribute).
fn test_names(file: &str) -> Vec<String> {
    let path = format!("{}/tests/it/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("read the test file");
    let mut names = Vec::new();
    let mut armed = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with("#[test]") || line.starts_with("#[tokio::test") {
            armed = true;
        } else if armed && let Some(rest) = line.split("fn ").nth(1) {
            names.push(rest.split('(').next().unwrap_or("").trim().to_string());
            armed = false;
        }
    }
    names
}

#[test]
fn the_request_log_check_allows_the_gate_tests_and_catches_a_stray_write() {
    let gate = test_names("refund_gate.rs");
    let batch = test_names("refund_batch.rs");
    let fake = test_names("fake_stripe.rs");
    assert!(gate.len() >= 5, "gate tests not found: {gate:?}");
    assert!(batch.len() >= 5, "batch tests not found: {batch:?}");
    assert!(fake.len() >= 5, "fake server tests not found: {fake:?}");
    let mut clean: Vec<String> = vec![
        logged("sync::a_sync", "GET", "/v1/payouts"),
        logged("dunning::a_worklist", "GET", "/v1/invoices"),
    ];
    clean.extend(
        gate.iter()
            .map(|n| logged(&format!("refund_gate::{n}"), "POST", "/v1/refunds")),
    );
    clean.extend(
        batch
            .iter()
            .map(|n| logged(&format!("refund_batch::{n}"), "POST", "/v1/refunds")),
    );
    clean.extend(
        fake.iter()
            .map(|n| logged(&format!("fake_stripe::{n}"), "POST", "/v1/refunds")),
    );
    let (code, said) = check_log(&clean);
    assert_eq!(
        code,
        Some(0),
        "every gate test must be allowed to write:\n{said}"
    );
    assert!(
        said.contains(&format!("{} requests", clean.len())),
        "{said}"
    );

    for (stray, why) in [
        (
            logged("sync::faults_are_retried", "POST", "/v1/refunds"),
            "a POST from a sync test",
        ),
        (
            logged(
                "dunning::refunds_listed_for_a_customer",
                "POST",
                "/v1/refunds",
            ),
            "a test whose name merely starts with refund",
        ),
        (
            logged("keys::logout_x", "DELETE", "/v1/customers/cus_1"),
            "a DELETE",
        ),
        (
            logged("hardening_readonly::refund_gate::x", "POST", "/v1/refunds"),
            "a module that only contains refund_gate",
        ),
        (
            logged("refund_batches::x", "POST", "/v1/refunds"),
            "a module whose name merely starts with refund_batch",
        ),
        (
            logged("unnamed", "POST", "/v1/refunds"),
            "an unnamed thread",
        ),
        (
            r#"{"method":"POST","path":"/v1/refunds","status":200}"#.to_string(),
            "a line without a test",
        ),
    ] {
        let mut log = clean.clone();
        log.insert(1, stray.clone());
        let (code, said) = check_log(&log);
        assert_eq!(code, Some(1), "{why} was not caught:\n{said}");
        assert!(
            said.contains(&stray),
            "{why}: the report does not show it:\n{said}"
        );
    }

    let (code, said) = check_log(&[]);
    assert_eq!(code, Some(1), "an empty log must fail: {said}");
    let (code, said) = run_check(std::path::Path::new("/nonexistent/requests.jsonl"));
    assert_eq!(code, Some(2), "a missing log is a usage error: {said}");
}
