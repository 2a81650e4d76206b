//! The fake Stripe server itself, over real HTTP (reqwest) against the small known fixture
//! set `tests/fixtures/fake_mini`: pagination, every filter, expansions, 401/403/404/400,
//! injected faults, the rate limit, the request log and the idempotent refund POST.
//! Also the shared harness (the `tieout` runner and golden files).

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::Value;
use tieout::stripe::models;

use crate::support::fake::StripeResp;
use crate::support::{
    FakeConfig, FakeStripe, Fault, ObjectKind, RateLimit, STRIPE_VERSION, StripeReq, TEST_KEY,
    Tieout, VersionCheck, assert_golden, redact, start_fake,
};

fn ts(rfc3339: &str) -> i64 {
    rfc3339
        .parse::<jiff::Timestamp>()
        .expect("a valid timestamp")
        .as_second()
}

async fn mini() -> FakeStripe {
    FakeStripe::start(FakeConfig::mini()).await
}

async fn get(fake: &FakeStripe, path: &str) -> StripeResp {
    StripeReq::get(&fake.base_url(), path).send().await
}

#[track_caller]
fn ok_ids(resp: &StripeResp) -> Vec<String> {
    assert_eq!(resp.status, 200, "{}", resp.text);
    resp.ids()
}

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

// --- pagination ---

#[tokio::test]
async fn lists_page_newest_first_with_cursors() {
    let fake = mini().await;
    let mut pages = Vec::new();
    let mut path = "/v1/balance_transactions?limit=3".to_string();
    loop {
        let resp = get(&fake, &path).await;
        assert_eq!(resp.json["object"], "list");
        assert_eq!(resp.json["url"], "/v1/balance_transactions");
        let page = ok_ids(&resp);
        let more = resp.json["has_more"].as_bool().expect("has_more");
        let last = page.last().cloned().expect("a non-empty page");
        pages.push(page);
        if !more {
            break;
        }
        path = format!("/v1/balance_transactions?limit=3&starting_after={last}");
    }
    // created desc; txn_Mini04/05 share `created`, so the id decides (descending).
    assert_eq!(
        pages,
        vec![
            ids(&["txn_Mini10", "txn_Mini09", "txn_Mini08"]),
            ids(&["txn_Mini07", "txn_Mini06", "txn_Mini05"]),
            ids(&["txn_Mini04", "txn_Mini03", "txn_Mini02"]),
            ids(&["txn_Mini01"]),
        ]
    );

    let back = get(
        &fake,
        "/v1/balance_transactions?limit=3&ending_before=txn_Mini04",
    )
    .await;
    assert_eq!(
        ok_ids(&back),
        ids(&["txn_Mini07", "txn_Mini06", "txn_Mini05"])
    );
    assert_eq!(back.json["has_more"], true);
    let first = get(
        &fake,
        "/v1/balance_transactions?limit=3&ending_before=txn_Mini08",
    )
    .await;
    assert_eq!(ok_ids(&first), ids(&["txn_Mini10", "txn_Mini09"]));
    assert_eq!(first.json["has_more"], false);

    // Default limit is 10: all ten on one page, nothing more.
    let all = get(&fake, "/v1/balance_transactions").await;
    assert_eq!(ok_ids(&all).len(), 10);
    assert_eq!(all.json["has_more"], false);
}

#[tokio::test]
async fn bad_limits_and_cursors_are_400() {
    let fake = mini().await;
    for bad in ["101", "0", "ten"] {
        let resp = get(&fake, &format!("/v1/payouts?limit={bad}")).await;
        assert_eq!(resp.status, 400, "limit={bad}: {}", resp.text);
        assert_eq!(resp.json["error"]["type"], "invalid_request_error");
        assert_eq!(resp.json["error"]["param"], "limit");
    }
    assert_eq!(get(&fake, "/v1/payouts?limit=100").await.status, 200);
    let resp = get(&fake, "/v1/payouts?starting_after=po_Nope").await;
    assert_eq!(resp.status, 400);
    assert_eq!(resp.json["error"]["param"], "starting_after");
    let resp = get(&fake, "/v1/charges?created[gte]=yesterday").await;
    assert_eq!(resp.status, 400);
    assert_eq!(resp.json["error"]["param"], "created[gte]");
    // Unknown filters are ignored, as documented for the fake.
    assert_eq!(get(&fake, "/v1/charges?colour=blue").await.status, 200);
}

// --- filters ---

#[tokio::test]
async fn payout_filters() {
    let fake = mini().await;
    let all = get(&fake, "/v1/payouts").await;
    assert_eq!(
        ok_ids(&all),
        ids(&["po_Mini4", "po_Mini3", "po_Mini2", "po_Mini1"])
    );
    let nov = get(
        &fake,
        &format!(
            "/v1/payouts?arrival_date[gte]={}&arrival_date[lt]={}",
            ts("2026-11-01T00:00:00Z"),
            ts("2026-12-01T00:00:00Z")
        ),
    )
    .await;
    assert_eq!(ok_ids(&nov), ids(&["po_Mini4", "po_Mini3", "po_Mini2"]));
    let exact = get(
        &fake,
        &format!("/v1/payouts?arrival_date={}", ts("2026-10-03T00:00:00Z")),
    )
    .await;
    assert_eq!(ok_ids(&exact), ids(&["po_Mini1"]));
    let created = get(
        &fake,
        &format!(
            "/v1/payouts?created[gt]={}&created[lte]={}",
            ts("2026-10-01T06:00:00Z"),
            ts("2026-11-09T06:00:00Z")
        ),
    )
    .await;
    assert_eq!(ok_ids(&created), ids(&["po_Mini3", "po_Mini2"]));
    let failed = get(&fake, "/v1/payouts?status=failed").await;
    assert!(ok_ids(&failed).is_empty());
    let one = get(&fake, "/v1/payouts/po_Mini2").await;
    assert_eq!(one.status, 200);
    assert_eq!(one.json["amount"], 1121);
}

