//! `login`, `logout` and `status` against a scripted loopback Stripe and keyring-core's
//! in-memory mock credential store (the real keychain is tested in `secrets`).

use std::sync::Arc;
use tieout::cli::ExitStatus;

use clap::Parser;
use keyring_core::CredentialStore;
use serde_json::{Value, json};

use tieout::cli::keys::{login_with, logout_with};
use tieout::cli::status::status_with;
use tieout::cli::{Cli, Ctx, FailKind};
use tieout::model::{Mode, Origin, SnapshotMeta};
use tieout::secrets::{ApiKey, Backend, KeySource, Keychain};
use tieout::stripe::permissions::PERMISSIONS;

use crate::client::{KEY, Reply, Seen, Server, assert_only_gets, error_reply, ok, start};

/// A loopback server on its own runtime, so the commands (which run their own runtime)
/// can be called from plain test code.
struct Harness {
    _rt: tokio::runtime::Runtime,
    server: Server,
}

fn harness(script: impl Fn(&Seen, usize) -> Reply + Send + Sync + 'static) -> Harness {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let server = rt.block_on(start(script));
    Harness { _rt: rt, server }
}

fn ctx(base: &str, extra: &[&str]) -> Ctx {
    let mut args = vec![
        "tieout",
        "--api-base",
        base,
        "--now",
        "2026-11-30T12:00:00Z",
    ];
    args.extend_from_slice(extra);
    args.push("status");
    let cli = Cli::try_parse_from(args).expect("arguments");
    Ctx::from_args(cli.global)
}

fn mock_store() -> Arc<CredentialStore> {
    keyring_core::mock::Store::new().expect("mock store")
}

fn balance() -> Reply {
    ok(json!({"object": "balance", "livemode": false,
              "available": [{"amount": 1000, "currency": "usd"}], "pending": []}))
}

fn account_forbidden() -> Reply {
    error_reply(
        403,
        "req_acct",
        json!({"type": "invalid_request_error",
               "message": "The provided key 'rk_test_***...WXYZ' does not have the required permissions for this endpoint on account 'acct_1TieoutTest'. Having the 'rak_connected_account_read' permission would allow this request to continue."}),
    )
}

/// Balance readable, account not: the usual restricted key.
/// A restricted key that reads the balance and every list `tieout status` probes (an empty
/// page each), but not the account. Any other path is a test failure; answering the probes
/// matters: a dropped connection is retried with backoff, minutes per test.
fn restricted_stripe(seen: &Seen, _: usize) -> Reply {
    match seen.path.as_str() {
        "/v1/balance" => balance(),
        "/v1/account" => account_forbidden(),
        path if is_probe(path) => {
            ok(json!({"object": "list", "data": [], "has_more": false, "url": path}))
        }
        other => panic!("unexpected GET {other}"),
    }
}

fn is_probe(path: &str) -> bool {
    PERMISSIONS.iter().any(|p| p.probe == Some(path))
}

fn text(out: Vec<u8>) -> String {
    String::from_utf8(out).expect("utf8 output")
}

#[test]
fn login_verifies_then_stores_and_lists_the_permissions() {
    let h = harness(restricted_stripe);
    let store = mock_store();
    let ctx = ctx(&h.server.base, &["--profile", "work"]);
    let mut out = Vec::new();
    login_with(
        &ctx,
        &format!("  {KEY}\n"),
        || Ok(Keychain::with_store(store.clone())),
        &mut out,
    )
    .expect("login");
    let out = text(out);
    assert!(
        out.contains("Stored the restricted test key rk_test_...WXYZ for profile 'work'"),
        "{out}"
    );
    assert!(out.contains("Account: acct_1TieoutTest"), "{out}");
    assert!(out.contains("Mode:    test"), "{out}");
    for slug in [
        "rak_balance_read",
        "rak_payout_read",
        "rak_invoice_read",
        "rak_payment_intent_read",
        "rak_charge_read",
        "rak_customer_read",
        "rak_dispute_read",
        "rak_subscription_read",
        "rak_plan_read",
    ] {
        assert!(out.contains(slug), "{slug} missing from:\n{out}");
    }
    assert!(!out.contains(KEY), "the key was printed:\n{out}");
    let stored = Keychain::with_store(store).load("work").expect("load");
    assert_eq!(stored.as_deref(), Some(KEY));
    let seen = h.server.seen();
    assert_eq!(seen[0].path, "/v1/balance", "the key is verified first");
    assert_only_gets(&h.server);
}

