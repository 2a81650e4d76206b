use std::collections::BTreeMap;

use jiff::tz::TimeZone;
use proptest::prelude::*;

use super::*;
use crate::domain::tieout::testdata::{line, month, own, payout, sample_month, sample_rows};
use crate::domain::tieout::{MonthTieOut, tie_out_month};
use crate::model::rows::{BalanceTxnRow, PayoutRow};
use crate::model::status::{PayoutStatus, ReconciliationStatus};
use crate::money::Currency;

pub(super) fn map() -> AccountMap {
    AccountMap::default_map().expect("default map")
}

/// The clearing postings of each payout, per currency.
fn clearing_by_payout(j: &Journal) -> BTreeMap<(String, Currency), i64> {
    let mut m = BTreeMap::new();
    for e in &j.entries {
        for p in &e.postings {
            if j.clearing.get(&p.currency) == Some(&p.account) {
                *m.entry((e.payout.clone(), p.currency)).or_insert(0) += p.amount;
            }
        }
    }
    m
}

#[test]
fn the_sample_month_books_its_difference_to_suspense() {
    let t = sample_month();
    let j = build(&t, &[], &map(), Style::Daily, &TimeZone::UTC).expect("journal");
    assert!(j.entries.iter().all(Entry::balances));
    assert!(!j.ties_out());
    let short: Vec<_> = j
        .suspense
        .iter()
        .filter(|s| s.payout == "po_short")
        .collect();
    assert_eq!(short.len(), 1, "{:?}", j.suspense);
    assert_eq!(short[0].amount, -5465);
    assert_eq!(short[0].currency, Currency::USD);
    // Every itemised payout nets to zero in clearing; the difference is in suspense.
    let itemised: Vec<&str> = t
        .payouts
        .iter()
        .filter(|p| p.itemisation.is_some())
        .map(|p| p.payout.id.as_str())
        .collect();
    for ((po, _), sum) in clearing_by_payout(&j) {
        if itemised.contains(&po.as_str()) {
            assert_eq!(sum, 0, "{po} nets to zero in clearing");
        }
    }
    // Every entry names its payout and a payout of the month.
    for e in &j.entries {
        assert!(t.find(&e.payout).is_some(), "{}", e.payout);
    }
}

#[test]
fn per_payout_entries_equal_the_deposit() {
    let t = sample_month();
    let j = build(&t, &[], &map(), Style::PerPayout, &TimeZone::UTC).expect("journal");
    let m = map();
    assert_eq!(j.entries.len(), t.payouts.len());
    for e in &j.entries {
        assert!(e.balances(), "{e:?}");
        let p = t.find(&e.payout).expect("payout");
        if matches!(p.payout.status, PayoutStatus::Paid) {
            let bank = m.bank(p.currency()).expect("bank");
            let deposit: i64 = e
                .postings
                .iter()
                .filter(|x| x.account == bank)
                .map(|x| x.amount)
                .sum();
            assert_eq!(deposit, p.payout.amount, "{}", e.payout);
        }
    }
}

#[test]
fn an_unmapped_category_stops_the_journal_naming_it() {
    let mut p = payout("po_t", 1000, "2026-10-05T00:00:00Z");
    p.currency = Currency::USD;
    let txns = vec![own(&p), line("txn_top", "po_t", "topup", "topup", 1000, 0)];
    let t = tie_out_month(&[p], &txns, month("2026-10"), &TimeZone::UTC);
    let e = build(&t, &[], &map(), Style::Daily, &TimeZone::UTC).expect_err("topup unmapped");
    assert!(e.to_string().contains("'topup'"), "{e}");
}

