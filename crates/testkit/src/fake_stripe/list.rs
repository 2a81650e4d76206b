//! Reading the store the way Stripe's API does: list envelopes with `limit` and
//! `starting_after`/`ending_before` cursors, per-endpoint filters, `expand[]` (at most four
//! levels, includable `payments` on invoices), customer search with `page`/`next_page`, and
//! retrieve-by-id with Stripe's `resource_missing` errors.

use std::collections::HashSet;

use serde_json::{Value, json};

use super::errors::ApiErr;
use super::params::Params;
use super::store::{ObjectKind, SortKey, Store};

type Pred<'a> = Box<dyn Fn(&Value) -> bool + 'a>;

/// The value at a dotted path of object keys.
fn at<'v>(v: &'v Value, path: &[&str]) -> Option<&'v Value> {
    path.iter().try_fold(v, |v, k| v.get(*k))
}

/// The id of an expandable field: the string itself, or the object's `id`.
fn id_of(v: &Value) -> Option<&str> {
    match v {
        Value::String(s) => Some(s),
        Value::Object(o) => o.get("id").and_then(Value::as_str),
        _ => None,
    }
}

fn id_at<'v>(v: &'v Value, path: &[&str]) -> Option<&'v str> {
    at(v, path).and_then(id_of)
}

fn str_at<'v>(v: &'v Value, path: &[&str]) -> Option<&'v str> {
    at(v, path).and_then(Value::as_str)
}

/// Where a page is read from: a whole table, or a sorted subset of it (e.g. the
/// balance transactions of one payout).
enum Source<'a> {
    Table,
    Subset(Vec<(SortKey, &'a Value)>),
}

/// Filters of one list request: predicates plus an optional id subset.
struct Filters<'a> {
    preds: Vec<Pred<'a>>,
    subset: Option<Vec<String>>,
}

impl<'a> Filters<'a> {
    fn new() -> Self {
        Filters {
            preds: Vec::new(),
            subset: None,
        }
    }

    fn matches(&self, v: &Value) -> bool {
        self.preds.iter().all(|p| p(v))
    }

    /// `param=<id>` compared with the id of the expandable field at `path`.
    fn id_eq(&mut self, p: &'a Params, param: &str, path: &'static [&'static str]) {
        if let Some(want) = p.get(param) {
            self.preds
                .push(Box::new(move |v| id_at(v, path) == Some(want)));
        }
    }

    /// `param=<text>` compared with the string at `path`, optionally checked against
    /// the values Stripe accepts.
    fn str_eq(
        &mut self,
        p: &'a Params,
        param: &str,
        path: &'static [&'static str],
        allowed: &[&str],
    ) -> Result<(), ApiErr> {
        if let Some(want) = p.get(param) {
            if !allowed.is_empty() && !allowed.contains(&want) {
                return Err(invalid_choice(param, allowed));
            }
            self.preds
                .push(Box::new(move |v| str_at(v, path) == Some(want)));
        }
        Ok(())
    }

    /// `param`, `param[gt]`, ... compared with the integer at `field`.
    fn range(&mut self, p: &Params, param: &str, field: &'static str) -> Result<(), ApiErr> {
        if let Some(range) = p.range(param)? {
            self.preds.push(Box::new(move |v| {
                v.get(field)
                    .and_then(Value::as_i64)
                    .is_some_and(|t| range.contains(t))
            }));
        }
        Ok(())
    }
}

fn invalid_choice(param: &str, allowed: &[&str]) -> ApiErr {
    let list = match allowed.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{}, or {last}", rest.join(", ")),
        Some((last, _)) => (*last).to_string(),
        None => String::new(),
    };
    ApiErr::invalid(format!("Invalid {param}: must be one of {list}")).param(param)
}

