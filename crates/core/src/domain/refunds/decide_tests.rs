//! The refund rules, one by one, and their boundaries.

use jiff::tz::TimeZone;
use proptest::prelude::*;

use super::policy::{Policy, RuleKind, load_policy, sentence_count};
use super::testdata::*;
use super::{Assessment, Recommendation, Ticket, assess};
use crate::time::parse_instant;

fn now() -> i64 {
    parse_instant("2026-11-30T12:00:00Z").expect("now")
}

fn at(text: &str) -> i64 {
    parse_instant(text).expect("instant")
}

fn run_with(w: &World, t: &Ticket, policy: &Policy) -> Assessment {
    let a = assess(t, &w.facts(), policy, now(), &TimeZone::UTC);
    check_invariants(w, &a, policy);
    a
}

fn run(w: &World, t: &Ticket) -> Assessment {
    run_with(w, t, &Policy::default_policy())
}

/// What must hold for every suggestion: evidence exists, the amount is bounded and on
/// the currency's step, the reason has at most two sentences.
fn check_invariants(w: &World, a: &Assessment, policy: &Policy) {
    let s = &a.suggestion;
    for id in &s.evidence {
        let exists = w.customers.iter().any(|c| &c.id == id)
            || w.charges.iter().any(|c| &c.id == id)
            || w.refunds.iter().any(|c| &c.id == id)
            || w.disputes.iter().any(|c| &c.id == id)
            || w.subscriptions.iter().any(|c| &c.id == id)
            || w.invoice_payments.iter().any(|p| &p.invoice == id);
        assert!(exists, "evidence {id} is not in the data: {s:?}");
    }
    let mut sorted = s.evidence.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), s.evidence.len(), "repeated evidence: {s:?}");
    assert!(s.amount >= 0);
    match a.matched.charge() {
        Some(ch) => {
            assert!(s.amount <= ch.refundable(), "{s:?}");
            assert_eq!(s.amount % ch.currency.amount_step(), 0, "{s:?}");
            assert_eq!(s.currency, Some(ch.currency));
            assert!(s.evidence.contains(&ch.id.to_string()));
        }
        None => {
            assert_eq!(s.amount, 0);
            assert_eq!(s.currency, None);
        }
    }
    let pays = matches!(
        s.recommendation,
        Recommendation::Approve | Recommendation::Partial
    );
    assert_eq!(pays, s.amount > 0, "{s:?}");
    assert!(sentence_count(&s.reason) <= 2, "{}", s.reason);
    assert!(s.reason.starts_with(policy.says(a.kind)), "{}", s.reason);
    assert_eq!(s.rule, policy.id(a.kind));
}

/// One customer with one succeeded charge for ORD-1 of 49.00 USD, `days_ago` days ago.
fn one_purchase(days_ago: i64, currency: &str, amount: i64) -> World {
    let created = now() - days_ago * DAY;
    let mut ch = charge("ch_1", "cus_a", amount, currency, created);
    ch.metadata.insert("order_id", "ORD-1");
    World {
        customers: vec![customer("cus_a", "ann@example.com", created - 10 * DAY)],
        charges: vec![ch],
        ..World::default()
    }
}

fn expect(a: &Assessment, rule: &str, rec: Recommendation, amount: i64, evidence: &[&str]) {
    let s = &a.suggestion;
    assert_eq!(s.rule, rule, "{}", s.reason);
    assert_eq!(s.recommendation, rec, "{}", s.reason);
    assert_eq!(s.amount, amount, "{}", s.reason);
    assert_eq!(s.evidence, evidence, "{}", s.reason);
}

#[test]
fn no_customer_goes_to_review() {
    let w = one_purchase(3, "usd", 4900);
    let a = run(&w, &ticket("bob@example.com", "ORD-1"));
    expect(&a, "no-customer", Recommendation::Review, 0, &[]);
    assert_eq!(
        a.suggestion.reason,
        "A ticket whose email matches no customer goes to a person. No customer has the email “bob@example.com”."
    );
    assert_eq!(a.kind, RuleKind::NoCustomer);
}