#[test]
fn login_names_a_readable_account() {
    let h = harness(|seen: &Seen, _| match seen.path.as_str() {
        "/v1/balance" => balance(),
        _ => ok(json!({"id": "acct_1Named", "object": "account",
                       "settings": {"dashboard": {"display_name": "Rocket Rides"}}})),
    });
    let mut out = Vec::new();
    login_with(
        &ctx(&h.server.base, &[]),
        KEY,
        || Ok(Keychain::with_store(mock_store())),
        &mut out,
    )
    .expect("login");
    let out = text(out);
    assert!(out.contains("Account: acct_1Named (Rocket Rides)"), "{out}");
}

#[test]
fn login_does_not_store_a_key_stripe_refuses() {
    let h = harness(|_: &Seen, _| {
        error_reply(
            401,
            "req_bad",
            json!({"type": "invalid_request_error",
                   "message": format!("Invalid API Key provided: {KEY}")}),
        )
    });
    let store = mock_store();
    let mut out = Vec::new();
    let err = login_with(
        &ctx(&h.server.base, &[]),
        KEY,
        || Ok(Keychain::with_store(store.clone())),
        &mut out,
    )
    .expect_err("refused");
    assert_eq!(err.kind, FailKind::Key);
    assert!(err.message.contains("not stored"), "{}", err.message);
    assert!(err.message.contains("req_bad"), "{}", err.message);
    assert!(!err.message.contains(KEY), "{}", err.message);
    assert_eq!(
        Keychain::with_store(store).load("default").expect("load"),
        None
    );
    assert_eq!(h.server.seen().len(), 1, "401 is not retried");
}

#[test]
fn login_names_the_missing_balance_permission() {
    let h = harness(|_: &Seen, _| {
        error_reply(
            403,
            "req_perm",
            json!({"type": "invalid_request_error",
                   "message": "The provided key 'rk_test_***...WXYZ' does not have the required permissions for this endpoint on account 'acct_1X'. Having the 'rak_balance_read' permission would allow this request to continue."}),
        )
    });
    let store = mock_store();
    let err = login_with(
        &ctx(&h.server.base, &[]),
        KEY,
        || Ok(Keychain::with_store(store.clone())),
        &mut Vec::new(),
    )
    .expect_err("403");
    assert_eq!(err.kind, FailKind::Key);
    assert!(
        err.message.contains("'rak_balance_read'"),
        "{}",
        err.message
    );
    assert!(err.message.contains("Balance"), "{}", err.message);
    assert_eq!(
        Keychain::with_store(store).load("default").expect("load"),
        None
    );
}

#[test]
fn login_refuses_publishable_and_secret_live_keys_before_any_request() {
    let h = harness(restricted_stripe);
    let base = h.server.base.clone();
    let err = login_with(
        &ctx(&base, &[]),
        "pk_test_0123456789abcdefghij",
        || panic!("no keychain for a refused key"),
        &mut Vec::new(),
    )
    .expect_err("pk");
    assert_eq!(err.kind, FailKind::Key);
    assert!(err.message.contains("publishable"), "{}", err.message);
    let err = login_with(
        &ctx(&base, &[]),
        concat!("sk_live", "_0123456789abcdefghij"),
        || panic!("no keychain for a refused key"),
        &mut Vec::new(),
    )
    .expect_err("sk_live");
    assert!(
        err.message.contains("--allow-secret-key"),
        "{}",
        err.message
    );
    assert!(h.server.seen().is_empty(), "refused keys are never sent");
}

