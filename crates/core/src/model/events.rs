//! The incremental refresh's decisions, without IO: whether a refresh from Stripe's events
//! can replace a full sync ([`start`], or the [`FullReason`] it cannot), and, given the
//! events read since the cursor, what to do with each object they touch ([`plan`]): take
//! the object the event carries, read it again by id (when the snapshot keeps it with an
//! expansion an event never has, or another object's event changed it), or drop it.
//!
//! The rules:
//! - Only the newest event of an object counts: events come newest first and every change
//!   to an object makes one, so the newest one carries the object as it is now, and an
//!   older one (or the snapshot's copy) never overwrites it.
//! - An object whose rows need an expansion (invoices with their payments, payment
//!   intents with their latest charge, customers with their invoice default, subscriptions
//!   with their cards, fraud warnings with the charge's fee) is read again.
//! - An event may change another object than the one it carries (a dispute the charge's
//!   `disputed`, a refund the charge's `amount_refunded`, an invoice payment its
//!   invoice): that object is read again unless it has a newer event of its own.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use serde::{Deserialize, Serialize};

/// How long Stripe keeps events: 30 days. A cache last synced before that may have missed
/// some, so it is synced in full.
pub const EVENT_RETENTION_SECS: i64 = 30 * 86_400;

/// The restricted-key permission Stripe checks for `GET /v1/events`.
pub const EVENTS_PERMISSION: &str = "rak_event_read";

/// The newest event a snapshot has taken into account, recorded in the cache's manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventCursor {
    pub last_event_id: String,
    /// Unix seconds.
    pub last_event_created: i64,
}

/// Why a sync reads everything instead of refreshing from the events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FullReason {
    /// `--full` asked for it.
    Forced,
    /// The cache records no event cursor (none yet, written by an older tieout, or the
    /// last sync could not read the events).
    NoCursor,
    /// The last sync is older than Stripe's event retention.
    TooOld { age_secs: i64 },
    /// The key may not read the events (Stripe's 403 names this permission).
    PermissionMissing(String),
    /// The events read do not follow on from the cursor.
    Gap,
    /// The snapshot was read for another window (a new month began, `--months` changed)
    /// or a different set of resources.
    ScopeChanged,
}

impl fmt::Display for FullReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FullReason::Forced => write!(f, "--full asked for a full sync"),
            FullReason::NoCursor => write!(f, "the cache records no event cursor"),
            FullReason::TooOld { age_secs } => write!(
                f,
                "the last sync is {} days old, older than Stripe keeps events (30 days)",
                age_secs / 86_400
            ),
            FullReason::PermissionMissing(slug) => {
                write!(f, "the key may not read events (missing {slug})")
            }
            FullReason::Gap => write!(f, "the events read do not follow on from the last sync"),
            FullReason::ScopeChanged => write!(
                f,
                "the cache was read for another window or other resources"
            ),
        }
    }
}

/// Whether a refresh can run: the `created` instant to read events from (at or after:
/// the cursor's own second may hold events the last sync had not seen; the cursor event
/// itself is left out by id), or why not.
/// `last_sync` is the cache's `fetched_at`; `same_scope` whether this sync reads what the
/// cache's did (window, resources).
pub fn start(
    forced: bool,
    cursor: Option<&EventCursor>,
    last_sync: i64,
    now: i64,
    same_scope: bool,
) -> Result<i64, FullReason> {
    if forced {
        return Err(FullReason::Forced);
    }
    let Some(cursor) = cursor else {
        return Err(FullReason::NoCursor);
    };
    let age_secs = now - last_sync;
    if age_secs > EVENT_RETENTION_SECS {
        return Err(FullReason::TooOld { age_secs });
    }
    if !same_scope {
        return Err(FullReason::ScopeChanged);
    }
    Ok(cursor.last_event_created)
}

/// An object an event touched: its `object` name (`charge`) and id.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectKey {
    pub object: String,
    pub id: String,
}

impl ObjectKey {
    pub fn new(object: &str, id: &str) -> Self {
        Self {
            object: object.to_string(),
            id: id.to_string(),
        }
    }
}

/// One event as the planner sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRef {
    pub id: String,
    /// `charge.refunded`.
    pub kind: String,
    pub created: i64,
    /// The object it carries.
    pub object: ObjectKey,
    /// Other objects it changed (a dispute's charge, an invoice payment's invoice).
    pub also: Vec<ObjectKey>,
}

/// What to do with one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Take the object event `index` (into the events given to [`plan`]) carries.
    Apply(usize),
    /// Read it again by id, with the expansions a sync reads it with.
    Reread,
    /// It was deleted.
    Remove,
}