#[test]
fn no_matching_charge_goes_to_review() {
    let w = one_purchase(3, "usd", 4900);
    let a = run(&w, &ticket("ann@example.com", "ORD-2"));
    expect(&a, "no-charge", Recommendation::Review, 0, &["cus_a"]);
    assert!(
        a.suggestion
            .reason
            .contains("No succeeded charge of cus_a (1 checked) names order “ORD-2”")
    );
    // A failed charge for the order is not a purchase.
    let mut w = one_purchase(3, "usd", 4900);
    w.charges[0].status = crate::model::status::ChargeStatus::Failed;
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    expect(&a, "no-charge", Recommendation::Review, 0, &["cus_a"]);
    assert!(
        a.suggestion
            .reason
            .contains("cus_a has no succeeded charge.")
    );
}

#[test]
fn an_ambiguous_order_goes_to_review_never_guessed() {
    let mut w = one_purchase(3, "usd", 4900);
    let mut second = w.charges[0].clone();
    second.id = "ch_2".into();
    second.amount = 1900;
    second.amount_captured = 1900;
    w.charges.push(second);
    let t = ticket("ann@example.com", "ORD-1");
    let a = run(&w, &t);
    expect(
        &a,
        "ambiguous-charge",
        Recommendation::Review,
        0,
        &["cus_a", "ch_1", "ch_2"],
    );
    // The ticket's amount breaks the tie.
    let mut t = t;
    t.amount = Some("19.00".into());
    let a = run(&w, &t);
    expect(
        &a,
        "outside-window",
        Recommendation::Decline,
        0,
        &["cus_a", "ch_2", "ch_1"],
    );
}

#[test]
fn a_fully_refunded_charge_is_declined_with_its_refunds() {
    let mut w = one_purchase(3, "usd", 4900);
    w.charges[0].amount_refunded = 4900;
    w.charges[0].refunded = true;
    w.refunds
        .push(refund("re_1", "ch_1", 2000, "usd", now() - 2 * DAY));
    w.refunds
        .push(refund("re_2", "ch_1", 2900, "usd", now() - DAY));
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    expect(
        &a,
        "already-refunded",
        Recommendation::Decline,
        0,
        &["cus_a", "ch_1", "re_1", "re_2"],
    );
    assert_eq!(
        a.suggestion.reason,
        "No refund on a charge already fully refunded. ch_1 was refunded 49.00 USD of 49.00 USD already (re_1, re_2)."
    );
    assert_eq!(a.suggestion.currency, Some(cur("usd")));
}

#[test]
fn a_disputed_charge_is_declined_with_the_dispute() {
    let mut w = one_purchase(3, "usd", 4900);
    w.disputes
        .push(dispute("dp_1", "ch_1", 4900, "usd", now() - DAY));
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    expect(
        &a,
        "disputed",
        Recommendation::Decline,
        0,
        &["cus_a", "ch_1", "dp_1"],
    );
    assert!(
        a.suggestion
            .reason
            .ends_with("ch_1 has dispute dp_1 (needs_response, product_not_received).")
    );
    // Stripe's flag alone is enough.
    let mut w = one_purchase(3, "usd", 4900);
    w.charges[0].disputed = true;
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    expect(
        &a,
        "disputed",
        Recommendation::Decline,
        0,
        &["cus_a", "ch_1"],
    );
}

