//! `tieout suggest` end to end through the binary.
//!
//! - `tests/fixtures/suggest/` is a small Stripe-shaped account with one ticket per
//!   default rule (and each boundary: day 30/31, email case, two customers with one email,
//!   a partially refunded charge, JPY, KWD, an annual plan tied by its invoice). The fake
//!   Stripe server serves it; the live, ticket-scoped read must reach the same suggestions
//!   as the domain computes over the whole fixture, and both are pinned by golden files.
//! - The demo's 20 tickets (`--demo`, `fixtures/demo/tickets.csv`): golden files, every
//!   outcome the demo generator designed them for (`generator::tickets::EXPECTED`), and the
//!   same bytes through the fake server (which serves the demo) as from `--demo`.
//! - A test per default rule through `suggest --email --order`.
//! - A broken tickets file: bad lines named by number on stderr, the rest written, exit 5.
//!
//! Regenerate the goldens after an intended change with
//! `UPDATE_GOLDEN=1 cargo test --test it suggest` and review the diff.

use std::path::{Path, PathBuf};

use serde_json::Value;
use tieout::domain::refunds::tickets::{TicketsFormat, read_tickets};
use tieout::domain::refunds::{Facts, Policy, Ticket, assess};
use tieout::model::rows::{
    ChargeRow, CustomerRow, DisputeRow, InvoicePaymentRow, RefundRow, SubscriptionRow,
};
use tieout::model::{AccountData, Mode, Origin, SnapshotMeta};
use tieout::stripe::models;

use crate::support::{FakeConfig, NOW, TEST_KEY, Tieout, assert_golden, start_fake};

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/suggest")
}

fn read_models<T: serde::de::DeserializeOwned>(name: &str) -> Vec<T> {
    let path = fixture_dir().join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).expect("fixture file");
    serde_json::from_str(&text).expect("fixture parses as Stripe objects")
}

/// The whole fixture as rows, the way a full snapshot would hold it.
fn fixture_account() -> AccountData {
    let mut data = AccountData::empty(SnapshotMeta {
        account_id: "acct_1SuggestFixture00".into(),
        account_name: None,
        mode: Mode::Test,
        origin: Origin::Cache,
        api_version: tieout::stripe::API_VERSION.into(),
        fetched_at: 0,
        window_start: 0,
        window_end: 0,
        default_currency: None,
        payment_methods: Default::default(),
        settled_invoices_since: None,
        balance: None,
        lines_complete: false,
        lines_since: None,
        fraud_warnings: Default::default(),
    });
    data.customers = read_models::<models::Customer>("customers")
        .iter()
        .map(CustomerRow::from)
        .collect();
    data.charges = read_models::<models::Charge>("charges")
        .iter()
        .map(ChargeRow::from)
        .collect();
    data.refunds = read_models::<models::Refund>("refunds")
        .iter()
        .map(RefundRow::from)
        .collect();
    data.disputes = read_models::<models::Dispute>("disputes")
        .iter()
        .map(DisputeRow::from)
        .collect();
    data.subscriptions = read_models::<models::Subscription>("subscriptions")
        .iter()
        .map(SubscriptionRow::from)
        .collect();
    data.invoice_payments = read_models::<models::InvoicePayment>("invoice_payments")
        .iter()
        .map(InvoicePaymentRow::from)
        .collect();
    data
}

fn fixture_tickets() -> Vec<Ticket> {
    let text = std::fs::read_to_string(fixture_dir().join("tickets.csv")).expect("tickets");
    read_tickets(&text, TicketsFormat::Csv)
        .expect("readable")
        .tickets
        .into_iter()
        .map(|(_, t)| t)
        .collect()
}

fn now() -> i64 {
    tieout::time::parse_instant(NOW).expect("now")
}

fn parse_jsonl(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect()
}

