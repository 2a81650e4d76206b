//! The live, ticket-scoped read for `suggest`: just the objects a refund ticket needs,
//! fetched from Stripe with the read-only client, instead of syncing the whole account.
//!
//! Per ticket, in waves (each wave's requests run concurrently):
//! 1. `GET /v1/customers?email=E` (exact, case-sensitive); only if that finds no customer,
//!    `GET /v1/customers/search?query=email:'E'` (case-insensitive);
//! 2. per customer: `GET /v1/charges?customer=` and `GET /v1/subscriptions?customer=&status=all`;
//! 3. once the order id picked one charge: `GET /v1/disputes?charge=` and
//!    `GET /v1/refunds?charge=` for it, and `GET /v1/refunds?charge=` for every other
//!    charge of the customers with money refunded (the refund-pattern rule);
//! 4. only when no subscription's current period started just before the charge:
//!    `GET /v1/invoice_payments?invoice=` for the latest invoice of each of the charge
//!    customer's subscriptions (was the charge the payment of that period's invoice?).
//!
//! Request count per ticket (list calls; a list of more than 100 objects takes one more
//! request per page): 1, plus 1 search when the email matches no customer exactly, plus
//! 2 per customer, 2 for the matched charge, 1 per other refunded charge, and 1 per
//! subscription in wave 4. A typical ticket (one customer, no other refunds) takes 5; a
//! ticket with no customer 2. A batch shares what it already fetched: a
//! customer, charge or invoice seen by an earlier ticket is not fetched again.
//!
//! What is fetched is what `domain::refunds` reads, so the same ticket gives the same
//! suggestion here as on a full snapshot of the account.
//!
//! Each request a ticket made (or reused from an earlier ticket) is recorded as a
//! [`StripeLookup`]: the endpoint and query, the count and ids returned, the Request-Id
//! of each page, or the error. `suggest --explain` hands them to the pure trail.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use futures::future::{join, join_all};
use serde::de::DeserializeOwned;

pub use super::stripe_reads::{StripeReads, describe};
use crate::domain::refunds::Ticket;
use crate::domain::refunds::matching::{
    EmailMatch, OrderMatch, PERIOD_PAID_SLACK_SECS, customers_by_email, email_key, match_order,
};
use crate::domain::refunds::trail::StripeLookup;
use crate::model::rows::{
    ChargeRow, CustomerRow, DisputeRow, InvoicePaymentRow, RefundRow, SubscriptionRow,
};
use crate::model::{AccountData, SnapshotMeta};
use crate::stripe::Listed;
use crate::stripe::models::{
    self, Charge, ChargeStatus, Customer, Dispute, HasId, InvoicePayment, Refund, Subscription,
};

fn q(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
        .collect()
}

/// A Stripe search string literal: quotes and backslashes escaped.
pub fn search_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    for c in text.chars() {
        if c == '\'' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('\'');
    out
}

/// What a batch has fetched so far, keyed so no object is asked for twice, and indexed so
/// a ticket looks up its customers, their charges and subscriptions instead of scanning
/// everything the batch fetched (which grows with the batch: a scan per ticket made a
/// large batch quadratic). The indexes may hold an id whose row has changed key since
/// (a customer fetched again with another email): readers check the row itself.
#[derive(Debug, Default)]
struct Fetched {
    exact_emails: HashSet<String>,
    searched_emails: HashSet<String>,
    customers: BTreeMap<String, CustomerRow>,
    /// Customer ids by [`email_key`], sorted as `customers` is.
    customers_by_email: HashMap<String, BTreeSet<String>>,
    /// Charge ids by customer id, sorted as `charges` is.
    charges_by_customer: HashMap<String, BTreeSet<String>>,
    /// Subscription ids by customer id, sorted as `subscriptions` is.
    subscriptions_by_customer: HashMap<String, BTreeSet<String>>,
    charges_of: HashSet<String>,
    subscriptions_of: HashSet<String>,
    charges: BTreeMap<String, ChargeRow>,
    subscriptions: BTreeMap<String, SubscriptionRow>,
    refunds_of: HashSet<String>,
    disputes_of: HashSet<String>,
    refunds: BTreeMap<String, RefundRow>,
    disputes: BTreeMap<String, DisputeRow>,
    payments_of: HashSet<String>,
    invoice_payments: BTreeMap<String, InvoicePaymentRow>,
}