#[test]
fn a_refund_pattern_goes_to_review_within_the_lookback_only() {
    let mut w = one_purchase(3, "usd", 4900);
    for (i, days) in [(1, 100), (2, 365)] {
        let id = format!("ch_old{i}");
        w.charges
            .push(charge(&id, "cus_a", 1000, "usd", now() - (days + 5) * DAY));
        w.refunds.push(refund(
            &format!("re_{i}"),
            &id,
            1000,
            "usd",
            now() - days * DAY,
        ));
    }
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    expect(
        &a,
        "refund-pattern",
        Recommendation::Review,
        0,
        &["cus_a", "ch_1", "re_2", "re_1"],
    );
    // One of them a day older than the lookback: no pattern; the charge is not the first
    // purchase, so the window does not apply.
    w.refunds[1].created = now() - 366 * DAY;
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    expect(
        &a,
        "outside-window",
        Recommendation::Decline,
        0,
        &["cus_a", "ch_1", "ch_old2"],
    );
    // A failed refund is not a refund.
    w.refunds[1].created = now() - 5 * DAY;
    w.refunds[1].status = crate::model::status::RefundStatus::Failed;
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    assert_eq!(a.suggestion.rule, "outside-window");
}

#[test]
fn the_first_purchase_window_is_30_days_to_the_second() {
    let w = one_purchase(30, "usd", 4900);
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    expect(
        &a,
        "first-purchase-window",
        Recommendation::Approve,
        4900,
        &["cus_a", "ch_1"],
    );
    assert_eq!(
        a.suggestion.reason,
        "Full refund within 30 days of the charge on a first purchase. ch_1 (49.00 USD, 2026-10-31, found by metadata.order_id) is the customer's first purchase, 30 days ago; refund 49.00 USD."
    );
    // The window is elapsed time from the charge: 30 x 24 h exactly is inside, one
    // second more is not (it used to be "day 30" until 30 days and 23 hours).
    let mut w = one_purchase(30, "usd", 4900);
    w.charges[0].created -= 1;
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    expect(
        &a,
        "outside-window",
        Recommendation::Decline,
        0,
        &["cus_a", "ch_1"],
    );
    assert_eq!(
        a.suggestion.reason,
        "Full refund only within 30 days of the charge on a first purchase. ch_1 (49.00 USD) was charged on 2026-10-31, more than 30 days ago."
    );
    let mut w = one_purchase(30, "usd", 4900);
    w.charges[0].created -= 23 * 3600;
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    assert_eq!(a.suggestion.rule, "outside-window");
    // A charge stamped a little after now (clock skew) is inside.
    let mut w = one_purchase(0, "usd", 4900);
    w.charges[0].created += 60;
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    assert_eq!(a.suggestion.rule, "first-purchase-window");
    let w = one_purchase(31, "usd", 4900);
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    expect(
        &a,
        "outside-window",
        Recommendation::Decline,
        0,
        &["cus_a", "ch_1"],
    );
    assert_eq!(
        a.suggestion.reason,
        "Full refund only within 30 days of the charge on a first purchase. ch_1 (49.00 USD) was charged on 2026-10-30, 31 days ago."
    );
}

#[test]
fn a_partially_refunded_first_purchase_gets_the_rest() {
    let mut w = one_purchase(5, "usd", 4900);
    w.charges[0].amount_refunded = 1900;
    w.refunds
        .push(refund("re_1", "ch_1", 1900, "usd", now() - DAY));
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    expect(
        &a,
        "first-purchase-window",
        Recommendation::Approve,
        3000,
        &["cus_a", "ch_1", "re_1"],
    );
    assert!(
        a.suggestion
            .reason
            .contains("19.00 USD was refunded already; refund 30.00 USD.")
    );
}

#[test]
fn a_second_purchase_inside_the_window_is_declined_unless_the_policy_says_otherwise() {
    let mut w = one_purchase(5, "usd", 4900);
    w.charges
        .push(charge("ch_0", "cus_a", 900, "usd", now() - 200 * DAY));
    let t = ticket("ann@example.com", "ORD-1");
    let a = run(&w, &t);
    expect(
        &a,
        "outside-window",
        Recommendation::Decline,
        0,
        &["cus_a", "ch_1", "ch_0"],
    );
    assert!(
        a.suggestion
            .reason
            .ends_with("is not the customer's first purchase (ch_0 on 2026-05-14 was)."),
        "{}",
        a.suggestion.reason
    );
    let any = load_policy("[window]\nfirst_purchase_only = false\n", "p").expect("policy");
    let a = run_with(&w, &t, &any);
    expect(
        &a,
        "first-purchase-window",
        Recommendation::Approve,
        4900,
        &["cus_a", "ch_1"],
    );
}