#[test]
fn fees_of_billing_are_flagged_and_dispute_fees_go_apart() {
    let p = payout(
        "po_f",
        10_000 - 300 - 2_000 - 1_500 - 250,
        "2026-10-05T00:00:00Z",
    );
    let txns = vec![
        own(&p),
        line("txn_c", "po_f", "charge", "charge", 10_000, 300),
        line("txn_d", "po_f", "adjustment", "dispute", -2_000, 1_500),
        line("txn_s", "po_f", "stripe_fee", "fee", -250, 0),
    ];
    let t = tie_out_month(&[p], &txns, month("2026-10"), &TimeZone::UTC);
    let j = build(&t, &[], &map(), Style::Daily, &TimeZone::UTC).expect("journal");
    assert!(j.ties_out());
    let fee = j
        .entries
        .iter()
        .find(|e| e.narration.starts_with("fee:"))
        .expect("fee entry");
    assert!(fee.review.is_some());
    let dispute = j
        .entries
        .iter()
        .find(|e| e.narration.starts_with("dispute:"))
        .expect("dispute entry");
    assert!(
        dispute
            .postings
            .iter()
            .any(|p| p.account == "Expenses:Stripe:DisputeFees" && p.amount == 1_500)
    );
    assert_eq!(j.clearing_at_end.get(&Currency::USD), Some(&0));
}

#[test]
fn every_format_renders_the_sample_month() {
    let (payouts, txns) = sample_rows();
    let t = tie_out_month(&payouts, &txns, month("2026-10"), &TimeZone::UTC);
    let m = map();
    let j = build(&t, &[], &m, Style::Daily, &TimeZone::UTC).expect("journal");
    for f in Format::ALL {
        let files = render(&j, &m, f).expect("render");
        assert!(!files.is_empty(), "{f:?}");
        let all: String = files
            .iter()
            .map(|(_, b)| String::from_utf8(b.clone()).expect("utf8"))
            .collect();
        assert!(all.contains("po_short"), "{f:?} names the payouts");
    }
}

#[test]
fn a_bad_beancount_name_or_a_missing_xero_code_is_named() {
    let m = AccountMap::parse(
        &DEFAULT_MAP.replace("charge = \"Income:Sales\"", "charge = \"Sales income\""),
    )
    .expect("map");
    let j = build(&sample_month(), &[], &m, Style::Daily, &TimeZone::UTC).expect("journal");
    let e = render(&j, &m, Format::Beancount).expect_err("bad name");
    assert!(e.to_string().contains("'Sales income'"), "{e}");
    let e = render(&j, &m, Format::XeroJournal).expect_err("no code");
    assert!(e.to_string().contains("'Sales income'"), "{e}");
}

#[test]
fn xero_files_hold_at_most_300_lines_and_never_cut_an_entry() {
    let mut payouts = Vec::new();
    let mut txns = Vec::new();
    for i in 0..120 {
        let id = format!("po_{i:03}");
        let p = payout(&id, 970, "2026-10-20T00:00:00Z");
        txns.push(own(&p));
        txns.push(line(&format!("txn_{i}"), &id, "charge", "charge", 1000, 30));
        payouts.push(p);
    }
    let t = tie_out_month(&payouts, &txns, month("2026-10"), &TimeZone::UTC);
    let m = map();
    let j = build(&t, &[], &m, Style::Daily, &TimeZone::UTC).expect("journal");
    let files = render(&j, &m, Format::XeroJournal).expect("render");
    assert!(files.len() > 1, "{}", files.len());
    let mut total = 0;
    for (name, bytes) in &files {
        let mut r = csv::Reader::from_reader(bytes.as_slice());
        let rows: Vec<csv::StringRecord> = r.records().map(|x| x.expect("row")).collect();
        assert!(rows.len() <= XERO_MAX_LINES, "{name}: {}", rows.len());
        // Each file balances: no entry is cut in two.
        let sum: i64 = rows
            .iter()
            .map(|r| crate::money::parse_major(&r[5], Currency::USD).expect("amount"))
            .sum();
        assert_eq!(sum, 0, "{name}");
        assert!(
            rows.iter().all(|r| !r[4].is_empty()),
            "tax rate on every line"
        );
        total += rows.len();
    }
    assert_eq!(total, 120 * 3 + 120 * 2);
}

fn detail(kind: &str, amount: i64) -> crate::model::rows::FeeDetailRow {
    crate::model::rows::FeeDetailRow {
        kind: kind.into(),
        amount,
        currency: Currency::USD,
        description: Some(format!("{kind} part").into()),
        application: None,
    }
}

/// One payout of one charge whose fee carries `details`.
fn month_with_fee(
    fee: i64,
    details: Vec<crate::model::rows::FeeDetailRow>,
) -> MonthTieOut<'static> {
    let p = payout("po_fd", 10_000 - fee, "2026-10-05T00:00:00Z");
    let mut l = line("txn_fd", "po_fd", "charge", "charge", 10_000, fee);
    l.fee_details = details.into();
    let txns = [own(&p), l];
    tie_out_month(&[p], &txns, month("2026-10"), &TimeZone::UTC).into_owned()
}

