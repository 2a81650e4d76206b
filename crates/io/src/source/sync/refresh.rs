//! The incremental refresh (issue 39): after a complete sync, `tieout sync` reads Stripe's
//! events since the cache's cursor (`GET /v1/events?created[gte]=…`, one page per 100
//! events), applies each change to the cached snapshot ([`apply`]), reads the new balance
//! transactions and the balance, and saves the result as a new cache generation with the
//! newest event as the next cursor. The result is the snapshot a full sync of the same
//! moment writes.
//!
//! It falls back to a full sync, and the progress and the log say why
//! ([`FullReason`]), when `--full` asks, when the cache has no cursor (none yet, an older
//! tieout's, a key that could not read events), when the last sync is older than Stripe's
//! 30-day event retention, when this sync reads another window or other resources than
//! the cache's, when the key may not read events (`rak_event_read`, named as every other
//! missing permission) and when the events do not follow on from the cursor.
//!
//! What the last sync was refused (the renewal cards, the fraud warnings: recorded as
//! refused, not failed) is read again in full by a refresh, so a permission added since
//! shows at once, as after a full sync.
//!
//! A full sync made here records its cursor: the newest event before it read anything
//! (`GET /v1/events?limit=1`, one request; a key that may not read events records none).
//! A refresh keeps its answers in the sync journal like a full sync
//! ([`super::journal`], told apart by its cursor), so one interrupted part-way resumes
//! from the answers it had. Only GETs are sent; a connected account's refresh reads that
//! account's events (the client's `Stripe-Account`).

use serde::Deserialize;
use serde_json::Value;
use tieout_core::model::events::{
    self as ev, EVENTS_PERMISSION, EventCursor, EventRef, FullReason, ObjectKey,
};
use tieout_core::model::{MethodsRead, Parts};

use super::*;

mod apply;

/// Stripe's events list.
pub const EVENTS_PATH: &str = "/v1/events";

/// One event as Stripe lists it: what happened, when, and the object as it was then.
#[derive(Debug, Clone, Deserialize)]
pub(super) struct Event {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub created: i64,
    pub data: EventData,
}

#[derive(Debug, Clone, Deserialize)]
pub(super) struct EventData {
    pub object: Value,
}

impl HasId for Event {
    fn id(&self) -> &str {
        &self.id
    }
}

/// How a sync went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum How {
    /// Refreshed from `events` events, which changed `objects` objects.
    Refreshed { events: usize, objects: usize },
    /// Read in full, for this reason.
    Full(FullReason),
}

/// The newest event before a full sync reads anything: the cursor its snapshot records.
/// With no event yet, the sync's clock. `None` (logged) when the key may not read events
/// or the read failed: the next sync is then full again.
pub async fn events_head(client: &Client, now: i64) -> Option<EventCursor> {
    match client
        .get::<Value>(EVENTS_PATH, &params([("limit", "1")]))
        .await
    {
        Ok(page) => {
            let newest = page.get("data").and_then(|d| d.get(0));
            Some(match newest {
                Some(e) => EventCursor {
                    last_event_id: e
                        .get("id")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                    last_event_created: e.get("created").and_then(Value::as_i64).unwrap_or(now),
                },
                None => EventCursor {
                    last_event_id: String::new(),
                    last_event_created: now,
                },
            })
        }
        Err(e) => {
            let why = FullReason::PermissionMissing(
                e.missing_permission()
                    .unwrap_or(EVENTS_PERMISSION)
                    .to_string(),
            );
            if matches!(e, StripeError::MissingPermission { .. }) {
                tracing::info!(reason = %why, "no event cursor recorded: the next sync will be full");
            } else {
                tracing::warn!(error = %e, "the events could not be read: the next sync will be full");
            }
            None
        }
    }
}

/// Whether this sync reads what the cached snapshot holds: the same window, lines and
/// settled invoices, every resource.
fn same_scope(meta: &tieout_core::model::SnapshotMeta, opts: &SyncOptions) -> bool {
    opts.parts == Parts::all()
        && !opts.all_lines
        && meta.window_start == opts.window.0
        && meta.window_end == opts.window.1
        && meta.lines_since == opts.lines_since
        && meta.settled_invoices_since
            == opts
                .settled_invoices_since
                .map(|t| t.max(opts.charges_since))
}

