//! Hardening, spreadsheet safety (SECURITY.md): customer names and descriptions are
//! attacker-controlled. The fake serves names beginning with `=`, `+`, `-`, `@`, tab and
//! CR; every CSV the commands write is opened with the `csv` crate and no cell may start
//! with one of those characters unless it is a plain number.

use serde_json::Value;

use crate::hardening_secrets::files_under;
use crate::support::{FakeConfig, Tieout, start_fake};

const HOSTILE: [&str; 6] = [
    "=HYPERLINK(\"http://x.invalid\",\"pay\")",
    "+1+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1 tabbed",
    "\r=1+1 carriage",
];

fn is_number(cell: &str) -> bool {
    let body = cell.strip_prefix('-').unwrap_or(cell);
    !body.is_empty()
        && body.chars().all(|c| c.is_ascii_digit() || c == '.')
        && body.chars().filter(|c| *c == '.').count() <= 1
}

#[test]
fn exports_neutralise_formula_cells_and_keep_negative_numbers() {
    let fake = start_fake(FakeConfig::default());
    let customers: Vec<Value> = serde_json::from_slice(
        &std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/demo/customers.json"
        ))
        .expect("demo customers"),
    )
    .expect("json");
    for (i, mut c) in customers.into_iter().enumerate() {
        c["name"] = Value::String(HOSTILE[i % HOSTILE.len()].to_string());
        c["description"] = Value::String(HOSTILE[(i + 1) % HOSTILE.len()].to_string());
        fake.put(c).expect("put customer");
    }
    let t = Tieout::against(&fake);
    let dir = t.work_dir();
    t.run(&["dunning", "--format", "csv", "--out", "dun"])
        .success();
    t.run(&["close", "--month", "2026-10", "--out", "close"])
        .success();

    let (csvs, hostile_seen, negatives) = check_csvs(&dir);
    assert!(csvs >= 2, "too few CSVs written: {csvs}");
    assert!(
        hostile_seen > 0,
        "no hostile customer name reached an export, so nothing was checked"
    );
    assert!(negatives > 0, "no negative amount stayed a number");
}

/// Reads every CSV under `dir` and fails on a cell a spreadsheet would run; returns how
/// many CSVs it read, how many neutralised hostile cells and negative numbers it saw.
fn check_csvs(dir: &std::path::Path) -> (usize, usize, usize) {
    let mut csvs = 0;
    let mut hostile_seen = 0;
    let mut negatives = 0;
    for (path, bytes) in files_under(dir) {
        if path.extension().is_none_or(|e| e != "csv") {
            continue;
        }
        csvs += 1;
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(bytes.as_slice());
        for record in reader.records() {
            let record = record.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            for cell in record.iter() {
                if HOSTILE.iter().any(|h| cell == format!("'{h}")) {
                    hostile_seen += 1;
                }
                if cell.starts_with('-') && is_number(cell) {
                    negatives += 1;
                }
                let risky = matches!(
                    cell.chars().next(),
                    Some('=' | '+' | '-' | '@' | '\t' | '\r')
                );
                assert!(
                    !risky || is_number(cell),
                    "{}: a cell a spreadsheet would run: {cell:?}",
                    path.display()
                );
                // Issue 40: no control character but tab reaches a cell raw (the CR of a
                // hostile name is written as `\u{0D}`).
                assert!(
                    !cell.chars().any(|c| c.is_control() && c != '\t'),
                    "{}: a raw control character: {cell:?}",
                    path.display()
                );
            }
        }
    }
    (csvs, hostile_seen, negatives)
}

/// Tickets are written by customers: a tickets file whose ids, emails, order ids and
/// messages start with formula characters gives a `refund-suggestions.csv` where every
/// such cell is neutralised.
#[test]
fn refund_suggestions_neutralise_hostile_ticket_cells() {
    let fake = start_fake(FakeConfig::default());
    let t = Tieout::against(&fake);
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["ticket_id", "email", "order_id", "message"])
        .expect("header");
    for (i, h) in HOSTILE.iter().enumerate() {
        let next = HOSTILE[(i + 1) % HOSTILE.len()];
        w.write_record([*h, &format!("{next}@x.io"), h, next])
            .expect("record");
    }
    let tickets = t.work_dir().join("hostile.csv");
    std::fs::write(&tickets, w.into_inner().expect("csv")).expect("write tickets");
    let out = t.run(&[
        "suggest",
        "--tickets",
        tickets.to_str().expect("utf8"),
        "--out",
        "sug",
    ]);
    out.success();
    let (csvs, hostile_seen, _) = check_csvs(&t.work_dir().join("sug"));
    assert_eq!(csvs, 1, "refund-suggestions.csv was not written");
    assert!(
        hostile_seen >= HOSTILE.len(),
        "the hostile ticket fields did not reach the export ({hostile_seen} seen)"
    );
}
