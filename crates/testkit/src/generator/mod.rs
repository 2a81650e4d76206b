//! A deterministic, seeded generator of a realistic Stripe test account as Stripe-shaped
//! JSON: the bundled demo (`fixtures/demo`) and, scaled up, large accounts for benchmarks.
//!
//! `generate(seed, scale, out_dir)` writes, per the fixture contract of the team brief:
//! one JSON array per object type (`payouts.json`, `balance_transactions.json`,
//! `invoices.json`, `invoice_payments.json`, `payment_intents.json`, `charges.json`,
//! `refunds.json`, `disputes.json`, `customers.json`, `subscriptions.json`,
//! `payment_methods.json`, see [`cards`]; `early_fraud_warnings.json`, see
//! [`fraud_warnings`]), each sorted by
//! `created` (oldest first; the API lists newest first, the fake server re-sorts), plus
//! `payout_lines.json` (`{"po_...": ["txn_...", ...]}`: what each automatic payout paid
//! out, its own `type=payout` transaction last), `account.json`, `balance.json`,
//! `meta.json` and `tickets.csv`, and for the bundled demo its bank statements
//! (`bank-usd.csv`, `bank-eur.csv`, `bank-jpy.csv`, see [`bank_statement`]). Shapes are `2026-07-29.dahlia`'s. Same seed and scale
//! give the same bytes.
//!
//! The account's clock is the fixed demo "now", **2026-11-30T12:00:00Z**.
//!
//! * `--scale 1` is the bundled demo: payouts arriving 2026-09-01..2026-11-30 in usd
//!   (every weekday), eur (weekly, Tuesdays) and jpy (weekly, Thursdays), one manual,
//!   one instant, one failed, one with a minimum-balance hold, one of hundreds of lines
//!   (the 2026-10-16 flash sale), one in transit; ~40 worklist invoices over the decline
//!   codes of `dunning.rs`; 60 customers (and 8 more with the scripted subscriptions of
//!   `cards.rs`); the 20 refund tickets of `tickets.rs`.
//! * `--scale N` (N >= 2) is a large synthetic account: 10·N days of daily payouts in ten
//!   currencies, ~100 lines per payout (charges, refunds, disputes, fees and the
//!   application fees a Connect platform collects), 100·N worklist invoices.
//!   **`--scale 100`** gives the benchmark account of issue 9: ~10,000 payouts,
//!   ~1,000,000 balance transactions, ~100,000 invoices of which 10,000 on the worklist,
//!   ~200,000 charges (`cargo run --release -p tieout-testkit --bin gen-demo -- --seed 7 --scale 100 --out DIR`).
//!   Everything streams to disk; memory holds only customers, subscriptions and the
//!   few weeks of future events and unpaid balance. Measured (seed 7, debug build, the
//!   shared 2-core machine under load): 9,982 payouts, 999,718 balance transactions,
//!   103,665 invoices (10,000 on the worklist), 201,705 charges, 20,220 customers;
//!   1.0 GB of JSON in 4 min 44 s with a peak RSS of 54 MB. `source::demo::load_dir`
//!   reads it back (streaming each array) into `AccountData`.
//!
//! Rules the data keeps (checked by the tests): every automatic payout ties out (sum of
//! its non-payout lines' net == amount), each balance transaction has
//! `net = amount - fee`, amounts are integer minor units (jpy whole yen, kwd multiples
//! of 10), currencies lowercase.

pub mod bank_statement;
pub mod cards;
pub mod clock;
pub mod declines;
pub mod dunning;
pub mod engine;
pub mod fraud_warnings;
pub mod ids;
pub mod next_day;
pub mod objects;
pub mod people;
pub mod recovery;
pub mod tickets;
pub mod traffic;
pub mod writer;

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use clock::{DAY, DEMO_NOW, day_start, utc};
use engine::{Gen, Writers};
pub use next_day::{DayChanges, next_day};
use objects as o;
use tieout_core::money::Currency;
pub use writer::GenError;
use writer::{ArrayWriter, MapWriter, write_text, write_value};

pub const ACCOUNT_ID: &str = "acct_1DemoTieout00001";
pub const ACCOUNT_NAME: &str = "Harbour & Pine Goods (demo)";

/// The scale of the bundled demo.
pub const DEMO_SCALE: u32 = 1;
/// The seed of the bundled demo.
pub const DEMO_SEED: u64 = 7;
/// The scale that makes issue 9's benchmark account.
pub const BENCH_SCALE: u32 = 100;