/// The filters each list endpoint understands; unknown parameters are ignored.
fn filters<'a>(store: &'a Store, kind: ObjectKind, p: &'a Params) -> Result<Filters<'a>, ApiErr> {
    let mut f = Filters::new();
    f.range(p, "created", "created")?;
    match kind {
        ObjectKind::Payout => {
            f.range(p, "arrival_date", "arrival_date")?;
            f.str_eq(p, "status", &["status"], &[])?;
            f.id_eq(p, "destination", &["destination"]);
        }
        ObjectKind::BalanceTransaction => {
            if let Some(po) = p.get("payout") {
                let payout = store.get(ObjectKind::Payout, po).ok_or_else(|| {
                    ApiErr::invalid(format!("No such payout: '{po}'"))
                        .code("resource_missing")
                        .param("payout")
                })?;
                let automatic = payout.get("automatic").and_then(Value::as_bool) == Some(true);
                let instant = str_at(payout, &["method"]) == Some("instant");
                if !automatic || instant {
                    return Err(ApiErr::invalid(
                        "Balance transaction history can only be filtered on automatic transfers, not manual.",
                    )
                    .param("payout"));
                }
                f.subset = Some(store.payout_lines.get(po).cloned().unwrap_or_default());
            }
            f.str_eq(p, "type", &["type"], &[])?;
            f.id_eq(p, "source", &["source"]);
            f.str_eq(p, "currency", &["currency"], &[])?;
        }
        ObjectKind::Invoice => {
            f.str_eq(
                p,
                "status",
                &["status"],
                &["draft", "open", "paid", "uncollectible", "void"],
            )?;
            f.id_eq(p, "customer", &["customer"]);
            f.str_eq(
                p,
                "collection_method",
                &["collection_method"],
                &["charge_automatically", "send_invoice"],
            )?;
            f.range(p, "due_date", "due_date")?;
            if let Some(want) = p.get("subscription") {
                f.preds.push(Box::new(move |v| {
                    id_at(v, &["parent", "subscription_details", "subscription"])
                        .or_else(|| id_at(v, &["subscription"]))
                        == Some(want)
                }));
            }
        }
        ObjectKind::InvoicePayment => {
            if let Some(invoice) = p.get("invoice") {
                let ids = store
                    .payments_of_invoice(invoice)
                    .filter_map(|ip| ip.get("id"));
                f.subset = Some(ids.filter_map(Value::as_str).map(str::to_string).collect());
            }
            f.id_eq(p, "invoice", &["invoice"]);
            f.str_eq(p, "status", &["status"], &["open", "paid", "canceled"])?;
            f.str_eq(p, "payment[type]", &["payment", "type"], &[])?;
            f.id_eq(p, "payment[payment_intent]", &["payment", "payment_intent"]);
            f.id_eq(p, "payment[payment_record]", &["payment", "payment_record"]);
        }
        ObjectKind::PaymentIntent => f.id_eq(p, "customer", &["customer"]),
        ObjectKind::Charge => {
            f.id_eq(p, "customer", &["customer"]);
            f.id_eq(p, "payment_intent", &["payment_intent"]);
        }
        ObjectKind::Refund | ObjectKind::Dispute | ObjectKind::EarlyFraudWarning => {
            f.id_eq(p, "charge", &["charge"]);
            f.id_eq(p, "payment_intent", &["payment_intent"]);
        }
        ObjectKind::Customer => f.str_eq(p, "email", &["email"], &[])?,
        ObjectKind::Subscription => {
            f.id_eq(p, "customer", &["customer"]);
            let allowed = [
                "active",
                "all",
                "canceled",
                "ended",
                "incomplete",
                "incomplete_expired",
                "past_due",
                "paused",
                "trialing",
                "unpaid",
            ];
            match p.get("status") {
                None => f
                    .preds
                    .push(Box::new(|v| str_at(v, &["status"]) != Some("canceled"))),
                Some("all") => {}
                Some("ended") => f.preds.push(Box::new(|v| {
                    matches!(
                        str_at(v, &["status"]),
                        Some("canceled" | "incomplete_expired")
                    )
                })),
                Some(s) if allowed.contains(&s) => f
                    .preds
                    .push(Box::new(move |v| str_at(v, &["status"]) == Some(s))),
                Some(_) => return Err(invalid_choice("status", &allowed)),
            }
            if let Some(price) = p.get("price") {
                f.preds.push(Box::new(move |v| {
                    at(v, &["items", "data"])
                        .and_then(Value::as_array)
                        .is_some_and(|items| {
                            items.iter().any(|i| id_at(i, &["price"]) == Some(price))
                        })
                }));
            }
        }
        ObjectKind::PaymentMethod => {
            f.id_eq(p, "customer", &["customer"]);
            f.str_eq(p, "type", &["type"], &[])?;
        }
    }
    Ok(f)
}

/// Splits and checks the `expand[]` paths of a request.
fn expand_paths(p: &Params, on_list: bool) -> Result<Vec<Vec<&str>>, ApiErr> {
    let mut out = Vec::new();
    for path in p.all("expand") {
        let segs: Vec<&str> = path.split('.').collect();
        if segs.iter().any(|s| s.is_empty()) {
            return Err(ApiErr::invalid(format!("Invalid expand path: {path}")).param("expand"));
        }
        if segs.len() > 4 {
            return Err(ApiErr::invalid(format!(
                "You cannot expand more than 4 levels of a property. Property: {path}"
            ))
            .param("expand"));
        }
        if on_list && segs[0] != "data" && path != "total_count" {
            return Err(ApiErr::invalid(format!(
                "This property cannot be expanded ({path}). Expansions on list requests start with `data`, e.g. data.{path}."
            ))
            .param("expand"));
        }
        out.push(segs);
    }
    Ok(out)
}

