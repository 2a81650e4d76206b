//! `tieout dunning --since` end to end through the fake Stripe: a run on day 1, the account
//! changed overnight (one invoice paid, one new failure, one marked uncollectible, one
//! whose retries ran out, one voided), a run on day 2 with `--since last`; every change
//! category and amount is checked in the Markdown, the changes CSV and the JSON; the
//! invoices that left the list come with the morning's read (its paid and void invoices
//! since the month before last), so none is looked up on its own (the lookup of older
//! ones: `run_history`'s `departures_come_from_the_data_then_the_lookup`).

use std::path::Path;

use serde_json::Value;

use crate::support::cli::Tieout;
use crate::support::fake::start_fake;
use tieout_testkit::fake_stripe::FakeConfig;

const DAY1: &str = "2026-11-30T12:00:00Z";
const DAY2: &str = "2026-12-01T07:30:00Z";

fn json(dir: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(dir.join("failed-payments.json")).expect("json"))
        .expect("parse")
}

fn text(dir: &Path, name: &str) -> String {
    String::from_utf8(std::fs::read(dir.join(name)).expect(name)).expect("utf8")
}

/// The worklist rows of a JSON export, by invoice id.
fn rows(v: &Value) -> Vec<Value> {
    v["rows"].as_array().cloned().unwrap_or_default()
}

struct Picked {
    paid: Value,
    unc: Value,
    void: Value,
    out_of_retries: Value,
    new_id: String,
    new_amount: i64,
    new_currency: String,
}

/// Changes the fake account as the night would: five invoices of the day-1 list.
fn change_the_account(fake: &tieout_testkit::fake_stripe::FakeStripe, day1: &[Value]) -> Picked {
    let with_retry: Vec<&Value> = day1.iter().filter(|r| r["retries_left"] == true).collect();
    let without: Vec<&Value> = day1.iter().filter(|r| r["retries_left"] != true).collect();
    assert!(
        with_retry.len() >= 2 && without.len() >= 3,
        "the demo list is varied enough"
    );
    let (paid, out_of_retries) = (with_retry[0].clone(), with_retry[1].clone());
    let (unc, void, template) = (without[0].clone(), without[1].clone(), without[2].clone());
    let id = |r: &Value| r["invoice_id"].as_str().expect("id").to_string();
    let edit = |r: &Value, f: &dyn Fn(&mut Value)| {
        let mut inv = fake.object(&id(r)).expect("the invoice is served");
        f(&mut inv);
        fake.put(inv).expect("put");
    };
    edit(&paid, &|inv| {
        let due = inv["amount_due"].clone();
        inv["status"] = "paid".into();
        inv["amount_paid"] = due;
        inv["amount_remaining"] = 0.into();
        inv["next_payment_attempt"] = Value::Null;
    });
    edit(&unc, &|inv| inv["status"] = "uncollectible".into());
    edit(&void, &|inv| {
        inv["status"] = "void".into();
        inv["next_payment_attempt"] = Value::Null;
    });
    edit(&out_of_retries, &|inv| {
        inv["next_payment_attempt"] = Value::Null
    });
    // A new failure: an open invoice attempted once overnight, with no payment recorded.
    let mut new = fake.object(&id(&template)).expect("template");
    let new_id = "in_f18NewFailure0001".to_string();
    new["id"] = new_id.clone().into();
    new["number"] = "F18-0001".into();
    new["amount_due"] = 4321.into();
    new["amount_remaining"] = 4321.into();
    new["attempted"] = true.into();
    new["attempt_count"] = 1.into();
    new["due_date"] = Value::Null;
    if let Some(o) = new.as_object_mut() {
        o.remove("payments");
    }
    let new_currency = new["currency"].as_str().expect("currency").to_string();
    fake.put(new).expect("put new");
    Picked {
        paid,
        unc,
        void,
        out_of_retries,
        new_id,
        new_amount: 4321,
        new_currency,
    }
}

fn major(minor: i64, currency: &str) -> String {
    let c = tieout::money::Currency::parse(currency).expect("currency");
    tieout::money::format_major(minor, c)
}

