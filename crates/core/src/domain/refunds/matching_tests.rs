//! The indexed matching ([`match_ticket`] over [`Facts`]' index) finds exactly what a scan
//! of every row finds: same customers, charges, refunds, disputes and subscription, in the
//! same order, with the same ties broken the same way. The scan below is the matching as
//! it was before the index (issue 40, defect 6), kept here as the oracle only.

use proptest::prelude::*;

use super::matching::*;
use super::testdata::*;
use crate::model::rows::{
    ChargeRow, CustomerRow, DisputeRow, InvoicePaymentRow, RefundRow, SubscriptionRow,
};
use crate::model::status::ChargeStatus;

/// The subscription link by scanning every subscription and invoice payment.
fn scan_link(
    charge: &ChargeRow,
    subscriptions: &[SubscriptionRow],
    invoice_payments: &[InvoicePaymentRow],
) -> Option<SubscriptionLink> {
    let customer = charge.customer.as_deref()?;
    let mut best: Option<(u8, i64, SubscriptionLink)> = None;
    for sub in subscriptions
        .iter()
        .filter(|s| s.customer.as_deref() == Some(customer))
    {
        let start = sub.current_period_start.unwrap_or(i64::MIN);
        let paid_invoice = sub.latest_invoice.as_deref().filter(|inv| {
            invoice_payments.iter().any(|p| {
                p.invoice == *inv
                    && (p.charge.as_deref() == Some(charge.id.as_str())
                        || (p.payment_intent.is_some()
                            && p.payment_intent.as_deref() == charge.payment_intent.as_deref()))
            })
        });
        let by_start = sub.current_period_start.is_some()
            && charge.created >= start
            && charge.created <= start.saturating_add(PERIOD_PAID_SLACK_SECS);
        let candidate = if by_start {
            Some((
                2,
                SubscriptionLink {
                    subscription: sub.clone(),
                    via: PeriodLink::PeriodStart,
                },
            ))
        } else {
            paid_invoice.map(|inv| {
                (
                    1,
                    SubscriptionLink {
                        subscription: sub.clone(),
                        via: PeriodLink::LatestInvoice {
                            invoice: inv.to_string(),
                        },
                    },
                )
            })
        };
        if let Some((rank, link)) = candidate {
            let better = match &best {
                None => true,
                Some((r, s, _)) => (rank, start) > (*r, *s),
            };
            if better {
                best = Some((rank, start, link));
            }
        }
    }
    best.map(|(_, _, link)| link)
}

/// The matching by scanning every row for each ticket.
fn scan_match(ticket: &super::Ticket, w: &World) -> Matched {
    let (email_match, customers) = customers_by_email(&ticket.email, w.customers.iter());
    let ids: Vec<&str> = customers.iter().map(|c| c.id.as_str()).collect();
    let of_customers = |c: &&ChargeRow| c.customer.as_deref().is_some_and(|id| ids.contains(&id));
    let mut customer_charges: Vec<ChargeRow> = w
        .charges
        .iter()
        .filter(of_customers)
        .filter(|c| c.status == ChargeStatus::Succeeded)
        .cloned()
        .collect();
    customer_charges.sort_by(|a, b| a.created.cmp(&b.created).then_with(|| a.id.cmp(&b.id)));
    let all_charge_ids: Vec<&str> = w
        .charges
        .iter()
        .filter(of_customers)
        .map(|c| c.id.as_str())
        .collect();
    let mut customer_refunds: Vec<RefundRow> = w
        .refunds
        .iter()
        .filter(|r| {
            r.charge
                .as_deref()
                .is_some_and(|c| all_charge_ids.contains(&c))
        })
        .cloned()
        .collect();
    customer_refunds.sort_by(|a, b| a.created.cmp(&b.created).then_with(|| a.id.cmp(&b.id)));
    let mut candidates = Vec::new();
    let order = if customers.is_empty() {
        OrderMatch::NoCustomer
    } else {
        match_order_traced(ticket, customer_charges.iter(), &mut candidates)
    };
    let (refunds, disputes, subscription) = match &order {
        OrderMatch::One { charge, .. } => {
            let refunds: Vec<RefundRow> = customer_refunds
                .iter()
                .filter(|r| r.charge.as_deref() == Some(charge.id.as_str()))
                .cloned()
                .collect();
            let mut disputes: Vec<DisputeRow> = w
                .disputes
                .iter()
                .filter(|d| d.charge.as_deref() == Some(charge.id.as_str()))
                .cloned()
                .collect();
            disputes.sort_by(|a, b| a.created.cmp(&b.created).then_with(|| a.id.cmp(&b.id)));
            let sub = scan_link(charge, &w.subscriptions, &w.invoice_payments);
            (refunds, disputes, sub)
        }
        _ => (Vec::new(), Vec::new(), None),
    };
    Matched {
        email_match,
        customers: customers.into_iter().cloned().collect(),
        customer_charges,
        order,
        refunds,
        disputes,
        customer_refunds,
        subscription,
        candidates,
    }
}

