//! The tables a query reads: the snapshot's twelve tables (with a `*_utc` datetime column
//! beside each epoch-seconds column) and seven views of the domain's results
//! (`payout_tieout`, `payout_lines`, `worklist`, `recovery`, `recovery_invoices`,
//! `balance_rollforward`, `fees`),
//! computed by the same code as the panes.

use std::collections::BTreeSet;

use jiff::tz::TimeZone;
use polars::prelude::{
    BooleanChunked, Column, DataFrame, DataType, Int64Chunked, IntoColumn, IntoLazy,
    NewChunkedArray, StringChunked, TimeUnit, col, lit,
};

use tieout_core::domain::dunning;
use tieout_core::domain::recovery;
use tieout_core::domain::tieout::{self as tie, category};
use tieout_core::report::dunning as report_dunning;
use tieout_core::report::fields::{SqlData, sql_columns};
use tieout_core::report::recovery as report_recovery;
use tieout_core::time::Month;

use crate::source::tables::Snapshot;
use tieout_core::model::AccountData;

use super::QueryError;

/// Epoch-seconds columns: each gets a `<name>_utc` datetime column next to it.
pub const TIME_COLUMNS: &[&str] = &[
    "created",
    "arrival_date",
    "available_on",
    "due_date",
    "next_payment_attempt",
    "current_period_start",
    "current_period_end",
    "payout_arrival_date",
    "paid_at",
    "voided_at",
    "marked_uncollectible_at",
];

/// One table or view a query can name.
#[derive(Debug, Clone)]
pub struct TableInfo {
    pub name: String,
    /// One line saying what a row is.
    pub about: &'static str,
    pub frame: DataFrame,
}

impl TableInfo {
    /// `(column, type)` pairs, in order.
    pub fn columns(&self) -> Vec<(String, String)> {
        self.frame
            .schema()
            .iter()
            .map(|(n, t)| (n.to_string(), type_name(t)))
            .collect()
    }
}

/// A column type in SQL words.
pub fn type_name(t: &DataType) -> String {
    match t {
        DataType::Int64 | DataType::Int32 | DataType::UInt32 | DataType::UInt64 => "integer".into(),
        DataType::Float64 | DataType::Float32 => "float".into(),
        DataType::String => "text".into(),
        DataType::Boolean => "boolean".into(),
        DataType::Datetime(_, _) => "timestamp (UTC)".into(),
        DataType::Date => "date".into(),
        other => other.to_string(),
    }
}

fn about(table: &str) -> &'static str {
    match table {
        "payouts" => "one payout (amount in minor units, arrival_date)",
        "balance_transactions" => {
            "one balance transaction (kind = Stripe's type; payout = the payout that paid it out)"
        }
        "charges" => "one charge (failure_code, outcome_reason, decline_code)",
        "refunds" => "one refund",
        "disputes" => "one dispute (reason, status)",
        "invoices" => "one invoice (amount_remaining, attempt_count, due_date)",
        "invoice_payments" => "one payment of an invoice (invoice -> payment_intent)",
        "payment_intents" => "one payment intent",
        "customers" => "one customer (email, name)",
        "subscriptions" => "one subscription (status, current_period_end)",
        "renewal_methods" => {
            "one active subscription's next renewal and the payment method it is charged to (card expiry)"
        }
        "fraud_warnings" => {
            "one early fraud warning (charge, fraud_type, actionable; charge_fee when read with it)"
        }
        "payout_tieout" => "view: one payout with the tie-out's verdict and difference",
        "payout_lines" => "view: one line of an itemised payout, with its payout and verdict",
        "worklist" => "view: one invoice of the dunning worklist, with its action",
        "recovery" => {
            "view: one cohort of failed invoices (month of the first failed attempt, currency, first decline) and how they ended, the last 6 months (complete = false: the snapshot lacks settled invoices the window needs; run tieout sync)"
        }
        "recovery_invoices" => {
            "view: one invoice whose first payment attempt failed in the last 6 months, and how it ended (complete as in recovery)"
        }
        "balance_rollforward" => {
            "view: one month and currency of the Stripe balance roll-forward (minor units)"
        }
        "fees" => "view: one month, currency, source and fee type of what Stripe took",
        _ => "",
    }
}

