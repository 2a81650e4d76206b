//! Applying a refresh's plan to the cached snapshot: each object an event changed is taken
//! from the event or read again by id with the expansions a sync reads it with (one GET
//! each, concurrently), then put in, replaced in or dropped from its table by the rule
//! its list in a full sync follows (charges and fraud warnings since the charges' start,
//! payouts arriving in the window, invoices open, uncollectible or settled since the
//! recovery window). An active subscription whose card row a changed customer or payment
//! method is part of is read again too. Then, as a full sync would: a payout that became itemisable or
//! changed status has its lines read again (`?payout=`), the failing invoices' payment
//! intents not yet read (or changed) are read with their latest charge and the others
//! dropped, the balance transactions are listed by `created[gte]` of the oldest pending
//! line now due or else the newest kept (new lines added, due ones given their status now),
//! and the balance is read.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde::de::DeserializeOwned;
use serde_json::Value;
use tieout_core::model::MethodsRead;
use tieout_core::model::events::{ObjectKey, Step};
use tieout_core::model::rows::{FraudWarningRow, RenewalMethodRow};

use super::super::*;
use super::Event;
use crate::stripe::models::{Balance, EarlyFraudWarning};

/// Replaces the row with `row`'s id, or adds it.
fn upsert<T>(rows: &mut Vec<T>, row: T, id: impl Fn(&T) -> &str) {
    let key = id(&row).to_string();
    match rows.iter_mut().find(|r| id(r) == key) {
        Some(old) => *old = row,
        None => rows.push(row),
    }
}

fn remove<T>(rows: &mut Vec<T>, key: &str, id: impl Fn(&T) -> &str) {
    rows.retain(|r| id(r) != key);
}

/// The read of one object again: its path and the expansions a sync reads it with.
fn reread(key: &ObjectKey, renewal_methods: bool) -> Option<(String, Vec<(String, String)>)> {
    let id = &key.id;
    let (path, expand): (String, Vec<&str>) = match key.object.as_str() {
        "charge" => (format!("/v1/charges/{id}"), vec![]),
        "refund" => (format!("/v1/refunds/{id}"), vec![]),
        "dispute" => (format!("/v1/disputes/{id}"), vec![]),
        "payout" => (format!("/v1/payouts/{id}"), vec![]),
        "invoice" => (format!("/v1/invoices/{id}"), vec!["payments"]),
        "customer" => (
            format!("/v1/customers/{id}"),
            vec!["invoice_settings.default_payment_method"],
        ),
        "subscription" if renewal_methods => (
            format!("/v1/subscriptions/{id}"),
            vec![
                "default_payment_method",
                "customer.invoice_settings.default_payment_method",
            ],
        ),
        "subscription" => (format!("/v1/subscriptions/{id}"), vec![]),
        "radar.early_fraud_warning" => (
            format!("/v1/radar/early_fraud_warnings/{id}"),
            vec!["charge.balance_transaction"],
        ),
        _ => return None,
    };
    let query = expand
        .into_iter()
        .map(|e| ("expand[]".to_string(), e.to_string()))
        .collect();
    Some((path, query))
}

fn decode<T: DeserializeOwned>(key: &ObjectKey, v: Value) -> Result<T, StripeError> {
    serde_json::from_value(v).map_err(|e| StripeError::Decode {
        path: format!("event object {} {}", key.object, key.id),
        at: String::new(),
        detail: e.to_string(),
        request_id: None,
    })
}

/// The objects the plan needs: from their event, or read again (`None`: gone, 404).
async fn gather(
    client: &Client,
    events: &[Event],
    steps: &[(ObjectKey, Step)],
    renewal_methods: bool,
    progress: &dyn Progress,
) -> Result<Vec<(ObjectKey, Option<Value>)>, StripeError> {
    let wanted: Vec<&ObjectKey> = steps
        .iter()
        .filter(|(k, s)| *s == Step::Reread && reread(k, renewal_methods).is_some())
        .map(|(k, _)| k)
        .collect();
    let total = wanted.len();
    progress.event(SyncEvent::Planned {
        part: Part::Changed,
        total,
    });
    let done = AtomicUsize::new(0);
    let fan_out = client.background();
    let read: Vec<Option<Value>> = client
        .map_concurrent(wanted.iter().copied(), |key| {
            let (done, fan_out) = (&done, &fan_out);
            async move {
                let Some((path, query)) = reread(key, renewal_methods) else {
                    return Ok(None);
                };
                let got = match fan_out.get::<Value>(&path, &query).await {
                    Ok(v) => Some(v),
                    Err(e) if e.is_not_found() => None,
                    Err(e) => return Err(e),
                };
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                progress.event(SyncEvent::Fetched {
                    part: Part::Changed,
                    done: n,
                    total,
                    items: n,
                });
                Ok(got)
            }
        })
        .await?;
    let mut fetched: HashMap<&ObjectKey, Option<Value>> = wanted.into_iter().zip(read).collect();
    Ok(steps
        .iter()
        .filter_map(|(k, s)| match s {
            Step::Apply(i) => Some((k.clone(), events.get(*i).map(|e| e.data.object.clone()))),
            Step::Remove => Some((k.clone(), None)),
            Step::Reread => fetched.remove(k).map(|v| (k.clone(), v)),
        })
        .collect())
}

