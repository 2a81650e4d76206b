//! The wrong card (RULES.md, "Recovery"): Stripe charges a subscription's own
//! `default_payment_method` (else its own legacy `default_source`) before the customer's
//! `invoice_settings.default_payment_method` (else the customer's `default_source`), so a
//! customer who put a new card on the customer keeps failing on the subscription.
//!
//! An open invoice in dunning is a wrong-card case when its latest failed charge was made
//! on the subscription's own method, and the customer's method is another one made after
//! it. The dates come from the payment intent's `last_payment_error.payment_method` (the
//! failing card) and the customer's expanded invoice default; where either is unknown (a
//! legacy source has no date, an older snapshot did not keep them) the rule asks only
//! that the customer's method is another.

use crate::model::AccountData;
use crate::model::rows::{CustomerRow, PaymentIntentRow, SubscriptionRow};
use crate::model::status::InvoiceStatus;

use super::history::{self, Index};

/// One invoice failing on the subscription's old card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrongCard {
    pub invoice_id: String,
    pub customer_id: String,
    pub subscription_id: String,
    /// The subscription's default payment method, the one that failed.
    pub failing_method: String,
    /// The customer's invoice default, which the subscription does not use.
    pub customer_default: String,
}

/// The failed attempt the rule looks at: the payment method charged, and the payment
/// intent whose `last_payment_error` may say when that method was made.
#[derive(Debug, Clone, Copy, Default)]
pub struct FailedOn<'a> {
    pub method: Option<&'a str>,
    pub intent: Option<&'a PaymentIntentRow>,
}

impl FailedOn<'_> {
    /// When the failing method was made, if the intent's last error was on it.
    fn created(&self) -> Option<i64> {
        let pi = self.intent?;
        (pi.error_payment_method.as_deref() == self.method)
            .then_some(pi.error_payment_method_created)
            .flatten()
    }
}

/// The two methods of a wrong-card case: the subscription's failing one, the customer's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Methods<'a> {
    pub failing: &'a str,
    pub customer: &'a str,
}

/// The rule: the latest failed charge was on the subscription's own method, and the
/// customer's method is another, newer one (or one whose date is unknown).
pub fn check<'a>(
    failed: FailedOn<'_>,
    subscription: &'a SubscriptionRow,
    customer: &'a CustomerRow,
) -> Option<Methods<'a>> {
    let own = subscription.own_method()?;
    let theirs = customer.invoice_method()?;
    if failed.method != Some(own) || theirs == own {
        return None;
    }
    // The date is known only for the invoice default (a legacy source carries none).
    let theirs_created = customer
        .invoice_default_payment_method
        .is_some()
        .then_some(customer.invoice_default_created)
        .flatten();
    let newer = match (theirs_created, failed.created()) {
        (Some(theirs), Some(own)) => theirs > own,
        _ => true,
    };
    newer.then_some(Methods {
        failing: own,
        customer: theirs,
    })
}

/// The wrong-card cases among the open invoices of `data`, by invoice id.
pub fn wrong_cards(data: &AccountData) -> Vec<WrongCard> {
    let ix = Index::new(data);
    wrong_cards_in(data, &ix)
}

pub(super) fn wrong_cards_in(data: &AccountData, ix: &Index<'_>) -> Vec<WrongCard> {
    let mut out: Vec<WrongCard> = data
        .invoices
        .iter()
        .filter(|i| i.status == InvoiceStatus::Open && i.amount_remaining > 0)
        .filter_map(|inv| {
            let sub = ix.subscriptions.get(inv.subscription.as_deref()?)?;
            let customer_id = inv.customer.as_deref().or(sub.customer.as_deref())?;
            let customer = ix.customers.get(customer_id)?;
            let h = history::of(inv, ix)?;
            let latest_failed = h.attempts.iter().rev().find(|a| a.failed)?;
            let failed = FailedOn {
                method: latest_failed.payment_method.as_deref(),
                intent: latest_failed
                    .payment_intent
                    .as_deref()
                    .and_then(|pi| ix.intents.get(pi).copied()),
            };
            let m = check(failed, sub, customer)?;
            Some(WrongCard {
                invoice_id: inv.id.to_string(),
                customer_id: customer_id.to_owned(),
                subscription_id: sub.id.clone(),
                failing_method: m.failing.to_owned(),
                customer_default: m.customer.to_owned(),
            })
        })
        .collect();
    out.sort_by(|a, b| a.invoice_id.cmp(&b.invoice_id));
    out
}
