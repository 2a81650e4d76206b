//! The failed-payment side of the account: the worklist invoices (open, failed attempts or
//! past due) over the decline codes of RULES.md ("Stripe facts"), and the
//! invoices around them (uncollectible, void, draft, open but not yet attempted or not yet
//! due), each with its PaymentIntent, failed charges and invoice payment.
//!
//! The demo holds exactly [`TABLE`] (one invoice per row); larger scales cycle through it.

use rand::Rng;

use super::clock::{DAY, HOUR, add_months};
use super::declines::Decline;
use super::engine::{DunSpec, Gen, InvKind};
use tieout_core::money::Currency;

/// One worklist invoice of the demo.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    /// The latest attempt's decline; `None` for a send_invoice invoice never attempted.
    pub decline: Option<Decline>,
    /// The decline of the earlier attempts, when it differs from the latest.
    pub earlier: Option<Decline>,
    pub currency: &'static str,
    /// A failed subscription renewal (else a one-off invoice).
    pub sub: bool,
    pub attempts: usize,
    /// Hours from now to the next automatic retry; `None`: no retry left.
    pub next_hours: Option<i64>,
    pub send_invoice: bool,
}

const fn row(
    decline: Decline,
    currency: &'static str,
    sub: bool,
    attempts: usize,
    next_hours: Option<i64>,
) -> Row {
    Row {
        decline: Some(decline),
        earlier: None,
        currency,
        sub,
        attempts,
        next_hours,
        send_invoice: false,
    }
}

const TRY_LATER: Option<&str> = Some("try_again_later");
const CONFIRM: Option<&str> = Some("confirm_card_data");
const DO_NOT: Option<&str> = Some("do_not_try_again");

/// The demo's 40 worklist invoices.
pub const TABLE: &[Row] = &[
    row(
        Decline::issuer("insufficient_funds", TRY_LATER),
        "usd",
        true,
        2,
        Some(50),
    ),
    row(
        Decline::issuer("insufficient_funds", TRY_LATER),
        "eur",
        false,
        1,
        Some(70),
    ),
    row(
        Decline::issuer("insufficient_funds", None),
        "gbp",
        true,
        4,
        None,
    ),
    row(
        Decline::issuer("insufficient_funds", TRY_LATER),
        "jpy",
        true,
        3,
        Some(20),
    ),
    row(
        Decline::coded("expired_card", CONFIRM),
        "usd",
        true,
        2,
        Some(75),
    ),
    row(Decline::coded("expired_card", None), "eur", true, 4, None),
    row(
        Decline::coded("incorrect_number", CONFIRM),
        "usd",
        false,
        1,
        None,
    ),
    row(
        Decline::issuer("generic_decline", None),
        "usd",
        true,
        2,
        Some(96),
    ),
    row(
        Decline::issuer("do_not_honor", None),
        "usd",
        false,
        3,
        Some(44),
    ),
    row(Decline::issuer("lost_card", DO_NOT), "usd", true, 1, None),
    row(
        Decline::issuer("stolen_card", DO_NOT),
        "eur",
        false,
        1,
        None,
    ),
    row(Decline::issuer("fraudulent", DO_NOT), "usd", false, 1, None),
    row(Decline::issuer("pickup_card", None), "gbp", false, 1, None),
    row(
        Decline::issuer("authentication_required", None),
        "usd",
        true,
        1,
        None,
    ),
    row(
        Decline::coded("processing_error", None),
        "eur",
        false,
        2,
        Some(26),
    ),
    row(
        Decline::issuer("card_velocity_exceeded", TRY_LATER),
        "usd",
        false,
        2,
        Some(120),
    ),
    row(
        Decline::issuer("transaction_not_allowed", None),
        "kwd",
        false,
        1,
        None,
    ),
    row(
        Decline::issuer("try_again_later", TRY_LATER),
        "usd",
        true,
        2,
        Some(22),
    ),
    row(
        Decline::issuer("invalid_account", None),
        "eur",
        false,
        3,
        Some(80),
    ),
    row(
        Decline::blocked("merchant_blacklist", "merchant_blacklist"),
        "usd",
        false,
        1,
        None,
    ),
    row(
        Decline::issuer("duplicate_transaction", None),
        "usd",
        false,
        1,
        Some(30),
    ),
    row(
        Decline::issuer("revocation_of_authorization", None),
        "usd",
        true,
        1,
        None,
    ),
    row(
        Decline::issuer("issuer_quantum_fault", None),
        "usd",
        false,
        2,
        Some(48),
    ),
    row(
        Decline::issuer("generic_decline", DO_NOT),
        "eur",
        true,
        3,
        None,
    ),
    row(
        Decline::blocked("generic_decline", "previously_declined_do_not_retry"),
        "usd",
        true,
        4,
        None,
    ),
    row(Decline::bare("processing_error"), "jpy", false, 1, Some(24)),
    row(Decline::bare("card_declined"), "usd", false, 2, Some(70)),
    row(
        Decline::issuer("insufficient_funds", TRY_LATER),
        "kwd",
        true,
        2,
        Some(40),
    ),
    Row {
        decline: Some(Decline::coded("expired_card", CONFIRM)),
        earlier: Some(Decline::issuer("insufficient_funds", TRY_LATER)),
        currency: "usd",
        sub: true,
        attempts: 3,
        next_hours: Some(52),
        send_invoice: false,
    },
    row(
        Decline::issuer("do_not_honor", None),
        "eur",
        false,
        2,
        Some(90),
    ),
    row(
        Decline::issuer("insufficient_funds", TRY_LATER),
        "usd",
        false,
        1,
        Some(68),
    ),
    row(
        Decline::issuer("generic_decline", None),
        "jpy",
        true,
        2,
        Some(46),
    ),
    row(
        Decline::issuer("card_not_supported", None),
        "gbp",
        false,
        1,
        None,
    ),
    row(
        Decline::issuer("do_not_honor", TRY_LATER),
        "kwd",
        false,
        1,
        Some(66),
    ),
    Row {
        decline: None,
        earlier: None,
        currency: "usd",
        sub: false,
        attempts: 0,
        next_hours: None,
        send_invoice: true,
    },
    Row {
        decline: None,
        earlier: None,
        currency: "eur",
        sub: false,
        attempts: 0,
        next_hours: None,
        send_invoice: true,
    },
    Row {
        decline: Some(Decline::issuer("insufficient_funds", TRY_LATER)),
        earlier: None,
        currency: "gbp",
        sub: false,
        attempts: 1,
        next_hours: None,
        send_invoice: true,
    },
    Row {
        decline: None,
        earlier: None,
        currency: "jpy",
        sub: false,
        attempts: 0,
        next_hours: None,
        send_invoice: true,
    },
    row(
        Decline::issuer("insufficient_funds", TRY_LATER),
        "eur",
        true,
        1,
        Some(94),
    ),
    row(
        Decline::coded("expired_card", CONFIRM),
        "usd",
        false,
        4,
        None,
    ),
];