#[tokio::test]
async fn balance_transactions_by_payout_and_other_filters() {
    let fake = mini().await;
    let po1 = get(&fake, "/v1/balance_transactions?payout=po_Mini1").await;
    assert_eq!(
        ok_ids(&po1),
        ids(&["txn_Mini03", "txn_Mini02", "txn_Mini01"])
    );
    // Paging through a payout's lines keeps to that payout.
    let p1 = get(&fake, "/v1/balance_transactions?payout=po_Mini2&limit=2").await;
    assert_eq!(ok_ids(&p1), ids(&["txn_Mini07", "txn_Mini06"]));
    assert_eq!(p1.json["has_more"], true);
    let p2 = get(
        &fake,
        "/v1/balance_transactions?payout=po_Mini2&limit=2&starting_after=txn_Mini06",
    )
    .await;
    assert_eq!(ok_ids(&p2), ids(&["txn_Mini05", "txn_Mini04"]));
    assert_eq!(p2.json["has_more"], false);
    // The lines of a payout sum to zero with the payout's own transaction.
    let net: i64 = p1.json["data"]
        .as_array()
        .into_iter()
        .chain(p2.json["data"].as_array())
        .flatten()
        .map(|t| t["net"].as_i64().expect("net"))
        .sum();
    assert_eq!(net, 0);

    for manual in ["po_Mini3", "po_Mini4"] {
        let resp = get(&fake, &format!("/v1/balance_transactions?payout={manual}")).await;
        assert_eq!(resp.status, 400, "{manual}");
        assert_eq!(resp.json["error"]["type"], "invalid_request_error");
        assert_eq!(
            resp.error_message(),
            "Balance transaction history can only be filtered on automatic transfers, not manual."
        );
    }
    let missing = get(&fake, "/v1/balance_transactions?payout=po_Nope").await;
    assert_eq!(missing.status, 400);
    assert_eq!(missing.json["error"]["code"], "resource_missing");

    let payouts = get(&fake, "/v1/balance_transactions?type=payout").await;
    assert_eq!(
        ok_ids(&payouts),
        ids(&["txn_Mini10", "txn_Mini08", "txn_Mini07", "txn_Mini03"])
    );
    let by_source = get(&fake, "/v1/balance_transactions?source=ch_Mini1").await;
    assert_eq!(ok_ids(&by_source), ids(&["txn_Mini01"]));
    let jpy = get(&fake, "/v1/balance_transactions?currency=jpy").await;
    assert_eq!(ok_ids(&jpy), ids(&["txn_Mini09"]));
    let oct = get(
        &fake,
        &format!(
            "/v1/balance_transactions?created[gte]={}&created[lt]={}&type=charge",
            ts("2026-10-01T00:00:00Z"),
            ts("2026-11-01T00:00:00Z")
        ),
    )
    .await;
    assert_eq!(ok_ids(&oct), ids(&["txn_Mini05", "txn_Mini04"]));
    // expand[]=data.source inlines the charge/refund/dispute.
    let expanded = get(
        &fake,
        "/v1/balance_transactions?payout=po_Mini1&expand[]=data.source",
    )
    .await;
    assert_eq!(expanded.json["data"][1]["source"]["object"], "refund");
    assert_eq!(expanded.json["data"][2]["source"]["amount_captured"], 5000);
}

#[tokio::test]
async fn invoice_filters_and_payments() {
    let fake = mini().await;
    let open = get(&fake, "/v1/invoices?status=open").await;
    assert_eq!(ok_ids(&open), ids(&["in_Mini3", "in_Mini2"]));
    let send = get(&fake, "/v1/invoices?collection_method=send_invoice").await;
    assert_eq!(ok_ids(&send), ids(&["in_Mini3"]));
    let cus = get(&fake, "/v1/invoices?customer=cus_MiniC").await;
    assert_eq!(ok_ids(&cus), ids(&["in_Mini4", "in_Mini3"]));
    let due = get(
        &fake,
        &format!("/v1/invoices?due_date[lt]={}", ts("2026-11-20T00:00:00Z")),
    )
    .await;
    assert_eq!(ok_ids(&due), ids(&["in_Mini3"]));
    let sub = get(&fake, "/v1/invoices?subscription=sub_MiniB").await;
    assert_eq!(ok_ids(&sub), ids(&["in_Mini2"]));
    let bad = get(&fake, "/v1/invoices?status=past_due").await;
    assert_eq!(bad.status, 400);
    assert_eq!(bad.json["error"]["param"], "status");

    let with_payments = get(
        &fake,
        "/v1/invoices?status=open&collection_method=charge_automatically&expand[]=data.payments",
    )
    .await;
    assert_eq!(ok_ids(&with_payments), ids(&["in_Mini2"]));
    let payments = &with_payments.json["data"][0]["payments"];
    assert_eq!(payments["object"], "list");
    assert_eq!(payments["data"][0]["id"], "inpay_Mini2");
    assert_eq!(payments["data"][0]["payment"]["payment_intent"], "pi_Mini2");
    // Without the expansion there is no `payments` field.
    assert!(open.json["data"][0].get("payments").is_none());

    let one = get(
        &fake,
        "/v1/invoices/in_Mini2?expand[]=payments.data.payment.payment_intent",
    )
    .await;
    assert_eq!(one.status, 200, "{}", one.text);
    let pi = &one.json["payments"]["data"][0]["payment"]["payment_intent"];
    assert_eq!(pi["id"], "pi_Mini2");
    assert_eq!(
        pi["last_payment_error"]["decline_code"],
        "insufficient_funds"
    );

    // On a list that path is five levels: Stripe refuses it, so does the fake.
    let deep = get(
        &fake,
        "/v1/invoices?expand[]=data.payments.data.payment.payment_intent",
    )
    .await;
    assert_eq!(deep.status, 400);
    assert!(
        deep.error_message().contains("more than 4 levels"),
        "{}",
        deep.text
    );
    // List expansions must start with `data`.
    let undotted = get(&fake, "/v1/invoices?expand[]=payments").await;
    assert_eq!(undotted.status, 400);
}