/// The objects whose rows need an expansion no event carries: always read again.
pub fn needs_expansion(object: &str) -> bool {
    matches!(
        object,
        "invoice"
            | "invoice_payment"
            | "payment_intent"
            | "customer"
            | "subscription"
            | "radar.early_fraud_warning"
    )
}

/// The steps for the objects `events` touched (events newest first, as Stripe lists
/// them), in a fixed order (by object and id), or [`FullReason::Gap`] when an event is
/// older than the cursor or the events are out of order.
pub fn plan(events: &[EventRef], since: i64) -> Result<Vec<(ObjectKey, Step)>, FullReason> {
    let mut newest: HashMap<&ObjectKey, (usize, i64)> = HashMap::new();
    let mut previous = i64::MAX;
    for (i, e) in events.iter().enumerate() {
        if e.created < since || e.created > previous {
            return Err(FullReason::Gap);
        }
        previous = e.created;
        newest.entry(&e.object).or_insert((i, e.created));
    }
    let mut steps: BTreeMap<ObjectKey, Step> = BTreeMap::new();
    for (key, (i, _)) in &newest {
        let e = &events[*i];
        let step = if e.kind.ends_with(".deleted") {
            Step::Remove
        } else if needs_expansion(&key.object) {
            Step::Reread
        } else {
            Step::Apply(*i)
        };
        steps.insert((*key).clone(), step);
    }
    for e in events {
        for other in &e.also {
            let own_newer = newest.get(other).is_some_and(|(_, t)| *t >= e.created);
            if !own_newer {
                steps.insert(other.clone(), Step::Reread);
            }
        }
    }
    // An invoice payment is kept with its invoice: read the invoice instead.
    Ok(steps
        .into_iter()
        .filter(|(k, _)| k.object != "invoice_payment")
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(id: &str, kind: &str, created: i64, object: (&str, &str)) -> EventRef {
        EventRef {
            id: id.into(),
            kind: kind.into(),
            created,
            object: ObjectKey::new(object.0, object.1),
            also: Vec::new(),
        }
    }

    #[test]
    fn start_says_why_a_full_sync_is_needed() {
        let c = EventCursor {
            last_event_id: "evt_1".into(),
            last_event_created: 100,
        };
        assert_eq!(start(true, Some(&c), 0, 10, true), Err(FullReason::Forced));
        assert_eq!(start(false, None, 0, 10, true), Err(FullReason::NoCursor));
        let old = start(false, Some(&c), 0, EVENT_RETENTION_SECS + 1, true);
        assert!(matches!(old, Err(FullReason::TooOld { .. })));
        assert_eq!(
            start(false, Some(&c), 0, 10, false),
            Err(FullReason::ScopeChanged)
        );
        assert_eq!(start(false, Some(&c), 0, 10, true), Ok(100));
        let text = FullReason::PermissionMissing(EVENTS_PERMISSION.into()).to_string();
        assert!(text.contains("rak_event_read"));
    }

    #[test]
    fn the_newest_event_of_an_object_wins_and_expanded_objects_are_read_again() {
        let mut refund = ev("evt_4", "refund.created", 40, ("refund", "re_1"));
        refund.also.push(ObjectKey::new("charge", "ch_2"));
        let events = vec![
            refund,
            ev("evt_3", "charge.refunded", 30, ("charge", "ch_1")),
            ev("evt_2", "invoice.paid", 20, ("invoice", "in_1")),
            ev("evt_1", "charge.succeeded", 10, ("charge", "ch_1")),
            ev("evt_0", "customer.deleted", 5, ("customer", "cus_1")),
        ];
        let steps = plan(&events, 1).expect("a plan");
        let get = |o: &str, id: &str| {
            steps
                .iter()
                .find(|(k, _)| *k == ObjectKey::new(o, id))
                .map(|(_, s)| s.clone())
        };
        assert_eq!(get("charge", "ch_1"), Some(Step::Apply(1)));
        assert_eq!(get("charge", "ch_2"), Some(Step::Reread));
        assert_eq!(get("invoice", "in_1"), Some(Step::Reread));
        assert_eq!(get("refund", "re_1"), Some(Step::Apply(0)));
        assert_eq!(get("customer", "cus_1"), Some(Step::Remove));
        assert_eq!(steps.len(), 5);
    }

    #[test]
    fn events_not_after_the_cursor_are_a_gap() {
        let events = vec![ev("evt_1", "charge.succeeded", 10, ("charge", "ch_1"))];
        assert_eq!(plan(&events, 11), Err(FullReason::Gap));
        assert!(plan(&events, 10).is_ok());
        let unordered = vec![
            ev("evt_1", "charge.succeeded", 10, ("charge", "ch_1")),
            ev("evt_2", "charge.succeeded", 20, ("charge", "ch_2")),
        ];
        assert_eq!(plan(&unordered, 0), Err(FullReason::Gap));
    }
}
