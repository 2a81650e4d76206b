//! The rows a ticket is matched against ([`Rows`]: the whole account's, or a ticket-scoped
//! fetch's) and the index over them ([`FactsIndex`]) that finds a customer's charges, a
//! charge's refunds and disputes, a customer's subscriptions and an invoice's payments by
//! key, built once per [`Facts`] so a batch of tickets costs one pass over the rows.

use crate::model::dashboard::DashboardLinks;
use crate::model::rows::{
    ChargeRow, CustomerRow, DisputeRow, InvoicePaymentRow, RefundRow, SubscriptionRow,
};
use crate::model::{AccountData, Mode, Origin};
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

/// The rows the matching reads: the whole account's, or a ticket-scoped fetch's.
#[derive(Debug, Clone, Copy)]
pub struct Rows<'a> {
    pub customers: &'a [CustomerRow],
    pub charges: &'a [ChargeRow],
    pub refunds: &'a [RefundRow],
    pub disputes: &'a [DisputeRow],
    pub subscriptions: &'a [SubscriptionRow],
    pub invoice_payments: &'a [InvoicePaymentRow],
}

/// The rows the matching reads, with where they came from. Built from a whole account or
/// from a ticket-scoped fetch. The rows are found by key through an index built on the
/// first ticket matched ([`FactsIndex`]), so a batch decided over one `Facts` costs one
/// pass over the rows plus a few look-ups per ticket: build it once per batch, not per
/// ticket.
#[derive(Debug, Clone)]
pub struct Facts<'a> {
    /// Private: the index is built from them, so they cannot change under it.
    rows: Rows<'a>,
    index: OnceLock<FactsIndex>,
    /// The account's mode and, when read through Connect, the connected account: where
    /// the evidence opens in the Dashboard.
    pub mode: Mode,
    pub connected: Option<&'a str>,
    /// Where the rows came from and when they were read (the trail says it when no
    /// request was made for the ticket alone).
    pub origin: Origin,
    pub fetched_at: i64,
}

impl<'a> Facts<'a> {
    pub fn new(rows: Rows<'a>, mode: Mode, origin: Origin, fetched_at: i64) -> Self {
        Self {
            rows,
            index: OnceLock::new(),
            mode,
            connected: None,
            origin,
            fetched_at,
        }
    }

    pub fn of(data: &'a AccountData) -> Self {
        Self::new(
            Rows {
                customers: &data.customers,
                charges: &data.charges,
                refunds: &data.refunds,
                disputes: &data.disputes,
                subscriptions: &data.subscriptions,
                invoice_payments: &data.invoice_payments,
            },
            data.meta.mode,
            data.meta.origin,
            data.meta.fetched_at,
        )
    }

    /// The same facts of a connected account (`--stripe-account acct_…`).
    pub fn connected(self, account: Option<&'a str>) -> Self {
        Self {
            connected: account,
            ..self
        }
    }

    /// Where this account's ids open in the Dashboard.
    pub fn dashboard(&self) -> DashboardLinks {
        DashboardLinks::new(self.mode, self.connected)
    }

    /// The rows matched over.
    pub fn rows(&self) -> Rows<'a> {
        self.rows
    }

    fn index(&self) -> &FactsIndex {
        self.index.get_or_init(|| FactsIndex::of(&self.rows))
    }

    /// The customers whose email is `email` ignoring case and surrounding spaces (every
    /// customer [`customers_by_email`](super::matching::customers_by_email) could pick), in row order.
    pub(super) fn customers_like(
        &self,
        email: &str,
    ) -> impl Iterator<Item = &'a CustomerRow> + Clone {
        let rows = self.rows.customers;
        at(&self.index().customers_by_email, &email_key(email)).filter_map(move |i| rows.get(i))
    }

    /// The charges of each customer in `ids` (every status), in row order.
    pub(super) fn charges_of<'i>(
        &self,
        ids: impl IntoIterator<Item = &'i str>,
    ) -> Vec<&'a ChargeRow> {
        gather(&self.index().charges_by_customer, ids, self.rows.charges)
    }

    /// The refunds of each charge in `ids`, in row order.
    pub(super) fn refunds_of<'i>(
        &self,
        ids: impl IntoIterator<Item = &'i str>,
    ) -> Vec<&'a RefundRow> {
        gather(&self.index().refunds_by_charge, ids, self.rows.refunds)
    }

    /// The disputes of the charge `id`, in row order.
    pub(super) fn disputes_of(&self, id: &str) -> Vec<&'a DisputeRow> {
        gather(&self.index().disputes_by_charge, [id], self.rows.disputes)
    }

    /// The subscriptions of the customer `id`, in row order.
    pub(super) fn subscriptions_of(&self, id: &str) -> Vec<&'a SubscriptionRow> {
        gather(
            &self.index().subscriptions_by_customer,
            [id],
            self.rows.subscriptions,
        )
    }

    /// The payments of the invoice `id`, in row order.
    pub(super) fn payments_of(&self, id: &str) -> Vec<&'a InvoicePaymentRow> {
        gather(
            &self.index().payments_by_invoice,
            [id],
            self.rows.invoice_payments,
        )
    }
}

