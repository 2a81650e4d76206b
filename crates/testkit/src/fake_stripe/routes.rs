//! The endpoints (axum routes) over the store: account, balance, list and retrieve for
//! every object type, the events, customer search, and `POST /v1/refunds`. Unknown URLs and methods get
//! Stripe's "Unrecognized request URL" 404.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, Method, Uri};
use axum::response::{IntoResponse, Json, Response};
use axum::routing::get;
use serde_json::Value;

use super::Shared;
use super::errors::ApiErr;
use super::list;
use super::params::Params;
use super::refunds::RefundDesk;
use super::store::ObjectKind;

type Shr = State<Arc<Shared>>;

fn params(q: Option<String>) -> Params {
    Params::parse(q.unwrap_or_default().as_bytes())
}

/// A JSON answer, with `livemode` forced on when configured.
fn respond(shared: &Shared, result: Result<Value, ApiErr>) -> Response {
    match result {
        Ok(mut value) => {
            if shared.state().cfg.livemode {
                list::force_livemode(&mut value);
            }
            Json(value).into_response()
        }
        Err(e) => e.into_response(),
    }
}

async fn account(State(s): Shr) -> Response {
    let value = s.state().store.account.clone();
    respond(&s, Ok(value))
}

async fn balance(State(s): Shr) -> Response {
    let value = s.state().store.balance.clone();
    respond(&s, Ok(value))
}

async fn search(State(s): Shr, RawQuery(q): RawQuery) -> Response {
    let p = params(q);
    let result = list::search_customers(&s.state().store, &p);
    respond(&s, result)
}

async fn events(State(s): Shr, RawQuery(q): RawQuery) -> Response {
    let p = params(q);
    let result = s.state().store.events.list(&p);
    respond(&s, result)
}

async fn event(State(s): Shr, Path(id): Path<String>) -> Response {
    let result = s.state().store.events.retrieve(&id);
    respond(&s, result)
}

async fn unrecognized(method: Method, uri: Uri) -> Response {
    ApiErr::unrecognized(method.as_str(), uri.path()).into_response()
}

async fn create_refund(State(s): Shr, headers: HeaderMap, body: Bytes) -> Response {
    let p = Params::parse(&body);
    let key = headers
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let result = {
        let mut guard = s.state();
        let st = &mut *guard;
        let status = st.cfg.refund_status.clone();
        RefundDesk {
            declines: &st.cfg.refund_declines,
            store: &mut st.store,
            remembered: &mut st.remembered,
            created_ids: &mut st.created_refunds,
            status: &status,
            now,
        }
        .create(key.as_deref(), &p)
    };
    match result {
        Ok(created) => {
            let mut resp = respond(&s, Ok(created.refund));
            if created.replayed {
                resp.headers_mut()
                    .insert("idempotent-replayed", HeaderValue::from_static("true"));
            }
            resp
        }
        Err(e) => e.into_response(),
    }
}

/// The router for one server; the gate runs before it.
pub(super) fn router(shared: Arc<Shared>) -> Router {
    let mut r: Router<Arc<Shared>> = Router::new()
        .route("/v1/account", get(account))
        .route("/v1/balance", get(balance))
        .route("/v1/customers/search", get(search))
        .route("/v1/events", get(events))
        .route("/v1/events/{id}", get(event));
    for kind in ObjectKind::ALL {
        let list_route = get(move |State(s): Shr, RawQuery(q): RawQuery| async move {
            let p = params(q);
            let result = list::list(&s.state().store, kind, &p);
            respond(&s, result)
        });
        let list_route = if kind == ObjectKind::Refund {
            list_route.post(create_refund)
        } else {
            list_route
        };
        let one_route = get(
            move |State(s): Shr, Path(id): Path<String>, RawQuery(q): RawQuery| async move {
                let p = params(q);
                let result = list::retrieve(&s.state().store, kind, &id, &p);
                respond(&s, result)
            },
        );
        r = r
            .route(&kind.path(), list_route)
            .route(&format!("{}/{{id}}", kind.path()), one_route);
    }
    r.fallback(unrecognized)
        .method_not_allowed_fallback(unrecognized)
        .with_state(shared)
}
