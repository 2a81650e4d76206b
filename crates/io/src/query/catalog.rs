//! The tables a query reads: the snapshot's twelve tables (with a `*_utc` datetime column
//! beside each epoch-seconds column) and seven views of the domain's results
//! (`payout_tieout`, `payout_lines`, `worklist`, `recovery`, `recovery_invoices`,
//! `balance_rollforward`, `fees`), computed by the same code as the panes.
//!
//! Nothing is read until a query names it: each table and view is a [`TableInfo`] that
//! knows its columns and types up front (those of an empty account) and gives its rows
//! as a `LazyFrame` when asked ([`super::account`]: a Parquet scan of the cache, or the
//! rows in memory turned into a frame once). [`eager`] builds everything at once, as
//! tieout did before: the reference the lazy catalog is tested against.

use std::fmt;
use std::sync::Arc;

use jiff::tz::TimeZone;
use polars::prelude::{
    DataFrame, DataType, IntoLazy, LazyFrame, Schema, SchemaRef, TimeUnit, col, lit,
};

use tieout_core::model::{AccountData, Table};

use super::QueryError;
use super::account::Account;
use super::views::{Family, VIEWS};
use crate::source::tables::frame_of;

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
#[derive(Clone)]
pub struct TableInfo {
    pub name: String,
    /// One line saying what a row is.
    pub about: &'static str,
    /// The columns and their types, known before a row is read.
    pub schema: SchemaRef,
    source: Source,
}

/// Where a table's rows come from.
#[derive(Clone)]
enum Source {
    /// A frame given whole (tests, benches, the eager reference).
    Frame(DataFrame),
    /// A table of the account, read when a query names it.
    Table(Arc<Account>, Table),
    /// A view, built with the rest of its family when a query first names one of them.
    View(Arc<Account>, Family, usize),
}

impl fmt::Debug for TableInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let source = match &self.source {
            Source::Frame(df) => format!("frame of {} rows", df.height()),
            Source::Table(_, t) => format!("table {}", t.name()),
            Source::View(_, family, _) => format!("view ({family:?})"),
        };
        f.debug_struct("TableInfo")
            .field("name", &self.name)
            .field("source", &source)
            .finish()
    }
}

impl TableInfo {
    /// A table over a frame given whole (its columns as they are).
    pub fn from_frame(name: impl Into<String>, about: &'static str, frame: DataFrame) -> Self {
        Self {
            name: name.into(),
            about,
            schema: frame.schema().clone(),
            source: Source::Frame(frame),
        }
    }

    /// `(column, type)` pairs, in order.
    pub fn columns(&self) -> Vec<(String, String)> {
        self.schema
            .iter()
            .map(|(n, t)| (n.to_string(), type_name(t)))
            .collect()
    }

    /// The rows, as a plan nothing has run yet (a view is built here, once).
    pub fn lazy(&self) -> Result<LazyFrame, QueryError> {
        match &self.source {
            Source::Frame(df) => Ok(df.clone().lazy()),
            Source::Table(account, table) => account.table(*table),
            Source::View(account, family, at) => Ok(account.view(*family, *at)?.lazy()),
        }
    }

    /// How many rows it has (a table's count is known without reading it; a view is built).
    pub fn rows(&self) -> Result<usize, QueryError> {
        match &self.source {
            Source::Frame(df) => Ok(df.height()),
            Source::Table(account, table) => Ok(account.rows(*table)),
            Source::View(account, family, at) => Ok(account.view(*family, *at)?.height()),
        }
    }

