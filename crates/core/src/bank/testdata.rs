//! Test data: the demo account's October and November 2026 payouts and the fixture
//! statements under tests/fixtures/bank/.

use jiff::civil::date;

use super::csv::CsvProfile;
use super::{BankLine, PayoutKey, read_statement};
use crate::model::status::PayoutStatus;
use crate::money::Currency;

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The demo account's payouts, read from the demo JSON (`trace_id.value` included).
pub fn demo_payouts() -> Vec<PayoutKey> {
    let text =
        std::fs::read_to_string(root().join("fixtures/demo/payouts.json")).expect("demo payouts");
    let v: Vec<serde_json::Value> = serde_json::from_str(&text).expect("json");
    v.iter()
        .map(|p| {
            let s = |k: &str| p[k].as_str().map(str::to_string);
            let arrival = jiff::Timestamp::from_second(p["arrival_date"].as_i64().unwrap_or(0))
                .expect("ts")
                .to_zoned(jiff::tz::TimeZone::UTC)
                .date();
            PayoutKey {
                id: s("id").unwrap_or_default(),
                amount: p["amount"].as_i64().unwrap_or(0),
                currency: Currency::parse(p["currency"].as_str().unwrap_or("")).expect("currency"),
                arrival,
                status: PayoutStatus::parse(p["status"].as_str().unwrap_or("")),
                failure_code: s("failure_code"),
                trace_id: p["trace_id"]["value"].as_str().map(str::to_string),
                statement_descriptor: s("statement_descriptor"),
            }
        })
        .filter(|p| p.arrival >= date(2026, 10, 1) && p.arrival <= date(2026, 11, 30))
        .collect()
}

pub fn fixture(name: &str, profile: &str) -> Vec<BankLine> {
    let bytes = std::fs::read(root().join("tests/fixtures/bank").join(name)).expect("fixture");
    let profile = CsvProfile::built_in(profile).expect("profile");
    read_statement(name, &bytes, &profile).expect("reads")
}
