//! Running a property-based fuzz target (proptest) for a bounded number of cases and
//! reporting how many executions it made.
//!
//! Each target has a default case count sized so that all of them together stay well under
//! a minute in CI's debug build; `PROPTEST_CASES=N` replaces every default (e.g. a long
//! local run with `PROPTEST_CASES=100000`), `PROPTEST_RNG_SEED` fixes the seed. A failing
//! case is shrunk and shown; panics inside a case count as failures. Every target prints
//! `fuzz <name>: <cases> cases, <executions> executions` on stderr and writes the same line
//! to `<target dir>/fuzz-executions/<name>.txt`, which `.ci/run` sums up.

use std::fmt::Debug;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, TestCaseResult, TestRunner};

/// The case count: `PROPTEST_CASES` when set, else the target's default.
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// Where the execution counts go: `<target dir>/fuzz-executions/` (the test binary lives
/// in `<target dir>/<profile>/deps/`).
fn report_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    Some(exe.parent()?.parent()?.parent()?.join("fuzz-executions"))
}

/// Records a finished target's counts (stderr and the report file).
pub fn record(name: &str, cases: u32, executions: u64) {
    let line = format!("fuzz {name}: {cases} cases, {executions} executions");
    eprintln!("{line}");
    if let Some(dir) = report_dir()
        && std::fs::create_dir_all(&dir).is_ok()
    {
        let _ = std::fs::write(dir.join(format!("{name}.txt")), format!("{line}\n"));
    }
}

/// Runs `test` on `default_cases` (or `PROPTEST_CASES`) values of `strategy`, counting
/// every execution (shrinking included), and panics with the minimal failing input.
#[track_caller]
pub fn fuzz<S>(
    name: &str,
    default_cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> TestCaseResult,
) where
    S: Strategy,
    S::Value: Debug,
{
    let n = cases(default_cases);
    let config = Config {
        cases: n,
        failure_persistence: None,
        ..Config::default()
    };
    let executions = AtomicU64::new(0);
    let mut runner = TestRunner::new(config);
    let result = runner.run(&strategy, |value| {
        executions.fetch_add(1, Ordering::Relaxed);
        test(value)
    });
    let executions = executions.load(Ordering::Relaxed);
    record(name, n, executions);
    if let Err(e) = result {
        panic!("fuzz target {name} failed after {executions} executions: {e}");
    }
}
