//! The recovery picture's cases (issue 36): failure histories that end every way (paid on
//! a retry of the same card, on a new card, outside Stripe; voided; written off; still
//! open) in usd, eur and gbp, a wrong-card subscription and one case of each leak. Made
//! from the side streams ([`Gen::with_side_streams`]) and planned without random draws,
//! so every other object of the account keeps its ids and amounts. The paid-by-charge
//! cases are paid before the random traffic starts (`flow_start`): their balance
//! transactions are history, and no payout changes.

use super::clock::{DAY, HOUR, add_months, utc};
use super::declines::Decline;
use super::engine::{DunSpec, DunTwist, Gen, InvKind, PaidHow};
use tieout_core::money::Currency;

/// One case: currency, how it ends, its first failed attempt, its failed attempts' days
/// after the first, days from the first failure to the ending, the decline, the amount.
struct Case {
    currency: Currency,
    kind: InvKind,
    first_failed: i64,
    attempt_days: &'static [i64],
    days_to_end: i64,
    decline: Decline,
    amount: i64,
}

/// Pound sterling (the money crate names only some currencies as constants).
fn gbp() -> Currency {
    Currency::parse("gbp").unwrap_or(Currency::USD)
}

const TRY_LATER: Option<&str> = Some("try_again_later");

fn cases() -> Vec<Case> {
    let case = |currency, kind, first_failed, attempt_days, days_to_end, decline, amount| Case {
        currency,
        kind,
        first_failed,
        attempt_days,
        days_to_end,
        decline,
        amount,
    };
    let funds = Decline::issuer("insufficient_funds", TRY_LATER);
    let honor = Decline::issuer("do_not_honor", None);
    let expired = Decline::coded("expired_card", Some("confirm_card_data"));
    let generic = Decline::issuer("generic_decline", None);
    let (usd, eur, gbp) = (Currency::USD, Currency::EUR, gbp());
    let same = InvKind::Paid(PaidHow::SameCard);
    let new = InvKind::Paid(PaidHow::NewCard);
    let oob = InvKind::Paid(PaidHow::OutOfBand);
    vec![
        case(usd, same, utc(2026, 6, 10, 9, 0), &[0, 3], 4, funds, 4_900),
        case(eur, same, utc(2026, 7, 3, 9, 0), &[0, 3], 8, funds, 12_000),
        case(gbp, same, utc(2026, 7, 20, 9, 0), &[0], 3, honor, 7_500),
        case(
            usd,
            same,
            utc(2026, 8, 4, 9, 0),
            &[0, 3, 8],
            12,
            funds,
            19_900,
        ),
        case(
            usd,
            new,
            utc(2026, 6, 22, 9, 0),
            &[0, 3, 8],
            12,
            expired,
            29_900,
        ),
        case(eur, new, utc(2026, 8, 2, 9, 0), &[0, 3], 9, expired, 8_900),
        case(
            gbp,
            new,
            utc(2026, 6, 5, 9, 0),
            &[0, 3, 8],
            15,
            generic,
            15_000,
        ),
        case(
            usd,
            oob,
            utc(2026, 9, 14, 9, 0),
            &[0, 3, 8, 15],
            20,
            honor,
            45_000,
        ),
        case(eur, oob, utc(2026, 10, 5, 9, 0), &[0, 3], 6, funds, 30_000),
        case(
            gbp,
            oob,
            utc(2026, 8, 11, 9, 0),
            &[0, 3, 8],
            10,
            honor,
            22_000,
        ),
        case(
            usd,
            InvKind::Void,
            utc(2026, 9, 8, 9, 0),
            &[0, 3, 8, 15],
            16,
            generic,
            9_900,
        ),
        case(
            eur,
            InvKind::Void,
            utc(2026, 10, 20, 9, 0),
            &[0, 3],
            5,
            expired,
            4_500,
        ),
        case(
            gbp,
            InvKind::Void,
            utc(2026, 7, 14, 9, 0),
            &[0, 3, 8, 15],
            30,
            funds,
            6_000,
        ),
        case(
            gbp,
            InvKind::Uncollectible,
            utc(2026, 8, 18, 9, 0),
            &[0, 3, 8, 15],
            17,
            funds,
            11_000,
        ),
    ]
}

/// The customer of the `k`th case of `currency`: the regular customers of that currency
/// in turn, counted from the end of the pool (the worklist picks at random).
fn customer(g: &Gen, currency: Currency, k: usize) -> Option<usize> {
    let pool = g.by_currency.get(&currency)?;
    (!pool.is_empty()).then(|| pool[pool.len() - 1 - k % pool.len()])
}

/// Plans every case.
pub fn add_cases(g: &mut Gen) {
    g.with_side_streams(plan);
}

