//! "The next day" of an account already served by the fake ([`next_day`]): new charges
//! (with their payment intents and balance transactions), refunds of recent charges, a
//! few open invoices paid, failed again, voided or marked uncollectible, a customer's new
//! email and a card's new expiry, the payout in transit paid, and the pending balance
//! transactions whose `available_on` passed made available (with no event, as Stripe
//! sends none), each other change stored and logged as the events Stripe sends for it
//! (`charge.succeeded`, `refund.created`, `invoice.paid`, `payout.paid`, ...), at instants
//! spread over `(from, to]`. Same store, seed and instants give the same changes, so a
//! full sync and an incremental refresh of the result can be compared.

use serde_json::{Value, json};

use crate::fake_stripe::{ObjectKind, Store};

/// What [`next_day`] changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DayChanges {
    /// Events logged.
    pub events: usize,
    /// Distinct objects created or changed (balance transactions included).
    pub objects: usize,
}

/// A small deterministic generator (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }

    fn id(&mut self, prefix: &str) -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        let tail: String = (0..24)
            .map(|_| char::from(ALPHABET[self.below(ALPHABET.len() as u64) as usize]))
            .collect();
        format!("{prefix}_{tail}")
    }
}

struct Day<'s> {
    store: &'s mut Store,
    rng: Rng,
    from: i64,
    step: i64,
    tick: i64,
    changes: DayChanges,
}

impl Day<'_> {
    /// The next instant of the day (strictly increasing within `(from, to]`).
    fn at(&mut self) -> i64 {
        self.tick += 1;
        self.from + self.tick * self.step
    }

    fn emit(&mut self, kind: &str, object: Value, t: i64) -> Result<(), String> {
        self.store.record(kind, object, t)?;
        self.changes.events += 1;
        self.changes.objects += 1;
        Ok(())
    }

    fn put(&mut self, object: Value) -> Result<(), String> {
        self.store.put(object)?;
        self.changes.objects += 1;
        Ok(())
    }

    fn objects(&self, kind: ObjectKind) -> Vec<Value> {
        self.store.table(kind).iter().cloned().collect()
    }

    /// A charge's balance transaction, `amount` gross with a 2.9% + 30 fee.
    fn line(&mut self, source: &str, amount: i64, currency: &str, kind: &str, t: i64) -> Value {
        let fee = if kind == "charge" {
            amount * 29 / 1000 + 30
        } else {
            0
        };
        json!({
            "id": self.rng.id("txn"), "object": "balance_transaction", "amount": amount,
            "available_on": t + 2 * 86_400, "balance_type": "payments", "created": t,
            "currency": currency, "description": null, "exchange_rate": null, "fee": fee,
            "fee_details": if fee > 0 { json!([{"amount": fee, "application": null, "currency": currency, "description": "Stripe processing fees", "type": "stripe_fee"}]) } else { json!([]) },
            "net": amount - fee, "reporting_category": kind, "source": source,
            "status": "pending", "type": kind,
        })
    }

    /// A new succeeded charge like `template` (and its intent and line), for `amount`.
    fn charge(
        &mut self,
        template: &Value,
        amount: i64,
        currency: &str,
        pi: Option<String>,
    ) -> Result<Value, String> {
        let t = self.at();
        let mut ch = template.clone();
        let id = self.rng.id("ch");
        let pi = pi.unwrap_or_else(|| self.rng.id("pi"));
        let line = self.line(&id, amount, currency, "charge", t);
        for (k, v) in [
            ("id", json!(id)),
            ("amount", json!(amount)),
            ("amount_captured", json!(amount)),
            ("amount_refunded", json!(0)),
            ("refunded", json!(false)),
            ("disputed", json!(false)),
            ("created", json!(t)),
            ("currency", json!(currency)),
            ("payment_intent", json!(pi)),
            ("balance_transaction", line["id"].clone()),
            ("status", json!("succeeded")),
            ("paid", json!(true)),
            ("failure_code", Value::Null),
            ("failure_message", Value::Null),
        ] {
            ch[k] = v;
        }
        self.put(line)?;
        let intent = match self.store.get(ObjectKind::PaymentIntent, &pi) {
            Some(old) => {
                let mut old = old.clone();
                old["status"] = json!("succeeded");
                old["latest_charge"] = json!(id);
                old["last_payment_error"] = Value::Null;
                old
            }
            None => json!({
                "id": pi, "object": "payment_intent", "amount": amount, "currency": currency,
                "created": t, "status": "succeeded", "latest_charge": id,
                "customer": ch["customer"].clone(), "last_payment_error": null,
                "livemode": false, "metadata": {},
            }),
        };
        self.emit("payment_intent.succeeded", intent, t)?;
        self.emit("charge.succeeded", ch.clone(), t)?;
        Ok(ch)
    }
}

