//! The recovery picture's exports (issue 36; RULES.md, "Recovery"): `recovery.csv` (one row
//! per cohort), `recovery-invoices.csv` (the invoices behind it), `recovery-leaks.csv`, and
//! `recovery.json` holding all three. Each row is declared once as a [`Field`] list, so the
//! CSV header, the JSON keys and the SQL views (`recovery`, `recovery_invoices`) agree.
//! The Markdown is [`crate::report::recovery_md`].

use serde::Serialize;

use crate::domain::recovery::cohorts::decline_label;
use crate::domain::recovery::{Cohort, InvoiceRecovery, Leak, Recovery};
use crate::model::SnapshotMeta;
use crate::money::Money;
use crate::report::fields::{self, Field, Get, JsonFields};
use crate::time::iso_utc;

/// `recovery.csv`'s row: one cohort (month of the first failed attempt, currency, first
/// decline). Counts are invoices; amounts are `amount_due` in the currency's major units.
pub const COHORT_FIELDS: &[Field<Cohort>] = &[
    Field::new(
        "cohort_month",
        "Month",
        Get::Text(|c| Some(c.month.to_string())),
    ),
    Field::new(
        "currency",
        "Currency",
        Get::Str(|c| Some(c.currency.as_str())),
    ),
    Field::new(
        "decline_code",
        "First decline",
        Get::Str(|c: &Cohort| c.decline.decline_code.as_deref()),
    )
    .shown_as(|c| decline_label(&c.decline)),
    Field::new(
        "failed_count",
        "Failed",
        Get::Int(|c| Some(count(c.failed.count))),
    ),
    Field::new(
        "failed_amount",
        "Failed amount",
        Get::Money(|c| Some(Money::new(c.failed.amount, c.currency))),
    ),
    Field::new(
        "recovered_count",
        "Recovered",
        Get::Int(|c| Some(count(c.recovered.count))),
    ),
    Field::new(
        "recovered_amount",
        "Recovered amount",
        Get::Money(|c| Some(Money::new(c.recovered.amount, c.currency))),
    ),
    Field::new(
        "recovered_by_retry",
        "By retry",
        Get::Int(|c| Some(count(c.by_retry.count))),
    ),
    Field::new(
        "recovered_by_new_method",
        "By new method",
        Get::Int(|c| Some(count(c.by_new_method.count))),
    ),
    Field::new(
        "recovered_out_of_band",
        "Out of band",
        Get::Int(|c| Some(count(c.out_of_band.count))),
    ),
    Field::new(
        "written_off",
        "Written off",
        Get::Int(|c| Some(count(c.written_off.count))),
    ),
    Field::new(
        "voided",
        "Voided",
        Get::Int(|c| Some(count(c.voided.count))),
    ),
    Field::new(
        "still_open",
        "Still open",
        Get::Int(|c| Some(count(c.still_open.count))),
    ),
    Field::new(
        "median_days_to_recover",
        "Median days",
        Get::Text(|c| c.median_days_to_recover.map(|m| m.to_string())),
    ),
    // After the columns the issue named, so a reader of those keeps its positions.
    Field::new(
        "recovered_other",
        "Other way",
        Get::Int(|c| Some(count(c.other.count))),
    ),
    Field::new(
        "failure_code",
        "Failure code",
        Get::Str(|c| c.decline.failure_code.as_deref()),
    ),
];

/// `recovery-invoices.csv`'s row: one invoice with a failed attempt and how it ended.
pub const INVOICE_FIELDS: &[Field<InvoiceRecovery>] = &[
    Field::new("invoice_id", "Invoice", Get::Str(|r| Some(&r.invoice_id))),
    Field::new(
        "customer_id",
        "Customer id",
        Get::Str(|r| r.customer_id.as_deref()),
    ),
    Field::new(
        "currency",
        "Currency",
        Get::Str(|r| Some(r.currency.as_str())),
    ),
    Field::new("amount_due", "Amount due", Get::Money(|r| Some(r.money()))),
    Field::new(
        "first_failed_at_utc",
        "First failed",
        Get::Time(|r| Some(r.first_failure.at)),
    ),
    Field::new(
        "first_decline_code",
        "First decline",
        Get::Str(|r: &InvoiceRecovery| r.first_failure.decline.decline_code.as_deref()),
    )
    .shown_as(|r| decline_label(&r.first_failure.decline)),
    Field::new(
        "attempts",
        "Attempts",
        Get::Int(|r| Some(count(r.attempt_count()))),
    ),
    Field::new("outcome", "Outcome", Get::Str(|r| Some(r.outcome.as_str()))),
    Field::new("outcome_at_utc", "Outcome at", Get::Time(|r| r.outcome_at)),
    Field::new(
        "days_to_outcome",
        "Days",
        Get::Int(InvoiceRecovery::days_to_outcome),
    ),
    Field::new(
        "recovered_via",
        "Recovered via",
        Get::Str(|r| r.via().map(|v| v.as_str())),
    ),
    Field::new(
        "first_failure_code",
        "First failure code",
        Get::Str(|r| r.first_failure.decline.failure_code.as_deref()),
    ),
];

