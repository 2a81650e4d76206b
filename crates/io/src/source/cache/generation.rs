//! One generation of an account's cache, and the reading of its tables: a table's
//! Parquet file checked against the manifest's row count, the tables read biggest first
//! on all cores, and the reduced first part of a staged open.

use std::fs::File;

use foldhash::HashSet;
use std::path::{Path, PathBuf};

use polars::prelude::{DataFrame, ParquetReader, SerReader};

use super::{CacheError, Manifest};
use crate::source::tables::{
    FrameSink, ReachFrames, TableError, data_from_tables, invoice_statuses_of, read_reached,
};
use tieout_core::model::{AccountData, Table};

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

impl From<CacheError> for ReadError {
    fn from(e: CacheError) -> Self {
        ReadError::Cache(e)
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
        self.load_data_sliced(wanted, usize::MAX)
    }

    /// [`Self::load_data`], reading a table's row groups at most `slice_rows` rows at a
    /// time.
    fn load_data_sliced(
        &self,
        wanted: &(dyn Fn(Table) -> bool + Sync),
        slice_rows: usize,
    ) -> Result<AccountData, CacheError> {
        let Generation { manifest, dir } = self;
        let rows = |t: Table| {
            let n = manifest.row_counts.get(t.name()).copied();
            n.filter(|_| wanted(t))
        };
        data_from_tables(
            manifest.meta(),
            &biggest_first(manifest),
            &rows,
            &|table, each| read_table_in_slices(manifest, dir, (table, wanted), slice_rows, each),
        )
        .map_err(|e| match e {
            ReadError::Cache(e) => e,
            ReadError::Table(e) => CacheError::unreadable(dir, e),
        })
    }
}

impl Generation {
    /// The Parquet file of `table` in this generation and its row count, when the cache
    /// holds the table (a cache written before a table was added lacks it): what a lazy
    /// scan reads (`query`).
    pub fn table_file(&self, table: Table) -> Option<(PathBuf, usize)> {
        let rows = self.manifest.row_counts.get(table.name()).copied()?;
        Some((self.dir.join(parquet_file(table)), rows))
    }

