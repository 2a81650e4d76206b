//! Where an id lives in the snapshot: the object a typed id (or the start of one) names,
//! the places of the workbench that show it with its context (best first), and the other
//! tables that mention it. Pure: the workbench's jump turns a [`Place`] into a tab, a
//! month and a drill-down.

use crate::domain::refunds::Ticket;
use crate::model::AccountData;
use crate::model::rows::BalanceTxnRow;

/// What kind of object an id names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Payout,
    BalanceTxn,
    Charge,
    PaymentIntent,
    Invoice,
    InvoicePayment,
    Refund,
    Dispute,
    Customer,
    Subscription,
    Ticket,
}

impl Kind {
    /// The kind in words ("balance transaction").
    pub fn label(self) -> &'static str {
        match self {
            Kind::Payout => "payout",
            Kind::BalanceTxn => "balance transaction",
            Kind::Charge => "charge",
            Kind::PaymentIntent => "payment intent",
            Kind::Invoice => "invoice",
            Kind::InvoicePayment => "invoice payment",
            Kind::Refund => "refund",
            Kind::Dispute => "dispute",
            Kind::Customer => "customer",
            Kind::Subscription => "subscription",
            Kind::Ticket => "ticket",
        }
    }
}

/// A place of the workbench that shows an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A payout's row in the Tie-out of the month it arrives (`arrival`, unix seconds).
    Payout { payout: String, arrival: i64 },
    /// A balance transaction among its payout's lines: the payout's month, its category
    /// drill-down, the line selected.
    PayoutLine {
        payout: String,
        arrival: i64,
        category: String,
        txn: String,
    },
    /// A payout's lines by category with `category` selected (a drill-down kept across
    /// a reload).
    PayoutCategory {
        payout: String,
        arrival: i64,
        category: String,
    },
    /// An invoice's row on the Worklist (when it is on the list).
    Invoice { invoice: String },
    /// The first Worklist row of a customer (when one is on the list).
    Customer { customer: String },
    /// A ticket's row on the Refunds tab.
    Ticket { ticket: String },
    /// The Refunds tab's ticket that matched this charge (when one did).
    TicketOfCharge { charge: String },
}

/// An object found by its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The whole id (the text typed may be its start).
    pub id: String,
    pub kind: Kind,
    /// Where the workbench can show it, best first: the jump opens the first one a pane
    /// can show.
    pub places: Vec<Place>,
    /// The tables that hold or mention it, each with how many rows (its own table first).
    pub also_in: Vec<(&'static str, usize)>,
}

impl Located {
    /// "also in: refunds (1), disputes (1)" for the status line: the tables other than
    /// the object's own that mention it; empty when none do.
    pub fn also_in_text(&self) -> String {
        let others: Vec<String> = self
            .also_in
            .iter()
            .skip(1)
            .map(|(t, n)| format!("{t} ({n})"))
            .collect();
        if others.is_empty() {
            String::new()
        } else {
            format!("also in: {}", others.join(", "))
        }
    }
}

/// What a lookup found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    Found(Box<Located>),
    /// Several ids start with the text typed: how many, and the first few.
    Ambiguous {
        count: usize,
        first: Vec<String>,
    },
    NotFound,
}

/// The shortest text looked up as the start of an id (shorter text must be a whole id).
pub const MIN_PREFIX: usize = 4;
/// How many of the ids an ambiguous text starts are named.
const NAMED: usize = 5;

/// Finds the object `text` names: an id of any table of `data` or a ticket id of
/// `tickets`, whole (any table) or, when no id is equal to it, the start of exactly one.
pub fn locate(data: &AccountData, tickets: &[Ticket], text: &str) -> Lookup {
    let text = text.trim();
    if text.is_empty() {
        return Lookup::NotFound;
    }
    let ids = all_ids(data, tickets);
    let exact = ids
        .clone()
        .find(|(id, kind)| *id == text || (*kind == Kind::Ticket && id.eq_ignore_ascii_case(text)));
    let (id, kind) = match exact {
        Some(found) => found,
        None if text.len() >= MIN_PREFIX => {
            let mut hits = ids.filter(|(id, _)| id.starts_with(text));
            let Some(first) = hits.next() else {
                return Lookup::NotFound;
            };
            let rest: Vec<(&str, Kind)> = hits.collect();
            if !rest.is_empty() {
                let mut first_ids: Vec<String> = std::iter::once(first)
                    .chain(rest.iter().copied())
                    .take(NAMED)
                    .map(|(id, _)| id.to_string())
                    .collect();
                first_ids.sort();
                return Lookup::Ambiguous {
                    count: rest.len() + 1,
                    first: first_ids,
                };
            }
            first
        }
        None => return Lookup::NotFound,
    };
    Lookup::Found(Box::new(Located {
        id: id.to_string(),
        kind,
        places: places(data, id, kind),
        also_in: mentions(data, tickets, id, kind),
    }))
}