/// The cached snapshot and its cursor when a refresh can start from them, else why not.
fn decide(
    cache: &Cache,
    account: &AccountIdent,
    mode: Mode,
    opts: &SyncOptions,
    full: bool,
) -> Result<(AccountData, EventCursor), FullReason> {
    let manifest = cache.read_manifest(&account.id, mode).ok().flatten();
    let cursor = manifest.as_ref().and_then(|m| m.events.clone());
    let last_sync = manifest.as_ref().map_or(0, |m| m.fetched_at);
    let previous = match (&cursor, full) {
        (Some(_), false) => cache
            .load(&account.id, mode)
            .ok()
            .and_then(|s| s.to_data().ok()),
        _ => None,
    };
    let same = previous.as_ref().is_some_and(|p| same_scope(&p.meta, opts));
    ev::start(full, cursor.as_ref(), last_sync, opts.now, same)?;

    match (previous, cursor) {
        (Some(p), Some(c)) => Ok((p, c)),
        _ => Err(FullReason::NoCursor),
    }
}

/// Why a refresh stopped.
enum Stop {
    Full(FullReason),
    Failed(StripeError),
}

impl From<StripeError> for Stop {
    fn from(e: StripeError) -> Self {
        Stop::Failed(e)
    }
}

/// The event as the planner sees it: the object it carries, and the others it changed.
fn event_ref(e: &Event) -> EventRef {
    let o = &e.data.object;
    let object = o.get("object").and_then(Value::as_str).unwrap_or_default();
    let id = o.get("id").and_then(Value::as_str).unwrap_or_default();
    let linked = |field: &str, kind: &str| {
        let v = o.get(field)?;
        let id = v.as_str().or_else(|| v.get("id").and_then(Value::as_str))?;
        Some(ObjectKey::new(kind, id))
    };
    let also = match object {
        "dispute" | "refund" => linked("charge", "charge").into_iter().collect(),
        "invoice_payment" => linked("invoice", "invoice").into_iter().collect(),
        _ => Vec::new(),
    };
    EventRef {
        id: e.id.clone(),
        kind: e.kind.clone(),
        created: e.created,
        object: ObjectKey::new(object, id),
        also,
    }
}

/// Reads the events since `cursor` and applies them to `previous`: the new snapshot and
/// its cursor, and how many events and objects.
async fn refresh(
    client: &Client,
    account: &AccountIdent,
    opts: &SyncOptions,
    previous: AccountData,
    cursor: &EventCursor,
    progress: &dyn Progress,
) -> Result<(AccountData, EventCursor, How), Stop> {
    let since = cursor.last_event_created;
    let listed = list_with::<Event>(
        client,
        EVENTS_PATH,
        params([("created[gte]", since.to_string())]),
        Part::Events,
        progress,
    )
    .await;
    let mut events = match listed {
        Ok(events) => events,
        Err(e @ StripeError::MissingPermission { .. }) => {
            let slug = e.missing_permission().unwrap_or(EVENTS_PERMISSION);
            return Err(Stop::Full(FullReason::PermissionMissing(slug.to_string())));
        }
        Err(e) => return Err(Stop::Failed(e)),
    };
    events.retain(|e| e.id != cursor.last_event_id);
    let refs: Vec<EventRef> = events.iter().map(event_ref).collect();
    let steps = ev::plan(&refs, since).map_err(Stop::Full)?;
    let how = How::Refreshed {
        events: events.len(),
        objects: steps.len(),
    };
    progress.event(SyncEvent::Refreshing {
        events: events.len(),
        objects: steps.len(),
    });
    let mut data = apply::apply(client, previous, &events, steps, opts, progress).await?;
    read_refused_again(client, &mut data, opts, progress).await?;
    data.meta.origin = Origin::Live;
    data.meta.fetched_at = opts.now;
    data.meta.account_name = account.name.clone();
    data.meta.default_currency = account.default_currency;
    data.meta.api_version = crate::stripe::API_VERSION.to_string();
    let next = events.first().map_or_else(
        || cursor.clone(),
        |e| EventCursor {
            last_event_id: e.id.clone(),
            last_event_created: e.created,
        },
    );
    Ok((data, next, how))
}

