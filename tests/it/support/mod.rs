//! Helpers every integration test uses:
//! - [`fake`]: start the fake Stripe server (also from sync tests, on its own runtime) and
//!   make raw requests to it;
//! - [`cli`]: run the built `tieout` binary in a clean, throw-away environment;
//! - [`golden`]: compare output with files under `tests/golden/` (`UPDATE_GOLDEN=1`
//!   rewrites them).
//!
//! Not every test uses every helper.
#![allow(dead_code, unused_imports)]

pub mod cli;
pub mod fake;
pub mod golden;

/// Every `.rs` file under `dir` (its sub-folders too), sorted; a folder that cannot be
/// read is skipped.
pub fn rust_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

pub use cli::{NOW, RunOutput, Tieout};
pub use fake::{RunningFake, StripeReq, start_fake};
pub use golden::{assert_golden, assert_golden_bytes, assert_golden_dir, redact};
pub use tieout_testkit::fake_stripe::{
    FakeConfig, FakeStripe, Fault, ObjectKind, RateLimit, TEST_KEY, VersionCheck,
};

/// The API version tieout pins (RULES.md, "Stripe facts"); the fake echoes whatever is sent.
pub const STRIPE_VERSION: &str = "2026-07-29.dahlia";
