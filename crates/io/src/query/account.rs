//! The account a lazy catalog reads from: a cache generation on disk (each table a
//! Parquet scan that reads only the columns and row groups a query needs) or rows already
//! in memory (the demo, a fresh read, the workbench's account: each table turned into a
//! frame the first time a query names it). The views are built from the tables their
//! family reads, the first time a query names one, and kept.

use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use jiff::tz::TimeZone;
use polars::prelude::{DataFrame, IntoLazy, LazyFrame, NULL, PlRefPath, ScanArgsParquet, col, lit};

use tieout_core::model::{AccountData, Table};

use super::QueryError;
use super::catalog::{table_frame, with_utc_columns, with_utc_lazy};
use super::views::Family;
use crate::source::cache::Generation;
use crate::source::tables::frame_of;

/// Where the rows are.
enum Rows {
    Memory(Arc<AccountData>),
    Cache(Box<Generation>),
}

/// A built frame, or why it could not be built (kept, so it is not tried again).
type Built<T> = OnceLock<Result<T, QueryError>>;

/// The account behind a lazy catalog, and what was built from it so far.
pub struct Account {
    rows: Rows,
    /// The clock the worklist and recovery views use.
    pub(super) now: i64,
    /// The zone the views cut months in.
    pub(super) tz: TimeZone,
    /// No rows, the account's meta: every table's and view's columns and types.
    empty: AccountData,
    /// In memory: each table's frame, once a query named it.
    tables: [Built<DataFrame>; Table::COUNT],
    /// Each family's views, once a query named one of them.
    views: [Built<Vec<DataFrame>>; Family::ALL.len()],
    /// From the cache: the rows read for views so far, and which tables they hold (each
    /// table is read at most once, however many families read it).
    view_rows: Mutex<(Vec<Table>, AccountData)>,
}

impl Account {
    fn new(rows: Rows, now: i64, tz: &TimeZone) -> Self {
        let meta = match &rows {
            Rows::Memory(data) => data.meta.clone(),
            Rows::Cache(generation) => generation.meta(),
        };
        Self {
            rows,
            view_rows: Mutex::new((Vec::new(), AccountData::empty(meta.clone()))),
            empty: AccountData::empty(meta),
            now,
            tz: tz.clone(),
            tables: std::array::from_fn(|_| OnceLock::new()),
            views: std::array::from_fn(|_| OnceLock::new()),
        }
    }

    /// Rows already in memory.
    pub fn in_memory(data: Arc<AccountData>, now: i64, tz: &TimeZone) -> Self {
        Self::new(Rows::Memory(data), now, tz)
    }

    /// A cache generation on disk.
    pub fn cached(generation: Generation, now: i64, tz: &TimeZone) -> Self {
        Self::new(Rows::Cache(Box::new(generation)), now, tz)
    }

    /// `table`'s rows with its `_utc` columns, as a plan.
    pub fn table(&self, table: Table) -> Result<LazyFrame, QueryError> {
        match &self.rows {
            Rows::Memory(data) => {
                let built = self.tables[table.index()].get_or_init(|| table_frame(data, table));
                Ok(built.clone()?.lazy())
            }
            Rows::Cache(generation) => match generation.table_file(table) {
                Some((path, _)) => scan(&path, table, &self.empty),
                // A cache written before the table was added: no rows, every column.
                None => Ok(table_frame(&self.empty, table)?.lazy()),
            },
        }
    }

    /// The account without its rows (its meta kept).
    pub fn empty(&self) -> &AccountData {
        &self.empty
    }

    /// How many rows `table` has.
    pub fn rows(&self, table: Table) -> usize {
        match &self.rows {
            Rows::Memory(data) => data.row_count(table),
            Rows::Cache(generation) => generation.table_file(table).map_or(0, |(_, n)| n),
        }
    }

    /// The view at `at` of `family`, built (with the rest of the family) on first use from
    /// the tables the family reads.
    pub fn view(&self, family: Family, at: usize) -> Result<DataFrame, QueryError> {
        let built = self.views[family.index()].get_or_init(|| {
            let build = |data: &AccountData| -> Result<Vec<DataFrame>, QueryError> {
                family
                    .build(data, self.now, &self.tz)?
                    .into_iter()
                    .map(with_utc_columns)
                    .collect()
            };
            match &self.rows {
                Rows::Memory(data) => build(data),
                Rows::Cache(generation) => {
                    let mut held = self
                        .view_rows
                        .lock()
                        .map_err(|_| QueryError::engine("a view's build failed earlier"))?;
                    let (have, data) = &mut *held;
                    let missing: Vec<Table> = (Table::ALL.into_iter())
                        .filter(|t| family.reads(*t) && !have.contains(t))
                        .collect();
                    if !missing.is_empty() {
                        let mut read = generation
                            .load_data(&|t| missing.contains(&t))
                            .map_err(|e| QueryError::engine(e.to_string()))?;
                        for t in missing {
                            data.take_table(t, &mut read);
                            have.push(t);
                        }
                    }
                    build(data)
                }
            }
        });
        built
            .as_ref()
            .map_err(Clone::clone)?
            .get(at)
            .cloned()
            .ok_or_else(|| QueryError::engine(format!("no view {at} in {family:?}")))
    }
}

/// A lazy scan of `table`'s Parquet file, with the columns and types this tieout gives
/// the table (a column the file lacks, from a cache written before it was added, reads
/// as nulls) and its `_utc` columns.
fn scan(path: &Path, table: Table, empty: &AccountData) -> Result<LazyFrame, QueryError> {
    let unreadable = |e: polars::prelude::PolarsError| {
        QueryError::engine(format!(
            "the cache file {} is unreadable ({e}); run `tieout sync` to rebuild it",
            path.display()
        ))
    };
    let want = frame_of(empty, table).map_err(|e| QueryError::engine(e.to_string()))?;
    let want = want.schema();
    let source = PlRefPath::try_from_path(path).map_err(unreadable)?;
    let mut lf = LazyFrame::scan_parquet(source, ScanArgsParquet::default()).map_err(unreadable)?;
    let have = lf.collect_schema().map_err(unreadable)?;
    let columns: Vec<_> = want
        .iter()
        .map(|(name, dtype)| match have.get(name) {
            Some(t) if t == dtype => col(name.clone()),
            Some(_) => col(name.clone()).cast(dtype.clone()),
            None => lit(NULL).cast(dtype.clone()).alias(name.clone()),
        })
        .collect();
    Ok(with_utc_lazy(lf.select(columns), want))
}
