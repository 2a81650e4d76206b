//! The invoices' side of a sync: the open and uncollectible invoices (and, for the recovery
//! picture, every paid and void one since an instant: its charges tell whether it failed first), the payments
//! Stripe did not expand, and the PaymentIntent (with its latest charge) that explains each
//! failed invoice.

use super::*;

pub(super) struct InvoicePart {
    pub(super) invoices: Vec<InvoiceRow>,
    pub(super) payments: Vec<InvoicePaymentRow>,
    pub(super) intents: Vec<PaymentIntentRow>,
    /// The failed charges the payment intents' `latest_charge` expanded.
    pub(super) charges: Vec<ChargeRow>,
    /// The open invoices' customers and subscriptions, expanded on their list (the wrong
    /// card needs the customer's invoice default and the subscription's own default, also
    /// when customers and subscriptions are not read).
    pub(super) customers: Vec<CustomerRow>,
    pub(super) subscriptions: Vec<SubscriptionRow>,
}

/// The PaymentIntent whose last error explains an open invoice's failure, if the invoice
/// has failed: the default payment's intent, else the newest payment's with an intent,
/// else the pre-basil `invoice.payment_intent`.
///
/// An invoice has failed when it was `attempted` (`attempt_count >= 1`), or, for
/// `charge_automatically`, when its default payment is still `open` with an intent (Stripe
/// may be between attempts). A `send_invoice` invoice nobody tried to pay also has an open
/// default payment with an intent (Stripe makes it when the invoice is finalised), but
/// that intent has no error to read: no request is made for it.
pub fn failing_payment_intent(inv: &InvoiceRow, payments: &[&InvoicePaymentRow]) -> Option<String> {
    if inv.status != InvoiceStatus::Open {
        return None;
    }
    let default = payments
        .iter()
        .find(|p| p.is_default && p.payment_intent.is_some());
    let send_invoice = inv.collection_method.as_deref() == Some("send_invoice");
    let default_open = default.is_some_and(|p| p.status == "open") && !send_invoice;
    let attempted = inv.attempted && inv.attempt_count >= 1;
    if !(attempted || default_open) {
        return None;
    }
    default
        .or_else(|| {
            payments
                .iter()
                .filter(|p| p.payment_intent.is_some())
                .max_by_key(|p| p.created)
        })
        .and_then(|p| p.payment_intent.as_deref())
        .or(inv.legacy_payment_intent.as_deref())
        .map(str::to_string)
}

/// The customer list's expansion of the invoice default payment method: when it was made
/// tells the wrong card's newer card from an older one.
pub(super) const CUSTOMER_DEFAULT_METHOD: super::expanding::Expansion = (
    "data.invoice_settings.default_payment_method",
    &["rak_payment_method_read"],
);

