use proptest::prelude::*;

use super::*;
use crate::domain::refunds::Policy;
use crate::domain::refunds::testdata::{DAY, charge, cur, dispute};
use crate::model::AccountData;

const NOW: i64 = 1_796_040_000;

fn warning(id: &str, charge: &str, actionable: bool, created: i64) -> FraudWarningRow {
    FraudWarningRow {
        id: id.into(),
        charge: Some(charge.into()),
        payment_intent: None,
        created,
        fraud_type: FraudType::parse("made_with_stolen_card"),
        actionable,
        charge_fee: None,
    }
}

fn policy() -> FraudPolicy {
    Policy::default_policy().fraud_warnings
}

fn data() -> AccountData {
    AccountData::empty(crate::domain::dunning::testdata::meta())
}

#[test]
fn the_default_policy_names_limits_and_fees_per_currency() {
    let p = policy();
    assert_eq!(p.refund_up_to.get(&cur("usd")), Some(&20_000));
    assert_eq!(p.refund_up_to.get(&cur("eur")), Some(&15_000));
    assert_eq!(p.dispute_fee.get(&cur("usd")), Some(&1_500));
    assert_eq!(p.refund_rule, "fraud-warning-actionable");
    assert_eq!(p.review_rule, "fraud-warning-review");
}

#[test]
fn refunded_and_disputed_charges_leave_the_queue_and_the_rest_are_decided() {
    let mut d = data();
    let mut refunded = charge("ch_ref", "cus_1", 5_000, "usd", NOW - 40 * DAY);
    refunded.amount_refunded = 5_000;
    refunded.refunded = true;
    let mut partly = charge("ch_part", "cus_2", 30_000, "usd", NOW - 30 * DAY);
    partly.amount_refunded = 12_000;
    d.charges = vec![
        refunded,
        charge("ch_disp", "cus_3", 4_000, "eur", NOW - 40 * DAY),
        partly,
        charge("ch_big", "cus_4", 90_000, "eur", NOW - 20 * DAY),
        charge("ch_jpy", "cus_5", 9_000, "jpy", NOW - 20 * DAY),
        charge("ch_off", "cus_6", 1_000, "usd", NOW - 20 * DAY),
    ];
    d.disputes = vec![dispute("dp_1", "ch_disp", 4_000, "eur", NOW - 10 * DAY)];
    d.fraud_warnings = vec![
        warning("issfr_ref", "ch_ref", false, NOW - 30 * DAY),
        warning("issfr_disp", "ch_disp", true, NOW - 30 * DAY),
        warning("issfr_part", "ch_part", true, NOW - 25 * DAY),
        warning("issfr_big", "ch_big", true, NOW - 15 * DAY),
        warning("issfr_jpy", "ch_jpy", true, NOW - 12 * DAY),
        warning("issfr_off", "ch_off", false, NOW - 10 * DAY),
        warning("issfr_gone", "ch_missing", true, NOW - 5 * DAY),
    ];
    let q = queue(&d, &policy(), NOW);
    assert_eq!((q.refunded, q.disputed), (1, 1));
    let got: Vec<(&str, &str, &str, i64, i64)> = q
        .rows
        .iter()
        .map(|r| {
            (
                r.warning_id.as_str(),
                r.recommendation.as_str(),
                r.rule.as_str(),
                r.at_stake,
                r.age_days,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "issfr_part",
                "refund",
                "fraud-warning-actionable",
                18_000,
                25
            ),
            ("issfr_big", "review", "fraud-warning-review", 90_000, 15),
            ("issfr_jpy", "review", "fraud-warning-review", 9_000, 12),
            ("issfr_off", "review", "fraud-warning-review", 1_000, 10),
            ("issfr_gone", "review", "fraud-warning-review", 0, 5),
        ]
    );
    let reasons: Vec<&str> = q.rows.iter().map(|r| r.reason.as_str()).collect();
    assert!(reasons[0].ends_with("180.00 USD is within the limit of 200.00 USD."));
    assert!(reasons[1].ends_with("900.00 EUR is above the policy's limit of 150.00 EUR."));
    assert!(reasons[2].ends_with("The policy names no refund limit for JPY."));
    assert!(reasons[3].contains("not actionable"));
    assert!(reasons[4].contains("ch_missing") && reasons[4].contains("not in the data"));
    for r in &reasons {
        assert!(
            crate::domain::refunds::policy::sentence_count(r) <= 2,
            "{r}"
        );
    }
    assert_eq!(q.rows[0].dispute_fee, Some(1_500));
    assert_eq!(q.rows[2].dispute_fee, None);
    assert_eq!(q.rows[0].evidence, ["ch_part", "cus_2"]);
    let totals = q.totals();
    assert_eq!(totals.get(&cur("usd")), Some(&(2, 19_000, 18_000)));
    assert_eq!(totals.get(&cur("eur")), Some(&(1, 90_000, 0)));
}

