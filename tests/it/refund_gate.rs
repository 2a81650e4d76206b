//! Refund execution through the fake Stripe server: the approval gate, the test-mode-only
//! writer, the idempotent call, the read-back and the audit log (issue 8).

use serde_json::json;
use tieout::app::audit::{AuditLog, Event};
use tieout::app::refund_exec::{Gate, Outcome};
use tieout::domain::refund_gate::{GatePolicy, Proposal, Rule};
use tieout::money::Currency;
use tieout::secrets::ApiKey;
use tieout::stripe::refund_writer::{RefundRequest, RefundWriter, WriterError};
use tieout::stripe::{ClientConfig, RateConfig};

use crate::support::{FakeConfig, FakeStripe, TEST_KEY};

/// 2026-11-30T12:00:00Z, the demo's clock.
const NOW: i64 = 1_796_040_000;

fn charge(id: &str, captured: i64, disputed: bool) -> serde_json::Value {
    json!({
        "id": id, "object": "charge", "amount": captured, "amount_captured": captured,
        "amount_refunded": 0, "captured": true, "paid": true, "status": "succeeded",
        "currency": "usd", "disputed": disputed, "refunded": false, "livemode": false,
        "created": NOW - 86_400, "metadata": {}
    })
}

async fn fake() -> FakeStripe {
    let fake = FakeStripe::start(FakeConfig::mini()).await;
    fake.put(charge("ch_GateOk", 50_000, false)).expect("put");
    fake.put(charge("ch_GateDisputed", 10_000, true))
        .expect("put");
    fake.put(json!({
        "id": "dp_GateDisputed", "object": "dispute", "amount": 10_000,
        "charge": "ch_GateDisputed", "currency": "usd", "status": "needs_response",
        "reason": "fraudulent", "created": NOW - 3_600, "is_charge_refundable": false,
        "livemode": false
    }))
    .expect("put dispute");
    fake.clear_requests();
    fake
}

fn config(fake: &FakeStripe, key: &str) -> ClientConfig {
    let key = ApiKey::parse(key).expect("key parses");
    let mut cfg = ClientConfig::new(fake.base_url(), key);
    cfg.rate = RateConfig::unthrottled();
    cfg
}

fn gate(fake: &FakeStripe, dir: &tempfile::TempDir, policy: GatePolicy) -> Gate {
    Gate {
        writer: RefundWriter::new(config(fake, TEST_KEY)).expect("writer"),
        audit: AuditLog::at(dir.path().join("audit/refunds.jsonl")),
        policy,
        tz: jiff::tz::TimeZone::UTC,
        user: "ops-lead".into(),
    }
}

fn proposal(charge: &str, amount: i64) -> Proposal {
    Proposal {
        ticket: "T-2001".into(),
        charge: charge.into(),
        amount,
        currency: Currency::USD,
        reason: "requested_by_customer".into(),
        evidence: vec!["T-2001".into(), charge.into()],
        rule: "duplicate_charge".into(),
    }
}

fn posts(fake: &FakeStripe) -> usize {
    fake.requests()
        .iter()
        .filter(|r| r.method == "POST")
        .count()
}