fn str_of<'v>(v: &'v Value, key: &str) -> &'v str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn int_of(v: &Value, key: &str) -> i64 {
    v.get(key).and_then(Value::as_i64).unwrap_or_default()
}

/// Makes the next day of the account in `store` between `from` and `to` (unix seconds):
/// see the module docs. Fails only when the store lacks what a day needs (no charge to
/// copy).
pub fn next_day(store: &mut Store, seed: u64, from: i64, to: i64) -> Result<DayChanges, String> {
    let mut day = Day {
        store,
        rng: Rng(seed),
        from,
        step: ((to - from) / 64).max(1),
        tick: 0,
        changes: DayChanges::default(),
    };
    let charges = day.objects(ObjectKind::Charge);
    let template = charges
        .iter()
        .find(|c| str_of(c, "status") == "succeeded" && c.get("balance_transaction").is_some())
        .cloned()
        .ok_or("the account has no succeeded charge to copy")?;

    // New charges.
    let n = 4 + day.rng.below(4);
    for _ in 0..n {
        let currency = str_of(&template, "currency").to_string();
        let amount = 1000 + 100 * day.rng.below(200) as i64;
        day.charge(&template, amount, &currency, None)?;
    }

    // Refunds of recent, unrefunded succeeded charges.
    let refundable: Vec<Value> = charges
        .iter()
        .filter(|c| {
            str_of(c, "status") == "succeeded"
                && int_of(c, "amount_refunded") == 0
                && !c.get("disputed").and_then(Value::as_bool).unwrap_or(false)
        })
        .take(20)
        .cloned()
        .collect();
    for k in 0..2 {
        let Some(c) = refundable.get(k * 7 + day.rng.below(5) as usize) else {
            break;
        };
        let t = day.at();
        let amount = int_of(c, "amount");
        let currency = str_of(c, "currency").to_string();
        let id = day.rng.id("re");
        let line = day.line(&id, -amount, &currency, "refund", t);
        let refund = json!({
            "id": id, "object": "refund", "amount": amount,
            "balance_transaction": line["id"].clone(), "charge": c["id"].clone(),
            "created": t, "currency": currency, "destination_details": null, "metadata": {},
            "payment_intent": c["payment_intent"].clone(), "reason": "requested_by_customer",
            "receipt_number": null, "status": "succeeded",
        });
        day.put(line)?;
        day.emit("refund.created", refund, t)?;
        let mut charge = c.clone();
        charge["amount_refunded"] = json!(amount);
        charge["refunded"] = json!(true);
        day.emit("charge.refunded", charge, t)?;
    }

    // Open invoices: paid, failed again, voided, written off.
    let open: Vec<Value> = day
        .objects(ObjectKind::Invoice)
        .into_iter()
        .filter(|i| str_of(i, "status") == "open" && i.get("attempted") == Some(&json!(true)))
        .collect();
    let mut picked: Vec<Value> = Vec::new();
    for _ in 0..5 {
        if open.is_empty() {
            break;
        }
        let i = &open[day.rng.below(open.len() as u64) as usize];
        if !picked.iter().any(|p| p["id"] == i["id"]) {
            picked.push(i.clone());
        }
    }
    for (k, inv) in picked.into_iter().enumerate() {
        settle_invoice(&mut day, &template, inv, k)?;
    }

    renewals_change(&mut day)?;

    // The payout in transit arrives.
    let in_transit: Vec<Value> = day
        .objects(ObjectKind::Payout)
        .into_iter()
        .filter(|p| str_of(p, "status") == "in_transit")
        .collect();
    for mut p in in_transit {
        let t = day.at();
        p["status"] = json!("paid");
        p["reconciliation_status"] = json!("completed");
        day.emit("payout.paid", p.clone(), t)?;
        let t = day.at();
        day.emit("payout.reconciliation_completed", p, t)?;
    }

    // Funds that became available: Stripe sends no event when a line's status moves on.
    for mut line in day.objects(ObjectKind::BalanceTransaction) {
        if str_of(&line, "status") == "pending" && int_of(&line, "available_on") <= to {
            line["status"] = json!("available");
            day.put(line)?;
        }
    }
    Ok(day.changes)
}

