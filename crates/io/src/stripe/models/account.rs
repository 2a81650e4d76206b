//! The account (`GET /v1/account`) and its balance.

use super::*;

/// `GET /v1/account`. Has no `livemode`; a restricted key may not be allowed to read it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Account {
    pub id: String,
    pub business_profile: Option<BusinessProfile>,
    pub settings: Option<AccountSettings>,
    pub email: Option<String>,
    pub country: Option<String>,
    pub default_currency: Option<String>,
}

impl Account {
    /// The name people know the account by: the Dashboard display name, else the
    /// business name.
    pub fn display_name(&self) -> Option<&str> {
        self.settings
            .as_ref()
            .and_then(|s| s.dashboard.as_ref())
            .and_then(|d| d.display_name.as_deref())
            .or_else(|| {
                self.business_profile
                    .as_ref()
                    .and_then(|b| b.name.as_deref())
            })
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BusinessProfile {
    pub name: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AccountSettings {
    pub dashboard: Option<DashboardSettings>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DashboardSettings {
    pub display_name: Option<String>,
    pub timezone: Option<String>,
}

/// `GET /v1/balance`: Stripe's balance now, per currency, `available` and `pending` (each
/// entry's `amount` is already the sum over its `source_types`). A cheap read any
/// balance-reading key may make: also used to verify keys. Parsed leniently: a missing or
/// `null` list is empty, an entry without an amount counts its source types.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Balance {
    #[serde(deserialize_with = "null_default")]
    pub available: Vec<BalanceAmount>,
    #[serde(deserialize_with = "null_default")]
    pub pending: Vec<BalanceAmount>,
    pub livemode: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BalanceAmount {
    #[serde(deserialize_with = "null_default")]
    pub amount: i64,
    #[serde(deserialize_with = "null_default")]
    pub currency: String,
    /// `card`, `bank_account`, `fpx`, ... -> minor units; an entry that is not an integer
    /// is dropped rather than failing the read.
    #[serde(deserialize_with = "lenient_amounts")]
    pub source_types: BTreeMap<String, i64>,
}

impl BalanceAmount {
    /// The entry's amount: `amount`, or, when it is absent (read as 0), the sum of its
    /// source types (which is 0 too when the amount really is).
    pub fn total(&self) -> i64 {
        if self.amount != 0 {
            return self.amount;
        }
        self.source_types
            .values()
            .fold(0i64, |a, v| a.saturating_add(*v))
    }
}

impl Balance {
    /// The balance as the roll-forward compares it, read at `read_at`: per known currency,
    /// available and pending (an entry in a currency tieout does not know is skipped, with
    /// a log line).
    pub fn to_core(&self, read_at: i64) -> tieout_core::model::StripeBalance {
        let mut out = tieout_core::model::StripeBalance {
            read_at,
            ..Default::default()
        };
        for (entries, pending) in [(&self.available, false), (&self.pending, true)] {
            for e in entries {
                match tieout_core::money::Currency::parse(&e.currency) {
                    Ok(c) => out.add(c, e.total(), pending),
                    Err(_) => {
                        tracing::info!(currency = %e.currency, "a balance entry in an unknown currency is skipped")
                    }
                }
            }
        }
        out
    }
}

/// A map of integer amounts; entries that are not integers (or `null`) are dropped.
fn lenient_amounts<'de, D>(d: D) -> Result<BTreeMap<String, i64>, D::Error>
where
    D: Deserializer<'de>,
{
    let raw = Option::<BTreeMap<String, serde_json::Value>>::deserialize(d)?.unwrap_or_default();
    Ok(raw
        .into_iter()
        .filter_map(|(k, v)| v.as_i64().map(|v| (k, v)))
        .collect())
}