#[tokio::test]
async fn invoice_payments_payment_intents_charges() {
    let fake = mini().await;
    let by_invoice = get(&fake, "/v1/invoice_payments?invoice=in_Mini2").await;
    assert_eq!(ok_ids(&by_invoice), ids(&["inpay_Mini2"]));
    let by_pi = get(
        &fake,
        "/v1/invoice_payments?payment[type]=payment_intent&payment[payment_intent]=pi_Mini5",
    )
    .await;
    assert_eq!(ok_ids(&by_pi), ids(&["inpay_Mini3"]));
    let expanded = get(
        &fake,
        "/v1/invoice_payments?invoice=in_Mini2&expand[]=data.payment.payment_intent",
    )
    .await;
    let pi = &expanded.json["data"][0]["payment"]["payment_intent"];
    assert_eq!(pi["object"], "payment_intent");
    assert_eq!(pi["last_payment_error"]["code"], "card_declined");

    let pis = get(&fake, "/v1/payment_intents?customer=cus_MiniA").await;
    assert_eq!(ok_ids(&pis), ids(&["pi_Mini4", "pi_Mini1"]));
    let pi2 = get(&fake, "/v1/payment_intents/pi_Mini2?expand[]=latest_charge").await;
    assert_eq!(pi2.json["latest_charge"]["id"], "ch_Mini2");
    assert_eq!(
        pi2.json["latest_charge"]["outcome"]["reason"],
        "insufficient_funds"
    );
    let plain = get(&fake, "/v1/payment_intents/pi_Mini2").await;
    assert_eq!(plain.json["latest_charge"], "ch_Mini2");

    let charges = get(&fake, "/v1/charges?customer=cus_MiniA").await;
    assert_eq!(ok_ids(&charges), ids(&["ch_Mini4", "ch_Mini1"]));
    let by_pi = get(&fake, "/v1/charges?payment_intent=pi_Mini3").await;
    assert_eq!(ok_ids(&by_pi), ids(&["ch_Mini3"]));
    let nov = get(
        &fake,
        &format!("/v1/charges?created[gte]={}", ts("2026-11-01T00:00:00Z")),
    )
    .await;
    assert_eq!(ok_ids(&nov), ids(&["ch_Mini5"]));
    assert_eq!(
        get(&fake, "/v1/charges/ch_Mini5").await.json["currency"],
        "jpy"
    );
}

#[tokio::test]
async fn refunds_disputes_customers_subscriptions() {
    let fake = mini().await;
    assert_eq!(
        ok_ids(&get(&fake, "/v1/refunds?charge=ch_Mini1").await),
        ids(&["re_Mini1"])
    );
    assert_eq!(
        ok_ids(&get(&fake, "/v1/refunds?payment_intent=pi_Mini1").await),
        ids(&["re_Mini1"])
    );
    assert!(ok_ids(&get(&fake, "/v1/refunds?charge=ch_Mini3").await).is_empty());
    assert_eq!(
        get(&fake, "/v1/refunds/re_Mini1").await.json["amount"],
        1000
    );
    assert_eq!(
        ok_ids(&get(&fake, "/v1/disputes?charge=ch_Mini4").await),
        ids(&["du_Mini1"])
    );
    assert_eq!(
        ok_ids(&get(&fake, "/v1/disputes?payment_intent=pi_Mini4").await),
        ids(&["du_Mini1"])
    );
    assert_eq!(
        get(&fake, "/v1/disputes/du_Mini1").await.json["status"],
        "needs_response"
    );

    // The list filter is exact and case-sensitive...
    assert_eq!(
        ok_ids(&get(&fake, "/v1/customers?email=bob@example.com").await),
        ids(&["cus_MiniC"])
    );
    assert_eq!(
        ok_ids(&get(&fake, "/v1/customers?email=Bob@Example.com").await),
        ids(&["cus_MiniB"])
    );
    assert!(ok_ids(&get(&fake, "/v1/customers?email=BOB@example.com").await).is_empty());
    assert_eq!(
        get(&fake, "/v1/customers/cus_MiniD").await.json["name"],
        "=Dana Formula"
    );

    // ...search is case-insensitive and pages with next_page.
    let q = "/v1/customers/search?query=email:%27BOB@example.com%27&limit=1";
    let p1 = get(&fake, q).await;
    assert_eq!(p1.json["object"], "search_result");
    assert_eq!(ok_ids(&p1), ids(&["cus_MiniC"]));
    assert_eq!(p1.json["has_more"], true);
    let next = p1.json["next_page"]
        .as_str()
        .expect("next_page")
        .to_string();
    let p2 = get(&fake, &format!("{q}&page={next}")).await;
    assert_eq!(ok_ids(&p2), ids(&["cus_MiniB"]));
    assert_eq!(p2.json["has_more"], false);
    assert_eq!(p2.json["next_page"], Value::Null);
    let bad = get(&fake, "/v1/customers/search?query=email%3Dx").await;
    assert_eq!(bad.status, 400);

    assert_eq!(
        ok_ids(&get(&fake, "/v1/subscriptions").await),
        ids(&["sub_MiniB", "sub_MiniA"]),
        "canceled subscriptions are left out by default"
    );
    assert_eq!(
        ok_ids(&get(&fake, "/v1/subscriptions?status=all").await),
        ids(&["sub_MiniC", "sub_MiniB", "sub_MiniA"])
    );
    assert_eq!(
        ok_ids(&get(&fake, "/v1/subscriptions?status=canceled").await),
        ids(&["sub_MiniC"])
    );
    assert_eq!(
        ok_ids(&get(&fake, "/v1/subscriptions?customer=cus_MiniA").await),
        ids(&["sub_MiniA"])
    );
    assert_eq!(
        get(&fake, "/v1/subscriptions?status=nope").await.status,
        400
    );
    assert_eq!(get(&fake, "/v1/subscriptions/sub_MiniC").await.status, 200);
}