/// The optional reads the last sync was refused (or did not make), read again in full as
/// a full sync reads them: a permission granted since is used at once.
async fn read_refused_again(
    client: &Client,
    data: &mut AccountData,
    opts: &SyncOptions,
    progress: &dyn Progress,
) -> Result<(), StripeError> {
    let mut failed = Vec::new();
    if data.meta.payment_methods != MethodsRead::Read {
        let read = cards::fetch(client, true, progress).await;
        let (rows, how) = cards::methods_read(read, &mut failed);
        data.renewal_methods = rows;
        data.meta.payment_methods = how;
    }
    if data.meta.fraud_warnings != MethodsRead::Read {
        let read = fraud::fetch(client, true, opts.charges_since, progress).await;
        let (rows, how) = fraud::warnings_read(read, &mut failed);
        data.fraud_warnings = rows;
        data.meta.fraud_warnings = how;
    }
    match failed.pop() {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}

/// A refresh of `account`'s cache from the events, saved as a new cache generation
/// with its cursor: what it read, where it saved and how many events and objects; or why
/// a full sync is needed instead (`full`, or any [`FullReason`]). A journal keeps its
/// answers until it is saved, so an interrupted refresh resumes.
pub(super) async fn refresh_and_save(
    client: &Client,
    cache: &Cache,
    account: &AccountIdent,
    opts: &SyncOptions,
    profile: &str,
    full: bool,
    progress: &dyn Progress,
) -> Result<Result<(AccountData, Saved, How), FullReason>, SyncError> {
    let mode = client.key().mode();
    let (previous, cursor) = match decide(cache, account, mode, opts, full) {
        Ok(found) => found,
        Err(reason) => return Ok(Err(reason)),
    };
    let tag = format!(" refresh from {}", cursor.last_event_id);
    let journal = journal::DiskJournal::open_for(cache, &account.id, mode, opts, &tag)
        .map_err(|e| tracing::warn!(error = %e, "no journal: an interrupted refresh starts again"))
        .ok();
    if let Some(j) = journal.as_ref().filter(|j| j.resumed() > 0) {
        progress.event(SyncEvent::Resumed { pages: j.resumed() });
    }
    let reader = match &journal {
        Some(j) => client.with_journal(j.clone()),
        None => client.clone(),
    };
    let work = refresh(&reader, account, opts, previous, &cursor, progress);
    let outcome = match with_pace(client, progress, work).await {
        Ok((data, next, how)) => {
            let saved =
                save_snapshot(cache, profile, &data, opts.now, Some(next)).map_err(|e| *e)?;
            Ok((data, saved, how))
        }
        Err(Stop::Failed(e)) => return Err(e.into()),
        Err(Stop::Full(reason)) => Err(reason),
    };
    if let Some(j) = &journal {
        j.finish();
    }
    Ok(outcome)
}

/// `tieout sync`: an incremental refresh from the events when the cache allows one (see
/// the module docs), else (`full`, or any [`FullReason`]) a full sync, which says why
/// in the progress and the log. Either way the new snapshot is saved as a new cache
/// generation, atomically, and `profile` points at it.
pub async fn sync_incremental(
    client: &Client,
    stripe_account: Option<&str>,
    opts: &SyncOptions,
    cache: &Cache,
    profile: &str,
    full: bool,
    progress: &dyn Progress,
) -> Result<(SyncReport, How), SyncError> {
    let before = client.stats();
    let account = identify(client, stripe_account).await?;
    progress.event(SyncEvent::Listed {
        part: Part::Account,
        count: 1,
    });
    let reason =
        match refresh_and_save(client, cache, &account, opts, profile, full, progress).await? {
            Ok((data, saved, how)) => {
                let report = SyncReport {
                    data,
                    saved,
                    stats: stats_since(&before, &client.stats()),
                    reused_payouts: 0,
                    reused_lines: 0,
                    previous_problem: None,
                };
                return Ok((report, how));
            }
            Err(reason) => reason,
        };
    tracing::info!(reason = %reason, "full sync");
    progress.event(SyncEvent::FullSync {
        reason: reason.to_string(),
    });
    // The cursor is the newest event before anything is read, so no change is missed.
    let cursor = if opts.parts == Parts::all() {
        events_head(client, opts.now).await
    } else {
        None
    };
    let start = Start { before, cursor };
    let report = sync_as(client, &account, opts, cache, profile, progress, start).await?;
    Ok((report, How::Full(reason)))
}

/// How a command's fresh read went ([`read_fresh_refreshing`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FreshHow {
    /// Refreshed from `events` events, which changed `objects` objects; the cache saved.
    Refreshed { events: usize, objects: usize },
    /// The command's own part read, for this reason (said in the progress).
    Own(String),
}

