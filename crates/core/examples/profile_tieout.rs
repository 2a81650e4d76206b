//! The tie-out of a million lines and their CSV, on the core alone (no polars, no cache):
//! a quick loop for a profiler. Ten thousand automatic payouts of a hundred lines each,
//! spread over 33 months; each step is timed five times. The figures that count are the
//! `tieout` bench's on the generated account (BENCHMARKS.md); this is for `perf record`.
//!
//! ```text
//! CARGO_PROFILE_RELEASE_DEBUG=line-tables-only CARGO_PROFILE_RELEASE_STRIP=none \
//!   cargo build --release -p tieout-core --features testdata --example profile_tieout
//! perf record -g target/release/examples/profile_tieout
//! ```

use std::time::Instant;

use jiff::tz::TimeZone;
use tieout_core::domain::tieout::testdata::{line, payout};
use tieout_core::domain::tieout::tie_out_months;
use tieout_core::model::rows::BalanceTxnRow;
use tieout_core::report::reconciliation::csv_to;
use tieout_core::time::Month;

fn main() {
    let months: Vec<Month> = (0..33)
        .scan("2024-03".parse::<Month>().expect("month"), |m, _| {
            let this = *m;
            *m = m.next();
            Some(this)
        })
        .collect();
    let tz = TimeZone::UTC;
    let mut payouts = Vec::new();
    let mut lines: Vec<BalanceTxnRow> = Vec::new();
    for p in 0..10_000usize {
        let month = months[p % months.len()];
        let (start, _) = month.range(&tz);
        let arrival = start + (p as i64 % 27) * 86_400 + 3_600;
        let id = format!("po_1Q{p:022}");
        let mut net = 0;
        for l in 0..100usize {
            let (kind, cat, amount) = match l % 10 {
                9 => ("refund", "refund", -1_500),
                _ => ("charge", "charge", 2_000 + (l as i64) * 7),
            };
            let fee = if amount > 0 { 88 } else { 0 };
            let mut t = line(
                &format!("txn_1Q{p:012}{l:010}"),
                &id,
                kind,
                cat,
                amount,
                fee,
            );
            t.created = arrival - 3 * 86_400 - l as i64 * 60;
            t.available_on = arrival - 86_400;
            t.source = Some(format!("ch_1Q{p:012}{l:010}").into());
            t.description = Some(format!("Payment for invoice {p}-{l}").into());
            net += t.net;
            lines.push(t);
        }
        let mut own = line(&format!("txn_own_{id}"), &id, "payout", "payout", -net, 0);
        own.source = Some(id.as_str().into());
        lines.push(own);
        let mut row = payout(&id, net, "2024-03-01T00:00:00Z");
        row.arrival_date = arrival;
        payouts.push(row);
    }
    // Lines in the order a listing returns them: newest first across payouts.
    lines.sort_by_key(|l| std::cmp::Reverse(l.created));
    println!("{} payouts, {} lines", payouts.len(), lines.len());
    for _ in 0..5 {
        let t = Instant::now();
        let all = tie_out_months(&payouts, &lines, &months, &tz);
        let tied = t.elapsed();
        let t = Instant::now();
        let mut bytes = 0usize;
        for m in &all {
            let w = csv_to(m, CountingSink(0)).expect("csv");
            bytes += w.0;
        }
        println!(
            "tie-out {:6.1} ms, CSV {:6.1} ms ({} MB)",
            tied.as_secs_f64() * 1000.0,
            t.elapsed().as_secs_f64() * 1000.0,
            bytes / 1_000_000
        );
    }
}

/// A writer that only counts what it is given.
struct CountingSink(usize);

impl std::io::Write for CountingSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
