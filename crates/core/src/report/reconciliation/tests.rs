//! The three files on a month with every kind of outcome.

use super::*;
use crate::domain::tieout::testdata::{month, reversal_rows, sample_month};
use crate::domain::tieout::{EMPTY_MONTH, tie_out_month};
use crate::money::{Currency, parse_major};

fn header() -> ReportHeader {
    ReportHeader {
        account_id: "acct_1Demo".into(),
        account_name: Some("Demo | Roasters *Ltd*".into()),
        mode: Mode::Test,
        origin: Origin::Demo,
        read_at: 1_796_040_000,
        time_zone: "UTC".into(),
    }
}

fn csv_rows(bytes: &[u8]) -> Vec<csv_crate::StringRecord> {
    let mut r = csv_crate::ReaderBuilder::new().from_reader(bytes);
    assert_eq!(
        r.headers().expect("header").iter().collect::<Vec<_>>(),
        crate::report::columns::csv_header(&line_columns())
    );
    r.records().map(|x| x.expect("record")).collect()
}

use ::csv as csv_crate;

#[test]
fn csv_has_one_row_per_line_and_not_the_payouts_own() {
    let t = sample_month();
    let bytes = csv(&t);
    let text = String::from_utf8(bytes.clone()).expect("utf8");
    assert!(text.starts_with("payout_id,balance_transaction_id,type,reporting_category,source_id,created_utc,available_on_utc,currency,gross,fee,net,description\r\n"));
    let rows = csv_rows(&bytes);
    // 6 + 1 + 1 + 1 lines; manual and in-progress payouts have none; own txns are not rows.
    assert_eq!(rows.len(), 9);
    assert!(rows.iter().all(|r| &r[2] != "payout"));
    let d1 = rows
        .iter()
        .find(|r| &r[1] == "txn_d1")
        .expect("dispute row");
    assert_eq!(
        d1.iter().collect::<Vec<_>>(),
        [
            "po_tied",
            "txn_d1",
            "adjustment",
            "dispute",
            "src_txn_d1",
            "2026-09-21T14:13:20Z",
            "2026-09-22T18:00:00Z",
            "usd",
            "-20.00",
            "15.00",
            "-35.00",
            ""
        ]
    );
    let yen = rows.iter().find(|r| &r[1] == "txn_y1").expect("yen row");
    assert_eq!((&yen[8], &yen[10]), ("5000", "4860"));
    assert_eq!(
        &yen[11], "'=HYPERLINK(\"http://x\") second line",
        "formula neutralised, one line"
    );
}

#[test]
fn summing_a_payouts_net_column_gives_the_markdown_figure_and_the_amount() {
    let t = sample_month();
    let rows = csv_rows(&csv(&t));
    let md = markdown(&t, &header());
    for p in t.payouts.iter().filter(|p| p.itemisation.is_some()) {
        let cur = p.currency();
        let sum: i64 = rows
            .iter()
            .filter(|r| &r[0] == p.payout.id.as_str())
            .map(|r| {
                let c = Currency::parse(&r[7]).expect("currency");
                parse_major(&r[10], c).expect("net")
            })
            .sum();
        let figure = format!(
            "- Lines' net: {} {cur}",
            crate::money::format_major(sum, cur)
        );
        assert!(md.contains(&figure), "{figure} not in the Markdown");
        if p.verdict == crate::domain::tieout::Verdict::Tied {
            assert_eq!(sum, p.payout.amount, "{}", p.payout.id);
        } else {
            assert_eq!(sum - p.payout.amount, p.difference().expect("diff"));
        }
    }
}

#[test]
fn markdown_reads_well() {
    let md = markdown(&sample_month(), &header());
    for needle in [
        "# Payout reconciliation: October 2026\n",
        "- **Account:** Demo \\| Roasters \\*Ltd\\* (acct_1Demo), test mode\n",
        "- **Data:** the bundled demo account (generated for 2026-11-30T12:00:00Z)\n",
        "- **Period:** payouts arriving from 2026-10-01 to 2026-10-31 inclusive (time zone UTC;",
        "- **Result:** 6 payouts: 2 tied out, 1 with a difference, 1 not itemisable, 1 in progress, 1 failed or canceled\n",
        "### 2026-10-02 · po_tied · tied out\n",
        "- Payout amount: 783.64 USD\n- Lines' net: 783.64 USD (6 balance transactions)\n- Note:",
        "| refund — refunds sent back to customers | 1 | -50.00 | 0.00 | -50.00 |\n",
        "| payout_minimum_balance_hold — withheld to keep the minimum balance | 1 | -10.00 | 0.00 | -10.00 |\n",
        "| **Total** | 6 | 825.92 | 42.28 | **783.64** |\n",
        "### 2026-10-09 · po_short · difference\n",
        "- **Difference: -54.65 USD** (lines' net minus payout amount)\n",
        "### 2026-10-12 · po_manual · not itemisable\n",
        "- Lines' net: not itemised\n- Note: Stripe cannot itemise manual payouts",
        "### 2026-10-30 · po_inprog · in progress\n",
        "· po_failed · failed\n",
        "This payout failed (account_closed: The bank account has been closed.)",
        "| JPY | 1 | 1 | 0 | 0 | 0 | 0 |\n",
        "| USD | 5 | 1 | 1 | 1 | 1 | 1 |\n",
    ] {
        assert!(md.contains(needle), "missing {needle:?} in\n{md}");
    }
    assert_eq!(
        md.matches("**Difference").count(),
        1,
        "a difference line only where they disagree"
    );
}