/// The plan with, when the renewal cards are kept, the active subscriptions whose card
/// row a changed customer (its email, name, invoice default) or payment method (its
/// card's expiry) is part of, read again with their expansions as the card read lists them.
fn with_renewals(
    mut steps: Vec<(ObjectKey, Step)>,
    data: &AccountData,
    renewal_methods: bool,
) -> Vec<(ObjectKey, Step)> {
    if !renewal_methods {
        return steps;
    }
    let planned: HashSet<ObjectKey> = steps.iter().map(|(k, _)| k.clone()).collect();
    let mut extra: BTreeSet<ObjectKey> = BTreeSet::new();
    for (key, _) in &steps {
        let id = Some(key.id.as_str());
        for row in &data.renewal_methods {
            let linked = match key.object.as_str() {
                "customer" => row.customer.as_deref() == id,
                "payment_method" => row.payment_method.as_deref() == id,
                _ => false,
            };
            let sub = ObjectKey::new("subscription", &row.subscription);
            if linked && !planned.contains(&sub) {
                extra.insert(sub);
            }
        }
    }
    steps.extend(extra.into_iter().map(|k| (k, Step::Reread)));
    steps
}

/// Applies the plan to `data` (see the module docs).
pub(super) async fn apply(
    client: &Client,
    mut data: AccountData,
    events: &[Event],
    steps: Vec<(ObjectKey, Step)>,
    opts: &SyncOptions,
    progress: &dyn Progress,
) -> Result<AccountData, StripeError> {
    let renewal_methods = data.meta.payment_methods == MethodsRead::Read;
    let warnings = data.meta.fraud_warnings == MethodsRead::Read;
    let touched_intents: HashSet<String> = steps
        .iter()
        .filter(|(k, _)| k.object == "payment_intent")
        .map(|(k, _)| k.id.clone())
        .collect();
    let steps = with_renewals(steps, &data, renewal_methods);
    let objects = gather(client, events, &steps, renewal_methods, progress).await?;
    let mut payouts_to_itemise: Vec<String> = Vec::new();
    let mut incomplete_invoices: Vec<String> = Vec::new();
    for (key, value) in objects {
        let id = key.id.as_str();
        match key.object.as_str() {
            "charge" => match value {
                Some(v) => {
                    let row = ChargeRow::from(&decode::<Charge>(&key, v)?);
                    let known = data.charges.iter().any(|c| c.id.as_str() == id);
                    if row.created >= opts.charges_since || known {
                        upsert(&mut data.charges, row, |r| r.id.as_str());
                    }
                }
                None => remove(&mut data.charges, id, |r| r.id.as_str()),
            },
            "refund" => match value {
                Some(v) => {
                    let row = RefundRow::from(&decode::<Refund>(&key, v)?);
                    upsert(&mut data.refunds, row, |r| r.id.as_str());
                }
                None => remove(&mut data.refunds, id, |r| r.id.as_str()),
            },
            "dispute" => match value {
                Some(v) => {
                    let row = DisputeRow::from(&decode::<Dispute>(&key, v)?);
                    upsert(&mut data.disputes, row, |r| r.id.as_str());
                }
                None => remove(&mut data.disputes, id, |r| r.id.as_str()),
            },
            "payout" => {
                let row = match value {
                    Some(v) => Some(PayoutRow::from(&decode::<Payout>(&key, v)?)),
                    None => None,
                };
                let old = data.payouts.iter().find(|p| p.id == id).cloned();
                match row {
                    Some(row) if (opts.window.0..opts.window.1).contains(&row.arrival_date) => {
                        let changed = old
                            .as_ref()
                            .is_none_or(|o| o.status != row.status || !itemisable(o));
                        if itemisable(&row) && changed {
                            payouts_to_itemise.push(row.id.clone());
                        }
                        upsert(&mut data.payouts, row, |r| r.id.as_str());
                    }
                    _ => remove(&mut data.payouts, id, |r| r.id.as_str()),
                }
            }
            "invoice" => {
                remove(&mut data.invoices, id, |r| r.id.as_str());
                data.invoice_payments.retain(|p| p.invoice.as_str() != id);
                let Some(v) = value else { continue };
                let inv = decode::<Invoice>(&key, v)?;
                let row = InvoiceRow::from(&inv);
                let kept = match row.status.as_str() {
                    "open" | "uncollectible" => true,
                    "paid" | "void" => data
                        .meta
                        .settled_invoices_since
                        .is_some_and(|s| row.created >= s),
                    _ => false,
                };
                if !kept {
                    continue;
                }
                let payments = inv.payments.as_ref();
                if payments.is_some_and(|p| p.has_more) {
                    incomplete_invoices.push(id.to_string());
                }
                for p in payments.map(|p| p.data.as_slice()).unwrap_or_default() {
                    let mut pay = InvoicePaymentRow::from(p);
                    if pay.invoice.is_empty() {
                        pay.invoice = id.into();
                    }
                    data.invoice_payments.push(pay);
                }
                data.invoices.push(row);
            }
            "customer" => match value {
                Some(v) => {
                    let row = CustomerRow::from(&decode::<Customer>(&key, v)?);
                    upsert(&mut data.customers, row, |r| r.id.as_str());
                }
                None => remove(&mut data.customers, id, |r| r.id.as_str()),
            },
            "subscription" => {
                remove(&mut data.renewal_methods, id, |r| r.subscription.as_str());
                match value {
                    Some(v) => {
                        let sub = decode::<Subscription>(&key, v)?;
                        let row = SubscriptionRow::from(&sub);
                        if renewal_methods && row.status.as_str() == "active" {
                            data.renewal_methods.push(RenewalMethodRow::from(&sub));
                        }
                        upsert(&mut data.subscriptions, row, |r| r.id.as_str());
                    }
                    None => remove(&mut data.subscriptions, id, |r| r.id.as_str()),
                }
            }
            "radar.early_fraud_warning" if warnings => match value {
                Some(v) => {
                    let row = FraudWarningRow::from(&decode::<EarlyFraudWarning>(&key, v)?);
                    if row.created >= opts.charges_since {
                        upsert(&mut data.fraud_warnings, row, |r| r.id.as_str());
                    }
                }
                None => remove(&mut data.fraud_warnings, id, |r| r.id.as_str()),
            },
            _ => {}
        }
    }
    payments_in_full(client, &mut data, &incomplete_invoices).await?;
    payout_lines(client, &mut data, &payouts_to_itemise, progress).await?;
    failing_intents(client, &mut data, &touched_intents, progress).await?;
    new_lines(client, &mut data, opts.now, progress).await?;
    let balance: Balance = client.get("/v1/balance", &[]).await?;
    data.meta.balance = Some(balance.to_core(opts.now));
    Ok(data)
}

