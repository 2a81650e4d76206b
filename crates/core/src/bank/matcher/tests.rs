use super::*;
use jiff::civil::date;
use proptest::prelude::*;

fn usd() -> Currency {
    Currency::parse("usd").expect("usd")
}

fn payout(id: &str, amount: i64, arrival: Date) -> PayoutKey {
    PayoutKey {
        id: id.to_string(),
        amount,
        currency: usd(),
        arrival,
        status: PayoutStatus::Paid,
        failure_code: None,
        trace_id: None,
        statement_descriptor: None,
    }
}

fn line(n: u32, d: Date, amount: i64, text: &str) -> BankLine {
    BankLine {
        file: "s.csv".to_string(),
        line: n,
        date: d,
        value_date: None,
        amount,
        currency: usd(),
        description: text.to_string(),
        reference: None,
        bank_id: None,
        statement: 0,
    }
}

fn opts() -> MatchOptions {
    MatchOptions::new(date(2026, 12, 1))
}

fn status_of<'a>(m: &'a BankMatch, id: &str) -> &'a PayoutMatch {
    m.payouts
        .iter()
        .find(|p| p.payout.id == id)
        .unwrap_or_else(|| panic!("{id} is in the result"))
}

#[test]
fn business_days_skip_the_weekend() {
    // Friday 2026-10-09 + 3 business days is Wednesday 2026-10-14.
    assert_eq!(add_business_days(date(2026, 10, 9), 3), date(2026, 10, 14));
    assert_eq!(add_business_days(date(2026, 10, 12), 3), date(2026, 10, 15));
}

#[test]
fn exact_needs_one_candidate_both_ways() {
    let ps = [
        payout("po_a", 1000, date(2026, 10, 5)),
        payout("po_b", 1000, date(2026, 10, 5)),
        payout("po_c", 2000, date(2026, 10, 5)),
    ];
    let ls = [
        line(2, date(2026, 10, 5), 1000, "STRIPE"),
        line(3, date(2026, 10, 6), 1000, "STRIPE"),
        line(4, date(2026, 10, 8), 2000, "STRIPE"),
    ];
    let m = match_payouts(&ps, &ls, &opts());
    assert_eq!(status_of(&m, "po_a").status, BankStatus::Review);
    assert_eq!(status_of(&m, "po_b").status, BankStatus::Review);
    assert!(
        status_of(&m, "po_a")
            .note
            .contains("2 equal candidates in the window")
    );
    let c = status_of(&m, "po_c");
    assert_eq!(
        (c.status, c.rule),
        (BankStatus::Matched, Some(MatchRule::Exact))
    );
    assert_eq!(c.days_offset(), Some(3));
}

#[test]
fn pending_inside_the_window_missing_after_it() {
    let ps = [payout("po_a", 1000, date(2026, 11, 30))];
    let ls = [line(2, date(2026, 11, 2), 5, "x")];
    let m = match_payouts(&ps, &ls, &opts());
    assert_eq!(status_of(&m, "po_a").status, BankStatus::Pending);
    let m = match_payouts(&ps, &ls, &MatchOptions::new(date(2026, 12, 4)));
    let a = status_of(&m, "po_a");
    assert_eq!(a.status, BankStatus::Missing);
    assert_eq!(a.note, "no deposit by 2026-12-03, the end of the window");
    assert!(a.needs_attention());
}

#[test]
fn a_reference_with_a_different_amount_is_a_review_not_a_fall_through() {
    let mut p = payout("po_Abc123", 1000, date(2026, 10, 5));
    p.trace_id = Some("TR-99 88".to_string());
    let ls = [
        line(2, date(2026, 10, 5), 990, "STRIPE tr9988"),
        line(3, date(2026, 10, 5), 1000, "something else"),
    ];
    let m = match_payouts(&[p], &ls, &opts());
    let a = &m.payouts[0];
    assert_eq!(a.status, BankStatus::Review);
    assert!(
        a.note
            .contains("amount mismatch: the bank text names the trace id"),
        "{}",
        a.note
    );
    assert_eq!(a.candidates.len(), 1);
}

#[test]
fn the_payout_id_names_a_deposit_far_from_the_window() {
    let p = payout("po_Abc123", 1000, date(2026, 10, 5));
    let ls = [line(2, date(2026, 10, 25), 1000, "PO-ABC123")];
    let m = match_payouts(&[p], &ls, &opts());
    let a = &m.payouts[0];
    assert_eq!(
        (a.status, a.rule),
        (BankStatus::Matched, Some(MatchRule::Reference))
    );
    assert_eq!(
        a.note,
        "the bank text names the payout id; outside the date window (20 days)"
    );
}