/// Days after the first attempt at which attempt k happens (Smart-Retries-like).
const ATTEMPT_DAYS: [i64; 4] = [0, 3, 8, 15];

fn cur(code: &str) -> Currency {
    Currency::parse(code).unwrap_or(Currency::USD)
}

fn invoice_amount(g: &mut Gen, c: Currency) -> i64 {
    match c.as_str() {
        "jpy" => g.rng.random_range(20..2000) * 100,
        "kwd" => g.rng.random_range(5..400) * 1000 + g.rng.random_range(0..100) * 10,
        _ => g.rng.random_range(19..1500) * 100,
    }
}

fn pick_customer(g: &mut Gen, c: Currency) -> Option<usize> {
    let pool = g.by_currency.get(&c)?;
    if pool.is_empty() {
        return None;
    }
    Some(pool[g.rng.random_range(0..pool.len())])
}

fn worklist_spec(g: &mut Gen, r: &Row) -> Option<DunSpec> {
    let now = g.p.now;
    let currency = cur(r.currency);
    let customer = pick_customer(g, currency)?;
    let amount = invoice_amount(g, currency);
    if r.send_invoice {
        let created = now - (30 + g.rng.random_range(3..40)) * DAY - g.rng.random_range(0..DAY);
        let due = created + 30 * DAY;
        let mut attempts = Vec::new();
        if let Some(d) = r.decline {
            let at = (due + g.rng.random_range(1..3) * DAY).min(now - 2 * HOUR);
            attempts.push((at, d));
        }
        return Some(DunSpec {
            kind: InvKind::Worklist,
            customer,
            currency,
            amount,
            sub: None,
            send_invoice: true,
            created,
            attempts,
            next_payment_attempt: None,
            due_date: Some(due),
            description: Some("Wholesale order, net 30".into()),
            twist: Default::default(),
        });
    }
    let n = r.attempts.clamp(1, 4);
    let last_offset = ATTEMPT_DAYS[n - 1] * DAY;
    let mut created = now - last_offset - HOUR - g.rng.random_range(3..200) * HOUR;
    let mut sub = None;
    if r.sub {
        let k = g.rng.random_range(1..6);
        let start = add_months(created, -k);
        created = add_months(start, k);
        let s = g.add_sub(customer, 1, amount, start, None);
        g.subs[s].stop_at = Some(created);
        sub = Some(s);
    }
    let first = created + HOUR;
    let latest = r.decline?;
    let attempts = (0..n)
        .map(|k| {
            let d = if k + 1 == n {
                latest
            } else {
                r.earlier.unwrap_or(latest)
            };
            (first + ATTEMPT_DAYS[k] * DAY + (k as i64) * 17 * 60, d)
        })
        .collect();
    Some(DunSpec {
        kind: InvKind::Worklist,
        customer,
        currency,
        amount,
        sub,
        send_invoice: false,
        created,
        attempts,
        next_payment_attempt: r.next_hours.map(|h| now + h * HOUR),
        due_date: None,
        description: if r.sub {
            None
        } else {
            Some("Custom order".into())
        },
        twist: Default::default(),
    })
}

