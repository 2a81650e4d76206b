//! Property tests over generated accounts: per currency, what failed is exactly what was
//! recovered, written off, voided or is still open (counts and amounts), and each
//! recovered invoice is counted under exactly one way.

use std::collections::BTreeMap;

use jiff::tz::TimeZone;
use proptest::prelude::*;

use super::*;
use crate::domain::dunning::testdata::{DAY, NOW, charge, data, invoice, payment};
use crate::model::rows::Word;
use crate::model::status::{ChargeStatus, InvoiceStatus};
use crate::money::Currency;

/// One generated invoice: status, currency, amount, failed attempts (days before now and
/// the payment method index), a paying charge's method, a payment outside Stripe.
#[derive(Debug, Clone)]
struct Spec {
    status: u8,
    currency: u8,
    amount: i64,
    failures: Vec<(i64, u8)>,
    paid_by: Option<u8>,
    off_stripe: u8,
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        0u8..6,
        0u8..3,
        1i64..1_000_000,
        prop::collection::vec((1i64..400, 0u8..3), 0..4),
        prop::option::of(0u8..3),
        0u8..3,
    )
        .prop_map(
            |(status, currency, amount, failures, paid_by, off_stripe)| Spec {
                status,
                currency,
                amount,
                failures,
                paid_by,
                off_stripe,
            },
        )
}

fn account(specs: &[Spec]) -> AccountData {
    let mut d = data(vec![]);
    for (i, s) in specs.iter().enumerate() {
        let id = format!("in_{i}");
        let pi = format!("pi_{i}");
        let status = match s.status {
            0 => InvoiceStatus::Paid,
            1 => InvoiceStatus::Uncollectible,
            2 => InvoiceStatus::Void,
            3 => InvoiceStatus::Open,
            4 => InvoiceStatus::Draft,
            _ => InvoiceStatus::Unknown("mystery".into()),
        };
        let currency = [Currency::USD, Currency::EUR, Currency::JPY][s.currency as usize];
        let mut inv = invoice(&id, status, s.amount);
        inv.currency = currency;
        inv.amount_due = s.amount;
        if s.off_stripe == 1 {
            inv.amount_paid_off_stripe = s.amount;
        }
        inv.status_transitions.paid_at = Some(NOW - DAY);
        d.invoices.push(inv);
        let mut p = payment(&id, &pi);
        if s.off_stripe == 2 {
            let mut rec = p.clone();
            rec.id = format!("inpay_rec_{i}").as_str().into();
            rec.payment_intent = None;
            rec.payment_type = Some(Word::new("payment_record"));
            rec.status = "paid".into();
            d.invoice_payments.push(rec);
        }
        p.currency = currency;
        d.invoice_payments.push(p);
        for (k, (days, pm)) in s.failures.iter().enumerate() {
            let mut c = charge(&format!("ch_{i}_{k}"), Some(&pi), NOW - days * DAY, None);
            c.currency = currency;
            c.payment_method = Some(format!("pm_{pm}").as_str().into());
            d.charges.push(c);
        }
        if let Some(pm) = s.paid_by {
            let mut c = charge(&format!("ch_{i}_ok"), Some(&pi), NOW - DAY, None);
            c.status = ChargeStatus::Succeeded;
            c.currency = currency;
            c.payment_method = Some(format!("pm_{pm}").as_str().into());
            d.charges.push(c);
        }
    }
    d
}

proptest! {
    #[test]
    fn what_failed_is_what_ended_each_way(specs in prop::collection::vec(spec(), 0..40)) {
        let d = account(&specs);
        let w = Window::ending_at(NOW, 24, &TimeZone::UTC);
        let r = build(&d, &w, &TimeZone::UTC);
        // Every invoice with a failed charge in the window is in the picture, once.
        let expected = specs
            .iter()
            .filter(|s| s.failures.iter().any(|(days, _)| w.contains(NOW - days * DAY)))
            .count();
        prop_assert_eq!(r.invoices.len(), expected);
        let mut by: BTreeMap<Currency, [(usize, i64); 6]> = BTreeMap::new();
        for c in &r.cohorts {
            let e = by.entry(c.currency).or_insert([(0, 0); 6]);
            for (slot, t) in [c.failed, c.recovered, c.written_off, c.voided, c.still_open]
                .into_iter()
                .enumerate()
            {
                e[slot].0 += t.count;
                e[slot].1 += t.amount;
            }
            let ways: usize = Via::ALL.iter().map(|v| c.via(*v).count).sum();
            let way_amounts: i64 = Via::ALL.iter().map(|v| c.via(*v).amount).sum();
            prop_assert_eq!(ways, c.recovered.count);
            prop_assert_eq!(way_amounts, c.recovered.amount);
            e[5].0 += ways;
        }
        for (cur, e) in &by {
            let ended = e[1].0 + e[2].0 + e[3].0 + e[4].0;
            let ended_amount = e[1].1 + e[2].1 + e[3].1 + e[4].1;
            prop_assert_eq!(e[0].0, ended, "{} counts", cur);
            prop_assert_eq!(e[0].1, ended_amount, "{} amounts", cur);
            prop_assert_eq!(e[5].0, e[1].0, "{} ways", cur);
            let invoices: Vec<&InvoiceRecovery> =
                r.invoices.iter().filter(|i| i.currency == *cur).collect();
            prop_assert_eq!(invoices.len(), e[0].0);
            prop_assert_eq!(invoices.iter().map(|i| i.amount_due).sum::<i64>(), e[0].1);
        }
        // Each recovered invoice has exactly one way; nothing else has one.
        for i in &r.invoices {
            let recovered = i.outcome.as_str() == "recovered";
            prop_assert_eq!(i.via().is_some(), recovered);
            let ways = Via::ALL.iter().filter(|v| Some(**v) == i.via()).count();
            prop_assert_eq!(ways, usize::from(recovered));
        }
    }
}