fn charge_entry(j: &Journal) -> &Entry {
    j.entries
        .iter()
        .find(|e| e.narration.starts_with("charge:"))
        .expect("charge entry")
}

fn amount_of(e: &Entry, account: &str) -> i64 {
    e.postings
        .iter()
        .filter(|p| p.account == account)
        .map(|p| p.amount)
        .sum()
}

#[test]
fn fee_details_split_the_fee_per_kind_and_tax_is_flagged_not_guessed() {
    let t = month_with_fee(
        360,
        vec![
            detail("stripe_fee", 250),
            detail("application_fee", 60),
            detail("tax", 50),
        ],
    );
    let j = build(&t, &[], &map(), Style::Daily, &TimeZone::UTC).expect("journal");
    assert!(j.ties_out());
    let e = charge_entry(&j);
    assert!(e.balances(), "{e:?}");
    assert_eq!(amount_of(e, "Expenses:Stripe:ProcessingFees"), 250);
    assert_eq!(amount_of(e, "Expenses:Stripe:ApplicationFees"), 60);
    assert_eq!(amount_of(e, "Expenses:Stripe:FeeTax"), 50);
    let review = e.review.as_deref().expect("flagged");
    assert_eq!(
        review,
        "Stripe fees carry tax (0.50 USD on 1 line): check the tax split"
    );
}

#[test]
fn stripe_fee_parts_alone_post_as_the_whole_fee_did_and_are_not_flagged() {
    let with = month_with_fee(300, vec![detail("stripe_fee", 300)]);
    let without = month_with_fee(300, Vec::new());
    let a = build(&with, &[], &map(), Style::Daily, &TimeZone::UTC).expect("journal");
    let b = build(&without, &[], &map(), Style::Daily, &TimeZone::UTC).expect("journal");
    assert_eq!(a.entries, b.entries);
    assert!(charge_entry(&a).review.is_none());
}

#[test]
fn details_that_do_not_add_up_leave_the_rest_on_the_fee_account_flagged() {
    let t = month_with_fee(300, vec![detail("stripe_fee", 200)]);
    let j = build(&t, &[], &map(), Style::Daily, &TimeZone::UTC).expect("journal");
    let e = charge_entry(&j);
    assert!(e.balances());
    assert_eq!(amount_of(e, "Expenses:Stripe:ProcessingFees"), 300);
    assert_eq!(
        e.review.as_deref(),
        Some("fee_details leave 1.00 USD of the fees of 1 line unitemised: split it by hand")
    );
}

#[test]
fn an_unmapped_fee_kind_stops_the_journal_naming_it() {
    let t = month_with_fee(300, vec![detail("brand_new_fee", 300)]);
    let e = build(&t, &[], &map(), Style::Daily, &TimeZone::UTC).expect_err("unmapped kind");
    assert_eq!(
        e.to_string(),
        "Stripe fee kind 'brand_new_fee' (USD, in fee_details) is not in the account map: add `brand_new_fee = \"...\"` under [fee_kinds]"
    );
}

#[test]
fn the_close_section_defaults_to_beancount_and_the_qbo_journal() {
    let m = map();
    assert_eq!(
        m.close_formats().expect("formats"),
        vec![Format::Beancount, Format::QboJournal]
    );
    assert_eq!(m.close_style().expect("style"), Style::Daily);
    let none = AccountMap::parse(
        &DEFAULT_MAP.replace("journal = [\"beancount\", \"qbo-journal\"]", "journal = []"),
    )
    .expect("map");
    assert!(none.close_formats().expect("formats").is_empty());
    let bad = AccountMap::parse(&DEFAULT_MAP.replace("style = \"daily\"", "style = \"weekly\""))
        .expect_err("weekly");
    assert_eq!(
        bad.to_string(),
        "account map, [close]: style 'weekly': use daily or per-payout"
    );
    let bad = AccountMap::parse(&DEFAULT_MAP.replace("\"qbo-journal\"]", "\"quickbooks\"]"))
        .expect_err("quickbooks");
    assert!(
        bad.to_string()
            .starts_with("account map, [close]: journal: unknown journal format 'quickbooks'"),
        "{bad}"
    );
}

