//! The early fraud warnings: `GET /v1/radar/early_fraud_warnings?created[gte]=…` from the
//! charges' start (a warning comes after its charge, so the charges read hold each
//! warning's charge) with `expand[]=data.charge.balance_transaction` for the fee Stripe
//! kept on it (three levels), `ceil(W/100)` requests for `W` warnings. A key without
//! Radar's read (Stripe's 403 names the permission) does not fail the read: the snapshot
//! records the refusal ([`MethodsRead::Refused`]) and everything else is read as before.

use tieout_core::model::rows::FraudWarningRow;
use tieout_core::model::{MethodsRead, Resource};

use super::{Part, Progress, list_with};
use crate::stripe::models::EarlyFraudWarning;
use crate::stripe::query::params;
use crate::stripe::{Client, StripeError};

/// The warnings created at or after `since`, when `wanted`.
pub(super) async fn fetch(
    client: &Client,
    wanted: bool,
    since: i64,
    progress: &dyn Progress,
) -> Result<Option<Vec<EarlyFraudWarning>>, StripeError> {
    if !wanted {
        return Ok(None);
    }
    list_with::<EarlyFraudWarning>(
        client,
        Resource::FraudWarnings.list_path(),
        params([
            ("created[gte]", since.to_string()),
            ("expand[]", "data.charge.balance_transaction".to_string()),
        ]),
        Part::FraudWarnings,
        progress,
    )
    .await
    .map(Some)
}

/// The rows the read gives, and what the snapshot says of it: a refusal (a 403 naming a
/// permission) is recorded, not failed; another failure is noted like any resource's.
pub(super) fn warnings_read(
    read: Result<Option<Vec<EarlyFraudWarning>>, StripeError>,
    failed: &mut Vec<(Resource, StripeError)>,
) -> (Vec<FraudWarningRow>, MethodsRead) {
    match read {
        Ok(Some(ws)) => (
            ws.iter().map(FraudWarningRow::from).collect(),
            MethodsRead::Read,
        ),
        Ok(None) => (Vec::new(), MethodsRead::NotRead),
        Err(StripeError::MissingPermission { permission, .. }) => {
            let permission =
                permission.unwrap_or_else(|| Resource::FraudWarnings.permission().to_string());
            tracing::info!(%permission, "the key may not read early fraud warnings");
            (Vec::new(), MethodsRead::Refused { permission })
        }
        Err(e) => {
            failed.push((Resource::FraudWarnings, e));
            (Vec::new(), MethodsRead::NotRead)
        }
    }
}