#[test]
fn aggregates_fit_one_way_only_once() {
    let ps = [
        payout("po_a", 300, date(2026, 10, 5)),
        payout("po_b", 700, date(2026, 10, 5)),
        payout("po_c", 5000, date(2026, 10, 6)),
    ];
    let ls = [
        line(2, date(2026, 10, 6), 1000, "STRIPE"),
        line(3, date(2026, 10, 6), 2000, "STRIPE 1"),
        line(4, date(2026, 10, 7), 3000, "STRIPE 2"),
    ];
    let m = match_payouts(&ps, &ls, &opts());
    for id in ["po_a", "po_b", "po_c"] {
        let p = status_of(&m, id);
        assert_eq!(
            (p.status, p.rule),
            (BankStatus::Matched, Some(MatchRule::Aggregate)),
            "{id}"
        );
    }
    assert_eq!(status_of(&m, "po_c").lines.len(), 2);
    assert_eq!(
        status_of(&m, "po_a").note,
        "one bank line for 2 payouts (with po_b)"
    );
    // Two subsets fit: no aggregate.
    let ps = [
        payout("po_a", 300, date(2026, 10, 5)),
        payout("po_b", 700, date(2026, 10, 5)),
        payout("po_c", 400, date(2026, 10, 5)),
        payout("po_d", 600, date(2026, 10, 5)),
    ];
    let m = match_payouts(&ps, &ls[..1], &opts());
    assert!(m.payouts.iter().all(|p| p.status != BankStatus::Matched));
}

#[test]
fn a_negative_payout_matches_a_debit() {
    let ps = [payout("po_neg", -2500, date(2026, 10, 5))];
    let ls = [
        line(2, date(2026, 10, 5), 2500, "STRIPE"),
        line(3, date(2026, 10, 5), -2500, "STRIPE DEBIT"),
    ];
    let m = match_payouts(&ps, &ls, &opts());
    assert_eq!(m.payouts[0].lines[0].line, 3);
    assert_eq!(m.unmatched_stripe.len(), 1);
}

#[test]
fn only_the_unmatched_lines_of_the_period_are_listed() {
    let ps = [payout("po_a", 1000, date(2026, 10, 30))];
    let ls = [
        line(2, date(2026, 9, 29), 7, "STRIPE"),
        line(3, date(2026, 9, 30), 8, "STRIPE"),
        line(4, date(2026, 11, 4), 9, "STRIPE"),
        line(5, date(2026, 11, 5), 10, "STRIPE"),
    ];
    let o = opts().listing(date(2026, 10, 1), date(2026, 10, 31));
    let m = match_payouts(&ps, &ls, &o);
    let listed: Vec<u32> = m.unmatched_stripe.iter().map(|l| l.line).collect();
    assert_eq!(listed, [3, 4]);
    assert_eq!(match_payouts(&ps, &ls, &opts()).unmatched_stripe.len(), 4);
}

#[test]
fn extreme_amounts_do_not_overflow() {
    let ps = [
        payout("po_a", i64::MAX, date(2026, 10, 5)),
        payout("po_b", i64::MAX - 1, date(2026, 10, 5)),
        payout("po_c", i64::MIN + 1, date(2026, 10, 5)),
    ];
    let ls = [
        line(2, date(2026, 10, 5), i64::MAX, "STRIPE PO_A PO_B"),
        line(3, date(2026, 10, 5), i64::MAX - 2, "STRIPE"),
        line(4, date(2026, 10, 5), i64::MIN + 1, "STRIPE"),
    ];
    let m = match_payouts(&ps, &ls, &opts());
    assert_eq!(m.payouts.len(), 3);
}

