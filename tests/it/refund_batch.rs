//! Approval tiers, batches of refunds and where a refund came from, through the fake
//! Stripe server (issue 37 items 2-5): a tier refusal, a batch of three whose second
//! refund fails, an expired batch, and the metadata and audit fields of every refund.

use serde_json::json;
use tieout::app::audit::{AuditLog, Event};
use tieout::app::refund_batch::{ItemResult, note_of, notes_for};
use tieout::app::refund_exec::{Gate, Outcome, Stamp};
use tieout::domain::refund_approval::{RefundSource, Signoff};
use tieout::domain::refund_batch::{Batch, BatchItem};
use tieout::domain::refund_gate::{GatePolicy, Proposal, Rule};
use tieout::money::Currency;
use tieout::secrets::ApiKey;
use tieout::stripe::refund_writer::RefundWriter;
use tieout::stripe::{ClientConfig, RateConfig};

use crate::support::{FakeConfig, FakeStripe, TEST_KEY};

/// 2026-11-30T12:00:00Z, the demo's clock.
const NOW: i64 = 1_796_040_000;

const POLICY: &str = r#"
[daily_budget]
usd = "2000.00"

[approval]
batch_expiry_minutes = 15
approvers = [
  { name = "Ana", role = "agent" },
  { name = "Bo", role = "lead" },
]
"#;

fn charge(id: &str, captured: i64) -> serde_json::Value {
    json!({
        "id": id, "object": "charge", "amount": captured, "amount_captured": captured,
        "amount_refunded": 0, "captured": true, "paid": true, "status": "succeeded",
        "currency": "usd", "disputed": false, "refunded": false, "livemode": false,
        "created": NOW - 86_400, "metadata": {}
    })
}

async fn fake() -> FakeStripe {
    let fake = FakeStripe::start(FakeConfig::mini()).await;
    for id in ["ch_Batch1", "ch_Batch2", "ch_Batch3"] {
        fake.put(charge(id, 50_000)).expect("put");
    }
    fake.clear_requests();
    fake
}

fn gate(fake: &FakeStripe, dir: &tempfile::TempDir) -> Gate {
    let key = ApiKey::parse(TEST_KEY).expect("key parses");
    let mut cfg = ClientConfig::new(fake.base_url(), key);
    cfg.rate = RateConfig::unthrottled();
    Gate {
        writer: RefundWriter::new(cfg).expect("writer"),
        audit: AuditLog::at(dir.path().join("audit/refunds.jsonl")),
        policy: GatePolicy::from_toml(POLICY).expect("policy"),
        tz: jiff::tz::TimeZone::UTC,
        user: "ops-os-user".into(),
    }
}

fn proposal(ticket: &str, charge: &str, amount: i64) -> Proposal {
    Proposal {
        ticket: ticket.into(),
        charge: charge.into(),
        amount,
        currency: Currency::USD,
        reason: "requested_by_customer".into(),
        evidence: vec![ticket.into(), charge.into()],
        rule: "first-purchase-window".into(),
    }
}

fn three() -> Vec<BatchItem> {
    vec![
        BatchItem::of(proposal("T-1", "ch_Batch1", 2_000)),
        BatchItem::of(proposal("T-2", "ch_Batch2", 3_000)),
        BatchItem::of(proposal("T-3", "ch_Batch3", 4_000)),
    ]
}

fn signoff(g: &Gate, name: &str) -> Signoff {
    g.policy
        .approval
        .signoff(Some(name), &g.user)
        .expect("a known approver")
}

fn posts(fake: &FakeStripe) -> Vec<String> {
    fake.requests()
        .iter()
        .filter(|r| r.method == "POST")
        .map(|r| r.path.clone())
        .collect()
}

