//! Leaks: failures the usual dunning never ends (RULES.md, "Recovery"). Three kinds:
//! an open invoice still scheduled for a retry whose subscription is canceled; two or more
//! customers with the same email (case-insensitive) each holding an invoice in dunning;
//! an invoice in dunning whose customer paid another invoice of the same amount after
//! its first failure. "In dunning" is open, with an amount remaining and a failed attempt.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::AccountData;
use crate::model::rows::InvoiceRow;
use crate::model::status::{InvoiceStatus, SubscriptionStatus};
use crate::time::iso_utc;

use super::history::{self, Index};

/// The kind of a leak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LeakKind {
    /// An open invoice still scheduled for a retry whose subscription is canceled.
    RetryOnCanceledSubscription,
    /// Two or more customers with the same email, each with an invoice in dunning.
    SameEmailCustomers,
    /// The customer paid another invoice of the same amount after this one failed.
    PaidAnotherInvoice,
}

impl LeakKind {
    pub const ALL: [LeakKind; 3] = [
        LeakKind::RetryOnCanceledSubscription,
        LeakKind::SameEmailCustomers,
        LeakKind::PaidAnotherInvoice,
    ];

    /// As `recovery-leaks.csv` writes it.
    pub fn as_str(&self) -> &'static str {
        match self {
            LeakKind::RetryOnCanceledSubscription => "retry_on_canceled_subscription",
            LeakKind::SameEmailCustomers => "same_email_customers",
            LeakKind::PaidAnotherInvoice => "paid_another_invoice",
        }
    }
}

/// One row of `recovery-leaks.csv`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leak {
    pub kind: LeakKind,
    pub invoice_id: String,
    pub customer_id: Option<String>,
    /// One sentence: what was found, with the ids to look at.
    pub detail: String,
}

/// Every leak in `data`, by kind, then invoice id.
pub fn leaks(data: &AccountData, ix: &Index<'_>) -> Vec<Leak> {
    let mut out = Vec::new();
    let in_dunning: Vec<(&InvoiceRow, i64)> = data
        .invoices
        .iter()
        .filter(|i| i.status == InvoiceStatus::Open && i.amount_remaining > 0)
        .filter_map(|i| history::of(i, ix).map(|h| (i, h.first_failure.at)))
        .collect();
    for inv in &data.invoices {
        if inv.status != InvoiceStatus::Open || inv.amount_remaining <= 0 {
            continue;
        }
        let (Some(next), Some(sub)) = (
            inv.next_payment_attempt,
            inv.subscription
                .as_deref()
                .and_then(|s| ix.subscriptions.get(s)),
        ) else {
            continue;
        };
        if sub.status == SubscriptionStatus::Canceled {
            out.push(Leak {
                kind: LeakKind::RetryOnCanceledSubscription,
                invoice_id: inv.id.to_string(),
                customer_id: inv.customer.as_deref().map(str::to_owned),
                detail: format!(
                    "subscription {} is canceled; Stripe still retries at {}",
                    sub.id,
                    iso_utc(next)
                ),
            });
        }
    }
    same_email(&in_dunning, ix, &mut out);
    paid_another(data, &in_dunning, &mut out);
    out.sort_by(|a, b| (a.kind, &a.invoice_id).cmp(&(b.kind, &b.invoice_id)));
    out
}

/// The customer's email, lower-cased: the customer's own, else the invoice's copy.
fn email_of(inv: &InvoiceRow, ix: &Index<'_>) -> Option<String> {
    inv.customer
        .as_deref()
        .and_then(|c| ix.customers.get(c))
        .and_then(|c| c.email.as_deref())
        .or(inv.customer_email.as_deref())
        .map(|e| e.trim().to_lowercase())
        .filter(|e| !e.is_empty())
}

fn same_email(in_dunning: &[(&InvoiceRow, i64)], ix: &Index<'_>, out: &mut Vec<Leak>) {
    let mut by_email: BTreeMap<String, Vec<&InvoiceRow>> = BTreeMap::new();
    for (inv, _) in in_dunning {
        if inv.customer.is_some()
            && let Some(e) = email_of(inv, ix)
        {
            by_email.entry(e).or_default().push(inv);
        }
    }
    for invs in by_email.values() {
        let customers: BTreeSet<&str> = invs.iter().filter_map(|i| i.customer.as_deref()).collect();
        if customers.len() < 2 {
            continue;
        }
        for inv in invs {
            let me = inv.customer.as_deref().unwrap_or_default();
            let others: Vec<&str> = customers.iter().copied().filter(|c| *c != me).collect();
            out.push(Leak {
                kind: LeakKind::SameEmailCustomers,
                invoice_id: inv.id.to_string(),
                customer_id: Some(me.to_owned()),
                detail: format!(
                    "{} customers with the same email are in dunning; also {}",
                    customers.len(),
                    others.join(", ")
                ),
            });
        }
    }
}

fn paid_another(data: &AccountData, in_dunning: &[(&InvoiceRow, i64)], out: &mut Vec<Leak>) {
    let mut paid_by_customer: BTreeMap<&str, Vec<(&InvoiceRow, i64)>> = BTreeMap::new();
    for inv in &data.invoices {
        if inv.status != InvoiceStatus::Paid {
            continue;
        }
        if let (Some(c), Some(at)) = (inv.customer.as_deref(), inv.status_transitions.paid_at) {
            paid_by_customer.entry(c).or_default().push((inv, at));
        }
    }
    for (inv, first_failed) in in_dunning {
        let Some(c) = inv.customer.as_deref() else {
            continue;
        };
        let found = paid_by_customer
            .get(c)
            .into_iter()
            .flatten()
            .filter(|(p, at)| {
                p.id != inv.id
                    && p.currency == inv.currency
                    && p.amount_due == inv.amount_due
                    && *at > *first_failed
            })
            .min_by_key(|(p, at)| (*at, p.id.as_str()));
        if let Some((p, at)) = found {
            out.push(Leak {
                kind: LeakKind::PaidAnotherInvoice,
                invoice_id: inv.id.to_string(),
                customer_id: Some(c.to_owned()),
                detail: format!(
                    "the customer paid {} for the same amount at {}, after this invoice failed",
                    p.id,
                    iso_utc(*at)
                ),
            });
        }
    }
}
