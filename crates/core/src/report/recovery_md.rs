//! `recovery.md`: the recovery picture for people (issue 36; RULES.md, "Recovery"). Per
//! currency: the cohort table, the check that its outcomes add up to what failed, the
//! recovery rate of each first decline across cohorts (with its counts, so a rate over two
//! invoices is not read as a trend), and the share recovered by each way. Then the leaks.
//! Cells go through [`markdown_cell`].

use std::collections::BTreeSet;

use crate::domain::recovery::cohorts::{Tally, decline_label, percent};
use crate::domain::recovery::{
    Cohort, InvoiceRecovery, Outcome, Recovery, Via, decline_rates, way_shares,
};
use crate::model::SnapshotMeta;
use crate::money::{Currency, Money};
use crate::report::fields::{self, markdown_cell};
use crate::report::recovery::LEAK_FIELDS;
use crate::time::iso_utc;

/// Below this many failed invoices a rate is marked as too few to read as a trend.
pub const FEW: usize = 5;

/// `recovery.md`.
pub fn markdown(r: &Recovery, meta: &SnapshotMeta, now: i64, zone: &str) -> String {
    let mut o = String::new();
    o.push_str("# Recovery of failed payments\n\n");
    o.push_str(&format!(
        "Account {} ({}), {} data read at {}; computed at {}.\n\n",
        markdown_cell(meta.account_name.as_deref().unwrap_or(&meta.account_id)),
        meta.mode.as_str(),
        meta.origin.as_str(),
        iso_utc(meta.fetched_at),
        iso_utc(now),
    ));
    o.push_str(&format!(
        "Invoices whose first failed payment attempt fell in {} to {} (months in {}), by \
         month of that first failure, currency and its decline code. Recovered means the \
         invoice is paid now; amounts are the invoice's amount due in its own currency, \
         never converted.\n\n",
        r.window.first,
        r.window.last,
        markdown_cell(zone)
    ));
    if let Some(gap) = r.window.settled_gap(meta) {
        o.push_str(&format!(
            "**Incomplete:** {}; read Stripe again (`tieout sync`) before relying on these rates.\n\n",
            markdown_cell(&gap)
        ));
    }
    let currencies = currencies(r, meta.default_currency);
    if currencies.is_empty() {
        o.push_str("No invoice had a failed payment attempt in these months.\n\n");
    }
    let rates = decline_rates(&r.cohorts);
    let shares = way_shares(&r.cohorts);
    for cur in currencies {
        let rows: Vec<&Cohort> = r.cohorts.iter().filter(|c| c.currency == cur).collect();
        o.push_str(&format!("## {}\n\n", cur.upper()));
        cohort_table(&mut o, &rows);
        let invoices: Vec<&InvoiceRecovery> =
            r.invoices.iter().filter(|i| i.currency == cur).collect();
        tie_line(&mut o, cur, &rows, &invoices);
        o.push_str("### Recovery rate by first decline, across months\n\n");
        o.push_str("| First decline | Failed | Recovered | Rate | Recovered amount |\n");
        o.push_str("|---|---:|---:|---:|---:|\n");
        for d in rates.iter().filter(|d| d.currency == cur) {
            o.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                markdown_cell(&decline_label(&d.decline)),
                d.failed.count,
                d.recovered.count,
                rate(d.recovered.count, d.failed.count),
                Money::new(d.recovered.amount, cur).display(),
            ));
        }
        o.push('\n');
        let ways: Vec<_> = shares.iter().filter(|s| s.currency == cur).collect();
        if !ways.is_empty() {
            o.push_str("### How recovered invoices were paid\n\n");
            o.push_str("| Way | Invoices | Share | Amount |\n|---|---:|---:|---:|\n");
            for s in ways {
                o.push_str(&format!(
                    "| {} | {} | {} | {} |\n",
                    s.via.title(),
                    s.tally.count,
                    percent_text(s.tally.count, s.recovered.count),
                    Money::new(s.tally.amount, cur).display(),
                ));
            }
            o.push('\n');
        }
    }
    o.push_str("## Leaks\n\n");
    if r.leaks.is_empty() {
        o.push_str("None found.\n");
    } else {
        o.push_str(&fields::markdown_table(
            LEAK_FIELDS,
            &["kind", "invoice_id", "customer_id", "detail"],
            &r.leaks,
        ));
    }
    o
}

