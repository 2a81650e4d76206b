//! The refund tickets of the demo (`fixtures/demo/tickets.csv`) and the customers,
//! charges, refunds, disputes and subscriptions built for them, so that every rule of the
//! default refund policy (ARCHITECTURE.md, "The rules of each job") fires at least once at the demo's now,
//! 2026-11-30T12:00:00Z.
//!
//! Which ticket is meant to hit which rule (first match wins; amounts in minor units; the
//! same table is [`EXPECTED`], for tests):
//!
//! | ticket | email (customer) | order | situation | rule | outcome |
//! |---|---|---|---|---|---|
//! | T-1001 | jordan.lee@example.net (none) | ORD-7010 | no customer has the email | `no-customer` | review |
//! | T-1002 | maya.okafor@example.com | ORD-7021 | her only succeeded charge is ORD-7020; ORD-7021 only exists as a declined (failed) charge | `no-charge` | review |
//! | T-1003 | daniel.weber@example.org | ORD-7030 | charged twice, same amount, same order id | `ambiguous-charge` | review |
//! | T-1004 | chloe.laurent@example.com | ORD-7040 | $64.00 fully refunded on 2026-11-08 | `already-refunded` | decline |
//! | T-1005 | samuel.mensah@example.net | ORD-7050 | first charge, 20 days old, disputed 2026-11-25 (needs_response) | `disputed` | decline |
//! | T-1006 | priya.patel@example.com | ORD-7062 | refunds on 2026-04-10 and 2026-09-05 | `refund-pattern` | review |
//! | T-1007 | lily.andersson@example.org | ORD-7070 | first charge, 12 days old, $79.00 | `first-purchase-window` | approve 7900 usd |
//! | T-1008 | marco.romano@example.com | ORD-7080 | first charge exactly 30 days old (2026-10-31T12:00:00Z) | `first-purchase-window` | approve 12900 usd |
//! | T-1009 | freya.jensen@example.net | ORD-7090 | first charge 31 days old (2026-10-30T12:00:00Z) | `outside-window` | decline |
//! | T-1010 | omar.haddad@example.com | ORD-7100 | annual plan $287.00 paid 2026-03-15, period ends 2027-03-15: 3 whole months | `annual-prorate` | partial 7175 usd (28700 × 3 / 12) |
//! | T-1011 | fatima.alsabah@example.com | ORD-7110 | annual plan 45.250 KWD paid 2026-05-02, ends 2027-05-02: 5 whole months | `annual-prorate` | partial 18850 kwd (45250 × 5 / 12 = 18854, down to 10) |
//! | T-1012 | yuki.tanaka@example.com | ORD-7120 | first charge ¥12,800, 5 days old | `first-purchase-window` | approve 12800 jpy |
//! | T-1013 | elena.costa@example.org | ORD-7130 | first charge $120.00, $20.00 already refunded | `first-purchase-window` | approve 10000 usd |
//! | T-1014 | Noah.Fischer@Example.COM (noah.fischer@example.com) | ORD-7140 | email case differs; first charge €59.00, 17 days old | `first-purchase-window` | approve 5900 eur |
//! | T-1015 | accounts@bluefinch.example.com (two customers) | ORD-7151 | two customers share the email; the order is the second one's first charge, 45 days old | `outside-window` | decline |
//! | T-1016 | camille.moreau@example.net | ORD-7161 | second charge, 75 days old | `outside-window` | decline |
//! | T-1017 | kenji.ito@example.com | ORD-7175 | monthly plan renewal 10 days old (not yearly, not first) | `outside-window` | decline |
//! | T-1018 | ingrid.lindqvist@example.org | ORD-7180 | annual plan ending 2026-12-20: no whole month left | `outside-window` | decline |
//! | T-1019 | giulia.ricci@example.com | ORD-7190 | order id only in the description; first charge €34.50, 15 days old | `first-purchase-window` | approve 3450 eur |
//! | T-1020 | arjun.khan@example.com | ORD-7200 | order id under metadata key `order`; first charge $22.00, 3 days old | `first-purchase-window` | approve 2200 usd |

use std::collections::BTreeMap;

use super::clock::{DAY, utc};
use super::declines::Decline;
use super::engine::{ChargeSpec, DisputeSpec, FailedSpec, Gen, RefundSpec};
use super::objects::Metadata;
use super::writer::GenError;
use tieout_core::money::Currency;

/// One refund ticket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ticket {
    pub ticket_id: &'static str,
    pub email: &'static str,
    pub order_id: &'static str,
    pub message: &'static str,
}

/// What the default policy should say about a demo ticket at the demo's now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expected {
    pub ticket_id: &'static str,
    pub rule: &'static str,
    /// `approve`, `partial`, `decline` or `review`.
    pub recommendation: &'static str,
    /// Minor units, for approve and partial.
    pub amount: Option<i64>,
    pub currency: Option<&'static str>,
}

const fn exp(
    ticket_id: &'static str,
    rule: &'static str,
    recommendation: &'static str,
    amount: Option<i64>,
    currency: Option<&'static str>,
) -> Expected {
    Expected {
        ticket_id,
        rule,
        recommendation,
        amount,
        currency,
    }
}