/// Runs the batch against the fake server over the fixture; returns the run and the
/// output folder's two files.
fn batch_through_fake(tickets: &Path) -> (crate::support::RunOutput, String, String, Tieout) {
    let fake = start_fake(FakeConfig::default().fixtures(fixture_dir()));
    let t = Tieout::against(&fake);
    let out = t.work_dir().join("out");
    let run = t.run(&[
        "suggest",
        "--tickets",
        tickets.to_str().expect("utf8 path"),
        "--out",
        out.to_str().expect("utf8 path"),
    ]);
    let jsonl = std::fs::read_to_string(out.join("refund-suggestions.jsonl")).unwrap_or_default();
    let csv = std::fs::read_to_string(out.join("refund-suggestions.csv")).unwrap_or_default();
    (run, jsonl, csv, t)
}

#[test]
fn the_live_read_through_the_fake_agrees_with_the_whole_account() {
    let (run, jsonl, csv, _t) = batch_through_fake(&fixture_dir().join("tickets.csv"));
    run.success();
    assert!(
        run.stdout.contains("refund-suggestions.jsonl"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("refund-suggestions.csv"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr
            .contains("14 ticket(s): 3 approve, 2 partial, 4 decline, 5 review"),
        "{}",
        run.stderr
    );

    // What the domain says over the whole fixture, ticket by ticket.
    let data = fixture_account();
    let policy = Policy::default_policy();
    let expected: Vec<String> = fixture_tickets()
        .iter()
        .map(|t| {
            let a = assess(
                t,
                &Facts::of(&data),
                &policy,
                now(),
                &jiff::tz::TimeZone::UTC,
            );
            tieout::report::refunds::json_line(&a.suggestion)
        })
        .collect();
    let got: Vec<&str> = jsonl.lines().collect();
    assert_eq!(got, expected);

    assert_golden("suggest/fixture/refund-suggestions.jsonl", &jsonl);
    assert_golden("suggest/fixture/refund-suggestions.csv", &csv);
}

/// One ticket through `suggest --email --order` against the fake: the JSON object.
fn one(email: &str, order: &str) -> Value {
    let fake = start_fake(FakeConfig::default().fixtures(fixture_dir()));
    let t = Tieout::against(&fake);
    let run = t.run(&[
        "suggest", "--email", email, "--order", order, "--ticket", "T-X",
    ]);
    run.success();
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "one JSON object: {}", run.stdout);
    // The keys come in the contract's order.
    let at: Vec<usize> = [
        "ticket_id",
        "recommendation",
        "amount",
        "currency",
        "reason",
        "evidence",
        "rule",
    ]
    .iter()
    .map(|k| lines[0].find(&format!("\"{k}\":")).expect("key present"))
    .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{}", lines[0]);
    serde_json::from_str(lines[0]).expect("JSON")
}

#[track_caller]
fn check(v: &Value, rule: &str, recommendation: &str, amount: i64, evidence: &[&str]) {
    assert_eq!(v["rule"], rule, "{v}");
    assert_eq!(v["recommendation"], recommendation, "{v}");
    assert_eq!(v["amount"], amount, "{v}");
    assert_eq!(v["ticket_id"], "T-X", "{v}");
    let ev: Vec<&str> = v["evidence"]
        .as_array()
        .expect("evidence list")
        .iter()
        .map(|e| e.as_str().expect("id"))
        .collect();
    assert_eq!(ev, evidence, "{v}");
    // Each evidence id opens in the test-mode Dashboard (the fixture is a test account).
    let urls: Vec<String> = v["evidence_urls"]
        .as_array()
        .expect("evidence_urls list")
        .iter()
        .map(|u| u.as_str().expect("url").to_string())
        .collect();
    assert_eq!(urls.len(), evidence.len(), "{v}");
    for (url, id) in urls.iter().zip(evidence) {
        assert!(
            url.starts_with("https://dashboard.stripe.com/test/")
                && url.ends_with(&format!("/{id}")),
            "{url} for {id}"
        );
    }
    assert_eq!(v.as_object().map(|o| o.len()), Some(8), "{v}");
}

#[test]
fn rule_1_no_customer() {
    let v = one("nobody@example.com", "ORD-9999");
    check(&v, "no-customer", "review", 0, &[]);
    assert_eq!(v["currency"], Value::Null);
}

#[test]
fn rule_2_no_charge_and_ambiguous_charge() {
    check(
        &one("ben@example.com", "ORD-2002"),
        "no-charge",
        "review",
        0,
        &["cus_SgBen"],
    );
    // A failed charge for the order is not a purchase.
    check(
        &one("mo@example.com", "ORD-1401"),
        "no-charge",
        "review",
        0,
        &["cus_SgMo"],
    );
    check(
        &one("cat@example.com", "ORD-3001"),
        "ambiguous-charge",
        "review",
        0,
        &["cus_SgCat", "ch_SgC1", "ch_SgC2"],
    );
}

#[test]
fn rule_3_already_refunded() {
    let v = one("dan@example.com", "ORD-4001");
    check(
        &v,
        "already-refunded",
        "decline",
        0,
        &["cus_SgDan", "ch_SgD1", "re_SgD1"],
    );
    assert_eq!(v["currency"], "usd");
}

#[test]
fn rule_4_disputed() {
    let v = one("eve@example.com", "ORD-5001");
    check(
        &v,
        "disputed",
        "decline",
        0,
        &["cus_SgEve", "ch_SgE1", "du_SgE1"],
    );
}

#[test]
fn rule_5_refund_pattern() {
    let v = one("fay@example.com", "ORD-6001");
    check(
        &v,
        "refund-pattern",
        "review",
        0,
        &["cus_SgFay", "ch_SgF2", "re_SgF0", "re_SgF1"],
    );
}

#[test]
fn rule_6_first_purchase_window() {
    let v = one("ann@example.com", "ORD-1001");
    check(
        &v,
        "first-purchase-window",
        "approve",
        4900,
        &["cus_SgAnn", "ch_SgA1"],
    );
    // Exactly 30 x 24 h after the charge (the last second inside), JPY, and an email in
    // another case.
    let v = one("gus@example.com", "ORD-7001");
    check(
        &v,
        "first-purchase-window",
        "approve",
        4980,
        &["cus_SgGus", "ch_SgG1"],
    );
    assert_eq!(v["currency"], "jpy");
    // A partially refunded charge: the rest.
    let v = one("lou@example.com", "ORD-1301");
    check(
        &v,
        "first-purchase-window",
        "approve",
        5000,
        &["cus_SgLou", "ch_SgL1", "re_SgL1"],
    );
}

#[test]
fn rule_7_annual_prorate() {
    // KWD: floor(35.990 x 7 / 12) = 20.994, floored to 20.990.
    let v = one("hal@example.com", "ORD-8001");
    check(
        &v,
        "annual-prorate",
        "partial",
        20_990,
        &["cus_SgHal", "ch_SgH1", "sub_SgHal"],
    );
    assert!(
        v["reason"]
            .as_str()
            .is_some_and(|r| r
                .contains("floor(35.990 KWD x 7 / 12) = 20.994 KWD, rounded down to 20.990 KWD")),
        "{v}"
    );
    // Paid a week into the period: tied by the latest invoice's payment.
    let v = one("kim@example.com", "ORD-1201");
    check(
        &v,
        "annual-prorate",
        "partial",
        6000,
        &["cus_SgKim", "ch_SgK1", "sub_SgKim", "in_SgKim"],
    );
}

#[test]
fn rule_8_outside_window() {
    let v = one("ivy@example.com", "ORD-9001");
    check(
        &v,
        "outside-window",
        "decline",
        0,
        &["cus_SgIvy", "ch_SgI1"],
    );
    // Two customers with one email: both named; the other's older charge was the first.
    let v = one("jo@example.com", "ORD-1101");
    check(
        &v,
        "outside-window",
        "decline",
        0,
        &["cus_SgJo1", "cus_SgJo2", "ch_SgJ1", "ch_SgJ0"],
    );
}

#[test]
fn a_broken_tickets_file_names_the_lines_writes_the_rest_and_exits_5() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("tickets.csv");
    std::fs::write(
        &path,
        "ticket_id,email,order_id,message\n\
         T-02,ann@example.com,ORD-1001,ok\n\
         T-BAD,ben@example.com\n\
         T-03,,ORD-2002,no email\n\
         T-05,dan@example.com,ORD-4001,\"fine, thanks\"\n",
    )
    .expect("write");
    let (run, jsonl, csv, _t) = batch_through_fake(&path);
    run.code(5);
    assert!(
        run.stderr.contains("tickets.csv line 3: has 2 fields"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("tickets.csv line 4: email is empty"),
        "{}",
        run.stderr
    );
    let rows = parse_jsonl(&jsonl);
    let ids: Vec<&str> = rows
        .iter()
        .map(|r| r["ticket_id"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(ids, ["T-02", "T-05"]);
    assert_eq!(csv.lines().count(), 3, "{csv}");
}

#[test]
fn json_lines_tickets_work_too() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("tickets.jsonl");
    std::fs::write(
        &path,
        "{\"ticket_id\":\"T-02\",\"email\":\"ann@example.com\",\"order_id\":\"ORD-1001\",\"message\":\"hi\"}\n\
         {\"ticket_id\":\"T-04\",\"email\":\"cat@example.com\",\"order_id\":\"ORD-3001\",\"amount\":\"25.00\"}\n",
    )
    .expect("write");
    let (run, jsonl, _csv, _t) = batch_through_fake(&path);
    run.success();
    let rows = parse_jsonl(&jsonl);
    assert_eq!(rows[0]["rule"], "first-purchase-window");
    // The ticket's amount breaks the tie between the two charges of ORD-3001 (the other,
    // a day older, makes this one a second purchase).
    assert_eq!(rows[1]["rule"], "outside-window");
    assert_eq!(rows[1]["evidence"][1], "ch_SgC2");
}

#[test]
fn a_policy_with_a_typo_is_refused_with_its_line_and_exit_2() {
    let t = Tieout::new();
    let policy = t.work_dir().join("policy.toml");
    std::fs::write(&policy, "[window]\ndays = 14\nfirst_purchse_only = false\n").expect("write");
    let run = t.run(&[
        "suggest",
        "--email",
        "a@x.io",
        "--order",
        "O-1",
        "--policy",
        policy.to_str().expect("utf8"),
    ]);
    run.code(2);
    assert!(run.stderr.contains("line 3, column 1"), "{}", run.stderr);
    assert!(run.stderr.contains("first_purchse_only"), "{}", run.stderr);
}

#[test]
fn a_policy_changes_the_outcome_through_the_command() {
    let fake = start_fake(FakeConfig::default().fixtures(fixture_dir()));
    let t = Tieout::against(&fake);
    let policy = t.work_dir().join("policy.toml");
    std::fs::write(&policy, "[window]\ndays = 31\n").expect("write");
    let run = t.run(&[
        "suggest",
        "--email",
        "ivy@example.com",
        "--order",
        "ORD-9001",
        "--policy",
        policy.to_str().expect("utf8"),
    ]);
    run.success();
    let v: Value = serde_json::from_str(run.stdout.trim()).expect("json");
    assert_eq!(v["rule"], "first-purchase-window");
    assert_eq!(v["amount"], 2000);
    assert_eq!(v["ticket_id"], Value::Null);
}

#[test]
fn a_second_different_run_does_not_overwrite_without_force() {
    let fake = start_fake(FakeConfig::default().fixtures(fixture_dir()));
    let t = Tieout::against(&fake);
    let tickets = t.work_dir().join("t.csv");
    std::fs::write(
        &tickets,
        "ticket_id,email,order_id,message\nT-1,ann@example.com,ORD-1001,x\n",
    )
    .expect("write");
    let tickets = tickets.to_str().expect("utf8");
    t.run(&["suggest", "--tickets", tickets]).success();
    // Same run again: same bytes, fine.
    t.run(&["suggest", "--tickets", tickets]).success();
    std::fs::write(
        t.work_dir().join("t.csv"),
        "ticket_id,email,order_id,message\nT-2,ivy@example.com,ORD-9001,x\n",
    )
    .expect("write");
    // Only the csv was edited by hand: the whole set is refused (exit 2, usage) and the
    // jsonl of the earlier run is not replaced either.
    std::fs::write(t.work_dir().join("refund-suggestions.csv"), "mine\n").expect("write");
    let run = t.run(&["suggest", "--tickets", tickets]);
    run.code(2);
    assert!(run.stderr.contains("--force"), "{}", run.stderr);
    let jsonl =
        std::fs::read_to_string(t.work_dir().join("refund-suggestions.jsonl")).expect("read");
    assert!(
        jsonl.contains("\"T-1\"") && !jsonl.contains("\"T-2\""),
        "{jsonl}"
    );
    t.run(&["suggest", "--tickets", tickets, "--force"])
        .success();
    let jsonl =
        std::fs::read_to_string(t.work_dir().join("refund-suggestions.jsonl")).expect("read");
    assert!(jsonl.contains("\"T-2\""), "{jsonl}");
}

fn demo_tickets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo/tickets.csv")
}

/// `suggest --tickets fixtures/demo/tickets.csv` in `t`; returns the run and both files.
fn demo_batch(t: &Tieout) -> (crate::support::RunOutput, String, String) {
    let out = t.work_dir().join("out");
    let run = t.run(&[
        "suggest",
        "--tickets",
        demo_tickets().to_str().expect("utf8 path"),
        "--out",
        out.to_str().expect("utf8 path"),
    ]);
    let jsonl = std::fs::read_to_string(out.join("refund-suggestions.jsonl")).unwrap_or_default();
    let csv = std::fs::read_to_string(out.join("refund-suggestions.csv")).unwrap_or_default();
    (run, jsonl, csv)
}

#[test]
fn the_demo_tickets_get_what_they_were_designed_for() {
    let (run, jsonl, csv) = demo_batch(&Tieout::demo());
    run.success();
    assert!(
        run.stderr
            .contains("20 ticket(s): 7 approve, 2 partial, 7 decline, 4 review"),
        "{}",
        run.stderr
    );
    let rows = parse_jsonl(&jsonl);
    let expected = tieout_testkit::generator::tickets::EXPECTED;
    assert_eq!(rows.len(), expected.len());
    for (row, want) in rows.iter().zip(expected) {
        assert_eq!(row["ticket_id"], want.ticket_id, "{row}");
        assert_eq!(row["rule"], want.rule, "{row}");
        assert_eq!(row["recommendation"], want.recommendation, "{row}");
        assert_eq!(row["amount"], want.amount.unwrap_or(0), "{row}");
        assert_eq!(row["currency"].as_str(), want.currency, "{row}");
    }
    assert_golden("suggest/demo/refund-suggestions.jsonl", &jsonl);
    assert_golden("suggest/demo/refund-suggestions.csv", &csv);
}

#[test]
fn the_demo_tickets_through_the_fake_server_agree_with_demo() {
    let (demo_run, demo_jsonl, demo_csv) = demo_batch(&Tieout::demo());
    demo_run.success();
    let fake = start_fake(FakeConfig::default());
    let (run, jsonl, csv) = demo_batch(&Tieout::against(&fake));
    run.success();
    assert!(
        run.stderr.contains("list calls per ticket"),
        "{}",
        run.stderr
    );
    assert_eq!(jsonl, demo_jsonl);
    assert_eq!(csv, demo_csv);
    // Only ticket-scoped reads: no balance transactions, payouts or invoice listings.
    let paths: Vec<String> = fake.requests().iter().map(|r| r.path.clone()).collect();
    assert!(
        paths.iter().all(|p| [
            "/v1/customers",
            "/v1/customers/search",
            "/v1/charges",
            "/v1/subscriptions",
            "/v1/refunds",
            "/v1/disputes",
            "/v1/invoice_payments"
        ]
        .contains(&p.as_str())),
        "{paths:?}"
    );
}

/// The Refunds pane and `tieout suggest --tickets` read a tickets file through one reader:
/// given the same file, whose `amount` column breaks the tie between ORD-3001's two charges
/// (ch_SgC1 15.00, ch_SgC2 25.00), they recommend the same, ticket by ticket.
#[test]
fn the_refunds_pane_and_suggest_recommend_the_same_for_one_tickets_file() {
    let text = "ticket_id,email,order_id,message,amount\n\
                T-A,cat@example.com,ORD-3001,Refund the second one,25.00\n\
                T-B,cat@example.com,ORD-3001,No amount given,\n\
                T-C,ann@example.com,ORD-1001,\"Bought by mistake, please refund.\",\n";
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("tickets.csv");
    std::fs::write(&path, text).expect("write tickets");

    // The command, through the binary and the fake server.
    let (run, jsonl, _csv, _t) = batch_through_fake(&path);
    run.success();
    let command: Vec<&str> = jsonl.lines().collect();

    // The pane: the workspace's tickets reader, then the pane's decision job.
    let tickets = tieout::tui::workspace::parse_tickets_csv(text).expect("the pane reads it");
    let pane: Vec<String> = tieout::tui::panes::refunds::assess_all(
        &fixture_account(),
        None,
        &tickets,
        &Policy::default_policy(),
        now(),
        &jiff::tz::TimeZone::UTC,
    )
    .iter()
    .map(|a| tieout::report::refunds::json_line(&a.suggestion))
    .collect();
    assert_eq!(command, pane);

    // The amount did break the tie (and only where it was given).
    let v = parse_jsonl(&jsonl);
    assert_ne!(v[0]["rule"], "ambiguous-charge", "{}", v[0]);
    // The charge the amount picked is the one decided on (the customer comes first).
    assert_eq!(v[0]["evidence"][1], "ch_SgC2", "{}", v[0]);
    assert_eq!(v[1]["rule"], "ambiguous-charge", "{}", v[1]);
}

/// `suggest --tickets <the demo's tickets> --explain` with `t`: the run (a success), the
/// trails' Markdown and the suggestions' JSON lines.
fn explain_demo_batch(t: &Tieout) -> (crate::support::RunOutput, String, String) {
    let out = t.work_dir().join("out");
    let run = t.run(&[
        "suggest",
        "--tickets",
        demo_tickets().to_str().expect("utf8 path"),
        "--out",
        out.to_str().expect("utf8 path"),
        "--explain",
    ]);
    run.success();
    let md = std::fs::read_to_string(out.join("refund-explanations.md")).expect("written");
    let jsonl = std::fs::read_to_string(out.join("refund-suggestions.jsonl")).expect("written");
    (run, md, jsonl)
}

/// `--explain` on the demo tickets writes the trail of every ticket beside the suggestions:
/// its lookups, each candidate charge with why it matched or not, each rule in order and
/// the one that decided (recorded while deciding: the last rule step is the output's rule).
#[test]
fn explain_writes_the_trail_of_every_demo_ticket() {
    let (_, md, jsonl) = explain_demo_batch(&Tieout::demo());
    let sections: Vec<&str> = md.split("\n## ").skip(1).collect();
    let rows = parse_jsonl(&jsonl);
    assert_eq!(sections.len(), rows.len());
    for (section, row) in sections.iter().zip(&rows) {
        let id = row["ticket_id"].as_str().expect("id");
        assert!(section.starts_with(id), "{section}");
        assert!(section.contains("- customers with email"), "{section}");
        let rule = row["rule"].as_str().expect("rule");
        assert!(
            section.contains(&format!("{rule}: applies, and decides\n")),
            "{section}"
        );
        assert!(
            section.ends_with(&format!("Decided by: {rule}\n")),
            "{section}"
        );
        if row["evidence"].as_array().is_some_and(|e| e.len() > 1) {
            assert!(
                section.contains(": matches: "),
                "a charge relied on matched: {section}"
            );
        }
    }
    // The demo makes no request: each trail says which data it was decided over.
    assert_eq!(
        md.matches("Stripe requests:\n\n- none: decided over the bundled demo account")
            .count(),
        rows.len(),
        "{md}"
    );
    assert_golden("suggest/demo/refund-explanations.md", &md);
    // One ticket: the trail on stderr, the JSON on stdout as before.
    let one = Tieout::demo().run(&[
        "suggest",
        "--email",
        "maya.okafor@example.com",
        "--order",
        "ORD-7021",
        "--explain",
    ]);
    one.success();
    assert!(
        one.stderr.contains("Decided by: no-charge"),
        "{}",
        one.stderr
    );
    assert!(one.stdout.starts_with("{\"ticket_id\""), "{}", one.stdout);
}

/// Live through the fake Stripe, `--explain` names the requests each ticket made: the
/// endpoint and query, the count returned and the Request-Id the fake answered with (an
/// answer an earlier ticket fetched is named as reused); the key is nowhere in it.
#[test]
fn explain_names_the_stripe_requests_each_ticket_made_and_never_the_key() {
    let fake = start_fake(FakeConfig::default());
    let (run, md, _) = explain_demo_batch(&Tieout::against(&fake));
    let sections: Vec<&str> = md.split("\n## ").skip(1).collect();
    assert!(!sections.is_empty());
    for section in &sections {
        let stripe = section
            .split("\n\nLookups:")
            .next()
            .expect("a Stripe requests part");
        assert!(
            stripe.contains("Stripe requests:\n\n- GET /v1/customers?email="),
            "{section}"
        );
        // Every request made for the ticket carries the fake's Request-Id, or says it
        // reused an earlier ticket's answer.
        for line in stripe.lines().filter(|l| l.starts_with("- GET ")) {
            assert!(
                line.contains("(Request-Id req_fake_") || line.ends_with("answer reused)"),
                "{line}"
            );
            assert!(line.contains(" returned"), "{line}");
        }
    }
    // A ticket whose customer was found lists its charges and subscriptions too.
    assert!(md.contains("- GET /v1/charges?customer=cus_"), "{md}");
    assert!(md.contains("- GET /v1/subscriptions?customer=cus_"), "{md}");
    assert!(
        md.contains("- GET /v1/customers/search?query=email:'"),
        "{md}"
    );
    // The requests the fake logged are the ones named (each fresh Request-Id once).
    let logged = fake.requests().len();
    let named = md.matches("(Request-Id req_fake_").count();
    assert_eq!(named, logged, "{md}");
    // The demo's trails as a live run writes them (the Request-Ids, numbered in the order
    // the fake received concurrent requests, made stable).
    assert_golden(
        "suggest/fake/refund-explanations.md",
        &stable_request_ids(&md),
    );
    for secret in [TEST_KEY, "Bearer", "Authorization"] {
        assert!(!md.contains(secret), "{secret} in the trail");
        assert!(!run.stderr.contains(TEST_KEY) && !run.stdout.contains(TEST_KEY));
    }
}

/// `req_fake_<n>` as `req_fake_N`: the fake numbers requests as they arrive, and a wave's
/// requests run concurrently.
fn stable_request_ids(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("req_fake_") {
        let (head, tail) = rest.split_at(at + "req_fake_".len());
        out.push_str(head);
        let digits = tail.chars().take_while(char::is_ascii_digit).count();
        out.push('N');
        rest = &tail[digits..];
    }
    out.push_str(rest);
    out
}