/// A command's fresh read that follows the events when it can (the morning `tieout
/// dunning`): after a complete sync of the account (the key's, or `stripe_account`) into
/// `cache`, the refresh `tieout sync` runs, over `sync_opts` (what `tieout sync` reads:
/// the cache's scope), saved as a new cache generation as a sync saves it; its snapshot
/// is the answer. Otherwise (no cache, no cursor, too old, another window, the key may
/// not read events, a gap: the words `tieout sync` prints), or when the refresh needs a
/// permission the key lacks (the balance, say, which the command may not need) or its
/// snapshot cannot be saved, the progress says why and only `own` (the command's part)
/// is read, as [`super::read_fresh`] reads it; nothing is saved then. Any other failure
/// of the refresh (Stripe or the network) fails the read, the cache untouched.
pub async fn read_fresh_refreshing(
    client: &Client,
    stripe_account: Option<&str>,
    (sync_opts, own): (&SyncOptions, &SyncOptions),
    cache: Option<&Cache>,
    profile: &str,
    progress: &dyn Progress,
) -> Result<(AccountData, FreshHow), SyncError> {
    let account = identify(client, stripe_account).await?;
    let reason = match cache {
        Some(cache) => {
            match refresh_and_save(client, cache, &account, sync_opts, profile, false, progress)
                .await
            {
                Ok(Ok((data, _, How::Refreshed { events, objects }))) => {
                    return Ok((data, FreshHow::Refreshed { events, objects }));
                }
                Ok(Ok((_, _, How::Full(reason)))) | Ok(Err(reason)) => reason.to_string(),
                Err(SyncError::Stripe(e @ StripeError::MissingPermission { .. })) => {
                    let slug = e.missing_permission().unwrap_or("a read permission");
                    tracing::warn!(error = %e, "the refresh was refused: reading the command's part");
                    format!("the key may not read all a refresh reads (missing {slug})")
                }
                Err(e @ SyncError::Stripe(_)) => return Err(e),
                Err(e) => {
                    tracing::warn!(error = %e, "the refresh could not be saved: reading the command's part");
                    format!("the refresh could not be saved ({e})")
                }
            }
        }
        None => FullReason::NoCursor.to_string(),
    };
    tracing::info!(%reason, "fresh read of the command's part");
    progress.event(SyncEvent::FullSync {
        reason: reason.clone(),
    });
    let fetched = read_fresh_for(client, &account, own, cache, progress).await?;
    Ok((fetched.data, FreshHow::Own(reason)))
}

/// Saves `data` as the account's new cache generation with its event cursor and points
/// `profile` at it.
pub(super) fn save_snapshot(
    cache: &Cache,
    profile: &str,
    data: &AccountData,
    now: i64,
    cursor: Option<EventCursor>,
) -> Result<Saved, Box<SyncError>> {
    let snapshot = Snapshot::from_data(data).map_err(|e| Box::new(e.into()))?;
    let saved = cache
        .save_at(&snapshot, cursor)
        .map_err(|e| Box::new(e.into()))?;
    cache
        .set_last_used(
            profile,
            &ProfilePointer {
                account_id: data.meta.account_id.clone(),
                mode: data.meta.mode,
                updated_at: now,
            },
        )
        .map_err(|e| Box::new(e.into()))?;
    Ok(saved)
}
