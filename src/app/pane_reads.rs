//! The workbench's fresh read, resource by resource (`source::sync::partial`): what the
//! key could read comes back fresh, and each resource it could not read is a [`Gap`]
//! saying why in the words a pane shows ("this key lacks rak_dispute_read: add Read on
//! Disputes in the Dashboard, then run `tieout login` again"). Only the panes and
//! columns that need a missing resource are marked; the others show fresh data.

use jiff::tz::TimeZone;

use super::load::Need;
use crate::source::AccountData;
use crate::source::cache::Cache;
use crate::source::progress::Progress;
use crate::source::sync::partial::{self, Resource, Unread};
use crate::stripe::permissions::resource_of;
use crate::stripe::{Client, StripeError};

/// A resource the fresh read could not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gap {
    pub resource: Resource,
    pub problem: Problem,
    /// Its tables are an older copy (the cache shown before), not empty.
    pub stale: bool,
}

/// Why a resource could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// Stripe answered 403: the key lacks `permission` (the Dashboard row `row`).
    Lacks { permission: String, row: String },
    /// It failed after retries, or its answer could not be understood.
    Failed(String),
}

/// The Dashboard row of a resource, when Stripe's refusal named no known permission.
fn row_of(r: Resource) -> (&'static str, &'static str) {
    match r {
        Resource::Payouts => ("rak_payout_read", "Payouts"),
        Resource::Invoices => ("rak_invoice_read", "Invoices"),
        Resource::Customers => ("rak_customer_read", "Customers"),
        Resource::Charges | Resource::Refunds => ("rak_charge_read", "Charges"),
        Resource::Disputes => ("rak_dispute_read", "Disputes"),
        Resource::Subscriptions => ("rak_subscription_read", "Subscriptions"),
        Resource::PaymentMethods => ("rak_payment_method_read", "PaymentMethods"),
    }
}

impl Gap {
    pub fn of(u: &Unread) -> Self {
        let problem = match u.error.as_ref() {
            StripeError::MissingPermission { permission, .. } => {
                let (slug, row) = match permission.as_deref() {
                    Some(p) => (
                        p.to_string(),
                        resource_of(p).unwrap_or(row_of(u.resource).1),
                    ),
                    None => (row_of(u.resource).0.to_string(), row_of(u.resource).1),
                };
                Problem::Lacks {
                    permission: slug,
                    row: row.to_string(),
                }
            }
            other => Problem::Failed(other.to_string()),
        };
        Gap {
            resource: u.resource,
            problem,
            stale: false,
        }
    }

    /// What the marked pane says.
    pub fn message(&self) -> String {
        let what = match &self.problem {
            Problem::Lacks { permission, row } => format!(
                "this key lacks {permission}: add Read on {row} in the Dashboard, then run `tieout login` again"
            ),
            Problem::Failed(e) => format!("{} could not be read: {e}", self.resource.label()),
        };
        if self.stale {
            format!(
                "{what} (showing the {} of the last sync)",
                self.resource.label()
            )
        } else {
            what
        }
    }
}

/// What the workbench's fresh read got.
#[derive(Debug, Clone)]
pub struct PaneData {
    pub data: AccountData,
    /// In `Resource::ALL` order; empty when everything was read.
    pub gaps: Vec<Gap>,
}

/// Reads everything the panes show (as `tieout sync`, saved as the cache when complete),
/// resource by resource. `only`: just these resources (a pane's retry); the others are
/// not read and stay empty.
pub fn read(
    client: &Client,
    stripe_account: Option<&str>,
    (now, tz): (i64, &TimeZone),
    cache: Option<&Cache>,
    profile: &str,
    only: Option<&[Resource]>,
    progress: &dyn Progress,
) -> Result<PaneData, String> {
    let mut opts = Need::All.options(now, tz);
    if let Some(only) = only {
        let p = &mut opts.parts;
        p.payouts = only.contains(&Resource::Payouts);
        p.invoices = only.contains(&Resource::Invoices);
        p.customers = only.contains(&Resource::Customers);
        p.charges = only.contains(&Resource::Charges);
        p.refunds = only.contains(&Resource::Refunds);
        p.disputes = only.contains(&Resource::Disputes);
        p.subscriptions = only.contains(&Resource::Subscriptions);
        p.payment_methods = only.contains(&Resource::PaymentMethods);
    }
    // A retry of some resources is not a whole account: never saved as the cache.
    let cache_to_save = if only.is_some() { None } else { cache };
    let read = crate::source::sync::block_on(partial::read_each(
        client,
        stripe_account,
        &opts,
        cache_to_save,
        profile,
        progress,
    ))
    .map_err(|e| format!("could not start the network runtime: {e}"))?
    .map_err(|e| e.to_string())?;
    Ok(PaneData {
        data: read.fetched.data,
        gaps: read.unread.iter().map(Gap::of).collect(),
    })
}
