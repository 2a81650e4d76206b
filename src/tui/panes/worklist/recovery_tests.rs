//! The Recovery view: `v` switches the Worklist to the cohorts with a bar per month, Enter
//! drills into a cohort, its invoices, an invoice's attempts; `v` comes back.

use super::tests::{account as worklist_account, harness};
use super::*;
use crate::domain::dunning::testdata::*;
use crate::domain::recovery as recovery_domain;
use crate::model::AccountData;
use crate::model::status::ChargeStatus;
use crate::stripe::models::InvoiceStatus;
use crate::tui::harness::Harness;

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

/// An invoice of `amount` in `cur` whose first attempt failed at `at` with `code` on the
/// payment method `pm`: open, as the failure left it.
fn failure(
    d: &mut AccountData,
    id: &str,
    cur: Currency,
    amount: i64,
    at: i64,
    code: &str,
    pm: &str,
) {
    let pi = format!("pi_{id}");
    let ch = format!("ch_{id}");
    let mut inv = attempted(invoice(id, InvoiceStatus::Open, amount), 1, None);
    inv.currency = cur;
    inv.customer = Some(format!("cus_{id}").into());
    inv.customer_name = Some(format!("Customer {id}").into());
    d.invoices.push(inv);
    let mut p = payment(id, &pi);
    p.currency = cur;
    d.invoice_payments.push(p);
    let mut i = intent(&pi, Some(code), None, &ch);
    i.currency = cur;
    i.amount = amount;
    d.payment_intents.push(i);
    let mut c = charge(&ch, Some(&pi), at, Some(code));
    c.currency = cur;
    c.amount = amount;
    c.payment_method = Some(pm.into());
    d.charges.push(c);
}

/// The invoice `id` paid at `at` by a charge on `pm`.
fn paid_by(d: &mut AccountData, id: &str, at: i64, pm: &str) {
    let Some(inv) = d.invoices.iter_mut().find(|i| i.id == id) else {
        panic!("no invoice {id}");
    };
    inv.status = InvoiceStatus::Paid;
    inv.amount_remaining = 0;
    inv.amount_paid = inv.amount_due;
    inv.status_transitions.paid_at = Some(at);
    let (cur, amount) = (inv.currency, inv.amount_due);
    let pi = format!("pi_{id}");
    let mut c = charge(&format!("ch_{id}_paid"), Some(&pi), at, None);
    c.status = ChargeStatus::Succeeded;
    c.failure_code = None;
    c.failure_message = None;
    c.outcome_type = Some("authorized".into());
    c.outcome_network_status = Some("approved_by_network".into());
    c.currency = cur;
    c.amount = amount;
    c.amount_captured = amount;
    c.payment_method = Some(pm.into());
    d.charges.push(c);
}

fn ended(d: &mut AccountData, id: &str, status: InvoiceStatus, at: i64) {
    let Some(inv) = d.invoices.iter_mut().find(|i| i.id == id) else {
        panic!("no invoice {id}");
    };
    match &status {
        InvoiceStatus::Void => inv.status_transitions.voided_at = Some(at),
        _ => inv.status_transitions.marked_uncollectible_at = Some(at),
    }
    inv.status = status;
}

/// 2026-07-15, 2026-09-15, 2026-10-15 and 2026-11-10, each at noon UTC.
const JUL: i64 = NOW - 138 * DAY;
const SEP: i64 = NOW - 76 * DAY;
const OCT: i64 = NOW - 46 * DAY;
const NOV: i64 = NOW - 20 * DAY;

/// The worklist's account with failure histories that end every way, in three
/// currencies: paid on a retry, on a new card, outside Stripe, written off, voided, and
/// still open.
pub(super) fn account() -> AccountData {
    let mut d = worklist_account();
    failure(
        &mut d,
        "in_r1Retry",
        Currency::USD,
        4_900,
        SEP,
        "insufficient_funds",
        "pm_old1",
    );
    paid_by(&mut d, "in_r1Retry", SEP + 3 * DAY, "pm_old1");
    failure(
        &mut d,
        "in_r2NewCard",
        Currency::USD,
        12_900,
        SEP + DAY,
        "insufficient_funds",
        "pm_old2",
    );
    paid_by(&mut d, "in_r2NewCard", SEP + 11 * DAY, "pm_new2");
    failure(
        &mut d,
        "in_r3Lost",
        Currency::USD,
        2_500,
        SEP + 2 * DAY,
        "insufficient_funds",
        "pm_old3",
    );
    ended(
        &mut d,
        "in_r3Lost",
        InvoiceStatus::Uncollectible,
        SEP + 40 * DAY,
    );
    failure(
        &mut d,
        "in_r4Wire",
        Currency::USD,
        99_000,
        OCT,
        "expired_card",
        "pm_old4",
    );
    paid_by(&mut d, "in_r4Wire", OCT + 6 * DAY, "pm_old4");
    if let Some(inv) = d.invoices.iter_mut().find(|i| i.id == "in_r4Wire") {
        inv.amount_paid_off_stripe = 99_000;
    }
    failure(
        &mut d,
        "in_r5Stolen",
        Currency::EUR,
        30_000,
        OCT + DAY,
        "stolen_card",
        "pm_old5",
    );
    ended(
        &mut d,
        "in_r5Stolen",
        InvoiceStatus::Uncollectible,
        OCT + 20 * DAY,
    );
    failure(
        &mut d,
        "in_r6Void",
        Currency::EUR,
        8_000,
        NOV,
        "generic_decline",
        "pm_old6",
    );
    ended(&mut d, "in_r6Void", InvoiceStatus::Void, NOV + 2 * DAY);
    failure(
        &mut d,
        "in_r7Yen",
        Currency::JPY,
        5_000,
        NOV + DAY,
        "insufficient_funds",
        "pm_old7",
    );
    failure(
        &mut d,
        "in_r8July",
        Currency::USD,
        1_900,
        JUL,
        "do_not_honor",
        "pm_old8",
    );
    paid_by(&mut d, "in_r8July", JUL + 2 * DAY, "pm_old8");
    d
}

