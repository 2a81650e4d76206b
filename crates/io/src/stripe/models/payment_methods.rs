//! Payment methods (`pm_...`): what the expiring-cards check reads of one (its type and,
//! for a card, the brand, the last four digits and the expiry), and the customer's
//! invoice settings that name the default one. Read as expansions of the subscription
//! list, leniently: a method of a type tieout does not know, a card without an expiry or
//! an expansion in a shape it cannot read is kept as what it is (or as its id), never an
//! error.

use super::*;

/// A payment method (`pm_...`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaymentMethod {
    pub id: String,
    /// `card`, `sepa_debit`, `us_bank_account`, ... as Stripe sends it.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    #[serde(default, deserialize_with = "lenient_value")]
    pub card: Option<CardDetails>,
    pub customer: Option<Expandable<AnyObject>>,
    pub created: Option<i64>,
}

/// A card's details (`payment_method.card`); every field may be absent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CardDetails {
    pub brand: Option<String>,
    pub last4: Option<String>,
    #[serde(deserialize_with = "lenient_int")]
    pub exp_month: Option<i64>,
    #[serde(deserialize_with = "lenient_int")]
    pub exp_year: Option<i64>,
    pub funding: Option<String>,
}

/// A customer's `invoice_settings`: only the default payment method matters here.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct InvoiceSettings {
    #[serde(deserialize_with = "lenient_expandable")]
    pub default_payment_method: Option<Expandable<PaymentMethod>>,
}

/// An expandable field read leniently: an id, the object, or (an object tieout cannot
/// read as `T`) its `id`; anything else is `None`.
pub fn lenient_expandable<'de, D, T>(d: D) -> Result<Option<Expandable<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    let v = Option::<serde_json::Value>::deserialize(d)?;
    Ok(match v {
        Some(serde_json::Value::String(id)) => Some(Expandable::Id(id)),
        Some(obj @ serde_json::Value::Object(_)) => {
            let id = obj.get("id").and_then(|i| i.as_str()).map(str::to_string);
            match serde_json::from_value::<T>(obj) {
                Ok(t) => Some(Expandable::Object(Box::new(t))),
                Err(_) => id.map(Expandable::Id),
            }
        }
        _ => None,
    })
}

/// A nested object read leniently: `None` when it is absent or not readable as `T`.
pub(super) fn lenient_value<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    let v = Option::<serde_json::Value>::deserialize(d)?;
    Ok(v.and_then(|v| serde_json::from_value(v).ok()))
}

/// An integer, also when sent as a string of digits (`"12"`); anything else is `None`.
fn lenient_int<'de, D>(d: D) -> Result<Option<i64>, D::Error>
where
    D: Deserializer<'de>,
{
    let v = Option::<serde_json::Value>::deserialize(d)?;
    Ok(match v {
        Some(serde_json::Value::Number(n)) => n.as_i64(),
        Some(serde_json::Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    })
}
