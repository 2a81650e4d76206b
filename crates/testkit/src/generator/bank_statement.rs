//! The demo's bank statements (`fixtures/demo/bank-usd.csv`, `bank-eur.csv`,
//! `bank-jpy.csv`): one account per currency, in tieout's own CSV layout
//! (`date,amount,currency,description,reference,id`), covering October and November
//! 2026 as the bank would show them, made from the payouts the generator wrote.
//!
//! Every payout that reached the bank is a credit, most on its arrival date with the trace
//! id in the text; the wrinkles a bookkeeper meets are drawn from their own seeded stream
//! (so no other demo object moves): a deposit whose text carries no trace id, one booked
//! a business day or two late, the failed payout's credit and the debit that took it back,
//! a customer's wire of the same amount as a payout, a payout whose deposit has not come
//! in by the statement's end, and the account's ordinary traffic (rent, payroll, fees).

use std::collections::BTreeMap;

use jiff::civil::Date;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

use tieout_core::bank::matcher::add_business_days;
use tieout_core::money::{Currency, format_major};

use super::writer::GenError;

/// The statements' currencies, in file order.
pub const CURRENCIES: [&str; 3] = ["usd", "eur", "jpy"];

/// The file a currency's statement is written to.
pub fn file_name(currency: &str) -> String {
    format!("bank-{currency}.csv")
}

/// The statements cover these days (inclusive).
const FIRST: Date = jiff::civil::date(2026, 10, 1);
const LAST: Date = jiff::civil::date(2026, 11, 30);

/// Mixed into the seed so the statements' stream is the generator's own.
const STREAM: u64 = 0xBA4C_57A7_E3E7;

struct Line {
    date: Date,
    amount: i64,
    description: String,
    reference: String,
}

fn date_of(ts: i64) -> Date {
    jiff::Timestamp::from_second(ts)
        .map(|t| t.to_zoned(jiff::tz::TimeZone::UTC).date())
        .unwrap_or(FIRST)
}

fn str_of<'a>(p: &'a Value, key: &str) -> &'a str {
    p[key].as_str().unwrap_or("")
}

/// The credits (and the one debit-back) the payouts became.
fn payout_lines(payouts: &[Value], currency: &str, rng: &mut ChaCha8Rng) -> Vec<Line> {
    // The payouts that reached the bank (or were sent and came back) in the period.
    let sent: Vec<&Value> = payouts
        .iter()
        .filter(|p| str_of(p, "currency") == currency)
        .filter(|p| {
            let arrival = date_of(p["arrival_date"].as_i64().unwrap_or(0));
            (FIRST..=LAST).contains(&arrival)
        })
        .filter(|p| !matches!(str_of(p, "status"), "pending" | "in_transit" | "canceled"))
        .collect();
    let n = sent.len().max(1);
    let late = rng.random_range(0..n);
    // One November deposit in USD never reaches this account by the statement's end.
    let november: Vec<usize> = (0..sent.len())
        .filter(|&i| date_of(sent[i]["arrival_date"].as_i64().unwrap_or(0)).month() == 11)
        .filter(|&i| str_of(sent[i], "status") == "paid" && i != late)
        .collect();
    let missing = (currency == "usd" && !november.is_empty())
        .then(|| november[rng.random_range(0..november.len())]);
    let mut out = Vec::new();
    for (i, p) in sent.iter().enumerate() {
        if Some(i) == missing {
            continue;
        }
        let arrival = date_of(p["arrival_date"].as_i64().unwrap_or(0));
        let amount = p["amount"].as_i64().unwrap_or(0);
        let trace = p["trace_id"]["value"].as_str().unwrap_or("");
        let date = if i == late {
            add_business_days(arrival, 2)
        } else {
            arrival
        };
        let kind = match str_of(p, "method") {
            "instant" => "STRIPE INSTANT PAYOUT",
            _ => "STRIPE TRANSFER",
        };
        // Most banks print the trace id; some lines carry only the company name.
        let (description, reference) = if trace.is_empty() || rng.random_range(0..100) < 15 {
            (format!("{kind} ACME DEMO ROASTERS"), String::new())
        } else {
            (
                format!("{kind} {trace} ACME DEMO ROASTERS"),
                trace.to_string(),
            )
        };
        out.push(Line {
            date,
            amount,
            description,
            reference,
        });
        if str_of(p, "status") == "failed" {
            out.push(Line {
                date: add_business_days(arrival, 3),
                amount: -amount,
                description: "RETURN STRIPE TRANSFER R02 ACCOUNT CLOSED".into(),
                reference: String::new(),
            });
        }
    }
    out
}