#[tokio::test]
async fn a_20_dollar_refund_runs_is_read_back_and_audited() {
    let fake = fake().await;
    let dir = tempfile::tempdir().expect("tmp");
    let g = gate(&fake, &dir, GatePolicy::default());
    let p = proposal("ch_GateOk", 2_000);
    g.propose(&p, NOW).expect("audit");
    let a = g.approve(&p, NOW).expect("audit");
    let out = g.execute(&p, &a, NOW).await.expect("audit ok");
    let Outcome::Verified { refund_id } = &out else {
        panic!("expected verified, got {out:?}");
    };
    let created = fake.created_refunds();
    assert_eq!(created.len(), 1);
    assert_eq!(created[0]["id"], json!(refund_id));
    assert_eq!(created[0]["amount"], json!(2_000));
    assert_eq!(created[0]["metadata"]["tieout_ticket"], json!("T-2001"));
    let charge = fake.object("ch_GateOk").expect("charge");
    assert_eq!(charge["amount_refunded"], json!(2_000));

    let log = fake.requests();
    let post = log.iter().find(|r| r.method == "POST").expect("one POST");
    assert_eq!(post.path, "/v1/refunds");
    // Re-read the charge and its disputes before the call, read the refund back after.
    let order: Vec<String> = log
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    assert_eq!(
        order,
        [
            "GET /v1/charges/ch_GateOk".to_string(),
            "GET /v1/disputes".into(),
            "POST /v1/refunds".into(),
            format!("GET /v1/refunds/{refund_id}"),
        ]
    );

    let entries = g.audit.read().expect("audit log");
    let events: Vec<Event> = entries.iter().map(|e| e.event).collect();
    assert_eq!(
        events,
        [
            Event::Proposal,
            Event::Approval,
            Event::Call,
            Event::Created,
            Event::ReadBack
        ]
    );
    assert!(
        entries
            .iter()
            .all(|e| e.user == "ops-lead" && e.ticket == "T-2001")
    );
    assert!(
        entries
            .iter()
            .all(|e| e.evidence == ["T-2001", "ch_GateOk"])
    );
    let back = entries.last().expect("read-back");
    assert_eq!(back.refund_id.as_deref(), Some(refund_id.as_str()));
    assert_eq!(back.verdict.as_deref(), Some("verified"));
    assert_eq!(back.at_utc, "2026-11-30T12:00:00Z");
    assert_eq!(g.spent_today(Currency::USD, NOW).expect("read"), 2_000);
}

#[tokio::test]
async fn a_120_dollar_refund_over_a_100_dollar_remaining_budget_is_refused() {
    let fake = fake().await;
    let dir = tempfile::tempdir().expect("tmp");
    let policy = GatePolicy::from_toml("[daily_budget]\nusd = \"140.00\"\n").expect("policy");
    let g = gate(&fake, &dir, policy);
    // 40.00 spent today leaves 100.00.
    let first = proposal("ch_GateOk", 4_000);
    let a = g.approve(&first, NOW).expect("audit");
    assert!(matches!(
        g.execute(&first, &a, NOW).await.expect("audit"),
        Outcome::Verified { .. }
    ));
    let mut big = proposal("ch_GateOk", 12_000);
    big.ticket = "T-2002".into();
    let a = g.approve(&big, NOW).expect("audit");
    let out = g.execute(&big, &a, NOW).await.expect("audit");
    let Outcome::Refused(r) = &out else {
        panic!("expected refusal, got {out:?}");
    };
    assert_eq!(r.rule, Rule::DailyBudget);
    assert!(r.reason.contains("100.00 USD left"), "{}", r.reason);
    assert_eq!(fake.created_refunds().len(), 1, "no second refund");
    let last = g.audit.read().expect("log").pop().expect("entry");
    assert_eq!(last.event, Event::Refusal);
    assert_eq!(last.refused_by.as_deref(), Some("daily_budget"));
    // The next day the budget is fresh.
    let out = g.execute(&big, &a, NOW + 86_400).await.expect("audit");
    assert!(matches!(out, Outcome::Verified { .. }), "{out:?}");
}

#[tokio::test]
async fn a_disputed_charge_is_refused_before_any_write() {
    let fake = fake().await;
    let dir = tempfile::tempdir().expect("tmp");
    let g = gate(&fake, &dir, GatePolicy::default());
    let p = proposal("ch_GateDisputed", 2_000);
    let a = g.approve(&p, NOW).expect("audit");
    let out = g.execute(&p, &a, NOW).await.expect("audit");
    let Outcome::Refused(r) = &out else {
        panic!("expected refusal, got {out:?}");
    };
    assert_eq!(r.rule, Rule::ChargeDisputed);
    assert!(r.reason.contains("dp_GateDisputed"), "{}", r.reason);
    assert_eq!(posts(&fake), 0);
}

#[tokio::test]
async fn a_live_key_is_refused_before_any_request() {
    let fake = fake().await;
    for key in [
        concat!("rk_live", "_0123456789abcdefWXYZ"),
        concat!("sk_live", "_0123456789abcdefWXYZ"),
    ] {
        let err = RefundWriter::new(config(&fake, key)).expect_err("live key");
        assert!(matches!(err, WriterError::NotTestKey { .. }), "{err:?}");
        assert!(err.to_string().contains("test-mode key"), "{err}");
    }
    assert!(fake.requests().is_empty(), "{:?}", fake.requests());
}

