//! Rows <-> polars DataFrames: the snapshot's columnar tables.
//!
//! One [`DataFrame`] per [`Table`], one column per row field, named after the field
//! (`BalanceTxnRow::kind` is the column `kind`). Money is `Int64` minor units next to a
//! `currency` string column (lowercase, as Stripe writes it); open enums (`status`, ...)
//! are their Stripe string, unknown values included; `Option` fields are nullable
//! columns; `ChargeRow::metadata` is a JSON object in a string column.
//!
//! Built for size: each column is filled in one pass over the rows straight into an
//! Arrow buffer (no row-by-row frame operations), and read back the same way, so a
//! million balance transactions convert in a fraction of a second.
//!
//! The tables themselves are declared once, in the core crate's `model` ([`Table`]); what
//! is per table here is its frame conversion, joined to its [`Table`] in [`write_frame`]
//! and [`read_frame`].

use std::collections::BTreeMap;

use polars::prelude::{
    BooleanChunked, Column, DataFrame, Int64Chunked, IntoColumn, NewChunkedArray, StringChunked,
};
use rayon::prelude::*;

use crate::source::rows::{
    BalanceTxnRow, ChargeRow, CustomerRow, DisputeRow, InvoicePaymentRow, InvoiceRow,
    PaymentIntentRow, PayoutRow, RefundRow, SubscriptionRow,
};
use crate::source::{AccountData, SnapshotMeta, Table};
use crate::stripe::models::{
    ChargeStatus, DisputeStatus, InvoiceStatus, PayoutStatus, ReconciliationStatus, RefundStatus,
    SubscriptionStatus,
};
use tieout_core::money::Currency;

/// Why a table could not be built or read back into rows.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error("table {table}: column {column} {problem}")]
    Column {
        table: &'static str,
        column: &'static str,
        problem: String,
    },
    #[error("table {table}: {source}")]
    Polars {
        table: &'static str,
        #[source]
        source: polars::error::PolarsError,
    },
    #[error("table {0} is missing")]
    MissingTable(Table),
}

/// `table`'s frame, built from `data`'s rows.
fn write_frame(data: &AccountData, table: Table) -> Result<DataFrame, TableError> {
    match table {
        Table::Payouts => payouts_frame(&data.payouts),
        Table::BalanceTransactions => balance_transactions_frame(&data.balance_transactions),
        Table::Invoices => invoices_frame(&data.invoices),
        Table::InvoicePayments => invoice_payments_frame(&data.invoice_payments),
        Table::PaymentIntents => payment_intents_frame(&data.payment_intents),
        Table::Charges => charges_frame(&data.charges),
        Table::Refunds => refunds_frame(&data.refunds),
        Table::Disputes => disputes_frame(&data.disputes),
        Table::Customers => customers_frame(&data.customers),
        Table::Subscriptions => subscriptions_frame(&data.subscriptions),
    }
}

/// Reads `table`'s rows from `df` into `data` (replacing what it held).
fn read_frame(df: &DataFrame, table: Table, data: &mut AccountData) -> Result<(), TableError> {
    match table {
        Table::Payouts => data.payouts = payouts_rows(df)?,
        Table::BalanceTransactions => data.balance_transactions = balance_transactions_rows(df)?,
        Table::Invoices => data.invoices = invoices_rows(df)?,
        Table::InvoicePayments => data.invoice_payments = invoice_payments_rows(df)?,
        Table::PaymentIntents => data.payment_intents = payment_intents_rows(df)?,
        Table::Charges => data.charges = charges_rows(df)?,
        Table::Refunds => data.refunds = refunds_rows(df)?,
        Table::Disputes => data.disputes = disputes_rows(df)?,
        Table::Customers => data.customers = customers_rows(df)?,
        Table::Subscriptions => data.subscriptions = subscriptions_rows(df)?,
    }
    Ok(())
}

/// The account as polars tables: what the cache stores and the TUI can query.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub meta: SnapshotMeta,
    /// One frame per table, in [`Table::ALL`] order.
    frames: [DataFrame; Table::COUNT],
}

impl Snapshot {
    /// Builds the tables from rows (tables and their columns in parallel).
    pub fn from_data(data: &AccountData) -> Result<Self, TableError> {
        let frames: Vec<DataFrame> = Table::ALL
            .into_par_iter()
            .map(|table| write_frame(data, table))
            .collect::<Result<_, _>>()?;
        let tables = Table::ALL.into_iter().zip(frames).collect();
        Self::from_tables(data.meta.clone(), tables)
    }

    /// Reads the rows back from the tables (tables and rows in parallel).
    pub fn to_data(&self) -> Result<AccountData, TableError> {
        self.clone().into_data()
    }

    /// [`Self::to_data`], dropping each table as soon as its rows are built, so the
    /// account is never held twice in full. A table without columns gives no rows.
    pub fn into_data(self) -> Result<AccountData, TableError> {
        let Snapshot { meta, frames } = self;
        let mut order = Table::ALL;
        order.sort_by_key(|t| std::cmp::Reverse(frames[t.index()].height()));
        let frames: std::sync::Mutex<[Option<DataFrame>; Table::COUNT]> =
            std::sync::Mutex::new(frames.map(Some));
        data_from_tables(meta, &order, &|table| {
            Ok(frames
                .lock()
                .ok()
                .and_then(|mut f| f[table.index()].take())
                .unwrap_or_default())
        })
    }

