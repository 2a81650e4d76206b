//! Issue 40, defect 6: `suggest --tickets` over a large tickets file on the demo account,
//! what the command does between reading the file and writing it out: read the CSV,
//! match and decide every ticket (one `Facts`, one index), render the JSONL and CSV. The
//! tickets are `gen-tickets`' (`tieout_testkit::many_tickets`), made in memory.
//! `cargo bench --bench suggest`; BENCHMARKS.md, section 9, has the command-line timings.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use tieout::app::ReadRequest;
use tieout::app::suggest::suggest_all;
use tieout::app::tickets::read_bytes;
use tieout::domain::refunds::{Policy, Ticket};
use tieout::model::AccountData;
use tieout::report::refunds::{csv, jsonl};
use tieout_testkit::many_tickets::{Style, tickets_text};

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The demo's clock: the tickets are decided as the demo's are.
const NOW: i64 = tieout::source::demo::DEMO_NOW;

fn request() -> ReadRequest {
    ReadRequest {
        profile: "default".into(),
        allow_secret_key: false,
        api_base: String::new(),
        stripe_account: None,
        demo: true,
        cached: false,
        now: NOW,
        tz: jiff::tz::TimeZone::UTC,
        rate: None,
    }
}

/// Reads, decides and renders one tickets file: the suggestions' byte count.
fn suggest(data: &AccountData, text: &[u8], policy: &Policy, req: &ReadRequest) -> usize {
    let read = read_bytes(text, Some("csv"), &Default::default()).expect("readable");
    let tickets: Vec<Ticket> = read.tickets.into_iter().map(|(_, t)| t).collect();
    let (rows, _) = suggest_all(data, &tickets, &[], policy, req);
    jsonl(&rows).len() + csv(&rows).len()
}

fn bench(c: &mut Criterion) {
    let data = tieout::source::demo::load_demo().expect("demo");
    let policy = Policy::default_policy();
    let req = request();
    let mut g = c.benchmark_group("suggest_tickets");
    g.sample_size(10);
    for (count, style, name) in [
        (1_000, Style::Tieout, "csv"),
        (10_000, Style::Tieout, "csv"),
        (10_000, Style::Shopify, "shopify"),
    ] {
        let text = tickets_text(&data, count, 7, style);
        g.bench_with_input(BenchmarkId::new(name, count), &text, |b, text| {
            b.iter(|| black_box(suggest(&data, text.as_bytes(), &policy, &req)))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