#[tokio::test]
async fn an_amount_above_the_approvers_tier_is_refused_with_the_tier_named() {
    let fake = fake().await;
    let dir = tempfile::tempdir().expect("tmp");
    let g = gate(&fake, &dir);
    // Unknown names are refused with the known ones listed.
    let unknown = g
        .policy
        .approval
        .signoff(Some("Zed"), &g.user)
        .expect_err("unknown approver");
    assert_eq!(unknown.rule, Rule::ApproverUnknown);
    assert!(unknown.reason.contains("Ana, Bo"), "{}", unknown.reason);

    let st = Stamp {
        signoff: Some(signoff(&g, "Ana")),
        batch: None,
    };
    let p = proposal("T-9", "ch_Batch1", 15_000);
    let a = g.approve_stamped(&p, &st, NOW).expect("audit");
    let out = g.execute_stamped(&p, &a, &st, NOW).await.expect("audit");
    let Outcome::Refused(r) = &out else {
        panic!("expected a refusal, got {out:?}");
    };
    assert_eq!(r.rule, Rule::OverTier);
    assert!(
        r.reason.contains("tier agent") && r.reason.contains("100.00 USD"),
        "{}",
        r.reason
    );
    assert!(fake.requests().is_empty(), "nothing read, nothing sent");
    let entries = g.audit.read().expect("log");
    let last = entries.last().expect("refusal");
    assert_eq!(last.refused_by.as_deref(), Some("over_tier"));
    assert!(
        entries
            .iter()
            .all(|e| e.approver.as_deref() == Some("Ana") && e.tier.as_deref() == Some("agent")),
        "{entries:?}"
    );

    // A lead may approve it.
    let st = Stamp {
        signoff: Some(signoff(&g, "Bo")),
        batch: None,
    };
    let a = g.approve_stamped(&p, &st, NOW).expect("audit");
    let out = g.execute_stamped(&p, &a, &st, NOW).await.expect("audit");
    assert!(matches!(out, Outcome::Verified { .. }), "{out:?}");

    // Without a name, a policy with approvers refuses before any request.
    fake.clear_requests();
    let q = proposal("T-10", "ch_Batch2", 1_000);
    let a = g.approve(&q, NOW).expect("audit");
    let out = g.execute(&q, &a, NOW).await.expect("audit");
    assert!(
        matches!(out, Outcome::Refused(ref r) if r.rule == Rule::ApproverUnknown),
        "{out:?}"
    );
    assert!(fake.requests().is_empty());
}

#[tokio::test]
async fn a_batch_of_three_whose_second_fails_keeps_the_first_and_leaves_the_third() {
    let fake = fake().await;
    fake.decline_refunds_of("ch_Batch2", "Charge ch_Batch2 is too old to be refunded.");
    let dir = tempfile::tempdir().expect("tmp");
    let g = gate(&fake, &dir);
    let b = Batch::new(three(), signoff(&g, "Bo"), NOW, 15);
    g.propose_batch(&b, NOW).expect("audit");
    let report = g
        .execute_batch(&b, &b.short_digest(), || NOW + 60)
        .await
        .expect("audit");

    assert!(report.refused.is_none());
    assert!(
        matches!(
            report.items[0].result,
            ItemResult::Done {
                outcome: Outcome::Verified { .. }
            }
        ),
        "{report:?}"
    );
    let ItemResult::Failed { outcome } = &report.items[1].result else {
        panic!("the second must fail: {report:?}");
    };
    assert!(
        outcome.summary().contains("too old to be refunded"),
        "Stripe's error is reported: {}",
        outcome.summary()
    );
    assert_eq!(report.items[2].result, ItemResult::NotAttempted);
    assert_eq!(report.done(), 1);
    let lines = report.lines();
    assert!(
        lines[0].contains("1 done, 1 failed, 1 not attempted"),
        "{lines:?}"
    );
    assert!(
        lines[1].contains("T-1") && lines[1].contains("done"),
        "{lines:?}"
    );
    assert!(
        lines[2].contains("T-2") && lines[2].contains("failed"),
        "{lines:?}"
    );
    assert!(
        lines[3].contains("T-3") && lines[3].contains("not attempted"),
        "{lines:?}"
    );
    // The third was never read nor sent.
    assert_eq!(posts(&fake).len(), 2);
    assert!(
        fake.requests()
            .iter()
            .all(|r| !r.path.contains("ch_Batch3")),
        "{:?}",
        fake.requests()
    );
    assert_eq!(fake.created_refunds().len(), 1);

    // A new preview of the same three (the decline still in force) stops at the second
    // again and never posts the first.
    fake.clear_requests();
    let again = Batch::new(three(), signoff(&g, "Bo"), NOW + 120, 15);
    // The decline stays for ch_Batch2: the rerun stops there again, the first is not sent.
    let report = g
        .execute_batch(&again, &again.digest(), || NOW + 130)
        .await
        .expect("audit");
    assert!(
        matches!(report.items[0].result, ItemResult::AlreadyDone { .. }),
        "{report:?}"
    );
    assert!(matches!(report.items[1].result, ItemResult::Failed { .. }));
    assert_eq!(report.items[2].result, ItemResult::NotAttempted);
    let charged: Vec<String> = fake.requests().iter().map(|r| r.path.clone()).collect();
    assert!(
        charged.iter().all(|p| !p.contains("ch_Batch1")),
        "the done one is not touched: {charged:?}"
    );
    assert_eq!(fake.created_refunds().len(), 1, "no second refund of T-1");
}