#[test]
fn day_two_since_last_reports_every_change_in_all_three_formats() {
    let fake = start_fake(FakeConfig::default());
    let t = Tieout::against(&fake).now(Some(DAY1));
    t.run(&["dunning", "--out", "day1"]).success();
    let day1 = rows(&json(&t.work_dir().join("day1")));
    let p = change_the_account(&fake, &day1);
    fake.clear_requests();

    let t = t.now(Some(DAY2));
    let run = t.run(&[
        "dunning",
        "--since",
        "last",
        "--out",
        "day2",
        "--summary",
        "post.txt",
    ]);
    run.success();
    let dir = t.work_dir().join("day2");
    let j = json(&dir);
    let ch = &j["changes"];
    assert_eq!(ch["compared"], true);
    assert_eq!(ch["since_utc"], DAY1);
    let lines = ch["rows"].as_array().expect("rows");
    let find = |id: &str, kind: &str| {
        lines
            .iter()
            .find(|l| l["invoice_id"] == id && l["change"] == kind)
            .unwrap_or_else(|| panic!("{id} {kind} in {lines:#?}"))
            .clone()
    };
    let id = |r: &Value| r["invoice_id"].as_str().expect("id").to_string();
    let amount = |r: &Value| r["amount_remaining"].as_i64().expect("amount");
    let cur = |r: &Value| r["currency"].as_str().expect("cur").to_string();

    let rec = find(&id(&p.paid), "recovered");
    assert_eq!(rec["amount_before"].as_i64(), Some(amount(&p.paid)));
    assert_eq!(rec["amount_now"], Value::Null);
    assert_eq!(
        find(&id(&p.unc), "written_off")["amount_before"].as_i64(),
        Some(amount(&p.unc))
    );
    assert_eq!(
        find(&id(&p.void), "voided")["amount_before"].as_i64(),
        Some(amount(&p.void))
    );
    let nr = find(&id(&p.out_of_retries), "no_retry_left");
    assert_eq!(
        (
            nr["retries_left_before"].clone(),
            nr["retries_left_now"].clone()
        ),
        (true.into(), false.into())
    );
    let new = find(&p.new_id, "new");
    assert_eq!(new["amount_now"].as_i64(), Some(p.new_amount));
    assert_eq!(new["amount_before"], Value::Null);
    // The recovered total per currency is the paid invoice's day-1 amount.
    let totals = ch["totals"]["recovered"].as_array().expect("totals");
    assert_eq!(totals.len(), 1, "{totals:?}");
    assert_eq!(totals[0]["currency"], cur(&p.paid).as_str());
    assert_eq!(totals[0]["amount"].as_i64(), Some(amount(&p.paid)));
    for kind in ["new", "recovered", "written_off", "voided", "no_retry_left"] {
        assert_eq!(ch["counts"][kind], 1, "{kind}: {ch:#}");
    }
    // Nothing else changed overnight.
    assert_eq!(lines.len(), 5, "{lines:#?}");

    // The CSV holds the same lines, money in major units.
    let csv = text(&dir, "failed-payments-changes.csv");
    let mut csv_lines = csv.lines();
    assert_eq!(
        csv_lines.next(),
        Some(
            "invoice_id,change,currency,amount_before,amount_now,action_before,action_now,retries_left_before,retries_left_now"
        )
    );
    let body: Vec<&str> = csv_lines.collect();
    assert_eq!(body.len(), 5);
    let new_line = format!(
        "{},new,{},,{},,{},,{}",
        p.new_id,
        p.new_currency,
        major(p.new_amount, &p.new_currency),
        new["action_now"].as_str().expect("action"),
        if new["retries_left_now"] == true {
            "yes"
        } else {
            "no"
        }
    );
    assert!(body.contains(&new_line.as_str()), "{new_line}\n{csv}");
    let rec_line = format!(
        "{},recovered,{},{},,{},,yes,",
        id(&p.paid),
        cur(&p.paid),
        major(amount(&p.paid), &cur(&p.paid)),
        p.paid["action"].as_str().expect("action")
    );
    assert!(body.contains(&rec_line.as_str()), "{rec_line}\n{csv}");
    for (r, kind) in [
        (&p.unc, "written_off"),
        (&p.void, "voided"),
        (&p.out_of_retries, "no_retry_left"),
    ] {
        let prefix = format!("{},{kind},{},{},", id(r), cur(r), major(amount(r), &cur(r)));
        assert!(
            body.iter().any(|l| l.starts_with(&prefix)),
            "{prefix}\n{csv}"
        );
    }

    // The Markdown opens with the section, every category with its count and amount.
    let md = text(&dir, "failed-payments.md");
    let since_at = md
        .find("## Since the run of 2026-11-30T12:00:00Z")
        .expect(&md);
    assert!(
        since_at < md.find("## Totals").expect("totals"),
        "the section is at the top"
    );
    let money = |r: &Value| {
        let c = tieout::money::Currency::parse(&cur(r)).expect("c");
        tieout::money::Money::new(amount(r), c).display()
    };
    for (label, r) in [
        ("Recovered (paid)", &p.paid),
        ("Written off (uncollectible)", &p.unc),
        ("Voided", &p.void),
        ("Newly without automatic retry", &p.out_of_retries),
    ] {
        let line = format!("| {label} | 1 | {} |", money(r));
        assert!(md.contains(&line), "{line}\n{md}");
    }
    let c = tieout::money::Currency::parse(&p.new_currency).expect("c");
    let new_money = tieout::money::Money::new(p.new_amount, c).display();
    assert!(
        md.contains(&format!("| New on the list | 1 | {new_money} |")),
        "{md}"
    );
    assert!(md.contains("| Action changed | 0 |  |"), "{md}");

    // The post names the changes too.
    let post = text(&t.work_dir(), "post.txt");
    assert!(post.starts_with("Failed payments: "), "{post}");
    let since_line = post.lines().last().expect("a line");
    assert_eq!(
        since_line,
        format!(
            "Since 2026-11-30T12:00:00Z: 1 new, 1 recovered ({}), 1 written off, 1 voided, 1 newly without retry",
            money(&p.paid)
        )
    );
    assert!(run.stdout.contains(since_line), "{}", run.stdout);

    // The paid and voided invoices came with the read (the morning reads the paid and
    // void invoices since the month before last, for its recovery line), and so did the
    // uncollectible one: none was looked up on its own.
    let gets: Vec<String> = fake.requests().iter().map(|r| r.path.clone()).collect();
    for r in [&p.paid, &p.void, &p.unc] {
        assert!(
            !gets.contains(&format!("/v1/invoices/{}", id(r))),
            "{gets:?}"
        );
    }
    assert!(fake.requests().iter().all(|r| r.method == "GET"));
}

