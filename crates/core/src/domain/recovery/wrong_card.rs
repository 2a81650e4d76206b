//! The wrong card (RULES.md, "Recovery"): Stripe charges a subscription's own
//! `default_payment_method` before the customer's `invoice_settings.default_payment_method`,
//! so a customer who put a new card on the customer keeps failing on the subscription.
//! An open invoice in dunning is a wrong-card case when its latest failed charge was made
//! on the subscription's default payment method and the customer's invoice default is
//! another payment method.

use crate::model::AccountData;
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

/// The wrong-card cases among the open invoices of `data`, by invoice id.
pub fn wrong_cards(data: &AccountData) -> Vec<WrongCard> {
    let ix = Index::new(data);
    wrong_cards_in(data, &ix)
}

/// The rule, over the three payment methods: the latest failed charge was on the
/// subscription's own default, and the customer's invoice default is set and another.
pub fn is_wrong_card(
    failed_on: Option<&str>,
    subscription_default: Option<&str>,
    customer_default: Option<&str>,
) -> bool {
    match (failed_on, subscription_default, customer_default) {
        (Some(f), Some(s), Some(c)) => f == s && c != s,
        _ => false,
    }
}

pub(super) fn wrong_cards_in(data: &AccountData, ix: &Index<'_>) -> Vec<WrongCard> {
    let mut out: Vec<WrongCard> = data
        .invoices
        .iter()
        .filter(|i| i.status == InvoiceStatus::Open && i.amount_remaining > 0)
        .filter_map(|inv| {
            let sub = ix.subscriptions.get(inv.subscription.as_deref()?)?;
            let sub_method = sub.default_payment_method.as_deref()?;
            let customer_id = inv.customer.as_deref().or(sub.customer.as_deref())?;
            let customer_default = ix
                .customers
                .get(customer_id)?
                .invoice_default_payment_method
                .as_deref()?;
            let h = history::of(inv, ix)?;
            let latest_failed = h.attempts.iter().rev().find(|a| a.failed)?;
            let failed_on = latest_failed.payment_method.as_deref()?;
            is_wrong_card(Some(failed_on), Some(sub_method), Some(customer_default)).then(|| {
                WrongCard {
                    invoice_id: inv.id.to_string(),
                    customer_id: customer_id.to_owned(),
                    subscription_id: sub.id.clone(),
                    failing_method: sub_method.to_owned(),
                    customer_default: customer_default.to_owned(),
                }
            })
        })
        .collect();
    out.sort_by(|a, b| a.invoice_id.cmp(&b.invoice_id));
    out
}