impl Fetched {
    /// The fetched customers whose email has `email`'s [`email_key`], in id order: every
    /// one [`customers_by_email`] could pick.
    fn customers_like(&self, email: &str) -> impl Iterator<Item = &CustomerRow> + Clone {
        self.customers_by_email
            .get(&email_key(email))
            .into_iter()
            .flatten()
            .filter_map(|id| self.customers.get(id))
    }

    /// The fetched charges of the customers `ids` (every status), in id order.
    fn charges_of(&self, ids: &[String]) -> Vec<&ChargeRow> {
        let found: BTreeSet<&String> = ids
            .iter()
            .filter_map(|id| self.charges_by_customer.get(id))
            .flatten()
            .collect();
        found
            .into_iter()
            .filter_map(|id| self.charges.get(id))
            .filter(|c| {
                c.customer
                    .as_deref()
                    .is_some_and(|id| ids.iter().any(|i| i == id))
            })
            .collect()
    }

    /// The fetched subscriptions of the customer `id`, in id order.
    fn subscriptions_of(&self, id: &str) -> Vec<&SubscriptionRow> {
        self.subscriptions_by_customer
            .get(id)
            .into_iter()
            .flatten()
            .filter_map(|s| self.subscriptions.get(s))
            .filter(|s| s.customer.as_deref() == Some(id))
            .collect()
    }
}

/// Files `id` under `key` (when it has one).
fn file_under(index: &mut HashMap<String, BTreeSet<String>>, key: Option<&str>, id: &str) {
    if let Some(key) = key {
        index
            .entry(key.to_string())
            .or_default()
            .insert(id.to_string());
    }
}

/// Fetches what tickets need, sharing the reads across a batch.
pub struct TicketFetcher<R> {
    reads: R,
    got: Fetched,
    /// Every request made so far, by [`describe`], so a later ticket can name the ones
    /// it reuses.
    done: BTreeMap<String, StripeLookup>,
    /// The requests of the ticket being fetched, in order.
    made: Vec<StripeLookup>,
}

impl<R: StripeReads> TicketFetcher<R> {
    pub fn new(reads: R) -> Self {
        Self {
            reads,
            got: Fetched::default(),
            done: BTreeMap::new(),
            made: Vec::new(),
        }
    }

    /// The requests the last fetched ticket made or reused (taken: the next ticket
    /// starts empty).
    pub fn take_lookups(&mut self) -> Vec<StripeLookup> {
        std::mem::take(&mut self.made)
    }

    /// Records the answers of requests just made (`queries[i]` to `path` gave
    /// `results[i]`) and hands back their items.
    fn record<T: HasId>(
        &mut self,
        path: &str,
        queries: &[Vec<(String, String)>],
        results: Vec<Result<Listed<T>, R::Error>>,
    ) -> Vec<Result<Vec<T>, R::Error>> {
        queries
            .iter()
            .zip(results)
            .map(|(query, result)| {
                let request = describe(path, query);
                let lookup = match &result {
                    Ok(listed) => StripeLookup {
                        request: request.clone(),
                        returned: listed.items.len(),
                        ids: listed.items.iter().map(|t| t.id().to_string()).collect(),
                        request_ids: listed.request_ids.clone(),
                        reused: false,
                        error: None,
                    },
                    Err(e) => StripeLookup {
                        request: request.clone(),
                        returned: 0,
                        ids: Vec::new(),
                        request_ids: Vec::new(),
                        reused: false,
                        error: Some(e.to_string()),
                    },
                };
                if result.is_ok() {
                    self.done.insert(request, lookup.clone());
                }
                self.made.push(lookup);
                result.map(|l| l.items)
            })
            .collect()
    }

    /// Names a request an earlier ticket made, whose answer this one reuses.
    fn reuse(&mut self, path: &str, query: &[(String, String)]) {
        if let Some(earlier) = self.done.get(&describe(path, query)) {
            self.made.push(StripeLookup {
                reused: true,
                ..earlier.clone()
            });
        }
    }