#[test]
fn since_without_an_earlier_run_says_so_and_a_bad_value_is_refused() {
    let t = Tieout::demo();
    let run = t.run(&["dunning", "--since", "last"]);
    run.success();
    let md = text(&t.work_dir(), "failed-payments.md");
    assert!(
        md.contains("No earlier run of this account is recorded"),
        "{md}"
    );
    assert_eq!(json(&t.work_dir())["changes"]["compared"], false);
    assert_eq!(
        text(&t.work_dir(), "failed-payments-changes.csv")
            .lines()
            .count(),
        1
    );
    // The run was recorded: the next one compares with it (the demo does not change).
    let t = t.now(Some("2026-11-30T13:00:00Z"));
    let run = t.run(&["dunning", "--since", "2026-11-30", "--out", "again"]);
    run.success();
    let j = json(&t.work_dir().join("again"));
    assert_eq!(j["changes"]["compared"], true);
    assert_eq!(j["changes"]["rows"], Value::Array(vec![]));
    assert!(
        run.stdout
            .contains("Since 2026-11-30T12:00:00Z: nothing changed"),
        "{}",
        run.stdout
    );
    // A date before any kept run.
    let run = t.run(&["dunning", "--since", "2026-11-01", "--out", "old"]);
    run.success();
    assert!(
        text(&t.work_dir().join("old"), "failed-payments.md")
            .contains("No run of this account before 2026-11-02T00:00:00Z is kept")
    );
    let bad = t.run(&["dunning", "--since", "yesterday"]);
    bad.code(2);
    assert!(
        bad.stderr.contains("neither `last` nor a date"),
        "{}",
        bad.stderr
    );
    // Without --since the exports are exactly as before (no changes file, no JSON key).
    let plain = t.run(&["dunning", "--out", "plain"]);
    plain.success();
    assert!(
        !t.work_dir()
            .join("plain/failed-payments-changes.csv")
            .exists()
    );
    assert!(json(&t.work_dir().join("plain")).get("changes").is_none());
}

/// The post `--summary` writes, on the demo a day after a first run: golden.
#[test]
fn the_summary_file_matches_its_golden() {
    let t = Tieout::demo();
    t.run(&["dunning", "--out", "day1"]).success();
    let t = t.now(Some(DAY2));
    let run = t.run(&[
        "dunning",
        "--since",
        "last",
        "--out",
        "day2",
        "--summary",
        "summary.txt",
    ]);
    run.success();
    let post = std::fs::read(t.work_dir().join("summary.txt")).expect("summary");
    crate::support::golden::assert_golden_bytes("dunning/summary.txt", &post);
    // The post is what stdout printed before the paths.
    let text = String::from_utf8(post).expect("utf8");
    assert!(run.stdout.starts_with(&text), "{}", run.stdout);
}