#[tokio::test]
async fn a_livemode_answer_disables_the_writer() {
    let fake = fake().await;
    let dir = tempfile::tempdir().expect("tmp");
    let g = gate(&fake, &dir, GatePolicy::default());
    fake.set_livemode(true);
    let p = proposal("ch_GateOk", 2_000);
    let a = g.approve(&p, NOW).expect("audit");
    let out = g.execute(&p, &a, NOW).await.expect("audit");
    let Outcome::Refused(r) = &out else {
        panic!("expected refusal, got {out:?}");
    };
    assert_eq!(r.rule, Rule::WriterDisabled);
    assert!(r.reason.contains("livemode: true"), "{}", r.reason);
    assert!(g.writer.is_disabled());
    assert_eq!(posts(&fake), 0);

    // Even once Stripe answers test mode again, the writer stays off and sends nothing.
    fake.set_livemode(false);
    fake.clear_requests();
    let out = g.execute(&p, &a, NOW).await.expect("audit");
    assert!(matches!(out, Outcome::Refused(ref r) if r.rule == Rule::WriterDisabled));
    let req = RefundRequest {
        charge: "ch_GateOk".into(),
        amount: 100,
        reason: "requested_by_customer".into(),
        metadata: vec![],
    };
    let err = g.writer.create(&req, "k").await.expect_err("disabled");
    assert!(matches!(err, WriterError::Disabled), "{err:?}");
    assert!(fake.requests().is_empty());
    assert!(fake.created_refunds().is_empty());
}

#[tokio::test]
async fn a_livemode_refund_answer_disables_the_writer_after_the_call() {
    // The read-back is where a live refund would show; the POST answer itself is checked.
    let fake = fake().await;
    let dir = tempfile::tempdir().expect("tmp");
    let g = gate(&fake, &dir, GatePolicy::default());
    fake.put({
        let mut c = charge("ch_GateLive", 5_000, false);
        c["livemode"] = json!(true);
        c
    })
    .expect("put");
    let req = RefundRequest {
        charge: "ch_GateLive".into(),
        amount: 100,
        reason: "requested_by_customer".into(),
        metadata: vec![],
    };
    let err = g
        .writer
        .create(&req, "tieout-live-test")
        .await
        .expect_err("live");
    assert!(matches!(err, WriterError::LiveModeSeen { .. }), "{err:?}");
    assert!(g.writer.is_disabled());
}

#[tokio::test]
async fn the_same_approval_pressed_twice_creates_one_refund() {
    let fake = fake().await;
    let dir = tempfile::tempdir().expect("tmp");
    let g = gate(&fake, &dir, GatePolicy::default());
    let p = proposal("ch_GateOk", 2_000);
    let a = g.approve(&p, NOW).expect("audit");
    let first = g.execute(&p, &a, NOW).await.expect("audit");
    let second = g.execute(&p, &a, NOW + 5).await.expect("audit");
    assert!(matches!(first, Outcome::Verified { .. }), "{first:?}");
    assert_eq!(first, second);
    assert_eq!(fake.created_refunds().len(), 1);
    assert_eq!(posts(&fake), 1);
    assert_eq!(g.spent_today(Currency::USD, NOW).expect("read"), 2_000);

    // A second gate that lost the audit log still sends the same Idempotency-Key, so
    // Stripe replays the first refund instead of making another.
    let other_dir = tempfile::tempdir().expect("tmp");
    let g2 = gate(&fake, &other_dir, GatePolicy::default());
    let third = g2.execute(&p, &a, NOW + 10).await.expect("audit");
    assert_eq!(third, first);
    assert_eq!(fake.created_refunds().len(), 1, "no second refund");
    let keys: Vec<String> = fake
        .requests()
        .iter()
        .filter(|r| r.method == "POST")
        .filter_map(|r| r.idempotency_key.clone())
        .collect();
    assert_eq!(keys.len(), 2);
    assert_eq!(keys[0], keys[1]);
    assert_eq!(keys[0], p.idempotency_key());
}