#[test]
fn login_refuses_a_key_whose_mode_stripe_contradicts() {
    let h = harness(|seen: &Seen, _| match seen.path.as_str() {
        "/v1/balance" => ok(json!({"livemode": true, "available": [], "pending": []})),
        _ => account_forbidden(),
    });
    let store = mock_store();
    let err = login_with(
        &ctx(&h.server.base, &[]),
        KEY,
        || Ok(Keychain::with_store(store.clone())),
        &mut Vec::new(),
    )
    .expect_err("mode mismatch");
    assert!(err.message.contains("live mode"), "{}", err.message);
    assert_eq!(
        Keychain::with_store(store).load("default").expect("load"),
        None
    );
}

#[test]
fn logout_deletes_and_says_when_there_was_nothing() {
    let store = mock_store();
    let kc = Keychain::with_store(store.clone());
    kc.save("default", &ApiKey::parse(KEY).expect("key"))
        .expect("save");
    let ctx = ctx("https://api.stripe.com", &[]);
    let mut out = Vec::new();
    logout_with(&ctx, || Ok(Keychain::with_store(store.clone())), &mut out).expect("logout");
    assert!(text(out).contains("Deleted the stored key of profile 'default'"));
    assert_eq!(kc.load("default").expect("load"), None);
    let mut out = Vec::new();
    logout_with(&ctx, || Ok(Keychain::with_store(store.clone())), &mut out).expect("again");
    assert!(text(out).contains("No key was stored for profile 'default'"));
}

fn meta(fetched_at: i64) -> SnapshotMeta {
    SnapshotMeta {
        account_id: "acct_1TieoutTest".into(),
        account_name: None,
        mode: Mode::Test,
        origin: Origin::Cache,
        api_version: tieout::stripe::API_VERSION.into(),
        fetched_at,
        window_start: 1_788_220_800,
        window_end: 1_796_083_200,
        default_currency: None,
        payment_methods: Default::default(),
        settled_invoices_since: None,
        balance: None,
        lines_complete: false,
        lines_since: None,
        fraud_warnings: Default::default(),
    }
}

#[test]
fn status_shows_account_mode_key_source_and_cache_age() {
    let h = harness(restricted_stripe);
    let ctx = ctx(&h.server.base, &[]);
    let key = ApiKey::parse(KEY).expect("key");
    let mut out = Vec::new();
    let now = ctx.now;
    status_with(
        &ctx,
        &key,
        KeySource::Keychain(Backend::SecretService),
        |acct, mode| {
            assert_eq!((acct, mode), ("acct_1TieoutTest", Mode::Test));
            Ok(Some(meta(now - (3 * 3600 + 12 * 60))))
        },
        &mut out,
    )
    .expect("status");
    let out = text(out);
    assert!(out.contains("account  acct_1TieoutTest\n"), "{out}");
    assert!(out.contains("mode     test\n"), "{out}");
    assert!(
        out.contains("key      restricted test key, rk_test_...WXYZ\n"),
        "{out}"
    );
    assert!(
        out.contains("source   OS keychain (Secret Service)\n"),
        "{out}"
    );
    assert!(out.contains("cache    synced 3 h 12 min ago"), "{out}");
    assert!(
        out.contains("permissions (one read of each, limit=1):"),
        "{out}"
    );
    for p in PERMISSIONS.iter().filter(|p| p.probe.is_some()) {
        assert!(
            out.lines()
                .any(|l| l.trim_start().starts_with(p.slug) && l.contains(" yes ")),
            "{} is not read as granted:\n{out}",
            p.slug
        );
    }
    assert!(!out.contains(KEY), "{out}");
    assert_only_gets(&h.server);
}

