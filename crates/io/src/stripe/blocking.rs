//! The one async runtime of the process, for synchronous code (headless commands, the
//! TUI's event loop and its workers, the sync): a multi-thread tokio runtime built on
//! first use and shared by every caller, instead of a fresh runtime per call.
//!
//! [`block_on`] must not be called from inside a runtime's async task. Keychain access
//! needs no care here: the keychain runs its calls on plain threads of its own (the
//! Secret Service client panics when it is created inside a tokio runtime).

use std::future::Future;
use std::sync::OnceLock;

use tokio::runtime::{Builder, Runtime};

use super::error::StripeError;

/// The shared runtime, built on first use; the error says why it could not start.
pub fn runtime() -> Result<&'static Runtime, std::io::Error> {
    static RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            Builder::new_multi_thread()
                .enable_all()
                .thread_name("tieout-async")
                .build()
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| std::io::Error::other(e.clone()))
}

/// Runs `fut` to completion on the shared runtime, blocking the calling thread.
pub fn block_on<F: Future>(fut: F) -> Result<F::Output, std::io::Error> {
    Ok(runtime()?.block_on(fut))
}

/// Runs a Stripe read to completion on the shared runtime.
pub fn run<F: Future>(fut: F) -> Result<F::Output, StripeError> {
    block_on(fut).map_err(|e| StripeError::Config {
        detail: format!("the async runtime could not start: {e}"),
    })
}

/// Runs blocking work `f` on the shared runtime's pool of blocking threads (a pool that
/// grows for long reads and lets idle threads go), instead of an OS thread per job.
/// `f` may call [`block_on`]: the pool's threads are not inside an async task.
pub fn spawn_blocking(f: impl FnOnce() + Send + 'static) -> Result<(), std::io::Error> {
    drop(runtime()?.spawn_blocking(f));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_runtime_serves_every_caller_and_its_pool_may_block_on_it() {
        let a = runtime().expect("runtime") as *const Runtime;
        let b = runtime().expect("runtime") as *const Runtime;
        assert_eq!(a, b);
        let (tx, rx) = std::sync::mpsc::channel();
        spawn_blocking(move || {
            let v = block_on(async { 41 + 1 }).expect("block_on");
            let _ = tx.send(v);
        })
        .expect("spawn");
        let got = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("the pool ran the job");
        assert_eq!(got, 42);
        // Threads of many callers at once.
        let handles: Vec<_> = (0..4)
            .map(|i| std::thread::spawn(move || block_on(async move { i * 2 }).expect("ok")))
            .collect();
        let sum: i32 = handles.into_iter().map(|h| h.join().expect("join")).sum();
        assert_eq!(sum, 12);
    }
}