#[tokio::test]
async fn every_answer_parses_into_tieouts_models() {
    let fake = mini().await;
    async fn list<T: serde::de::DeserializeOwned>(fake: &FakeStripe, path: &str) -> usize {
        let resp = get(fake, &format!("{path}?limit=100")).await;
        assert_eq!(resp.status, 200, "{path}: {}", resp.text);
        let parsed: models::List<T> =
            serde_json::from_value(resp.json).unwrap_or_else(|e| panic!("{path}: {e}"));
        parsed.data.len()
    }
    assert_eq!(list::<models::Payout>(&fake, "/v1/payouts").await, 4);
    assert_eq!(
        list::<models::BalanceTransaction>(&fake, "/v1/balance_transactions").await,
        10
    );
    assert_eq!(list::<models::Invoice>(&fake, "/v1/invoices").await, 4);
    assert_eq!(
        list::<models::InvoicePayment>(&fake, "/v1/invoice_payments").await,
        3
    );
    assert_eq!(
        list::<models::PaymentIntent>(&fake, "/v1/payment_intents").await,
        5
    );
    assert_eq!(list::<models::Charge>(&fake, "/v1/charges").await, 5);
    assert_eq!(list::<models::Refund>(&fake, "/v1/refunds").await, 1);
    assert_eq!(list::<models::Dispute>(&fake, "/v1/disputes").await, 1);
    assert_eq!(list::<models::Customer>(&fake, "/v1/customers").await, 4);
    assert_eq!(
        list::<models::Subscription>(&fake, "/v1/subscriptions").await,
        2
    );
    let balance: models::Balance =
        serde_json::from_value(get(&fake, "/v1/balance").await.json).expect("balance");
    assert_eq!(balance.available.len(), 2);
    let account = StripeReq::get(&fake.base_url(), "/v1/account")
        .key(Some("sk_test_fakeSecretKey0000"))
        .send()
        .await;
    let account: models::Account = serde_json::from_value(account.json).expect("account");
    assert_eq!(account.id, "acct_1MiniFake0000001");
}

// --- auth, permissions, errors ---

#[tokio::test]
async fn keys_are_checked_and_never_echoed() {
    let fake = FakeStripe::start(FakeConfig::mini().accept_only([TEST_KEY])).await;
    let none = StripeReq::get(&fake.base_url(), "/v1/payouts")
        .key(None)
        .send()
        .await;
    assert_eq!(none.status, 401);
    assert!(
        none.error_message()
            .starts_with("You did not provide an API key")
    );
    let wrong_key = "rk_test_51SomebodyElsesKeyXYZ1234";
    let wrong = StripeReq::get(&fake.base_url(), "/v1/payouts")
        .key(Some(wrong_key))
        .send()
        .await;
    assert_eq!(wrong.status, 401);
    assert_eq!(
        wrong.error_message(),
        "Invalid API Key provided: rk_test_****1234"
    );
    assert_eq!(wrong.json["error"]["type"], "invalid_request_error");

    let any = FakeStripe::start(FakeConfig::mini()).await;
    for refused in [
        "pk_test_123456789",
        concat!("rk_live", "_123456789"),
        "sk_test_",
    ] {
        let resp = StripeReq::get(&any.base_url(), "/v1/balance")
            .key(Some(refused))
            .send()
            .await;
        assert_eq!(resp.status, 401, "{refused}");
    }
    let ok = StripeReq::get(&any.base_url(), "/v1/balance")
        .key(Some("sk_test_anything"))
        .send()
        .await;
    assert_eq!(ok.status, 200);

    let log = format!("{:?}", fake.requests());
    assert!(!log.contains(wrong_key) && !log.contains(TEST_KEY), "{log}");
    assert_eq!(
        fake.requests().iter().map(|r| r.auth).collect::<Vec<_>>(),
        vec![
            tieout_testkit::fake_stripe::AuthSeen::Missing,
            tieout_testkit::fake_stripe::AuthSeen::Rejected
        ]
    );
}