/// How often an automatic payout of a currency is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    Daily,
    /// Monday to Friday arrivals.
    Weekdays,
    /// One arrival a week on this weekday (0 = Sunday).
    Weekly(i64),
}

/// One settlement currency with its automatic payout schedule and traffic.
#[derive(Debug, Clone)]
pub struct PayoutPlan {
    pub currency: Currency,
    pub schedule: Schedule,
    /// Days from a payout's creation to its arrival.
    pub lead_days: i64,
    /// Days from a charge to its funds being available.
    pub available_delay_days: i64,
    /// One-off charges per day, inclusive range.
    pub charges_per_day: (u32, u32),
}

/// What to generate.
#[derive(Debug, Clone)]
pub struct Params {
    pub scale: u32,
    pub now: i64,
    /// The walk starts here (history: earlier charges, annual plans).
    pub loop_start: i64,
    /// Random traffic starts here; balance transactions from here on are paid out.
    pub flow_start: i64,
    /// No automatic payout arrives before this.
    pub first_arrival: i64,
    pub payout_currencies: Vec<PayoutPlan>,
    /// Regular (non-scenario) customers per presentment currency.
    pub regular_customers: Vec<(Currency, usize)>,
    pub monthly_subs: Vec<(Currency, usize)>,
    pub annual_subs: Vec<(Currency, usize)>,
    /// Application-fee balance transactions per currency and day (Connect platform).
    pub app_fees_per_day: u32,
    /// Worklist invoices; 0 means the hand-written table only (the demo).
    pub worklist: usize,
    pub first_order_no: u64,
    pub refund_per_mille: u32,
    pub dispute_per_mille: u32,
}

fn cur(code: &str) -> Currency {
    Currency::parse(code).unwrap_or(Currency::XXX)
}

impl Params {
    pub fn for_scale(scale: u32) -> Self {
        let now = DEMO_NOW;
        if scale <= 1 {
            return Self {
                scale: 1,
                now,
                loop_start: utc(2025, 11, 1, 0, 0),
                flow_start: utc(2026, 8, 24, 0, 0),
                first_arrival: utc(2026, 9, 1, 0, 0),
                payout_currencies: vec![
                    PayoutPlan {
                        currency: Currency::USD,
                        schedule: Schedule::Weekdays,
                        lead_days: 2,
                        available_delay_days: 2,
                        charges_per_day: (2, 6),
                    },
                    PayoutPlan {
                        currency: Currency::EUR,
                        schedule: Schedule::Weekly(2),
                        lead_days: 3,
                        available_delay_days: 3,
                        charges_per_day: (1, 3),
                    },
                    PayoutPlan {
                        currency: Currency::JPY,
                        schedule: Schedule::Weekly(4),
                        lead_days: 4,
                        available_delay_days: 4,
                        charges_per_day: (0, 3),
                    },
                ],
                regular_customers: vec![
                    (Currency::USD, 22),
                    (Currency::EUR, 9),
                    (cur("gbp"), 4),
                    (Currency::JPY, 3),
                    (cur("kwd"), 2),
                ],
                monthly_subs: vec![(Currency::USD, 8), (Currency::EUR, 3), (Currency::JPY, 2)],
                annual_subs: vec![(Currency::USD, 3), (Currency::EUR, 1)],
                app_fees_per_day: 0,
                worklist: 0,
                first_order_no: 1000,
                refund_per_mille: 50,
                dispute_per_mille: 10,
            };
        }
        let s = scale as usize;
        let days = 10 * i64::from(scale);
        let flow_start = day_start(now) - days * DAY;
        let codes = [
            "usd", "eur", "jpy", "gbp", "cad", "aud", "chf", "sek", "dkk", "nok",
        ];
        let payout_currencies = codes
            .iter()
            .map(|c| PayoutPlan {
                currency: cur(c),
                schedule: Schedule::Daily,
                lead_days: 2,
                available_delay_days: 2,
                charges_per_day: (7, 11),
            })
            .collect();
        let mut regular: Vec<(Currency, usize)> = codes.iter().map(|c| (cur(c), 20 * s)).collect();
        regular.push((cur("kwd"), 2 * s));
        Self {
            scale,
            now,
            loop_start: utc(2025, 11, 1, 0, 0).min(flow_start - 100 * DAY),
            flow_start,
            first_arrival: flow_start + 3 * DAY,
            payout_currencies,
            regular_customers: regular,
            monthly_subs: codes
                .iter()
                .map(|c| (cur(c), (24 * s / 10).max(1)))
                .collect(),
            annual_subs: codes
                .iter()
                .map(|c| (cur(c), (2 * s / 10).max(1)))
                .collect(),
            app_fees_per_day: 80,
            worklist: 100 * s,
            first_order_no: 10_000,
            refund_per_mille: 50,
            dispute_per_mille: 6,
        }
    }

