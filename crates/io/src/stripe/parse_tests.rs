//! Parsing tests of the models: Stripe's canonical objects (`fixtures/stripe/fixtures3.json`,
//! from stripe/openapi), pre-2025 shapes, and hostile-but-valid answers (unknown enum
//! values, nulls where objects are expected, missing fields). All must parse.

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::models::*;

const FIXTURES: &str = include_str!("../../../../fixtures/stripe/fixtures3.json");

fn resource(name: &str) -> Value {
    let all: Value = serde_json::from_str(FIXTURES).expect("fixtures3.json is JSON");
    all["resources"][name].clone()
}

fn parse<T: DeserializeOwned>(value: Value) -> T {
    let text = value.to_string();
    let mut de = serde_json::Deserializer::from_str(&text);
    match serde_path_to_error::deserialize(&mut de) {
        Ok(t) => t,
        Err(e) => panic!("does not parse at {}: {}", e.path(), e.inner()),
    }
}

fn fixture<T: DeserializeOwned>(name: &str) -> T {
    let value = resource(name);
    assert!(value.is_object(), "fixtures3.json has no '{name}'");
    parse(value)
}

// ---- Stripe's canonical objects -------------------------------------------------------

#[test]
fn canonical_account() {
    let a: Account = fixture("account");
    assert_eq!(a.id, "acct_1PgafTB7WZ01zgkW");
    // display_name and business name are both null in the fixture.
    assert_eq!(a.display_name(), None);
    let tz = a
        .settings
        .as_ref()
        .and_then(|s| s.dashboard.as_ref())
        .and_then(|d| d.timezone.as_deref());
    assert_eq!(tz, Some("Etc/UTC"));
}

#[test]
fn canonical_balance() {
    let b: Balance = fixture("balance");
    assert_eq!(b.available.len(), 1);
    assert_eq!(b.available[0].currency, "usd");
    assert_eq!(b.livemode, Some(false));
    assert_eq!(b.available[0].source_types.get("card"), Some(&0));
    let core = b.to_core(7);
    assert_eq!(core.read_at, 7);
    assert_eq!(core.total(tieout_core::money::Currency::USD), Some(0));
}

/// A balance with odd parts still reads: missing lists, `null`s, an entry without an
/// amount (its source types count), a source type that is not a number, an unknown
/// currency, fields Stripe may add.
#[test]
fn a_hostile_balance_still_reads() {
    let b: Balance = parse(json!({
        "object": "balance",
        "available": [
            {"amount": 1000, "currency": "usd", "source_types": {"card": 900, "bank_account": 100}},
            {"currency": "eur", "source_types": {"card": 250, "odd": "x", "none": null}},
            {"amount": 5, "currency": "not-a-currency"},
            {"amount": null, "currency": null, "source_types": null},
        ],
        "pending": null,
        "instant_available": [{"amount": 1, "currency": "usd"}],
        "refund_and_dispute_prefunding": {"available": []},
    }));
    let core = b.to_core(1);
    assert_eq!(
        core.amounts.get(&tieout_core::money::Currency::USD),
        Some(&(1000, 0))
    );
    assert_eq!(
        core.amounts
            .get(&tieout_core::money::Currency::parse("eur").expect("eur")),
        Some(&(250, 0))
    );
    assert_eq!(core.amounts.len(), 2);
    let empty: Balance = parse(json!({}));
    assert!(empty.to_core(0).amounts.is_empty());
}

#[test]
fn canonical_payout() {
    let p: Payout = fixture("payout");
    assert_eq!(p.id, "po_1Pgc79B7WZ01zgkWu1KToYf4");
    assert_eq!(p.amount, Some(1100));
    assert!(p.automatic);
    assert_eq!(p.status, Some(PayoutStatus::InTransit));
    assert_eq!(
        p.reconciliation_status,
        Some(ReconciliationStatus::Completed)
    );
    assert_eq!(
        p.balance_transaction.as_ref().map(Expandable::id),
        Some("txn_1PgaxNB7WZ01zgkWEV3TLf40")
    );
    assert_eq!(p.method.as_deref(), Some("standard"));
}