fn list_envelope(data: Vec<Value>, has_more: bool, url: &str) -> Value {
    json!({"object": "list", "data": data, "has_more": has_more, "url": url})
}

/// An invoice's `payments` includable: its invoice payments, at most 10.
fn invoice_payments_of(store: &Store, invoice_id: &str) -> Value {
    let mut matching = store.payments_of_invoice(invoice_id);
    let data: Vec<Value> = matching.by_ref().take(10).cloned().collect();
    let has_more = matching.next().is_some();
    list_envelope(data, has_more, "/v1/invoice_payments")
}

/// Replaces an id (or each id of an array) with the object it names, when known.
fn resolve(store: &Store, field: &mut Value) {
    match field {
        Value::String(id) => {
            let found = if id.starts_with("acct_") && id == store.account_id() {
                Some(store.account.clone())
            } else {
                store.lookup(id).cloned()
            };
            if let Some(obj) = found {
                *field = obj;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| resolve(store, i)),
        _ => {}
    }
}

/// Applies one expansion path to a response value (lenient: unknown fields are skipped).
fn expand(store: &Store, v: &mut Value, segs: &[&str]) {
    let Some((first, rest)) = segs.split_first() else {
        return;
    };
    let is_list = matches!(
        v.get("object").and_then(Value::as_str),
        Some("list" | "search_result")
    );
    if is_list && *first == "data" {
        if let Some(Value::Array(items)) = v.get_mut("data") {
            items.iter_mut().for_each(|i| expand(store, i, rest));
        }
        return;
    }
    if *first == "payments"
        && v.get("object").and_then(Value::as_str) == Some("invoice")
        && !v.get("payments").is_some_and(Value::is_object)
    {
        let id = v
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let payments = invoice_payments_of(store, &id);
        if let Some(obj) = v.as_object_mut() {
            obj.insert("payments".to_string(), payments);
        }
    }
    let Some(field) = v.get_mut(*first) else {
        return;
    };
    resolve(store, field);
    match field {
        Value::Array(items) => items.iter_mut().for_each(|i| expand(store, i, rest)),
        other => expand(store, other, rest),
    }
}

fn apply_expansions(store: &Store, v: &mut Value, paths: &[Vec<&str>]) {
    for segs in paths {
        expand(store, v, segs);
    }
}

/// `GET /v1/<kind>`.
pub fn list(store: &Store, kind: ObjectKind, p: &Params) -> Result<Value, ApiErr> {
    let limit = p.limit()?;
    let expands = expand_paths(p, true)?;
    let f = filters(store, kind, p)?;
    let table = store.table(kind);
    let cursor = |param: &str| -> Result<Option<SortKey>, ApiErr> {
        match p.get(param) {
            None | Some("") => Ok(None),
            Some(id) => table.key_of(id).cloned().map(Some).ok_or_else(|| {
                ApiErr::invalid(format!("No such {}: '{id}'", kind.noun()))
                    .code("resource_missing")
                    .param(param)
            }),
        }
    };
    let after = cursor("starting_after")?;
    let before = cursor("ending_before")?;
    let source = match &f.subset {
        None => Source::Table,
        Some(ids) => {
            let wanted: HashSet<&str> = ids.iter().map(String::as_str).collect();
            let mut rows: Vec<(SortKey, &Value)> = wanted
                .iter()
                .filter_map(|id| Some((table.key_of(id)?.clone(), table.get(id)?)))
                .collect();
            rows.sort_by(|a, b| a.0.cmp(&b.0));
            Source::Subset(rows)
        }
    };
    let (data, has_more): (Vec<Value>, bool) = if let (Some(b), None) = (&before, &after) {
        // ending_before: the `limit` nearest newer rows, returned newest first.
        let newer: Box<dyn Iterator<Item = &Value>> = match &source {
            Source::Table => Box::new(table.before(b)),
            Source::Subset(rows) => Box::new(
                rows.iter()
                    .rev()
                    .filter(move |(k, _)| k < b)
                    .map(|(_, v)| *v),
            ),
        };
        let mut matching = newer.filter(|v| f.matches(v));
        let mut page: Vec<Value> = matching.by_ref().take(limit).cloned().collect();
        let more = matching.next().is_some();
        page.reverse();
        (page, more)
    } else {
        let older: Box<dyn Iterator<Item = &Value>> = match (&source, &after) {
            (Source::Table, None) => Box::new(table.iter()),
            (Source::Table, Some(a)) => Box::new(table.after(a)),
            (Source::Subset(rows), a) => Box::new(
                rows.iter()
                    .filter(move |(k, _)| a.as_ref().is_none_or(|a| k > a))
                    .map(|(_, v)| *v),
            ),
        };
        let mut matching = older.filter(|v| f.matches(v));
        let page: Vec<Value> = matching.by_ref().take(limit).cloned().collect();
        let more = matching.next().is_some();
        (page, more)
    };
    let mut envelope = list_envelope(data, has_more, &kind.path());
    apply_expansions(store, &mut envelope, &expands);
    Ok(envelope)
}

/// `GET /v1/<kind>/<id>`.
pub fn retrieve(store: &Store, kind: ObjectKind, id: &str, p: &Params) -> Result<Value, ApiErr> {
    let expands = expand_paths(p, false)?;
    let mut v = store
        .get(kind, id)
        .cloned()
        .ok_or_else(|| ApiErr::missing(kind.noun(), id))?;
    apply_expansions(store, &mut v, &expands);
    Ok(v)
}

/// One clause of a search query: `field:'value'` (exact, case-insensitive) or
/// `field~'value'` (substring, at least 3 characters).
fn parse_query(query: &str) -> Result<(String, bool, String), ApiErr> {
    let bad = || {
        ApiErr::invalid(format!(
            "The fake Stripe server understands search queries of the form email:'x', name:'x' or email~'abc' (got: {query})"
        ))
        .param("query")
    };
    let pos = query.find([':', '~']).ok_or_else(bad)?;
    let field = query[..pos].trim().to_string();
    let exact = query[pos..].starts_with(':');
    let raw = query[pos + 1..].trim();
    let value = raw
        .strip_prefix('\'')
        .and_then(|r| r.strip_suffix('\''))
        .or_else(|| raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')))
        .ok_or_else(bad)?;
    if !["email", "name", "phone"].contains(&field.as_str()) {
        return Err(bad());
    }
    if !exact && value.chars().count() < 3 {
        return Err(
            ApiErr::invalid("Substring search (~) needs at least 3 characters.").param("query"),
        );
    }
    Ok((field, exact, value.to_string()))
}

/// `GET /v1/customers/search`.
pub fn search_customers(store: &Store, p: &Params) -> Result<Value, ApiErr> {
    let limit = p.limit()?;
    let expands = expand_paths(p, true)?;
    let query = p
        .get("query")
        .ok_or_else(|| ApiErr::invalid("Missing required param: query.").param("query"))?;
    let (field, exact, want) = parse_query(query)?;
    let want = want.to_lowercase();
    let offset = match p.get("page") {
        None => 0,
        Some(token) => token
            .strip_prefix("fakepage_")
            .and_then(|n| n.parse::<usize>().ok())
            .ok_or_else(|| ApiErr::invalid(format!("Invalid page: {token}")).param("page"))?,
    };
    let hits: Vec<&Value> = store
        .table(ObjectKind::Customer)
        .iter()
        .filter(|c| {
            str_at(c, &[&field]).is_some_and(|have| {
                let have = have.to_lowercase();
                if exact {
                    have == want
                } else {
                    have.contains(&want)
                }
            })
        })
        .collect();
    let data: Vec<Value> = hits
        .iter()
        .skip(offset)
        .take(limit)
        .map(|v| (*v).clone())
        .collect();
    let end = offset + data.len();
    let has_more = end < hits.len();
    let mut envelope = json!({
        "object": "search_result",
        "data": data,
        "has_more": has_more,
        "next_page": if has_more { json!(format!("fakepage_{end}")) } else { Value::Null },
        "url": "/v1/customers/search",
    });
    if p.all("expand").contains(&"total_count") {
        envelope["total_count"] = json!(hits.len());
    }
    let expands: Vec<Vec<&str>> = expands
        .into_iter()
        .filter(|s| s.first() != Some(&"total_count"))
        .collect();
    apply_expansions(store, &mut envelope, &expands);
    Ok(envelope)
}

/// Sets every `livemode` field in a response to true (the `livemode` config flag).
pub fn force_livemode(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (k, child) in map.iter_mut() {
                if k == "livemode" {
                    *child = Value::Bool(true);
                } else {
                    force_livemode(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(force_livemode),
        _ => {}
    }
}