fn plan(g: &mut Gen) {
    let mut seen: Vec<Currency> = Vec::new();
    for c in cases() {
        let k = seen.iter().filter(|s| **s == c.currency).count();
        seen.push(c.currency);
        let Some(cust) = customer(g, c.currency, k) else {
            continue;
        };
        let created = c.first_failed - HOUR;
        let end = c.first_failed + c.days_to_end * DAY;
        let attempts = c
            .attempt_days
            .iter()
            .map(|d| (c.first_failed + d * DAY, c.decline))
            .filter(|(at, _)| *at < end)
            .collect();
        g.dun_specs.push(DunSpec {
            kind: c.kind,
            customer: cust,
            currency: c.currency,
            amount: c.amount,
            sub: None,
            send_invoice: false,
            created,
            attempts,
            next_payment_attempt: None,
            due_date: None,
            description: Some("Custom order".into()),
            twist: DunTwist {
                side: true,
                // When it was paid or voided (a written-off invoice is marked two days
                // after its last attempt).
                paid_at: matches!(c.kind, InvKind::Paid(_) | InvKind::Void).then_some(end),
                ..DunTwist::default()
            },
        });
    }
    leaks_and_wrong_card(g);
}

/// A failing renewal of a yearly subscription begun a year before `created` (so its one
/// paid renewal is history, before any payout).
fn failing_renewal(g: &mut Gen, cust: usize, amount: i64, created: i64, twist: DunTwist) {
    let start = add_months(created, -12);
    let s = g.add_sub(cust, 12, amount, start, None);
    g.subs[s].stop_at = Some(created);
    g.subs[s].side = true;
    let now = g.p.now;
    let first = created + HOUR;
    let decline = Decline::issuer("insufficient_funds", TRY_LATER);
    g.dun_specs.push(DunSpec {
        kind: InvKind::Worklist,
        customer: cust,
        currency: g.customers[cust].currency,
        amount,
        sub: Some(s),
        send_invoice: false,
        created,
        attempts: vec![(first, decline), (first + 3 * DAY, decline)],
        next_payment_attempt: Some(now + 2 * DAY),
        due_date: None,
        description: None,
        twist: DunTwist {
            side: true,
            ..twist
        },
    });
}

/// A one-off invoice of `amount` that failed twice and is still open.
fn failing_order(g: &mut Gen, cust: usize, amount: i64, created: i64) {
    let now = g.p.now;
    let decline = Decline::issuer("do_not_honor", None);
    g.dun_specs.push(DunSpec {
        kind: InvKind::Worklist,
        customer: cust,
        currency: g.customers[cust].currency,
        amount,
        sub: None,
        send_invoice: false,
        created,
        attempts: vec![
            (created + HOUR, decline),
            (created + HOUR + 3 * DAY, decline),
        ],
        next_payment_attempt: Some(now + 3 * DAY),
        due_date: None,
        description: Some("Custom order".into()),
        twist: DunTwist {
            side: true,
            ..DunTwist::default()
        },
    });
}

fn leaks_and_wrong_card(g: &mut Gen) {
    let created = utc(2026, 11, 18, 8, 0);
    let joined = utc(2025, 10, 2, 10, 0);
    // The wrong card: a new card on the customer, the subscription still on the old one.
    let ada = g.add_customer(
        Some("Ada Okafor"),
        Some("ada.okafor@example.org"),
        Currency::USD,
        joined,
        true,
    );
    failing_renewal(
        g,
        ada,
        24_000,
        created,
        DunTwist {
            wrong_card: true,
            ..DunTwist::default()
        },
    );
    // Retried on a canceled subscription.
    let lena = g.add_customer(
        Some("Lena Brandt"),
        Some("lena.brandt@example.org"),
        Currency::EUR,
        joined,
        true,
    );
    failing_renewal(
        g,
        lena,
        18_000,
        created + DAY,
        DunTwist {
            cancel_sub: true,
            ..DunTwist::default()
        },
    );
    // One person under two customers, both in dunning (the email differs in case only).
    for email in ["sam.rivera@example.org", "Sam.Rivera@Example.org"] {
        let sam = g.add_customer(Some("Sam Rivera"), Some(email), Currency::USD, joined, true);
        failing_order(g, sam, 5_500, created + 2 * DAY);
    }
    // Paid another invoice of the same amount after this one failed.
    let noor = g.add_customer(
        Some("Noor Haddad"),
        Some("noor.haddad@example.org"),
        gbp(),
        joined,
        true,
    );
    failing_order(g, noor, 8_400, created - 10 * DAY);
    g.dun_specs.push(DunSpec {
        kind: InvKind::Paid(PaidHow::OutOfBand),
        customer: noor,
        currency: gbp(),
        amount: 8_400,
        sub: None,
        send_invoice: false,
        created: created - 2 * DAY,
        attempts: Vec::new(),
        next_payment_attempt: None,
        due_date: None,
        description: Some("Custom order".into()),
        twist: DunTwist {
            side: true,
            paid_at: Some(created - DAY),
            ..DunTwist::default()
        },
    });
}
