//! `POST /v1/refunds`, the one write the fake accepts: idempotent by `Idempotency-Key`,
//! refuses what Stripe refuses (over-refunds, disputed or fully refunded charges), and
//! updates the charge it refunds.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::errors::ApiErr;
use super::params::Params;
use super::store::{ObjectKind, Store};

/// What a previous request with an idempotency key sent and got.
#[derive(Debug, Clone)]
pub struct Remembered {
    pub params: Vec<(String, String)>,
    pub response: Value,
}

/// The outcome of a create: the refund and whether it is a replay of an earlier one.
#[derive(Debug, Clone)]
pub struct Created {
    pub refund: Value,
    pub replayed: bool,
}

/// The state a create needs.
pub struct RefundDesk<'a> {
    /// Charges whose refunds are refused, with the error's message.
    pub declines: &'a std::collections::BTreeMap<String, String>,
    pub store: &'a mut Store,
    pub remembered: &'a mut HashMap<String, Remembered>,
    pub created_ids: &'a mut Vec<String>,
    /// Status given to the new refund (`succeeded`, `pending`, ...).
    pub status: &'a str,
    pub now: i64,
}

fn int_field(v: &Value, key: &str) -> i64 {
    v.get(key).and_then(Value::as_i64).unwrap_or(0)
}

impl RefundDesk<'_> {
    pub fn create(&mut self, key: Option<&str>, p: &Params) -> Result<Created, ApiErr> {
        let key = key.filter(|k| !k.is_empty()).ok_or_else(|| {
            ApiErr::invalid(
                "The fake Stripe server requires an Idempotency-Key header on POST /v1/refunds (so a retry cannot refund twice).",
            )
        })?;
        if key.len() > 255 {
            return Err(ApiErr::invalid(
                "Idempotency-Key must be at most 255 characters long.",
            ));
        }
        let mut fingerprint = p.pairs().to_vec();
        fingerprint.sort();
        if let Some(seen) = self.remembered.get(key) {
            if seen.params == fingerprint {
                return Ok(Created {
                    refund: seen.response.clone(),
                    replayed: true,
                });
            }
            return Err(ApiErr::new(
                400,
                "idempotency_error",
                format!(
                    "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '{key}' if you meant to execute a different request."
                ),
            ));
        }
        let refund = self.execute(p)?;
        self.remembered.insert(
            key.to_string(),
            Remembered {
                params: fingerprint,
                response: refund.clone(),
            },
        );
        Ok(Created {
            refund,
            replayed: false,
        })
    }

    fn execute(&mut self, p: &Params) -> Result<Value, ApiErr> {
        let charge_id = match (p.get("charge"), p.get("payment_intent")) {
            (Some(ch), _) => ch.to_string(),
            (None, Some(pi)) => {
                let intent = self
                    .store
                    .get(ObjectKind::PaymentIntent, pi)
                    .ok_or_else(|| {
                        ApiErr::invalid(format!("No such payment_intent: '{pi}'"))
                            .code("resource_missing")
                            .param("payment_intent")
                    })?;
                let latest = intent.get("latest_charge").and_then(|c| match c {
                    Value::String(s) => Some(s.clone()),
                    Value::Object(o) => o.get("id").and_then(Value::as_str).map(str::to_string),
                    _ => None,
                });
                latest.ok_or_else(|| {
                    ApiErr::invalid(format!(
                        "PaymentIntent {pi} does not have a successful charge to refund."
                    ))
                    .code("charge_not_refundable")
                    .param("payment_intent")
                })?
            }
            (None, None) => {
                return Err(ApiErr::invalid(
                    "One of the following params should be provided for this request: payment_intent or charge.",
                ));
            }
        };
        let charge = self
            .store
            .get(ObjectKind::Charge, &charge_id)
            .ok_or_else(|| {
                ApiErr::invalid(format!("No such charge: '{charge_id}'"))
                    .code("resource_missing")
                    .param("charge")
            })?
            .clone();
        if let Some(message) = self.declines.get(&charge_id) {
            return Err(ApiErr::invalid(message.clone())
                .code("charge_expired_for_refund")
                .param("charge"));
        }
        if charge.get("disputed").and_then(Value::as_bool) == Some(true) {
            return Err(ApiErr::invalid(format!(
                "Charge {charge_id} has been charged back; cannot issue a refund."
            ))
            .code("charge_disputed"));
        }
        let captured = int_field(&charge, "amount_captured");
        let already = int_field(&charge, "amount_refunded");
        let remaining = captured - already;
        if remaining <= 0 {
            return Err(
                ApiErr::invalid(format!("Charge {charge_id} has already been refunded."))
                    .code("charge_already_refunded"),
            );
        }
        let amount = match p.get("amount") {
            None => remaining,
            Some(raw) => {
                let n = raw
                    .parse::<i64>()
                    .map_err(|_| ApiErr::bad_integer("amount", raw))?;
                if n < 1 {
                    return Err(
                        ApiErr::invalid("This value must be greater than or equal to 1.")
                            .code("parameter_invalid_integer")
                            .param("amount"),
                    );
                }
                n
            }
        };
        if amount > remaining {
            return Err(ApiErr::invalid(format!(
                "Refund amount ({amount}) is greater than unrefunded amount on charge ({remaining})"
            ))
            .code("amount_too_large")
            .param("amount"));
        }
        let reason = p.get("reason");
        if let Some(r) = reason
            && !["duplicate", "fraudulent", "requested_by_customer"].contains(&r)
        {
            return Err(ApiErr::invalid(
                "Invalid reason: must be one of duplicate, fraudulent, or requested_by_customer",
            )
            .param("reason"));
        }
        let metadata: Map<String, Value> = p
            .hash("metadata")
            .into_iter()
            .map(|(k, v)| (k.to_string(), json!(v)))
            .collect();
        let n = self.created_ids.len() + 1;
        let id = format!("re_FakeRefund{n:06}");
        let status = self.status;
        let counts = !matches!(status, "failed" | "canceled");
        let refund = json!({
            "id": id,
            "object": "refund",
            "amount": amount,
            "balance_transaction": if counts { json!(format!("txn_FakeRefund{n:06}")) } else { Value::Null },
            "charge": charge_id,
            "created": self.now,
            "currency": charge.get("currency").cloned().unwrap_or(Value::Null),
            "destination_details": null,
            "failure_reason": if status == "failed" { json!("declined") } else { Value::Null },
            "metadata": metadata,
            "next_action": if status == "requires_action" {
                json!({"type": "display_details", "display_details": {"expires_at": self.now + 86400}})
            } else { Value::Null },
            "payment_intent": charge.get("payment_intent").cloned().unwrap_or(Value::Null),
            "pending_reason": if status == "pending" { json!("processing") } else { Value::Null },
            "reason": reason,
            "receipt_number": null,
            "source_transfer_reversal": null,
            "status": status,
            "transfer_reversal": null,
            "livemode": charge.get("livemode").cloned().unwrap_or(json!(false)),
        });
        if counts && let Some(ch) = self.store.get_mut(ObjectKind::Charge, &charge_id) {
            let refunded = already + amount;
            ch["amount_refunded"] = json!(refunded);
            ch["refunded"] = json!(refunded >= captured);
        }
        self.store.put_kind(ObjectKind::Refund, refund.clone());
        self.created_ids.push(id);
        Ok(refund)
    }
}
