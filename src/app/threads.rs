//! The process's one async runtime as the shells use it: block on a future (the TUI's
//! event loop), or run slow work on its growing blocking pool (the TUI's loads, jobs and
//! refunds). The runtime itself lives with the Stripe client, which shares it.

use std::future::Future;

/// Runs `fut` to completion on the shared runtime; the error says why it could not start.
/// Must not be called from inside one of the runtime's async tasks.
pub fn block_on<F: Future>(fut: F) -> Result<F::Output, std::io::Error> {
    crate::stripe::blocking::block_on(fut)
}

/// Runs `f` on the shared runtime's blocking pool (loads and refunds may take minutes,
/// so a pool that grows, not a fixed-size one).
pub fn spawn_blocking(f: impl FnOnce() + Send + 'static) -> Result<(), std::io::Error> {
    crate::stripe::blocking::spawn_blocking(f)
}