#[tokio::test]
async fn denied_permissions_are_403_naming_the_slug() {
    let fake = FakeStripe::start(
        FakeConfig::mini().deny(TEST_KEY, ["rak_payout_read", "rak_customer_read"]),
    )
    .await;
    for path in ["/v1/payouts", "/v1/payouts/po_Mini1"] {
        let resp = get(&fake, path).await;
        assert_eq!(resp.status, 403, "{path}");
        let msg = resp.error_message();
        assert!(
            msg.starts_with("The provided key 'rk_test_***") && msg.contains(
                "does not have the required permissions for this endpoint on account 'acct_1MiniFake0000001'. Having the 'rak_payout_read' permission would allow this request to continue."
            ),
            "{msg}"
        );
        assert!(!msg.contains(TEST_KEY));
        assert_eq!(resp.json["error"]["type"], "invalid_request_error");
    }
    let search = get(&fake, "/v1/customers/search?query=email:'x@y.z'").await;
    assert_eq!(search.status, 403);
    assert!(search.error_message().contains("'rak_customer_read'"));
    // Endpoints needing other permissions still work.
    assert_eq!(get(&fake, "/v1/charges").await.status, 200);
    assert_eq!(get(&fake, "/v1/balance_transactions").await.status, 200);

    // Changed while running.
    fake.allow(TEST_KEY, "rak_payout_read");
    assert_eq!(get(&fake, "/v1/payouts").await.status, 200);
    fake.deny(TEST_KEY, "rak_balance_read");
    let balance = get(&fake, "/v1/balance").await;
    assert_eq!(balance.status, 403);
    assert!(balance.error_message().contains("'rak_balance_read'"));
}

#[tokio::test]
async fn the_account_endpoint_refuses_restricted_keys_unless_configured() {
    let fake = mini().await;
    let rk = get(&fake, "/v1/account").await;
    assert_eq!(rk.status, 403);
    assert!(
        rk.error_message()
            .contains("on account 'acct_1MiniFake0000001'")
    );
    let sk = StripeReq::get(&fake.base_url(), "/v1/account")
        .key(Some("sk_test_fullSecretKey"))
        .send()
        .await;
    assert_eq!(sk.status, 200);
    assert_eq!(sk.json["business_profile"]["name"], "Mini Fake Shop");

    let open =
        FakeStripe::start(FakeConfig::mini().account_readable_by_restricted_keys(true)).await;
    assert_eq!(
        get(&open, "/v1/account").await.json["id"],
        "acct_1MiniFake0000001"
    );
}

#[tokio::test]
async fn missing_objects_unknown_urls_and_other_accounts() {
    let fake = mini().await;
    let missing = get(&fake, "/v1/payouts/po_Nope").await;
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json["error"]["code"], "resource_missing");
    assert_eq!(missing.json["error"]["type"], "invalid_request_error");
    assert_eq!(missing.error_message(), "No such payout: 'po_Nope'");
    for (path, noun) in [
        ("/v1/balance_transactions/txn_X", "balance transaction"),
        ("/v1/invoices/in_X", "invoice"),
        ("/v1/payment_intents/pi_X", "payment_intent"),
        ("/v1/charges/ch_X", "charge"),
        ("/v1/refunds/re_X", "refund"),
        ("/v1/disputes/du_X", "dispute"),
        ("/v1/customers/cus_X", "customer"),
        ("/v1/subscriptions/sub_X", "subscription"),
        ("/v1/invoice_payments/inpay_X", "invoice_payment"),
    ] {
        let resp = get(&fake, path).await;
        assert_eq!(resp.status, 404, "{path}");
        assert!(
            resp.error_message()
                .starts_with(&format!("No such {noun}: '")),
            "{path}: {}",
            resp.text
        );
    }
    let unknown = get(&fake, "/v1/widgets").await;
    assert_eq!(unknown.status, 404);
    assert!(
        unknown
            .error_message()
            .starts_with("Unrecognized request URL (GET: /v1/widgets)")
    );
    let post = StripeReq::post(&fake.base_url(), "/v1/payouts")
        .form("amount", "100")
        .send()
        .await;
    assert_eq!(post.status, 404);
    assert!(
        post.error_message()
            .starts_with("Unrecognized request URL (POST: /v1/payouts)")
    );

    let other = StripeReq::get(&fake.base_url(), "/v1/payouts")
        .header("Stripe-Account", "acct_SomeoneElse")
        .send()
        .await;
    assert_eq!(other.status, 403);
    assert_eq!(other.json["error"]["code"], "account_invalid");
    let same = StripeReq::get(&fake.base_url(), "/v1/payouts")
        .header("Stripe-Account", "acct_1MiniFake0000001")
        .send()
        .await;
    assert_eq!(same.status, 200);
}

#[tokio::test]
async fn stripe_version_is_required_and_echoed_with_a_request_id() {
    let fake = mini().await;
    let without = StripeReq::get(&fake.base_url(), "/v1/payouts")
        .version(None)
        .send()
        .await;
    assert_eq!(without.status, 400);
    assert!(without.error_message().contains("Stripe-Version"));
    let with = get(&fake, "/v1/payouts").await;
    assert_eq!(with.header("stripe-version"), Some(STRIPE_VERSION));
    let first = without
        .header("request-id")
        .expect("Request-Id")
        .to_string();
    let second = with.header("request-id").expect("Request-Id").to_string();
    assert!(first.starts_with("req_fake_") && second.starts_with("req_fake_"));
    assert_ne!(first, second);

    fake.set_version_check(VersionCheck::Exactly(STRIPE_VERSION.to_string()));
    let old = StripeReq::get(&fake.base_url(), "/v1/payouts")
        .version(Some("2024-06-20"))
        .send()
        .await;
    assert_eq!(old.status, 400);
    assert!(old.error_message().contains("2024-06-20"));
    fake.set_version_check(VersionCheck::Ignore);
    let lenient = StripeReq::get(&fake.base_url(), "/v1/payouts")
        .version(None)
        .send()
        .await;
    assert_eq!(lenient.status, 200);
}

// --- faults ---