    /// The bank account payouts of a currency go to.
    pub fn bank_for(&self, c: Currency) -> String {
        format!("ba_1DemoBank{}000000000", c.upper())
    }
}

/// What was generated, for the command's summary and `meta.json`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Stats {
    /// Objects per file.
    pub files: BTreeMap<&'static str, u64>,
    /// (what, currency) -> count, for payouts, charges, invoices, worklist.
    #[serde(skip)]
    pub per_currency: BTreeMap<(&'static str, String), u64>,
    pub invoice_status: BTreeMap<&'static str, u64>,
    pub bt_types: BTreeMap<&'static str, u64>,
    /// The most lines one payout paid out.
    pub max_lines: u64,
}

impl Stats {
    /// `what` per currency, e.g. `by_currency("payouts")`.
    pub fn by_currency(&self, what: &str) -> BTreeMap<String, u64> {
        self.per_currency
            .iter()
            .filter(|((w, _), _)| *w == what)
            .map(|((_, c), n)| (c.clone(), *n))
            .collect()
    }
}

#[derive(Serialize)]
struct Meta<'a> {
    seed: u64,
    scale: u32,
    generated_for_now: i64,
    generated_for_now_utc: String,
    account: &'static str,
    account_name: &'static str,
    api_version: &'static str,
    /// Payouts arriving in `[window_start, window_end)` are in the files.
    window_start: i64,
    window_end: i64,
    counts: &'a BTreeMap<&'static str, u64>,
    payouts_by_currency: BTreeMap<String, u64>,
    worklist_by_currency: BTreeMap<String, u64>,
}