#[test]
fn a_failed_earlier_charge_does_not_spoil_a_first_purchase() {
    let mut w = one_purchase(5, "usd", 4900);
    let mut failed = charge("ch_0", "cus_a", 4900, "usd", now() - 6 * DAY);
    failed.status = crate::model::status::ChargeStatus::Failed;
    w.charges.push(failed);
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    assert_eq!(a.suggestion.rule, "first-purchase-window");
}

/// A yearly subscription whose period started when `ch_1` (ORD-1) was charged.
fn annual(charged: &str, period_end: &str, currency: &str, amount: i64) -> World {
    let start = at(charged);
    let mut ch = charge("ch_1", "cus_a", amount, currency, start + 3600);
    ch.description = Some("Pro plan, yearly — order ORD-1".into());
    // An earlier purchase so the charge is not a first purchase.
    let first = charge("ch_0", "cus_a", 500, currency, start - 400 * DAY);
    World {
        customers: vec![customer("cus_a", "ann@example.com", start - 500 * DAY)],
        charges: vec![first, ch],
        subscriptions: vec![subscription(
            "sub_1",
            "cus_a",
            "year",
            start,
            at(period_end),
        )],
        ..World::default()
    }
}

#[test]
fn annual_plans_get_the_unused_whole_months() {
    let w = annual("2026-08-15T00:00:00Z", "2027-08-15T00:00:00Z", "usd", 12000);
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    // 2026-11-30T12:00 + 8 months = 2027-07-30T12:00 <= 2027-08-15; + 9 passes it.
    expect(
        &a,
        "annual-prorate",
        Recommendation::Partial,
        8000,
        &["cus_a", "ch_1", "sub_1"],
    );
    assert_eq!(
        a.suggestion.reason,
        "Prorated refund for the unused months of an annual plan. ch_1 paid sub_1's yearly period ending 2027-08-15, 8 unused whole months: floor(120.00 USD x 8 / 12) = 80.00 USD."
    );
}

#[test]
fn the_last_whole_month_counts_and_less_than_one_does_not() {
    // Exactly one month left: one month's worth.
    let w = annual("2025-12-30T12:00:00Z", "2026-12-30T12:00:00Z", "usd", 12000);
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    expect(
        &a,
        "annual-prorate",
        Recommendation::Partial,
        1000,
        &["cus_a", "ch_1", "sub_1"],
    );
    // A second less: no whole month, the rule does not apply.
    let w = annual("2025-12-30T11:59:59Z", "2026-12-30T11:59:59Z", "usd", 12000);
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    expect(
        &a,
        "outside-window",
        Recommendation::Decline,
        0,
        &["cus_a", "ch_1", "sub_1"],
    );
    assert!(
        a.suggestion
            .reason
            .ends_with("and sub_1's yearly period ends 2026-12-30 with no whole month left."),
        "{}",
        a.suggestion.reason
    );
}

#[test]
fn proration_is_capped_at_what_is_left_to_refund() {
    let mut w = annual("2026-08-15T00:00:00Z", "2027-08-15T00:00:00Z", "usd", 12000);
    w.charges[1].amount_refunded = 6000;
    w.refunds
        .push(refund("re_1", "ch_1", 6000, "usd", now() - 20 * DAY));
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    expect(
        &a,
        "annual-prorate",
        Recommendation::Partial,
        6000,
        &["cus_a", "ch_1", "re_1", "sub_1"],
    );
    assert!(
        a.suggestion
            .reason
            .ends_with("= 80.00 USD, capped at the 60.00 USD left to refund.")
    );
}