#[tokio::test]
async fn an_approval_for_a_changed_amount_is_void() {
    let fake = fake().await;
    let dir = tempfile::tempdir().expect("tmp");
    let g = gate(&fake, &dir, GatePolicy::default());
    let p = proposal("ch_GateOk", 2_000);
    let a = g.approve(&p, NOW).expect("audit");
    let mut changed = p.clone();
    changed.amount = 2_500;
    let out = g.execute(&changed, &a, NOW).await.expect("audit");
    assert!(
        matches!(out, Outcome::Refused(ref r) if r.rule == Rule::ApprovalVoid),
        "{out:?}"
    );
    assert!(
        fake.requests().is_empty(),
        "nothing sent for a void approval"
    );
    let last = g.audit.read().expect("log").pop().expect("entry");
    assert_eq!(last.refused_by.as_deref(), Some("approval_void"));
    assert_eq!(last.amount, 2_500);
}

#[tokio::test]
async fn pending_refunds_are_unverifiable_until_they_settle_and_failed_ones_say_why() {
    let fake = fake().await;
    let dir = tempfile::tempdir().expect("tmp");
    let g = gate(&fake, &dir, GatePolicy::default());
    fake.set_refund_status("pending");
    let p = proposal("ch_GateOk", 2_000);
    let a = g.approve(&p, NOW).expect("audit");
    let out = g.execute(&p, &a, NOW).await.expect("audit");
    assert!(
        matches!(out, Outcome::Unverifiable { ref status, .. } if status == "pending"),
        "{out:?}"
    );

    fake.set_refund_status("failed");
    let mut q = proposal("ch_GateOk", 3_000);
    q.ticket = "T-2003".into();
    let a = g.approve(&q, NOW).expect("audit");
    let out = g.execute(&q, &a, NOW).await.expect("audit");
    let Outcome::Failed { reason, refund_id } = &out else {
        panic!("expected failed, got {out:?}");
    };
    assert!(refund_id.is_some());
    assert!(reason.contains("declined"), "{reason}");
    // Failed refunds do not count against the budget; the pending one does.
    assert_eq!(g.spent_today(Currency::USD, NOW).expect("read"), 2_000);
}

#[test]
fn tieout_audit_prints_the_log_filtered_by_ticket_and_day() {
    let t = crate::support::Tieout::new();
    let data = t.root().join("data");
    let log = AuditLog::at(data.join("audit/refunds.jsonl"));
    let mut p = proposal("ch_GateOk", 2_000);
    log.append(&tieout::app::audit::Entry::about(
        Event::Proposal,
        &p,
        NOW,
        "ops-lead",
    ))
    .expect("append");
    p.ticket = "T-9".into();
    log.append(&tieout::app::audit::Entry::about(
        Event::Proposal,
        &p,
        NOW - 86_400,
        "ops-lead",
    ))
    .expect("append");
    let t = t.env("TIEOUT_DATA_DIR", &data.display().to_string());

    let all = t.run(&["audit"]);
    all.success();
    assert_eq!(all.stdout.lines().count(), 2, "{}", all.stdout);
    assert!(all.stdout.contains("amount=20.00 USD"), "{}", all.stdout);

    let one = t.run(&["audit", "--ticket", "T-9"]);
    one.success();
    assert_eq!(one.stdout.lines().count(), 1, "{}", one.stdout);
    assert!(
        one.stdout.starts_with("2026-11-29T12:00:00Z  proposal"),
        "{}",
        one.stdout
    );

    let day = t.run(&["audit", "--day", "2026-11-30"]);
    day.success();
    assert_eq!(day.stdout.lines().count(), 1, "{}", day.stdout);
    assert!(day.stdout.contains("ticket=T-2001"), "{}", day.stdout);

    let none = t.run(&["audit", "--day", "2026-01-01"]);
    none.success();
    assert!(
        none.stdout.starts_with("No audit entries on 2026-01-01"),
        "{}",
        none.stdout
    );

    t.run(&["audit", "--day", "yesterday"]).code(2);
}