    /// `table`'s frame.
    pub fn frame(&self, table: Table) -> &DataFrame {
        &self.frames[table.index()]
    }

    /// `table`'s frame, to change (tests damage caches with it).
    pub fn frame_mut(&mut self, table: Table) -> &mut DataFrame {
        &mut self.frames[table.index()]
    }

    /// The tables with their frames, in [`Table::ALL`] order.
    pub fn tables(&self) -> impl Iterator<Item = (Table, &DataFrame)> {
        Table::ALL.into_iter().zip(self.frames.iter())
    }

    /// Assembles a snapshot from its tables (e.g. read from Parquet). Every table must
    /// be present.
    pub fn from_tables(
        meta: SnapshotMeta,
        mut tables: BTreeMap<Table, DataFrame>,
    ) -> Result<Self, TableError> {
        let mut frames: [DataFrame; Table::COUNT] = std::array::from_fn(|_| DataFrame::empty());
        for table in Table::ALL {
            frames[table.index()] = tables
                .remove(&table)
                .ok_or(TableError::MissingTable(table))?;
        }
        Ok(Self { meta, frames })
    }

    /// Row counts per table name (the cache manifest's `row_counts`).
    pub fn row_counts(&self) -> BTreeMap<String, usize> {
        self.tables()
            .map(|(table, df)| (table.name().to_string(), df.height()))
            .collect()
    }
}

/// Builds the account's rows table by table: `read` gives each table's frame (a frame
/// without columns gives no rows), which is turned into rows and dropped before the next
/// is read on that core. The tables of `order` are read and converted in parallel, in
/// that order (the biggest first, so the cores finish together), so at most one frame per
/// core is held next to the rows (the cache's load path: a million balance transactions
/// never sit in memory twice). Tables not in `order` stay empty.
pub fn data_from_tables<E: From<TableError> + Send>(
    meta: SnapshotMeta,
    order: &[Table],
    read: &(dyn Fn(Table) -> Result<DataFrame, E> + Sync),
) -> Result<AccountData, E> {
    // Each table is read into an account of its own, then moved into the whole.
    let parts: Vec<(Table, AccountData)> = order
        .par_iter()
        .with_max_len(1)
        .map(|&table| {
            let mut part = AccountData::empty(meta.clone());
            let df = read(table)?;
            if df.width() != 0 || df.height() != 0 {
                read_frame(&df, table, &mut part)?;
            }
            Ok((table, part))
        })
        .collect::<Result<_, E>>()?;
    let mut data = AccountData::empty(meta);
    for (table, mut part) in parts {
        data.take_table(table, &mut part);
    }
    Ok(data)
}

// ---------------------------------------------------------------------------------------
// Writing columns

type ColumnJob<'r> = Box<dyn FnOnce() -> Column + Send + 'r>;

/// Collects one column per call, each filled in a single pass over the rows; the
/// columns are built in parallel when the frame is finished.
struct Frame<'r, R> {
    table: &'static str,
    rows: &'r [R],
    cols: Vec<ColumnJob<'r>>,
}

impl<'r, R: Sync> Frame<'r, R> {
    fn new(table: &'static str, rows: &'r [R]) -> Self {
        Self {
            table,
            rows,
            cols: Vec::with_capacity(24),
        }
    }

    fn push(mut self, job: impl FnOnce() -> Column + Send + 'r) -> Self {
        self.cols.push(Box::new(job));
        self
    }

    fn str(self, name: &'static str, f: impl Fn(&R) -> &str + Send + 'r) -> Self {
        let rows = self.rows;
        self.push(move || {
            StringChunked::from_iter_values(name.into(), rows.iter().map(f)).into_column()
        })
    }

    fn opt_str(self, name: &'static str, f: impl Fn(&R) -> Option<&str> + Send + 'r) -> Self {
        let rows = self.rows;
        self.push(move || {
            StringChunked::from_iter_options(name.into(), rows.iter().map(f)).into_column()
        })
    }

    fn string(self, name: &'static str, f: impl Fn(&R) -> String + Send + 'r) -> Self {
        let rows = self.rows;
        self.push(move || {
            StringChunked::from_iter_values(name.into(), rows.iter().map(f)).into_column()
        })
    }

    fn i64(self, name: &'static str, f: impl Fn(&R) -> i64 + Send + 'r) -> Self {
        let rows = self.rows;
        self.push(move || {
            let values: Vec<i64> = rows.iter().map(f).collect();
            Int64Chunked::from_vec(name.into(), values).into_column()
        })
    }

    fn opt_i64(self, name: &'static str, f: impl Fn(&R) -> Option<i64> + Send + 'r) -> Self {
        let rows = self.rows;
        self.push(move || {
            Int64Chunked::from_iter_options(name.into(), rows.iter().map(f)).into_column()
        })
    }

    fn bool(self, name: &'static str, f: impl Fn(&R) -> bool + Send + 'r) -> Self {
        let rows = self.rows;
        self.push(move || {
            BooleanChunked::from_iter_values(name.into(), rows.iter().map(f)).into_column()
        })
    }

    fn currency(self, f: impl Fn(&R) -> Currency + Send + 'r) -> Self {
        let rows = self.rows;
        self.push(move || {
            StringChunked::from_iter_values(
                "currency".into(),
                rows.iter().map(|r| CurrencyStr(f(r))),
            )
            .into_column()
        })
    }

    fn finish(self) -> Result<DataFrame, TableError> {
        let table = self.table;
        let cols: Vec<Column> = self.cols.into_par_iter().map(|job| job()).collect();
        DataFrame::new(self.rows.len(), cols).map_err(|source| TableError::Polars { table, source })
    }
}