#[test]
fn json_carries_minor_units_and_nulls_for_not_itemisable() {
    let bytes = json(&sample_month(), &header());
    let v: serde_json::Value = serde_json::from_slice(&bytes).expect("json");
    assert_eq!(v["month"], "2026-10");
    assert_eq!(v["account"]["mode"], "test");
    assert_eq!(v["counts"]["differences"], 1);
    let payouts = v["payouts"].as_array().expect("payouts");
    let by_id = |id: &str| {
        payouts
            .iter()
            .find(|p| p["id"] == id)
            .expect("payout")
            .clone()
    };
    let short = by_id("po_short");
    assert_eq!(short["amount"], 20_000);
    assert_eq!(short["lines_net"], 14_535);
    assert_eq!(short["difference"], -5_465);
    assert_eq!(short["itemised"], true);
    assert_eq!(short["result"], "difference");
    let manual = by_id("po_manual");
    assert!(manual["lines_net"].is_null() && manual["difference"].is_null());
    assert_eq!(manual["itemised"], false);
    assert_eq!(manual["automatic"], false);
    let tied = by_id("po_tied");
    let cats = tied["by_category"].as_array().expect("cats");
    assert_eq!(cats[0]["reporting_category"], "charge");
    assert_eq!(cats[0]["count"], 2);
    assert_eq!(cats[0]["net"], 89_272);
    for key in [
        "id",
        "status",
        "automatic",
        "arrival_date_utc",
        "currency",
        "amount",
        "lines_net",
        "difference",
        "itemised",
        "note",
        "by_category",
    ] {
        assert!(tied.get(key).is_some(), "{key}");
    }
    assert!(v["empty"].is_null());
}

#[test]
fn an_empty_month_says_so_in_every_file() {
    let t = tie_out_month(&[], &[], month("2026-12"), &jiff::tz::TimeZone::UTC);
    let md = markdown(&t, &header());
    assert!(md.ends_with(&format!("\n{EMPTY_MONTH}\n")), "{md}");
    let rows = csv_rows(&csv(&t));
    assert!(rows.is_empty());
    let v: serde_json::Value = serde_json::from_slice(&json(&t, &header())).expect("json");
    assert_eq!(v["empty"], EMPTY_MONTH);
    assert_eq!(v["payouts"].as_array().map(Vec::len), Some(0));
}

#[test]
fn rendering_is_byte_deterministic() {
    let a = render(
        &sample_month(),
        &header(),
        crate::report::Formats::parse("md,csv,json").expect("formats"),
    );
    let b = render(
        &sample_month(),
        &header(),
        crate::report::Formats::parse("json,csv,md").expect("formats"),
    );
    assert_eq!(a, b);
    assert_eq!(
        a.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        [CSV_FILE, MD_FILE, JSON_FILE]
    );
}

/// Data read before the month ended cannot be the month's final word: the report says so
/// (and says nothing when the read came after the month).
#[test]
fn a_month_not_over_at_read_time_is_flagged() {
    let t = sample_month();
    let after = markdown(&t, &header());
    assert!(!after.contains("**Note:**"), "{after}");
    let mut h = header();
    h.read_at = t.end - 3600;
    let during = markdown(&t, &h);
    assert!(
        during.contains(&format!(
            "- **Note:** this month was not over when the data was read ({}); payouts arriving after that are not in this report.",
            crate::time::iso_utc(t.end - 3600)
        )),
        "{during}"
    );
    h.read_at = t.start - 1;
    let before = markdown(&t, &h);
    assert!(
        before.contains("this month had not begun when the data was read"),
        "{before}"
    );
}

/// "All payouts" counts a failed payout whose money never reached the bank (and may be
/// paid out again later): the report says so when there is one, and only then.
#[test]
fn all_payouts_is_explained_when_a_payout_failed() {
    let t = sample_month();
    assert!(t.totals.iter().any(|c| c.failed_or_canceled_amount != 0));
    let md = markdown(&t, &header());
    assert!(md.contains(markdown::FAILED_IN_ALL_PAYOUTS), "{md}");
    let mut quiet = sample_month();
    quiet
        .totals
        .iter_mut()
        .for_each(|c| c.failed_or_canceled_amount = 0);
    assert!(!markdown(&quiet, &header()).contains(markdown::FAILED_IN_ALL_PAYOUTS));
}