/// The account's other traffic: rent and payroll, the bank's fee, a card settlement, and
/// one customer's wire of the same amount as a payout near it.
fn other_lines(payouts: &[Value], currency: &str, rng: &mut ChaCha8Rng) -> Vec<Line> {
    let c = Currency::parse(currency).unwrap_or(Currency::XXX);
    let minor = |major: i64| major * 10_i64.pow(c.exponent());
    let mut out = Vec::new();
    for month in [10, 11] {
        out.push(Line {
            date: jiff::civil::date(2026, month, 2),
            amount: -minor(rng.random_range(30..40) * 100),
            description: "RENT OAK STREET PROPERTIES".into(),
            reference: String::new(),
        });
        out.push(Line {
            date: jiff::civil::date(2026, month, 15),
            amount: -minor(rng.random_range(80..120) * 100),
            description: "PAYROLL GUSTO NET PAY".into(),
            reference: String::new(),
        });
        out.push(Line {
            date: jiff::civil::date(2026, month, 28),
            amount: -minor(15),
            description: "MONTHLY ACCOUNT FEE".into(),
            reference: String::new(),
        });
    }
    // A customer pays an invoice by wire, by chance the amount of a payout that week.
    let same: Vec<&Value> = payouts
        .iter()
        .filter(|p| str_of(p, "currency") == currency && str_of(p, "status") == "paid")
        .filter(|p| {
            let d = date_of(p["arrival_date"].as_i64().unwrap_or(0));
            d.month() == 11 && d <= jiff::civil::date(2026, 11, 20)
        })
        .collect();
    if !same.is_empty() {
        let p = same[rng.random_range(0..same.len())];
        let arrival = date_of(p["arrival_date"].as_i64().unwrap_or(0));
        out.push(Line {
            date: add_business_days(arrival, 1),
            amount: p["amount"].as_i64().unwrap_or(0),
            description: "WIRE IN BLUE BOTTLE CAFE INV 2291".into(),
            reference: String::new(),
        });
    }
    out
}

/// The statements, by file name, made from the generated payouts.
pub fn statements(payouts: &[Value], seed: u64) -> Result<BTreeMap<String, String>, GenError> {
    let mut files = BTreeMap::new();
    for (n, currency) in CURRENCIES.iter().enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ STREAM ^ n as u64);
        let c = Currency::parse(currency)
            .map_err(|e| GenError::Invalid(format!("bank statement currency: {e}")))?;
        let mut lines = payout_lines(payouts, currency, &mut rng);
        lines.extend(other_lines(payouts, currency, &mut rng));
        lines.sort_by_key(|a| (a.date, -a.amount));
        let bad = |e: csv::Error| GenError::Invalid(format!("could not write a statement: {e}"));
        let mut w = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        w.write_record([
            "date",
            "amount",
            "currency",
            "description",
            "reference",
            "id",
        ])
        .map_err(bad)?;
        for (i, l) in lines.iter().enumerate() {
            let id = format!(
                "{}{}{:04}",
                currency.to_uppercase(),
                l.date.strftime("%Y%m%d"),
                i + 1
            );
            w.write_record([
                l.date.to_string(),
                format_major(l.amount, c),
                currency.to_uppercase(),
                l.description.clone(),
                l.reference.clone(),
                id,
            ])
            .map_err(bad)?;
        }
        let bytes = w
            .into_inner()
            .map_err(|e| GenError::Invalid(format!("could not write a statement: {e}")))?;
        let text = String::from_utf8(bytes)
            .map_err(|e| GenError::Invalid(format!("a statement is not UTF-8: {e}")))?;
        files.insert(file_name(currency), text);
    }
    Ok(files)
}