    /// The whole table, read (tests).
    pub fn frame(&self) -> Result<DataFrame, QueryError> {
        self.lazy()?.collect().map_err(QueryError::engine)
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

/// The `_utc` columns of a frame with `schema`: the columns to add, and every column in
/// its place (each `<name>_utc` after its `<name>`). `None` when there is none to add.
fn utc_columns(
    schema: &Schema,
) -> Option<(Vec<polars::prelude::Expr>, Vec<polars::prelude::Expr>)> {
    let mut order = Vec::with_capacity(schema.len() * 2);
    let mut exprs = Vec::new();
    for (n, t) in schema.iter() {
        order.push(col(n.clone()));
        if TIME_COLUMNS.contains(&n.as_str()) && t == &DataType::Int64 {
            let utc = format!("{n}_utc");
            exprs.push(
                (col(n.clone()) * lit(1000i64))
                    .cast(DataType::Datetime(TimeUnit::Milliseconds, None))
                    .alias(utc.as_str()),
            );
            order.push(col(utc.as_str()));
        }
    }
    (!exprs.is_empty()).then_some((exprs, order))
}

/// `lf` (whose columns are `schema`) with its `_utc` columns, still lazy.
pub fn with_utc_lazy(lf: LazyFrame, schema: &Schema) -> LazyFrame {
    match utc_columns(schema) {
        Some((exprs, order)) => lf.with_columns(exprs).select(order),
        None => lf,
    }
}

/// The frame with a `<name>_utc` datetime column after each epoch-seconds column.
pub fn with_utc_columns(df: DataFrame) -> Result<DataFrame, QueryError> {
    let Some((exprs, order)) = utc_columns(df.schema()) else {
        return Ok(df);
    };
    df.lazy()
        .with_columns(exprs)
        .select(order)
        .collect()
        .map_err(QueryError::engine)
}

/// `table`'s frame of `data` as a query sees it (with its `_utc` columns).
pub(super) fn table_frame(data: &AccountData, table: Table) -> Result<DataFrame, QueryError> {
    with_utc_columns(frame_of(data, table).map_err(|e| QueryError::engine(e.to_string()))?)
}

/// Every table and view over `account`, nothing read: the columns are those of an empty
/// account (the same code makes both, so they are the same).
pub(super) fn lazy(account: Account) -> Result<Vec<TableInfo>, QueryError> {
    let empty = account.empty().clone();
    let (now, tz) = (account.now, account.tz.clone());
    let account = Arc::new(account);
    let mut out = Vec::new();
    for table in Table::ALL {
        let name = table.name();
        out.push(TableInfo {
            name: name.to_string(),
            about: about(name),
            schema: table_frame(&empty, table)?.schema().clone(),
            source: Source::Table(account.clone(), table),
        });
    }
    let shapes = Family::ALL
        .iter()
        .map(|f| f.build(&empty, now, &tz))
        .collect::<Result<Vec<_>, _>>()?;
    for (name, family) in VIEWS {
        let at = family.position(name);
        let frame = shapes[family.index()].get(at).cloned().unwrap_or_default();
        out.push(TableInfo {
            name: name.to_string(),
            about: about(name),
            schema: with_utc_columns(frame)?.schema().clone(),
            source: Source::View(account.clone(), family, at),
        });
    }
    Ok(out)
}

/// Every table and view, built from the account's rows at once (the reference the lazy
/// catalog is compared with, and what tieout did before). `now` and `tz` are what the
/// worklist and the tie-out's months use (as the panes).
pub fn eager(data: &AccountData, now: i64, tz: &TimeZone) -> Result<Vec<TableInfo>, QueryError> {
    let mut out = Vec::new();
    for table in Table::ALL {
        let name = table.name();
        out.push(TableInfo::from_frame(
            name,
            about(name),
            table_frame(data, table)?,
        ));
    }
    let built = Family::ALL
        .iter()
        .map(|f| f.build(data, now, tz))
        .collect::<Result<Vec<_>, _>>()?;
    for (name, family) in VIEWS {
        let frame = built[family.index()]
            .get(family.position(name))
            .cloned()
            .unwrap_or_default();
        out.push(TableInfo::from_frame(
            name,
            about(name),
            with_utc_columns(frame)?,
        ));
    }
    Ok(out)
}