#[test]
fn the_fee_comes_from_the_warning_else_the_charges_balance_transaction() {
    let mut d = data();
    let mut c = charge("ch_1", "cus_1", 10_000, "usd", NOW - 20 * DAY);
    c.balance_transaction = Some("txn_1".into());
    d.charges = vec![c];
    let bt =
        crate::domain::tieout::testdata::line("txn_1", "po_1", "charge", "charge", 10_000, 320);
    d.balance_transactions = vec![bt];
    d.fraud_warnings = vec![warning("issfr_1", "ch_1", true, NOW - DAY)];
    let q = queue(&d, &policy(), NOW);
    assert_eq!(q.rows[0].fee, Some(320));
    assert_eq!(q.rows[0].refund_cost(), 10_320);
    assert_eq!(q.rows[0].wait_cost(), 11_820);
    d.fraud_warnings[0].charge_fee = Some(330);
    assert_eq!(queue(&d, &policy(), NOW).rows[0].fee, Some(330));
}

proptest! {
    /// Money rules: refunding never recommends more than is left on the charge or above
    /// the currency's limit; waiting never costs less than refunding; an actionable
    /// warning within the limit is always a refund.
    #[test]
    fn refunds_stay_within_what_is_left_and_the_limit(
        amount in 1i64..1_000_000,
        refunded_part in 0i64..1_000_000,
        fee in proptest::option::of(0i64..10_000),
        actionable in any::<bool>(),
        code in prop::sample::select(vec!["usd", "eur", "gbp", "jpy"]),
    ) {
        let mut c = charge("ch_p", "cus_p", amount, code, NOW - 30 * DAY);
        c.amount_refunded = refunded_part.min(amount);
        c.refunded = c.amount_refunded == amount;
        let mut d = data();
        d.charges = vec![c.clone()];
        let mut w = warning("issfr_p", "ch_p", actionable, NOW - DAY);
        w.charge_fee = fee;
        d.fraud_warnings = vec![w];
        let p = policy();
        let q = queue(&d, &p, NOW);
        if c.refunded {
            prop_assert!(q.rows.is_empty());
            prop_assert_eq!(q.refunded, 1);
        } else {
            prop_assert_eq!(q.rows.len(), 1);
            let r = &q.rows[0];
            prop_assert_eq!(r.at_stake, amount - c.amount_refunded);
            prop_assert!(r.wait_cost() >= r.refund_cost());
            prop_assert!(r.refund_cost() >= r.at_stake);
            let limit = p.refund_up_to.get(&c.currency).copied();
            let within = limit.is_some_and(|l| r.at_stake <= l);
            prop_assert_eq!(r.recommendation == Recommendation::Refund, actionable && within);
        }
    }
}

#[test]
fn a_policy_file_adds_currencies_and_bad_values_are_refused_with_their_line() {
    use crate::domain::refunds::load_policy;
    let p = load_policy(
        "[fraud_warnings]\nrefund_up_to = { jpy = 30000 }\nreview_rule = \"efw-review\"\n",
        "mine.toml",
    )
    .expect("loads");
    let f = &p.fraud_warnings;
    assert_eq!(f.refund_up_to.get(&cur("jpy")), Some(&30_000));
    assert_eq!(f.refund_up_to.get(&cur("usd")), Some(&20_000), "kept");
    assert_eq!(f.review_rule, "efw-review");
    let bad = load_policy(
        "[fraud_warnings]\nrefund_up_to = { usd = -5 }\n",
        "mine.toml",
    )
    .expect_err("negative");
    assert_eq!(bad.line, Some(2));
    assert!(
        bad.message
            .contains("fraud_warnings.refund_up_to.usd is -5"),
        "{bad}"
    );
    let bad = load_policy(
        "[fraud_warnings]\ndispute_fee = { dollars = 5 }\n",
        "mine.toml",
    )
    .expect_err("not a currency");
    assert!(bad.message.contains("'dollars' is not a currency"), "{bad}");
    let bad = load_policy("[fraud_warnings]\nrefund_limit = 5\n", "mine.toml").expect_err("typo");
    assert_eq!(bad.line, Some(2));
}