    /// One request, recorded.
    async fn one<T: DeserializeOwned + HasId + Send + 'static>(
        &mut self,
        search: bool,
        path: &str,
        query: Vec<(String, String)>,
    ) -> Result<Vec<T>, R::Error> {
        let result = if search {
            self.reads.search_all(path, &query).await
        } else {
            self.reads.list_all(path, &query).await
        };
        let mut out = self.record(path, &[query], vec![result]);
        out.pop().unwrap_or_else(|| Ok(Vec::new()))
    }

    /// Fetches what `ticket` needs that earlier tickets did not; returns how many list
    /// calls it made. Four waves, each only when the one before found something: the
    /// customers of the ticket's email, their charges and subscriptions, the matched
    /// charge's refunds and disputes, and the latest invoices' payments.
    pub async fn fetch(&mut self, ticket: &Ticket) -> Result<u32, R::Error> {
        let email = ticket.email.trim().to_string();
        if email.is_empty() {
            return Ok(0);
        }
        let mut calls = self.fetch_customers(&email).await?;
        let (_, customers) = customers_by_email(&email, self.got.customers_like(&email));
        let ids: Vec<String> = customers.iter().map(|c| c.id.clone()).collect();
        if ids.is_empty() {
            return Ok(calls);
        }
        calls += self.fetch_charges_and_subscriptions(&ids).await?;
        let (wave, matched) = self.fetch_refunds_and_disputes(ticket, &ids).await?;
        calls += wave;
        if let Some(matched) = matched {
            calls += self.fetch_period_payments(&matched).await?;
        }
        Ok(calls)
    }

    /// Wave 1: customers by exact email, then by case-insensitive search.
    async fn fetch_customers(&mut self, email: &str) -> Result<u32, R::Error> {
        let mut calls = 0;
        let exact = q(&[("email", email)]);
        if self.got.exact_emails.insert(email.to_string()) {
            let found: Vec<Customer> = self.one(false, "/v1/customers", exact).await?;
            calls += 1;
            self.add_customers(found);
        } else {
            self.reuse("/v1/customers", &exact);
        }
        let (how, _) = customers_by_email(email, self.got.customers_like(email));
        if how != EmailMatch::Exact {
            let search = q(&[("query", &format!("email:{}", search_literal(email)))]);
            if self.got.searched_emails.insert(email.to_lowercase()) {
                let found: Vec<Customer> = self.one(true, "/v1/customers/search", search).await?;
                calls += 1;
                self.add_customers(found);
            } else {
                self.reuse("/v1/customers/search", &search);
            }
        }
        Ok(calls)
    }

    /// Wave 2: charges and subscriptions of each customer not seen yet.
    async fn fetch_charges_and_subscriptions(&mut self, ids: &[String]) -> Result<u32, R::Error> {
        let mut calls = 0;
        for id in ids {
            if self.got.charges_of.contains(id) {
                self.reuse("/v1/charges", &q(&[("customer", id.as_str())]));
            }
            if self.got.subscriptions_of.contains(id) {
                let query = q(&[("customer", id.as_str()), ("status", "all")]);
                self.reuse("/v1/subscriptions", &query);
            }
        }
        let need_charges: Vec<&String> = ids
            .iter()
            .filter(|id| !self.got.charges_of.contains(*id))
            .collect();
        let need_subs: Vec<&String> = ids
            .iter()
            .filter(|id| !self.got.subscriptions_of.contains(*id))
            .collect();
        let charge_q: Vec<_> = need_charges
            .iter()
            .map(|id| q(&[("customer", id.as_str())]))
            .collect();
        let sub_q: Vec<_> = need_subs
            .iter()
            .map(|id| q(&[("customer", id.as_str()), ("status", "all")]))
            .collect();
        let charge_calls = charge_q
            .iter()
            .map(|qq| self.reads.list_all::<Charge>("/v1/charges", qq));
        let sub_calls = sub_q
            .iter()
            .map(|qq| self.reads.list_all::<Subscription>("/v1/subscriptions", qq));
        let (charges, subs) = join(join_all(charge_calls), join_all(sub_calls)).await;
        calls += (need_charges.len() + need_subs.len()) as u32;
        let need_charges: Vec<String> = need_charges.into_iter().cloned().collect();
        let need_subs: Vec<String> = need_subs.into_iter().cloned().collect();
        let charges = self.record("/v1/charges", &charge_q, charges);
        let subs = self.record("/v1/subscriptions", &sub_q, subs);
        let got = &mut self.got;
        let by_customer = &mut got.charges_by_customer;
        absorb(
            &need_charges,
            charges,
            &mut got.charges_of,
            &mut got.charges,
            |c: &Charge| {
                let row = ChargeRow::from(c);
                file_under(by_customer, row.customer.as_deref(), &c.id);
                (c.id.clone(), row)
            },
        )?;
        let by_customer = &mut got.subscriptions_by_customer;
        absorb(
            &need_subs,
            subs,
            &mut got.subscriptions_of,
            &mut got.subscriptions,
            |s: &Subscription| {
                let row = SubscriptionRow::from(s);
                file_under(by_customer, row.customer.as_deref(), &s.id);
                (s.id.clone(), row)
            },
        )?;

        Ok(calls)
    }

    /// Wave 3: the matched charge's disputes and refunds, and refunds of the customers'
    /// other refunded charges. Returns the matched charge, when the ticket's order names
    /// exactly one.
    async fn fetch_refunds_and_disputes(
        &mut self,
        ticket: &Ticket,
        ids: &[String],
    ) -> Result<(u32, Option<ChargeRow>), R::Error> {
        let mut calls = 0;
        let of_customers: Vec<&ChargeRow> = self.got.charges_of(ids);
        let succeeded: Vec<&ChargeRow> = of_customers
            .iter()
            .copied()
            .filter(|c| c.status == ChargeStatus::Succeeded)
            .collect();
        let matched = match match_order(ticket, succeeded) {
            OrderMatch::One { charge, .. } => charge,
            _ => return Ok((calls, None)),
        };
        let mut refunded: Vec<String> = of_customers
            .iter()
            .filter(|c| c.id == matched.id || c.amount_refunded > 0 || c.refunded)
            .map(|c| c.id.to_string())
            .collect();
        refunded.sort();
        let matched = *matched;
        let (refund_for, refunds_read): (Vec<String>, Vec<String>) = refunded
            .into_iter()
            .partition(|id| !self.got.refunds_of.contains(id));
        for id in &refunds_read {
            self.reuse("/v1/refunds", &q(&[("charge", id.as_str())]));
        }
        if self.got.disputes_of.contains(matched.id.as_str()) {
            self.reuse("/v1/disputes", &q(&[("charge", matched.id.as_str())]));
        }
        let dispute_for: Vec<String> = Some(matched.id.to_string())
            .filter(|id| !self.got.disputes_of.contains(id))
            .into_iter()
            .collect();
        let refund_q: Vec<_> = refund_for
            .iter()
            .map(|id| q(&[("charge", id.as_str())]))
            .collect();
        let dispute_q: Vec<_> = dispute_for
            .iter()
            .map(|id| q(&[("charge", id.as_str())]))
            .collect();
        let refund_calls = refund_q
            .iter()
            .map(|qq| self.reads.list_all::<Refund>("/v1/refunds", qq));
        let dispute_calls = dispute_q
            .iter()
            .map(|qq| self.reads.list_all::<Dispute>("/v1/disputes", qq));
        let (refunds, disputes) = join(join_all(refund_calls), join_all(dispute_calls)).await;
        calls += (refund_for.len() + dispute_for.len()) as u32;
        let refunds = self.record("/v1/refunds", &refund_q, refunds);
        let disputes = self.record("/v1/disputes", &dispute_q, disputes);
        let got = &mut self.got;
        absorb(
            &refund_for,
            refunds,
            &mut got.refunds_of,
            &mut got.refunds,
            |r: &Refund| (r.id.clone(), RefundRow::from(r)),
        )?;
        absorb(
            &dispute_for,
            disputes,
            &mut got.disputes_of,
            &mut got.disputes,
            |d: &Dispute| (d.id.clone(), DisputeRow::from(d)),
        )?;

        Ok((calls, Some(matched)))
    }

    /// Wave 4: only when no subscription period started just before the charge, the
    /// latest invoices' payments (a late or retried payment of the period).
    async fn fetch_period_payments(&mut self, matched: &ChargeRow) -> Result<u32, R::Error> {
        let mut calls = 0;
        let Some(customer) = matched.customer.clone() else {
            return Ok(calls);
        };
        let subs: Vec<&SubscriptionRow> = self.got.subscriptions_of(&customer);
        let by_start = subs.iter().any(|s| {
            s.current_period_start.is_some_and(|start| {
                matched.created >= start
                    && matched.created <= start.saturating_add(PERIOD_PAID_SLACK_SECS)
            })
        });
        if by_start {
            return Ok(calls);
        }
        let mut latest: Vec<String> = subs
            .iter()
            .filter_map(|s| s.latest_invoice.clone())
            .collect();
        latest.sort();
        latest.dedup();
        let (invoices, read): (Vec<String>, Vec<String>) = latest
            .into_iter()
            .partition(|i| !self.got.payments_of.contains(i));
        for inv in &read {
            self.reuse("/v1/invoice_payments", &q(&[("invoice", inv.as_str())]));
        }
        let payment_q: Vec<_> = invoices
            .iter()
            .map(|inv| q(&[("invoice", inv.as_str())]))
            .collect();
        let payment_calls = payment_q.iter().map(|qq| {
            self.reads
                .list_all::<InvoicePayment>("/v1/invoice_payments", qq)
        });
        let payments = join_all(payment_calls).await;
        calls += invoices.len() as u32;
        let payments = self.record("/v1/invoice_payments", &payment_q, payments);
        let got = &mut self.got;
        absorb(
            &invoices,
            payments,
            &mut got.payments_of,
            &mut got.invoice_payments,
            |p: &InvoicePayment| (p.id.clone(), InvoicePaymentRow::from(p)),
        )?;
        Ok(calls)
    }

    fn add_customers(&mut self, found: Vec<models::Customer>) {
        for c in &found {
            let row = CustomerRow::from(c);
            let key = row.email.as_deref().map(email_key);
            file_under(&mut self.got.customers_by_email, key.as_deref(), &c.id);
            self.got.customers.insert(c.id.clone(), row);
        }
    }

    /// Everything fetched, as an account the domain can read.
    pub fn into_account(self, meta: SnapshotMeta) -> AccountData {
        let got = self.got;
        let mut data = AccountData::empty(meta);
        data.customers = got.customers.into_values().collect();
        data.charges = got.charges.into_values().collect();
        data.subscriptions = got.subscriptions.into_values().collect();
        data.refunds = got.refunds.into_values().collect();
        data.disputes = got.disputes.into_values().collect();
        data.invoice_payments = got.invoice_payments.into_values().collect();
        data
    }
}

