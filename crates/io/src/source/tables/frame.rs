//! Writing columns: the builder each table's frame writer ([`super::write`]) fills, one
//! column per field, each column filled in a single pass over the rows straight into an
//! Arrow buffer, the columns built in parallel when the frame is finished.

use polars::prelude::{
    BooleanChunked, Column, DataFrame, Int64Chunked, IntoColumn, NewChunkedArray, StringChunked,
};
use rayon::prelude::*;

use super::TableError;
use tieout_core::money::Currency;

type ColumnJob<'r> = Box<dyn FnOnce() -> Column + Send + 'r>;

/// Collects one column per call, each filled in a single pass over the rows; the
/// columns are built in parallel when the frame is finished.
pub(super) struct Frame<'r, R> {
    table: &'static str,
    rows: &'r [R],
    cols: Vec<ColumnJob<'r>>,
}

impl<'r, R: Sync> Frame<'r, R> {
    pub(super) fn new(table: &'static str, rows: &'r [R]) -> Self {
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

    pub(super) fn str(self, name: &'static str, f: impl Fn(&R) -> &str + Send + 'r) -> Self {
        let rows = self.rows;
        self.push(move || {
            StringChunked::from_iter_values(name.into(), rows.iter().map(f)).into_column()
        })
    }

    pub(super) fn opt_str(
        self,
        name: &'static str,
        f: impl Fn(&R) -> Option<&str> + Send + 'r,
    ) -> Self {
        let rows = self.rows;
        self.push(move || {
            StringChunked::from_iter_options(name.into(), rows.iter().map(f)).into_column()
        })
    }

    pub(super) fn string(self, name: &'static str, f: impl Fn(&R) -> String + Send + 'r) -> Self {
        let rows = self.rows;
        self.push(move || {
            StringChunked::from_iter_values(name.into(), rows.iter().map(f)).into_column()
        })
    }

    pub(super) fn opt_string(
        self,
        name: &'static str,
        f: impl Fn(&R) -> Option<String> + Send + 'r,
    ) -> Self {
        let rows = self.rows;
        self.push(move || {
            StringChunked::from_iter_options(name.into(), rows.iter().map(f)).into_column()
        })
    }

    pub(super) fn i64(self, name: &'static str, f: impl Fn(&R) -> i64 + Send + 'r) -> Self {
        let rows = self.rows;
        self.push(move || {
            let values: Vec<i64> = rows.iter().map(f).collect();
            Int64Chunked::from_vec(name.into(), values).into_column()
        })
    }

    pub(super) fn opt_i64(
        self,
        name: &'static str,
        f: impl Fn(&R) -> Option<i64> + Send + 'r,
    ) -> Self {
        let rows = self.rows;
        self.push(move || {
            Int64Chunked::from_iter_options(name.into(), rows.iter().map(f)).into_column()
        })
    }

    pub(super) fn bool(self, name: &'static str, f: impl Fn(&R) -> bool + Send + 'r) -> Self {
        let rows = self.rows;
        self.push(move || {
            BooleanChunked::from_iter_values(name.into(), rows.iter().map(f)).into_column()
        })
    }

    pub(super) fn currency(self, f: impl Fn(&R) -> Currency + Send + 'r) -> Self {
        let rows = self.rows;
        self.push(move || {
            StringChunked::from_iter_values(
                "currency".into(),
                rows.iter().map(|r| CurrencyStr(f(r))),
            )
            .into_column()
        })
    }

    pub(super) fn finish(self) -> Result<DataFrame, TableError> {
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
