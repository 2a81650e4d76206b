//! Matching a ticket to the account's objects, pure over rows: the customers with the
//! ticket's email, their succeeded charges, the one charge the order id names (or why
//! there is none, or several), its refunds and disputes, the customers' other refunds, and
//! the subscription whose current period the charge paid.

use crate::model::rows::{ChargeRow, CustomerRow, DisputeRow, RefundRow, SubscriptionRow};
use crate::model::status::ChargeStatus;
use crate::money::parse_major;

use super::Ticket;
pub use super::facts::{Facts, FactsIndex, Rows, email_key};
pub use super::trail::Candidate;

/// A charge created this long after its subscription's period start still paid that
/// period (invoices are finalised about an hour after the period starts, and retries of a
/// failed first attempt can take a few days).
pub const PERIOD_PAID_SLACK_SECS: i64 = 3 * 86_400;

/// How the ticket's email found its customers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmailMatch {
    /// Byte-for-byte (what `GET /v1/customers?email=` does).
    Exact,
    /// Only ignoring case (what customer search `email:'…'` does).
    CaseInsensitive,
    /// No customer has the email.
    None,
}

/// Where the order id was found on a charge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatchVia {
    /// A metadata value equal to the order id, under this key.
    Metadata { key: String },
    /// The description mentions the order id.
    Description,
}

impl MatchVia {
    pub fn describe(&self) -> String {
        match self {
            MatchVia::Metadata { key } => format!("metadata.{key}"),
            MatchVia::Description => "description".to_string(),
        }
    }
}

/// The charge the order id names.
#[derive(Debug, Clone, PartialEq)]
pub enum OrderMatch {
    /// There were no customers to look at.
    NoCustomer,
    /// None of the customers' succeeded charges names the order id.
    NotFound,
    /// Several charges name it equally well (after the amount tie-break, when the ticket
    /// gave an amount).
    Ambiguous {
        charges: Vec<ChargeRow>,
        via: MatchVia,
    },
    One {
        charge: Box<ChargeRow>,
        via: MatchVia,
        /// Several charges named the order id and the ticket's amount picked this one.
        by_amount: bool,
    },
}

/// How a subscription was tied to the charge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PeriodLink {
    /// The charge was created within [`PERIOD_PAID_SLACK_SECS`] of the period start.
    PeriodStart,
    /// The subscription's latest invoice was paid by this charge.
    LatestInvoice { invoice: String },
}

/// The subscription whose current period the charge paid.
#[derive(Debug, Clone, PartialEq)]
pub struct SubscriptionLink {
    pub subscription: SubscriptionRow,
    pub via: PeriodLink,
}

/// Everything matching found for one ticket.
#[derive(Debug, Clone, PartialEq)]
pub struct Matched {
    pub email_match: EmailMatch,
    /// Every (non-deleted) customer with the ticket's email.
    pub customers: Vec<CustomerRow>,
    /// The customers' succeeded charges, oldest first.
    pub customer_charges: Vec<ChargeRow>,
    pub order: OrderMatch,
    /// Refunds of the matched charge, oldest first.
    pub refunds: Vec<RefundRow>,
    /// Disputes of the matched charge.
    pub disputes: Vec<DisputeRow>,
    /// Refunds of any of the customers' charges, oldest first.
    pub customer_refunds: Vec<RefundRow>,
    pub subscription: Option<SubscriptionLink>,
    /// Each succeeded charge of the customers and whether (and how) it named the order.
    pub candidates: Vec<Candidate>,
}

impl Matched {
    /// The matched charge, when exactly one matched.
    pub fn charge(&self) -> Option<&ChargeRow> {
        match &self.order {
            OrderMatch::One { charge, .. } => Some(charge),
            _ => None,
        }
    }
}