/// The rows the focused table shows (after the text filter).
fn total(h: &Harness) -> usize {
    h.state
        .focused()
        .and_then(|p| p.table())
        .map_or(0, DataTable::visible)
}

fn picture() -> Recovery {
    let d = account();
    let tz = jiff::tz::TimeZone::UTC;
    let w = recovery_domain::Window::ending_at(crate::tui::sample::NOW, recovery::MONTHS, &tz);
    recovery_domain::build(&d, &w, &tz)
}

#[test]
fn v_shows_the_cohorts_with_a_bar_per_month_and_goes_back() {
    for (w, hh) in SIZES {
        let mut h = harness(account(), (w, hh));
        let invoices = total(&h);
        h.keys("v");
        let frame = h.frame();
        assert!(frame.contains("Recovery by cohort"), "{frame}");
        // One row per (month, currency, first decline), as recovery.csv.
        assert_eq!(total(&h), picture().cohorts.len());
        // 2026-09: three failed, two recovered; 2026-06 had none.
        assert!(frame.contains("2026-09"), "{frame}");
        assert!(frame.contains(" 2/3 67%"), "{frame}");
        assert!(
            frame.contains("2026-06") && frame.contains("none failed"),
            "{frame}"
        );
        assert!(frame.contains("recovered"), "{frame}");
        assert!(frame.contains("v invoices"), "{frame}");
        insta::assert_snapshot!(format!("worklist_recovery_{w}x{hh}"), frame);
        h.keys("v");
        assert_eq!(total(&h), invoices, "back to the failed invoices");
        assert!(h.frame().contains("Failed payments"));
    }
}

#[test]
fn the_side_panel_gives_each_currency_its_share_of_the_failed_amount() {
    let mut h = harness(account(), (120, 40));
    h.keys("v");
    let frame = h.frame();
    // USD: 49.00 + 129.00 + 990.00 + 19.00 of 2,888.00 came back (the worklist's open
    // invoices failed this month too); nothing in EUR or JPY.
    assert!(frame.contains("USD 41% of the failed amount"), "{frame}");
    assert!(frame.contains("1,187.00 of 2,888.00 USD"), "{frame}");
    assert!(frame.contains("median 4.5 days to recover"), "{frame}");
    assert!(
        frame.contains("retry 2 · new method 1 · outside 1"),
        "{frame}"
    );
    assert!(frame.contains("EUR 0% of the failed amount"), "{frame}");
    assert!(frame.contains("0 of 17,000 JPY"), "{frame}");
}

#[test]
fn enter_drills_into_a_cohort_its_invoices_and_an_invoices_attempts() {
    let mut h = harness(account(), (120, 40));
    h.keys("v");
    // The 2026-09 USD insufficient_funds cohort.
    h.keys("/");
    h.type_text("2026-09");
    h.keys("enter");
    assert_eq!(total(&h), 1);
    h.keys("enter");
    assert_eq!(h.state.screens.len(), 1);
    let frame = h.frame();
    assert!(
        frame.contains("Recovery 2026-09 USD insufficient_funds"),
        "{frame}"
    );
    assert!(frame.contains("3 invoices failed, 203.00 USD"), "{frame}");
    assert!(frame.contains("recovered 2 (67%), 178.00 USD"), "{frame}");
    assert!(
        frame.contains("in_r2NewCard") && frame.contains("new method"),
        "{frame}"
    );
    assert!(frame.contains("written off"), "{frame}");
    assert_eq!(total(&h), 3);
    insta::assert_snapshot!("worklist_recovery_cohort_120x40", frame);
    // The new card's invoice: failed on the old card, paid on the new one.
    h.keys("g");
    h.type_text("in_r2NewCard");
    h.keys("enter enter");
    assert_eq!(h.state.screens.len(), 2);
    let frame = h.frame();
    assert!(
        frame.contains(
            "Recovered by a new payment method on 2026-09-26, 10 days after the first failure"
        ),
        "{frame}"
    );
    assert!(
        frame.contains("pm_old2") && frame.contains("pm_new2"),
        "{frame}"
    );
    assert!(
        frame.contains("succeeded") && frame.contains("failed"),
        "{frame}"
    );
    assert_eq!(total(&h), 2);
    insta::assert_snapshot!("worklist_recovery_attempts_120x40", frame);
    h.keys("esc esc");
    assert!(h.state.screens.is_empty());
    assert!(h.frame().contains("Recovery by cohort"), "the view is kept");
}

