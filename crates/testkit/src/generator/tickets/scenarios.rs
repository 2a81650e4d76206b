//! The customers, charges, refunds, disputes and subscriptions each demo refund ticket
//! needs, one function per situation (the table in the parent module says which rule
//! each is meant to hit).

use std::collections::BTreeMap;

use super::{TICKETS, Ticket};
use crate::generator::clock::{DAY, utc};
use crate::generator::declines::Decline;
use crate::generator::engine::{ChargeSpec, DisputeSpec, FailedSpec, Gen, RefundSpec};
use crate::generator::objects::Metadata;
use crate::generator::writer::GenError;
use tieout_core::money::Currency;

/// Adds the scenario customers, their charges and subscriptions; returns the tickets.
pub fn add_scenarios(g: &mut Gen) -> Result<Vec<Ticket>, GenError> {
    let kwd = Currency::parse("kwd").map_err(|e| GenError::Invalid(e.to_string()))?;
    order_that_only_failed(g);
    charged_twice_for_one_order(g);
    fully_refunded(g);
    disputed(g);
    refunded_twice_this_year(g);
    first_purchase_twelve_days_ago(g);
    first_purchases_thirty_and_thirty_one_days_ago(g);
    annual_plan_three_months_left(g);
    annual_plan_in_kwd_five_months_left(g, kwd);
    first_purchase_in_yen(g);
    partly_refunded_first_purchase(g);
    email_case_differs(g);
    two_customers_share_an_email(g);
    second_charge_seventy_five_days_ago(g);
    monthly_plan_renewal(g);
    annual_plan_no_whole_month_left(g);
    order_id_in_description_only(g);
    order_id_under_another_metadata_key(g);

    // Nothing above may fall outside the walk.
    let start = g.p.loop_start;
    if g.charge_specs.iter().any(|s| s.at < start) || g.subs.iter().any(|s| s.start < start) {
        return Err(GenError::Invalid(
            "a refund scenario starts before the generated history".into(),
        ));
    }
    let _ = DAY;
    Ok(TICKETS.to_vec())
}

/// A scenario customer with a saved card.
fn customer(g: &mut Gen, name: &str, email: &str, cur: Currency, created: i64) -> usize {
    g.add_customer(Some(name), Some(email), cur, created, true)
}

fn meta(key: &str, value: &str) -> Metadata {
    BTreeMap::from([(key.to_string(), value.to_string())])
}

fn spec(
    at: i64,
    customer: usize,
    currency: Currency,
    amount: i64,
    order: &str,
    what: &str,
) -> ChargeSpec {
    ChargeSpec {
        at,
        customer: Some(customer),
        currency,
        amount,
        description: Some(what.to_string()),
        metadata: meta("order_id", order),
        refunds: Vec::new(),
        dispute: None,
        guest_email: None,
    }
}

fn full_refund(at: i64, amount: i64) -> Vec<RefundSpec> {
    vec![RefundSpec {
        at,
        amount,
        reason: Some("requested_by_customer"),
    }]
}

/// T-1002: no charge matches the order.
fn order_that_only_failed(g: &mut Gen) {
    let usd = Currency::USD;
    let a = customer(
        g,
        "Maya Okafor",
        "maya.okafor@example.com",
        usd,
        utc(2026, 9, 20, 8, 0),
    );
    g.charge_specs.push(spec(
        utc(2026, 10, 2, 10, 15),
        a,
        usd,
        5_800,
        "ORD-7020",
        "1 × Linen tote",
    ));
    // ... and the order she asks about only ever failed (a declined card, no success).
    g.failed_specs.push(FailedSpec {
        at: utc(2026, 10, 9, 18, 5),
        customer: a,
        currency: usd,
        amount: 3_900,
        description: "1 × Travel pouch".into(),
        metadata: meta("order_id", "ORD-7021"),
        decline: Decline::issuer("insufficient_funds", Some("try_again_later")),
    });
}

/// T-1003: two charges with the same order id and amount.
fn charged_twice_for_one_order(g: &mut Gen) {
    let usd = Currency::USD;
    let b = customer(
        g,
        "Daniel Weber",
        "daniel.weber@example.org",
        usd,
        utc(2026, 11, 1, 9, 0),
    );
    g.charge_specs.push(spec(
        utc(2026, 11, 18, 14, 2),
        b,
        usd,
        4_900,
        "ORD-7030",
        "1 × Notebook set",
    ));
    g.charge_specs.push(spec(
        utc(2026, 11, 18, 14, 3),
        b,
        usd,
        4_900,
        "ORD-7030",
        "1 × Notebook set",
    ));
}