/// A currency code as an owned `AsRef<str>` (three inline bytes, no allocation).
struct CurrencyStr(Currency);

impl AsRef<str> for CurrencyStr {
    fn as_ref(&self) -> &str {
        self.0.as_str()
    }
}

// ---------------------------------------------------------------------------------------
// Reading columns

/// Typed access to a frame's columns, with errors that name the table and column.
struct Cols<'a> {
    table: &'static str,
    df: &'a DataFrame,
}

impl<'a> Cols<'a> {
    fn new(table: &'static str, df: &'a DataFrame) -> Self {
        Self { table, df }
    }

    fn height(&self) -> usize {
        self.df.height()
    }

    fn err(&self, column: &'static str, problem: impl Into<String>) -> TableError {
        TableError::Column {
            table: self.table,
            column,
            problem: problem.into(),
        }
    }

    fn column(&self, name: &'static str) -> Result<&'a Column, TableError> {
        self.df
            .column(name)
            .map_err(|_| self.err(name, "is missing"))
    }

    fn opt_str(&self, name: &'static str) -> Result<Vec<Option<&'a str>>, TableError> {
        let ca = self
            .column(name)?
            .str()
            .map_err(|e| self.err(name, format!("is not text: {e}")))?;
        Ok(ca.iter().collect())
    }

    /// An optional text column added after caches were first written: `None` when the
    /// frame lacks it (an older cache), so such a cache still loads.
    fn added_opt_str(
        &self,
        name: &'static str,
    ) -> Result<Option<Vec<Option<&'a str>>>, TableError> {
        if self.df.column(name).is_err() {
            return Ok(None);
        }
        self.opt_str(name).map(Some)
    }

    fn str(&self, name: &'static str) -> Result<Vec<&'a str>, TableError> {
        self.opt_str(name)?
            .into_iter()
            .enumerate()
            .map(|(i, v)| v.ok_or_else(|| self.err(name, format!("is empty in row {i}"))))
            .collect()
    }

    fn opt_i64(&self, name: &'static str) -> Result<Vec<Option<i64>>, TableError> {
        let ca = self
            .column(name)?
            .i64()
            .map_err(|e| self.err(name, format!("is not a 64-bit integer: {e}")))?;
        Ok(ca.iter().collect())
    }

    fn i64(&self, name: &'static str) -> Result<Vec<i64>, TableError> {
        let ca = self
            .column(name)?
            .i64()
            .map_err(|e| self.err(name, format!("is not a 64-bit integer: {e}")))?;
        if ca.null_count() == 0 {
            return Ok(ca.no_null_iter().collect());
        }
        self.opt_i64(name)?
            .into_iter()
            .enumerate()
            .map(|(i, v)| v.ok_or_else(|| self.err(name, format!("is empty in row {i}"))))
            .collect()
    }

    fn bool(&self, name: &'static str) -> Result<Vec<bool>, TableError> {
        let ca = self
            .column(name)?
            .bool()
            .map_err(|e| self.err(name, format!("is not a boolean: {e}")))?;
        ca.iter()
            .enumerate()
            .map(|(i, v)| v.ok_or_else(|| self.err(name, format!("is empty in row {i}"))))
            .collect()
    }

    fn currency(&self) -> Result<Vec<Currency>, TableError> {
        let texts = self.str("currency")?;
        // Most tables hold a handful of currencies: remember the last one parsed.
        let mut last: Option<(&str, Currency)> = None;
        let mut out = Vec::with_capacity(texts.len());
        for (i, text) in texts.into_iter().enumerate() {
            let cur = match last {
                Some((t, c)) if t == text => c,
                _ => {
                    let c = Currency::parse(text).map_err(|e| {
                        self.err("currency", format!("holds '{text}' in row {i}: {e}"))
                    })?;
                    last = Some((text, c));
                    c
                }
            };
            out.push(cur);
        }
        Ok(out)
    }
}

fn owned(v: Option<&str>) -> Option<String> {
    v.map(str::to_string)
}

// ---------------------------------------------------------------------------------------
// The tables

fn payouts_frame(rows: &[PayoutRow]) -> Result<DataFrame, TableError> {
    Frame::new("payouts", rows)
        .str("id", |r| &r.id)
        .i64("amount", |r| r.amount)
        .currency(|r| r.currency)
        .i64("arrival_date", |r| r.arrival_date)
        .i64("created", |r| r.created)
        .str("status", |r| r.status.as_str())
        .bool("automatic", |r| r.automatic)
        .str("method", |r| &r.method)
        .str("reconciliation_status", |r| {
            r.reconciliation_status.as_str()
        })
        .opt_str("failure_code", |r| r.failure_code.as_deref())
        .opt_str("failure_message", |r| r.failure_message.as_deref())
        .opt_str("balance_transaction", |r| r.balance_transaction.as_deref())
        .opt_str("failure_balance_transaction", |r| {
            r.failure_balance_transaction.as_deref()
        })
        .opt_str("description", |r| r.description.as_deref())
        .opt_str("statement_descriptor", |r| {
            r.statement_descriptor.as_deref()
        })
        .opt_str("original_payout", |r| r.original_payout.as_deref())
        .opt_str("reversed_by", |r| r.reversed_by.as_deref())
        .finish()
}

fn payouts_rows(df: &DataFrame) -> Result<Vec<PayoutRow>, TableError> {
    let c = Cols::new("payouts", df);
    let id = c.str("id")?;
    let amount = c.i64("amount")?;
    let currency = c.currency()?;
    let arrival_date = c.i64("arrival_date")?;
    let created = c.i64("created")?;
    let status = c.str("status")?;
    let automatic = c.bool("automatic")?;
    let method = c.str("method")?;
    let recon = c.str("reconciliation_status")?;
    let failure_code = c.opt_str("failure_code")?;
    let failure_message = c.opt_str("failure_message")?;
    let balance_transaction = c.opt_str("balance_transaction")?;
    let failure_bt = c.opt_str("failure_balance_transaction")?;
    let description = c.opt_str("description")?;
    let statement_descriptor = c.opt_str("statement_descriptor")?;
    // Added after caches were first written: a cache without them reads as None.
    let original_payout = c.added_opt_str("original_payout")?;
    let reversed_by = c.added_opt_str("reversed_by")?;
    Ok((0..c.height())
        .into_par_iter()
        .map(|i| PayoutRow {
            id: id[i].to_string(),
            amount: amount[i],
            currency: currency[i],
            arrival_date: arrival_date[i],
            created: created[i],
            status: PayoutStatus::parse(status[i]),
            automatic: automatic[i],
            method: method[i].to_string(),
            reconciliation_status: ReconciliationStatus::parse(recon[i]),
            failure_code: owned(failure_code[i]),
            failure_message: owned(failure_message[i]),
            balance_transaction: owned(balance_transaction[i]),
            failure_balance_transaction: owned(failure_bt[i]),
            description: owned(description[i]),
            statement_descriptor: owned(statement_descriptor[i]),
            original_payout: original_payout.as_ref().and_then(|v| owned(v[i])),
            reversed_by: reversed_by.as_ref().and_then(|v| owned(v[i])),
        })
        .collect())
}

fn balance_transactions_frame(rows: &[BalanceTxnRow]) -> Result<DataFrame, TableError> {
    Frame::new("balance_transactions", rows)
        .str("id", |r| &r.id)
        .opt_str("payout", |r| r.payout.as_deref())
        .str("kind", |r| &r.kind)
        .str("reporting_category", |r| &r.reporting_category)
        .opt_str("source", |r| r.source.as_deref())
        .i64("created", |r| r.created)
        .i64("available_on", |r| r.available_on)
        .currency(|r| r.currency)
        .i64("amount", |r| r.amount)
        .i64("fee", |r| r.fee)
        .i64("net", |r| r.net)
        .opt_str("description", |r| r.description.as_deref())
        .str("status", |r| &r.status)
        .finish()
}

fn balance_transactions_rows(df: &DataFrame) -> Result<Vec<BalanceTxnRow>, TableError> {
    let c = Cols::new("balance_transactions", df);
    let id = c.str("id")?;
    let payout = c.opt_str("payout")?;
    let kind = c.str("kind")?;
    let category = c.str("reporting_category")?;
    let source = c.opt_str("source")?;
    let created = c.i64("created")?;
    let available_on = c.i64("available_on")?;
    let currency = c.currency()?;
    let amount = c.i64("amount")?;
    let fee = c.i64("fee")?;
    let net = c.i64("net")?;
    let description = c.opt_str("description")?;
    let status = c.str("status")?;
    Ok((0..c.height())
        .into_par_iter()
        .map(|i| BalanceTxnRow {
            id: id[i].to_string(),
            payout: owned(payout[i]),
            kind: kind[i].to_string(),
            reporting_category: category[i].to_string(),
            source: owned(source[i]),
            created: created[i],
            available_on: available_on[i],
            currency: currency[i],
            amount: amount[i],
            fee: fee[i],
            net: net[i],
            description: owned(description[i]),
            status: status[i].to_string(),
        })
        .collect())
}

fn invoices_frame(rows: &[InvoiceRow]) -> Result<DataFrame, TableError> {
    Frame::new("invoices", rows)
        .str("id", |r| &r.id)
        .opt_str("number", |r| r.number.as_deref())
        .opt_str("customer", |r| r.customer.as_deref())
        .opt_str("customer_email", |r| r.customer_email.as_deref())
        .opt_str("customer_name", |r| r.customer_name.as_deref())
        .str("status", |r| r.status.as_str())
        .opt_str("collection_method", |r| r.collection_method.as_deref())
        .currency(|r| r.currency)
        .i64("amount_due", |r| r.amount_due)
        .i64("amount_paid", |r| r.amount_paid)
        .i64("amount_remaining", |r| r.amount_remaining)
        .i64("attempt_count", |r| r.attempt_count)
        .bool("attempted", |r| r.attempted)
        .opt_i64("next_payment_attempt", |r| r.next_payment_attempt)
        .opt_i64("due_date", |r| r.due_date)
        .i64("created", |r| r.created)
        .opt_str("subscription", |r| r.subscription.as_deref())
        .opt_str("hosted_invoice_url", |r| r.hosted_invoice_url.as_deref())
        .opt_str("billing_reason", |r| r.billing_reason.as_deref())
        .opt_str("legacy_payment_intent", |r| {
            r.legacy_payment_intent.as_deref()
        })
        .opt_str("legacy_charge", |r| r.legacy_charge.as_deref())
        .finish()
}

fn invoices_rows(df: &DataFrame) -> Result<Vec<InvoiceRow>, TableError> {
    let c = Cols::new("invoices", df);
    let id = c.str("id")?;
    let number = c.opt_str("number")?;
    let customer = c.opt_str("customer")?;
    let customer_email = c.opt_str("customer_email")?;
    let customer_name = c.opt_str("customer_name")?;
    let status = c.str("status")?;
    let collection_method = c.opt_str("collection_method")?;
    let currency = c.currency()?;
    let amount_due = c.i64("amount_due")?;
    let amount_paid = c.i64("amount_paid")?;
    let amount_remaining = c.i64("amount_remaining")?;
    let attempt_count = c.i64("attempt_count")?;
    let attempted = c.bool("attempted")?;
    let next_payment_attempt = c.opt_i64("next_payment_attempt")?;
    let due_date = c.opt_i64("due_date")?;
    let created = c.i64("created")?;
    let subscription = c.opt_str("subscription")?;
    let hosted_invoice_url = c.opt_str("hosted_invoice_url")?;
    let billing_reason = c.opt_str("billing_reason")?;
    let legacy_payment_intent = c.opt_str("legacy_payment_intent")?;
    let legacy_charge = c.opt_str("legacy_charge")?;
    Ok((0..c.height())
        .into_par_iter()
        .map(|i| InvoiceRow {
            id: id[i].to_string(),
            number: owned(number[i]),
            customer: owned(customer[i]),
            customer_email: owned(customer_email[i]),
            customer_name: owned(customer_name[i]),
            status: InvoiceStatus::parse(status[i]),
            collection_method: owned(collection_method[i]),
            currency: currency[i],
            amount_due: amount_due[i],
            amount_paid: amount_paid[i],
            amount_remaining: amount_remaining[i],
            attempt_count: attempt_count[i],
            attempted: attempted[i],
            next_payment_attempt: next_payment_attempt[i],
            due_date: due_date[i],
            created: created[i],
            subscription: owned(subscription[i]),
            hosted_invoice_url: owned(hosted_invoice_url[i]),
            billing_reason: owned(billing_reason[i]),
            legacy_payment_intent: owned(legacy_payment_intent[i]),
            legacy_charge: owned(legacy_charge[i]),
        })
        .collect())
}

fn invoice_payments_frame(rows: &[InvoicePaymentRow]) -> Result<DataFrame, TableError> {
    Frame::new("invoice_payments", rows)
        .str("id", |r| &r.id)
        .str("invoice", |r| &r.invoice)
        .opt_str("payment_intent", |r| r.payment_intent.as_deref())
        .opt_str("charge", |r| r.charge.as_deref())
        .str("status", |r| &r.status)
        .bool("is_default", |r| r.is_default)
        .i64("amount_requested", |r| r.amount_requested)
        .opt_i64("amount_paid", |r| r.amount_paid)
        .currency(|r| r.currency)
        .i64("created", |r| r.created)
        .finish()
}

fn invoice_payments_rows(df: &DataFrame) -> Result<Vec<InvoicePaymentRow>, TableError> {
    let c = Cols::new("invoice_payments", df);
    let id = c.str("id")?;
    let invoice = c.str("invoice")?;
    let payment_intent = c.opt_str("payment_intent")?;
    let charge = c.opt_str("charge")?;
    let status = c.str("status")?;
    let is_default = c.bool("is_default")?;
    let amount_requested = c.i64("amount_requested")?;
    let amount_paid = c.opt_i64("amount_paid")?;
    let currency = c.currency()?;
    let created = c.i64("created")?;
    Ok((0..c.height())
        .into_par_iter()
        .map(|i| InvoicePaymentRow {
            id: id[i].to_string(),
            invoice: invoice[i].to_string(),
            payment_intent: owned(payment_intent[i]),
            charge: owned(charge[i]),
            status: status[i].to_string(),
            is_default: is_default[i],
            amount_requested: amount_requested[i],
            amount_paid: amount_paid[i],
            currency: currency[i],
            created: created[i],
        })
        .collect())
}

fn payment_intents_frame(rows: &[PaymentIntentRow]) -> Result<DataFrame, TableError> {
    Frame::new("payment_intents", rows)
        .str("id", |r| &r.id)
        .opt_str("customer", |r| r.customer.as_deref())
        .str("status", |r| &r.status)
        .i64("amount", |r| r.amount)
        .currency(|r| r.currency)
        .i64("created", |r| r.created)
        .opt_str("latest_charge", |r| r.latest_charge.as_deref())
        .opt_str("error_code", |r| r.error_code.as_deref())
        .opt_str("error_decline_code", |r| r.error_decline_code.as_deref())
        .opt_str("error_advice_code", |r| r.error_advice_code.as_deref())
        .opt_str("error_message", |r| r.error_message.as_deref())
        .opt_str("error_charge", |r| r.error_charge.as_deref())
        .opt_str("error_network_decline_code", |r| {
            r.error_network_decline_code.as_deref()
        })
        .finish()
}

fn payment_intents_rows(df: &DataFrame) -> Result<Vec<PaymentIntentRow>, TableError> {
    let c = Cols::new("payment_intents", df);
    let id = c.str("id")?;
    let customer = c.opt_str("customer")?;
    let status = c.str("status")?;
    let amount = c.i64("amount")?;
    let currency = c.currency()?;
    let created = c.i64("created")?;
    let latest_charge = c.opt_str("latest_charge")?;
    let error_code = c.opt_str("error_code")?;
    let error_decline_code = c.opt_str("error_decline_code")?;
    let error_advice_code = c.opt_str("error_advice_code")?;
    let error_message = c.opt_str("error_message")?;
    let error_charge = c.opt_str("error_charge")?;
    let error_network = c.opt_str("error_network_decline_code")?;
    Ok((0..c.height())
        .into_par_iter()
        .map(|i| PaymentIntentRow {
            id: id[i].to_string(),
            customer: owned(customer[i]),
            status: status[i].to_string(),
            amount: amount[i],
            currency: currency[i],
            created: created[i],
            latest_charge: owned(latest_charge[i]),
            error_code: owned(error_code[i]),
            error_decline_code: owned(error_decline_code[i]),
            error_advice_code: owned(error_advice_code[i]),
            error_message: owned(error_message[i]),
            error_charge: owned(error_charge[i]),
            error_network_decline_code: owned(error_network[i]),
        })
        .collect())
}

fn metadata_json(m: &BTreeMap<String, String>) -> String {
    if m.is_empty() {
        return "{}".to_string();
    }
    // A map of strings always serialises; the fallback only keeps this panic-free.
    serde_json::to_string(m).unwrap_or_else(|_| "{}".to_string())
}

fn charges_frame(rows: &[ChargeRow]) -> Result<DataFrame, TableError> {
    Frame::new("charges", rows)
        .str("id", |r| &r.id)
        .opt_str("customer", |r| r.customer.as_deref())
        .opt_str("payment_intent", |r| r.payment_intent.as_deref())
        .i64("amount", |r| r.amount)
        .i64("amount_captured", |r| r.amount_captured)
        .i64("amount_refunded", |r| r.amount_refunded)
        .currency(|r| r.currency)
        .str("status", |r| r.status.as_str())
        .i64("created", |r| r.created)
        .opt_str("description", |r| r.description.as_deref())
        .string("metadata", |r| metadata_json(&r.metadata))
        .bool("disputed", |r| r.disputed)
        .bool("refunded", |r| r.refunded)
        .opt_str("failure_code", |r| r.failure_code.as_deref())
        .opt_str("failure_message", |r| r.failure_message.as_deref())
        .opt_str("outcome_type", |r| r.outcome_type.as_deref())
        .opt_str("outcome_reason", |r| r.outcome_reason.as_deref())
        .opt_str("outcome_network_status", |r| {
            r.outcome_network_status.as_deref()
        })
        .opt_str("outcome_advice_code", |r| r.outcome_advice_code.as_deref())
        .opt_str("outcome_seller_message", |r| {
            r.outcome_seller_message.as_deref()
        })
        .opt_str("balance_transaction", |r| r.balance_transaction.as_deref())
        .opt_str("receipt_email", |r| r.receipt_email.as_deref())
        .opt_str("billing_email", |r| r.billing_email.as_deref())
        .finish()
}

fn charges_rows(df: &DataFrame) -> Result<Vec<ChargeRow>, TableError> {
    let c = Cols::new("charges", df);
    let id = c.str("id")?;
    let customer = c.opt_str("customer")?;
    let payment_intent = c.opt_str("payment_intent")?;
    let amount = c.i64("amount")?;
    let amount_captured = c.i64("amount_captured")?;
    let amount_refunded = c.i64("amount_refunded")?;
    let currency = c.currency()?;
    let status = c.str("status")?;
    let created = c.i64("created")?;
    let description = c.opt_str("description")?;
    let metadata = c.str("metadata")?;
    let disputed = c.bool("disputed")?;
    let refunded = c.bool("refunded")?;
    let failure_code = c.opt_str("failure_code")?;
    let failure_message = c.opt_str("failure_message")?;
    let outcome_type = c.opt_str("outcome_type")?;
    let outcome_reason = c.opt_str("outcome_reason")?;
    let outcome_network_status = c.opt_str("outcome_network_status")?;
    let outcome_advice_code = c.opt_str("outcome_advice_code")?;
    let outcome_seller_message = c.opt_str("outcome_seller_message")?;
    let balance_transaction = c.opt_str("balance_transaction")?;
    let receipt_email = c.opt_str("receipt_email")?;
    let billing_email = c.opt_str("billing_email")?;
    (0..c.height())
        .into_par_iter()
        .map(|i| {
            let meta: BTreeMap<String, String> = if metadata[i] == "{}" {
                BTreeMap::new()
            } else {
                serde_json::from_str(metadata[i]).map_err(|e| {
                    c.err(
                        "metadata",
                        format!("is not a JSON object of strings in row {i}: {e}"),
                    )
                })?
            };
            Ok(ChargeRow {
                id: id[i].to_string(),
                customer: owned(customer[i]),
                payment_intent: owned(payment_intent[i]),
                amount: amount[i],
                amount_captured: amount_captured[i],
                amount_refunded: amount_refunded[i],
                currency: currency[i],
                status: ChargeStatus::parse(status[i]),
                created: created[i],
                description: owned(description[i]),
                metadata: meta,
                disputed: disputed[i],
                refunded: refunded[i],
                failure_code: owned(failure_code[i]),
                failure_message: owned(failure_message[i]),
                outcome_type: owned(outcome_type[i]),
                outcome_reason: owned(outcome_reason[i]),
                outcome_network_status: owned(outcome_network_status[i]),
                outcome_advice_code: owned(outcome_advice_code[i]),
                outcome_seller_message: owned(outcome_seller_message[i]),
                balance_transaction: owned(balance_transaction[i]),
                receipt_email: owned(receipt_email[i]),
                billing_email: owned(billing_email[i]),
            })
        })
        .collect()
}

fn refunds_frame(rows: &[RefundRow]) -> Result<DataFrame, TableError> {
    Frame::new("refunds", rows)
        .str("id", |r| &r.id)
        .opt_str("charge", |r| r.charge.as_deref())
        .opt_str("payment_intent", |r| r.payment_intent.as_deref())
        .i64("amount", |r| r.amount)
        .currency(|r| r.currency)
        .str("status", |r| r.status.as_str())
        .opt_str("reason", |r| r.reason.as_deref())
        .opt_str("failure_reason", |r| r.failure_reason.as_deref())
        .i64("created", |r| r.created)
        .finish()
}

fn refunds_rows(df: &DataFrame) -> Result<Vec<RefundRow>, TableError> {
    let c = Cols::new("refunds", df);
    let id = c.str("id")?;
    let charge = c.opt_str("charge")?;
    let payment_intent = c.opt_str("payment_intent")?;
    let amount = c.i64("amount")?;
    let currency = c.currency()?;
    let status = c.str("status")?;
    let reason = c.opt_str("reason")?;
    let failure_reason = c.opt_str("failure_reason")?;
    let created = c.i64("created")?;
    Ok((0..c.height())
        .into_par_iter()
        .map(|i| RefundRow {
            id: id[i].to_string(),
            charge: owned(charge[i]),
            payment_intent: owned(payment_intent[i]),
            amount: amount[i],
            currency: currency[i],
            status: RefundStatus::parse(status[i]),
            reason: owned(reason[i]),
            failure_reason: owned(failure_reason[i]),
            created: created[i],
        })
        .collect())
}

fn disputes_frame(rows: &[DisputeRow]) -> Result<DataFrame, TableError> {
    Frame::new("disputes", rows)
        .str("id", |r| &r.id)
        .opt_str("charge", |r| r.charge.as_deref())
        .opt_str("payment_intent", |r| r.payment_intent.as_deref())
        .i64("amount", |r| r.amount)
        .currency(|r| r.currency)
        .str("status", |r| r.status.as_str())
        .opt_str("reason", |r| r.reason.as_deref())
        .i64("created", |r| r.created)
        .bool("is_charge_refundable", |r| r.is_charge_refundable)
        .finish()
}

fn disputes_rows(df: &DataFrame) -> Result<Vec<DisputeRow>, TableError> {
    let c = Cols::new("disputes", df);
    let id = c.str("id")?;
    let charge = c.opt_str("charge")?;
    let payment_intent = c.opt_str("payment_intent")?;
    let amount = c.i64("amount")?;
    let currency = c.currency()?;
    let status = c.str("status")?;
    let reason = c.opt_str("reason")?;
    let created = c.i64("created")?;
    let refundable = c.bool("is_charge_refundable")?;
    Ok((0..c.height())
        .into_par_iter()
        .map(|i| DisputeRow {
            id: id[i].to_string(),
            charge: owned(charge[i]),
            payment_intent: owned(payment_intent[i]),
            amount: amount[i],
            currency: currency[i],
            status: DisputeStatus::parse(status[i]),
            reason: owned(reason[i]),
            created: created[i],
            is_charge_refundable: refundable[i],
        })
        .collect())
}

fn customers_frame(rows: &[CustomerRow]) -> Result<DataFrame, TableError> {
    Frame::new("customers", rows)
        .str("id", |r| &r.id)
        .opt_str("email", |r| r.email.as_deref())
        .opt_str("name", |r| r.name.as_deref())
        .i64("created", |r| r.created)
        .bool("deleted", |r| r.deleted)
        .finish()
}

fn customers_rows(df: &DataFrame) -> Result<Vec<CustomerRow>, TableError> {
    let c = Cols::new("customers", df);
    let id = c.str("id")?;
    let email = c.opt_str("email")?;
    let name = c.opt_str("name")?;
    let created = c.i64("created")?;
    let deleted = c.bool("deleted")?;
    Ok((0..c.height())
        .into_par_iter()
        .map(|i| CustomerRow {
            id: id[i].to_string(),
            email: owned(email[i]),
            name: owned(name[i]),
            created: created[i],
            deleted: deleted[i],
        })
        .collect())
}

fn subscriptions_frame(rows: &[SubscriptionRow]) -> Result<DataFrame, TableError> {
    Frame::new("subscriptions", rows)
        .str("id", |r| &r.id)
        .opt_str("customer", |r| r.customer.as_deref())
        .str("status", |r| r.status.as_str())
        .opt_i64("current_period_start", |r| r.current_period_start)
        .opt_i64("current_period_end", |r| r.current_period_end)
        .opt_str("interval", |r| r.interval.as_deref())
        .i64("interval_count", |r| r.interval_count)
        .opt_str("latest_invoice", |r| r.latest_invoice.as_deref())
        .i64("created", |r| r.created)
        .bool("cancel_at_period_end", |r| r.cancel_at_period_end)
        .currency(|r| r.currency)
        .opt_i64("unit_amount", |r| r.unit_amount)
        .finish()
}

fn subscriptions_rows(df: &DataFrame) -> Result<Vec<SubscriptionRow>, TableError> {
    let c = Cols::new("subscriptions", df);
    let id = c.str("id")?;
    let customer = c.opt_str("customer")?;
    let status = c.str("status")?;
    let start = c.opt_i64("current_period_start")?;
    let end = c.opt_i64("current_period_end")?;
    let interval = c.opt_str("interval")?;
    let interval_count = c.i64("interval_count")?;
    let latest_invoice = c.opt_str("latest_invoice")?;
    let created = c.i64("created")?;
    let cancel = c.bool("cancel_at_period_end")?;
    let currency = c.currency()?;
    let unit_amount = c.opt_i64("unit_amount")?;
    Ok((0..c.height())
        .into_par_iter()
        .map(|i| SubscriptionRow {
            id: id[i].to_string(),
            customer: owned(customer[i]),
            status: SubscriptionStatus::parse(status[i]),
            current_period_start: start[i],
            current_period_end: end[i],
            interval: owned(interval[i]),
            interval_count: interval_count[i],
            latest_invoice: owned(latest_invoice[i]),
            created: created[i],
            cancel_at_period_end: cancel[i],
            currency: currency[i],
            unit_amount: unit_amount[i],
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::testdata::random_data;
    use polars::prelude::DataType;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn data_to_frames_to_data_is_the_identity(seed in any::<u64>(), n in 0usize..30) {
            let data = random_data(seed, n);
            let snap = Snapshot::from_data(&data).expect("frames");
            for (name, df) in snap.tables() {
                prop_assert_eq!(df.height(), n, "table {}", name);
            }
            let back = snap.to_data().expect("rows");
            prop_assert_eq!(back, data);
        }
    }

    #[test]
    fn empty_account_round_trips() {
        let data = random_data(1, 0);
        let snap = Snapshot::from_data(&data).expect("frames");
        assert_eq!(snap.to_data().expect("rows"), data);
        assert!(snap.row_counts().values().all(|&n| n == 0));
    }

    #[test]
    fn money_is_i64_currency_is_text_and_options_are_nullable() {
        let data = random_data(7, 50);
        let snap = Snapshot::from_data(&data).expect("frames");
        let bt = snap.frame(Table::BalanceTransactions);
        for col in ["amount", "fee", "net", "created"] {
            assert_eq!(bt.column(col).expect(col).dtype(), &DataType::Int64);
        }
        assert_eq!(
            bt.column("currency").expect("cur").dtype(),
            &DataType::String
        );
        let payout = bt.column("payout").expect("payout");
        let expected_nulls = data
            .balance_transactions
            .iter()
            .filter(|r| r.payout.is_none())
            .count();
        assert!(expected_nulls > 0, "the sample should hold some None");
        assert_eq!(payout.null_count(), expected_nulls);
        let inv = snap.frame(Table::Invoices);
        assert_eq!(
            inv.column("attempted").expect("a").dtype(),
            &DataType::Boolean
        );
        let meta = snap
            .frame(Table::Charges)
            .column("metadata")
            .expect("metadata");
        let first = meta.str().expect("str").get(0).expect("value");
        let parsed: BTreeMap<String, String> = serde_json::from_str(first).expect("json");
        assert_eq!(parsed, data.charges[0].metadata);
        // Unknown enum values survive as their text.
        assert!(
            snap.frame(Table::Payouts)
                .column("status")
                .expect("status")
                .str()
                .expect("str")
                .iter()
                .flatten()
                .any(|s| s.starts_with("brand_new_"))
        );
    }

    #[test]
    fn a_cache_without_the_reversal_columns_still_loads_them_as_none() {
        let mut data = random_data(5, 6);
        data.payouts[0].original_payout = Some("po_original".into());
        data.payouts[1].reversed_by = Some("po_reversal".into());
        let mut snap = Snapshot::from_data(&data).expect("frames");
        assert_eq!(
            snap.to_data().expect("rows"),
            data,
            "the columns are written"
        );
        *snap.frame_mut(Table::Payouts) = snap
            .frame(Table::Payouts)
            .drop("original_payout")
            .expect("drop")
            .drop("reversed_by")
            .expect("drop");
        let back = snap.to_data().expect("an older cache still loads");
        for p in &mut data.payouts {
            p.original_payout = None;
            p.reversed_by = None;
        }
        assert_eq!(back, data);
    }

    #[test]
    fn a_missing_column_is_named() {
        let data = random_data(3, 4);
        let mut snap = Snapshot::from_data(&data).expect("frames");
        *snap.frame_mut(Table::Refunds) = snap.frame(Table::Refunds).drop("amount").expect("drop");
        let err = snap.to_data().expect_err("must fail").to_string();
        assert_eq!(err, "table refunds: column amount is missing");
    }

    #[test]
    fn a_null_in_a_required_column_or_a_bad_currency_is_refused() {
        let data = random_data(3, 4);
        let mut snap = Snapshot::from_data(&data).expect("frames");
        let nulls = Int64Chunked::from_iter_options(
            "net".into(),
            [Some(1), None, Some(2), Some(3)].into_iter(),
        );
        snap.frame_mut(Table::BalanceTransactions)
            .with_column(nulls.into_column())
            .expect("replace");
        let err = snap.to_data().expect_err("must fail").to_string();
        assert_eq!(
            err,
            "table balance_transactions: column net is empty in row 1"
        );

        let mut snap = Snapshot::from_data(&data).expect("frames");
        let cur = StringChunked::from_iter_values(
            "currency".into(),
            ["usd", "us", "eur", "eur"].into_iter(),
        );
        snap.frame_mut(Table::Disputes)
            .with_column(cur.into_column())
            .expect("replace");
        let err = snap.to_data().expect_err("must fail").to_string();
        assert!(
            err.starts_with("table disputes: column currency holds 'us' in row 1"),
            "{err}"
        );
    }
}