/// The currencies with a cohort: the account's default first, then most failed
/// invoices, ties by code.
fn currencies(r: &Recovery, default: Option<Currency>) -> Vec<Currency> {
    let set: BTreeSet<Currency> = r.cohorts.iter().map(|c| c.currency).collect();
    let order = crate::domain::dunning::CurrencyOrder::new(
        default,
        set.iter().map(|cur| {
            let n = r
                .cohorts
                .iter()
                .filter(|c| c.currency == *cur)
                .map(|c| c.failed.count)
                .sum();
            (*cur, n)
        }),
    );
    let mut all: Vec<Currency> = set.into_iter().collect();
    order.sort(&mut all, |c| *c);
    all
}

fn cohort_table(o: &mut String, rows: &[&Cohort]) {
    o.push_str(
        "| Month | First decline | Failed | Failed amount | Recovered | Recovered amount | \
         By retry | By new method | Out of band | Other way | Written off | Voided | \
         Still open | Median days |\n",
    );
    o.push_str("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for c in rows {
        o.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            c.month,
            markdown_cell(&decline_label(&c.decline)),
            c.failed.count,
            Money::new(c.failed.amount, c.currency).display(),
            c.recovered.count,
            Money::new(c.recovered.amount, c.currency).display(),
            c.via(Via::Retry).count,
            c.via(Via::NewMethod).count,
            c.via(Via::OutOfBand).count,
            c.via(Via::Other).count,
            c.written_off.count,
            c.voided.count,
            c.still_open.count,
            c.median_days_to_recover
                .map_or_else(|| "–".to_string(), |m| m.to_string()),
        ));
    }
    o.push('\n');
}

/// The currency's check: failed = recovered + written off + voided + still open, in
/// invoices and in amount, and each of those cohort sums equal to the same sum taken
/// independently over the invoice rows (in i128, so a sum the cohorts' i64 tallies could
/// not hold shows as a difference). Shown either way; a difference is shown with both
/// sides.
fn tie_line(o: &mut String, cur: Currency, rows: &[&Cohort], invoices: &[&InvoiceRecovery]) {
    let sum = |f: fn(&Cohort) -> Tally| {
        rows.iter().fold(Tally::default(), |mut t, c| {
            let x = f(c);
            t.count += x.count;
            t.amount = t.amount.saturating_add(x.amount);
            t
        })
    };
    let failed = sum(|c| c.failed);
    let parts = [
        sum(|c| c.recovered),
        sum(|c| c.written_off),
        sum(|c| c.voided),
        sum(|c| c.still_open),
    ];
    let count: usize = parts.iter().map(|t| t.count).sum();
    let amount = parts.iter().fold(0i64, |a, t| a.saturating_add(t.amount));
    let ways: usize = Via::ALL
        .iter()
        .map(|v| rows.iter().map(|c| c.via(*v).count).sum::<usize>())
        .sum();
    // The invoice rows, summed apart from the cohorts: failed, then each outcome.
    let of = |keep: &dyn Fn(&InvoiceRecovery) -> bool| -> (usize, i128) {
        invoices
            .iter()
            .filter(|i| keep(i))
            .fold((0, 0), |(n, a), i| (n + 1, a + i128::from(i.amount_due)))
    };
    let same = |t: Tally, (n, a): (usize, i128)| t.count == n && i128::from(t.amount) == a;
    let rows_agree = same(failed, of(&|_| true))
        && same(
            parts[0],
            of(&|i| matches!(i.outcome, Outcome::Recovered(_))),
        )
        && same(parts[1], of(&|i| i.outcome == Outcome::WrittenOff))
        && same(parts[2], of(&|i| i.outcome == Outcome::Voided))
        && same(parts[3], of(&|i| i.outcome == Outcome::StillOpen));
    let ties =
        rows_agree && count == failed.count && amount == failed.amount && ways == parts[0].count;
    o.push_str(&format!(
        "Failed {} invoices, {}: recovered {}, written off {}, voided {}, still open {} \
         ({} invoices, {}){}.\n\n",
        failed.count,
        Money::new(failed.amount, cur).display(),
        parts[0].count,
        parts[1].count,
        parts[2].count,
        parts[3].count,
        count,
        Money::new(amount, cur).display(),
        if ties {
            ": ties"
        } else {
            ": DOES NOT TIE, the outcomes or the invoice rows differ from what failed"
        },
    ));
}