#[test]
fn a_failed_payout_with_nothing_or_with_its_debit_back() {
    let mut p = payout("po_f", 1000, date(2026, 10, 5));
    p.status = PayoutStatus::Failed;
    p.failure_code = Some("account_closed".into());
    let m = match_payouts(
        std::slice::from_ref(&p),
        &[line(2, date(2026, 10, 1), 5, "x")],
        &opts(),
    );
    assert_eq!(m.payouts[0].status, BankStatus::Failed);
    assert!(!m.payouts[0].needs_attention());
    let ls = [
        line(2, date(2026, 10, 5), 1000, "STRIPE"),
        line(3, date(2026, 10, 9), -1000, "RETURN STRIPE"),
    ];
    let m = match_payouts(std::slice::from_ref(&p), &ls, &opts());
    let a = &m.payouts[0];
    assert_eq!(
        (a.status, a.rule),
        (BankStatus::DebitedBack, Some(MatchRule::Return))
    );
    assert_eq!(
        a.note,
        "failed at Stripe (account_closed): credited on 2026-10-05 and debited back on 2026-10-09"
    );
    let m = match_payouts(&[p], &ls[..1], &opts());
    assert_eq!(m.payouts[0].status, BankStatus::Review);
}

#[test]
fn a_currency_no_statement_covers_and_a_line_in_another_currency() {
    let mut eur = payout("po_eur", 1000, date(2026, 10, 5));
    eur.currency = Currency::parse("eur").expect("eur");
    let mut odd = line(3, date(2026, 10, 5), 1000, "STRIPE");
    odd.currency = Currency::parse("eur").expect("eur");
    let ls = [
        line(2, date(2026, 10, 5), 1000, "STRIPE"),
        line(4, date(2026, 10, 6), 1, "y"),
        odd,
    ];
    let m = match_payouts(&[eur], &ls, &opts());
    assert_eq!(m.payouts[0].status, BankStatus::NoStatement);
    let p = payout("po_usd", 1000, date(2026, 10, 5));
    let m = match_payouts(&[p], &ls[1..], &opts());
    assert_eq!(m.payouts[0].status, BankStatus::Review);
    assert!(
        m.payouts[0]
            .note
            .contains("currency off: the line is in EUR"),
        "{}",
        m.payouts[0].note
    );
}

// ---- the fixture statements, made from the demo account's October and November payouts

use crate::bank::testdata::{demo_payouts, fixture};

fn summary(m: &BankMatch) -> Vec<String> {
    m.payouts
        .iter()
        .filter(|p| p.status != BankStatus::NoStatement)
        .map(|p| {
            format!(
                "{} {} {} {:?}",
                p.payout.id,
                p.status.as_str(),
                p.rule.map_or("-", MatchRule::as_str),
                p.days_offset()
            )
        })
        .collect()
}

#[test]
fn the_us_checking_csv_and_its_edge_cases() {
    let m = match_payouts(
        &demo_payouts(),
        &fixture("us-checking-2026-10-11.csv", "us-debit-credit"),
        &opts(),
    );
    let st = |id: &str| {
        let p = status_of(&m, id);
        (p.status, p.rule)
    };
    use BankStatus::*;
    // Two equal amounts on the same day.
    assert_eq!(st("po_7GLjN9syJlcDTVpePc8UNFCv"), (Review, None));
    // Three business days late.
    assert_eq!(
        st("po_6rxDKOSrXcZBBXC1sYW5OfnU"),
        (Matched, Some(MatchRule::Exact))
    );
    assert_eq!(
        status_of(&m, "po_6rxDKOSrXcZBBXC1sYW5OfnU").days_offset(),
        Some(5)
    );
    // Missing.
    assert_eq!(st("po_K6HqvgFIpPSxl4ShHBdyjoYE"), (Missing, None));
    // Split across two lines; two payouts in one line.
    assert_eq!(
        st("po_pBQX3RlclINxI0yaKLUYAMAp"),
        (Matched, Some(MatchRule::Aggregate))
    );
    assert_eq!(
        st("po_s9DdryoLU2FmapcYdueemlPN"),
        (Matched, Some(MatchRule::Aggregate))
    );
    assert_eq!(
        st("po_Si0zLJv1rlL1HBAMkjEX3RLn"),
        (Matched, Some(MatchRule::Aggregate))
    );
    // Failed, credited and debited back.
    assert_eq!(
        st("po_WOwHJjzegZUTeS45lg15PMMg"),
        (DebitedBack, Some(MatchRule::Return))
    );
    // A trace id outside the window.
    assert_eq!(
        st("po_lFwlFwpzXhAfe4lQBpadGygH"),
        (Matched, Some(MatchRule::Reference))
    );
    // A non-Stripe credit of the same amount: review, the Stripe line ranked first.
    let h = status_of(&m, "po_HM8AlMxtfjYxWKIyRMNZ84bZ");
    assert_eq!(h.status, Review);
    assert!(h.candidates[0].line.description.starts_with("STRIPE"));
    // In transit on the last day.
    assert_eq!(st("po_CGsS0yaRzZDcJmJpnO4ixga9"), (Pending, None));
    let matched = m.payouts.iter().filter(|p| p.status == Matched).count();
    assert_eq!(matched, 39, "{:#?}", summary(&m));
    let unmatched: Vec<String> = m
        .unmatched_stripe
        .iter()
        .map(|l| l.description.clone())
        .collect();
    assert_eq!(
        unmatched,
        [
            "STRIPE TRANSFER ST-7GLJN9SYJL ACME DEMO",
            "STRIPE TRANSFER ST-DUPLICATE ACME DEMO",
            "STRIPE TRANSFER ST-HM8ALMXTFJ ACME DEMO",
            "STRIPE TRANSFER ST-UNKNOWN ACME DEMO"
        ]
    );
}

