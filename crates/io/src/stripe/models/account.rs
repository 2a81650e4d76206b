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

/// `GET /v1/balance`: a cheap read any balance-reading key may make; used to verify keys.
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
}