/// The customers with an email: exact matches if any, else those equal ignoring case.
/// Deleted customers are skipped. Sorted by creation, then id.
pub fn customers_by_email<'a>(
    email: &str,
    customers: impl IntoIterator<Item = &'a CustomerRow> + Clone,
) -> (EmailMatch, Vec<&'a CustomerRow>) {
    let email = email.trim();
    if email.is_empty() {
        return (EmailMatch::None, Vec::new());
    }
    let live = |c: &&CustomerRow| !c.deleted;
    let mut exact: Vec<&CustomerRow> = customers
        .clone()
        .into_iter()
        .filter(live)
        .filter(|c| c.email.as_deref() == Some(email))
        .collect();
    let how = if exact.is_empty() {
        let lower = email.to_lowercase();
        exact = customers
            .into_iter()
            .filter(live)
            .filter(|c| {
                c.email
                    .as_deref()
                    .is_some_and(|e| e.trim().to_lowercase() == lower)
            })
            .collect();
        if exact.is_empty() {
            EmailMatch::None
        } else {
            EmailMatch::CaseInsensitive
        }
    } else {
        EmailMatch::Exact
    };
    exact.sort_by(|a, b| a.created.cmp(&b.created).then_with(|| a.id.cmp(&b.id)));
    exact.dedup_by(|a, b| a.id == b.id);
    (how, exact)
}

/// Whether `text` mentions `needle` as a whole token (not inside a longer id), ignoring
/// case: `ORD-1042` is in "Order ORD-1042 (2 seats)" but not in "ORD-10421".
pub fn mentions(text: &str, needle: &str) -> bool {
    let hay = text.to_lowercase();
    let needle = needle.trim().to_lowercase();
    if needle.is_empty() {
        return false;
    }
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(pos) = hay[from..].find(&needle) {
        let start = from + pos;
        let end = start + needle.len();
        let before_ok = hay[..start].chars().next_back().is_none_or(|c| !is_word(c));
        let after_ok = hay[end..].chars().next().is_none_or(|c| !is_word(c));
        // A needle that itself ends (or starts) in punctuation still needs its edge checked
        // only against word characters, which the two tests above do.
        if before_ok && after_ok {
            return true;
        }
        from = start + needle.chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// Which of `charges` (succeeded charges of the ticket's customers) the order id names:
/// first by a metadata value equal to it (any key, ignoring case and surrounding spaces),
/// and only when no metadata matches, by the description mentioning it. When several
/// match, the ticket's amount (if it gives one) breaks the tie; otherwise the match is
/// ambiguous.
pub fn match_order<'a>(
    ticket: &Ticket,
    charges: impl IntoIterator<Item = &'a ChargeRow>,
) -> OrderMatch {
    match_order_traced(ticket, charges, &mut Vec::new())
}

/// [`match_order`], saying in `why` for each charge whether it named the order and how
/// (what `--explain` shows): the verdicts are the very tests the match is made of.
pub fn match_order_traced<'a>(
    ticket: &Ticket,
    charges: impl IntoIterator<Item = &'a ChargeRow>,
    why: &mut Vec<Candidate>,
) -> OrderMatch {
    let order = ticket.order_id.trim();
    let charges: Vec<&ChargeRow> = charges.into_iter().collect();
    if order.is_empty() {
        return OrderMatch::NotFound;
    }
    let wanted = order.to_lowercase();
    // Per charge: the metadata key whose value is the order id, and whether the
    // description mentions it.
    let tested: Vec<(&ChargeRow, Option<String>, bool)> = charges
        .iter()
        .map(|c| {
            let key = c
                .metadata
                .iter()
                .find(|(_, v)| v.trim().to_lowercase() == wanted)
                .map(|(k, _)| k.to_owned());
            let desc = c.description.as_deref().is_some_and(|d| mentions(d, order));
            (*c, key, desc)
        })
        .collect();
    let any_meta = tested.iter().any(|(_, k, _)| k.is_some());
    let mut found: Vec<&ChargeRow> = Vec::new();
    let mut via = MatchVia::Description;
    for (c, key, desc) in &tested {
        let (hit, text) = match (key, desc) {
            (Some(k), _) => {
                if found.is_empty() {
                    via = MatchVia::Metadata { key: k.clone() };
                }
                (true, format!("metadata.{k} is the order id"))
            }
            (None, true) if !any_meta => (true, "its description mentions the order id".into()),
            (None, true) => (
                false,
                "its description mentions the order id, but another charge's metadata names it (metadata wins)".into(),
            ),
            (None, false) => (false, "neither its metadata nor its description names the order id".into()),
        };
        if hit {
            found.push(c);
        }
        why.push(Candidate::of(c, hit, text));
    }
    match found.len() {
        0 => OrderMatch::NotFound,
        1 => OrderMatch::One {
            charge: Box::new(found[0].clone()),
            via,
            by_amount: false,
        },
        _ => {
            if let Some(amount) = ticket.amount.as_deref().filter(|a| !a.trim().is_empty()) {
                let same: Vec<&ChargeRow> = found
                    .iter()
                    .copied()
                    .filter(|c| parse_major(amount, c.currency) == Ok(c.amount))
                    .collect();
                for cand in why.iter_mut().filter(|w| w.matched) {
                    let equal = same.iter().any(|c| c.id == cand.charge);
                    cand.why.push_str(if equal {
                        "; its amount is the ticket's"
                    } else {
                        "; its amount is not the ticket's"
                    });
                    cand.matched = equal || same.len() != 1;
                }
                if same.len() == 1 {
                    return OrderMatch::One {
                        charge: Box::new(same[0].clone()),
                        via,
                        by_amount: true,
                    };
                }
            }
            OrderMatch::Ambiguous {
                charges: found.into_iter().cloned().collect(),
                via,
            }
        }
    }
}