#[test]
fn canonical_balance_transaction() {
    let t: BalanceTransaction = fixture("balance_transaction");
    assert_eq!(t.id, "txn_1PgaxNB7WZ01zgkWEV3TLf40");
    assert_eq!((t.amount, t.fee, t.net), (Some(100), Some(0), Some(100)));
    assert_eq!(t.kind.as_deref(), Some("charge"));
    assert_eq!(t.reporting_category.as_deref(), Some("charge"));
    assert_eq!(
        t.source.as_ref().map(Expandable::id),
        Some("ch_1PgafuB7WZ01zgkWXYmPNZs8")
    );
}

#[test]
fn canonical_invoice() {
    let i: Invoice = fixture("invoice");
    assert_eq!(i.id, "in_1Pgc6tB7WZ01zgkWu9fdqL6I");
    assert_eq!(i.status, Some(InvoiceStatus::Draft));
    assert_eq!(i.customer_id(), Some("cus_QXg1o8vcGmoR32"));
    assert_eq!(i.amount_remaining, Some(1000));
    assert_eq!(i.subscription_id(), Some("subscription"));
    assert!(i.payment_intent.is_none() && i.charge.is_none() && i.subscription.is_none());
}

#[test]
fn canonical_invoice_payment() {
    let p: InvoicePayment = fixture("invoice_payment");
    assert!(p.is_default);
    assert_eq!(p.amount_paid, None);
    assert_eq!(
        p.payment.as_ref().and_then(|t| t.kind.as_deref()),
        Some("payment_intent")
    );
    // The fixture's status is the placeholder "status": kept, not rejected.
    assert_eq!(
        p.status,
        Some(InvoicePaymentStatus::Unknown("status".to_string()))
    );
}

#[test]
fn canonical_payment_intent() {
    let pi: PaymentIntent = fixture("payment_intent");
    assert_eq!(pi.id, "pi_1PgafyB7WZ01zgkWSjxsAJo3");
    assert_eq!(pi.amount, Some(1099));
    let err = pi.last_payment_error.expect("last_payment_error");
    assert_eq!(err.kind.as_deref(), Some("idempotency_error"));
    assert!(pi.latest_charge.is_none());
}

#[test]
fn canonical_charge() {
    let c: Charge = fixture("charge");
    assert_eq!(c.id, "ch_1PgafuB7WZ01zgkWXYmPNZs8");
    assert_eq!(c.status, Some(ChargeStatus::Succeeded));
    assert_eq!(c.amount, Some(100));
    assert_eq!(c.amount_refunded, Some(0));
    assert!(!c.disputed);
    assert_eq!(c.outcome.and_then(|o| o.kind).as_deref(), Some("type"));
    assert!(c.invoice.is_none());
}

#[test]
fn canonical_refund() {
    let r: Refund = fixture("refund");
    assert_eq!(r.id, "re_1Pgc72B7WZ01zgkWqPvrRrPE");
    assert_eq!(r.status, Some(RefundStatus::Succeeded));
    assert_eq!(
        r.charge.as_ref().map(Expandable::id),
        Some("ch_1PgafuB7WZ01zgkWXYmPNZs8")
    );
}

#[test]
fn canonical_dispute() {
    let d: Dispute = fixture("dispute");
    assert_eq!(d.id, "dp_1Pgc71B7WZ01zgkWMevJiAUx");
    assert_eq!(d.status, Some(DisputeStatus::WarningNeedsResponse));
    assert_eq!(d.amount, Some(1000));
    assert_eq!(d.reason.as_deref(), Some("general"));
}

#[test]
fn canonical_customer() {
    let c: Customer = fixture("customer");
    assert_eq!(c.id, "cus_QXg1o8vcGmoR32");
    assert!(!c.deleted);
    assert_eq!(c.email, None);
}

#[test]
fn canonical_subscription_has_its_period_on_the_item() {
    let s: Subscription = fixture("subscription");
    assert_eq!(s.id, "sub_1Pgc6rB7WZ01zgkWNy0Cn5nw");
    assert_eq!(s.status, Some(SubscriptionStatus::Active));
    assert!(s.current_period_start.is_none());
    assert_eq!(s.current_period(), (Some(1896570518), Some(976287773)));
    assert_eq!(s.interval(), Some(("month".to_string(), 1)));
}