#[test]
fn f_in_the_recovery_view_goes_back_to_the_invoices_facets() {
    let mut h = harness(account(), (80, 24));
    h.keys("v f");
    assert!(h.frame().contains("Filter the worklist"), "{}", h.frame());
    h.keys("esc");
    assert!(h.frame().contains("Failed payments"), "{}", h.frame());
}

#[test]
fn an_account_without_failures_says_so_for_the_window() {
    let mut h = harness(
        AccountData::empty(crate::tui::sample::meta(crate::model::Origin::Cache)),
        (80, 24),
    );
    h.keys("v");
    let frame = h.frame();
    assert!(
        frame.contains("No invoice's payment failed from 2026-06 to 2026-11."),
        "{frame}"
    );
    assert!(frame.contains("no invoice"), "{frame}");
}

#[test]
fn the_bars_scale_to_the_busiest_month_and_split_recovered_open_lost() {
    let theme = crate::tui::theme::Theme::mono();
    let keymap = crate::tui::keymap::Keymap::default_keys();
    let load = crate::tui::workspace::LoadState::Idle;
    let cx = ViewCx {
        theme: &theme,
        keymap: &keymap,
        tz: &jiff::tz::TimeZone::UTC,
        now: crate::tui::sample::NOW,
        load: &load,
    };
    let m = crate::time::Month::of(SEP, &jiff::tz::TimeZone::UTC);
    let b = recovery::MonthBar {
        month: m,
        failed: 4,
        recovered: 2,
        open: 1,
        lost: 1,
    };
    let text: String = recovery::bar_line(&b, 8, 34, &cx)
        .spans
        .iter()
        .map(|s| s.content.to_string())
        .collect();
    // 34 cells: "2026-09 " (8) and 13 for the tail leave 13 for a bar of 8 invoices at
    // most: 4 invoices take 6.5 cells, rounded to 7 and split at 3.25 (recovered) and
    // 4.875 (recovered or open), rounded too.
    assert_eq!(text, "2026-09 ███▒▒░░       2/4 50%");
    // One failure among a busy window's hundred still shows.
    let one = recovery::MonthBar {
        month: m,
        failed: 1,
        recovered: 0,
        open: 1,
        lost: 0,
    };
    let text: String = recovery::bar_line(&one, 100, 34, &cx)
        .spans
        .iter()
        .map(|s| s.content.to_string())
        .collect();
    assert!(text.starts_with("2026-09 ▒ "), "{text}");
    // A quiet month's one recovery keeps its cell beside its losses.
    let quiet = recovery::MonthBar {
        month: m,
        failed: 3,
        recovered: 1,
        open: 0,
        lost: 2,
    };
    let text: String = recovery::bar_line(&quiet, 42, 34, &cx)
        .spans
        .iter()
        .map(|s| s.content.to_string())
        .collect();
    assert!(text.starts_with("2026-09 █░ "), "{text}");
}

#[test]
fn every_column_of_the_tables_is_a_declared_field_or_the_views_own() {
    use crate::report::{fields, recovery as export};
    for (name, _) in recovery::SHOWN {
        assert!(
            *name == "rate" || fields::field(export::COHORT_FIELDS, name).is_some(),
            "{name}"
        );
    }
    for (name, _) in super::recovery_screens::INVOICES_SHOWN {
        assert!(
            *name == "customer" || fields::field(export::INVOICE_FIELDS, name).is_some(),
            "{name}"
        );
    }
}

/// Data that cannot tell how failures ended (an old cache, the first part of a staged
/// open, a read without the charges) says so above the cohorts instead of showing its
/// 0% as if it were the account's; the same failures with the data complete do not.
#[test]
fn the_view_says_when_the_data_lacks_how_failures_ended() {
    let mut d = account();
    d.meta.settled_invoices_since = None;
    let mut h = harness(d, (120, 40));
    h.keys("v");
    let frame = h.frame();
    assert!(
        frame.contains("Incomplete: the data lacks how failures ended"),
        "{frame}"
    );
    let mut h = harness(account(), (120, 40));
    h.keys("v");
    assert!(!h.frame().contains("Incomplete"), "{}", h.frame());
}
