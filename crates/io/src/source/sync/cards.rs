//! The card read of the expiring-cards check: `GET /v1/subscriptions?status=active` with
//! `expand[]=data.default_payment_method` and
//! `expand[]=data.customer.invoice_settings.default_payment_method` (four levels, the most
//! Stripe allows), so each active subscription's own default, its customer's invoice
//! default and their cards come in the list's own pages: `ceil(A/100)` requests for `A`
//! active subscriptions. A key without a permission this needs (Stripe's 403 names it,
//! usually `rak_payment_method_read`) does not fail the read: the snapshot records the
//! refusal ([`MethodsRead::Refused`]) and everything else is read as before.

use tieout_core::model::rows::RenewalMethodRow;
use tieout_core::model::{MethodsRead, Resource};

use super::{Part, Progress, list_with};
use crate::stripe::models::Subscription;
use crate::stripe::query::params;
use crate::stripe::{Client, StripeError};

/// The active subscriptions with their payment methods expanded, when `wanted`.
pub(super) async fn fetch(
    client: &Client,
    wanted: bool,
    progress: &dyn Progress,
) -> Result<Option<Vec<Subscription>>, StripeError> {
    if !wanted {
        return Ok(None);
    }
    let query = params([
        ("status", "active"),
        ("expand[]", "data.default_payment_method"),
        (
            "expand[]",
            "data.customer.invoice_settings.default_payment_method",
        ),
    ]);
    list_with::<Subscription>(
        client,
        Resource::PaymentMethods.list_path(),
        query,
        Part::RenewalMethods,
        progress,
    )
    .await
    .map(Some)
}

/// The rows the card read gives, and what the snapshot says of it: a refusal (a 403
/// naming a permission) is recorded, not failed; another failure is noted like any
/// resource's.
pub(super) fn methods_read(
    read: Result<Option<Vec<Subscription>>, StripeError>,
    failed: &mut Vec<(Resource, StripeError)>,
) -> (Vec<RenewalMethodRow>, MethodsRead) {
    match read {
        Ok(Some(subs)) => (
            subs.iter().map(RenewalMethodRow::from).collect(),
            MethodsRead::Read,
        ),
        Ok(None) => (Vec::new(), MethodsRead::NotRead),
        Err(StripeError::MissingPermission { permission, .. }) => {
            let permission = permission
                .unwrap_or_else(|| tieout_core::report::expiring_cards::PERMISSION.to_string());
            tracing::info!(%permission, "the key may not read subscriptions' payment methods");
            (Vec::new(), MethodsRead::Refused { permission })
        }
        Err(e) => {
            failed.push((Resource::PaymentMethods, e));
            (Vec::new(), MethodsRead::NotRead)
        }
    }
}