/// A stand-in Stripe that reads back a test-mode charge but answers the refund POST with
/// `livemode: true` (as a misrouted API base would): only what the gate calls.
async fn live_on_post_server() -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use axum::Json;
    use axum::routing::{get, post};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let posts = Arc::new(AtomicUsize::new(0));
    let counted = posts.clone();
    let app = axum::Router::new()
        .route(
            "/v1/charges/{id}",
            get(|| async { Json(charge("ch_GateOk", 50_000, false)) }),
        )
        .route(
            "/v1/disputes",
            get(|| async {
                Json(
                    json!({"object": "list", "data": [], "has_more": false, "url": "/v1/disputes"}),
                )
            }),
        )
        .route(
            "/v1/refunds",
            post(move || {
                counted.fetch_add(1, Ordering::SeqCst);
                async {
                    Json(json!({
                        "id": "re_LiveAnswer1", "object": "refund", "amount": 2_000,
                        "charge": "ch_GateOk", "currency": "usd", "status": "succeeded",
                        "livemode": true, "created": NOW, "metadata": {}
                    }))
                }
            }),
        )
        .route(
            "/v1/refunds/{id}",
            get(|| async { Json(json!({"error": {"message": "must not be read"}})) }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}"), posts)
}

#[tokio::test]
async fn a_livemode_post_answer_disables_the_writer_and_audits_the_refund_it_returned() {
    let (base, posts) = live_on_post_server().await;
    let dir = tempfile::tempdir().expect("tmp");
    let key = ApiKey::parse(TEST_KEY).expect("key");
    let mut cfg = ClientConfig::new(base, key);
    cfg.rate = RateConfig::unthrottled();
    let g = Gate {
        writer: RefundWriter::new(cfg).expect("writer"),
        audit: AuditLog::at(dir.path().join("audit/refunds.jsonl")),
        policy: GatePolicy::default(),
        tz: jiff::tz::TimeZone::UTC,
        user: "ops-lead".into(),
    };
    let p = proposal("ch_GateOk", 2_000);
    let a = g.approve(&p, NOW).expect("audit");
    let out = g.execute(&p, &a, NOW).await.expect("audit");
    let Outcome::Failed { refund_id, reason } = &out else {
        panic!("expected failed, got {out:?}");
    };
    assert_eq!(refund_id.as_deref(), Some("re_LiveAnswer1"));
    assert!(reason.contains("livemode: true"), "{reason}");
    assert!(reason.contains("re_LiveAnswer1"), "{reason}");
    assert!(g.writer.is_disabled());
    assert_eq!(posts.load(std::sync::atomic::Ordering::SeqCst), 1);

    let entries = g.audit.read().expect("log");
    let created: Vec<_> = entries
        .iter()
        .filter(|e| e.event == Event::Created)
        .collect();
    assert_eq!(created.len(), 1, "{entries:?}");
    assert_eq!(created[0].refund_id.as_deref(), Some("re_LiveAnswer1"));
    assert_eq!(created[0].idempotency_key, Some(p.idempotency_key()));
    assert!(
        created[0]
            .detail
            .as_deref()
            .is_some_and(|d| d.contains("livemode: true"))
    );
    // It counts against the day's budget like any refund tieout made.
    assert_eq!(g.spent_today(Currency::USD, NOW).expect("read"), 2_000);

    // Nothing more is sent: the same approval again is refused without a request.
    let again = g.execute(&p, &a, NOW + 5).await.expect("audit");
    assert!(
        matches!(again, Outcome::Refused(ref r) if r.rule == Rule::WriterDisabled),
        "{again:?}"
    );
    assert_eq!(posts.load(std::sync::atomic::Ordering::SeqCst), 1);
}

/// The TUI's loader, reduced to the refund gate it hands the runtime.
struct GateLoader(Option<tieout::app::refund_exec::GateSession>);

impl tieout::tui::runtime::Loader for GateLoader {
    fn load(
        &self,
        _kind: tieout::tui::workspace::LoadKind,
        _progress: &(dyn Fn(String) + Send + Sync),
    ) -> Result<tieout::tui::workspace::Workspace, tieout::tui::workspace::LoadError> {
        Err(tieout::tui::workspace::LoadError::new("not used"))
    }

    fn refund_gate(&self) -> Result<tieout::app::refund_exec::GateSession, String> {
        match &self.0 {
            Some(s) => Ok(s.clone()),
            None => Err("refund execution is not available in this run".into()),
        }
    }
}

