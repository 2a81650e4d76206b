//! Fuzzing the tickets file reader that `tieout suggest --tickets` uses
//! (`domain::refunds::tickets::read_tickets_bytes`), and the TUI's demo tickets reader:
//!
//! - arbitrary bytes (CSV-ish and JSON-lines-ish) never panic; every ticket and every
//!   problem carries a line number inside the file;
//! - a generated file (quoted commas, quotes, line breaks inside messages, formula-like
//!   text, unicode, LF or CRLF, with or without a BOM) with broken lines put at known
//!   places reads back every good ticket exactly and names exactly the broken lines.

use proptest::prelude::*;

use tieout::domain::refunds::Ticket;
use tieout::domain::refunds::tickets::{TicketsFormat, read_tickets_bytes};

use crate::fuzz_kit::fuzz;

/// Pieces of tickets files, so random files look like real (broken) ones.
const FRAGMENTS: &[&str] = &[
    "ticket_id,email,order_id,message",
    "ticket_id,email,order_id,message,amount",
    "email,order_id",
    "T-1,a@x.io,ORD-1,hello",
    "\n",
    "\r\n",
    "\r",
    ",",
    "\"",
    "\"\"",
    "\u{feff}",
    "=HYPERLINK(\"x\")",
    "{\"email\":\"a@x.io\",\"order_id\":\"O-1\"}",
    "{\"email\":[1],\"order_id\":null}",
    "{",
    "}",
    "[]",
    "49.00",
    "-1e309",
    "\u{0}",
];

fn messy_bytes() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        3 => proptest::sample::select(FRAGMENTS).prop_map(|s| s.as_bytes().to_vec()),
        1 => proptest::collection::vec(any::<u8>(), 0..8),
        1 => any::<String>().prop_map(String::into_bytes),
    ];
    proptest::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

fn line_count(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|b| **b == b'\n').count() as u64 + 1
}

#[test]
fn fuzz_tickets_never_panic_and_lines_are_in_the_file() {
    let strategy = (messy_bytes(), any::<bool>());
    fuzz(
        "tickets_arbitrary_bytes",
        1500,
        strategy,
        |(bytes, jsonl)| {
            let format = if jsonl {
                TicketsFormat::JsonLines
            } else {
                TicketsFormat::Csv
            };
            let lines = line_count(&bytes);
            match read_tickets_bytes(&bytes, format) {
                Ok(read) => {
                    for (line, _) in &read.tickets {
                        prop_assert!(
                            (1..=lines).contains(line),
                            "ticket on line {line} of {lines}"
                        );
                    }
                    for p in &read.problems {
                        prop_assert!(
                            (1..=lines).contains(&p.line),
                            "problem on line {} of {lines}: {}",
                            p.line,
                            p.message
                        );
                        prop_assert!(!p.message.is_empty());
                    }
                }
                Err(e) => prop_assert!(
                    e.starts_with("line 1:") || e.starts_with("the header line"),
                    "a whole-file error must name the header line: {e}"
                ),
            }
            // The TUI's demo reader must not panic either.
            let _ = tieout::tui::workspace::parse_tickets_csv(&String::from_utf8_lossy(&bytes));
            Ok(())
        },
    );
}

/// A ticket the reader must keep (email and order id not blank).
fn ticket() -> impl Strategy<Value = Ticket> {
    let message = prop_oneof![
        any::<String>(),
        Just("Please refund, I was charged twice".to_string()),
        Just("=1+2, \"quoted\", and\na line break".to_string()),
        Just("@SUM(A1)\r\n-3".to_string()),
        Just(String::new()),
    ];
    (
        proptest::option::of("T-[0-9]{1,5}"),
        "[a-z]{1,8}(\\+[a-z]{1,3})?@[a-z]{1,6}\\.(io|com)",
        "(ORD|ch)-[A-Za-z0-9]{1,10}",
        message,
        proptest::option::of("[0-9]{1,4}\\.[0-9]{2}"),
    )
        .prop_map(|(ticket_id, email, order_id, message, amount)| Ticket {
            ticket_id,
            email,
            order_id,
            message: message.replace('\0', ""),
            amount,
        })
}