/// The payments of invoices with more than the expanded handful, listed in full.
async fn payments_in_full(
    client: &Client,
    data: &mut AccountData,
    invoices: &[String],
) -> Result<(), StripeError> {
    for id in invoices {
        let list: Vec<InvoicePayment> = client
            .list_all("/v1/invoice_payments", &params([("invoice", id.as_str())]))
            .await?;
        data.invoice_payments.retain(|p| p.invoice.as_str() != id);
        for p in &list {
            let mut row = InvoicePaymentRow::from(p);
            if row.invoice.is_empty() {
                row.invoice = id.as_str().into();
            }
            data.invoice_payments.push(row);
        }
    }
    Ok(())
}

/// The lines of payouts that became itemisable or changed status, as a sync reads them.
async fn payout_lines(
    client: &Client,
    data: &mut AccountData,
    payouts: &[String],
    progress: &dyn Progress,
) -> Result<(), StripeError> {
    progress.event(SyncEvent::Planned {
        part: Part::BalanceTransactions,
        total: payouts.len(),
    });
    let fan_out = client.background();
    let read: Vec<Vec<BalanceTransaction>> = client
        .map_concurrent(payouts.iter(), |id| {
            let fan_out = &fan_out;
            async move {
                fan_out
                    .list_all(
                        "/v1/balance_transactions",
                        &params([("payout", id.as_str())]),
                    )
                    .await
            }
        })
        .await?;
    for (id, lines) in payouts.iter().zip(read) {
        let payout = PayoutId::from(id.as_str());
        for t in &lines {
            let row = crate::source::from_wire::balance_txn_row(t, Some(&payout));
            upsert(&mut data.balance_transactions, row, |r| r.id.as_str());
        }
    }
    Ok(())
}