/// Every id of the snapshot with its kind, table by table.
fn all_ids<'a>(
    data: &'a AccountData,
    tickets: &'a [Ticket],
) -> impl Iterator<Item = (&'a str, Kind)> + Clone + 'a {
    let d = data;
    d.payouts
        .iter()
        .map(|r| (r.id.as_str(), Kind::Payout))
        .chain(
            d.balance_transactions
                .iter()
                .map(|r| (&*r.id, Kind::BalanceTxn)),
        )
        .chain(d.charges.iter().map(|r| (&*r.id, Kind::Charge)))
        .chain(
            d.payment_intents
                .iter()
                .map(|r| (&*r.id, Kind::PaymentIntent)),
        )
        .chain(d.invoices.iter().map(|r| (&*r.id, Kind::Invoice)))
        .chain(
            d.invoice_payments
                .iter()
                .map(|r| (&*r.id, Kind::InvoicePayment)),
        )
        .chain(d.refunds.iter().map(|r| (r.id.as_str(), Kind::Refund)))
        .chain(d.disputes.iter().map(|r| (r.id.as_str(), Kind::Dispute)))
        .chain(d.customers.iter().map(|r| (r.id.as_str(), Kind::Customer)))
        .chain(
            d.subscriptions
                .iter()
                .map(|r| (r.id.as_str(), Kind::Subscription)),
        )
        .chain(
            tickets
                .iter()
                .filter_map(|t| t.ticket_id.as_deref().map(|id| (id, Kind::Ticket))),
        )
}

/// The places that show `id` (of `kind`), best first.
fn places(data: &AccountData, id: &str, kind: Kind) -> Vec<Place> {
    let mut out = Vec::new();
    match kind {
        Kind::Payout => out.extend(payout_place(data, id)),
        Kind::BalanceTxn => {
            // A payout's own transaction is shown by its payout's row; another line
            // among its payout's lines.
            let own = (data.payouts.iter())
                .find(|p| p.balance_transaction.as_deref() == Some(id))
                .and_then(|p| payout_place(data, &p.id));
            match own {
                Some(place) => out.push(place),
                None => {
                    let line = data.balance_transactions.iter().find(|t| &*t.id == id);
                    out.extend(line.and_then(|t| line_place(data, t)));
                }
            }
        }
        Kind::Charge => charge_places(data, id, &mut out),
        Kind::Refund | Kind::Dispute => out.extend(source_lines(data, id)),
        Kind::PaymentIntent => {
            let invoices = data
                .invoice_payments
                .iter()
                .filter(|p| p.payment_intent.as_deref() == Some(id))
                .map(|p| p.invoice.to_string());
            out.extend(invoices.map(|invoice| Place::Invoice { invoice }));
            if let Some(ch) = data
                .payment_intents
                .iter()
                .find(|p| &*p.id == id)
                .and_then(|p| p.latest_charge.as_deref())
            {
                charge_places(data, ch, &mut out);
            }
        }
        Kind::Invoice => invoice_places(data, id, &mut out),
        Kind::InvoicePayment => {
            if let Some(p) = data.invoice_payments.iter().find(|p| &*p.id == id) {
                invoice_places(data, &p.invoice, &mut out);
            }
        }
        Kind::Customer => out.push(Place::Customer {
            customer: id.to_string(),
        }),
        Kind::Subscription => {
            let invoices = (data.invoices.iter())
                .filter(|i| i.subscription.as_deref() == Some(id))
                .map(|i| i.id.to_string());
            out.extend(invoices.map(|invoice| Place::Invoice { invoice }));
            let customer = (data.subscriptions.iter())
                .find(|s| s.id == id)
                .and_then(|s| s.customer.clone());
            out.extend(customer.map(|customer| Place::Customer { customer }));
        }
        Kind::Ticket => out.push(Place::Ticket {
            ticket: id.to_string(),
        }),
    }
    dedup(out)
}

/// Keeps the first of each place.
fn dedup(places: Vec<Place>) -> Vec<Place> {
    let mut out: Vec<Place> = Vec::with_capacity(places.len());
    for p in places {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

fn payout_place(data: &AccountData, id: &str) -> Option<Place> {
    let p = data.payouts.iter().find(|p| p.id == id)?;
    Some(Place::Payout {
        payout: p.id.clone(),
        arrival: p.arrival_date,
    })
}

/// A line among its payout's lines, when it was paid out by a payout of the snapshot.
fn line_place(data: &AccountData, t: &BalanceTxnRow) -> Option<Place> {
    let payout = t.payout.as_deref()?;
    let p = data.payouts.iter().find(|p| p.id == payout)?;
    Some(Place::PayoutLine {
        payout: p.id.clone(),
        arrival: p.arrival_date,
        category: t.reporting_category.to_string(),
        txn: t.id.to_string(),
    })
}

/// The payout lines whose source is `id` (a charge's, a refund's, a dispute's).
fn source_lines<'a>(data: &'a AccountData, id: &'a str) -> impl Iterator<Item = Place> + 'a {
    (data.balance_transactions.iter())
        .filter(move |t| t.source.as_deref() == Some(id))
        .filter_map(|t| line_place(data, t))
}

fn charge_places(data: &AccountData, id: &str, out: &mut Vec<Place>) {
    out.push(Place::TicketOfCharge {
        charge: id.to_string(),
    });
    out.extend(source_lines(data, id));
}

fn invoice_places(data: &AccountData, id: &str, out: &mut Vec<Place>) {
    out.push(Place::Invoice {
        invoice: id.to_string(),
    });
    let charges = (data.invoice_payments.iter())
        .filter(|p| &*p.invoice == id)
        .filter_map(|p| p.charge.as_deref())
        .chain(
            (data.invoices.iter())
                .filter(|i| &*i.id == id)
                .filter_map(|i| i.legacy_charge.as_deref()),
        );
    for ch in charges {
        out.extend(source_lines(data, ch));
    }
}

/// The tables holding or mentioning `id`, each with its row count: its own table first.
fn mentions(
    data: &AccountData,
    tickets: &[Ticket],
    id: &str,
    kind: Kind,
) -> Vec<(&'static str, usize)> {
    let is = |v: Option<&str>| v == Some(id);
    let d = data;
    let counts: [(&'static str, usize); 11] = [
        (
            "payouts",
            count(&d.payouts, |p| {
                p.id == id
                    || is(p.balance_transaction.as_deref())
                    || is(p.original_payout.as_deref())
                    || is(p.reversed_by.as_deref())
            }),
        ),
        (
            "balance_transactions",
            count(&d.balance_transactions, |t| {
                &*t.id == id || is(t.source.as_deref()) || is(t.payout.as_deref())
            }),
        ),
        (
            "charges",
            count(&d.charges, |c| {
                &*c.id == id
                    || is(c.customer.as_deref())
                    || is(c.payment_intent.as_deref())
                    || is(c.balance_transaction.as_deref())
            }),
        ),
        (
            "payment_intents",
            count(&d.payment_intents, |p| {
                &*p.id == id || is(p.customer.as_deref()) || is(p.latest_charge.as_deref())
            }),
        ),
        (
            "invoices",
            count(&d.invoices, |i| {
                &*i.id == id
                    || is(i.customer.as_deref())
                    || is(i.subscription.as_deref())
                    || is(i.legacy_charge.as_deref())
                    || is(i.legacy_payment_intent.as_deref())
            }),
        ),
        (
            "invoice_payments",
            count(&d.invoice_payments, |p| {
                &*p.id == id
                    || &*p.invoice == id
                    || is(p.payment_intent.as_deref())
                    || is(p.charge.as_deref())
            }),
        ),
        (
            "refunds",
            count(&d.refunds, |r| {
                r.id == id || is(r.charge.as_deref()) || is(r.payment_intent.as_deref())
            }),
        ),
        (
            "disputes",
            count(&d.disputes, |r| {
                r.id == id || is(r.charge.as_deref()) || is(r.payment_intent.as_deref())
            }),
        ),
        ("customers", count(&d.customers, |c| c.id == id)),
        (
            "subscriptions",
            count(&d.subscriptions, |s| {
                s.id == id || is(s.customer.as_deref())
            }),
        ),
        (
            "tickets",
            count(tickets, |t| {
                t.ticket_id
                    .as_deref()
                    .is_some_and(|t| t.eq_ignore_ascii_case(id))
            }),
        ),
    ];
    let mut out: Vec<(&'static str, usize)> = counts.into_iter().filter(|(_, n)| *n > 0).collect();
    // The object's own table first (a stable sort keeps the rest in table order).
    out.sort_by_key(|(t, _)| *t != kind_table(kind));
    out
}

fn kind_table(kind: Kind) -> &'static str {
    match kind {
        Kind::Payout => "payouts",
        Kind::BalanceTxn => "balance_transactions",
        Kind::Charge => "charges",
        Kind::PaymentIntent => "payment_intents",
        Kind::Invoice => "invoices",
        Kind::InvoicePayment => "invoice_payments",
        Kind::Refund => "refunds",
        Kind::Dispute => "disputes",
        Kind::Customer => "customers",
        Kind::Subscription => "subscriptions",
        Kind::Ticket => "tickets",
    }
}

fn count<T>(rows: &[T], f: impl Fn(&T) -> bool) -> usize {
    rows.iter().filter(|r| f(r)).count()
}

#[cfg(test)]
#[path = "locate_tests.rs"]
mod tests;
