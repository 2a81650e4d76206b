//! Tickets as helpdesks export them (README, "Tickets files"): the demo's 20 tickets in
//! each helpdesk's column layout (`tests/fixtures/tickets/`: Zendesk, Freshdesk, Help
//! Scout, Gorgias, Intercom, Front, Shopify's order export, one file read with
//! `--columns`, API-style JSON lines and a JSON array) give byte for byte the suggestions
//! of the plain four-column `fixtures/demo/tickets.csv`; and a property test shuffles the
//! columns, adds unknown ones, flips line ends and adds a BOM without changing one
//! suggestion.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use proptest::prelude::*;
use tieout::domain::refunds::tickets::{TicketsFormat, read_tickets, read_tickets_bytes};
use tieout::domain::refunds::{Facts, Policy, assess};
use tieout::model::AccountData;

use crate::fuzz_kit::fuzz;
use crate::support::{NOW, Tieout};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(name: &str) -> PathBuf {
    root().join("tests/fixtures/tickets").join(name)
}

/// `suggest --demo --tickets FILE [extra]`: the run and both files.
fn suggest(file: &Path, extra: &[&str]) -> (crate::support::RunOutput, String, String) {
    let t = Tieout::demo();
    let out = t.work_dir().join("out");
    let mut args = vec![
        "suggest",
        "--tickets",
        file.to_str().expect("utf8 path"),
        "--out",
        out.to_str().expect("utf8 path"),
    ];
    args.extend_from_slice(extra);
    let run = t.run(&args);
    let read = |f: &str| std::fs::read_to_string(out.join(f)).unwrap_or_default();
    (
        run,
        read("refund-suggestions.jsonl"),
        read("refund-suggestions.csv"),
    )
}

#[test]
fn every_helpdesk_export_gives_the_plain_files_suggestions() {
    let (plain, want_jsonl, want_csv) = suggest(&root().join("fixtures/demo/tickets.csv"), &[]);
    plain.success();
    assert_eq!(want_jsonl.lines().count(), 20);
    let cases: &[(&str, &[&str])] = &[
        ("zendesk.csv", &[]),
        ("freshdesk.csv", &[]),
        ("helpscout.csv", &[]),
        ("gorgias.csv", &[]),
        ("intercom.csv", &[]),
        ("front.csv", &[]),
        ("shopify-orders.csv", &[]),
        (
            "mapped.csv",
            &[
                "--columns",
                "ticket_id=Ref,email=\"Mail address\",order_id=Purchase,message=Body",
            ],
        ),
        ("api.jsonl", &[]),
        ("array.json", &[]),
    ];
    for (name, extra) in cases {
        let (run, jsonl, csv) = suggest(&fixture(name), extra);
        assert_eq!(run.code, Some(0), "{name}: {}", run.stderr);
        assert_eq!(
            jsonl, want_jsonl,
            "{name}: other suggestions than the plain file"
        );
        assert_eq!(csv, want_csv, "{name}: another CSV than the plain file");
    }
}

#[test]
fn an_export_no_alias_knows_names_its_columns_and_how_to_map_them() {
    let (run, jsonl, _) = suggest(&fixture("mapped.csv"), &[]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(jsonl.is_empty(), "nothing written");
    assert!(
        run.stderr.contains("no column gives the customer's email")
            && run.stderr.contains(
                "the header has: \"Ref\", \"Queue\", \"Mail address\", \"Purchase\", \"Body\""
            )
            && run.stderr.contains("--columns email="),
        "{}",
        run.stderr
    );
}

#[test]
fn a_ticket_with_no_order_id_is_for_review_with_that_reason() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("inbox.csv");
    std::fs::write(
        &path,
        "Ticket ID,Requester Email,Subject,Description\n\
         X-1,maya.okafor@example.com,Refund please,It never arrived.\n\
         X-2,maya.okafor@example.com,ORD-7010 or ORD-7021?,Not sure which.\n",
    )
    .expect("write");
    let (run, jsonl, _) = suggest(&path, &[]);
    run.success();
    assert!(
        run.stderr
            .contains("line 3: names several order ids (ORD-7010, ORD-7021)"),
        "{}",
        run.stderr
    );
    for line in jsonl.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("json");
        assert_eq!(v["recommendation"], "review", "{v}");
        assert_eq!(v["rule"], "no-charge", "{v}");
        assert!(
            v["reason"]
                .as_str()
                .is_some_and(|r| r.contains("names no single order id")),
            "{v}"
        );
    }
}