#[tokio::test]
async fn injected_statuses_fire_n_times_on_their_prefix() {
    let fake = mini().await;
    fake.inject(Fault::Status {
        path_prefix: "/v1/payouts".into(),
        status: 429,
        times: 2,
        should_retry: Some(true),
    });
    // Other paths are untouched and do not spend the fault.
    assert_eq!(get(&fake, "/v1/charges").await.status, 200);
    assert_eq!(fake.pending_faults(), 1);
    for _ in 0..2 {
        let resp = get(&fake, "/v1/payouts?limit=2").await;
        assert_eq!(resp.status, 429);
        assert_eq!(resp.header("stripe-should-retry"), Some("true"));
        assert_eq!(
            resp.header("stripe-rate-limited-reason"),
            Some("endpoint-rate")
        );
        assert_eq!(resp.json["error"]["code"], "rate_limit");
        assert!(resp.header("request-id").is_some());
    }
    assert_eq!(get(&fake, "/v1/payouts?limit=2").await.status, 200);
    assert_eq!(fake.pending_faults(), 0);

    fake.inject(Fault::status("/v1/", 500, 1));
    let err = get(&fake, "/v1/invoices").await;
    assert_eq!(err.status, 500);
    assert_eq!(err.json["error"]["type"], "api_error");
    assert_eq!(err.header("stripe-should-retry"), None);
    fake.inject(Fault::Status {
        path_prefix: String::new(),
        status: 409,
        times: 1,
        should_retry: Some(false),
    });
    let conflict = get(&fake, "/v1/customers").await;
    assert_eq!(conflict.status, 409);
    assert_eq!(conflict.header("stripe-should-retry"), Some("false"));
    fake.inject(Fault::LockTimeout {
        path_prefix: "/v1/charges/".into(),
        times: 1,
    });
    let locked = get(&fake, "/v1/charges/ch_Mini1").await;
    assert_eq!(locked.status, 429);
    assert_eq!(locked.json["error"]["code"], "lock_timeout");
    assert_eq!(locked.header("stripe-rate-limited-reason"), None);
    assert_eq!(get(&fake, "/v1/charges/ch_Mini1").await.status, 200);

    fake.inject(Fault::status("/v1/disputes", 503, Fault::ALWAYS));
    for _ in 0..3 {
        assert_eq!(get(&fake, "/v1/disputes").await.status, 503);
    }
    fake.clear_faults();
    assert_eq!(get(&fake, "/v1/disputes").await.status, 200);

    let stats = fake.stats();
    assert_eq!(stats.faults_fired, 8);
    assert_eq!(stats.by_status.get(&429), Some(&3));
    assert_eq!(stats.by_status.get(&503), Some(&3));
}

#[tokio::test]
async fn truncated_bodies_resets_and_slow_answers() {
    let fake = FakeStripe::start(FakeConfig::mini().fault(Fault::Truncate {
        path_prefix: "/v1/charges".into(),
        times: 1,
    }))
    .await;
    let whole = get(&fake, "/v1/customers").await;
    let cut = get(&fake, "/v1/charges").await;
    assert_eq!(cut.status, 200);
    assert!(
        serde_json::from_str::<Value>(&cut.text).is_err(),
        "{}",
        cut.text
    );
    assert!(!cut.text.is_empty());
    let again = get(&fake, "/v1/charges").await;
    assert_eq!(again.status, 200);
    assert_eq!(cut.text.len(), again.text.len() / 2);
    assert!(whole.json.is_object());

    fake.inject(Fault::Reset {
        path_prefix: "/v1/payouts".into(),
        times: 1,
    });
    let reset = StripeReq::get(&fake.base_url(), "/v1/payouts")
        .try_send()
        .await;
    assert!(reset.is_err(), "expected a transport error, got {reset:?}");
    assert_eq!(get(&fake, "/v1/payouts").await.status, 200);
    let log = fake.requests();
    let reset_entry = log
        .iter()
        .find(|r| r.fault.as_deref() == Some("reset"))
        .expect("the reset is logged");
    assert_eq!(reset_entry.status, None);
    assert_eq!(fake.stats().resets, 1);

    fake.inject(Fault::Slow {
        path_prefix: "/v1/balance".into(),
        delay: Duration::from_millis(30),
        times: 1,
    });
    assert_eq!(get(&fake, "/v1/balance").await.status, 200);
    assert_eq!(
        fake.requests().last().and_then(|r| r.fault.clone()),
        Some("slow 30ms".to_string())
    );
    fake.set_latency(Duration::from_millis(5));
    assert_eq!(get(&fake, "/v1/balance").await.status, 200);
}

#[tokio::test]
async fn the_rate_limit_answers_429_above_its_budget_and_counts_them() {
    let fake = mini().await;
    fake.set_rate_limit(Some(RateLimit {
        per_second: 1,
        burst: 2,
    }));
    let mut statuses = Vec::new();
    for _ in 0..8 {
        let resp = get(&fake, "/v1/balance").await;
        if resp.status == 429 {
            assert_eq!(
                resp.header("stripe-rate-limited-reason"),
                Some("global-rate")
            );
            assert_eq!(resp.json["error"]["code"], "rate_limit");
        }
        statuses.push(resp.status);
    }
    assert_eq!(&statuses[..2], &[200, 200], "the burst is served");
    let limited = statuses.iter().filter(|s| **s == 429).count() as u64;
    assert!(limited >= 1, "{statuses:?}");
    assert_eq!(fake.stats().rate_limited, limited);
    fake.set_rate_limit(None);
    assert_eq!(get(&fake, "/v1/balance").await.status, 200);
}