/// Plans every non-paid invoice of the account.
pub fn add_invoices(g: &mut Gen) {
    let now = g.p.now;
    let n = if g.p.worklist == 0 {
        TABLE.len()
    } else {
        g.p.worklist
    };
    for i in 0..n {
        let r = TABLE[i % TABLE.len()];
        if let Some(spec) = worklist_spec(g, &r) {
            g.dun_specs.push(spec);
        }
    }
    let repeat = (g.p.scale as usize / 10).max(1);
    for _ in 0..repeat {
        // Written off after four failed attempts (two currencies).
        for (c, d) in [
            ("usd", Decline::issuer("insufficient_funds", TRY_LATER)),
            ("usd", Decline::issuer("do_not_honor", None)),
            ("eur", Decline::issuer("insufficient_funds", TRY_LATER)),
            ("eur", Decline::coded("expired_card", CONFIRM)),
        ] {
            let currency = cur(c);
            let Some(customer) = pick_customer(g, currency) else {
                continue;
            };
            let amount = invoice_amount(g, currency);
            let created = now - g.rng.random_range(40..70) * DAY;
            let attempts = ATTEMPT_DAYS
                .iter()
                .map(|k| (created + HOUR + k * DAY, d))
                .collect();
            g.dun_specs.push(DunSpec {
                kind: InvKind::Uncollectible,
                customer,
                currency,
                amount,
                sub: None,
                send_invoice: false,
                created,
                attempts,
                next_payment_attempt: None,
                due_date: None,
                description: Some("Custom order".into()),
                twist: Default::default(),
            });
        }
        let simple = |g: &mut Gen,
                      kind: InvKind,
                      c: &str,
                      created: i64,
                      send: bool,
                      due: Option<i64>,
                      next: Option<i64>| {
            let currency = cur(c);
            let customer = pick_customer(g, currency)?;
            let amount = invoice_amount(g, currency);
            Some(DunSpec {
                kind,
                customer,
                currency,
                amount,
                sub: None,
                send_invoice: send,
                created,
                attempts: Vec::new(),
                next_payment_attempt: next,
                due_date: due,
                description: Some("Custom order".into()),
                twist: Default::default(),
            })
        };
        let mut more = Vec::new();
        for c in ["usd", "eur", "gbp"] {
            let created = now - g.rng.random_range(15..60) * DAY;
            more.push(simple(g, InvKind::Void, c, created, false, None, None));
        }
        for c in ["usd", "eur", "jpy"] {
            let created = now - g.rng.random_range(1..3) * DAY - g.rng.random_range(0..DAY / 2);
            more.push(simple(g, InvKind::Draft, c, created, false, None, None));
        }
        more.push(simple(
            g,
            InvKind::OpenNotAttempted,
            "usd",
            now - 90 * 60,
            false,
            None,
            Some(now + 30 * 60),
        ));
        let created = now - 5 * DAY;
        more.push(simple(
            g,
            InvKind::OpenNotDue,
            "usd",
            created,
            true,
            Some(now + 25 * DAY),
            None,
        ));
        g.dun_specs.extend(more.into_iter().flatten());
    }
}
