//! `tieout gen-demo` (hidden): writes a generated Stripe-shaped account as JSON — the
//! bundled demo (`--seed 7 --scale 1 --out fixtures/demo`) or a large account for
//! benchmarks (`--scale 100`, see `generator`'s module doc) — and prints what it wrote.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::time::Instant;

use super::{CmdResult, Failure};
use crate::generator;

pub fn run(seed: u64, scale: u32, out: &Path) -> CmdResult {
    if scale == 0 {
        return Err(Failure::usage(
            "--scale must be at least 1 (1 is the bundled demo)",
        ));
    }
    let started = Instant::now();
    let stats = generator::generate(seed, scale, out).map_err(|e| {
        Failure::other(format!(
            "{e}; check that {} is a writable folder",
            out.display()
        ))
    })?;
    let mut text = String::new();
    let _ = writeln!(
        text,
        "wrote a generated Stripe account (seed {seed}, scale {scale}) to {} in {:.1} s",
        out.display(),
        started.elapsed().as_secs_f64()
    );
    for (file, n) in &stats.files {
        let _ = writeln!(text, "  {file:<22} {n:>9}");
    }
    for what in ["payouts", "charges", "invoices", "worklist"] {
        let by = stats.by_currency(what);
        let parts: Vec<String> = by.iter().map(|(c, n)| format!("{c} {n}")).collect();
        let _ = writeln!(text, "  {what:<22} {}", parts.join(", "));
    }
    let status: Vec<String> = stats
        .invoice_status
        .iter()
        .map(|(s, n)| format!("{s} {n}"))
        .collect();
    let _ = writeln!(text, "  {:<22} {}", "invoices by status", status.join(", "));
    let _ = writeln!(
        text,
        "  {:<22} {}",
        "most lines in a payout", stats.max_lines
    );
    // A closed pipe (`| head`) is not a failure: the files are written.
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Failure::other(format!(
            "the account was written to {} but the summary could not be printed: {e}",
            out.display()
        ))),
        _ => Ok(()),
    }
}