/// The expected outcome of every demo ticket under the default policy.
pub const EXPECTED: &[Expected] = &[
    exp("T-1001", "no-customer", "review", None, None),
    exp("T-1002", "no-charge", "review", None, None),
    exp("T-1003", "ambiguous-charge", "review", None, None),
    exp("T-1004", "already-refunded", "decline", None, Some("usd")),
    exp("T-1005", "disputed", "decline", None, Some("usd")),
    exp("T-1006", "refund-pattern", "review", None, Some("usd")),
    exp(
        "T-1007",
        "first-purchase-window",
        "approve",
        Some(7900),
        Some("usd"),
    ),
    exp(
        "T-1008",
        "first-purchase-window",
        "approve",
        Some(12900),
        Some("usd"),
    ),
    exp("T-1009", "outside-window", "decline", None, Some("usd")),
    exp(
        "T-1010",
        "annual-prorate",
        "partial",
        Some(7175),
        Some("usd"),
    ),
    exp(
        "T-1011",
        "annual-prorate",
        "partial",
        Some(18850),
        Some("kwd"),
    ),
    exp(
        "T-1012",
        "first-purchase-window",
        "approve",
        Some(12800),
        Some("jpy"),
    ),
    exp(
        "T-1013",
        "first-purchase-window",
        "approve",
        Some(10000),
        Some("usd"),
    ),
    exp(
        "T-1014",
        "first-purchase-window",
        "approve",
        Some(5900),
        Some("eur"),
    ),
    exp("T-1015", "outside-window", "decline", None, Some("usd")),
    exp("T-1016", "outside-window", "decline", None, Some("eur")),
    exp("T-1017", "outside-window", "decline", None, Some("usd")),
    exp("T-1018", "outside-window", "decline", None, Some("usd")),
    exp(
        "T-1019",
        "first-purchase-window",
        "approve",
        Some(3450),
        Some("eur"),
    ),
    exp(
        "T-1020",
        "first-purchase-window",
        "approve",
        Some(2200),
        Some("usd"),
    ),
];

pub const TICKETS: &[Ticket] = &[
    Ticket {
        ticket_id: "T-1001",
        email: "jordan.lee@example.net",
        order_id: "ORD-7010",
        message: "Hi, I want my money back for order ORD-7010. It never arrived.",
    },
    Ticket {
        ticket_id: "T-1002",
        email: "maya.okafor@example.com",
        order_id: "ORD-7021",
        message: "Please refund ORD-7021, I cancelled it the same day.",
    },
    Ticket {
        ticket_id: "T-1003",
        email: "daniel.weber@example.org",
        order_id: "ORD-7030",
        message: "I was charged twice for ORD-7030, please refund one of them.",
    },
    Ticket {
        ticket_id: "T-1004",
        email: "chloe.laurent@example.com",
        order_id: "ORD-7040",
        message: "Refund for the lamp please (ORD-7040).",
    },
    Ticket {
        ticket_id: "T-1005",
        email: "samuel.mensah@example.net",
        order_id: "ORD-7050",
        message: "I did not authorise this payment. Refund it now.",
    },
    Ticket {
        ticket_id: "T-1006",
        email: "priya.patel@example.com",
        order_id: "ORD-7062",
        message: "The kettle is not what I expected, I'd like a refund.",
    },
    Ticket {
        ticket_id: "T-1007",
        email: "lily.andersson@example.org",
        order_id: "ORD-7070",
        message: "Changed my mind about the throw, can I return it?",
    },
    Ticket {
        ticket_id: "T-1008",
        email: "marco.romano@example.com",
        order_id: "ORD-7080",
        message: "The print arrived damaged, refund please.",
    },
    Ticket {
        ticket_id: "T-1009",
        email: "freya.jensen@example.net",
        order_id: "ORD-7090",
        message: "The print arrived damaged, refund please.",
    },
    Ticket {
        ticket_id: "T-1010",
        email: "omar.haddad@example.com",
        order_id: "ORD-7100",
        message: "We are closing the studio; please cancel the annual plan and refund what is left.",
    },
    Ticket {
        ticket_id: "T-1011",
        email: "fatima.alsabah@example.com",
        order_id: "ORD-7110",
        message: "Please cancel my yearly plan and refund the unused months.",
    },
    Ticket {
        ticket_id: "T-1012",
        email: "yuki.tanaka@example.com",
        order_id: "ORD-7120",
        message: "Wrong size, I'd like a refund.",
    },
    Ticket {
        ticket_id: "T-1013",
        email: "elena.costa@example.org",
        order_id: "ORD-7130",
        message: "You refunded the shipping, but I'm returning everything now.",
    },
    Ticket {
        ticket_id: "T-1014",
        email: "Noah.Fischer@Example.COM",
        order_id: "ORD-7140",
        message: "Bitte erstatten, \"falsche Farbe\", danke.",
    },
    Ticket {
        ticket_id: "T-1015",
        email: "accounts@bluefinch.example.com",
        order_id: "ORD-7151",
        message: "Refund request from the Bluefinch office for ORD-7151.",
    },
    Ticket {
        ticket_id: "T-1016",
        email: "camille.moreau@example.net",
        order_id: "ORD-7161",
        message: "Je voudrais un remboursement, s'il vous plaît.",
    },
    Ticket {
        ticket_id: "T-1017",
        email: "kenji.ito@example.com",
        order_id: "ORD-7175",
        message: "I forgot to cancel, please refund this month's charge.",
    },
    Ticket {
        ticket_id: "T-1018",
        email: "ingrid.lindqvist@example.org",
        order_id: "ORD-7180",
        message: "Please refund the rest of my annual plan.",
    },
    Ticket {
        ticket_id: "T-1019",
        email: "giulia.ricci@example.com",
        order_id: "ORD-7190",
        message: "One mug was broken, refund the order please.",
    },
    Ticket {
        ticket_id: "T-1020",
        email: "arjun.khan@example.com",
        order_id: "ORD-7200",
        message: "Ordered by mistake, please refund.",
    },
];

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