/// `62% (5 of 8)`, marked when fewer than [`FEW`] invoices failed.
fn rate(part: usize, whole: usize) -> String {
    let text = percent_text(part, whole);
    if whole < FEW {
        format!("{text}, {whole} failed: too few for a trend")
    } else {
        text
    }
}

fn percent_text(part: usize, whole: usize) -> String {
    percent(part, whole).map_or_else(|| "–".to_string(), |p| format!("{p}%"))
}

#[cfg(test)]
mod tests {
    use jiff::tz::TimeZone;

    use super::*;
    use crate::domain::dunning::testdata::{
        DAY, NOW, attempted, charge, data, intent, invoice, payment,
    };
    use crate::domain::recovery::{Window, build};
    use crate::model::status::InvoiceStatus;

    /// Open invoices of `dues` (USD minor units), each with one failed attempt.
    fn picture(dues: &[i64]) -> (Recovery, SnapshotMeta) {
        let mut d = data(vec![]);
        for (n, due) in dues.iter().enumerate() {
            let id = format!("in_{n}");
            let pi = format!("pi_{n}");
            let ch = format!("ch_{n}");
            let mut inv = attempted(invoice(&id, InvoiceStatus::Open, *due), 1, Some(NOW + DAY));
            inv.amount_due = *due;
            d.invoices.push(inv);
            d.invoice_payments.push(payment(&id, &pi));
            d.payment_intents
                .push(intent(&pi, Some("insufficient_funds"), None, &ch));
            d.charges.push(charge(
                &ch,
                Some(&pi),
                NOW - 10 * DAY,
                Some("insufficient_funds"),
            ));
        }
        let w = Window::ending_at(NOW, 6, &TimeZone::UTC);
        (build(&d, &w, &TimeZone::UTC), d.meta.clone())
    }

    #[test]
    fn the_tie_line_ties_when_cohorts_and_invoice_rows_agree() {
        let (r, meta) = picture(&[1000, 2500]);
        let md = markdown(&r, &meta, NOW, "UTC");
        assert!(
            md.contains("still open 2 (2 invoices, 35.00 USD): ties."),
            "{md}"
        );
    }

    #[test]
    fn the_tie_line_says_so_when_the_invoice_rows_differ_from_the_cohorts() {
        let (mut r, meta) = picture(&[1000, 2500]);
        // A row the cohorts never counted.
        let extra = r.invoices[0].clone();
        r.invoices.push(extra);
        let md = markdown(&r, &meta, NOW, "UTC");
        assert!(md.contains(": DOES NOT TIE"), "{md}");
    }

    #[test]
    fn a_sum_past_what_minor_units_hold_does_not_tie() {
        // Two dues whose sum is past i64: the cohort's tally cannot hold it, the invoice
        // rows summed apart can, so the difference is shown instead of a clamped "ties".
        let (r, meta) = picture(&[i64::MAX / 2 + 1, i64::MAX / 2 + 1]);
        let md = markdown(&r, &meta, NOW, "UTC");
        assert!(md.contains(": DOES NOT TIE"), "{md}");
    }
}