#[tokio::test]
async fn the_request_log_records_what_was_sent() {
    let fake = mini().await;
    get(
        &fake,
        "/v1/balance_transactions?payout=po_Mini1&limit=100&expand[]=data.source",
    )
    .await;
    StripeReq::post(&fake.base_url(), "/v1/refunds")
        .header("Idempotency-Key", "idem-1")
        .form("charge", "ch_Mini3")
        .form("amount", "100")
        .send()
        .await;
    let log = fake.requests();
    assert_eq!(log.len(), 2);
    let first = &log[0];
    assert_eq!(first.method, "GET");
    assert_eq!(first.path, "/v1/balance_transactions");
    assert_eq!(first.param("payout").as_deref(), Some("po_Mini1"));
    assert_eq!(first.param("expand[]").as_deref(), Some("data.source"));
    assert_eq!(first.stripe_version.as_deref(), Some(STRIPE_VERSION));
    assert_eq!(first.idempotency_key, None);
    assert_eq!(first.status, Some(200));
    assert_eq!(log[1].method, "POST");
    assert_eq!(log[1].idempotency_key.as_deref(), Some("idem-1"));
    assert!(log.iter().any(|r| r.method != "GET"));
    fake.clear_requests();
    assert!(fake.requests().is_empty());
    assert_eq!(fake.stats().requests, 0);
}

// --- the refund write ---

async fn refund(fake: &FakeStripe, key: Option<&str>, form: &[(&str, &str)]) -> StripeResp {
    let mut req = StripeReq::post(&fake.base_url(), "/v1/refunds");
    if let Some(key) = key {
        req = req.header("Idempotency-Key", key);
    }
    for (k, v) in form {
        req = req.form(k, v);
    }
    req.send().await
}

#[tokio::test]
async fn refunds_are_idempotent_and_bounded() {
    let fake = mini().await;
    let args = [
        ("charge", "ch_Mini3"),
        ("amount", "1000"),
        ("reason", "requested_by_customer"),
        ("metadata[ticket_id]", "T-9"),
    ];
    let no_key = refund(&fake, None, &args).await;
    assert_eq!(no_key.status, 400);
    assert!(no_key.error_message().contains("Idempotency-Key"));

    let first = refund(&fake, Some("k1"), &args).await;
    assert_eq!(first.status, 200, "{}", first.text);
    assert_eq!(first.json["object"], "refund");
    assert_eq!(first.json["status"], "succeeded");
    assert_eq!(first.json["amount"], 1000);
    assert_eq!(first.json["currency"], "usd");
    assert_eq!(first.json["payment_intent"], "pi_Mini3");
    assert_eq!(first.json["metadata"]["ticket_id"], "T-9");
    assert_eq!(first.json["livemode"], false);
    let id = first.json["id"].as_str().expect("id").to_string();
    assert!(id.starts_with("re_"));
    let charge = get(&fake, "/v1/charges/ch_Mini3").await;
    assert_eq!(charge.json["amount_refunded"], 1000);
    assert_eq!(charge.json["refunded"], false);

    // Same key, same parameters (in another order): the same refund, not a second one.
    let mut shuffled = args;
    shuffled.reverse();
    let replay = refund(&fake, Some("k1"), &shuffled).await;
    assert_eq!(replay.status, 200);
    assert_eq!(replay.json["id"], id.as_str());
    assert_eq!(replay.header("idempotent-replayed"), Some("true"));
    assert_eq!(fake.created_refunds().len(), 1);
    assert_eq!(
        get(&fake, "/v1/charges/ch_Mini3").await.json["amount_refunded"],
        1000
    );

    // Same key, other parameters: refused.
    let changed = refund(
        &fake,
        Some("k1"),
        &[("charge", "ch_Mini3"), ("amount", "1500")],
    )
    .await;
    assert_eq!(changed.status, 400);
    assert_eq!(changed.json["error"]["type"], "idempotency_error");

    // More than what is left (2000) is refused; exactly what is left is fine.
    let too_much = refund(
        &fake,
        Some("k2"),
        &[("charge", "ch_Mini3"), ("amount", "2001")],
    )
    .await;
    assert_eq!(too_much.status, 400);
    assert_eq!(too_much.json["error"]["code"], "amount_too_large");
    let rest = refund(&fake, Some("k3"), &[("charge", "ch_Mini3")]).await;
    assert_eq!(rest.status, 200);
    assert_eq!(rest.json["amount"], 2000);
    let charge = get(&fake, "/v1/charges/ch_Mini3").await;
    assert_eq!(charge.json["amount_refunded"], 3000);
    assert_eq!(charge.json["refunded"], true);
    let done = refund(
        &fake,
        Some("k4"),
        &[("charge", "ch_Mini3"), ("amount", "1")],
    )
    .await;
    assert_eq!(done.json["error"]["code"], "charge_already_refunded");

    // Disputed charges, unknown charges, bad amounts and reasons.
    let disputed = refund(
        &fake,
        Some("k5"),
        &[("charge", "ch_Mini4"), ("amount", "100")],
    )
    .await;
    assert_eq!(disputed.status, 400);
    assert_eq!(disputed.json["error"]["code"], "charge_disputed");
    let unknown = refund(&fake, Some("k6"), &[("charge", "ch_Nope")]).await;
    assert_eq!(unknown.json["error"]["code"], "resource_missing");
    let zero = refund(
        &fake,
        Some("k7"),
        &[("charge", "ch_Mini1"), ("amount", "0")],
    )
    .await;
    assert_eq!(zero.status, 400);
    let reason = refund(
        &fake,
        Some("k8"),
        &[("charge", "ch_Mini1"), ("reason", "because")],
    )
    .await;
    assert_eq!(reason.json["error"]["param"], "reason");
    let by_pi = refund(
        &fake,
        Some("k9"),
        &[("payment_intent", "pi_Mini1"), ("amount", "500")],
    )
    .await;
    assert_eq!(by_pi.json["charge"], "ch_Mini1");

    // The refunds are listed and retrievable like any other.
    let listed: BTreeSet<String> = ok_ids(&get(&fake, "/v1/refunds?charge=ch_Mini3").await)
        .into_iter()
        .collect();
    assert_eq!(listed.len(), 2);
    assert!(listed.contains(&id));
    assert_eq!(
        get(&fake, &format!("/v1/refunds/{id}")).await.json["amount"],
        1000
    );
    assert_eq!(fake.count(ObjectKind::Refund), 4);
    assert_eq!(fake.created_refunds().len(), 3);
}