// ---- property test over generated months -------------------------------------------

const CATS: &[(&str, &str)] = &[
    ("charge", "charge"),
    ("refund", "refund"),
    ("adjustment", "dispute"),
    ("stripe_fee", "fee"),
    ("adjustment", "other_adjustment"),
    ("payout_minimum_balance_hold", "other_adjustment"),
];

fn currencies() -> [Currency; 3] {
    [
        Currency::USD,
        Currency::parse("jpy").expect("jpy"),
        Currency::parse("kwd").expect("kwd"),
    ]
}

prop_compose! {
    fn a_line()(cat in 0..CATS.len(), amount in -50_000i64..200_000, fee in 0i64..3_000,
                day in 0i64..40, broken in prop::bool::weighted(0.05)) -> (usize, i64, i64, i64, bool) {
        (cat, amount, fee, day, broken)
    }
}

prop_compose! {
    pub(super) fn a_payout()(cur in 0usize..3, lines in prop::collection::vec(a_line(), 0..8),
                  arrival in 0i64..45, kind in 0u8..10, off in prop::bool::weighted(0.1))
                  -> (usize, Vec<(usize, i64, i64, i64, bool)>, i64, u8, bool) {
        (cur, lines, arrival, kind, off)
    }
}

/// A generated line: (category index, amount, fee, hours before arrival / 7, broken).
type LineSpec = (usize, i64, i64, i64, bool);
/// A generated payout: (currency index, lines, arrival day, kind, off by 7).
pub(super) type PayoutSpec = (usize, Vec<LineSpec>, i64, u8, bool);

pub(super) fn rows(spec: &[PayoutSpec]) -> (Vec<PayoutRow>, Vec<BalanceTxnRow>) {
    let start = crate::time::parse_instant("2026-10-01T00:00:00Z").expect("start");
    let mut payouts = Vec::new();
    let mut txns = Vec::new();
    for (i, (cur, lines, arrival, kind, off)) in spec.iter().enumerate() {
        let id = format!("po_gen{i}");
        let c = currencies()[*cur];
        let mut ls = Vec::new();
        for (k, (cat, amount, fee, day, broken)) in lines.iter().enumerate() {
            let (kind_s, cat_s) = CATS[*cat];
            let mut l = line(&format!("txn_{i}_{k}"), &id, kind_s, cat_s, *amount, *fee);
            l.currency = c;
            l.created = start + arrival * 86_400 - day * 3_600 * 7;
            // Every other line itemises its fee, a tenth of it as tax.
            if k % 2 == 0 && *fee > 0 {
                let tax = fee / 10;
                let mut parts = vec![detail("stripe_fee", fee - tax), detail("tax", tax)];
                for d in &mut parts {
                    d.currency = c;
                }
                l.fee_details = parts.into();
            }
            if *broken {
                l.net += 1;
            }
            ls.push(l);
        }
        let net: i64 = ls.iter().map(|l| l.net).sum();
        let mut p = payout(&id, net + if *off { 7 } else { 0 }, "2026-10-01T00:00:00Z");
        p.currency = c;
        p.arrival_date = start + arrival * 86_400;
        match kind {
            0 => {
                p.automatic = false;
                p.reconciliation_status = ReconciliationStatus::NotApplicable;
            }
            1 => p.status = PayoutStatus::Failed,
            2 => p.reconciliation_status = ReconciliationStatus::InProgress,
            _ => {}
        }
        txns.push(own(&p));
        txns.extend(ls);
        payouts.push(p);
    }
    (payouts, txns)
}

fn parsed_postings(text: &str) -> Vec<(String, String, String, String)> {
    use beancount_parser::{BeancountFile, DirectiveContent};
    let file: BeancountFile<rust_decimal::Decimal> = text.parse().expect("beancount parses");
    let mut out = Vec::new();
    for d in &file.directives {
        if let DirectiveContent::Transaction(t) = &d.content {
            let link = t
                .links
                .iter()
                .next()
                .map(|l| l.as_str().to_string())
                .unwrap_or_default();
            for p in &t.postings {
                let a = p.amount.as_ref().expect("amount");
                out.push((
                    link.clone(),
                    p.account.as_str().to_string(),
                    a.currency.as_str().to_string(),
                    a.value.normalize().to_string(),
                ));
            }
        }
    }
    out
}