/// Where each row of [`Facts`] is, by the key the matching looks it up by: the positions
/// of the rows with that key, ascending, so a look-up yields rows in the order a scan of
/// the rows would (the stable sorts after it then break ties as they always did). A row
/// without the key (a charge without a customer) is in no list, as no scan matched it.
#[derive(Debug, Clone, Default)]
pub struct FactsIndex {
    /// By the email trimmed and lowercased: a byte-for-byte match is also a match ignoring
    /// case, so this holds every customer either test could pick.
    customers_by_email: HashMap<String, Vec<usize>>,
    charges_by_customer: HashMap<String, Vec<usize>>,
    refunds_by_charge: HashMap<String, Vec<usize>>,
    disputes_by_charge: HashMap<String, Vec<usize>>,
    subscriptions_by_customer: HashMap<String, Vec<usize>>,
    payments_by_invoice: HashMap<String, Vec<usize>>,
}

impl FactsIndex {
    /// One pass over each kind of row.
    pub fn of(rows: &Rows<'_>) -> Self {
        fn by<'r, T: 'r>(
            rows: &'r [T],
            key: impl Fn(&'r T) -> Option<String>,
        ) -> HashMap<String, Vec<usize>> {
            let mut map: HashMap<String, Vec<usize>> = HashMap::new();
            for (i, row) in rows.iter().enumerate() {
                if let Some(k) = key(row) {
                    map.entry(k).or_default().push(i);
                }
            }
            map
        }
        Self {
            customers_by_email: by(rows.customers, |c| c.email.as_deref().map(email_key)),
            charges_by_customer: by(rows.charges, |c| c.customer.as_deref().map(str::to_string)),
            refunds_by_charge: by(rows.refunds, |r| r.charge.as_deref().map(str::to_string)),
            disputes_by_charge: by(rows.disputes, |d| d.charge.as_deref().map(str::to_string)),
            subscriptions_by_customer: by(rows.subscriptions, |s| {
                s.customer.as_deref().map(str::to_string)
            }),
            payments_by_invoice: by(rows.invoice_payments, |p| Some(p.invoice.to_string())),
        }
    }
}

/// The key two emails are equal under when case and surrounding spaces are ignored: every
/// customer [`customers_by_email`](super::matching::customers_by_email) can pick for an email has the email's key, so an index
/// by it narrows the customers to look at without changing the answer.
pub fn email_key(email: &str) -> String {
    email.trim().to_lowercase()
}

/// The positions filed under `key`.
fn at<'m>(
    map: &'m HashMap<String, Vec<usize>>,
    key: &str,
) -> impl Iterator<Item = usize> + Clone + use<'m> {
    map.get(key).into_iter().flatten().copied()
}

/// The rows filed under any of `keys` (each key once), in row order.
fn gather<'a, 'i, T>(
    map: &HashMap<String, Vec<usize>>,
    keys: impl IntoIterator<Item = &'i str>,
    rows: &'a [T],
) -> Vec<&'a T> {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut found: Vec<usize> = Vec::new();
    for key in keys {
        if seen.insert(key) {
            found.extend(at(map, key));
        }
    }
    // Each row has one key, so no position is found twice; sorted, they are row order.
    found.sort_unstable();
    found.into_iter().filter_map(|i| rows.get(i)).collect()
}
