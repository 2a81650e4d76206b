//! The domain's views a query can name, computed from the account's rows by the same
//! code as the panes: `payout_tieout` and `payout_lines` (the tie-out of every month),
//! `worklist`, `recovery` and `recovery_invoices`, `balance_rollforward` and `fees`.
//!
//! Views come in [`Family`]s built together from the same pass (the tie-out's two views,
//! the recovery's two, the balance's two); each family says which tables it reads, so an
//! engine over the cache reads only those, and only for a query that names one of its
//! views.

use std::collections::BTreeSet;

use jiff::tz::TimeZone;
use polars::prelude::{
    BooleanChunked, Column, DataFrame, DataType, Int64Chunked, IntoColumn, NewChunkedArray,
    StringChunked, TimeUnit,
};

use tieout_core::domain::dunning;
use tieout_core::domain::recovery;
use tieout_core::domain::tieout::{self as tie, category};
use tieout_core::model::{AccountData, Table};
use tieout_core::report::dunning as report_dunning;
use tieout_core::report::fields::{SqlData, sql_columns};
use tieout_core::report::recovery as report_recovery;
use tieout_core::time::Month;

use super::QueryError;

/// Views built together from one pass over the rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Tieout,
    Worklist,
    Recovery,
    Balance,
}

/// Every view, in the order `--tables` lists them, with its family.
pub const VIEWS: [(&str, Family); 7] = [
    ("payout_tieout", Family::Tieout),
    ("payout_lines", Family::Tieout),
    ("worklist", Family::Worklist),
    ("recovery", Family::Recovery),
    ("recovery_invoices", Family::Recovery),
    ("balance_rollforward", Family::Balance),
    ("fees", Family::Balance),
];

impl Family {
    pub const ALL: [Family; 4] = [
        Family::Tieout,
        Family::Worklist,
        Family::Recovery,
        Family::Balance,
    ];

    pub fn index(self) -> usize {
        self as usize
    }

    /// Whether the family's views are computed from `table` (the others may be empty).
    pub fn reads(self, table: Table) -> bool {
        match self {
            Family::Tieout => matches!(table, Table::Payouts | Table::BalanceTransactions),
            Family::Balance => table == Table::BalanceTransactions,
            Family::Worklist => dunning::READS.contains(&table),
            Family::Recovery => recovery::READS.contains(&table),
        }
    }

    /// The family's views over `data`, in [`VIEWS`] order (without their `_utc` columns).
    /// `now` and `tz` are what the worklist and the months use (as the panes).
    pub fn build(
        self,
        data: &AccountData,
        now: i64,
        tz: &TimeZone,
    ) -> Result<Vec<DataFrame>, QueryError> {
        Ok(match self {
            Family::Tieout => {
                let (payouts, lines) = tieout_views(data, tz)?;
                vec![payouts, lines]
            }
            Family::Worklist => vec![worklist_view(data, now)?],
            Family::Recovery => {
                let (cohorts, invoices) = recovery_views(data, now, tz)?;
                vec![cohorts, invoices]
            }
            Family::Balance => {
                let (rollforward, fees) = super::balance_views::balance_views(data, now, tz)?;
                vec![rollforward, fees]
            }
        })
    }

    /// Where view `name` is in its family's frames.
    pub fn position(self, name: &str) -> usize {
        VIEWS
            .iter()
            .filter(|(_, f)| *f == self)
            .position(|(n, _)| *n == name)
            .unwrap_or(0)
    }
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