/// Adds the scenario customers, their charges and subscriptions; returns the tickets.
pub fn add_scenarios(g: &mut Gen) -> Result<Vec<Ticket>, GenError> {
    let usd = Currency::USD;
    let eur = Currency::EUR;
    let jpy = Currency::JPY;
    let kwd = Currency::parse("kwd").map_err(|e| GenError::Invalid(e.to_string()))?;
    let c = |g: &mut Gen, name: &str, email: &str, cur: Currency, created: i64| {
        g.add_customer(Some(name), Some(email), cur, created, true)
    };

    // T-1002: no charge matches the order.
    let a = c(
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

    // T-1003: two charges with the same order id and amount.
    let b = c(
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

    // T-1004: fully refunded.
    let cc = c(
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

    // T-1005: disputed.
    let d = c(
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

    // T-1006: two refunds in the prior 365 days.
    let e = c(
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

    // T-1007: first purchase, 12 days.
    let f = c(
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

    // T-1008 / T-1009: exactly 30 and 31 days.
    let gg = c(
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
    let h = c(
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

    // T-1010: annual plan, 3 whole months left.
    let i = c(
        g,
        "Omar Haddad",
        "omar.haddad@example.com",
        usd,
        utc(2026, 3, 14, 10, 0),
    );
    g.add_sub(i, 12, 28_700, utc(2026, 3, 15, 9, 0), Some(7100));

    // T-1011: annual plan in kwd, 5 whole months left.
    let j = c(
        g,
        "Fatima Al-Sabah",
        "fatima.alsabah@example.com",
        kwd,
        utc(2026, 5, 1, 10, 0),
    );
    g.add_sub(j, 12, 45_250, utc(2026, 5, 2, 9, 0), Some(7110));

    // T-1012: jpy first purchase.
    let k = c(
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

    // T-1013: partially refunded first purchase.
    let l = c(
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

    // T-1014: email case differs.
    let n = c(
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

    // T-1015: two customers share one email.
    let m1 = c(
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
    let m2 = c(
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

    // T-1016: second charge, 75 days.
    let q = c(
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

    // T-1017: monthly plan renewal (ORD-7170..ORD-7175, the last on 2026-11-20).
    let sm = c(
        g,
        "Kenji Ito",
        "kenji.ito@example.com",
        usd,
        utc(2026, 6, 19, 9, 0),
    );
    g.add_sub(sm, 1, 2_400, utc(2026, 6, 20, 9, 0), Some(7170));

    // T-1018: annual plan with no whole month left.
    let r = c(
        g,
        "Ingrid Lindqvist",
        "ingrid.lindqvist@example.org",
        usd,
        utc(2025, 12, 19, 9, 0),
    );
    g.add_sub(r, 12, 19_900, utc(2025, 12, 20, 9, 0), Some(7180));

    // T-1019: order id in the description only.
    let o = c(
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

    // T-1020: order id under another metadata key.
    let p = c(
        g,
        "Arjun Khan",
        "arjun.khan@example.com",
        usd,
        utc(2026, 11, 27, 19, 0),
    );
    let mut s = spec(utc(2026, 11, 27, 20, 0), p, usd, 2_200, "", "1 × Gift card");
    s.metadata = meta("order", "ORD-7200");
    g.charge_specs.push(s);

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

/// `tickets.csv`: `ticket_id,email,order_id,message` (RFC 4180 quoting).
pub fn tickets_csv(tickets: &[Ticket]) -> Result<String, GenError> {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    let bad = |e: csv::Error| GenError::Invalid(format!("could not write tickets.csv: {e}"));
    w.write_record(["ticket_id", "email", "order_id", "message"])
        .map_err(bad)?;
    for t in tickets {
        w.write_record([t.ticket_id, t.email, t.order_id, t.message])
            .map_err(bad)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| GenError::Invalid(format!("could not write tickets.csv: {e}")))?;
    String::from_utf8(bytes).map_err(|e| GenError::Invalid(e.to_string()))
}