/// The frame with a `<name>_utc` datetime column after each epoch-seconds column.
pub fn with_utc_columns(df: DataFrame) -> Result<DataFrame, QueryError> {
    let names: Vec<String> = df
        .get_column_names()
        .iter()
        .map(|n| n.to_string())
        .collect();
    let mut order = Vec::with_capacity(names.len() * 2);
    let mut exprs = Vec::new();
    for n in &names {
        order.push(col(n.as_str()));
        let is_time = TIME_COLUMNS.contains(&n.as_str())
            && df
                .column(n)
                .map(|c| c.dtype() == &DataType::Int64)
                .unwrap_or(false);
        if is_time {
            let utc = format!("{n}_utc");
            exprs.push(
                (col(n.as_str()) * lit(1000i64))
                    .cast(DataType::Datetime(TimeUnit::Milliseconds, None))
                    .alias(utc.as_str()),
            );
            order.push(col(utc.as_str()));
        }
    }
    if exprs.is_empty() {
        return Ok(df);
    }
    df.lazy()
        .with_columns(exprs)
        .select(order)
        .collect()
        .map_err(QueryError::engine)
}

/// Every table and view, built from the account's rows. `now` and `tz` are what the
/// worklist and the tie-out's months use (as the panes).
pub fn build(data: &AccountData, now: i64, tz: &TimeZone) -> Result<Vec<TableInfo>, QueryError> {
    let snap = Snapshot::from_data(data).map_err(|e| QueryError::engine(e.to_string()))?;
    let mut out = Vec::new();
    for (table, frame) in snap.tables() {
        let name = table.name().to_string();
        out.push(TableInfo {
            about: about(&name),
            frame: with_utc_columns(frame.clone())?,
            name,
        });
    }
    let (payouts, lines) = tieout_views(data, tz)?;
    let (cohorts, invoices) = recovery_views(data, now, tz)?;
    let (rollforward, fees) = super::balance_views::balance_views(data, now, tz)?;
    for (name, frame) in [
        ("payout_tieout", payouts),
        ("payout_lines", lines),
        ("worklist", worklist_view(data, now)?),
        ("recovery", cohorts),
        ("recovery_invoices", invoices),
        ("balance_rollforward", rollforward),
        ("fees", fees),
    ] {
        out.push(TableInfo {
            name: name.to_string(),
            about: about(name),
            frame: with_utc_columns(frame)?,
        });
    }
    Ok(out)
}

fn s<S: AsRef<str>>(name: &str, v: Vec<S>) -> Column {
    StringChunked::from_iter_values(name.into(), v.iter().map(AsRef::as_ref)).into_column()
}

fn os<S: AsRef<str>>(name: &str, v: Vec<Option<S>>) -> Column {
    StringChunked::from_iter_options(name.into(), v.iter().map(|x| x.as_ref().map(AsRef::as_ref)))
        .into_column()
}

fn i(name: &str, v: Vec<i64>) -> Column {
    Int64Chunked::from_vec(name.into(), v).into_column()
}

fn oi(name: &str, v: Vec<Option<i64>>) -> Column {
    Int64Chunked::from_iter_options(name.into(), v.into_iter()).into_column()
}

fn b(name: &str, v: Vec<bool>) -> Column {
    BooleanChunked::from_iter_values(name.into(), v.into_iter()).into_column()
}

fn frame(height: usize, cols: Vec<Column>) -> Result<DataFrame, QueryError> {
    DataFrame::new(height, cols).map_err(QueryError::engine)
}