/// T-1004: fully refunded.
fn fully_refunded(g: &mut Gen) {
    let usd = Currency::USD;
    let cc = customer(
        g,
        "Chloe Laurent",
        "chloe.laurent@example.com",
        usd,
        utc(2026, 11, 5, 16, 0),
    );
    let mut s = spec(
        utc(2026, 11, 5, 16, 20),
        cc,
        usd,
        6_400,
        "ORD-7040",
        "1 × Desk lamp",
    );
    s.refunds = full_refund(utc(2026, 11, 8, 9, 0), 6_400);
    g.charge_specs.push(s);
}

/// T-1005: disputed.
fn disputed(g: &mut Gen) {
    let usd = Currency::USD;
    let d = customer(
        g,
        "Samuel Mensah",
        "samuel.mensah@example.net",
        usd,
        utc(2026, 11, 10, 9, 40),
    );
    let mut s = spec(
        utc(2026, 11, 10, 10, 0),
        d,
        usd,
        18_900,
        "ORD-7050",
        "1 × Wool throw",
    );
    s.dispute = Some(DisputeSpec {
        at: utc(2026, 11, 25, 8, 0),
        reason: "fraudulent",
        status: "needs_response",
        reversal_at: None,
        prefix: "dp_",
    });
    g.charge_specs.push(s);
}

/// T-1006: two refunds in the prior 365 days.
fn refunded_twice_this_year(g: &mut Gen) {
    let usd = Currency::USD;
    let e = customer(
        g,
        "Priya Patel",
        "priya.patel@example.com",
        usd,
        utc(2026, 3, 28, 12, 0),
    );
    let mut s = spec(
        utc(2026, 4, 1, 11, 0),
        e,
        usd,
        4_200,
        "ORD-7060",
        "2 × Espresso cups (4)",
    );
    s.refunds = full_refund(utc(2026, 4, 10, 9, 30), 4_200);
    g.charge_specs.push(s);
    let mut s = spec(
        utc(2026, 9, 1, 11, 0),
        e,
        usd,
        3_500,
        "ORD-7061",
        "1 × Travel pouch",
    );
    s.refunds = full_refund(utc(2026, 9, 5, 15, 10), 3_500);
    g.charge_specs.push(s);
    g.charge_specs.push(spec(
        utc(2026, 11, 20, 15, 0),
        e,
        usd,
        5_500,
        "ORD-7062",
        "1 × Pour-over kettle",
    ));
}

/// T-1007: first purchase, 12 days.
fn first_purchase_twelve_days_ago(g: &mut Gen) {
    let usd = Currency::USD;
    let f = customer(
        g,
        "Lily Andersson",
        "lily.andersson@example.org",
        usd,
        utc(2026, 11, 18, 9, 0),
    );
    g.charge_specs.push(spec(
        utc(2026, 11, 18, 9, 30),
        f,
        usd,
        7_900,
        "ORD-7070",
        "1 × Wool throw",
    ));
}

/// T-1008 / T-1009: exactly 30 and 31 days.
fn first_purchases_thirty_and_thirty_one_days_ago(g: &mut Gen) {
    let usd = Currency::USD;
    let gg = customer(
        g,
        "Marco Romano",
        "marco.romano@example.com",
        usd,
        utc(2026, 10, 31, 11, 0),
    );
    g.charge_specs.push(spec(
        utc(2026, 10, 31, 12, 0),
        gg,
        usd,
        12_900,
        "ORD-7080",
        "1 × Print: Harbour at dusk",
    ));
    let h = customer(
        g,
        "Freya Jensen",
        "freya.jensen@example.net",
        usd,
        utc(2026, 10, 30, 11, 0),
    );
    g.charge_specs.push(spec(
        utc(2026, 10, 30, 12, 0),
        h,
        usd,
        12_900,
        "ORD-7090",
        "1 × Print: Harbour at dusk",
    ));
}

/// T-1010: annual plan, 3 whole months left.
fn annual_plan_three_months_left(g: &mut Gen) {
    let usd = Currency::USD;
    let i = customer(
        g,
        "Omar Haddad",
        "omar.haddad@example.com",
        usd,
        utc(2026, 3, 14, 10, 0),
    );
    g.add_sub(i, 12, 28_700, utc(2026, 3, 15, 9, 0), Some(7100));
}

/// T-1011: annual plan in kwd, 5 whole months left.
fn annual_plan_in_kwd_five_months_left(g: &mut Gen, kwd: Currency) {
    let j = customer(
        g,
        "Fatima Al-Sabah",
        "fatima.alsabah@example.com",
        kwd,
        utc(2026, 5, 1, 10, 0),
    );
    g.add_sub(j, 12, 45_250, utc(2026, 5, 2, 9, 0), Some(7110));
}

/// T-1012: jpy first purchase.
fn first_purchase_in_yen(g: &mut Gen) {
    let jpy = Currency::JPY;
    let k = customer(
        g,
        "Yuki Tanaka",
        "yuki.tanaka@example.com",
        jpy,
        utc(2026, 11, 25, 12, 0),
    );
    g.charge_specs.push(spec(
        utc(2026, 11, 25, 13, 0),
        k,
        jpy,
        12_800,
        "ORD-7120",
        "1 × Linen tote (L)",
    ));
}

