//! Running a Stripe read from synchronous code (headless commands): a small
//! current-thread tokio runtime per call. Must not be called from inside a runtime.

use std::future::Future;

use super::error::StripeError;

/// Runs `fut` to completion on a fresh current-thread runtime.
pub fn run<F: Future>(fut: F) -> Result<F::Output, StripeError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| StripeError::Config {
            detail: format!("the async runtime could not start: {e}"),
        })?;
    Ok(runtime.block_on(fut))
}
