//! Reading columns: typed access to a frame's columns for each table's row reader
//! ([`super::read`]), with errors that name the table and column, and the lenient read of
//! a column added after caches were first written (an older cache still loads).

use polars::prelude::{Column, DataFrame};

use super::TableError;
use tieout_core::money::Currency;

/// Typed access to a frame's columns, with errors that name the table and column.
pub(super) struct Cols<'a> {
    table: &'static str,
    df: &'a DataFrame,
}

impl<'a> Cols<'a> {
    pub(super) fn new(table: &'static str, df: &'a DataFrame) -> Self {
        Self { table, df }
    }

    pub(super) fn height(&self) -> usize {
        self.df.height()
    }

    pub(super) fn err(&self, column: &'static str, problem: impl Into<String>) -> TableError {
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

    pub(super) fn opt_str(&self, name: &'static str) -> Result<Vec<Option<&'a str>>, TableError> {
        let ca = self
            .column(name)?
            .str()
            .map_err(|e| self.err(name, format!("is not text: {e}")))?;
        Ok(ca.iter().collect())
    }

    /// An optional text column added after caches were first written: `None` when the
    /// frame lacks it (an older cache), so such a cache still loads.
    pub(super) fn added_opt_str(
        &self,
        name: &'static str,
    ) -> Result<Option<Vec<Option<&'a str>>>, TableError> {
        if self.df.column(name).is_err() {
            return Ok(None);
        }
        self.opt_str(name).map(Some)
    }

    /// An optional integer column added after caches were first written: `None` when the
    /// frame lacks it (an older cache), so such a cache still loads.
    pub(super) fn added_opt_i64(
        &self,
        name: &'static str,
    ) -> Result<Option<Vec<Option<i64>>>, TableError> {
        if self.df.column(name).is_err() {
            return Ok(None);
        }
        self.opt_i64(name).map(Some)
    }

    pub(super) fn str(&self, name: &'static str) -> Result<Vec<&'a str>, TableError> {
        self.opt_str(name)?
            .into_iter()
            .enumerate()
            .map(|(i, v)| v.ok_or_else(|| self.err(name, format!("is empty in row {i}"))))
            .collect()
    }

    pub(super) fn opt_i64(&self, name: &'static str) -> Result<Vec<Option<i64>>, TableError> {
        let ca = self
            .column(name)?
            .i64()
            .map_err(|e| self.err(name, format!("is not a 64-bit integer: {e}")))?;
        Ok(ca.iter().collect())
    }

    pub(super) fn i64(&self, name: &'static str) -> Result<Vec<i64>, TableError> {
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

    pub(super) fn bool(&self, name: &'static str) -> Result<Vec<bool>, TableError> {
        let ca = self
            .column(name)?
            .bool()
            .map_err(|e| self.err(name, format!("is not a boolean: {e}")))?;
        ca.iter()
            .enumerate()
            .map(|(i, v)| v.ok_or_else(|| self.err(name, format!("is empty in row {i}"))))
            .collect()
    }

    pub(super) fn currency(&self) -> Result<Vec<Currency>, TableError> {
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

pub(super) fn owned<T: for<'a> From<&'a str>>(v: Option<&str>) -> Option<T> {
    v.map(T::from)
}