// Small pools, so ids, emails, order ids and times collide often: duplicate rows, the
// same email in several cases and with spaces, ties on creation time.
const EMAILS: &[&str] = &[
    "ann@x.io",
    "Ann@X.io",
    " ann@x.io ",
    "bob@x.io",
    "ZOË@x.io",
    "zoë@x.io",
    "",
];
const ORDERS: &[&str] = &["ORD-1", "ord-1", " ORD-1 ", "ORD-2", "ORD-12", "#7"];
const TIMES: &[i64] = &[0, DAY, 2 * DAY, 5 * DAY];

fn id(prefix: &str, n: usize) -> String {
    format!("{prefix}_{n}")
}

/// An optional index into a pool of `n` (the last value meaning none).
fn opt(i: usize, n: usize) -> Option<usize> {
    (i < n).then_some(i)
}

fn a_customer() -> impl Strategy<Value = CustomerRow> {
    (0..4usize, 0..8usize, 0..4usize, prop::bool::weighted(0.15)).prop_map(|(n, e, t, deleted)| {
        CustomerRow {
            id: id("cus", n),
            email: EMAILS.get(e).map(|e| (*e).to_string()),
            name: None,
            created: TIMES[t],
            deleted,
            invoice_default_payment_method: None,
            invoice_default_created: None,
            default_source: None,
        }
    })
}

fn a_charge() -> impl Strategy<Value = ChargeRow> {
    (
        (0..8usize, 0..6usize, 0..3usize, 0..2usize, any::<bool>()),
        (0..4usize, 0..8usize, 0..3usize, 0..8usize, 0..4usize),
    )
        .prop_map(
            |((n, cus, amount, cur_i, failed), (t, meta, key, desc, pi))| {
                let mut c = charge(
                    &id("ch", n),
                    &id("cus", cus),
                    [1000, 2000, 4900][amount],
                    ["usd", "eur"][cur_i],
                    TIMES[t],
                );
                // cus_4 is nobody's; a charge without a customer too.
                if cus == 5 {
                    c.customer = None;
                }
                if failed {
                    c.status = ChargeStatus::Failed;
                }
                if let Some(o) = opt(meta, ORDERS.len()) {
                    c.metadata
                        .insert(["order_id", "order", "ref"][key], ORDERS[o]);
                }
                c.description =
                    opt(desc, ORDERS.len()).map(|o| format!("Order {}", ORDERS[o]).into());
                c.payment_intent = opt(pi, 3).map(|p| id("pi", p).into());
                c
            },
        )
}

fn a_refund() -> impl Strategy<Value = RefundRow> {
    (0..6usize, 0..9usize, 0..4usize).prop_map(|(n, ch, t)| {
        let mut r = refund(&id("re", n), &id("ch", ch), 500, "usd", TIMES[t]);
        if ch == 8 {
            r.charge = None;
        }
        r
    })
}

