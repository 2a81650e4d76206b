//! The workbench's fresh read, resource by resource (`source::sync::partial`): what the
//! key could read comes back fresh, and each resource it could not read is a [`Gap`]
//! saying why in the words a pane shows ("this key lacks rak_dispute_read: add Read on
//! Disputes in the Dashboard, then run `tieout login` again"). Only the panes and
//! columns that need a missing resource are marked; the others show fresh data. A
//! resource that failed (not one the key lacks) can be read again alone
//! ([`read_again`]) and merged into the data on screen ([`merge_again`]).

use jiff::tz::TimeZone;

use super::load::Need;
use crate::model::rows::StripeId;
use crate::model::{AccountData, AccountIdent, Parts, Resource, SnapshotMeta};
use crate::source::cache::Cache;
use crate::source::progress::Progress;
use crate::source::sync::partial::{self, Unread};
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

impl Gap {
    pub fn of(u: &Unread) -> Self {
        let problem = match u.error.as_ref() {
            StripeError::MissingPermission { permission, .. } => {
                // The resource's own permission and row when Stripe named no known one.
                let r = u.resource;
                let (slug, row) = match permission.as_deref() {
                    Some(p) => (p, resource_of(p).unwrap_or(r.dashboard_row())),
                    None => (r.permission(), r.dashboard_row()),
                };
                Problem::Lacks {
                    permission: slug.to_string(),
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

    /// Whether `r` (a retry of this resource alone) may help: it failed after retries or
    /// could not be understood, unlike a missing permission, which needs the key changed.
    pub fn retryable(&self) -> bool {
        matches!(self.problem, Problem::Failed(_))
    }

    /// Why, in a few words (`this key lacks rak_payout_read`, or the error).
    pub fn reason(&self) -> String {
        match &self.problem {
            Problem::Lacks { permission, .. } => format!("this key lacks {permission}"),
            Problem::Failed(e) => e.clone(),
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
/// resource by resource.
pub fn read(
    client: &Client,
    stripe_account: Option<&str>,
    (now, tz): (i64, &TimeZone),
    cache: Option<&Cache>,
    profile: &str,
    progress: &dyn Progress,
) -> Result<PaneData, String> {
    let opts = Need::All.options(now, tz);
    let read = crate::source::sync::block_on(partial::read_each(
        client,
        stripe_account,
        &opts,
        cache,
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

/// The account `meta` was read from, as a read names it (no `GET /v1/account` again).
pub fn account_of(meta: &SnapshotMeta) -> AccountIdent {
    AccountIdent::of(meta)
}

/// Reads again only `parts` (a pane's retry of the resources that failed) of the account
/// on screen: nothing else is read, nor the cache saved (it is not a whole account).
/// Merge the answer into the data on screen with [`merge_again`].
pub fn read_again(
    client: &Client,
    account: &AccountIdent,
    (now, tz): (i64, &TimeZone),
    parts: Parts,
    progress: &dyn Progress,
) -> Result<PaneData, String> {
    let mut opts = Need::All.options(now, tz);
    opts.parts = parts;
    let read = crate::source::sync::block_on(partial::read_again(client, account, &opts, progress))
        .map_err(|e| format!("could not start the network runtime: {e}"))?;
    Ok(PaneData {
        data: read.fetched.data,
        gaps: read.unread.iter().map(Gap::of).collect(),
    })
}

/// `shown` (the data on screen, with its `gaps`) after a retry of `retried` answered
/// `again`: each retried resource that was read now has its fresh tables (and its gap
/// goes); one that failed again keeps what was shown, with the new error. The other
/// resources are `shown`'s, untouched. Charges are merged by id (the invoices' read
/// brings the failed charges behind the worklist too), the retry's copy winning.
pub fn merge_again(shown: &AccountData, gaps: &[Gap], again: PaneData, retried: Parts) -> PaneData {
    let PaneData {
        data: mut fresh,
        gaps: failed,
    } = again;
    let mut data = shown.clone();
    let mut out: Vec<Gap> = gaps
        .iter()
        .filter(|g| !retried.has(g.resource))
        .cloned()
        .collect();
    for r in retried.resources() {
        if let Some(g) = failed.iter().find(|g| g.resource == r) {
            let stale = gaps.iter().any(|old| old.resource == r && old.stale);
            out.push(Gap { stale, ..g.clone() });
            continue;
        }
        for t in r.tables() {
            data.take_table(*t, &mut fresh);
        }
        if r == Resource::Payouts {
            data.meta.window_start = fresh.meta.window_start;
            data.meta.window_end = fresh.meta.window_end;
        }
        if r == Resource::PaymentMethods {
            // Whether the cards were read (or refused) is the retry's answer now.
            data.meta.payment_methods = fresh.meta.payment_methods.clone();
        }
    }
    let mut charges = std::mem::take(&mut fresh.charges);
    let ids: std::collections::HashSet<StripeId> = charges.iter().map(|c| c.id.clone()).collect();
    charges.extend(data.charges.drain(..).filter(|c| !ids.contains(&c.id)));
    data.charges = charges;
    out.sort_by_key(|g| g.resource);
    PaneData { data, gaps: out }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::rows::ChargeRow;
    use crate::source::testdata::random_data;

    fn failed(r: Resource, stale: bool) -> Gap {
        Gap {
            resource: r,
            problem: Problem::Failed(format!("{} answered 503", r.label())),
            stale,
        }
    }

    fn charge(id: &str, amount: i64) -> ChargeRow {
        let mut c = random_data(1, 3).charges.remove(0);
        c.id = id.into();
        c.amount = amount;
        c
    }

    #[test]
    fn a_retry_replaces_only_the_resources_it_read_and_keeps_the_gap_of_one_failing_again() {
        let mut shown = random_data(7, 20);
        shown.charges = vec![charge("ch_old", 1), charge("ch_both", 2)];
        let gaps = vec![
            failed(Resource::Payouts, false),
            failed(Resource::Charges, true),
            failed(Resource::Disputes, false),
        ];
        let mut fresh = AccountData::empty(shown.meta.clone());
        fresh.payouts = random_data(8, 20).payouts;
        fresh.meta.window_start = 10;
        fresh.meta.window_end = 20;
        fresh.charges = vec![charge("ch_both", 3), charge("ch_new", 4)];
        let again = PaneData {
            data: fresh.clone(),
            gaps: vec![Gap {
                resource: Resource::Charges,
                problem: Problem::Failed("charges answered 500".into()),
                stale: false,
            }],
        };
        let retried = Parts::of([Resource::Payouts, Resource::Charges]);
        let merged = merge_again(&shown, &gaps, again, retried);
        assert_eq!(merged.data.payouts, fresh.payouts);
        assert_eq!(
            (merged.data.meta.window_start, merged.data.meta.window_end),
            (10, 20)
        );
        // Not retried: untouched.
        assert_eq!(merged.data.invoices, shown.invoices);
        assert_eq!(merged.data.disputes, shown.disputes);
        // Charges by id, the retry's copy winning, the others kept.
        let charges: Vec<(&str, i64)> = merged
            .data
            .charges
            .iter()
            .map(|c| (c.id.as_str(), c.amount))
            .collect();
        assert_eq!(charges, vec![("ch_both", 3), ("ch_new", 4), ("ch_old", 1)]);
        // Payouts were read: their gap is gone. Charges failed again: the new error, still
        // over the older copy. Disputes were not retried: as they were.
        assert_eq!(
            merged.gaps,
            vec![
                Gap {
                    resource: Resource::Charges,
                    problem: Problem::Failed("charges answered 500".into()),
                    stale: true,
                },
                failed(Resource::Disputes, false),
            ]
        );
        assert!(merged.gaps.iter().all(Gap::retryable));
        let lacks = Gap {
            resource: Resource::Disputes,
            problem: Problem::Lacks {
                permission: "rak_dispute_read".into(),
                row: "Disputes".into(),
            },
            stale: false,
        };
        assert!(!lacks.retryable());
        assert_eq!(lacks.reason(), "this key lacks rak_dispute_read");
    }
}