/// A subscription item as Stripe leaves it on a metered price (no quantity): its
/// `unit_amount` is per unit of usage, so the renewal's amount is not known (issue found
/// with a 50-cent metered price listed as 0.50 USD at risk).
#[test]
fn a_metered_item_leaves_the_renewal_amount_unknown_while_a_licensed_one_counts() {
    let with_item = |item: Value| -> Subscription {
        let mut s = resource("subscription");
        s["items"]["data"] = json!([item]);
        parse(s)
    };
    let metered = with_item(json!({
        "id": "si_metered",
        "price": {"id": "price_m", "unit_amount": 50, "currency": "usd",
                  "recurring": {"interval": "month", "interval_count": 1, "usage_type": "metered"}},
    }));
    assert_eq!(metered.renewal_amount(), None);
    let legacy_metered = with_item(json!({
        "id": "si_plan",
        "plan": {"id": "plan_m", "amount": 50, "currency": "usd", "interval": "month",
                 "usage_type": "metered"},
    }));
    assert_eq!(legacy_metered.renewal_amount(), None);
    let licensed = with_item(json!({
        "id": "si_licensed",
        "quantity": 3,
        "price": {"id": "price_l", "unit_amount": 50, "currency": "usd",
                  "recurring": {"interval": "month", "usage_type": "licensed"}},
    }));
    assert_eq!(licensed.renewal_amount(), Some(150));
}

#[test]
fn canonical_lists_parse_as_lists() {
    let page = json!({
        "object": "list",
        "url": "/v1/payouts",
        "has_more": true,
        "data": [resource("payout"), resource("payout")],
    });
    let list: List<Payout> = parse(page);
    assert_eq!(list.data.len(), 2);
    assert!(list.has_more);
    let search = json!({
        "object": "search_result",
        "url": "/v1/customers/search",
        "has_more": true,
        "next_page": "page_abc",
        "data": [resource("customer")],
    });
    let found: List<Customer> = parse(search);
    assert_eq!(found.next_page.as_deref(), Some("page_abc"));
}

// ---- Pre-2025 shapes ----------------------------------------------------------------

#[test]
fn pre_basil_invoice_with_payment_intent_charge_subscription_paid() {
    let i: Invoice = parse(json!({
        "id": "in_old1",
        "object": "invoice",
        "status": "open",
        "paid": false,
        "paid_out_of_band": false,
        "customer": "cus_old",
        "currency": "usd",
        "amount_due": 5000,
        "amount_remaining": 5000,
        "attempt_count": 2,
        "attempted": true,
        "charge": "ch_old",
        "payment_intent": {
            "id": "pi_old",
            "object": "payment_intent",
            "amount": 5000,
            "invoice": "in_old1",
            "last_payment_error": {
                "type": "card_error",
                "code": "card_declined",
                "decline_code": "insufficient_funds",
                "charge": "ch_old"
            }
        },
        "subscription": "sub_old",
        "subscription_details": {"metadata": {}},
        "tax": null,
        "discount": null
    }));
    assert_eq!(i.subscription_id(), Some("sub_old"));
    assert_eq!(i.charge.as_ref().map(Expandable::id), Some("ch_old"));
    let pi = i
        .payment_intent
        .as_ref()
        .and_then(Expandable::object)
        .expect("expanded pi");
    let err = pi.last_payment_error.as_ref().expect("error");
    assert_eq!(err.decline_code.as_deref(), Some("insufficient_funds"));
    assert_eq!(err.charge.as_deref(), Some("ch_old"));
    assert_eq!(i.attempt_count, 2);
}

#[test]
fn subscription_id_prefers_parent_over_the_old_field() {
    let i: Invoice = parse(json!({
        "id": "in_both",
        "parent": {"type": "subscription_details",
                   "subscription_details": {"subscription": "sub_new"}},
        "subscription": "sub_old"
    }));
    assert_eq!(i.subscription_id(), Some("sub_new"));
    let expanded: Invoice = parse(json!({
        "id": "in_exp",
        "parent": {"type": "subscription_details",
                   "subscription_details": {"subscription": {"id": "sub_x", "object": "subscription"}}}
    }));
    assert_eq!(expanded.subscription_id(), Some("sub_x"));
}