/// `recovery-leaks.csv`'s row.
pub const LEAK_FIELDS: &[Field<Leak>] = &[
    Field::new("kind", "Kind", Get::Str(|l| Some(l.kind.as_str()))),
    Field::new("invoice_id", "Invoice", Get::Str(|l| Some(&l.invoice_id))),
    Field::new(
        "customer_id",
        "Customer id",
        Get::Str(|l| l.customer_id.as_deref()),
    ),
    Field::new("detail", "Detail", Get::Str(|l| Some(&l.detail))),
];

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// `recovery.csv`.
pub fn cohorts_csv(r: &Recovery) -> Vec<u8> {
    fields::csv(COHORT_FIELDS, &r.cohorts)
}

/// `recovery-invoices.csv`.
pub fn invoices_csv(r: &Recovery) -> Vec<u8> {
    fields::csv(INVOICE_FIELDS, &r.invoices)
}

/// `recovery-leaks.csv`.
pub fn leaks_csv(r: &Recovery) -> Vec<u8> {
    fields::csv(LEAK_FIELDS, &r.leaks)
}

#[derive(Serialize)]
struct JsonDoc<'a> {
    source: JsonSource<'a>,
    computed_at_utc: String,
    first_month: String,
    last_month: String,
    cohorts: Vec<JsonFields<'a, 'a, Cohort>>,
    invoices: Vec<JsonFields<'a, 'a, InvoiceRecovery>>,
    leaks: Vec<JsonFields<'a, 'a, Leak>>,
}

#[derive(Serialize)]
struct JsonSource<'a> {
    account_id: &'a str,
    account_name: Option<&'a str>,
    mode: &'a str,
    origin: &'a str,
    read_at_utc: String,
    api_version: &'a str,
}

/// `recovery.json`: the cohorts, the invoices and the leaks (amounts in minor units).
pub fn json(r: &Recovery, meta: &SnapshotMeta, now: i64) -> Vec<u8> {
    let doc = JsonDoc {
        source: JsonSource {
            account_id: &meta.account_id,
            account_name: meta.account_name.as_deref(),
            mode: meta.mode.as_str(),
            origin: meta.origin.as_str(),
            read_at_utc: iso_utc(meta.fetched_at),
            api_version: &meta.api_version,
        },
        computed_at_utc: iso_utc(now),
        first_month: r.window.first.to_string(),
        last_month: r.window.last.to_string(),
        cohorts: r
            .cohorts
            .iter()
            .map(|c| JsonFields::new(COHORT_FIELDS, c))
            .collect(),
        invoices: r
            .invoices
            .iter()
            .map(|i| JsonFields::new(INVOICE_FIELDS, i))
            .collect(),
        leaks: r
            .leaks
            .iter()
            .map(|l| JsonFields::new(LEAK_FIELDS, l))
            .collect(),
    };
    // Serialising plain structs of strings and integers cannot fail.
    let mut bytes = serde_json::to_vec_pretty(&doc).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The issue's columns first, in its order, then the two each file adds after them
    /// (the way no charge shows, the failure code beside a decline code left empty).
    #[test]
    fn the_headers_are_the_issues_columns() {
        assert_eq!(
            fields::csv_header(COHORT_FIELDS).join(","),
            "cohort_month,currency,decline_code,failed_count,failed_amount,recovered_count,\
             recovered_amount,recovered_by_retry,recovered_by_new_method,recovered_out_of_band,\
             written_off,voided,still_open,median_days_to_recover,recovered_other,failure_code"
        );
        assert_eq!(
            fields::csv_header(INVOICE_FIELDS).join(","),
            "invoice_id,customer_id,currency,amount_due,first_failed_at_utc,first_decline_code,\
             attempts,outcome,outcome_at_utc,days_to_outcome,recovered_via,first_failure_code"
        );
        assert_eq!(
            fields::csv_header(LEAK_FIELDS).join(","),
            "kind,invoice_id,customer_id,detail"
        );
    }
}