/// Independently of the journal: per currency, the net of the balance transactions created
/// before `end` that an itemisable payout (automatic, not instant, reconciled) arriving at
/// or after `end` pays out, without the payout's own transaction.
pub(super) fn unpaid_at(
    payouts: &[PayoutRow],
    txns: &[BalanceTxnRow],
    end: i64,
) -> BTreeMap<Currency, i64> {
    let mut out = BTreeMap::new();
    let mut seen = std::collections::BTreeSet::new();
    for p in payouts.iter().filter(|p| {
        p.arrival_date >= end
            && p.automatic
            && p.method != "instant"
            && p.reconciliation_status == ReconciliationStatus::Completed
    }) {
        for t in txns
            .iter()
            .filter(|t| t.payout.as_deref() == Some(p.id.as_str()))
        {
            let own = t.kind == "payout" && p.balance_transaction.as_deref() == Some(t.id.as_str());
            if !own && t.created < end && seen.insert(t.id.clone()) {
                *out.entry(t.currency).or_insert(0) += t.net;
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, .. ProptestConfig::default() })]

    /// Over the journals of September to November of generated payouts (arriving 1 October
    /// to 14 November, lines up to eleven days older): every entry balances per currency;
    /// in each journal the clearing account nets to zero over each itemised payout's
    /// entries (its accrual and reversal included); a payout Stripe did not itemise
    /// leaves its amount; the month-end balance is what an independent sum says Stripe had
    /// not paid out, less those amounts; accruals are all reversed; and the three journals
    /// together book every line of an itemised payout exactly once, and hold, at each
    /// month's end, that month's balance not paid out.
    #[test]
    fn generated_months_balance_and_clear(spec in prop::collection::vec(a_payout(), 0..10),
                                          per_payout in any::<bool>()) {
        let (payouts, txns) = rows(&spec);
        let style = if per_payout { Style::PerPayout } else { Style::Daily };
        let m = map();
        let tz = TimeZone::UTC;
        let mut booked: BTreeMap<String, usize> = BTreeMap::new();
        let mut combined: Vec<Entry> = Vec::new();
        let mut expected_combined: Vec<(String, BTreeMap<Currency, i64>)> = Vec::new();
        let mut unitemised_so_far: BTreeMap<Currency, i64> = BTreeMap::new();
        let mut all_clearing = BTreeMap::new();
        for mo in ["2026-09", "2026-10", "2026-11"] {
            let t = tie_out_month(&payouts, &txns, month(mo), &tz);
            let later = crate::domain::tieout::tie_out_after(&payouts, &txns, month(mo), &tz);
            let j = build(&t, &later, &m, style, &tz).expect("journal");
            let known = |id: &str| t.find(id).or_else(|| later.iter().find(|q| q.payout.id == id));
            for e in &j.entries {
                prop_assert!(e.balances(), "{e:?}");
                prop_assert!(known(&e.payout).is_some());
                prop_assert!(e.date >= j.first_day && e.date <= j.next_day, "{e:?}");
            }
            // Clearing nets to zero over each itemised payout's entries; a payout Stripe did
            // not itemise leaves its amount in clearing.
            let by = clearing_by_payout(&j);
            let mut unitemised: BTreeMap<Currency, i64> = BTreeMap::new();
            for (po, c) in by.keys() {
                let sum = by[&(po.clone(), *c)];
                let p = known(po).expect("known");
                if p.itemisation.is_some() {
                    prop_assert_eq!(sum, 0, "{} {}", mo, po);
                } else {
                    prop_assert!(t.find(po).is_some(), "only the month's payouts leave clearing");
                    prop_assert_eq!(sum, -p.payout.amount);
                }
            }
            for p in t.payouts.iter().filter(|p| p.itemisation.is_none()) {
                *unitemised.entry(p.currency()).or_insert(0) += p.payout.amount;
                *unitemised_so_far.entry(p.currency()).or_insert(0) += p.payout.amount;
            }
            // The month-end balance: not paid out (computed apart), less the unitemised.
            let (_, end) = month(mo).range(&tz);
            let unpaid = unpaid_at(&payouts, &txns, end);
            let nonzero = |mut v: BTreeMap<Currency, i64>| { v.retain(|_, x| *x != 0); v };
            prop_assert_eq!(nonzero(j.not_paid_out.clone()), nonzero(unpaid.clone()));
            for (c, v) in &j.clearing_at_end {
                let want = unpaid.get(c).copied().unwrap_or(0) - unitemised.get(c).copied().unwrap_or(0);
                prop_assert_eq!(*v, want, "{} {}", mo, c);
            }
            for (c, v) in unpaid.iter().filter(|(_, v)| **v != 0) {
                let want = v - unitemised.get(c).copied().unwrap_or(0);
                prop_assert_eq!(j.clearing_at_end.get(c).copied(), Some(want));
            }
            let mut want_combined = unpaid.clone();
            for (c, v) in &unitemised_so_far {
                *want_combined.entry(*c).or_insert(0) -= v;
            }
            expected_combined.push((j.next_day.clone(), want_combined));
            // Accruals are reversed within the journal: per payout and account, zero.
            let mut acc: BTreeMap<(String, String, Currency), i64> = BTreeMap::new();
            for e in j.entries.iter().filter(|e| matches!(e.kind, EntryKind::Accrual | EntryKind::Reversal)) {
                prop_assert!(later.iter().any(|q| q.payout.id == e.payout));
                for p in &e.postings {
                    *acc.entry((e.payout.clone(), p.account.clone(), p.currency)).or_insert(0) += p.amount;
                }
            }
            prop_assert!(acc.values().all(|v| *v == 0), "{acc:?}");
            // Suspense is exactly the month's differences and broken lines.
            prop_assert_eq!(j.ties_out(), t.ties_out());
            for e in j.entries.iter().filter(|e| matches!(e.kind, EntryKind::Lines | EntryKind::Payout)) {
                for id in &e.lines {
                    *booked.entry(id.clone()).or_insert(0) += 1;
                }
            }
            all_clearing.extend(j.clearing.clone());
            combined.extend(j.entries);
        }
        // Together: each line of an itemised payout (all arrive in October or November)
        // booked once, nothing else booked.
        let mut want: BTreeMap<String, usize> = BTreeMap::new();
        for p in &payouts {
            let t = tie_out_month(&payouts, &txns, crate::time::Month::of(p.arrival_date, &tz), &tz);
            if let Some(it) = t.find(&p.id).and_then(|p| p.itemisation.as_ref()) {
                for l in &it.lines {
                    want.insert(l.id.to_string(), 1);
                }
            }
        }
        prop_assert_eq!(booked, want);
        // Together, at each month's end, the clearing account holds what was not paid out
        // (less the unitemised payouts so far): the journals agree with one another.
        for (next_day, want) in expected_combined {
            for (c, a) in &all_clearing {
                let sum: i64 = combined.iter().filter(|e| e.date < next_day).flat_map(|e| &e.postings)
                    .filter(|p| p.currency == *c && &p.account == a).map(|p| p.amount).sum();
                prop_assert_eq!(sum, want.get(c).copied().unwrap_or(0), "{} {}", next_day, c);
            }
        }

        // Beancount round trip of October's journal: the same postings, in minor units.
        let t = tie_out_month(&payouts, &txns, month("2026-10"), &tz);
        let later = crate::domain::tieout::tie_out_after(&payouts, &txns, month("2026-10"), &tz);
        let j = build(&t, &later, &m, style, &tz).expect("journal");
        let files = render(&j, &m, Format::Beancount).expect("beancount");
        let text = String::from_utf8(files[0].1.clone()).expect("utf8");
        let parsed = parsed_postings(&text);
        let mine: Vec<(String, String, String, String)> = j.entries.iter().flat_map(|e| {
            e.postings.iter().map(|p| (
                e.payout.clone(),
                p.account.clone(),
                p.currency.upper(),
                rust_decimal::Decimal::from_str_exact(&crate::money::format_major(p.amount, p.currency))
                    .expect("decimal").normalize().to_string(),
            )).collect::<Vec<_>>()
        }).collect();
        prop_assert_eq!(parsed, mine);
    }
}
