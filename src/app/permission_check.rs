//! Which of the permissions tieout reads with a restricted key has (`tieout status`): one
//! cheap read of each (`GET <list>?limit=1`, GET only, never more than one page), so a
//! key made by hand in the Dashboard shows every missing Read at once, not one per run.

use super::ReadRequest;
use super::connect::client_config;
use crate::failure::Failure;
use crate::secrets::ApiKey;
use crate::stripe::permissions::{PERMISSIONS, Permission};
use crate::stripe::{Client, StripeError, blocking};

/// What the read of one permission showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Has {
    Yes,
    /// Stripe answered 403 naming it (or the read it guards).
    No,
    /// The read failed for another reason (the network, Stripe): the error.
    Unknown(String),
    /// tieout makes no read of its own with it (Stripe checks it inside another read).
    NotChecked,
}

/// One permission and whether the key has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    pub permission: &'static Permission,
    pub has: Has,
}

/// Checks every permission tieout knows of with one `limit=1` read each, concurrently.
// StripeError carries the request id for the message; it is returned once.
pub fn check(req: &ReadRequest, key: &ApiKey) -> Result<Vec<Check>, Failure> {
    let client = Client::new(client_config(req, key.clone())?).map_err(Failure::from)?;
    blocking::run(check_with(&client))
        .map_err(|e| Failure::other(format!("could not start the network runtime: {e}")))?
        .map_err(Failure::from)
}

/// [`check`] on an existing client.
#[allow(clippy::result_large_err)]
pub async fn check_with(client: &Client) -> Result<Vec<Check>, StripeError> {
    let limit = [("limit".to_string(), "1".to_string())];
    let reads = PERMISSIONS.iter().map(|p| {
        let limit = &limit;
        async move {
            let has = match p.probe {
                None => Has::NotChecked,
                Some(path) => match client.get::<serde_json::Value>(path, limit).await {
                    Ok(_) => Has::Yes,
                    Err(StripeError::MissingPermission { .. }) => Has::No,
                    Err(e @ StripeError::InvalidKey { .. }) => return Err(e),
                    Err(e) => Has::Unknown(e.to_string()),
                },
            };
            Ok(Check { permission: p, has })
        }
    });
    futures::future::try_join_all(reads).await
}

/// The table `tieout status` prints: a header, then one line per permission.
pub fn table(checks: &[Check]) -> Vec<String> {
    let mut lines = vec![format!(
        "  {:<36} {:<27} {:<9} {}",
        "permission", "Dashboard row", "has it", "used for"
    )];
    for c in checks {
        let p = c.permission;
        let has = match &c.has {
            Has::Yes => "yes",
            Has::No => "NO",
            Has::Unknown(_) => "unknown",
            Has::NotChecked => "-",
        };
        let used = if p.required || p.used_for.contains("optional") {
            p.used_for.to_string()
        } else {
            format!("{} (optional)", p.used_for)
        };
        lines.push(format!(
            "  {:<36} {:<27} {:<9} {used}",
            p.slug, p.resource, has
        ));
    }
    if checks.iter().any(|c| c.has == Has::NotChecked) {
        lines.push(
            "  (-: tieout makes no read of its own with it; Stripe checks it inside another read)"
                .to_string(),
        );
    }
    let missing: Vec<&Check> = checks.iter().filter(|c| c.has == Has::No).collect();
    for c in &missing {
        lines.push(format!(
            "  this key lacks {}: add Read on {} in the Dashboard, then run `tieout login` again",
            c.permission.slug, c.permission.resource
        ));
    }
    for c in checks {
        if let Has::Unknown(e) = &c.has {
            lines.push(format!("  {} could not be checked: {e}", c.permission.slug));
        }
    }
    lines
}