/// One open invoice's day: `k` 0 and 1 paid, 2 failed again, 3 voided, 4 uncollectible.
fn settle_invoice(
    day: &mut Day<'_>,
    template: &Value,
    mut inv: Value,
    k: usize,
) -> Result<(), String> {
    let id = str_of(&inv, "id").to_string();
    let payment = day
        .store
        .payments_of_invoice(&id)
        .find(|p| p.get("is_default") == Some(&json!(true)))
        .cloned();
    let pi = payment
        .as_ref()
        .and_then(|p| p.pointer("/payment/payment_intent"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let due = int_of(&inv, "amount_remaining");
    let currency = str_of(&inv, "currency").to_string();
    match k {
        0 | 1 => {
            let mut charge = template.clone();
            charge["customer"] = inv["customer"].clone();
            let charge = day.charge(&charge, due, &currency, pi)?;
            let t = day.at();
            inv["status"] = json!("paid");
            inv["amount_paid"] = json!(int_of(&inv, "amount_paid") + due);
            inv["amount_remaining"] = json!(0);
            inv["status_transitions"]["paid_at"] = json!(t);
            inv["next_payment_attempt"] = Value::Null;
            if let Some(mut p) = payment {
                p["status"] = json!("paid");
                p["amount_paid"] = json!(due);
                p["status_transitions"]["paid_at"] = json!(t);
                if p["payment"]["payment_intent"].is_null() {
                    p["payment"]["charge"] = charge["id"].clone();
                }
                day.emit("invoice_payment.paid", p, t)?;
            }
            day.emit("invoice.paid", inv, t)
        }
        2 => {
            let t = day.at();
            inv["attempt_count"] = json!(int_of(&inv, "attempt_count") + 1);
            inv["next_payment_attempt"] = json!(t + 3 * 86_400);
            day.emit("invoice.payment_failed", inv, t)
        }
        3 => {
            let t = day.at();
            inv["status"] = json!("void");
            inv["amount_remaining"] = json!(0);
            inv["status_transitions"]["voided_at"] = json!(t);
            inv["next_payment_attempt"] = Value::Null;
            if let Some(mut p) = payment {
                p["status"] = json!("canceled");
                p["status_transitions"]["canceled_at"] = json!(t);
                day.emit("invoice_payment.canceled", p, t)?;
            }
            day.emit("invoice.voided", inv, t)
        }
        _ => {
            let t = day.at();
            inv["status"] = json!("uncollectible");
            inv["status_transitions"]["marked_uncollectible_at"] = json!(t);
            inv["next_payment_attempt"] = Value::Null;
            day.emit("invoice.marked_uncollectible", inv, t)
        }
    }
}

/// A customer with an active subscription changes its email, and the card an active
/// subscription renews with gets a new expiry (the card updater).
fn renewals_change(day: &mut Day<'_>) -> Result<(), String> {
    let active: Vec<Value> = day
        .objects(ObjectKind::Subscription)
        .into_iter()
        .filter(|s| str_of(s, "status") == "active")
        .collect();
    let customer = active
        .iter()
        .filter_map(|s| s.get("customer").and_then(Value::as_str))
        .nth(day.rng.below(3) as usize)
        .and_then(|id| day.store.get(ObjectKind::Customer, id).cloned());
    if let Some(mut c) = customer {
        let t = day.at();
        c["email"] = json!(format!("renamed{}@mail.example.com", day.rng.below(1000)));
        day.emit("customer.updated", c, t)?;
    }
    let method = active
        .iter()
        .filter_map(|s| s.get("default_payment_method").and_then(Value::as_str))
        .next()
        .and_then(|id| day.store.get(ObjectKind::PaymentMethod, id).cloned());
    if let Some(mut m) = method
        && m.pointer("/card/exp_year").is_some()
    {
        let t = day.at();
        m["card"]["exp_year"] = json!(int_of(&m["card"], "exp_year") + 3);
        day.emit("payment_method.updated", m, t)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake_stripe::demo_fixtures;

    #[test]
    fn the_same_seed_makes_the_same_day_and_every_change_is_an_event() {
        let demo = Store::load(&demo_fixtures()).expect("the demo");
        let (mut a, mut b) = (demo.clone(), demo);
        let from = 1_796_040_000;
        let day = next_day(&mut a, 7, from, from + 8 * 3600).expect("a day");
        next_day(&mut b, 7, from, from + 8 * 3600).expect("a day");
        assert_eq!(a.events.all(), b.events.all());
        assert_eq!(a.events.all().len(), day.events);
        assert!(day.events >= 20, "{day:?}");
        let kinds: Vec<&str> = a
            .events
            .all()
            .iter()
            .filter_map(|e| e["type"].as_str())
            .collect();
        for kind in [
            "charge.succeeded",
            "refund.created",
            "invoice.paid",
            "payout.paid",
        ] {
            assert!(kinds.contains(&kind), "{kind} in {kinds:?}");
        }
        let times: Vec<i64> = a
            .events
            .all()
            .iter()
            .filter_map(|e| e["created"].as_i64())
            .collect();
        assert!(times.iter().all(|t| *t > from && *t <= from + 8 * 3600));
    }
}
