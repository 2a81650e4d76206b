//! The demo's early fraud warnings (`early_fraud_warnings.json`), made after the walk from
//! the charges and disputes already written, by fixed choices and an id stream of their
//! own, so nothing else in the demo moves. Each case of the queue is there
//! (RULES.md, "Fraud warnings"):
//!
//! - open and actionable, within the policy's refund limit: usd and eur (refund now);
//! - open and actionable above the usd limit, and one in jpy, which the default policy
//!   names no limit for (review);
//! - open but not actionable in gbp (review: Stripe says not to act on it);
//! - on a fully refunded charge and on a disputed one (not actionable; off the queue).

use serde_json::{Value, json};

use super::clock::DAY;
use super::ids::Ids;

/// One warning to make: which charge qualifies, how long after it the warning came, its
/// type and whether Stripe calls it actionable.
struct Case {
    pick: fn(&Value) -> bool,
    days_after: i64,
    fraud_type: &'static str,
    actionable: bool,
}

fn s<'a>(c: &'a Value, k: &str) -> &'a str {
    c.get(k).and_then(Value::as_str).unwrap_or_default()
}

fn n(c: &Value, k: &str) -> i64 {
    c.get(k).and_then(Value::as_i64).unwrap_or_default()
}

fn b(c: &Value, k: &str) -> bool {
    c.get(k).and_then(Value::as_bool).unwrap_or_default()
}

/// A succeeded charge to a customer, nothing refunded, not disputed.
fn open(c: &Value) -> bool {
    s(c, "status") == "succeeded"
        && !s(c, "customer").is_empty()
        && n(c, "amount_refunded") == 0
        && !b(c, "disputed")
}

const CASES: [Case; 8] = [
    Case {
        pick: |c| {
            open(c) && s(c, "currency") == "usd" && (5_000..=20_000).contains(&n(c, "amount"))
        },
        days_after: 9,
        fraud_type: "made_with_stolen_card",
        actionable: true,
    },
    Case {
        pick: |c| {
            open(c) && s(c, "currency") == "eur" && (2_000..=15_000).contains(&n(c, "amount"))
        },
        days_after: 12,
        fraud_type: "unauthorized_use_of_card",
        actionable: true,
    },
    Case {
        pick: |c| open(c) && s(c, "currency") == "usd" && n(c, "amount") > 100_000,
        days_after: 6,
        fraud_type: "fraudulent_card_application",
        actionable: true,
    },
    Case {
        pick: |c| open(c) && s(c, "currency") == "jpy" && n(c, "amount") >= 5_000,
        days_after: 15,
        fraud_type: "made_with_counterfeit_card",
        actionable: true,
    },
    Case {
        pick: |c| open(c) && s(c, "currency") == "gbp" && n(c, "amount") >= 2_000,
        days_after: 20,
        fraud_type: "misc",
        actionable: false,
    },
    Case {
        pick: |c| open(c) && s(c, "currency") == "usd" && n(c, "amount") < 5_000,
        days_after: 3,
        fraud_type: "card_never_received",
        actionable: true,
    },
    Case {
        pick: |c| s(c, "status") == "succeeded" && b(c, "refunded") && s(c, "currency") == "usd",
        days_after: 2,
        fraud_type: "made_with_lost_card",
        actionable: false,
    },
    Case {
        pick: |c| s(c, "status") == "succeeded" && b(c, "disputed") && s(c, "currency") == "eur",
        days_after: 1,
        fraud_type: "unauthorized_use_of_card",
        actionable: false,
    },
];

/// The warnings over `charges` (as written, oldest first), with the clock at `now`: each
/// case takes the newest qualifying charge whose warning is at least a week old by `now`,
/// a charge at most once. Sorted by `created` like every other file.
pub fn warnings(charges: &[Value], seed: u64, now: i64) -> Vec<Value> {
    let mut ids = Ids::new(seed);
    let mut taken: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for case in &CASES {
        let found = charges.iter().rev().find(|c| {
            let id = s(c, "id");
            (case.pick)(c)
                && !taken.contains(&id)
                && n(c, "created") + case.days_after * DAY <= now - 7 * DAY
        });
        let Some(charge) = found else {
            continue;
        };
        taken.push(s(charge, "id"));
        out.push(json!({
            "id": ids.next("issfr_", 24),
            "object": "radar.early_fraud_warning",
            "actionable": case.actionable,
            "charge": s(charge, "id"),
            "created": n(charge, "created") + case.days_after * DAY,
            "fraud_type": case.fraud_type,
            "livemode": false,
            "payment_intent": charge.get("payment_intent").cloned().unwrap_or(Value::Null),
        }));
    }
    out.sort_by(|a, b| (n(a, "created"), s(a, "id")).cmp(&(n(b, "created"), s(b, "id"))));
    out
}
