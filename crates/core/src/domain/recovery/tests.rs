use jiff::tz::TimeZone;

use super::*;
use crate::domain::dunning::testdata::{
    DAY, NOW, attempted, charge, data, intent, invoice, payment,
};
use crate::model::rows::{ChargeRow, SubscriptionRow};
use crate::model::status::{ChargeStatus, InvoiceStatus, SubscriptionStatus};

fn ok_charge(id: &str, pi: &str, at: i64, pm: &str) -> ChargeRow {
    let mut c = charge(id, Some(pi), at, None);
    c.status = ChargeStatus::Succeeded;
    c.failure_code = None;
    c.outcome_type = Some("authorized".into());
    c.payment_method = Some(pm.into());
    c
}

/// An invoice of `due` that failed on `pm_old` at `at` (decline `code`), with status `status`.
fn failed_invoice(
    d: &mut crate::model::AccountData,
    id: &str,
    due: i64,
    at: i64,
    code: &str,
    status: InvoiceStatus,
) {
    let pi = format!("pi_{id}");
    let ch = format!("ch_{id}_1");
    let mut inv = attempted(invoice(id, status, due), 1, Some(NOW + DAY));
    inv.amount_due = due;
    d.invoices.push(inv);
    d.invoice_payments.push(payment(id, &pi));
    d.payment_intents.push(intent(&pi, Some(code), None, &ch));
    let mut c = charge(&ch, Some(&pi), at, Some(code));
    c.payment_method = Some("pm_old".into());
    d.charges.push(c);
}

fn window() -> Window {
    Window::ending_at(NOW, 6, &TimeZone::UTC)
}

#[test]
fn each_ending_is_told_apart_and_each_recovery_has_one_way() {
    let mut d = data(vec![]);
    let at = NOW - 20 * DAY;
    for (id, st) in [
        ("in_retry", InvoiceStatus::Paid),
        ("in_new", InvoiceStatus::Paid),
        ("in_oob", InvoiceStatus::Paid),
        ("in_off", InvoiceStatus::Uncollectible),
        ("in_void", InvoiceStatus::Void),
        ("in_open", InvoiceStatus::Open),
    ] {
        failed_invoice(&mut d, id, 1000, at, "insufficient_funds", st);
    }
    d.charges.push(ok_charge(
        "ch_in_retry_2",
        "pi_in_retry",
        at + 4 * DAY,
        "pm_old",
    ));
    d.charges.push(ok_charge(
        "ch_in_new_2",
        "pi_in_new",
        at + 9 * DAY,
        "pm_new",
    ));
    for inv in &mut d.invoices {
        match inv.id.as_str() {
            "in_retry" => inv.status_transitions.paid_at = Some(at + 4 * DAY),
            "in_new" => inv.status_transitions.paid_at = Some(at + 9 * DAY),
            "in_oob" => {
                inv.status_transitions.paid_at = Some(at + 2 * DAY);
                inv.amount_paid_off_stripe = 1000;
            }
            "in_off" => inv.status_transitions.marked_uncollectible_at = Some(at + 30 * DAY),
            _ => {}
        }
    }
    let r = build(&d, &window(), &TimeZone::UTC);
    let out: Vec<(&str, Outcome)> = r
        .invoices
        .iter()
        .map(|i| (i.invoice_id.as_str(), i.outcome))
        .collect();
    assert!(out.contains(&("in_retry", Outcome::Recovered(Via::Retry))));
    assert!(out.contains(&("in_new", Outcome::Recovered(Via::NewMethod))));
    assert!(out.contains(&("in_oob", Outcome::Recovered(Via::OutOfBand))));
    assert!(out.contains(&("in_off", Outcome::WrittenOff)));
    assert!(out.contains(&("in_void", Outcome::Voided)));
    assert!(out.contains(&("in_open", Outcome::StillOpen)));
    assert_eq!(r.cohorts.len(), 1);
    let c = &r.cohorts[0];
    assert_eq!(
        c.decline.decline_code.as_deref(),
        Some("insufficient_funds")
    );
    assert_eq!((c.failed.count, c.failed.amount), (6, 6000));
    assert_eq!((c.recovered.count, c.recovered.amount), (3, 3000));
    assert_eq!(
        (c.by_retry.count, c.by_new_method.count, c.out_of_band.count),
        (1, 1, 1)
    );
    assert_eq!(
        (c.written_off.count, c.voided.count, c.still_open.count),
        (1, 1, 1)
    );
    // Recovered after 2, 4 and 9 days.
    assert_eq!(
        c.median_days_to_recover.map(|m| m.to_string()),
        Some("4".into())
    );
}