#[tokio::test]
async fn a_rerun_after_the_failure_is_fixed_finishes_the_rest_only() {
    let fake = fake().await;
    let dir = tempfile::tempdir().expect("tmp");
    let g = gate(&fake, &dir);
    fake.decline_refunds_of("ch_Batch2", "declined once");
    let first = Batch::new(three(), signoff(&g, "Bo"), NOW, 15);
    let report = g
        .execute_batch(&first, &first.digest(), || NOW)
        .await
        .expect("audit");
    assert_eq!(report.done(), 1);

    // The same account without the decline (a second server over the same charges) and
    // the same audit log: the rerun finishes the rest.
    let fake2 = FakeStripe::start(FakeConfig::mini()).await;
    for id in ["ch_Batch1", "ch_Batch2", "ch_Batch3"] {
        fake2.put(charge(id, 50_000)).expect("put");
    }
    let mut g2 = gate(&fake2, &dir);
    g2.audit = g.audit.clone();
    let rerun = Batch::new(three(), signoff(&g2, "Bo"), NOW + 300, 15);
    let report = g2
        .execute_batch(&rerun, &rerun.digest(), || NOW + 310)
        .await
        .expect("audit");
    assert!(report.complete(), "{:?}", report.lines());
    assert!(matches!(
        report.items[0].result,
        ItemResult::AlreadyDone { .. }
    ));
    let sent: Vec<String> = fake2
        .created_refunds()
        .iter()
        .map(|r| r["charge"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        sent,
        ["ch_Batch2", "ch_Batch3"],
        "the done one is not posted again"
    );
}

#[tokio::test]
async fn an_expired_batch_is_refused_and_nothing_is_sent() {
    let fake = fake().await;
    let dir = tempfile::tempdir().expect("tmp");
    let g = gate(&fake, &dir);
    let b = Batch::new(
        three(),
        signoff(&g, "Bo"),
        NOW,
        g.policy.approval.batch_expiry_minutes,
    );
    assert_eq!(b.expires_at, NOW + 15 * 60);
    let report = g
        .execute_batch(&b, &b.digest(), || NOW + 15 * 60)
        .await
        .expect("audit");
    let refused = report.refused.clone().expect("refused");
    assert_eq!(refused.rule, Rule::BatchExpired);
    assert!(
        report.lines()[0].contains("refused, nothing sent"),
        "{:?}",
        report.lines()
    );
    assert!(
        report
            .items
            .iter()
            .all(|i| i.result == ItemResult::NotAttempted)
    );
    assert!(fake.requests().is_empty());
    let entries = g.audit.read().expect("log");
    assert_eq!(entries.len(), 3);
    assert!(
        entries
            .iter()
            .all(|e| e.refused_by.as_deref() == Some("batch_expired")
                && e.batch.as_deref() == Some(b.short_digest().as_str()))
    );

    // A confirmation naming another hash is refused the same way.
    let report = g
        .execute_batch(&b, "0123456789abcdef", || NOW)
        .await
        .expect("audit");
    assert_eq!(report.refused.map(|r| r.rule), Some(Rule::ApprovalVoid));
    assert!(fake.requests().is_empty());
}

#[tokio::test]
async fn every_created_refund_carries_its_source_rule_and_approver() {
    let fake = fake().await;
    let dir = tempfile::tempdir().expect("tmp");
    let g = gate(&fake, &dir);
    let mut items = three();
    items.push(BatchItem {
        source: RefundSource::FraudWarning("issfr_Batch4".into()),
        proposal: proposal("issfr_Batch4", "ch_Batch3", 1_000),
    });
    let b = Batch::new(items, signoff(&g, "Bo"), NOW, 15);
    g.propose_batch(&b, NOW).expect("audit");
    let report = g
        .execute_batch(&b, &b.digest(), || NOW)
        .await
        .expect("audit");
    assert!(report.complete(), "{:?}", report.lines());

    let created = fake.created_refunds();
    assert_eq!(created.len(), 4);
    let sources: Vec<&str> = created
        .iter()
        .map(|r| r["metadata"]["tieout_source"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        sources,
        [
            "ticket:T-1",
            "ticket:T-2",
            "ticket:T-3",
            "fraud_warning:issfr_Batch4"
        ]
    );
    for r in &created {
        let m = &r["metadata"];
        assert_eq!(m["tieout_rule"], "first-purchase-window", "{r}");
        assert_eq!(m["tieout_approver"], "Bo", "{r}");
        assert_eq!(m["tieout_tier"], "lead", "{r}");
        assert_eq!(m["tieout_batch"], json!(b.short_digest()), "{r}");
        // Read back from Stripe, the refund says the same.
        let id = r["id"].as_str().expect("id");
        let back = fake.object(id).expect("stored");
        assert_eq!(back["metadata"], *m);
    }

    let entries = g.audit.read().expect("log");
    assert!(entries.iter().all(|e| e.approver.as_deref() == Some("Bo")
        && e.tier.as_deref() == Some("lead")
        && e.batch.as_deref() == Some(b.short_digest().as_str())));
    for event in [
        Event::Proposal,
        Event::Approval,
        Event::Call,
        Event::Created,
        Event::ReadBack,
    ] {
        assert_eq!(
            entries.iter().filter(|e| e.event == event).count(),
            4,
            "{event:?}"
        );
    }
    let first = entries
        .iter()
        .find(|e| e.event == Event::Created)
        .expect("created");
    let id = first.refund_id.clone().expect("id");
    assert_eq!(
        note_of(first).expect("note"),
        format!(
            "Refunded 20.00 USD on ch_Batch1 ({id}), rule first-purchase-window, approved by Bo (lead)."
        )
    );
    assert_eq!(notes_for(&entries, "T-1").len(), 1);
    assert!(report.lines()[1].contains(&note_of(first).expect("note")));
}

/// The demo's USD tickets T-1007 (79.00), T-1013 (100.00) and T-1020 (22.00), approved by
/// Ana (agent, up to 100.00 USD) from the command line; T-1013's charge refuses refunds.
#[test]
fn the_cli_previews_a_batch_and_its_confirmation_stops_at_the_failing_second() {
    use crate::support::{Tieout, start_fake};
    let fake = start_fake(FakeConfig::default().decline_refunds_of(
        "ch_OkGAklXAXS4j6yVaaJUl3zpI",
        "Charge ch_OkGAklXAXS4j6yVaaJUl3zpI is too old to be refunded.",
    ));
    let t = Tieout::against(&fake);
    let policy = t.root().join("refund_gate.toml");
    std::fs::write(&policy, POLICY).expect("policy");
    let data = t.root().join("data");
    let t = t
        .env("TIEOUT_DATA_DIR", &data.display().to_string())
        .env("TIEOUT_GATE_POLICY", &policy.display().to_string());
    let tickets =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo/tickets.csv");
    let tickets = tickets.display().to_string();
    let preview = |t: &Tieout, who: &str| {
        t.run(&[
            "suggest",
            "--tickets",
            &tickets,
            "--approve",
            "T-1007,T-1013,T-1020",
            "--approver",
            who,
        ])
    };

    let unknown = preview(&t, "Zed");
    unknown.code(2);
    assert!(unknown.stderr.contains("Ana, Bo"), "{}", unknown.stderr);

    let shown = preview(&t, "ana");
    shown.success();
    let out = &shown.stdout;
    assert!(
        out.contains("3 refund(s), approved by Ana (agent), expires 2026-11-30T12:15:00Z (15 min)"),
        "{out}"
    );
    assert!(out.contains("Total: 201.00 USD"), "{out}");
    assert!(
        out.contains("T-1013     100.00 USD on ch_OkGAklXAXS4j6yVaaJUl3zpI"),
        "{out}"
    );
    let hash = out
        .strip_prefix("Batch ")
        .and_then(|r| r.split(':').next())
        .expect("the hash")
        .to_string();
    assert_eq!(hash.len(), 16, "{out}");
    assert!(
        out.contains(&format!("tieout suggest --confirm {hash}")),
        "{out}"
    );
    assert!(fake.created_refunds().is_empty(), "a preview sends nothing");

    // After its expiry the confirmation is refused and sends nothing.
    let t = t.now(Some("2026-11-30T12:15:00Z"));
    let late = t.run(&["suggest", "--confirm", &hash]);
    let t = t.now(Some(crate::support::NOW));
    late.code(2);
    assert!(
        late.stdout.contains("refused, nothing sent"),
        "{}",
        late.stdout
    );
    assert!(late.stderr.contains("batch_expired"), "{}", late.stderr);
    assert!(fake.created_refunds().is_empty());

    let run = t.run(&["suggest", "--confirm", &hash]);
    run.code(4);
    let out = &run.stdout;
    assert!(out.contains("1 done, 1 failed, 1 not attempted"), "{out}");
    assert!(
        out.contains("T-1013       failed    Stripe refused the refund"),
        "{out}"
    );
    assert!(out.contains("too old to be refunded"), "{out}");
    assert!(
        out.contains(
            "T-1020       not done  22.00 USD on ch_PW6iu3qFGwLMhbfX9kmRy4GN: not attempted"
        ),
        "{out}"
    );
    let created = fake.created_refunds();
    assert_eq!(created.len(), 1);
    let m = &created[0]["metadata"];
    assert_eq!(m["tieout_source"], "ticket:T-1007");
    assert_eq!(m["tieout_rule"], "first-purchase-window");
    assert_eq!(m["tieout_approver"], "Ana");
    assert_eq!(m["tieout_tier"], "agent");
    let re = created[0]["id"].as_str().expect("id").to_string();
    let note = format!(
        "Refunded 79.00 USD on ch_qaQkgvmnL6FCvpy2LsOtemJ3 ({re}), rule first-purchase-window, approved by Ana (agent)."
    );
    assert!(out.contains(&note), "{out}");

    // The audit log and `suggest --explain` give the same note to paste.
    let audit = t.run(&["audit", "--ticket", "T-1007"]);
    audit.success();
    assert!(
        audit.stdout.contains(&format!("    note: {note}")),
        "{}",
        audit.stdout
    );
    assert!(
        audit
            .stdout
            .contains("approver=Ana tier=agent source=ticket:T-1007"),
        "{}",
        audit.stdout
    );
    let outdir = t.root().join("out");
    let explain = t.run(&[
        "suggest",
        "--tickets",
        &tickets,
        "--explain",
        "--out",
        &outdir.display().to_string(),
    ]);
    assert!(
        explain.stderr.contains(&format!("T-1007: {note}")),
        "{}",
        explain.stderr
    );
}

/// The demo's two USD warnings the policy says to refund (91.99 and 24.00 USD), approved
/// together by Ana from the command line: each refund is `fraudulent`, names its warning
/// as its source, and a warning for review or a warning in a tickets batch is refused.
#[test]
fn the_cli_batches_fraud_warnings_and_refunds_them_as_fraudulent() {
    use crate::support::{Tieout, start_fake};
    let fake = start_fake(FakeConfig::default());
    let t = Tieout::against(&fake);
    let policy = t.root().join("refund_gate.toml");
    std::fs::write(&policy, POLICY).expect("policy");
    let data = t.root().join("data");
    let t = t
        .env("TIEOUT_DATA_DIR", &data.display().to_string())
        .env("TIEOUT_GATE_POLICY", &policy.display().to_string());
    let stolen = "issfr_nQeNnMMr7wtkhwQoswUCCAnI";
    let never_received = "issfr_0shbgmpwByFmCPHWhqSGgQcv";
    let to_review = "issfr_chSi7qUz8OGjEQ9FUyqApE0p";

    let review = t.run(&[
        "suggest",
        "--fraud-warnings",
        "--approve",
        &format!("{stolen},{to_review}"),
    ]);
    review.code(2);
    assert!(
        review
            .stderr
            .contains(&format!("nothing to refund: {to_review} is review")),
        "{}",
        review.stderr
    );
    let tickets =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo/tickets.csv");
    let mixed = t.run(&[
        "suggest",
        "--tickets",
        &tickets.display().to_string(),
        "--approve",
        &format!("T-1007,{stolen}"),
    ]);
    mixed.code(2);
    assert!(
        mixed.stderr.contains("--fraud-warnings --approve"),
        "{}",
        mixed.stderr
    );

    let shown = t.run(&[
        "suggest",
        "--fraud-warnings",
        "--approve",
        &format!("{stolen},{never_received}"),
        "--approver",
        "Ana",
    ]);
    shown.success();
    let out = &shown.stdout;
    assert!(
        out.contains("2 refund(s), approved by Ana (agent)"),
        "{out}"
    );
    assert!(out.contains("Total: 115.99 USD"), "{out}");
    assert!(
        out.contains(&format!(
            "{stolen} 91.99 USD on ch_s1oRbGWls4LTLo4Z0LunCdkF rule fraud-warning-actionable"
        )),
        "{out}"
    );
    let hash = out
        .strip_prefix("Batch ")
        .and_then(|r| r.split(':').next())
        .expect("the hash")
        .to_string();
    assert!(fake.created_refunds().is_empty(), "a preview sends nothing");

    let run = t.run(&["suggest", "--confirm", &hash]);
    run.success();
    let created = fake.created_refunds();
    assert_eq!(created.len(), 2, "{}", run.stdout);
    for (refund, (warning, charge, amount)) in created.iter().zip([
        (stolen, "ch_s1oRbGWls4LTLo4Z0LunCdkF", 9_199),
        (never_received, "ch_9YmlDlXgqzl2MynYNJd0LV6M", 2_400),
    ]) {
        assert_eq!(refund["charge"], charge);
        assert_eq!(refund["amount"], amount);
        assert_eq!(refund["reason"], "fraudulent");
        let m = &refund["metadata"];
        assert_eq!(m["tieout_source"], format!("fraud_warning:{warning}"));
        assert_eq!(m["tieout_rule"], "fraud-warning-actionable");
        assert_eq!(m["tieout_approver"], "Ana");
    }
    let audit = t.run(&["audit", "--ticket", stolen]);
    audit.success();
    assert!(
        audit
            .stdout
            .contains(&format!("source=fraud_warning:{stolen}")),
        "{}",
        audit.stdout
    );
}