/// How one ticket's read went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TicketRead {
    /// The list calls it made (0 when it failed).
    pub calls: u32,
    /// Why its objects could not be read (the error, with its Request-Id), when they could
    /// not: the ticket is then for a person, whatever the rest of the account says.
    pub unread: Option<String>,
    /// The requests it made or reused from an earlier ticket, in order (the failed one
    /// last, when one failed).
    pub lookups: Vec<StripeLookup>,
}

/// Fetches every ticket's objects, one ticket after another (each ticket's own requests
/// run concurrently), and returns the account and how each ticket's read went. A ticket
/// whose reads fail for good ([`StripeReads::per_ticket`]) is marked and the batch goes
/// on; a failure every ticket would meet (the key) is the error.
pub async fn fetch_tickets<R: StripeReads>(
    reads: R,
    tickets: &[Ticket],
    meta: SnapshotMeta,
) -> Result<(AccountData, Vec<TicketRead>), R::Error> {
    let mut fetcher = TicketFetcher::new(reads);
    let mut out = Vec::with_capacity(tickets.len());
    for t in tickets {
        let fetched = fetcher.fetch(t).await;
        let lookups = fetcher.take_lookups();
        out.push(match fetched {
            Ok(calls) => TicketRead {
                calls,
                unread: None,
                lookups,
            },
            Err(e) if R::per_ticket(&e) => TicketRead {
                calls: 0,
                unread: Some(e.to_string()),
                lookups,
            },
            Err(e) => return Err(e),
        });
    }
    Ok((fetcher.into_account(meta), out))
}