/// The subscription of the charge's customer whose current period the charge paid: one
/// whose current period started at most [`PERIOD_PAID_SLACK_SECS`] before the charge;
/// else one whose latest invoice this charge paid (through an invoice payment: a late or
/// retried payment). Among several, the one whose period started last (the first in row
/// order when two started together). (The period-start test comes first so the live fetch
/// needs invoice payments only when it fails.)
pub fn link_subscription(charge: &ChargeRow, facts: &Facts<'_>) -> Option<SubscriptionLink> {
    let customer = charge.customer.as_deref()?;
    let mut best: Option<(u8, i64, SubscriptionLink)> = None;
    for sub in facts.subscriptions_of(customer) {
        let start = sub.current_period_start.unwrap_or(i64::MIN);
        let paid_invoice = sub.latest_invoice.as_deref().filter(|inv| {
            facts.payments_of(inv).iter().any(|p| {
                p.charge.as_deref() == Some(charge.id.as_str())
                    || (p.payment_intent.is_some()
                        && p.payment_intent.as_deref() == charge.payment_intent.as_deref())
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

/// Oldest first, then by id; stable, so rows equal in both keep their row order.
fn by_created<T>(rows: &mut [T], key: impl Fn(&T) -> (i64, &str)) {
    rows.sort_by(|a, b| key(a).cmp(&key(b)));
}

/// Matches a ticket against the account's rows, through the facts' index: a few look-ups
/// by key (the email, the customers, their charges, the matched charge, its customer's
/// subscriptions), never a scan of every row.
pub fn match_ticket(ticket: &Ticket, facts: &Facts<'_>) -> Matched {
    let (email_match, customers) =
        customers_by_email(&ticket.email, facts.customers_like(&ticket.email));
    // Every charge of the customers (also failed ones), for finding their refunds.
    let of_customers = facts.charges_of(customers.iter().map(|c| c.id.as_str()));
    let mut customer_charges: Vec<ChargeRow> = of_customers
        .iter()
        .filter(|c| c.status == ChargeStatus::Succeeded)
        .map(|c| (*c).clone())
        .collect();
    by_created(&mut customer_charges, |c| (c.created, c.id.as_str()));
    let mut customer_refunds: Vec<RefundRow> = facts
        .refunds_of(of_customers.iter().map(|c| c.id.as_str()))
        .into_iter()
        .cloned()
        .collect();
    by_created(&mut customer_refunds, |r| (r.created, r.id.as_str()));

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
            let mut disputes: Vec<DisputeRow> = facts
                .disputes_of(charge.id.as_str())
                .into_iter()
                .cloned()
                .collect();
            by_created(&mut disputes, |d| (d.created, d.id.as_str()));
            let sub = link_subscription(charge, facts);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::refunds::testdata::*;

    #[test]
    fn email_exact_first_then_ignoring_case() {
        let custs = [
            customer("cus_a", "Ann@Example.com", 10),
            customer("cus_b", "ann@example.com", 20),
        ];
        let (how, found) = customers_by_email("ann@example.com", custs.iter());
        assert_eq!(how, EmailMatch::Exact);
        assert_eq!(
            found.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
            ["cus_b"]
        );
        let (how, found) = customers_by_email(" ANN@example.COM ", custs.iter());
        assert_eq!(how, EmailMatch::CaseInsensitive);
        assert_eq!(
            found.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
            ["cus_a", "cus_b"]
        );
        let (how, found) = customers_by_email("bob@example.com", custs.iter());
        assert_eq!(how, EmailMatch::None);
        assert!(found.is_empty());
    }

    #[test]
    fn deleted_customers_are_not_matched() {
        let mut gone = customer("cus_a", "a@x.io", 1);
        gone.deleted = true;
        let all = [gone];
        let (how, found) = customers_by_email("a@x.io", all.iter());
        assert_eq!(how, EmailMatch::None);
        assert!(found.is_empty());
    }

    #[test]
    fn mentions_needs_token_edges() {
        assert!(mentions("Order ORD-1042 (2 seats)", "ord-1042"));
        assert!(mentions("ORD-1042", "ORD-1042"));
        assert!(mentions("order #ORD-1042.", "ORD-1042"));
        assert!(!mentions("Order ORD-10421", "ORD-1042"));
        assert!(!mentions("XORD-1042", "ORD-1042"));
        assert!(mentions("XORD-1042 and ORD-1042", "ORD-1042"));
        assert!(!mentions("anything", ""));
    }

    #[test]
    fn metadata_beats_description_and_ambiguity_is_reported() {
        let mut a = charge("ch_a", "cus_a", 1000, "usd", 100);
        a.description = Some("Order ORD-7".into());
        let mut b = charge("ch_b", "cus_a", 2000, "usd", 200);
        b.metadata.insert("order", "ord-7");
        let t = ticket("a@x.io", "ORD-7");
        match match_order(&t, [&a, &b]) {
            OrderMatch::One {
                charge,
                via,
                by_amount,
            } => {
                assert_eq!(charge.id, "ch_b");
                assert_eq!(
                    via,
                    MatchVia::Metadata {
                        key: "order".into()
                    }
                );
                assert!(!by_amount);
            }
            other => panic!("{other:?}"),
        }
        let mut c = b.clone();
        c.id = "ch_c".into();
        c.amount = 3000;
        match match_order(&t, [&a, &b, &c]) {
            OrderMatch::Ambiguous { charges, .. } => {
                assert_eq!(charges.len(), 2);
            }
            other => panic!("{other:?}"),
        }
        // The ticket's amount breaks the tie, and only then.
        let mut t2 = t.clone();
        t2.amount = Some("30.00".into());
        match match_order(&t2, [&a, &b, &c]) {
            OrderMatch::One {
                charge, by_amount, ..
            } => {
                assert_eq!(charge.id, "ch_c");
                assert!(by_amount);
            }
            other => panic!("{other:?}"),
        }
        t2.amount = Some("99.00".into());
        assert!(matches!(
            match_order(&t2, [&a, &b, &c]),
            OrderMatch::Ambiguous { .. }
        ));
        assert_eq!(
            match_order(&ticket("a@x.io", "ORD-8"), [&a, &b]),
            OrderMatch::NotFound
        );
    }

    #[test]
    fn the_subscription_is_the_one_whose_period_the_charge_paid() {
        let ch = charge("ch_a", "cus_a", 12000, "usd", 1_000_000);
        let mut yearly = subscription(
            "sub_y",
            "cus_a",
            "year",
            1_000_000 - 60,
            1_000_000 + 365 * 86_400,
        );
        let other = subscription(
            "sub_o",
            "cus_b",
            "year",
            1_000_000 - 60,
            1_000_000 + 365 * 86_400,
        );
        let world = |subscriptions: Vec<SubscriptionRow>, invoice_payments| World {
            subscriptions,
            invoice_payments,
            ..World::default()
        };
        let w = world(vec![other.clone(), yearly.clone()], vec![]);
        let link = link_subscription(&ch, &w.facts()).expect("linked");
        assert_eq!(link.subscription.id, "sub_y");
        assert_eq!(link.via, PeriodLink::PeriodStart);
        // Too long after the period start: not this period's payment...
        yearly.current_period_start = Some(1_000_000 - PERIOD_PAID_SLACK_SECS - 1);
        let w = world(vec![yearly.clone()], vec![]);
        assert!(link_subscription(&ch, &w.facts()).is_none());
        // ...unless the latest invoice was paid by the charge.
        yearly.latest_invoice = Some("in_1".into());
        let pay = invoice_payment("inpay_1", "in_1", Some("ch_a"), None);
        let w = world(vec![yearly], vec![pay]);
        let link = link_subscription(&ch, &w.facts()).expect("linked");
        assert_eq!(
            link.via,
            PeriodLink::LatestInvoice {
                invoice: "in_1".into()
            }
        );
    }
}
