//! Reaching Stripe, once for every shell: the client configuration from a
//! [`ReadRequest`] (`--api-base`, `--stripe-account`, `--rate` and the settings file),
//! the client for the profile's key, and the key's check (which account it reads).

use super::ReadRequest;
use super::load::stripe_failure;
use super::settings::Settings;
use crate::failure::Failure;
use crate::secrets::ApiKey;
use crate::stripe::account::{self, AccountInfo};
use crate::stripe::{Client, ClientConfig, StripeError, blocking};

/// The client configuration for `key` and the request's API base, connected account
/// and pace (`--rate`, the settings file). A budget above the mode's ceiling is refused.
pub fn client_config(req: &ReadRequest, key: ApiKey) -> Result<ClientConfig, Failure> {
    let mode = key.mode();
    let mut config = ClientConfig::new(req.api_base.clone(), key);
    config.stripe_account = req.stripe_account.clone();
    config.rate = Settings::load()?.apply(config.rate, req.rate, mode)?;
    Ok(config)
}

/// A client for the profile's key (env `STRIPE_API_KEY`, else the keychain). Call it
/// outside any tokio runtime.
pub fn connect(req: &ReadRequest) -> Result<Client, Failure> {
    let (key, _source) = crate::secrets::resolve_key(&req.profile, req.allow_secret_key)?;
    Client::new(client_config(req, key)?).map_err(stripe_failure)
}

/// Verifies `key` against Stripe and says which account it reads (`GET /v1/balance`,
/// then [`account::identify`]).
// StripeError carries the request id and permission for the message; it is returned once.
#[allow(clippy::result_large_err)]
pub fn verify_key(req: &ReadRequest, key: &ApiKey) -> Result<AccountInfo, StripeError> {
    let config =
        client_config(req, key.clone()).map_err(|f| StripeError::Config { detail: f.message })?;
    let client = Client::new(config)?;
    blocking::run(account::verify(&client))?
}