#[test]
fn three_decimal_currencies_are_floored_to_ten() {
    // 35.990 KWD x 7 / 12 = 20.994166 -> 20.994 -> 20.990.
    let w = annual(
        "2026-07-15T00:00:00Z",
        "2027-07-15T00:00:00Z",
        "kwd",
        35_990,
    );
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    expect(
        &a,
        "annual-prorate",
        Recommendation::Partial,
        20_990,
        &["cus_a", "ch_1", "sub_1"],
    );
    assert!(a.suggestion.reason.ends_with(
        "floor(35.990 KWD x 7 / 12) = 20.994 KWD, rounded down to 20.990 KWD (a multiple of 0.010 KWD)."
    ), "{}", a.suggestion.reason);
}

#[test]
fn zero_decimal_currencies_have_no_fractions() {
    let w = annual(
        "2026-07-15T00:00:00Z",
        "2027-07-15T00:00:00Z",
        "jpy",
        10_000,
    );
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    // 10000 x 7 / 12 = 5833.33 -> 5833 yen.
    expect(
        &a,
        "annual-prorate",
        Recommendation::Partial,
        5833,
        &["cus_a", "ch_1", "sub_1"],
    );
    assert!(
        a.suggestion
            .reason
            .contains("floor(10000 JPY x 7 / 12) = 5833 JPY.")
    );
    let w = one_purchase(2, "jpy", 4980);
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    expect(
        &a,
        "first-purchase-window",
        Recommendation::Approve,
        4980,
        &["cus_a", "ch_1"],
    );
    assert!(a.suggestion.reason.contains("(4980 JPY,"));
}

#[test]
fn monthly_plans_and_proration_switched_off_do_not_prorate() {
    let mut w = annual("2026-11-15T00:00:00Z", "2027-11-15T00:00:00Z", "usd", 12000);
    w.subscriptions[0].interval = Some("month".into());
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    assert_eq!(a.suggestion.rule, "outside-window");
    let w = annual("2026-08-15T00:00:00Z", "2027-08-15T00:00:00Z", "usd", 12000);
    let off = load_policy("[proration]\nannual = false\n", "p").expect("policy");
    let a = run_with(&w, &ticket("ann@example.com", "ORD-1"), &off);
    assert_eq!(a.suggestion.rule, "outside-window");
}

#[test]
fn an_annual_charge_linked_by_its_invoice_names_the_invoice() {
    let mut w = annual("2026-08-15T00:00:00Z", "2027-08-15T00:00:00Z", "usd", 12000);
    // Paid a week after the period started (a retried renewal).
    w.charges[1].created += 7 * DAY;
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    assert_eq!(a.suggestion.rule, "outside-window");
    w.subscriptions[0].latest_invoice = Some("in_1".into());
    w.invoice_payments
        .push(invoice_payment("inpay_1", "in_1", None, Some("pi_ch_1")));
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    expect(
        &a,
        "annual-prorate",
        Recommendation::Partial,
        8000,
        &["cus_a", "ch_1", "sub_1", "in_1"],
    );
}

#[test]
fn a_first_annual_purchase_in_the_window_is_refunded_in_full() {
    let mut w = annual("2026-11-20T00:00:00Z", "2027-11-20T00:00:00Z", "usd", 12000);
    w.charges.remove(0);
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    expect(
        &a,
        "first-purchase-window",
        Recommendation::Approve,
        12000,
        &["cus_a", "ch_1"],
    );
}

#[test]
fn email_case_is_ignored_when_nothing_matches_exactly() {
    let w = one_purchase(3, "usd", 4900);
    let a = run(&w, &ticket("  Ann@Example.COM ", "ord-1"));
    expect(
        &a,
        "first-purchase-window",
        Recommendation::Approve,
        4900,
        &["cus_a", "ch_1"],
    );
}

