//! `gen-demo` (`cargo run -p tieout-testkit --bin gen-demo -- …`): writes a generated Stripe-shaped account as JSON — the
//! bundled demo (`--seed 7 --scale 1 --out fixtures/demo`) or a large account for
//! benchmarks (`--scale 100`, see `generator`'s module doc) — and prints what it wrote.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::time::Instant;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use tieout_testkit::generator;

/// Write a generated Stripe-shaped account as JSON (the demo, or a large one for benchmarks).
#[derive(Debug, Parser)]
#[command(name = "gen-demo")]
struct Args {
    #[arg(long, default_value_t = 7)]
    seed: u64,
    /// 1 is the bundled demo; larger values make larger accounts.
    #[arg(long, default_value_t = 1)]
    scale: u32,
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(args.seed, args.scale, &args.out) {
        Ok(()) => ExitCode::SUCCESS,
        Err((code, message)) => {
            eprintln!("gen-demo: {message}");
            ExitCode::from(code)
        }
    }
}

/// A failure: the exit code (2 usage, 1 anything else) and what to do.
type Failure = (u8, String);

fn run(seed: u64, scale: u32, out: &Path) -> Result<(), Failure> {
    if scale == 0 {
        return Err((
            2,
            "--scale must be at least 1 (1 is the bundled demo)".into(),
        ));
    }
    let started = Instant::now();
    let stats = generator::generate(seed, scale, out).map_err(|e| {
        (
            1,
            format!("{e}; check that {} is a writable folder", out.display()),
        )
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
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err((
            1,
            format!(
                "the account was written to {} but the summary could not be printed: {e}",
                out.display()
            ),
        )),
        _ => Ok(()),
    }
}