pub(super) async fn fetch_invoices(
    client: &Client,
    settled_since: Option<i64>,
    progress: &dyn Progress,
) -> Result<InvoicePart, StripeError> {
    // The customer (with its invoice default, for the card's date) and the subscription
    // expanded for the wrong card; a key that may not read them gets the list without
    // them (one request more) and no wrong card, rather than no worklist.
    let open = super::expanding::list_expanding::<Invoice>(
        client,
        Resource::Invoices.list_path(),
        &[("status", "open"), ("expand[]", "data.payments")],
        &[
            (
                "data.customer.invoice_settings.default_payment_method",
                &["rak_customer_read", "rak_payment_method_read"],
            ),
            ("data.customer", &["rak_customer_read"]),
            (
                "data.parent.subscription_details.subscription",
                &["rak_subscription_read"],
            ),
        ],
        Part::OpenInvoices,
        progress,
    );
    // With their payments: the recovery picture reads how a written-off invoice failed.
    let uncollectible_q = params([("status", "uncollectible"), ("expand[]", "data.payments")]);
    let settled = async {
        let Some(since) = settled_since else {
            return Ok(Vec::new());
        };
        let since = since.to_string();
        let list = |status: &'static str| {
            let q = params([
                ("status", status),
                ("created[gte]", since.as_str()),
                ("expand[]", "data.payments"),
            ]);
            list_with::<Invoice>(
                client,
                Resource::Invoices.list_path(),
                q,
                Part::SettledInvoices,
                progress,
            )
        };
        let (paid, void) = futures::try_join!(list("paid"), list("void"))?;
        Ok::<_, StripeError>(paid.into_iter().chain(void).collect::<Vec<Invoice>>())
    };
    let (open, uncollectible, settled): (Vec<Invoice>, Vec<Invoice>, Vec<Invoice>) = futures::try_join!(
        open,
        list_with(
            client,
            Resource::Invoices.list_path(),
            uncollectible_q,
            Part::UncollectibleInvoices,
            progress
        ),
        settled,
    )?;
    // Every paid and void invoice since the instant is kept: whether one failed first is
    // told by its charges, not by `attempt_count` (Stripe counts only the scheduled
    // attempts, so a failed first attempt paid by hand on the hosted page stays at 1).
    // Lists paged side by side can both hold an invoice whose status changed mid-read (a
    // retry succeeded): it is kept once, as it ended.
    let ended: HashSet<String> = settled.iter().map(|i| i.id.to_string()).collect();
    let (open, uncollectible): (Vec<Invoice>, Vec<Invoice>) = (
        open.into_iter()
            .filter(|i| !ended.contains(i.id.as_str()))
            .collect(),
        uncollectible
            .into_iter()
            .filter(|i| !ended.contains(i.id.as_str()))
            .collect(),
    );

    // Payments: the expanded handful, or the full list when there are more.
    let incomplete: Vec<&str> = open
        .iter()
        .chain(&uncollectible)
        .chain(&settled)
        .filter(|i| i.payments.as_ref().is_some_and(|p| p.has_more))
        .map(|i| i.id.as_str())
        .collect();
    let total = incomplete.len();
    if total > 0 {
        progress.event(SyncEvent::Planned {
            part: Part::InvoicePayments,
            total,
        });
    }
    let done = AtomicUsize::new(0);
    let items = AtomicUsize::new(0);
    let fan_out = client.background();
    let full_lists: Vec<Vec<InvoicePayment>> = client
        .map_concurrent(incomplete.iter().copied(), |id| {
            let (done, items, fan_out) = (&done, &items, &fan_out);
            async move {
                let list: Vec<InvoicePayment> = fan_out
                    .list_all("/v1/invoice_payments", &params([("invoice", id)]))
                    .await?;
                let items = items.fetch_add(list.len(), Ordering::Relaxed) + list.len();
                progress.event(SyncEvent::Fetched {
                    part: Part::InvoicePayments,
                    done: done.fetch_add(1, Ordering::Relaxed) + 1,
                    total,
                    items,
                });
                Ok(list)
            }
        })
        .await?;
    let mut full: HashMap<&str, Vec<InvoicePayment>> =
        incomplete.iter().copied().zip(full_lists).collect();

    let mut invoices = Vec::with_capacity(open.len() + uncollectible.len() + settled.len());
    let mut payments = Vec::new();
    for inv in open.iter().chain(&uncollectible).chain(&settled) {
        let list = match full.remove(inv.id.as_str()) {
            Some(list) => list,
            None => inv
                .payments
                .as_ref()
                .map(|p| p.data.clone())
                .unwrap_or_default(),
        };
        payments.extend(list.iter().map(|p| {
            let mut row = InvoicePaymentRow::from(p);
            if row.invoice.is_empty() {
                row.invoice = inv.id.as_str().into();
            }
            row
        }));
        invoices.push(InvoiceRow::from(inv));
    }

    // The failing invoices' payment intents, one request each.
    let mut by_invoice: HashMap<&str, Vec<&InvoicePaymentRow>> = HashMap::new();
    for p in &payments {
        by_invoice.entry(p.invoice.as_str()).or_default().push(p);
    }
    let mut seen = HashSet::new();
    let intent_ids: Vec<String> = invoices
        .iter()
        .filter_map(|inv| {
            let pays = by_invoice
                .get(inv.id.as_str())
                .map_or(&[][..], Vec::as_slice);
            failing_payment_intent(inv, pays)
        })
        .filter(|pi| seen.insert(pi.clone()))
        .collect();
    let total = intent_ids.len();
    progress.event(SyncEvent::Planned {
        part: Part::PaymentIntents,
        total,
    });
    let done = AtomicUsize::new(0);
    let fan_out = client.background();
    let fetched: Vec<Option<PaymentIntent>> = client
        .map_concurrent(intent_ids.iter(), |id| {
            let (done, fan_out) = (&done, &fan_out);
            async move {
                let path = format!("/v1/payment_intents/{id}");
                let query = params([("expand[]", "latest_charge")]);
                let result = match fan_out.get::<PaymentIntent>(&path, &query).await {
                    Ok(pi) => Some(pi),
                    // Gone or in the other mode: the row shows no decline rather than
                    // the whole read failing.
                    Err(e) if e.is_not_found() => {
                        tracing::warn!(payment_intent = %id, "payment intent not found; its invoice shows no decline");
                        None
                    }
                    Err(e) => return Err(e),
                };
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                progress.event(SyncEvent::Fetched {
                    part: Part::PaymentIntents,
                    done: n,
                    total,
                    items: n,
                });
                Ok(result)
            }
        })
        .await?;
    let mut intents = Vec::new();
    let mut charges = Vec::new();
    for pi in fetched.into_iter().flatten() {
        if let Some(Expandable::Object(ch)) = &pi.latest_charge {
            charges.push(ChargeRow::from(&**ch));
        }
        intents.push(PaymentIntentRow::from(&pi));
    }
    let mut customers: Vec<CustomerRow> = Vec::new();
    let mut subscriptions: Vec<SubscriptionRow> = Vec::new();
    let (mut seen_c, mut seen_s) = (HashSet::new(), HashSet::new());
    for inv in &open {
        if let Some(Expandable::Object(c)) = &inv.customer
            && seen_c.insert(c.id.clone())
        {
            customers.push(CustomerRow::from(&**c));
        }
        let sub = inv
            .parent
            .as_ref()
            .and_then(|p| p.subscription_details.as_ref())
            .and_then(|d| d.subscription.as_ref());
        if let Some(Expandable::Object(s)) = sub
            && seen_s.insert(s.id.clone())
        {
            subscriptions.push(SubscriptionRow::from(&**s));
        }
    }
    Ok(InvoicePart {
        invoices,
        payments,
        intents,
        charges,
        customers,
        subscriptions,
    })
}