/// Lines that cannot be tickets, and the problem the reader must report for them.
fn broken_line() -> impl Strategy<Value = (String, &'static str)> {
    prop_oneof![
        Just(("just-one-field".to_string(), "fields")),
        Just(("T-9,a@x.io".to_string(), "fields")),
        Just(("T-9,a@x.io,ORD-9,m,1.00,extra,more".to_string(), "fields")),
        Just(("T-9,,ORD-9,no email".to_string(), "email is empty")),
        // (A blank order id is no longer a broken line: the ticket is read and the rules
        // send it to review, `tickets_exports::a_ticket_with_no_order_id_is_for_review…`.)
    ]
}

/// One line of CSV for `fields` (the csv crate quotes what needs quoting).
fn csv_record(fields: &[&str], crlf: bool) -> String {
    let mut w = csv::WriterBuilder::new()
        .terminator(if crlf {
            csv::Terminator::CRLF
        } else {
            csv::Terminator::Any(b'\n')
        })
        .from_writer(Vec::new());
    w.write_record(fields).expect("write a record");
    String::from_utf8(w.into_inner().expect("flush")).expect("utf8")
}

#[test]
fn fuzz_tickets_generated_files_read_back_and_name_the_broken_lines() {
    let strategy = (
        proptest::collection::vec(ticket(), 0..12),
        proptest::collection::vec((any::<proptest::sample::Index>(), broken_line()), 0..4),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    );
    fuzz(
        "tickets_generated_files",
        400,
        strategy,
        |(tickets, broken, crlf, bom, with_amount)| {
            let eol = if crlf { "\r\n" } else { "\n" };
            // Where each broken line goes: before the ticket with that index (or at the end).
            let mut breaks: Vec<(usize, String, &str)> = broken
                .iter()
                .map(|(at, (line, why))| (at.index(tickets.len() + 1), line.clone(), *why))
                .collect();
            breaks.sort_by_key(|(at, _, _)| *at);
            let mut text = String::new();
            if bom {
                text.push('\u{feff}');
            }
            text.push_str(if with_amount {
                "ticket_id,email,order_id,message,amount"
            } else {
                "ticket_id,email,order_id,message"
            });
            text.push_str(eol);
            let line_now = |text: &str| text.matches('\n').count() as u64 + 1;
            let mut want_problems: Vec<(u64, &str)> = Vec::new();
            let mut want_tickets: Vec<(u64, Ticket)> = Vec::new();
            let mut pending = breaks.iter().peekable();
            for i in 0..=tickets.len() {
                while let Some((_, line, why)) = pending.next_if(|(at, _, _)| *at == i) {
                    want_problems.push((line_now(&text), why));
                    text.push_str(line);
                    // An empty email or order id on a line of the header's width.
                    if with_amount && !why.contains("fields") {
                        text.push(',');
                    }
                    text.push_str(eol);
                }
                let Some(t) = tickets.get(i) else { break };
                let id = t.ticket_id.clone().unwrap_or_default();
                let amount = t.amount.clone().unwrap_or_default();
                let mut fields = vec![id.as_str(), &t.email, &t.order_id, &t.message];
                if with_amount {
                    fields.push(&amount);
                }
                let mut expected = t.clone();
                expected.message = t.message.trim().to_string();
                if !with_amount {
                    expected.amount = None;
                }
                want_tickets.push((line_now(&text), expected));
                text.push_str(&csv_record(&fields, crlf));
            }
            let read = read_tickets_bytes(text.as_bytes(), TicketsFormat::Csv)
                .map_err(|e| TestCaseError::fail(format!("the file was refused: {e}\n{text}")))?;
            prop_assert_eq!(&read.tickets, &want_tickets, "file:\n{}", text);
            let got: Vec<u64> = read.problems.iter().map(|p| p.line).collect();
            let want: Vec<u64> = want_problems.iter().map(|(l, _)| *l).collect();
            prop_assert_eq!(got, want, "problems {:?}\nfile:\n{}", read.problems, text);
            for (p, (_, why)) in read.problems.iter().zip(&want_problems) {
                prop_assert!(p.message.contains(why), "line {}: {}", p.line, p.message);
            }
            Ok(())
        },
    );
}