/// Writes a generated account into `out_dir` (created if missing).
pub fn generate(seed: u64, scale: u32, out_dir: &Path) -> Result<Stats, GenError> {
    std::fs::create_dir_all(out_dir).map_err(|source| GenError::Io {
        path: out_dir.to_path_buf(),
        source,
    })?;
    let p = Params::for_scale(scale);
    let f = |name: &str| out_dir.join(name);
    let w = Writers {
        balance_transactions: ArrayWriter::create(&f("balance_transactions.json"))?,
        charges: ArrayWriter::create(&f("charges.json"))?,
        payment_intents: ArrayWriter::create(&f("payment_intents.json"))?,
        refunds: ArrayWriter::create(&f("refunds.json"))?,
        disputes: ArrayWriter::create(&f("disputes.json"))?,
        invoices: ArrayWriter::create(&f("invoices.json"))?,
        invoice_payments: ArrayWriter::create(&f("invoice_payments.json"))?,
        payouts: ArrayWriter::create(&f("payouts.json"))?,
        payout_lines: MapWriter::create(&f("payout_lines.json"))?,
    };
    let mut g = Gen::new(p.clone(), seed, w);

    // Who is in the account, and what is planned for them.
    let tickets = tickets::add_scenarios(&mut g)?;
    traffic::add_regular_customers(&mut g);
    traffic::add_subscriptions(&mut g);
    dunning::add_invoices(&mut g);
    if scale == DEMO_SCALE {
        // The demo's recovery cases; a large account keeps its 100·N worklist invoices.
        recovery::add_cases(&mut g);
    }
    traffic::add_fixed_events(&mut g);

    g.run(&mut traffic::day)?;
    // After the walk, from streams of their own: nothing above changes.
    let cards = cards::add(&mut g);

    let balance = g.balance();
    let Gen {
        w,
        mut stats,
        customers,
        subs,
        ..
    } = g;
    stats
        .files
        .insert("balance_transactions", w.balance_transactions.finish()?);
    stats.files.insert("charges", w.charges.finish()?);
    stats
        .files
        .insert("payment_intents", w.payment_intents.finish()?);
    stats.files.insert("refunds", w.refunds.finish()?);
    stats.files.insert("disputes", w.disputes.finish()?);
    stats.files.insert("invoices", w.invoices.finish()?);
    stats
        .files
        .insert("invoice_payments", w.invoice_payments.finish()?);
    stats.files.insert("payouts", w.payouts.finish()?);
    stats.files.insert("payout_lines", w.payout_lines.finish()?);

    let mut cw = ArrayWriter::create(&f("customers.json"))?;
    let mut order: Vec<usize> = (0..customers.len()).collect();
    order.sort_by(|a, b| {
        (customers[*a].created, &customers[*a].id).cmp(&(customers[*b].created, &customers[*b].id))
    });
    for i in order {
        cw.push(&traffic::customer_object(&customers[i]))?;
    }
    stats.files.insert("customers", cw.finish()?);

    let mut sw = ArrayWriter::create(&f("subscriptions.json"))?;
    let mut all: Vec<o::Subscription> = subs
        .iter()
        .map(|s| traffic::subscription_object(s, &customers))
        .chain(cards.subscriptions)
        .collect();
    all.sort_by(|a, b| (a.created, &a.id).cmp(&(b.created, &b.id)));
    for s in &all {
        sw.push(s)?;
    }
    stats.files.insert("subscriptions", sw.finish()?);
    let mut pw = ArrayWriter::create(&f("payment_methods.json"))?;
    for m in &cards.payment_methods {
        pw.push(m)?;
    }
    stats.files.insert("payment_methods", pw.finish()?);

    write_value(&f("account.json"), &traffic::account_object())?;
    write_value(&f("balance.json"), &traffic::balance_object(&balance))?;
    write_text(&f("tickets.csv"), &tickets::tickets_csv(&tickets)?)?;
    stats.files.insert("tickets", tickets.len() as u64);

    write_fraud_warnings(out_dir, seed, &p, &mut stats)?;

    let window_start = month_start(p.first_arrival);
    let window_end = month_start(clock::add_months(month_start(p.now), 1));
    let meta = Meta {
        seed,
        scale: p.scale,
        generated_for_now: p.now,
        generated_for_now_utc: tieout_core::time::iso_utc(p.now),
        account: ACCOUNT_ID,
        account_name: ACCOUNT_NAME,
        api_version: tieout_io::stripe::API_VERSION,
        window_start,
        window_end,
        counts: &stats.files,
        payouts_by_currency: stats.by_currency("payouts"),
        worklist_by_currency: stats.by_currency("worklist"),
    };
    write_value(&f("meta.json"), &meta)?;
    if p.scale == 1 {
        // The bundled demo's bank statements, made from the payouts just written.
        let path = f("payouts.json");
        let text = std::fs::read_to_string(&path).map_err(|source| GenError::Io {
            path: path.clone(),
            source,
        })?;
        let payouts: Vec<serde_json::Value> = serde_json::from_str(&text)
            .map_err(|e| GenError::Invalid(format!("{}: {e}", path.display())))?;
        for (name, csv) in bank_statement::statements(&payouts, seed)? {
            write_text(&f(&name), &csv)?;
        }
    }
    Ok(stats)
}

/// The bundled demo's early fraud warnings, made from the charges just written (see
/// [`fraud_warnings`]); a large account has none.
fn write_fraud_warnings(
    out_dir: &Path,
    seed: u64,
    p: &Params,
    stats: &mut Stats,
) -> Result<(), GenError> {
    let f = |name: &str| out_dir.join(name);
    let mut ww = ArrayWriter::create(&f("early_fraud_warnings.json"))?;
    if p.scale == DEMO_SCALE {
        let path = f("charges.json");
        let text = std::fs::read_to_string(&path).map_err(|source| GenError::Io {
            path: path.clone(),
            source,
        })?;
        let charges: Vec<serde_json::Value> = serde_json::from_str(&text)
            .map_err(|e| GenError::Invalid(format!("{}: {e}", path.display())))?;
        for w in fraud_warnings::warnings(&charges, seed, p.now) {
            ww.push(&w)?;
        }
    }
    stats.files.insert("early_fraud_warnings", ww.finish()?);
    Ok(())
}

/// The first instant (UTC) of the month `ts` falls in.
fn month_start(ts: i64) -> i64 {
    let date = clock::ymd(ts);
    let (y, rest) = date.split_at(4);
    let m = rest.get(1..3).unwrap_or("01");
    utc(y.parse().unwrap_or(1970), m.parse().unwrap_or(1), 1, 0, 0)
}

#[cfg(test)]
mod tests;
