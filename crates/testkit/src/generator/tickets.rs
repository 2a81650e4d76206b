//! The refund tickets of the demo (`fixtures/demo/tickets.csv`) and the customers,
//! charges, refunds, disputes and subscriptions built for them, so that every rule of the
//! default refund policy (RULES.md, "The rules of each job") fires at least once at the demo's now,
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

use super::writer::GenError;

mod scenarios;
pub use scenarios::add_scenarios;

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