#[tokio::test]
async fn refund_status_livemode_and_write_permission_are_configurable() {
    let fake = FakeStripe::start(FakeConfig::mini().refund_status("pending")).await;
    let pending = refund(
        &fake,
        Some("p1"),
        &[("charge", "ch_Mini3"), ("amount", "100")],
    )
    .await;
    assert_eq!(pending.json["status"], "pending");
    assert_eq!(pending.json["pending_reason"], "processing");
    fake.set_refund_status("failed");
    let failed = refund(
        &fake,
        Some("p2"),
        &[("charge", "ch_Mini3"), ("amount", "100")],
    )
    .await;
    assert_eq!(failed.json["status"], "failed");
    assert_eq!(failed.json["failure_reason"], "declined");
    // A failed refund gives the money back to the refundable amount.
    assert_eq!(
        get(&fake, "/v1/charges/ch_Mini3").await.json["amount_refunded"],
        100
    );

    fake.set_livemode(true);
    let live = refund(
        &fake,
        Some("p3"),
        &[("charge", "ch_Mini3"), ("amount", "100")],
    )
    .await;
    assert_eq!(live.json["livemode"], true);
    let charges = get(&fake, "/v1/charges").await;
    assert!(
        charges.json["data"]
            .as_array()
            .expect("data")
            .iter()
            .all(|c| c["livemode"] == true)
    );

    fake.deny(TEST_KEY, "rak_refund_write");
    let denied = refund(
        &fake,
        Some("p4"),
        &[("charge", "ch_Mini3"), ("amount", "100")],
    )
    .await;
    assert_eq!(denied.status, 403);
    assert!(denied.error_message().contains("'rak_refund_write'"));
}

#[tokio::test]
async fn objects_can_be_read_and_replaced_by_tests() {
    let fake = mini().await;
    let mut charge = fake.object("ch_Mini3").expect("ch_Mini3");
    charge["disputed"] = Value::Bool(true);
    assert_eq!(fake.put(charge), Ok(ObjectKind::Charge));
    let refused = refund(&fake, Some("x"), &[("charge", "ch_Mini3")]).await;
    assert_eq!(refused.json["error"]["code"], "charge_disputed");
    assert!(
        fake.put(serde_json::json!({"object": "widget", "id": "w_1"}))
            .is_err()
    );
    assert_eq!(
        fake.object("acct_1MiniFake0000001").expect("account")["country"],
        "DE"
    );
}

// --- the harness ---

#[test]
fn sync_tests_get_a_fake_on_its_own_runtime() {
    let fake = start_fake(FakeConfig::mini());
    let (status, body) = fake.get("/v1/payouts?limit=1");
    assert_eq!(status, 200);
    assert_eq!(body["data"][0]["id"], "po_Mini4");
    let t = Tieout::against(&fake);
    let out = t.run(&["--version"]);
    out.success();
    assert!(out.stdout.starts_with("tieout "), "{}", out.stdout);
    assert!(t.home().starts_with(t.root()));
}

#[test]
fn golden_files_compare_exactly_and_show_a_diff() {
    assert_golden("support/golden_selftest.txt", "line one\r\nline two\n");
    if std::env::var("UPDATE_GOLDEN").is_ok() {
        return; // a mismatch would be written, not reported
    }
    let mismatch = std::panic::catch_unwind(|| {
        assert_golden("support/golden_selftest.txt", "line one\nline 2\n");
    });
    let msg = mismatch
        .expect_err("a different text must fail")
        .downcast::<String>()
        .map(|s| *s)
        .unwrap_or_default();
    assert!(
        msg.contains("-line one\\r") && msg.contains("+line 2"),
        "{msg}"
    );
    assert_eq!(
        redact(
            "at http://127.0.0.1:4242/v1",
            &[("http://127.0.0.1:4242", "<FAKE>")]
        ),
        "at <FAKE>/v1"
    );
}

#[tokio::test]
async fn wildcard_denials_and_the_source_expansion_permission() {
    let fake =
        FakeStripe::start(FakeConfig::mini().deny("*", ["rak_balance_transaction_source_read"]))
            .await;
    assert_eq!(
        get(&fake, "/v1/balance_transactions?limit=1").await.status,
        200
    );
    let expanded = get(&fake, "/v1/balance_transactions?expand[]=data.source").await;
    assert_eq!(expanded.status, 403);
    assert!(
        expanded
            .error_message()
            .contains("'rak_balance_transaction_source_read'")
    );
    fake.deny("*", "rak_dispute_read");
    let other_key = StripeReq::get(&fake.base_url(), "/v1/disputes")
        .key(Some("sk_test_anotherKey9876"))
        .send()
        .await;
    assert_eq!(other_key.status, 403);
}
