//! A read that keeps what it could read: each [`Resource`] (payouts with their lines,
//! invoices with their payments and intents, customers, charges, refunds, disputes,
//! subscriptions, the payment methods active subscriptions renew with; declared in the
//! core crate's `model::resource`) is read on its own, and one that cannot be read (a
//! restricted key without its permission, a failure after retries) leaves its tables
//! empty and is reported instead of failing the rest. The workbench shows each pane from the
//! resources it needs and marks only those that miss one. After a complete sync the
//! read is an incremental refresh from Stripe's events ([`super::refresh`]), as
//! `tieout sync` makes, and a full read records the event cursor for the next one.

use std::sync::Arc;

use tieout_core::model::{AccountData, AccountIdent, Resource};

use super::{Fetched, RequestStats, SyncOptions, fetch_each, identify, stats_since};
use crate::source::cache::Cache;
use crate::source::progress::Progress;
use crate::stripe::{Client, StripeError};

/// A resource that could not be read, and why.
#[derive(Debug, Clone)]
pub struct Unread {
    pub resource: Resource,
    pub error: Arc<StripeError>,
}

/// What [`read_each`] read.
#[derive(Debug, Clone)]
pub struct PartialRead {
    pub fetched: Fetched,
    /// In [`Resource::ALL`] order; empty when everything was read.
    pub unread: Vec<Unread>,
    /// Whether the read was complete and saved as the profile's cache.
    pub saved: bool,
    pub stats: RequestStats,
}

/// Identifies the account, then reads what `opts` asks for resource by resource (see
/// the module docs). Settled payouts' lines come from the cache of this account, as in
/// a sync; a complete read is saved as the new cache generation (as `tieout sync`
/// would), an incomplete one is not, so the cache keeps the older complete data. Only
/// a key Stripe refuses outright, or the account read, fails the whole read.
pub async fn read_each(
    client: &Client,
    stripe_account: Option<&str>,
    opts: &SyncOptions,
    cache: Option<&Cache>,
    profile: &str,
    progress: &dyn Progress,
) -> Result<PartialRead, StripeError> {
    let before = client.stats();
    let account: AccountIdent = identify(client, stripe_account).await?;
    let mode = client.key().mode();
    // After a complete sync, a refresh from the events, as `tieout sync` makes; whatever
    // stops it (a full sync needed, a failure) leaves the read below to do the work.
    if let Some(cache) = cache {
        let refreshed = super::refresh::refresh_and_save(
            client, cache, &account, opts, profile, false, progress,
        );
        match refreshed.await {
            Ok(Ok((data, _, how))) => {
                tracing::info!(?how, "refreshed from the events");
                return Ok(PartialRead {
                    fetched: Fetched {
                        data,
                        reused_payouts: 0,
                        reused_lines: 0,
                    },
                    unread: Vec::new(),
                    saved: true,
                    stats: stats_since(&before, &client.stats()),
                });
            }
            Ok(Err(reason)) => tracing::info!(reason = %reason, "full read"),
            Err(e) => tracing::warn!(error = %e, "the refresh failed: reading everything"),
        }
    }
    let cursor = match cache {
        Some(_) if opts.parts == tieout_core::model::Parts::all() => {
            super::refresh::events_head(client, opts.now).await
        }
        _ => None,
    };
    let previous: Option<AccountData> = cache
        .and_then(|c| c.load(&account.id, mode).ok())
        .and_then(|s| s.to_data().ok());
    let (fetched, failed) = fetch_each(client, &account, opts, previous.as_ref(), progress).await;
    let unread = unread_of(failed);
    let saved = match cache {
        Some(cache) if unread.is_empty() => save(cache, &fetched.data, profile, opts.now, cursor),
        _ => false,
    };
    Ok(PartialRead {
        fetched,
        unread,
        saved,
        stats: stats_since(&before, &client.stats()),
    })
}

/// Reads again only the resources `opts.parts` names, for the account already identified
/// (no `GET /v1/account`), without the cache: a retry of what an earlier [`read_each`]
/// could not read. Its tables for the other resources stay empty, and it is never saved.
pub async fn read_again(
    client: &Client,
    account: &AccountIdent,
    opts: &SyncOptions,
    progress: &dyn Progress,
) -> PartialRead {
    let before = client.stats();
    let (fetched, failed) = fetch_each(client, account, opts, None, progress).await;
    PartialRead {
        fetched,
        unread: unread_of(failed),
        saved: false,
        stats: stats_since(&before, &client.stats()),
    }
}

fn unread_of(failed: Vec<(Resource, StripeError)>) -> Vec<Unread> {
    failed
        .into_iter()
        .map(|(resource, error)| Unread {
            resource,
            error: Arc::new(error),
        })
        .collect()
}

/// Saves a complete read as the profile's cache; a failure to save is logged, not fatal
/// (the data is on screen; the next refresh saves again).
fn save(
    cache: &Cache,
    data: &AccountData,
    profile: &str,
    now: i64,
    cursor: Option<tieout_core::model::events::EventCursor>,
) -> bool {
    match super::refresh::save_snapshot(cache, profile, data, now, cursor) {
        Ok(_) => true,
        Err(e) => {
            tracing::warn!(error = %e, "the fresh read could not be saved as the cache");
            false
        }
    }
}
