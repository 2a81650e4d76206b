//! Which account a key reads, and whether the key works at all: `GET /v1/balance` (any
//! key with Balance read can make it) verifies the key; `GET /v1/account` then names the
//! account when the key may read it. A restricted key often may not, which is fine: the
//! account id is then taken from Stripe's 403 message when it names one.

use super::client::Client;
use super::error::StripeError;
use super::models::{Account, Balance};
use tieout_core::model::Mode;

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

/// What `GET /v1/account` showed: the account, or (a restricted key often may not read
/// it) the id Stripe's refusal named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub id: Option<String>,
    pub name: Option<String>,
    /// The account's default currency, when Stripe named a known one.
    pub default_currency: Option<tieout_core::money::Currency>,
    /// The key may not read the account's details (a 403); `id` is then the refusal's.
    pub refused: bool,
}

/// Which account the client reads: `GET /v1/account`, with the 403 of a restricted key
/// read for the account id it names. Any other error (a bad key, the network) is returned.
pub async fn identify(client: &Client) -> Result<Identity, StripeError> {
    match client.get::<Account>("/v1/account", &[]).await {
        Ok(account) => Ok(Identity {
            name: account.display_name().map(str::to_string),
            default_currency: account
                .default_currency
                .as_deref()
                .and_then(|c| tieout_core::money::Currency::parse(c).ok()),
            id: Some(account.id).filter(|id| !id.is_empty()),
            refused: false,
        }),
        Err(e @ StripeError::MissingPermission { .. }) => Ok(Identity {
            id: e.account_hint(),
            name: None,
            default_currency: None,
            refused: true,
        }),
        Err(e) => Err(e),
    }
}

/// Verifies the key with `GET /v1/balance` (errors are returned: a refused key, a missing
/// `rak_balance_read`, a network failure), then asks [`identify`] for the account; only a
/// key error there fails, anything else becomes a note.
pub async fn verify(client: &Client) -> Result<AccountInfo, StripeError> {
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
    match identify(client).await {
        Ok(found) => {
            info.id = found.id;
            info.name = found.name;
            if found.refused {
                info.note = Some(
                    "the key may not read the account's details (common for restricted keys; \
                     tieout does not need them)"
                        .to_string(),
                );
            }
        }
        Err(e) if e.fail_kind() == tieout_core::failure::FailKind::Key => return Err(e),
        Err(e) => {
            tracing::info!("GET /v1/account failed: {e}");
            info.note = Some(format!("the account's details could not be read: {e}"));
        }
    }
    Ok(info)
}
