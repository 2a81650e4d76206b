//! Which account a key reads, and whether the key works at all: `GET /v1/balance` (any
//! key with Balance read can make it) verifies the key; `GET /v1/account` then names the
//! account when the key may read it. A restricted key often may not, which is fine: the
//! account id is then taken from Stripe's 403 message when it names one.

use super::client::Client;
use super::error::StripeError;
use super::models::{Account, Balance};
use crate::source::Mode;

/// What a key showed about its account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountInfo {
    pub id: Option<String>,
    pub name: Option<String>,
    /// Mode the balance answer reported (`livemode`), when it said.
    pub reported_mode: Option<Mode>,
    /// Why the account could not be read, when it could not (not an error).
    pub note: Option<String>,
}

impl AccountInfo {
    /// `acct_123 (Name)`, `acct_123`, or `unknown`.
    pub fn describe(&self) -> String {
        match (&self.id, &self.name) {
            (Some(id), Some(name)) => format!("{id} ({name})"),
            (Some(id), None) => id.clone(),
            (None, Some(name)) => name.clone(),
            (None, None) => "unknown".to_string(),
        }
    }
}

/// Verifies the key with `GET /v1/balance` (errors are returned: a refused key, a missing
/// `rak_balance_read`, a network failure), then asks `GET /v1/account` for the name.
pub async fn identify(client: &Client) -> Result<AccountInfo, StripeError> {
    let balance: Balance = client.get("/v1/balance", &[]).await?;
    let reported_mode = balance
        .livemode
        .map(|live| if live { Mode::Live } else { Mode::Test });
    let mut info = AccountInfo {
        id: None,
        name: None,
        reported_mode,
        note: None,
    };
    match client.get::<Account>("/v1/account", &[]).await {
        Ok(account) => {
            info.name = account.display_name().map(str::to_string);
            info.id = Some(account.id).filter(|id| !id.is_empty());
        }
        Err(e @ StripeError::MissingPermission { .. }) => {
            info.id = e.account_hint();
            info.note = Some(
                "the key may not read the account's details (common for restricted keys; \
                 tieout does not need them)"
                    .to_string(),
            );
        }
        Err(e) if e.fail_kind() == tieout_core::failure::FailKind::Key => return Err(e),
        Err(e) => {
            tracing::info!("GET /v1/account failed: {e}");
            info.note = Some(format!("the account's details could not be read: {e}"));
        }
    }
    Ok(info)
}