    /// What the cache holds (account, mode, window, when it was read).
    pub fn meta(&self) -> tieout_core::model::SnapshotMeta {
        self.manifest.meta()
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

/// [`read_table`] a row group at a time for a table the file holds in more than one (the
/// million balance transactions, the charges), each group cut to at most `slice_rows`
/// rows: each slice is given to `each` and dropped before the next is read, so the whole
/// frame never stands beside its rows. The slices follow the file's own row groups (a
/// slice across two would decode both), so a cache written with other row groups is read
/// as cheaply. The slices' rows must add up to the manifest's count.
fn read_table_in_slices(
    manifest: &Manifest,
    gen_dir: &Path,
    (table, wanted): (Table, &(dyn Fn(Table) -> bool + Sync)),
    slice_rows: usize,
    each: &mut FrameSink<'_, ReadError>,
) -> Result<(), ReadError> {
    let rows = manifest.row_counts.get(table.name()).copied();
    let Some(rows) = rows.filter(|_| wanted(table)) else {
        return each(read_table(manifest, gen_dir, table, wanted)?);
    };
    let path = gen_dir.join(parquet_file(table));
    let open = || File::open(&path).map_err(|e| CacheError::unreadable(&path, e));
    // The footer first: a file whose count disagrees is refused before any slice is read.
    let groups: Vec<usize> = ParquetReader::new(open()?)
        .get_metadata()
        .map(|meta| meta.row_groups.iter().map(|g| g.num_rows()).collect())
        .map_err(|e| CacheError::unreadable(&path, e))?;
    check_row_count(&path, groups.iter().sum(), Some(rows))?;
    let slices = slices_of(&groups, slice_rows);
    if slices.len() <= 1 {
        return each(read_table(manifest, gen_dir, table, wanted)?);
    }
    let mut read = 0;
    for slice in slices {
        let df: DataFrame = ParquetReader::new(open()?)
            .with_slice(Some(slice))
            .finish()
            .map_err(|e| CacheError::unreadable(&path, e))?;
        read += df.height();
        each(df)?;
    }
    check_row_count(&path, read, Some(rows)).map_err(ReadError::from)
}

/// The slices (offset, rows) that read row groups of `groups` rows in order, each group
/// cut into pieces of at most `slice_rows` rows.
fn slices_of(groups: &[usize], slice_rows: usize) -> Vec<(usize, usize)> {
    let step = slice_rows.max(1);
    let mut slices = Vec::new();
    let mut start = 0;
    for &group in groups {
        let mut at = 0;
        while at < group {
            let len = step.min(group - at);
            slices.push((start + at, len));
            at += len;
        }
        start += group;
    }
    slices
}

/// A table file's rows against the manifest's count (`None`: the manifest has none).
fn check_row_count(path: &Path, held: usize, said: Option<usize>) -> Result<(), CacheError> {
    if said == Some(held) {
        return Ok(());
    }
    Err(CacheError::unreadable(
        path,
        format!(
            "it holds {held} rows, the manifest says {}",
            said.map_or("none".to_string(), |n| n.to_string())
        ),
    ))
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
    check_row_count(&path, df.height(), manifest.row_counts.get(name).copied())?;
    Ok(df)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::cache::Cache;
    use crate::source::tables::Snapshot;
    use crate::source::testdata::random_data;
    use tieout_core::model::Mode;

    fn saved(n: usize) -> (tempfile::TempDir, Generation) {
        let root = tempfile::tempdir().expect("tmp");
        let cache = Cache::at(root.path());
        let mut data = random_data(17, n);
        data.meta.account_id = "acct_1SLICE".into();
        data.meta.mode = Mode::Test;
        cache
            .save(&Snapshot::from_data(&data).expect("frames"))
            .expect("save");
        let generation = cache.generation("acct_1SLICE", Mode::Test).expect("gen");
        (root, generation)
    }

    #[test]
    fn tables_read_in_slices_give_the_rows_of_one_read() {
        let (_root, generation) = saved(40);
        let whole = generation
            .load_data_sliced(&|_| true, usize::MAX)
            .expect("whole");
        assert_eq!(whole.balance_transactions.len(), 40);
        for slice_rows in [1, 7, 39, 40] {
            let sliced = generation
                .load_data_sliced(&|_| true, slice_rows)
                .expect("sliced");
            assert_eq!(sliced, whole, "{slice_rows} rows a slice");
        }
    }

    #[test]
    fn slices_follow_the_row_groups_and_cut_none_across_two() {
        assert_eq!(slices_of(&[], 5), Vec::<(usize, usize)>::new());
        assert_eq!(slices_of(&[40], usize::MAX), vec![(0, 40)]);
        assert_eq!(
            slices_of(&[7, 7, 3], usize::MAX),
            vec![(0, 7), (7, 7), (14, 3)]
        );
        assert_eq!(
            slices_of(&[7, 3], 4),
            vec![(0, 4), (4, 3), (7, 3)],
            "a group is cut, never joined to the next"
        );
        assert_eq!(slices_of(&[2], 0), vec![(0, 1), (1, 1)]);
    }

    /// Rewrites `table`'s file in `generation` with row groups of `group_rows` rows.
    fn rewrite_in_row_groups(generation: &Generation, table: Table, group_rows: usize) {
        let path = generation.dir.join(parquet_file(table));
        let mut df =
            read_table(&generation.manifest, &generation.dir, table, &|_| true).expect("read");
        let file = File::create(&path).expect("create");
        polars::prelude::ParquetWriter::new(file)
            .with_row_group_size(Some(group_rows))
            .finish(&mut df)
            .expect("write");
    }

    #[test]
    fn a_file_of_several_row_groups_is_read_one_group_at_a_time() {
        let (_root, generation) = saved(40);
        let whole = generation
            .load_data_sliced(&|_| true, usize::MAX)
            .expect("whole");
        rewrite_in_row_groups(&generation, Table::BalanceTransactions, 7);
        let mut heights = Vec::new();
        read_table_in_slices(
            &generation.manifest,
            &generation.dir,
            (Table::BalanceTransactions, &|_| true),
            usize::MAX,
            &mut |df| {
                heights.push(df.height());
                Ok(())
            },
        )
        .map_err(|_| "unreadable")
        .expect("read");
        // polars splits the rows into even groups near the size asked (here five of 8).
        let path = generation
            .dir
            .join(parquet_file(Table::BalanceTransactions));
        let groups: Vec<usize> = ParquetReader::new(File::open(&path).expect("open"))
            .get_metadata()
            .expect("footer")
            .row_groups
            .iter()
            .map(|g| g.num_rows())
            .collect();
        assert!(groups.len() > 1, "{groups:?}");
        assert_eq!(heights, groups, "one slice a row group");
        let sliced = generation
            .load_data_sliced(&|_| true, usize::MAX)
            .expect("sliced");
        assert_eq!(sliced, whole);
    }

    #[test]
    fn slices_that_do_not_add_up_to_the_manifest_are_refused() {
        let (_root, mut generation) = saved(40);
        // One row more than the file (a slice short), and one fewer (the last slice ends
        // where the manifest says, with a row left in the file).
        for (said, slice_rows) in [(41, 7), (39, 13)] {
            generation
                .manifest
                .row_counts
                .insert("balance_transactions".into(), said);
            let err = generation
                .load_data_sliced(&|_| true, slice_rows)
                .expect_err("disagrees")
                .to_string();
            assert!(
                err.contains(&format!(
                    "balance_transactions.parquet is unreadable (it holds 40 rows, the manifest says {said})"
                )),
                "{err}"
            );
        }
    }
}
