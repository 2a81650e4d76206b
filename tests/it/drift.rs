//! `tieout close --verify DIR --against-stripe` through the fake Stripe server (issue 33):
//! October is sealed, then a refund of one of its charges is made, one of its payouts
//! fails and another's trace id arrives; the drift run lists the three, writes
//! `DIR-drift.csv` and the proposed entries beside the packet (checked by bean-check and
//! hledger), and exits 5. On an unchanged account it exits 0 and writes nothing.

use crate::support::cli::Tieout;
use crate::support::fake::start_fake;
use tieout_testkit::fake_stripe::FakeConfig;

const TRACED_LATE: &str = "po_7GLjN9syJlcDTVpePc8UNFCv";
const FAILS_LATE: &str = "po_e1UOhytnXy5C7LzKXGvgYYjX";

/// A charge of October that the sealed packet's USD payout paid out.
fn an_october_charge(packet: &std::path::Path) -> String {
    let rec: serde_json::Value = serde_json::from_slice(
        &std::fs::read(packet.join("reconciliation.json")).expect("reconciliation.json"),
    )
    .expect("json");
    rec["payouts"]
        .as_array()
        .expect("payouts")
        .iter()
        .filter(|p| p["currency"] == "usd")
        .flat_map(|p| p["lines"].as_array().cloned().unwrap_or_default())
        .find(|l| l["reporting_category"] == "charge")
        .and_then(|l| l["source_id"].as_str().map(str::to_owned))
        .expect("a USD charge line")
}

#[test]
fn late_changes_to_a_sealed_month_are_listed_with_their_entries() {
    let fake = start_fake(FakeConfig::default().account_readable_by_restricted_keys(true));
    // The trace id had not arrived when the month was sealed.
    let mut traced = fake.object(TRACED_LATE).expect("payout");
    traced["trace_id"] = serde_json::json!({"status": "pending", "value": null});
    fake.put(traced.clone()).expect("put");
    let t = Tieout::against(&fake);
    let packet = t.work_dir().join("close-2026-10");
    let dir = packet.to_str().expect("utf8");
    t.run(&["close", "--month", "2026-10", "--out", dir])
        .success();
    let beside = |suffix: &str| t.work_dir().join(format!("close-2026-10{suffix}"));

    // Nothing changed: exit 0, nothing written.
    let same = t.run(&["close", "--verify", dir, "--against-stripe"]);
    same.success();
    assert!(
        same.stdout
            .contains("no change since the packet was sealed"),
        "{}",
        same.stdout
    );
    assert!(!beside("-drift.csv").exists());

    // A refund of an October charge, made after the packet was sealed (2026-11-30 12:00).
    let charge = an_october_charge(&packet);
    fake.put(serde_json::json!({
        "id": "re_LateDriftRefund00001",
        "object": "refund",
        "amount": 2500,
        "charge": charge,
        "created": 1_796_047_200,
        "currency": "usd",
        "metadata": {},
        "reason": "requested_by_customer",
        "status": "succeeded"
    }))
    .expect("put refund");
    let mut failed = fake.object(FAILS_LATE).expect("payout");
    failed["status"] = "failed".into();
    failed["failure_code"] = "account_closed".into();
    fake.put(failed.clone()).expect("put");
    traced["trace_id"] = serde_json::json!({"status": "supported", "value": "LATE0TRACE0001"});
    fake.put(traced).expect("put");

    let run = t.run(&["close", "--verify", dir, "--against-stripe"]);
    run.code(5);
    let csv = std::fs::read_to_string(beside("-drift.csv")).expect("drift.csv beside the packet");
    assert!(
        !packet.join("drift.csv").exists(),
        "never inside the packet"
    );
    assert_eq!(
        csv.lines().next(),
        Some("object_id,kind,what_changed,sealed_value,now_value,amount,currency"),
        "{csv}"
    );
    let amount = failed["amount"].as_i64().expect("amount");
    for want in [
        format!(
            "{FAILS_LATE},payout,status,paid,failed,{}.{:02},usd",
            amount / 100,
            amount % 100
        ),
        format!("{TRACED_LATE},payout,trace_id,,LATE0TRACE0001,,usd"),
        format!("re_LateDriftRefund00001,refund,new refund of {charge},,succeeded,-25.00,usd"),
    ] {
        assert!(csv.contains(&want), "{want} not in\n{csv}");
    }
    assert_eq!(csv.lines().count(), 4, "{csv}");
    assert!(
        run.stderr.contains("3 changes, 2 adjusting entries"),
        "{}",
        run.stderr
    );

    let bean = beside("-drift-entries.beancount");
    let ledger = beside("-drift-entries.hledger.journal");
    let text = std::fs::read_to_string(&ledger).expect("entries");
    assert!(
        text.contains("re_LateDriftRefund00001") && text.contains(FAILS_LATE),
        "{text}"
    );
    crate::journal::external_check("bean-check", &[], &bean);
    crate::journal::hledger_check(&ledger);
}