/// The failing invoices' payment intents: the ones not yet read or changed are read
/// with their latest charge, the ones no longer failing dropped.
async fn failing_intents(
    client: &Client,
    data: &mut AccountData,
    touched: &HashSet<String>,
    progress: &dyn Progress,
) -> Result<(), StripeError> {
    let mut by_invoice: HashMap<&str, Vec<&InvoicePaymentRow>> = HashMap::new();
    for p in &data.invoice_payments {
        by_invoice.entry(p.invoice.as_str()).or_default().push(p);
    }
    let failing: BTreeSet<String> = data
        .invoices
        .iter()
        .filter_map(|inv| {
            let pays = by_invoice
                .get(inv.id.as_str())
                .map_or(&[][..], Vec::as_slice);
            failing_payment_intent(inv, pays)
        })
        .collect();
    data.payment_intents
        .retain(|p| failing.contains(p.id.as_str()));
    let to_read: Vec<&String> = failing
        .iter()
        .filter(|pi| {
            touched.contains(pi.as_str())
                || !data
                    .payment_intents
                    .iter()
                    .any(|p| p.id.as_str() == pi.as_str())
        })
        .collect();
    let total = to_read.len();
    progress.event(SyncEvent::Planned {
        part: Part::PaymentIntents,
        total,
    });
    let fan_out = client.background();
    let read: Vec<Option<PaymentIntent>> = client
        .map_concurrent(to_read.iter().copied(), |id| {
            let fan_out = &fan_out;
            async move {
                let path = format!("/v1/payment_intents/{id}");
                match fan_out
                    .get::<PaymentIntent>(&path, &params([("expand[]", "latest_charge")]))
                    .await
                {
                    Ok(pi) => Ok(Some(pi)),
                    Err(e) if e.is_not_found() => Ok(None),
                    Err(e) => Err(e),
                }
            }
        })
        .await?;
    for pi in read.into_iter().flatten() {
        if let Some(Expandable::Object(ch)) = &pi.latest_charge {
            upsert(&mut data.charges, ChargeRow::from(&**ch), |r| r.id.as_str());
        }
        upsert(
            &mut data.payment_intents,
            PaymentIntentRow::from(&pi),
            |r| r.id.as_str(),
        );
    }
    Ok(())
}

/// The balance transactions created since the newest kept (`created[gte]`, so the lines
/// of that same second are not missed), without a payout; and, since a line's `status`
/// turns from `pending` to `available` with no event once its `available_on` has come,
/// every line from the oldest one kept as pending whose `available_on` is past at `now`
/// is listed again and taken as Stripe gives it now (its payout kept). A pending line not
/// yet due is still pending at Stripe: listing again from the oldest pending line of all
/// would read back days of lines every morning (a week's on a card account paid out
/// weekly), hundreds of pages on a large account.
async fn new_lines(
    client: &Client,
    data: &mut AccountData,
    now: i64,
    progress: &dyn Progress,
) -> Result<(), StripeError> {
    let kept = &data.balance_transactions;
    let newest = kept.iter().map(|l| l.created).max();
    let oldest_due = (kept.iter())
        .filter(|l| l.status.as_str() == "pending" && l.available_on <= now)
        .map(|l| l.created)
        .min();
    let Some(since) = [newest, oldest_due]
        .into_iter()
        .flatten()
        .min()
        .or(data.meta.lines_since)
    else {
        return Ok(());
    };
    let lines: Vec<BalanceTransaction> = list_with(
        client,
        "/v1/balance_transactions",
        params([("created[gte]", since.to_string())]),
        Part::BalanceTransactions,
        progress,
    )
    .await?;
    let known: HashMap<String, usize> = (data.balance_transactions.iter().enumerate())
        .map(|(i, l)| (l.id.as_str().to_string(), i))
        .collect();
    for t in &lines {
        let row = crate::source::from_wire::balance_txn_row(t, None);
        match known.get(t.id.as_str()) {
            Some(&i) => {
                let kept = &mut data.balance_transactions[i];
                let payout = kept.payout.take();
                *kept = row;
                kept.payout = payout;
            }
            None => data.balance_transactions.push(row),
        }
    }
    Ok(())
}