#[test]
fn the_eur_statements_and_the_jpy_ofx() {
    use BankStatus::*;
    let payouts = demo_payouts();
    let m = match_payouts(
        &payouts,
        &fixture("eu-giro-2026-10-11.csv", "eu-semicolon"),
        &opts(),
    );
    let p = status_of(&m, "po_9pYgfqmfiKvLvFrrRQTTWoUa");
    assert_eq!(p.status, Review);
    assert!(
        p.note.contains("currency off: the line is in USD"),
        "{}",
        p.note
    );
    assert_eq!(
        status_of(&m, "po_IOoxCTMQEd9idAWpVEzcUrgL").days_offset(),
        Some(1)
    );
    assert_eq!(
        status_of(&m, "po_mJuI8Psc1AFUZ3FadaOpFeta").status,
        NoStatement
    );

    let m = match_payouts(
        &payouts,
        &fixture("eur-2026-10-11.camt053.xml", "tieout"),
        &opts(),
    );
    let p = status_of(&m, "po_hikAgrJeaUbu8NwSPCuzQRwh");
    assert_eq!(p.status, Review);
    assert!(p.note.contains("amount mismatch"), "{}", p.note);
    assert_eq!(
        status_of(&m, "po_GoMUU5jOSUsK9OLyYsbZzObI").rule,
        Some(MatchRule::Exact)
    );
    assert_eq!(
        status_of(&m, "po_njxD1HAlA2fqruaDpWLHpXvO").rule,
        Some(MatchRule::Reference)
    );
    assert_eq!(
        status_of(&m, "po_qM6E9WUmL5EUVb2TUGMbYuHD").rule,
        Some(MatchRule::Reference)
    );

    let m = match_payouts(&payouts, &fixture("jpy-2026-10-11.ofx", "tieout"), &opts());
    let jpy: Vec<&PayoutMatch> = m
        .payouts
        .iter()
        .filter(|p| p.status != NoStatement)
        .collect();
    assert_eq!(jpy.len(), 9);
    assert!(
        jpy.iter().all(|p| p.status == Matched),
        "{:#?}",
        summary(&m)
    );
    assert_eq!(
        status_of(&m, "po_89w0TfbbBbXslKroGUdRWps6").days_offset(),
        Some(-1)
    );
    assert_eq!(
        status_of(&m, "po_Hcfuj9v66SmjtCCjmMEY79th").rule,
        Some(MatchRule::Reference)
    );
}

#[test]
fn the_eu_csv_reads_with_its_own_profile() {
    let lines = fixture("eu-giro-2026-10-11.csv", "eu-semicolon");
    assert_eq!(lines.len(), 9);
    assert_eq!(lines[0].amount, 137_829);
}