/// The demo account, once for the property test.
fn demo() -> &'static AccountData {
    static DATA: OnceLock<AccountData> = OnceLock::new();
    DATA.get_or_init(|| tieout::source::demo::load_demo().expect("demo loads"))
}

fn suggestions_of(read: &tieout::domain::refunds::tickets::TicketsRead) -> Vec<String> {
    let now = jiff::Timestamp::from_str(NOW).expect("now").as_second();
    let facts = Facts::of(demo());
    let policy = Policy::default_policy();
    read.tickets
        .iter()
        .map(|(_, t)| {
            let a = assess(t, &facts, &policy, now, &jiff::tz::TimeZone::UTC);
            tieout::report::refunds::json_line(&a.suggestion)
        })
        .collect()
}

use std::str::FromStr;

#[test]
fn fuzz_tickets_layout_changes_never_change_a_suggestion() {
    let text = std::fs::read_to_string(root().join("fixtures/demo/tickets.csv")).expect("demo");
    let plain = read_tickets(&text, TicketsFormat::Csv).expect("plain");
    let want = suggestions_of(&plain);
    let records: Vec<Vec<String>> = {
        let mut r = csv::Reader::from_reader(text.as_bytes());
        r.records()
            .map(|rec| rec.expect("record").iter().map(str::to_string).collect())
            .collect()
    };
    let strategy = (
        Just((0..4usize).collect::<Vec<_>>()).prop_shuffle(),
        proptest::collection::vec(
            ("[A-Z][a-z]{2,8}( [A-Z][a-z]{2,6})?", "[a-z0-9 ,\"]{0,12}"),
            0..4,
        ),
        any::<bool>(),
        any::<bool>(),
        proptest::sample::select(vec![
            ["ticket_id", "email", "order_id", "message"],
            ["Ticket ID", "EMAIL", " Order ID ", "Message"],
            ["TICKET_ID", "e-mail", "order-id", "message"],
        ]),
    );
    fuzz(
        "tickets_layout_changes",
        64,
        strategy,
        |(order, extra, crlf, bom, names)| {
            // "e-mail" normalises to "email": every spelling above must be found.
            let extra: Vec<(String, String)> = extra
                .into_iter()
                .filter(|(h, _)| {
                    let n = tieout::domain::refunds::ticket_columns::norm(h);
                    // An added column must be unknown to the aliases (else it is not "unknown").
                    tieout::domain::refunds::ticket_columns::Field::parse(h).is_none()
                        && ![
                            "id",
                            "name",
                            "total",
                            "notes",
                            "body",
                            "preview",
                            "extract",
                            "from",
                            "order",
                            "subject",
                            "description",
                            "requester",
                        ]
                        .contains(&n.as_str())
                })
                .collect();
            let mut w = csv::WriterBuilder::new()
                .terminator(if crlf {
                    csv::Terminator::CRLF
                } else {
                    csv::Terminator::Any(b'\n')
                })
                .from_writer(Vec::new());
            let mut header: Vec<String> = order.iter().map(|i| names[*i].to_string()).collect();
            header.extend(extra.iter().map(|(h, _)| h.clone()));
            w.write_record(&header).expect("header");
            for rec in &records {
                let mut row: Vec<String> = order.iter().map(|i| rec[*i].clone()).collect();
                row.extend(extra.iter().map(|(_, v)| v.clone()));
                w.write_record(&row).expect("row");
            }
            let mut bytes = if bom {
                "\u{feff}".as_bytes().to_vec()
            } else {
                Vec::new()
            };
            bytes.extend(w.into_inner().expect("flush"));
            let read = read_tickets_bytes(&bytes, TicketsFormat::Csv)
                .map_err(|e| TestCaseError::fail(format!("refused: {e}")))?;
            prop_assert!(read.problems.is_empty(), "{:?}", read.problems);
            prop_assert_eq!(suggestions_of(&read), want.clone());
            Ok(())
        },
    );
}