/// A reversed payout reads "reversed" and names the payout that reversed it; the reversal
/// names the payout it takes back; the counts table gains a "Reversed" column that month
/// only, and a sentence says how "All payouts" treats the pair.
#[test]
fn a_reversed_payout_and_its_reversal_show_in_every_report() {
    let (payouts, txns) = reversal_rows();
    let t = tie_out_month(&payouts, &txns, month("2026-10"), &jiff::tz::TimeZone::UTC);
    let md = markdown(&t, &header());
    assert!(
        md.contains("2 payouts: 0 tied out, no differences, 1 not itemisable, 0 in progress, 0 failed or canceled, 1 reversed"),
        "{md}"
    );
    assert!(
        md.contains("| Currency | Payouts | Tied out | Difference | Not itemisable | In progress | Failed or canceled | Reversed |"),
        "{md}"
    );
    assert!(md.contains("| USD | 2 | 0 | 0 | 1 | 0 | 0 | 1 |"), "{md}");
    assert!(md.contains(markdown::REVERSED_IN_ALL_PAYOUTS), "{md}");
    assert!(md.contains("· po_orig · reversed\n"), "{md}");
    assert!(
        md.contains("- Status: paid, reversed by po_rev, automatic payout"),
        "{md}"
    );
    assert!(
        md.contains("- Status: paid, the reversal of po_orig, manual payout"),
        "{md}"
    );

    let doc: serde_json::Value = serde_json::from_slice(&json(&t, &header())).expect("json");
    assert_eq!(doc["counts"]["reversed"], 1);
    let orig = &doc["payouts"][0];
    assert_eq!(orig["id"], "po_orig");
    assert_eq!(orig["result"], "reversed");
    assert_eq!(orig["reversed_by"], "po_rev");
    assert!(orig.get("original_payout").is_none());
    let rev = &doc["payouts"][1];
    assert_eq!(rev["original_payout"], "po_orig");
    assert!(rev.get("reversed_by").is_none());

    // A month without one reads as before: no column, no sentence, no optional fields.
    let plain = sample_month();
    let md = markdown(&plain, &header());
    assert!(!md.contains("Reversed"), "{md}");
    assert!(!md.contains(markdown::REVERSED_IN_ALL_PAYOUTS));
    let doc: serde_json::Value = serde_json::from_slice(&json(&plain, &header())).expect("json");
    assert_eq!(doc["counts"]["reversed"], 0);
    assert!(doc["payouts"][0].get("reversed_by").is_none());
}

/// A payout's trace id and statement descriptor reach the JSON and the Markdown; a payout
/// without them has no such member or line.
#[test]
fn trace_ids_and_statement_descriptors_show_where_stripe_set_them() {
    use crate::domain::tieout::testdata::sample_rows;
    use crate::model::status::TraceIdStatus;
    let (mut payouts, txns) = sample_rows();
    payouts[0].trace_id = Some("FED1234567".into());
    payouts[0].trace_id_status = Some(TraceIdStatus::Supported);
    payouts[0].statement_descriptor = Some("DEMO ROASTERS".into());
    payouts[1].trace_id_status = Some(TraceIdStatus::Pending);
    let t = tie_out_month(&payouts, &txns, month("2026-10"), &jiff::tz::TimeZone::UTC);
    let v: serde_json::Value = serde_json::from_slice(&json(&t, &header())).expect("json");
    let by_id = |id: &str| {
        v["payouts"]
            .as_array()
            .expect("payouts")
            .iter()
            .find(|p| p["id"] == id)
            .cloned()
            .expect("payout")
    };
    let first = by_id(&payouts[0].id);
    assert_eq!(first["trace_id"], "FED1234567");
    assert_eq!(first["trace_id_status"], "supported");
    assert_eq!(first["statement_descriptor"], "DEMO ROASTERS");
    let second = by_id(&payouts[1].id);
    assert_eq!(second["trace_id_status"], "pending");
    assert!(second.get("trace_id").is_none() && second.get("statement_descriptor").is_none());
    assert!(by_id(&payouts[2].id).get("trace_id_status").is_none());
    let md = markdown(&t, &header());
    assert!(
        md.contains("- On the bank statement: trace id FED1234567 (supported); statement descriptor \"DEMO ROASTERS\"\n"),
        "{md}"
    );
    assert!(md.contains(
        "- On the bank statement: trace id pending (Stripe fills it up to ten days after paid)\n"
    ));
    assert_eq!(md.matches("On the bank statement").count(), 2);
}