/// Files the objects listed for each owner (a customer's charges, a charge's refunds, ...)
/// under their ids and marks the owner as read, so a later ticket does not list it again.
/// The first failed listing is the error.
fn absorb<T, Row, E>(
    owners: &[String],
    lists: Vec<Result<Vec<T>, E>>,
    read: &mut HashSet<String>,
    rows: &mut BTreeMap<String, Row>,
    mut row: impl FnMut(&T) -> (String, Row),
) -> Result<(), E> {
    for (owner, list) in owners.iter().zip(lists) {
        for object in &list? {
            let (id, r) = row(object);
            rows.insert(id, r);
        }
        read.insert(owner.clone());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use serde_json::json;

    use super::*;
    use crate::domain::refunds::{Facts, Policy, assess};
    use crate::model::{Mode, Origin};

    /// A read double over in-memory JSON objects (the shapes the API returns), recording
    /// each call; for tests of the fetch itself.
    #[derive(Debug, Default)]
    pub struct RecordingReads {
        pub objects: HashMap<&'static str, Vec<serde_json::Value>>,
        pub calls: std::sync::Mutex<Vec<String>>,
    }

    impl RecordingReads {
        fn answer<T: DeserializeOwned>(
            &self,
            path: &str,
            query: &[(String, String)],
        ) -> Result<Listed<T>, String> {
            let described = format!(
                "{path}?{}",
                query
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join("&")
            );
            let request_id = match self.calls.lock() {
                Ok(mut calls) => {
                    calls.push(described);
                    format!("req_{}", calls.len())
                }
                Err(_) => String::new(),
            };
            let kind = path.trim_start_matches("/v1/").trim_end_matches("/search");
            let all = self.objects.get(kind).cloned().unwrap_or_default();
            let field_id = |v: &serde_json::Value, f: &str| -> Option<String> {
                match v.get(f)? {
                    serde_json::Value::String(s) => Some(s.clone()),
                    other => other.get("id").and_then(|i| i.as_str()).map(str::to_string),
                }
            };
            let keep = |v: &serde_json::Value| -> bool {
                query.iter().all(|(k, want)| match k.as_str() {
                    "status" if want == "all" => true,
                    "query" => {
                        let needle = want
                            .trim_start_matches("email:'")
                            .trim_end_matches('\'')
                            .to_lowercase();
                        field_id(v, "email").is_some_and(|e| e.to_lowercase() == needle)
                    }
                    field => field_id(v, field).as_deref() == Some(want.as_str()),
                })
            };
            let items = all
                .into_iter()
                .filter(keep)
                .map(|v| serde_json::from_value(v).map_err(|e| e.to_string()))
                .collect::<Result<Vec<T>, String>>()?;
            Ok(Listed {
                items,
                request_ids: vec![request_id],
            })
        }

        pub fn calls(&self) -> Vec<String> {
            self.calls.lock().map(|c| c.clone()).unwrap_or_default()
        }
    }

    impl StripeReads for &RecordingReads {
        type Error = String;
        fn list_all<T>(
            &self,
            path: &str,
            query: &[(String, String)],
        ) -> impl Future<Output = Result<Listed<T>, String>>
        where
            T: DeserializeOwned + HasId + Send + 'static,
        {
            let out = self.answer(path, query);
            async move { out }
        }
        fn search_all<T>(
            &self,
            path: &str,
            query: &[(String, String)],
        ) -> impl Future<Output = Result<Listed<T>, String>>
        where
            T: DeserializeOwned + HasId + Send + 'static,
        {
            let out = self.answer(path, query);
            async move { out }
        }
    }

    fn meta() -> SnapshotMeta {
        SnapshotMeta {
            account_id: String::new(),
            account_name: None,
            mode: Mode::Test,
            origin: Origin::Live,
            api_version: crate::stripe::API_VERSION.into(),
            fetched_at: 0,
            window_start: 0,
            window_end: 0,
            default_currency: None,
            payment_methods: Default::default(),
            settled_invoices_since: None,
            balance: None,
            lines_complete: false,
            lines_since: None,
            fraud_warnings: Default::default(),
        }
    }

    fn ticket(email: &str, order: &str) -> Ticket {
        Ticket {
            ticket_id: None,
            email: email.into(),
            order_id: order.into(),
            message: String::new(),
            amount: None,
        }
    }

    fn account() -> RecordingReads {
        let mut r = RecordingReads::default();
        r.objects.insert(
            "customers",
            vec![
                json!({"id": "cus_a", "email": "Ann@x.io", "created": 1}),
                json!({"id": "cus_b", "email": "bob@x.io", "created": 2}),
            ],
        );
        r.objects.insert(
            "charges",
            vec![
                json!({"id": "ch_1", "customer": "cus_a", "amount": 4900, "amount_captured": 4900, "amount_refunded": 0, "currency": "usd", "status": "succeeded", "created": 1_000_000, "metadata": {"order_id": "ORD-1"}}),
                json!({"id": "ch_0", "customer": "cus_a", "amount": 900, "amount_captured": 900, "amount_refunded": 900, "refunded": true, "currency": "usd", "status": "succeeded", "created": 900_000}),
                json!({"id": "ch_b", "customer": "cus_b", "amount": 100, "amount_captured": 100, "amount_refunded": 0, "currency": "usd", "status": "succeeded", "created": 900_000, "description": "ORD-2"}),
            ],
        );
        r.objects.insert(
            "refunds",
            vec![json!({"id": "re_0", "charge": "ch_0", "amount": 900, "currency": "usd", "status": "succeeded", "created": 950_000})],
        );
        r.objects.insert(
            "subscriptions",
            vec![json!({"id": "sub_a", "customer": "cus_a", "status": "active", "latest_invoice": "in_9",
                "items": {"data": [{"id": "si_1", "current_period_start": 10, "current_period_end": 20,
                  "price": {"id": "price_1", "recurring": {"interval": "year", "interval_count": 1}}}]}})],
        );
        r.objects.insert(
            "invoice_payments",
            vec![json!({"id": "inpay_9", "invoice": "in_9", "status": "paid", "payment": {"type": "charge", "charge": "ch_1"}})],
        );
        r.objects.insert("disputes", vec![]);
        r
    }

    #[test]
    fn fetches_only_what_the_ticket_needs_and_shares_it_across_a_batch() {
        let reads = account();
        let tickets = [
            ticket("ann@x.io", "ORD-1"),
            ticket("ann@x.io", "ORD-1"),
            ticket("nobody@x.io", "ORD-3"),
        ];
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        let (data, read) = rt
            .block_on(fetch_tickets(&reads, &tickets, meta()))
            .expect("fetched");
        // Exact (miss) + search, charges + subs, refunds x2 + disputes, invoice payments.
        let counts: Vec<u32> = read.iter().map(|r| r.calls).collect();
        // Each ticket's trail names the requests as they were made: the first ticket's
        // eight with what they returned and their Request-Ids, the second ticket the same
        // requests marked as reused, the third its exact lookup and search (both empty).
        let first: Vec<(String, usize, String)> = read[0]
            .lookups
            .iter()
            .map(|l| (l.request.clone(), l.returned, l.request_ids.join(",")))
            .collect();
        assert_eq!(first.len(), 8, "{first:#?}");
        assert_eq!(
            first[0],
            ("GET /v1/customers?email=ann@x.io".into(), 0, "req_1".into())
        );
        assert_eq!(
            first[1],
            (
                "GET /v1/customers/search?query=email:'ann@x.io'".into(),
                1,
                "req_2".into()
            )
        );
        assert_eq!(read[0].lookups[1].ids, ["cus_a"]);
        assert!(
            read[0]
                .lookups
                .iter()
                .all(|l| !l.reused && l.error.is_none())
        );
        let second: Vec<&str> = read[1].lookups.iter().map(|l| l.request.as_str()).collect();
        let first_requests: Vec<&str> = first.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(second, first_requests);
        assert!(read[1].lookups.iter().all(|l| l.reused));
        assert_eq!(read[2].lookups.len(), 2);
        assert!(read[2].lookups.iter().all(|l| l.returned == 0 && !l.reused));
        assert_eq!(counts, [8, 0, 2], "{:#?}", reads.calls());
        let calls = reads.calls();
        assert_eq!(calls[0], "/v1/customers?email=ann@x.io");
        assert_eq!(calls[1], "/v1/customers/search?query=email:'ann@x.io'");
        assert!(calls.contains(&"/v1/subscriptions?customer=cus_a&status=all".to_string()));
        assert!(calls.contains(&"/v1/refunds?charge=ch_0".to_string()));
        assert!(calls.contains(&"/v1/invoice_payments?invoice=in_9".to_string()));
        assert!(!calls.iter().any(|c| c.contains("cus_b")), "{calls:?}");

        // The domain reaches the same decision on what was fetched as on everything.
        let policy = Policy::default_policy();
        let tz = jiff::tz::TimeZone::UTC;
        let now = 1_000_000 + 5 * 86_400;
        let a = assess(&tickets[0], &Facts::of(&data), &policy, now, &tz);
        assert_eq!(a.suggestion.rule, "outside-window");
        assert_eq!(a.suggestion.evidence, ["cus_a", "ch_1", "ch_0", "sub_a"]);
        assert_eq!(
            a.matched.subscription.as_ref().map(|l| &l.via),
            Some(
                &crate::domain::refunds::matching::PeriodLink::LatestInvoice {
                    invoice: "in_9".into()
                }
            )
        );
    }

    #[test]
    fn search_literals_are_escaped() {
        assert_eq!(search_literal("o'neil@x.io"), r"'o\'neil@x.io'");
    }
}
