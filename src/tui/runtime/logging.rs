//! Logs go to a file under the data directory (never to the screen while the TUI runs):
//! `<data dir>/logs/tieout.log`. `TIEOUT_LOG` sets the filter (default `info`).

use std::path::{Path, PathBuf};

use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::EnvFilter;

/// Starts file logging; keep the guard alive for the run. Returns the log file's path.
/// If logging cannot start (read-only disk), the TUI still runs, without a log.
pub fn init(data_dir: &Path) -> Option<(WorkerGuard, PathBuf)> {
    let dir = data_dir.join("logs");
    std::fs::create_dir_all(&dir).ok()?;
    let appender = tracing_appender::rolling::never(&dir, "tieout.log");
    let (writer, guard) = tracing_appender::non_blocking(appender);
    let filter = EnvFilter::try_from_env("TIEOUT_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(false)
        .try_init()
        .ok()?;
    Some((guard, dir.join("tieout.log")))
}