#[test]
fn pre_basil_subscription_with_top_level_period_and_plan() {
    let s: Subscription = parse(json!({
        "id": "sub_old",
        "object": "subscription",
        "status": "past_due",
        "customer": "cus_old",
        "current_period_start": 1700000000,
        "current_period_end": 1731536000,
        "plan": {"id": "plan_annual", "object": "plan", "amount": 12000,
                 "currency": "usd", "interval": "year", "interval_count": 1},
        "quantity": 1,
        "items": {"object": "list", "data": [
            {"id": "si_old", "object": "subscription_item", "quantity": 1}
        ], "has_more": false}
    }));
    assert_eq!(s.current_period(), (Some(1700000000), Some(1731536000)));
    assert_eq!(s.interval(), Some(("year".to_string(), 1)));
    assert_eq!(s.status, Some(SubscriptionStatus::PastDue));
    // Without items at all, the top-level fields still answer.
    let bare: Subscription = parse(json!({
        "id": "sub_bare", "current_period_start": 1, "current_period_end": 2,
        "plan": {"id": "p", "interval": "month"}
    }));
    assert_eq!(bare.current_period(), (Some(1), Some(2)));
    assert_eq!(bare.interval(), Some(("month".to_string(), 1)));
}

#[test]
fn pre_basil_charge_with_invoice() {
    let c: Charge = parse(json!({
        "id": "ch_old", "object": "charge", "amount": 5000, "currency": "usd",
        "status": "failed", "invoice": "in_old1", "failure_code": "card_declined",
        "outcome": {"type": "issuer_declined", "reason": "insufficient_funds",
                    "network_status": "declined_by_network"}
    }));
    assert_eq!(c.invoice.as_ref().map(Expandable::id), Some("in_old1"));
    assert_eq!(c.status, Some(ChargeStatus::Failed));
    assert_eq!(
        c.outcome.and_then(|o| o.reason).as_deref(),
        Some("insufficient_funds")
    );
}

// ---- Hostile but valid -------------------------------------------------------------------

#[test]
fn unknown_enum_values_are_kept() {
    let t: BalanceTransaction = parse(json!({
        "id": "txn_new", "type": "quantum_settlement", "reporting_category": "brand_new_category",
        "amount": -10, "fee": 0, "net": -10, "currency": "eur"
    }));
    assert_eq!(t.kind.as_deref(), Some("quantum_settlement"));
    let d: Dispute = parse(json!({"id": "dp_p", "status": "prevented", "reason": "noncompliant"}));
    assert_eq!(d.status, Some(DisputeStatus::Prevented));
    let d2: Dispute = parse(json!({"id": "dp_f", "status": "escalated_to_arbitration"}));
    assert_eq!(
        d2.status,
        Some(DisputeStatus::Unknown("escalated_to_arbitration".into()))
    );
    assert_eq!(
        d2.status.as_ref().map(DisputeStatus::as_str),
        Some("escalated_to_arbitration")
    );
    let p: Payout = parse(json!({"id": "po_x", "status": "returned_to_sender",
                                 "reconciliation_status": "pending_review"}));
    assert_eq!(
        p.status,
        Some(PayoutStatus::Unknown("returned_to_sender".into()))
    );
    let i: Invoice = parse(json!({"id": "in_x", "status": "in_collections"}));
    assert_eq!(
        i.status.as_ref().map(InvoiceStatus::as_str),
        Some("in_collections")
    );
    let s: Subscription = parse(json!({"id": "sub_x", "status": "hibernating"}));
    assert!(matches!(s.status, Some(SubscriptionStatus::Unknown(_))));
    let r: Refund = parse(json!({"id": "re_x", "status": "awaiting_bank"}));
    assert!(matches!(r.status, Some(RefundStatus::Unknown(_))));
    let c: Charge = parse(json!({"id": "ch_x", "status": "reversed"}));
    assert!(matches!(c.status, Some(ChargeStatus::Unknown(_))));
}

#[test]
fn a_brand_new_decline_code_parses() {
    let pi: PaymentIntent = parse(json!({
        "id": "pi_new", "status": "requires_payment_method",
        "last_payment_error": {
            "type": "card_error", "code": "card_declined",
            "decline_code": "issuer_quantum_entanglement",
            "advice_code": "try_again_next_epoch",
            "network_decline_code": "Q9",
            "message": "Your card was declined.",
            "payment_method": {"id": "pm_1", "object": "payment_method"},
            "charge": {"id": "ch_inline", "object": "charge"}
        }
    }));
    let e = pi.last_payment_error.expect("error");
    assert_eq!(
        e.decline_code.as_deref(),
        Some("issuer_quantum_entanglement")
    );
    assert_eq!(e.advice_code.as_deref(), Some("try_again_next_epoch"));
    assert_eq!(e.charge.as_deref(), Some("ch_inline"));
}

