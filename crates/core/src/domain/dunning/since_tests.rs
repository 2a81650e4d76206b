use std::collections::HashSet;

use proptest::prelude::*;

use super::*;

fn row(id: &str, cur: &str, amount: i64, action: &str, retries: bool) -> RecordRow {
    RecordRow {
        invoice_id: id.into(),
        currency: cur.into(),
        amount_remaining: amount,
        action: action.into(),
        retries_left: retries,
        decline: "insufficient_funds".into(),
        status: "open".into(),
    }
}

fn record(taken_at: i64, rows: Vec<RecordRow>) -> RunRecord {
    RunRecord {
        version: RECORD_VERSION,
        account_id: "acct_1".into(),
        mode: "test".into(),
        taken_at,
        origin: "live".into(),
        rows,
    }
}

#[test]
fn every_category_with_its_amounts() {
    let before = record(
        100,
        vec![
            row("in_paid", "usd", 5000, "retry_later", true),
            row("in_paid_eur", "eur", 1200, "retry_later", true),
            row("in_unc", "usd", 700, "do_not_retry", false),
            row("in_void", "usd", 300, "review", false),
            row("in_gone", "usd", 90, "review", false),
            row("in_out_of_retries", "usd", 2500, "retry_later", true),
            row("in_action", "gbp", 800, "retry_later", false),
            row("in_partial", "usd", 1000, "retry_later", true),
            row("in_same", "usd", 10, "retry_later", true),
        ],
    );
    let now = record(
        200,
        vec![
            row("in_new", "jpy", 1500, "update_payment_method", true),
            row("in_out_of_retries", "usd", 2500, "retry_later", false),
            row("in_action", "gbp", 800, "contact_customer", false),
            row("in_partial", "usd", 400, "retry_later", true),
            row("in_same", "usd", 10, "retry_later", true),
        ],
    );
    let mut departed = Departures::new();
    departed.insert("in_paid".into(), "paid".into());
    departed.insert("in_paid_eur".into(), "paid".into());
    departed.insert("in_unc".into(), "uncollectible".into());
    departed.insert("in_void".into(), "void".into());
    let c = diff(&before, &now, &departed);
    assert_eq!(c.since, 100);
    let kinds: Vec<(&str, &str)> = c
        .changes
        .iter()
        .map(|c| (c.kind.as_str(), c.invoice_id.as_str()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("new", "in_new"),
            ("recovered", "in_paid_eur"),
            ("recovered", "in_paid"),
            ("written_off", "in_unc"),
            ("voided", "in_void"),
            ("left", "in_gone"),
            ("no_retry_left", "in_out_of_retries"),
            ("action_changed", "in_action"),
            ("amount_changed", "in_partial"),
        ]
    );
    let usd = Currency::parse("usd").expect("usd");
    let eur = Currency::parse("eur").expect("eur");
    let rec = c.totals(ChangeKind::Recovered).expect("totals");
    assert_eq!((rec.get(usd), rec.get(eur), rec.len()), (5000, 1200, 2));
    let gone = &c.of_kind(ChangeKind::Left).next().expect("left");
    assert_eq!(gone.status_now.as_deref(), Some("unknown"));
    assert_eq!((gone.amount_before, gone.amount_now), (Some(90), None));
    let new = c.of_kind(ChangeKind::New).next().expect("new");
    assert_eq!((new.amount_before, new.amount_now), (None, Some(1500)));
    assert_eq!(new.action_before, None);
    let act = c.of_kind(ChangeKind::ActionChanged).next().expect("action");
    assert_eq!(act.action_before.as_deref(), Some("retry_later"));
    assert_eq!(act.action_now.as_deref(), Some("contact_customer"));
    let marked = c.marked();
    assert_eq!(marked.len(), 4, "{marked:?}");
    assert_eq!(marked["in_new"], ChangeKind::New);
    assert!(!marked.contains_key("in_same") && !marked.contains_key("in_paid"));
}

#[test]
fn an_invoice_with_two_changes_has_two_lines_and_one_marker() {
    let before = record(1, vec![row("in_1", "usd", 100, "retry_later", true)]);
    let now = record(2, vec![row("in_1", "usd", 100, "do_not_retry", false)]);
    let c = diff(&before, &now, &Departures::new());
    assert_eq!(c.changes.len(), 2);
    assert_eq!(c.marked()["in_1"], ChangeKind::NoRetryLeft);
}

#[test]
fn a_departed_invoice_still_open_is_left_with_its_status() {
    let before = record(1, vec![row("in_1", "usd", 100, "retry_later", true)]);
    let now = record(2, vec![]);
    let mut d = Departures::new();
    d.insert("in_1".into(), "open".into());
    let c = diff(&before, &now, &d);
    assert_eq!(c.changes[0].kind, ChangeKind::Left);
    assert_eq!(c.changes[0].status_now.as_deref(), Some("open"));
}

#[test]
fn departed_lists_what_left() {
    let before = record(
        1,
        vec![row("a", "usd", 1, "x", true), row("b", "usd", 1, "x", true)],
    );
    let now = record(
        2,
        vec![row("b", "usd", 1, "x", true), row("c", "usd", 1, "x", true)],
    );
    assert_eq!(before.departed(&now), vec!["a".to_string()]);
}