#[test]
fn status_says_when_the_key_came_from_the_environment_and_there_is_no_cache() {
    let h = harness(restricted_stripe);
    let ctx = ctx(&h.server.base, &[]);
    let mut out = Vec::new();
    status_with(
        &ctx,
        &ApiKey::parse(KEY).expect("key"),
        KeySource::Env,
        |_, _| Ok(None),
        &mut out,
    )
    .expect("status");
    let out = text(out);
    assert!(
        out.contains("source   environment (STRIPE_API_KEY)"),
        "{out}"
    );
    assert!(out.contains("cache    none (run `tieout sync`)"), "{out}");
    assert!(
        out.contains(&format!("api      {}", h.server.base)),
        "{out}"
    );
}

#[test]
fn status_with_a_refused_key_shows_the_key_and_exits_with_the_key_code() {
    let h = harness(|_: &Seen, _| {
        error_reply(401, "req_401", json!({"type": "invalid_request_error"}))
    });
    let ctx = ctx(&h.server.base, &[]);
    let mut out = Vec::new();
    let err = status_with(
        &ctx,
        &ApiKey::parse(KEY).expect("key"),
        KeySource::Env,
        |_, _| panic!("no cache lookup without an account"),
        &mut out,
    )
    .expect_err("401");
    assert_eq!(err.kind, FailKind::Key);
    assert_eq!(err.kind.code(), 3);
    let out = text(out);
    assert!(out.contains("rk_test_...WXYZ"), "{out}");
    assert!(out.contains("could not be read"), "{out}");
}

#[test]
fn status_on_a_stripe_outage_exits_with_the_stripe_code() {
    let h = harness(|_: &Seen, _| {
        (
            503,
            vec![("stripe-should-retry", "false".to_string())],
            Value::Null.to_string(),
        )
    });
    let err = status_with(
        &ctx(&h.server.base, &[]),
        &ApiKey::parse(KEY).expect("key"),
        KeySource::Env,
        |_, _| Ok(None),
        &mut Vec::new(),
    )
    .expect_err("503");
    assert_eq!(err.kind, FailKind::Stripe);
    assert_eq!(err.kind.code(), 4);
}

#[test]
fn login_says_the_key_works_when_only_the_keychain_fails() {
    let h = harness(restricted_stripe);
    let err = login_with(
        &ctx(&h.server.base, &[]),
        KEY,
        || {
            Err(tieout::secrets::KeychainError::Unavailable {
                detail: "no D-Bus session".into(),
            })
        },
        &mut Vec::new(),
    )
    .expect_err("no keychain");
    assert_eq!(err.kind, FailKind::Key);
    assert!(
        err.message
            .contains("the key works (account acct_1TieoutTest, test mode) but was not stored"),
        "{}",
        err.message
    );
    assert!(err.message.contains("STRIPE_API_KEY"), "{}", err.message);
}

#[test]
fn status_says_when_the_cache_cannot_be_read() {
    let h = harness(restricted_stripe);
    let mut out = Vec::new();
    status_with(
        &ctx(&h.server.base, &[]),
        &ApiKey::parse(KEY).expect("key"),
        KeySource::Env,
        |_, _| Err("manifest.json is not JSON".to_string()),
        &mut out,
    )
    .expect("status still succeeds");
    let out = text(out);
    assert!(
        out.contains("cache    unreadable (manifest.json is not JSON)"),
        "{out}"
    );
}

// ---- The binary, through the fake Stripe server ----------------------------------------

mod binary {
    use crate::support::{FakeConfig, Fault, TEST_KEY, Tieout, start_fake};

    #[test]
    fn status_before_and_after_a_sync() {
        let fake = start_fake(FakeConfig::mini());
        let t = Tieout::against(&fake);
        let account = fake.account_id();

        let before = t.run(&["status"]);
        before.success();
        let out = &before.stdout;
        assert!(out.contains(&format!("account  {account}")), "{out}");
        assert!(out.contains("mode     test\n"), "{out}");
        assert!(
            out.contains("key      restricted test key, rk_test_...abcd\n"),
            "{out}"
        );
        assert!(
            out.contains("source   environment (STRIPE_API_KEY)\n"),
            "{out}"
        );
        assert!(out.contains("cache    none (run `tieout sync`)"), "{out}");

        t.run(&["sync"]).success();
        let after = t.run(&["status"]);
        after.success();
        assert!(
            after
                .stdout
                .contains("cache    synced 0 s ago (2026-11-30T12:00:00Z)"),
            "{}",
            after.stdout
        );
        for run in [&before, &after] {
            assert!(!run.stdout.contains(TEST_KEY) && !run.stderr.contains(TEST_KEY));
        }
        for r in fake.requests() {
            assert_eq!(r.method, "GET", "{} {}", r.method, r.path);
        }
    }