#[test]
fn two_customers_with_one_email_are_one_person() {
    let mut w = one_purchase(3, "usd", 4900);
    w.customers
        .push(customer("cus_b", "ann@example.com", now() - 300 * DAY));
    w.charges
        .push(charge("ch_b", "cus_b", 2500, "usd", now() - 250 * DAY));
    let a = run(&w, &ticket("ann@example.com", "ORD-1"));
    // Both customers named; the other customer's older charge means this is not a first purchase.
    expect(
        &a,
        "outside-window",
        Recommendation::Decline,
        0,
        &["cus_b", "cus_a", "ch_1", "ch_b"],
    );
    // And an order on the other customer is found too.
    w.charges[1].metadata.insert("order", "ORD-9");
    let a = run(&w, &ticket("ann@example.com", "ORD-9"));
    assert_eq!(a.matched.charge().map(|c| c.id.as_str()), Some("ch_b"));
}

#[test]
fn a_policy_changes_numbers_ids_and_wording() {
    let p = load_policy(
        "[window]\ndays = 45\n[rules.first_purchase_window]\nid = \"fp45\"\nsays = \"Refund in {window_days} days.\"\n",
        "p",
    )
    .expect("policy");
    let w = one_purchase(40, "usd", 4900);
    let a = run_with(&w, &ticket("ann@example.com", "ORD-1"), &p);
    assert_eq!(a.suggestion.rule, "fp45");
    assert!(a.suggestion.reason.starts_with("Refund in 45 days. ch_1"));
}

fn any_currency() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "usd", "eur", "jpy", "krw", "kwd", "bhd", "tnd", "isk", "ugx",
    ])
}

proptest! {
    /// Whatever the charge, its refunds and its subscription, a suggestion never exceeds
    /// what is left to refund and is a multiple of the currency's step.
    #[test]
    fn a_suggestion_never_exceeds_the_refundable_amount(
        currency in any_currency(),
        amount in 0i64..5_000_000,
        captured_pct in 0i64..=100,
        refunded_pct in 0i64..=110,
        age_days in 0i64..800,
        extra_secs in 0i64..86_400,
        period_start_offset in -2i64 * 86_400..5 * 86_400,
        period_days in 0i64..800,
        yearly in any::<bool>(),
        earlier in any::<bool>(),
        disputed in any::<bool>(),
    ) {
        let created = now() - age_days * DAY - extra_secs;
        let mut ch = charge("ch_1", "cus_a", amount, currency, created);
        ch.amount_captured = amount * captured_pct / 100;
        ch.amount_refunded = (ch.amount_captured * refunded_pct / 100).min(amount);
        ch.disputed = disputed && age_days % 7 == 0;
        ch.metadata.insert("order", "ORD-1");
        let mut w = World {
            customers: vec![customer("cus_a", "a@x.io", created - 900 * DAY)],
            charges: vec![ch],
            ..World::default()
        };
        if ch_refunded(&w) > 0 {
            let r = ch_refunded(&w);
            w.refunds.push(refund("re_1", "ch_1", r, currency, created + 60));
        }
        if earlier {
            w.charges.push(charge("ch_0", "cus_a", 100, currency, created - 1000));
        }
        let start = created - period_start_offset;
        let mut sub = subscription("sub_1", "cus_a", if yearly { "year" } else { "month" }, start, start + period_days * DAY);
        sub.currency = cur(currency);
        w.subscriptions.push(sub);
        let a = run(&w, &ticket("a@x.io", "ORD-1"));
        let s = &a.suggestion;
        let ch = &w.charges[0];
        prop_assert!(s.amount <= (ch.amount_captured - ch.amount_refunded).max(0));
        prop_assert_eq!(s.amount % cur(currency).amount_step(), 0);
        prop_assert!(s.amount >= 0);
    }
}

fn ch_refunded(w: &World) -> i64 {
    w.charges[0].amount_refunded
}

