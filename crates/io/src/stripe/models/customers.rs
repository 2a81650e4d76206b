//! Customers and their subscriptions, with the items, prices and plans that say how much
//! and how often a subscription bills.

use super::*;

/// A customer (`cus_...`). A deleted customer comes back with `deleted: true`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Customer {
    pub id: String,
    pub email: Option<String>,
    pub name: Option<String>,
    pub description: Option<String>,
    pub created: Option<i64>,
    #[serde(default, deserialize_with = "null_default")]
    pub deleted: bool,
    pub livemode: Option<bool>,
    #[serde(default, deserialize_with = "lenient_metadata")]
    pub metadata: BTreeMap<String, String>,
    /// Its default payment method for invoices (expandable).
    #[serde(default)]
    pub invoice_settings: Option<InvoiceSettings>,
    /// The legacy default source (`card_…`/`src_…`), an id or the expanded object.
    #[serde(default, deserialize_with = "id_or_object")]
    pub default_source: Option<String>,
}

/// A subscription (`sub_...`). Periods live on its items since basil.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Subscription {
    pub id: String,
    /// The customer (expandable: the card read expands it for its invoice settings).
    #[serde(default, deserialize_with = "lenient_expandable")]
    pub customer: Option<Expandable<Customer>>,
    /// Its own default payment method (expandable), which wins over the customer's.
    #[serde(default, deserialize_with = "lenient_expandable")]
    pub default_payment_method: Option<Expandable<PaymentMethod>>,
    /// Its own legacy default source, an id or the expanded object.
    #[serde(default, deserialize_with = "id_or_object")]
    pub default_source: Option<String>,
    pub status: Option<SubscriptionStatus>,
    pub items: Option<List<SubscriptionItem>>,
    pub created: Option<i64>,
    pub currency: Option<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub cancel_at_period_end: bool,
    pub canceled_at: Option<i64>,
    pub latest_invoice: Option<Expandable<AnyObject>>,
    pub collection_method: Option<String>,
    pub livemode: Option<bool>,
    /// Pre-basil shapes only.
    pub current_period_start: Option<i64>,
    /// Pre-basil shapes only.
    pub current_period_end: Option<i64>,
    /// Legacy (single-plan) shapes only; the interval lives on the items otherwise.
    pub plan: Option<Plan>,
}

impl Subscription {
    /// The current period: the first item's period, else the pre-basil top-level fields.
    pub fn current_period(&self) -> (Option<i64>, Option<i64>) {
        let item = self.items.as_ref().and_then(|l| l.data.first());
        let start = item
            .and_then(|i| i.current_period_start)
            .or(self.current_period_start);
        let end = item
            .and_then(|i| i.current_period_end)
            .or(self.current_period_end);
        (start, end)
    }

    /// The next renewal: the earliest item-level `current_period_end` (items may renew
    /// apart), else the pre-basil top-level field.
    pub fn next_renewal(&self) -> Option<i64> {
        self.items
            .as_ref()
            .and_then(|l| l.data.iter().filter_map(|i| i.current_period_end).min())
            .or(self.current_period_end)
    }

    /// What the renewal charges in minor units: each item's unit amount (its price's,
    /// else its legacy plan's) times its quantity (1 when absent), summed; `None` when an
    /// item has no unit amount (tiered), is metered (its `unit_amount` is per unit of
    /// usage, and usage is not known until the period ends) or there are no items.
    pub fn renewal_amount(&self) -> Option<i64> {
        let items = &self.items.as_ref()?.data;
        if items.is_empty() {
            return None;
        }
        items.iter().try_fold(0i64, |sum, i| {
            if i.is_metered() {
                return None;
            }
            let unit = i
                .price
                .as_ref()
                .and_then(|p| p.unit_amount)
                .or_else(|| i.plan.as_ref().and_then(|p| p.amount))?;
            sum.checked_add(unit.checked_mul(i.quantity.unwrap_or(1))?)
        })
    }

    /// The billing interval (`month`, `year`, ...) and its count, from the first item's
    /// price, else its legacy plan, else the legacy top-level `plan`.
    pub fn interval(&self) -> Option<(String, i64)> {
        let item = self.items.as_ref().and_then(|l| l.data.first());
        if let Some(rec) = item
            .and_then(|i| i.price.as_ref())
            .and_then(|p| p.recurring.as_ref())
            && let Some(interval) = &rec.interval
        {
            return Some((interval.clone(), rec.interval_count.unwrap_or(1)));
        }
        let plan = item.and_then(|i| i.plan.as_ref()).or(self.plan.as_ref())?;
        Some((plan.interval.clone()?, plan.interval_count.unwrap_or(1)))
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SubscriptionItem {
    pub id: String,
    pub current_period_start: Option<i64>,
    pub current_period_end: Option<i64>,
    pub price: Option<Price>,
    pub plan: Option<Plan>,
    pub quantity: Option<i64>,
}

impl SubscriptionItem {
    /// Billed for usage (`usage_type=metered` on its price's `recurring`, else its legacy
    /// plan): what it charges is not known before the period ends.
    pub fn is_metered(&self) -> bool {
        let usage = self
            .price
            .as_ref()
            .and_then(|p| p.recurring.as_ref())
            .and_then(|r| r.usage_type.as_deref())
            .or_else(|| self.plan.as_ref().and_then(|p| p.usage_type.as_deref()));
        usage == Some("metered")
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Price {
    pub id: String,
    pub unit_amount: Option<i64>,
    pub currency: Option<String>,
    pub recurring: Option<Recurring>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Recurring {
    pub interval: Option<String>,
    pub interval_count: Option<i64>,
    /// `licensed` (a fixed quantity) or `metered` (billed for usage).
    pub usage_type: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Plan {
    pub id: String,
    pub amount: Option<i64>,
    pub currency: Option<String>,
    pub interval: Option<String>,
    pub interval_count: Option<i64>,
    pub usage_type: Option<String>,
}