fn all_fixture_lines() -> Vec<BankLine> {
    let mut all = fixture("us-checking-2026-10-11.csv", "us-debit-credit");
    all.extend(fixture("eu-giro-2026-10-11.csv", "eu-semicolon"));
    all.extend(fixture("jpy-2026-10-11.ofx", "tieout"));
    all
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Shuffling the statement lines changes nothing, and every payout is there once.
    #[test]
    fn the_result_does_not_depend_on_the_order_of_the_lines(seed in any::<u64>()) {
        let payouts = demo_payouts();
        let lines = all_fixture_lines();
        let base = match_payouts(&payouts, &lines, &opts());
        let mut shuffled = lines.clone();
        let mut x = seed | 1;
        for i in (1..shuffled.len()).rev() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let j = usize::try_from(x % (i as u64 + 1)).unwrap_or(0);
            shuffled.swap(i, j);
        }
        let mut reversed_payouts = payouts.clone();
        reversed_payouts.reverse();
        let again = match_payouts(&reversed_payouts, &shuffled, &opts());
        prop_assert_eq!(&base, &again);
        prop_assert_eq!(base.payouts.len(), payouts.len());
        // A line is paired with at most one payout group, and matched amounts add up.
        let mut claimed = std::collections::BTreeMap::new();
        for p in base.payouts.iter().filter(|p| p.status == BankStatus::Matched) {
            for l in &p.lines {
                claimed.entry(l.line_id()).or_insert_with(Vec::new).push(p.payout.id.clone());
            }
        }
        for p in base.payouts.iter().filter(|p| p.rule == Some(MatchRule::Exact)) {
            prop_assert_eq!(p.lines.len(), 1);
            prop_assert_eq!(p.lines[0].amount, p.payout.amount);
            prop_assert_eq!(claimed[&p.lines[0].line_id()].len(), 1);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// On random small statements full of ties, sums and near misses, the order of the
    /// lines and payouts still changes nothing, every payout is there once, and no line
    /// is paired by two different rules.
    #[test]
    fn random_statements_are_order_independent(
        ps in proptest::collection::vec((0usize..5, 1i8..12, 0usize..3), 0..10),
        ls in proptest::collection::vec((0usize..5, 1i8..16, 0usize..4), 0..24),
        rot in 0usize..24,
    ) {
        const AMOUNTS: [i64; 5] = [100, 200, 300, 500, -100];
        let statuses = [PayoutStatus::Paid, PayoutStatus::Failed, PayoutStatus::InTransit];
        let texts = ["STRIPE", "STRIPE PO_P1", "RENT", "TRACE TR000002"];
        let payouts: Vec<PayoutKey> = ps
            .iter()
            .enumerate()
            .map(|(n, (a, d, st))| {
                let mut p = payout(&format!("po_p{n}"), AMOUNTS[*a], date(2026, 10, *d));
                p.status = statuses[*st].clone();
                p.trace_id = Some(format!("TR00000{n}"));
                p
            })
            .collect();
        let lines: Vec<BankLine> = ls
            .iter()
            .enumerate()
            .map(|(n, (a, d, t))| line(u32::try_from(n).unwrap_or(0) + 2, date(2026, 10, *d), AMOUNTS[*a], texts[*t]))
            .collect();
        let o = MatchOptions::new(date(2026, 10, 20));
        let base = match_payouts(&payouts, &lines, &o);
        let mut l2 = lines.clone();
        if !l2.is_empty() {
            let k = rot % l2.len();
            l2.rotate_left(k);
        }
        l2.reverse();
        let mut p2 = payouts.clone();
        p2.reverse();
        prop_assert_eq!(&base, &match_payouts(&p2, &l2, &o));
        prop_assert_eq!(base.payouts.len(), payouts.len());
        let mut owner: std::collections::BTreeMap<u32, MatchRule> = Default::default();
        for p in &base.payouts {
            if let Some(rule) = p.rule {
                for l in &p.lines {
                    let prev = owner.insert(l.line, rule);
                    prop_assert!(prev.is_none() || prev == Some(rule));
                }
            }
        }
    }
}

/// A file with two statements (a USD and a EUR account, as a bank sends a day's
/// statements) covers both currencies, even when one account has far fewer lines.
#[test]
fn each_statement_of_a_file_covers_its_own_currency() {
    let eur = Currency::parse("eur").expect("eur");
    let mut lines: Vec<BankLine> = (1..=5)
        .map(|n| line(n, date(2026, 10, 5), 100, "usd account"))
        .collect();
    let mut second = line(9, date(2026, 10, 5), 200, "eur account");
    second.currency = eur;
    second.statement = 1;
    lines.push(second.clone());
    let refs: Vec<&BankLine> = lines.iter().collect();
    assert_eq!(
        statement_currencies(&refs),
        BTreeSet::from([usd(), eur]),
        "one currency per statement"
    );
    // The same EUR line in the USD statement is a line in another currency, not an account.
    second.statement = 0;
    lines.pop();
    lines.push(second);
    let refs: Vec<&BankLine> = lines.iter().collect();
    assert_eq!(statement_currencies(&refs), BTreeSet::from([usd()]));
}
