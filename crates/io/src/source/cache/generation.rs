//! One generation of an account's cache, and the reading of its tables: a table's
//! Parquet file checked against the manifest's row count, the tables read biggest first
//! on all cores, and the reduced first part of a staged open.

use std::fs::File;

use foldhash::HashSet;
use std::path::{Path, PathBuf};

use polars::prelude::{DataFrame, ParquetReader, SerReader};

use super::{CacheError, Manifest};
use crate::source::tables::{
    ReachFrames, TableError, data_from_tables, invoice_statuses_of, read_reached,
};
use crate::source::{AccountData, Table};

/// A table that could not be read, or not turned into rows.
enum ReadError {
    Cache(CacheError),
    Table(TableError),
}

impl From<TableError> for ReadError {
    fn from(e: TableError) -> Self {
        ReadError::Table(e)
    }
}

/// One generation of an account's cache (see [`Cache::generation`]).
#[derive(Debug, Clone)]
pub struct Generation {
    pub(super) manifest: Manifest,
    pub(super) dir: PathBuf,
}

impl Generation {
    /// The rows of the tables `wanted` names (the others empty), as [`Cache::load_data`].
    pub fn load_data(
        &self,
        wanted: &(dyn Fn(Table) -> bool + Sync),
    ) -> Result<AccountData, CacheError> {
        let Generation { manifest, dir } = self;
        data_from_tables(manifest.meta(), &biggest_first(manifest), &|table| {
            read_table(manifest, dir, table, wanted).map_err(ReadError::Cache)
        })
        .map_err(|e| match e {
            ReadError::Cache(e) => e,
            ReadError::Table(e) => CacheError::unreadable(dir, e),
        })
    }
}

impl Generation {
    /// [`Self::load_data`] for the first part of a staged open: the tables `wanted` names,
    /// but of the invoices only those the worklist reads, with their invoice payments, and
    /// of the charges and payment intents only the rows those reach (see
    /// `tables::read_reached`); the four tables are read in full by a later
    /// [`Self::load_data`] that names them. The files are read in parallel.
    pub fn load_reached(
        &self,
        wanted: &(dyn Fn(Table) -> bool + Sync),
    ) -> Result<AccountData, CacheError> {
        let in_part = |t: Table| {
            matches!(
                t,
                Table::Invoices | Table::InvoicePayments | Table::Charges | Table::PaymentIntents
            )
        };
        let frame = |t: Table| read_table(&self.manifest, &self.dir, t, &|x| x == t && wanted(x));
        let (data, frames) = rayon::join(
            || self.load_data(&|t| wanted(t) && !in_part(t)),
            || {
                let ((invoices, invoice_payments), (charges, intents)) = rayon::join(
                    || rayon::join(|| frame(Table::Invoices), || frame(Table::InvoicePayments)),
                    || rayon::join(|| frame(Table::Charges), || frame(Table::PaymentIntents)),
                );
                Ok::<_, CacheError>(ReachFrames {
                    invoices: invoices?,
                    invoice_payments: invoice_payments?,
                    charges: charges?,
                    intents: intents?,
                })
            },
        );
        let mut data = data?;
        read_reached(&frames?, &mut data).map_err(|e| CacheError::unreadable(&self.dir, e))?;
        Ok(data)
    }

    /// The statuses of the invoices `ids` names, as this generation holds them (reading
    /// only the invoices' id and status columns): what a first part without the settled
    /// invoices cannot say about an invoice that left the worklist. An id the cache does
    /// not hold is left out.
    pub fn invoice_statuses(&self, ids: &[String]) -> Result<Vec<(String, String)>, CacheError> {
        let table = Table::Invoices;
        if ids.is_empty() || !self.manifest.row_counts.contains_key(table.name()) {
            return Ok(Vec::new());
        }
        let path = self.dir.join(parquet_file(table));
        let file = File::open(&path).map_err(|e| CacheError::unreadable(&path, e))?;
        let df = ParquetReader::new(file)
            .with_columns(Some(vec!["id".into(), "status".into()]))
            .finish()
            .map_err(|e| CacheError::unreadable(&path, e))?;
        let wanted: HashSet<&str> = ids.iter().map(String::as_str).collect();
        invoice_statuses_of(&df, &wanted).map_err(|e| CacheError::unreadable(&path, e))
    }
}

/// The file a table is stored in: `<name>.parquet`.
pub(super) fn parquet_file(table: Table) -> String {
    format!("{}.parquet", table.name())
}

/// Every table, the biggest first by the manifest's row counts, so the cores reading
/// them in parallel finish together.
pub(super) fn biggest_first(manifest: &Manifest) -> [Table; Table::COUNT] {
    let mut order = Table::ALL;
    order.sort_by_key(|t| std::cmp::Reverse(manifest.row_counts.get(t.name()).copied()));
    order
}

/// Reads one table of a generation, checking its row count against the manifest; a
/// table not `wanted`, or one the manifest does not list (a cache written before tieout
/// had that table), is an empty frame without columns.
pub(super) fn read_table(
    manifest: &Manifest,
    gen_dir: &Path,
    table: Table,
    wanted: &(dyn Fn(Table) -> bool + Sync),
) -> Result<DataFrame, CacheError> {
    let name = table.name();
    if !wanted(table) || !manifest.row_counts.contains_key(name) {
        return Ok(DataFrame::empty());
    }
    let path = gen_dir.join(parquet_file(table));
    let file = File::open(&path).map_err(|e| CacheError::unreadable(&path, e))?;
    let df: DataFrame = ParquetReader::new(file)
        .finish()
        .map_err(|e| CacheError::unreadable(&path, e))?;
    let expected = manifest.row_counts.get(name).copied();
    if expected != Some(df.height()) {
        return Err(CacheError::unreadable(
            &path,
            format!(
                "it holds {} rows, the manifest says {}",
                df.height(),
                expected.map_or("none".to_string(), |n| n.to_string())
            ),
        ));
    }
    Ok(df)
}