#[test]
fn nulls_where_objects_are_expected() {
    let i: Invoice = parse(json!({
        "id": "in_nulls", "customer": null, "parent": null, "payments": null,
        "status_transitions": null, "metadata": null, "attempt_count": null,
        "attempted": null, "status": null, "amount_remaining": null
    }));
    assert_eq!(i.customer_id(), None);
    assert_eq!(i.subscription_id(), None);
    assert_eq!(i.attempt_count, 0);
    assert!(i.metadata.is_empty());
    let c: Charge = parse(json!({
        "id": "ch_nulls", "outcome": null, "billing_details": null, "refunded": null,
        "metadata": {"order_id": 6735, "note": null, "flag": true}
    }));
    assert!(c.outcome.is_none());
    assert_eq!(c.metadata.get("order_id").map(String::as_str), Some("6735"));
    assert!(!c.metadata.contains_key("note"));
    let s: Subscription = parse(json!({"id": "sub_nulls", "items": null, "plan": null}));
    assert_eq!(s.current_period(), (None, None));
    assert_eq!(s.interval(), None);
    let t: BalanceTransaction = parse(json!({"id": "txn_n", "fee_details": null, "source": null}));
    assert!(t.fee_details.is_empty());
    let l: List<Payout> = parse(json!({"object": "list", "data": null, "has_more": null}));
    assert!(l.data.is_empty() && !l.has_more);
    let b: Balance = parse(json!({"available": null, "pending": null}));
    assert!(b.available.is_empty());
}

#[test]
fn missing_optional_fields() {
    let _: Payout = parse(json!({"id": "po_min"}));
    let _: BalanceTransaction = parse(json!({"id": "txn_min"}));
    let _: Invoice = parse(json!({"id": "in_min"}));
    let _: InvoicePayment = parse(json!({"id": "inpay_min"}));
    let _: PaymentIntent = parse(json!({"id": "pi_min"}));
    let _: Charge = parse(json!({"id": "ch_min"}));
    let _: Refund = parse(json!({"id": "re_min"}));
    let _: Dispute = parse(json!({"id": "dp_min"}));
    let _: Customer = parse(json!({"id": "cus_min"}));
    let _: Subscription = parse(json!({"id": "sub_min"}));
    let _: Account = parse(json!({"id": "acct_min"}));
    let _: Balance = parse(json!({}));
    let _: ErrorBody = parse(json!({}));
}

#[test]
fn deleted_customer_and_expanded_references() {
    let i: Invoice = parse(json!({
        "id": "in_exp",
        "customer": {"id": "cus_gone", "object": "customer", "deleted": true},
        "payments": {"object": "list", "has_more": false, "data": [{
            "id": "inpay_1", "is_default": true, "status": "open",
            "payment": {"type": "payment_intent", "payment_intent": {
                "id": "pi_1", "last_payment_error": {"decline_code": "expired_card"}
            }}
        }]}
    }));
    assert_eq!(i.customer_id(), Some("cus_gone"));
    let customer = i
        .customer
        .as_ref()
        .and_then(Expandable::object)
        .expect("object");
    assert!(customer.deleted);
    let payments = i.payments.as_ref().expect("payments");
    let pi = payments.data[0]
        .payment
        .as_ref()
        .and_then(|p| p.payment_intent.as_ref())
        .and_then(Expandable::object)
        .expect("expanded pi");
    assert_eq!(
        pi.last_payment_error
            .as_ref()
            .and_then(|e| e.decline_code.as_deref()),
        Some("expired_card")
    );
}

#[test]
fn stripe_error_bodies() {
    let body: ErrorBody = parse(json!({"error": {
        "type": "invalid_request_error",
        "message": "Having the 'rak_payout_read' permission would allow this request to continue.",
        "some_new_field": {"nested": true}
    }}));
    assert_eq!(body.error.kind.as_deref(), Some("invalid_request_error"));
    assert_eq!(
        super::error::parse_permission(body.error.message.as_deref().unwrap_or("")).as_deref(),
        Some("rak_payout_read")
    );
}