fn a_dispute() -> impl Strategy<Value = DisputeRow> {
    (0..4usize, 0..9usize, 0..4usize).prop_map(|(n, ch, t)| {
        let mut d = dispute(&id("dp", n), &id("ch", ch), 500, "usd", TIMES[t]);
        if ch == 8 {
            d.charge = None;
        }
        d
    })
}

fn a_subscription() -> impl Strategy<Value = SubscriptionRow> {
    (0..5usize, 0..5usize, 0..5usize, 0..4usize).prop_map(|(n, cus, start, inv)| {
        let begins = TIMES.get(start).copied().unwrap_or(0);
        let mut s = subscription(
            &id("sub", n),
            &id("cus", cus),
            "year",
            begins,
            begins + 365 * DAY,
        );
        if cus == 4 {
            s.customer = None;
        }
        if start == TIMES.len() {
            s.current_period_start = None;
        }
        s.latest_invoice = opt(inv, 3).map(|i| id("in", i));
        s
    })
}

fn an_invoice_payment() -> impl Strategy<Value = InvoicePaymentRow> {
    (0..4usize, 0..3usize, 0..9usize, 0..4usize).prop_map(|(n, inv, ch, pi)| {
        let charge = opt(ch, 8).map(|c| id("ch", c));
        let intent = opt(pi, 3).map(|p| id("pi", p));
        invoice_payment(
            &id("inpay", n),
            &id("in", inv),
            charge.as_deref(),
            intent.as_deref(),
        )
    })
}

fn a_world() -> impl Strategy<Value = World> {
    (
        prop::collection::vec(a_customer(), 0..8),
        prop::collection::vec(a_charge(), 0..14),
        prop::collection::vec(a_refund(), 0..6),
        prop::collection::vec(a_dispute(), 0..4),
        prop::collection::vec(a_subscription(), 0..8),
        prop::collection::vec(an_invoice_payment(), 0..6),
    )
        .prop_map(
            |(customers, charges, refunds, disputes, subscriptions, invoice_payments)| World {
                customers,
                charges,
                refunds,
                disputes,
                subscriptions,
                invoice_payments,
            },
        )
}

fn a_ticket() -> impl Strategy<Value = super::Ticket> {
    (0..EMAILS.len() + 1, 0..ORDERS.len() + 1, 0..4usize).prop_map(|(e, o, amount)| {
        let email = EMAILS
            .get(e)
            .map_or_else(|| "ANN@X.IO".to_string(), |e| (*e).to_string());
        let mut t = ticket(&email, ORDERS.get(o).copied().unwrap_or(""));
        t.amount = ["10.00", "49.00", "x"]
            .get(amount)
            .map(|a| (*a).to_string());
        t
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    /// One `Facts` (one index) for several tickets, as a batch: each ticket matches as
    /// the scan over every row matches it.
    #[test]
    fn the_index_finds_what_a_scan_finds(
        w in a_world(),
        tickets in prop::collection::vec(a_ticket(), 1..6),
    ) {
        let facts = w.facts();
        for t in &tickets {
            prop_assert_eq!(match_ticket(t, &facts), scan_match(t, &w), "ticket {:?}", t);
        }
    }
}

/// Duplicated rows (a customer or charge listed twice, with equal keys) come out as a
/// scan gives them, not twice more nor once less.
#[test]
fn duplicated_rows_match_as_the_scan_does() {
    let c = customer("cus_a", "a@x.io", 1);
    let mut other = customer("cus_b", "A@x.io", 1);
    other.created = 0;
    let mut ch = charge("ch_a", "cus_a", 1000, "usd", 5);
    ch.metadata.insert("order_id", "ORD-1");
    let w = World {
        customers: vec![c.clone(), other, c],
        charges: vec![ch.clone(), ch],
        refunds: vec![refund("re_a", "ch_a", 100, "usd", 6)],
        ..World::default()
    };
    for t in [ticket("a@x.io", "ORD-1"), ticket(" A@X.IO ", "ORD-1")] {
        let got = match_ticket(&t, &w.facts());
        assert_eq!(got, scan_match(&t, &w));
    }
}
