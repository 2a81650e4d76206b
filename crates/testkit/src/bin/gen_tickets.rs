//! `gen-tickets` (`cargo run -p tieout-testkit --bin gen-tickets -- --count N --out FILE`):
//! writes N seeded refund tickets against the bundled demo account as a helpdesk CSV
//! (tieout's columns, or `--shopify` for Shopify's order export), the input of the
//! `suggest --tickets` benchmark (BENCHMARKS.md, section 9). See `many_tickets`.

use std::io::BufWriter;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use tieout_testkit::many_tickets::{Style, write_tickets};

/// Write N refund tickets against the demo account as a CSV.
#[derive(Debug, Parser)]
#[command(name = "gen-tickets")]
struct Args {
    #[arg(long, default_value_t = 7)]
    seed: u64,
    /// How many tickets (Shopify: orders, each one to three line-item rows).
    #[arg(long)]
    count: usize,
    /// Write Shopify's order export instead of tieout's `ticket_id,email,order_id,message`.
    #[arg(long)]
    shopify: bool,
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let data = match tieout::source::demo::load_demo() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("gen-tickets: cannot read the demo account: {e}");
            return ExitCode::from(1);
        }
    };
    let style = if args.shopify {
        Style::Shopify
    } else {
        Style::Tieout
    };
    let written = std::fs::File::create(&args.out)
        .and_then(|f| write_tickets(&data, args.count, args.seed, style, BufWriter::new(f)));
    match written {
        Ok(()) => {
            println!("wrote {} tickets to {}", args.count, args.out.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!(
                "gen-tickets: {e}; check that {} can be written",
                args.out.display()
            );
            ExitCode::from(1)
        }
    }
}