async fn run_in_tui_runtime(
    loader: GateLoader,
    p: Proposal,
) -> (tieout::tui::RequestId, tieout::tui::msg::RefundDone) {
    let (tx, mut rx) = tokio::sync::mpsc::channel(4);
    tieout::tui::runtime::refunds::spawn_execute(
        tieout::tui::RequestId(7),
        p,
        std::sync::Arc::new(loader),
        &tx,
    );
    match rx.recv().await {
        Some(tieout::tui::Msg::RefundExecuted { req, done }) => (req, done),
        other => panic!("expected RefundExecuted, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tui_runtime_proposes_approves_and_executes_off_the_ui_task() {
    let fake = fake().await;
    let dir = tempfile::tempdir().expect("tmp");
    let session = tieout::app::refund_exec::GateSession {
        gate: gate(&fake, &dir, GatePolicy::default()),
        now: Some(NOW),
    };
    let p = proposal("ch_GateOk", 2_000);
    let (req, done) = run_in_tui_runtime(GateLoader(Some(session.clone())), p.clone()).await;
    assert_eq!(req, tieout::tui::RequestId(7));
    assert_eq!(done.ticket, "T-2001");
    let Ok(Outcome::Verified { refund_id }) = &done.outcome else {
        panic!("expected verified, got {:?}", done.outcome);
    };
    assert_eq!(fake.created_refunds().len(), 1);
    let entries = session.gate.audit.read().expect("log");
    let events: Vec<Event> = entries.iter().map(|e| e.event).collect();
    assert_eq!(
        events,
        [
            Event::Proposal,
            Event::Approval,
            Event::Call,
            Event::Created,
            Event::ReadBack
        ]
    );
    // Approval bound to exactly the previewed proposal.
    assert!(entries.iter().all(|e| e.digest == p.digest()));
    assert_eq!(entries[3].refund_id.as_ref(), Some(refund_id));

    // No gate (the demo, no key, a live key): nothing is sent and the reason comes back.
    fake.clear_requests();
    let (_, done) = run_in_tui_runtime(GateLoader(None), p).await;
    assert_eq!(
        done.outcome,
        Err("refund execution is not available in this run".into())
    );
    assert!(fake.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_preview_opened_and_cancelled_leaves_a_proposal_and_a_cancelled_entry() {
    use tieout::tui::msg::PreviewEvent;
    use tieout::tui::runtime::refunds::RefundLane;
    let fake = fake().await;
    let dir = tempfile::tempdir().expect("tmp");
    let session = tieout::app::refund_exec::GateSession {
        gate: gate(&fake, &dir, GatePolicy::default()),
        now: Some(NOW),
    };
    let p = proposal("ch_GateOk", 2_000);
    let (tx, mut rx) = tokio::sync::mpsc::channel(4);
    let lane = RefundLane::start(std::sync::Arc::new(GateLoader(Some(session.clone()))), &tx);
    // Opened and cancelled; opened again and sent: one proposal per preview, in order.
    lane.preview(p.clone(), PreviewEvent::Opened);
    lane.preview(p.clone(), PreviewEvent::Cancelled);
    lane.preview(p.clone(), PreviewEvent::Opened);
    lane.execute(tieout::tui::RequestId(9), p.clone());
    let Some(tieout::tui::Msg::RefundExecuted { req, done }) = rx.recv().await else {
        panic!("expected RefundExecuted");
    };
    assert_eq!(req, tieout::tui::RequestId(9));
    assert!(
        matches!(done.outcome, Ok(Outcome::Verified { .. })),
        "{done:?}"
    );
    let entries = session.gate.audit.read().expect("log");
    let events: Vec<Event> = entries.iter().map(|e| e.event).collect();
    assert_eq!(
        events,
        [
            Event::Proposal,
            Event::Cancelled,
            Event::Proposal,
            Event::Approval,
            Event::Call,
            Event::Created,
            Event::ReadBack
        ]
    );
    assert!(
        entries
            .iter()
            .all(|e| e.digest == p.digest() && e.ticket == "T-2001")
    );
    // Only the sent preview reached Stripe.
    assert_eq!(fake.created_refunds().len(), 1);
    let cancelled = serde_json::to_value(&entries[1]).expect("json");
    assert_eq!(cancelled["event"], "cancelled");
}