/// A paid invoice with no succeeded charge in view (a credit note or the customer's
/// balance settled it) is recovered another way, not counted as a retry on the card that
/// failed; its paid time still dates the recovery.
#[test]
fn a_paid_invoice_without_a_paying_charge_is_recovered_another_way() {
    let mut d = data(vec![]);
    let at = NOW - 20 * DAY;
    failed_invoice(
        &mut d,
        "in_credit",
        1000,
        at,
        "insufficient_funds",
        InvoiceStatus::Paid,
    );
    d.invoices[0].status_transitions.paid_at = Some(at + 6 * DAY);
    let r = build(&d, &window(), &TimeZone::UTC);
    assert_eq!(r.invoices[0].outcome, Outcome::Recovered(Via::Other));
    assert_eq!(r.invoices[0].outcome_at, Some(at + 6 * DAY));
    let c = &r.cohorts[0];
    assert_eq!((c.other.count, c.other.amount), (1, 1000));
    assert_eq!(
        (c.by_retry.count, c.by_new_method.count, c.out_of_band.count),
        (0, 0, 0)
    );
}

#[test]
fn a_failure_before_the_window_is_not_in_it() {
    let mut d = data(vec![]);
    failed_invoice(
        &mut d,
        "in_old",
        500,
        NOW - 400 * DAY,
        "expired_card",
        InvoiceStatus::Open,
    );
    let r = build(&d, &window(), &TimeZone::UTC);
    assert!(r.invoices.is_empty());
}

#[test]
fn medians_of_even_counts_show_the_half_day() {
    assert_eq!(
        MedianDays::of(&mut [3, 1, 4, 10]).map(|m| m.to_string()),
        Some("3.5".into())
    );
    assert_eq!(MedianDays::of(&mut []), None);
    assert_eq!(cohorts::percent(1, 3), Some(33));
    assert_eq!(cohorts::percent(2, 3), Some(67));
    assert_eq!(cohorts::percent(0, 0), None);
}

fn sub(id: &str, status: SubscriptionStatus, method: Option<&str>) -> SubscriptionRow {
    SubscriptionRow {
        id: id.into(),
        customer: Some("cus_1".into()),
        status,
        current_period_start: None,
        current_period_end: None,
        interval: Some("month".into()),
        interval_count: 1,
        latest_invoice: None,
        created: 0,
        cancel_at_period_end: false,
        currency: crate::money::Currency::USD,
        unit_amount: Some(1000),
        default_payment_method: method.map(str::to_owned),
        default_source: None,
    }
}

#[test]
fn the_wrong_card_is_the_subscriptions_own_failing_default() {
    let mut d = data(vec![]);
    failed_invoice(
        &mut d,
        "in_w",
        1000,
        NOW - 3 * DAY,
        "expired_card",
        InvoiceStatus::Open,
    );
    d.invoices[0].subscription = Some("sub_w".into());
    d.subscriptions
        .push(sub("sub_w", SubscriptionStatus::PastDue, Some("pm_old")));
    d.customers[0].invoice_default_payment_method = Some("pm_new".into());
    let w = wrong_cards(&d);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].invoice_id, "in_w");
    assert_eq!(w[0].failing_method, "pm_old");
    assert_eq!(w[0].customer_default, "pm_new");
    // The customer's default is the failing card: not a wrong card.
    d.customers[0].invoice_default_payment_method = Some("pm_old".into());
    assert!(wrong_cards(&d).is_empty());
}

/// With both cards' dates known (the intent's last error names the failing card, the
/// customer's default was expanded), only a newer customer card makes a wrong card; a
/// legacy default source on the customer (no date) counts as another card.
#[test]
fn the_wrong_card_needs_the_customers_card_to_be_newer() {
    let mut d = data(vec![]);
    failed_invoice(
        &mut d,
        "in_w",
        1000,
        NOW - 3 * DAY,
        "expired_card",
        InvoiceStatus::Open,
    );
    d.invoices[0].subscription = Some("sub_w".into());
    d.subscriptions
        .push(sub("sub_w", SubscriptionStatus::PastDue, Some("pm_old")));
    d.payment_intents[0].error_payment_method = Some("pm_old".into());
    d.payment_intents[0].error_payment_method_created = Some(NOW - 400 * DAY);
    d.customers[0].invoice_default_payment_method = Some("pm_other".into());
    // An older card on the customer: the subscription's card was chosen after it.
    d.customers[0].invoice_default_created = Some(NOW - 500 * DAY);
    assert!(wrong_cards(&d).is_empty());
    // A newer one: the customer updated the card, the subscription did not follow.
    d.customers[0].invoice_default_created = Some(NOW - 2 * DAY);
    assert_eq!(wrong_cards(&d).len(), 1);
    // The intent's last error on another card says nothing of the failing card's date.
    d.customers[0].invoice_default_created = Some(NOW - 500 * DAY);
    d.payment_intents[0].error_payment_method = Some("pm_elsewhere".into());
    assert_eq!(wrong_cards(&d).len(), 1);
    // A legacy source on the customer and no invoice default: another card, no date.
    d.payment_intents[0].error_payment_method = Some("pm_old".into());
    d.customers[0].invoice_default_payment_method = None;
    d.customers[0].default_source = Some("card_legacy".into());
    let w = wrong_cards(&d);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].customer_default, "card_legacy");
    // The subscription's own legacy source failing, the customer on a newer method.
    d.subscriptions[0].default_payment_method = None;
    d.subscriptions[0].default_source = Some("pm_old".into());
    assert_eq!(wrong_cards(&d).len(), 1);
}