    #[test]
    fn status_exit_codes_follow_the_contract() {
        let fake = start_fake(FakeConfig::mini());
        // No key at all: 3, with what to run.
        let none = Tieout::new().api_base(&fake.base_url()).run(&["status"]);
        none.code(3);
        assert!(none.stderr.contains("tieout login"), "{}", none.stderr);
        assert!(none.stderr.contains("tieout demo"), "{}", none.stderr);
        // A publishable key in the environment: 3, refused before any request.
        let before = fake.requests().len();
        let pk = Tieout::against(&fake)
            .key("pk_test_51PublishableKey000000000000abcd")
            .run(&["status"]);
        pk.code(3);
        assert!(pk.stderr.contains("publishable"), "{}", pk.stderr);
        assert_eq!(fake.requests().len(), before, "a refused key is never sent");
        // The balance permission missing: 3, naming it.
        fake.deny(TEST_KEY, "rak_balance_read");
        let denied = Tieout::against(&fake).run(&["status"]);
        denied.code(3);
        assert!(
            denied.stderr.contains("'rak_balance_read'"),
            "{}",
            denied.stderr
        );
    }

    #[test]
    fn status_when_stripe_keeps_failing_exits_4() {
        let fake = start_fake(FakeConfig::mini());
        fake.inject(Fault::status("/v1/balance", 503, Fault::ALWAYS));
        let out = Tieout::against(&fake).run(&["status"]);
        out.code(4);
        assert!(out.stderr.contains("503"), "{}", out.stderr);
        assert!(out.stderr.contains("Request-Id"), "{}", out.stderr);
    }

    #[test]
    fn login_refuses_before_touching_the_keychain() {
        let fake = start_fake(FakeConfig::mini());
        let t = Tieout::new().api_base(&fake.base_url());
        let pk = t.run_with_stdin(
            &["login"],
            concat!("pk_live", "_PLACEHOLDER00000000000000abcd\n"),
        );
        pk.code(3);
        assert!(pk.stderr.contains("publishable"), "{}", pk.stderr);
        let sk = t.run_with_stdin(
            &["login"],
            concat!("sk_live", "_PLACEHOLDER0000000000000000abcd\n"),
        );
        sk.code(3);
        assert!(sk.stderr.contains("--allow-secret-key"), "{}", sk.stderr);
        assert!(!sk.stderr.contains("PLACEHOLDER0000"), "{}", sk.stderr);
        let empty = t.run_with_stdin(&["login"], "\n\n");
        empty.code(3);
        t.run_with_stdin(&["--demo", "login"], "").code(2);
        assert!(fake.requests().is_empty());
    }
}

#[test]
fn demo_status_shows_the_demo_account_without_a_key() {
    let demo = tieout::source::demo::load_demo().expect("the bundled demo loads");
    let out = crate::support::Tieout::demo().run(&["status"]);
    out.success();
    let text = &out.stdout;
    let name = demo
        .meta
        .account_name
        .as_deref()
        .expect("the demo has a name");
    assert!(
        text.contains(&format!("account  {} ({name})\n", demo.meta.account_id)),
        "{text}"
    );
    assert!(text.contains("mode     test\n"), "{text}");
    assert!(text.contains("key      none (demo)\n"), "{text}");
    assert!(
        text.contains("data     generated for 2026-11-30T12:00:00Z (0 s ago)"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "objects  {} payouts, {} balance transactions",
            demo.payouts.len(),
            demo.balance_transactions.len()
        )),
        "{text}"
    );
}