#[test]
fn pick_takes_the_latest_before_the_run_or_the_date() {
    let taken = [100, 200, 300];
    assert_eq!(pick(&taken, Since::Last, 301), Some(300));
    assert_eq!(
        pick(&taken, Since::Last, 300),
        Some(200),
        "never the run itself"
    );
    assert_eq!(pick(&taken, Since::Until(250), 400), Some(200));
    assert_eq!(pick(&taken, Since::Until(100), 400), None);
    assert_eq!(pick(&[], Since::Last, 400), None);
}

#[test]
fn records_round_trip_and_old_fields_default() {
    let r = record(5, vec![row("in_1", "usd", 100, "retry_later", true)]);
    let text = serde_json::to_string(&r).expect("json");
    assert_eq!(serde_json::from_str::<RunRecord>(&text).expect("back"), r);
    let lean = r#"{"version":1,"account_id":"a","mode":"test","taken_at":1,"rows":[{"invoice_id":"i","currency":"usd","amount_remaining":1,"action":"someday_new","retries_left":false}]}"#;
    let back: RunRecord = serde_json::from_str(lean).expect("lenient");
    assert_eq!(back.rows[0].action, "someday_new");
    assert_eq!(back.rows[0].status, "");
}

fn arb_row() -> impl Strategy<Value = RecordRow> {
    (
        0u8..12,
        prop_oneof![Just("usd"), Just("eur"), Just("jpy")],
        1i64..1_000_000,
        prop_oneof![Just("retry_later"), Just("do_not_retry"), Just("review")],
        any::<bool>(),
    )
        .prop_map(|(id, cur, amount, action, retries)| {
            row(&format!("in_{id}"), cur, amount, action, retries)
        })
}

fn arb_record() -> impl Strategy<Value = RunRecord> {
    proptest::collection::vec(arb_row(), 0..12).prop_map(|mut rows| {
        let mut seen = HashSet::new();
        rows.retain(|r| seen.insert(r.invoice_id.clone()));
        record(0, rows)
    })
}

fn arb_status() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        Just(None),
        Just(Some("paid".to_string())),
        Just(Some("void".to_string())),
        Just(Some("uncollectible".to_string())),
        Just(Some("open".to_string())),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn a_record_compared_with_itself_has_no_change(r in arb_record()) {
        prop_assert!(diff(&r, &r, &Departures::new()).changes.is_empty());
    }

    /// Every invoice of either run is accounted for exactly once as arrived, departed or
    /// stayed; departures split by their status; the recovered totals are the earlier
    /// amounts of the paid ones, per currency.
    #[test]
    fn every_invoice_is_accounted_for(
        before in arb_record(),
        mut now in arb_record(),
        statuses in proptest::collection::vec(arb_status(), 12),
    ) {
        now.taken_at = 1;
        let mut departed = Departures::new();
        for (i, s) in statuses.iter().enumerate() {
            if let Some(s) = s {
                departed.insert(format!("in_{i}"), s.clone());
            }
        }
        let c = diff(&before, &now, &departed);
        let ids = |r: &RunRecord| r.rows.iter().map(|r| r.invoice_id.clone()).collect::<HashSet<_>>();
        let (b, n) = (ids(&before), ids(&now));
        let arrived: HashSet<String> = c.of_kind(ChangeKind::New).map(|c| c.invoice_id.clone()).collect();
        prop_assert_eq!(&arrived, &n.difference(&b).cloned().collect::<HashSet<_>>());
        let departures = [ChangeKind::Recovered, ChangeKind::WrittenOff, ChangeKind::Voided, ChangeKind::Left];
        let mut left = Vec::new();
        for k in departures {
            left.extend(c.of_kind(k).map(|c| c.invoice_id.clone()));
        }
        let left_set: HashSet<String> = left.iter().cloned().collect();
        prop_assert_eq!(left.len(), left_set.len(), "a departure is counted once");
        prop_assert_eq!(&left_set, &b.difference(&n).cloned().collect::<HashSet<_>>());
        for ch in c.of_kind(ChangeKind::Recovered) {
            prop_assert_eq!(departed.get(&ch.invoice_id).map(String::as_str), Some("paid"));
        }
        let mut expected = Totals::new();
        for r in &before.rows {
            if !n.contains(&r.invoice_id) && departed.get(&r.invoice_id).map(String::as_str) == Some("paid") {
                expected.add_minor(r.amount_remaining, Currency::parse(&r.currency).expect("c")).expect("sum");
            }
        }
        prop_assert_eq!(c.totals(ChangeKind::Recovered).expect("t"), expected);
        // Changes on rows that stayed are exactly the differences.
        for ch in &c.changes {
            let stayed = b.contains(&ch.invoice_id) && n.contains(&ch.invoice_id);
            let kind_stays = matches!(ch.kind, ChangeKind::NoRetryLeft | ChangeKind::ActionChanged | ChangeKind::AmountChanged);
            prop_assert_eq!(stayed, kind_stays);
        }
        // Sorted by kind.
        prop_assert!(c.changes.windows(2).all(|w| w[0].kind <= w[1].kind));
    }
}
