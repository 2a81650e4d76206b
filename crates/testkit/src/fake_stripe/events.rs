//! The fake's events: a change log kept beside the store ([`EventLog`]), each change an
//! event carrying the object as it was then (Stripe's `event` shape: `id`, `type`,
//! `created`, `data.object`), served by `GET /v1/events` (newest first; `created`,
//! `type` with a trailing `*`, `types[]`, `limit`, `starting_after`, `ending_before`) and
//! `GET /v1/events/{id}`. Events older than Stripe's 30-day retention, counted back from
//! the log's clock, are not served; the gate refuses both to a key without
//! `rak_event_read`, like every other read.

use serde_json::{Value, json};

use super::errors::ApiErr;
use super::params::Params;

/// How long Stripe keeps events (seconds).
pub const RETENTION_SECS: i64 = 30 * 86_400;

/// The events, oldest first, and the clock retention counts from.
#[derive(Debug, Clone, Default)]
pub struct EventLog {
    events: Vec<Value>,
    /// "Now" for the retention; `None`: the newest event's time.
    pub clock: Option<i64>,
}

fn created(v: &Value) -> i64 {
    v.get("created").and_then(Value::as_i64).unwrap_or_default()
}

fn id(v: &Value) -> &str {
    v.get("id").and_then(Value::as_str).unwrap_or_default()
}

impl EventLog {
    /// Appends an event of `kind` carrying `object` at `created`; returns its id.
    pub fn push(&mut self, kind: &str, object: Value, created: i64) -> String {
        let id = format!("evt_1Fake{:019}", self.events.len() + 1);
        self.events.push(json!({
            "id": id,
            "object": "event",
            "api_version": "2026-07-29.dahlia",
            "created": created,
            "data": {"object": object},
            "livemode": false,
            "pending_webhooks": 0,
            "request": {"id": null, "idempotency_key": null},
            "type": kind,
        }));
        id
    }

    /// Every event, oldest first (served or not).
    pub fn all(&self) -> &[Value] {
        &self.events
    }

    /// Forgets every event (a log that starts again, as after a gap).
    pub fn clear(&mut self) {
        self.events.clear();
    }

    /// The served events, newest first (created, then order of arrival).
    fn served(&self) -> Vec<&Value> {
        let now = self
            .clock
            .or_else(|| self.events.iter().map(created).max())
            .unwrap_or_default();
        let mut out: Vec<(usize, &Value)> = self
            .events
            .iter()
            .enumerate()
            .filter(|(_, e)| created(e) >= now - RETENTION_SECS)
            .collect();
        out.sort_by_key(|(i, e)| std::cmp::Reverse((created(e), *i)));
        out.into_iter().map(|(_, e)| e).collect()
    }

    /// `GET /v1/events`.
    pub fn list(&self, p: &Params) -> Result<Value, ApiErr> {
        let limit = p.limit()?;
        let range = p.range("created")?;
        let mut types: Vec<&str> = p.all("types[]");
        if let Some(t) = p.get("type") {
            types.push(t);
        }
        let type_ok = |e: &Value| {
            let kind = e.get("type").and_then(Value::as_str).unwrap_or_default();
            types.is_empty()
                || types.iter().any(|t| match t.strip_suffix('*') {
                    Some(prefix) => kind.starts_with(prefix),
                    None => kind == *t,
                })
        };
        let served = self.served();
        let position = |param: &str| -> Result<Option<usize>, ApiErr> {
            match p.get(param) {
                None | Some("") => Ok(None),
                Some(cursor) => served
                    .iter()
                    .position(|e| id(e) == cursor)
                    .map(Some)
                    .ok_or_else(|| {
                        ApiErr::invalid(format!("No such event: '{cursor}'"))
                            .code("resource_missing")
                            .param(param)
                    }),
            }
        };
        let after = position("starting_after")?;
        let before = position("ending_before")?;
        let matching: Vec<&Value> = served
            .iter()
            .enumerate()
            .filter(|(i, _)| after.is_none_or(|a| *i > a) && before.is_none_or(|b| *i < b))
            .map(|(_, e)| *e)
            .filter(|e| range.is_none_or(|r| r.contains(created(e))) && type_ok(e))
            .collect();
        let (page, has_more): (Vec<Value>, bool) = if before.is_some() && after.is_none() {
            let skip = matching.len().saturating_sub(limit);
            (
                matching[skip..].iter().map(|e| (*e).clone()).collect(),
                skip > 0,
            )
        } else {
            (
                matching.iter().take(limit).map(|e| (*e).clone()).collect(),
                matching.len() > limit,
            )
        };
        Ok(json!({"object": "list", "data": page, "has_more": has_more, "url": "/v1/events"}))
    }

    /// `GET /v1/events/{id}`.
    pub fn retrieve(&self, wanted: &str) -> Result<Value, ApiErr> {
        self.served()
            .into_iter()
            .find(|e| id(e) == wanted)
            .cloned()
            .ok_or_else(|| ApiErr::missing("event", wanted))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_page_newest_first_and_old_ones_are_not_served() {
        let mut log = EventLog::default();
        for t in [10, 20, 30] {
            log.push(
                "charge.succeeded",
                json!({"id": format!("ch_{t}"), "object": "charge"}),
                t,
            );
        }
        log.push("payout.paid", json!({"id": "po_1", "object": "payout"}), 30);
        let page = log
            .list(&Params::parse(b"limit=2&created[gt]=10"))
            .expect("a page");
        let ids: Vec<&str> = page["data"]
            .as_array()
            .expect("data")
            .iter()
            .map(id)
            .collect();
        assert_eq!(
            ids,
            [
                "evt_1Fake0000000000000000004",
                "evt_1Fake0000000000000000003"
            ]
        );
        assert_eq!(page["has_more"], true);
        let next = log
            .list(&Params::parse(
                b"limit=2&created[gt]=10&starting_after=evt_1Fake0000000000000000003",
            ))
            .expect("a page");
        assert_eq!(next["data"].as_array().map(Vec::len), Some(1));
        assert_eq!(next["has_more"], false);
        let payouts = log.list(&Params::parse(b"type=payout.*")).expect("a page");
        assert_eq!(payouts["data"].as_array().map(Vec::len), Some(1));
        log.clock = Some(RETENTION_SECS + 25);
        let kept = log.list(&Params::parse(b"")).expect("a page");
        assert_eq!(kept["data"].as_array().map(Vec::len), Some(2));
        assert!(log.retrieve("evt_1Fake0000000000000000001").is_err());
    }
}