/// `payout_tieout` and `payout_lines`: every payout of every month the snapshot's payouts
/// arrive in (months in `tz`, as the Tie-out tab), tied out by the domain.
fn tieout_views(data: &AccountData, tz: &TimeZone) -> Result<(DataFrame, DataFrame), QueryError> {
    let months: BTreeSet<Month> = data
        .payouts
        .iter()
        .map(|p| Month::of(p.arrival_date, tz))
        .collect();
    let months: Vec<Month> = months.into_iter().collect();
    let results = tie::tie_out_months(&data.payouts, &data.balance_transactions, &months, tz);

    let (mut pid, mut pmonth, mut pamount, mut pcur, mut parr) =
        (vec![], vec![], vec![], vec![], vec![]);
    let (mut pkind, mut pverdict, mut pnet, mut pdiff, mut plines) =
        (vec![], vec![], vec![], vec![], vec![]);
    let (mut lpayout, mut lverdict, mut lparr, mut lid, mut lkind, mut lmonth) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    let (mut lcat, mut lrcat, mut lsource, mut lcreated, mut lcur) =
        (vec![], vec![], vec![], vec![], vec![]);
    let (mut lamount, mut lfee, mut lnet) = (vec![], vec![], vec![]);
    // Borrowed cells (one string per month, static words): a million lines are not a
    // million allocations per text column before polars copies them into its columns.
    let month_names: Vec<String> = results.iter().map(|m| m.month.to_string()).collect();
    for (m, month) in results.iter().zip(&month_names) {
        for p in &m.payouts {
            pid.push(p.payout.id.as_str());
            pmonth.push(month.as_str());
            pamount.push(p.payout.amount);
            pcur.push(p.payout.currency.as_str());
            parr.push(p.payout.arrival_date);
            pkind.push(p.kind.as_str());
            pverdict.push(p.verdict.as_str());
            pnet.push(p.lines_net());
            pdiff.push(p.difference());
            plines.push(p.itemisation.as_ref().map(|it| it.lines.len() as i64));
            for l in p.itemisation.iter().flat_map(|it| it.lines.iter()) {
                lpayout.push(p.payout.id.as_str());
                lmonth.push(month.as_str());
                lverdict.push(p.verdict.as_str());
                lparr.push(p.payout.arrival_date);
                lid.push(l.id.as_str());
                lkind.push(l.kind.as_str());
                lcat.push(category::category_str(l));
                lrcat.push(l.reporting_category.as_str());
                lsource.push(l.source.as_deref());
                lcreated.push(l.created);
                lcur.push(l.currency.as_str());
                lamount.push(l.amount);
                lfee.push(l.fee);
                lnet.push(l.net);
            }
        }
    }
    let payouts = frame(
        pid.len(),
        vec![
            s("payout", pid),
            s("month", pmonth),
            i("amount", pamount),
            s("currency", pcur),
            i("arrival_date", parr),
            s("kind", pkind),
            s("verdict", pverdict),
            oi("lines", plines),
            oi("lines_net", pnet),
            oi("difference", pdiff),
        ],
    )?;
    let lines = frame(
        lid.len(),
        vec![
            s("payout", lpayout),
            s("month", lmonth),
            s("verdict", lverdict),
            i("payout_arrival_date", lparr),
            s("id", lid),
            s("kind", lkind),
            s("category", lcat),
            s("reporting_category", lrcat),
            os("source", lsource),
            i("created", lcreated),
            s("currency", lcur),
            i("amount", lamount),
            i("fee", lfee),
            i("net", lnet),
        ],
    )?;
    Ok((payouts, lines))
}

/// `worklist`: the dunning worklist at `now`, in its own order, with the columns of
/// `failed-payments.csv` (the row's one declaration, `report::dunning::FIELDS`): amounts in
/// minor units, `*_utc` as timestamps.
fn worklist_view(data: &AccountData, now: i64) -> Result<DataFrame, QueryError> {
    let w = dunning::build(data, now).map_err(|e| QueryError::engine(e.to_string()))?;
    declared_frame(w.rows.len(), sql_columns(report_dunning::FIELDS, &w.rows))
}

/// How many months of failures the `recovery` views cover: `tieout recovery`'s default
/// and the Worklist's Recovery view's.
pub const RECOVERY_MONTHS: u32 = 6;

/// `recovery` and `recovery_invoices`: the recovery picture of the [`RECOVERY_MONTHS`]
/// months ending with `now`'s (cut in `tz`), with the columns of `recovery.csv` and
/// `recovery-invoices.csv` (their rows' one declarations, `report::recovery`): amounts
/// in minor units, `*_utc` as timestamps.
fn recovery_views(
    data: &AccountData,
    now: i64,
    tz: &TimeZone,
) -> Result<(DataFrame, DataFrame), QueryError> {
    let window = recovery::Window::ending_at(now, RECOVERY_MONTHS, tz);
    let r = recovery::build(data, &window, tz);
    // Every row says whether the snapshot holds the settled invoices the window needs (as
    // the exports' "Incomplete" banner): a count over an incomplete picture is not hidden,
    // and not mistaken for the whole one either.
    let complete = window.settled_gap(&data.meta).is_none();
    let mut cohorts = sql_columns(report_recovery::COHORT_FIELDS, &r.cohorts);
    cohorts.push(("complete", SqlData::Bool(vec![complete; r.cohorts.len()])));
    let mut invoices = sql_columns(report_recovery::INVOICE_FIELDS, &r.invoices);
    invoices.push(("complete", SqlData::Bool(vec![complete; r.invoices.len()])));
    Ok((
        declared_frame(r.cohorts.len(), cohorts)?,
        declared_frame(r.invoices.len(), invoices)?,
    ))
}

/// A view from a row's declared SQL columns.
fn declared_frame(height: usize, columns: Vec<(&str, SqlData)>) -> Result<DataFrame, QueryError> {
    let mut cols = Vec::with_capacity(columns.len());
    for (name, data) in columns {
        cols.push(match data {
            SqlData::Text(v) => os(name, v),
            SqlData::Int(v) => oi(name, v),
            SqlData::Bool(v) => b(name, v),
            SqlData::Time(v) => oi(name, v.into_iter().map(|t| t.map(|s| s * 1000)).collect())
                .cast(&DataType::Datetime(TimeUnit::Milliseconds, None))
                .map_err(QueryError::engine)?,
        });
    }
    frame(height, cols)
}