#[test]
fn each_leak_kind_is_found() {
    let mut d = data(vec![]);
    // Retried on a canceled subscription.
    failed_invoice(
        &mut d,
        "in_c",
        1000,
        NOW - 3 * DAY,
        "expired_card",
        InvoiceStatus::Open,
    );
    d.invoices[0].subscription = Some("sub_c".into());
    d.subscriptions
        .push(sub("sub_c", SubscriptionStatus::Canceled, None));
    // Paid another invoice of the same amount afterwards.
    let mut paid = invoice("in_p", InvoiceStatus::Paid, 0);
    paid.amount_due = 1000;
    paid.status_transitions.paid_at = Some(NOW - DAY);
    d.invoices.push(paid);
    // A second customer with the same email (other case) in dunning.
    failed_invoice(
        &mut d,
        "in_e",
        700,
        NOW - 2 * DAY,
        "insufficient_funds",
        InvoiceStatus::Open,
    );
    let last = d.invoices.len() - 1;
    d.invoices[last].customer = Some("cus_2".into());
    let mut c2 = d.customers[0].clone();
    c2.id = "cus_2".into();
    c2.email = Some("ADA@example.com".into());
    d.customers.push(c2);
    let r = build(&d, &window(), &TimeZone::UTC);
    let kinds: Vec<(LeakKind, &str)> = r
        .leaks
        .iter()
        .map(|l| (l.kind, l.invoice_id.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            (LeakKind::RetryOnCanceledSubscription, "in_c"),
            (LeakKind::SameEmailCustomers, "in_c"),
            (LeakKind::SameEmailCustomers, "in_e"),
            (LeakKind::PaidAnotherInvoice, "in_c"),
        ]
    );
}

#[test]
fn an_intent_error_naming_no_charge_is_its_failed_charge_not_a_second_attempt() {
    // As the worklist reads it: the intent's error without a charge id is the error of
    // its failed charge, so the invoice has one failed attempt, at the charge's time, with
    // the intent's decline code (the worklist shows the same first decline).
    let mut d = data(vec![]);
    let at = NOW - 5 * DAY;
    failed_invoice(
        &mut d,
        "in_x",
        1000,
        at,
        "do_not_honor",
        InvoiceStatus::Open,
    );
    for p in &mut d.payment_intents {
        p.error_charge = None;
        p.created = at - DAY;
    }
    let r = build(&d, &window(), &TimeZone::UTC);
    let inv = &r.invoices[0];
    assert_eq!(inv.attempts.len(), 1, "{:?}", inv.attempts);
    assert_eq!(inv.first_failure.at, at);
    assert_eq!(
        inv.first_failure.decline.decline_code.as_deref(),
        Some("do_not_honor")
    );
}

/// The picture says when its data cannot tell how the failures ended: no paid or void
/// invoice read at all, or read from later than the month before the window's first.
#[test]
fn settled_invoices_read_too_late_or_not_at_all_are_a_gap() {
    let w = window();
    let mut meta = crate::domain::dunning::testdata::meta();
    assert_eq!(w.reads_from, w.first.prev().range(&TimeZone::UTC).0);
    meta.settled_invoices_since = None;
    let none = w.settled_gap(&meta).expect("nothing read is a gap");
    assert!(none.contains("no paid or void invoices"), "{none}");
    meta.settled_invoices_since = Some(w.reads_from + 1);
    let late = w.settled_gap(&meta).expect("one second late is a gap");
    assert!(late.contains(&crate::time::iso_utc(w.reads_from)), "{late}");
    for enough in [w.reads_from, w.reads_from - DAY, i64::MIN] {
        meta.settled_invoices_since = Some(enough);
        assert_eq!(w.settled_gap(&meta), None, "{enough}");
    }
}