/// A ticket's text as a string a customer could type: sentence punctuation, quotes,
/// spaces, line breaks, bidi overrides and any other character.
fn ticket_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9 .!?“”\"\n\t\u{202e}-]{0,120}",
        any::<String>(),
        Just("a. Approve this. Now".to_string()),
        Just("x@y.io! Refund 500.00 USD now? Yes.".to_string()),
    ]
}

proptest! {
    /// Whatever a ticket's email, order id (and a charge's metadata key) say, the reason
    /// is at most two sentences by the count RULES.md gives, starts with the rule's sentence, and
    /// repeats the ticket's text only inside “…”.
    #[test]
    fn ticket_text_never_adds_sentences_to_a_reason(
        email in ticket_text(),
        order in ticket_text(),
        key in ticket_text(),
    ) {
        // No customer: the email is repeated.
        let w = World::default();
        let a = run(&w, &ticket(&email, &order));
        prop_assert_eq!(a.suggestion.rule.as_str(), "no-customer");
        prop_assert!(sentence_count(&a.suggestion.reason) <= 2, "{}", a.suggestion.reason);

        // A customer, no charge names the order: the order id is repeated.
        let w = one_purchase(3, "usd", 4900);
        let a = run(&w, &ticket("ann@example.com", &format!("{order} #nomatch")));
        prop_assert_eq!(a.suggestion.rule.as_str(), "no-charge");
        prop_assert!(sentence_count(&a.suggestion.reason) <= 2, "{}", a.suggestion.reason);

        // Two charges name the order under the metadata key: both are repeated. Matching
        // trims and ignores case; an order that trims to nothing matches nothing.
        let mut w = one_purchase(3, "usd", 4900);
        w.charges[0].metadata.clear();
        w.charges[0].metadata.insert(key.clone(), order.clone());
        let mut second = w.charges[0].clone();
        second.id = "ch_2".into();
        w.charges.push(second);
        let a = run(&w, &ticket("ann@example.com", &order));
        let expected = if order.trim().is_empty() { "no-charge" } else { "ambiguous-charge" };
        prop_assert_eq!(a.suggestion.rule.as_str(), expected, "{}", a.suggestion.reason);
        prop_assert!(sentence_count(&a.suggestion.reason) <= 2, "{}", a.suggestion.reason);

        // One charge names it: the metadata key is repeated in an approval.
        w.charges.pop();
        let a = run(&w, &ticket("ann@example.com", &order));
        if !order.trim().is_empty() {
            prop_assert_eq!(a.suggestion.rule.as_str(), "first-purchase-window", "{}", a.suggestion.reason);
        }
        prop_assert!(sentence_count(&a.suggestion.reason) <= 2, "{}", a.suggestion.reason);
    }
}

#[test]
fn ticket_text_is_quoted_inert_and_short() {
    let w = one_purchase(3, "usd", 4900);
    let a = run(&w, &ticket("ann@example.com", "a. Approve this. Now"));
    assert_eq!(
        a.suggestion.reason,
        "A ticket whose order id matches no succeeded charge goes to a person. No succeeded charge of cus_a (1 checked) names order “a﹒ Approve this﹒ Now” in its metadata or description."
    );
    assert_eq!(sentence_count(&a.suggestion.reason), 2);
    let long = format!("“{}”\n\u{202e}!", "x".repeat(100));
    let a = run(&World::default(), &ticket(&long, "ORD-1"));
    let quoted = super::decide::quoted(&long);
    assert_eq!(quoted.chars().count(), super::decide::QUOTE_MAX_CHARS + 2);
    assert!(
        quoted.starts_with("“\"xxx") && quoted.ends_with("x…”"),
        "{quoted}"
    );
    assert!(
        a.suggestion.reason.ends_with(&format!("{quoted}.")),
        "{}",
        a.suggestion.reason
    );
    // Ordinary values are repeated exactly.
    assert_eq!(
        super::decide::quoted(" ann.lee@example.com "),
        "“ann.lee@example.com”"
    );
}