/// T-1013: partially refunded first purchase.
fn partly_refunded_first_purchase(g: &mut Gen) {
    let usd = Currency::USD;
    let l = customer(
        g,
        "Elena Costa",
        "elena.costa@example.org",
        usd,
        utc(2026, 11, 22, 9, 0),
    );
    let mut s = spec(
        utc(2026, 11, 22, 10, 0),
        l,
        usd,
        12_000,
        "ORD-7130",
        "3 × Ceramic mug, shipping",
    );
    s.refunds = vec![RefundSpec {
        at: utc(2026, 11, 24, 9, 0),
        amount: 2_000,
        reason: Some("requested_by_customer"),
    }];
    g.charge_specs.push(s);
}

/// T-1014: email case differs.
fn email_case_differs(g: &mut Gen) {
    let eur = Currency::EUR;
    let n = customer(
        g,
        "Noah Fischer",
        "noah.fischer@example.com",
        eur,
        utc(2026, 11, 12, 18, 0),
    );
    g.charge_specs.push(spec(
        utc(2026, 11, 12, 18, 45),
        n,
        eur,
        5_900,
        "ORD-7140",
        "1 × Linen tote",
    ));
}

/// T-1015: two customers share one email.
fn two_customers_share_an_email(g: &mut Gen) {
    let usd = Currency::USD;
    let m1 = customer(
        g,
        "Bluefinch Studio (Anna)",
        "accounts@bluefinch.example.com",
        usd,
        utc(2026, 8, 1, 9, 0),
    );
    g.charge_specs.push(spec(
        utc(2026, 8, 10, 10, 0),
        m1,
        usd,
        21_000,
        "ORD-7150",
        "6 × Ceramic mug",
    ));
    let m2 = customer(
        g,
        "Bluefinch Studio (Ben)",
        "accounts@bluefinch.example.com",
        usd,
        utc(2026, 10, 15, 9, 0),
    );
    g.charge_specs.push(spec(
        utc(2026, 10, 16, 11, 0),
        m2,
        usd,
        4_500,
        "ORD-7151",
        "1 × Notebook set",
    ));
}

/// T-1016: second charge, 75 days.
fn second_charge_seventy_five_days_ago(g: &mut Gen) {
    let eur = Currency::EUR;
    let q = customer(
        g,
        "Camille Moreau",
        "camille.moreau@example.net",
        eur,
        utc(2026, 6, 30, 9, 0),
    );
    g.charge_specs.push(spec(
        utc(2026, 7, 1, 10, 0),
        q,
        eur,
        4_500,
        "ORD-7160",
        "1 × Travel pouch",
    ));
    g.charge_specs.push(spec(
        utc(2026, 9, 16, 10, 0),
        q,
        eur,
        8_900,
        "ORD-7161",
        "1 × Desk lamp",
    ));
}

/// T-1017: monthly plan renewal (ORD-7170..ORD-7175, the last on 2026-11-20).
fn monthly_plan_renewal(g: &mut Gen) {
    let usd = Currency::USD;
    let sm = customer(
        g,
        "Kenji Ito",
        "kenji.ito@example.com",
        usd,
        utc(2026, 6, 19, 9, 0),
    );
    g.add_sub(sm, 1, 2_400, utc(2026, 6, 20, 9, 0), Some(7170));
}

/// T-1018: annual plan with no whole month left.
fn annual_plan_no_whole_month_left(g: &mut Gen) {
    let usd = Currency::USD;
    let r = customer(
        g,
        "Ingrid Lindqvist",
        "ingrid.lindqvist@example.org",
        usd,
        utc(2025, 12, 19, 9, 0),
    );
    g.add_sub(r, 12, 19_900, utc(2025, 12, 20, 9, 0), Some(7180));
}

/// T-1019: order id in the description only.
fn order_id_in_description_only(g: &mut Gen) {
    let eur = Currency::EUR;
    let o = customer(
        g,
        "Giulia Ricci",
        "giulia.ricci@example.com",
        eur,
        utc(2026, 11, 15, 9, 0),
    );
    let mut s = spec(
        utc(2026, 11, 15, 10, 0),
        o,
        eur,
        3_450,
        "",
        "Order ORD-7190 — 2 × Ceramic mug",
    );
    s.metadata = Metadata::new();
    g.charge_specs.push(s);
}

/// T-1020: order id under another metadata key.
fn order_id_under_another_metadata_key(g: &mut Gen) {
    let usd = Currency::USD;
    let p = customer(
        g,
        "Arjun Khan",
        "arjun.khan@example.com",
        usd,
        utc(2026, 11, 27, 19, 0),
    );
    let mut s = spec(utc(2026, 11, 27, 20, 0), p, usd, 2_200, "", "1 × Gift card");
    s.metadata = meta("order", "ORD-7200");
    g.charge_specs.push(s);
}
