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
//! is per table here is its frame conversion, joined to its [`Table`] in
//! [`write::write_frame`] and [`read::read_frame`].
//!
//! The rooms: this one holds the [`Snapshot`] and the table-by-table load
//! ([`data_from_tables`]); [`write`] is the frame writer per table, over the column
//! builder in [`frame`]; [`read`] is the row reader per table (old caches missing a later
//! column included), over the typed column access in [`cols`].

use std::collections::BTreeMap;

use polars::prelude::DataFrame;
use rayon::prelude::*;

use tieout_core::model::{AccountData, SnapshotMeta, Table};

mod cols;
mod frame;
mod reach;
mod read;
mod write;

pub use reach::{ReachFrames, invoice_statuses_of, read_reached};
use read::read_frame;
use write::write_frame;

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
        data_from_tables(meta, &order, &|_| None, &|table, each| {
            each(
                frames
                    .lock()
                    .ok()
                    .and_then(|mut f| f[table.index()].take())
                    .unwrap_or_default(),
            )
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

/// `table`'s frame of `data`'s rows, as the cache stores it (the columns of an empty
/// `data` are every table's columns and types).
pub fn frame_of(data: &AccountData, table: Table) -> Result<DataFrame, TableError> {
    write_frame(data, table)
}

/// Where [`data_from_tables`]'s reader puts a table's frames, one at a time.
pub type FrameSink<'a, E> = dyn FnMut(DataFrame) -> Result<(), E> + 'a;

/// [`data_from_tables`]'s reader: gives `table`'s frames, whole or in slices, to the sink.
pub type ReadFrames<'a, E> = dyn Fn(Table, &mut FrameSink<'_, E>) -> Result<(), E> + Sync + 'a;

/// Builds the account's rows table by table: `read` gives each table's frame to `each`,
/// whole or in consecutive slices (a frame without columns gives no rows), and `rows`
/// may say how many rows a table will have (after its first slice, room is made once for
/// the rest instead of growing slice by slice); each frame is turned into rows and
/// dropped before the next is read. The tables of `order` are read one after another
/// (each frame is decoded and turned into rows on all cores), so only one frame (or
/// slice) is ever held next to the rows: the cache's load path, where a million balance
/// transactions never sit in memory twice. Reading two tables at once held two frames:
/// 230 MiB more at the opened TUI's peak on the 1M-line account, for a rest that arrived
/// no sooner than the Worklist's first frame needs. Tables not in `order` stay empty.
pub fn data_from_tables<E: From<TableError> + Send>(
    meta: SnapshotMeta,
    order: &[Table],
    rows: &(dyn Fn(Table) -> Option<usize> + Sync),
    read: &ReadFrames<'_, E>,
) -> Result<AccountData, E> {
    // Each table is read into an account of its own, then moved into the whole.
    let parts: Vec<(Table, AccountData)> = order
        .iter()
        .map(|&table| {
            let mut part = AccountData::empty(meta.clone());
            read(table, &mut |df: DataFrame| {
                if df.width() == 0 && df.height() == 0 {
                    return Ok(());
                }
                let mut piece = AccountData::empty(meta.clone());
                read_frame(&df, table, &mut piece)?;
                if part.row_count(table) == 0 {
                    // The first frame (for most tables the only one): its rows move, and
                    // room is made once for the slices still to come.
                    part.take_table(table, &mut piece);
                    let have = part.row_count(table);
                    part.reserve_table(table, rows(table).map_or(0, |n| n.saturating_sub(have)));
                } else {
                    part.append_table(table, &mut piece);
                }
                Ok(())
            })?;
            Ok((table, part))
        })
        .collect::<Result<_, E>>()?;
    let mut data = AccountData::empty(meta);
    for (table, mut part) in parts {
        data.take_table(table, &mut part);
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::testdata::random_data;
    use polars::prelude::{DataType, Int64Chunked, IntoColumn, NewChunkedArray, StringChunked};
    use proptest::prelude::*;
    use tieout_core::model::rows::{FeeParts, Metadata};

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
        assert_eq!(Metadata::from(parsed), data.charges[0].metadata);
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

    /// A Parquet cache saved before payouts kept `trace_id` loads, with no trace ids.
    #[test]
    fn a_cache_written_before_the_trace_id_columns_still_loads() {
        let mut data = random_data(7, 6);
        data.payouts[0].trace_id = Some("FED0001".into());
        data.payouts[0].trace_id_status = Some(crate::stripe::models::TraceIdStatus::Supported);
        data.payouts[1].trace_id_status =
            Some(crate::stripe::models::TraceIdStatus::parse("queried"));
        let root = tempfile::tempdir().expect("tmp");
        let cache = crate::source::cache::Cache::at(root.path());
        let mut snap = Snapshot::from_data(&data).expect("frames");
        cache.save(&snap).expect("save");
        let now = cache
            .load(&data.meta.account_id, data.meta.mode)
            .expect("load")
            .to_data()
            .expect("rows");
        assert_eq!(
            now.payouts, data.payouts,
            "the columns round-trip through Parquet"
        );
        *snap.frame_mut(Table::Payouts) = snap
            .frame(Table::Payouts)
            .drop("trace_id")
            .expect("drop")
            .drop("trace_id_status")
            .expect("drop");
        cache.save(&snap).expect("save the older shape");
        let back = cache
            .load(&data.meta.account_id, data.meta.mode)
            .expect("an older cache still loads")
            .to_data()
            .expect("rows");
        for p in &mut data.payouts {
            p.trace_id = None;
            p.trace_id_status = None;
        }
        assert_eq!(back.payouts, data.payouts);
    }

    #[test]
    fn lines_read_back_share_one_copy_of_a_repeated_description_and_payout_id() {
        let mut data = random_data(7, 3);
        for t in &mut data.balance_transactions {
            t.description = Some("Payment for invoice".into());
            t.payout = Some("po_shared".into());
        }
        let back = Snapshot::from_data(&data)
            .expect("frames")
            .to_data()
            .expect("rows");
        assert_eq!(back.balance_transactions, data.balance_transactions);
        let [a, b, c] = &back.balance_transactions[..] else {
            panic!("three lines")
        };
        for (x, y) in [(a, b), (b, c)] {
            let (Some(dx), Some(dy)) = (&x.description, &y.description) else {
                panic!("described")
            };
            assert!(dx.same_copy(dy), "one copy of the description");
            let (Some(px), Some(py)) = (&x.payout, &y.payout) else {
                panic!("paid out")
            };
            assert!(px.same_copy(py), "one copy of the payout id");
        }
    }

    #[test]
    fn exchange_rates_round_trip_exactly_and_a_cache_without_them_still_loads() {
        let data = random_data(11, 40);
        let rates: Vec<String> = data
            .balance_transactions
            .iter()
            .filter_map(|r| r.exchange_rate.get().map(|d| d.to_string()))
            .collect();
        assert!(rates.len() > 3, "the sample should hold converted lines");
        assert!(
            rates.iter().any(|r| r.len() > 12),
            "and a long rate: {rates:?}"
        );
        let mut snap = Snapshot::from_data(&data).expect("frames");
        assert_eq!(snap.to_data().expect("rows"), data, "the column is written");
        *snap.frame_mut(Table::BalanceTransactions) = snap
            .frame(Table::BalanceTransactions)
            .drop("exchange_rate")
            .expect("drop");
        let back = snap.to_data().expect("an older cache still loads");
        let mut expected = data.clone();
        for r in &mut expected.balance_transactions {
            r.exchange_rate = tieout_core::model::rate::ExchangeRate::NONE;
        }
        assert_eq!(back, expected);
    }

    #[test]
    fn fee_details_round_trip_and_a_cache_without_them_still_loads() {
        let data = random_data(11, 40);
        assert!(
            data.balance_transactions
                .iter()
                .any(|r| r.fee_details.len() > 1),
            "the sample should hold itemised fees"
        );
        let mut snap = Snapshot::from_data(&data).expect("frames");
        assert_eq!(snap.to_data().expect("rows"), data, "the column is written");
        *snap.frame_mut(Table::BalanceTransactions) = snap
            .frame(Table::BalanceTransactions)
            .drop("fee_details")
            .expect("drop");
        let back = snap.to_data().expect("an older cache still loads");
        let mut expected = data.clone();
        for r in &mut expected.balance_transactions {
            r.fee_details = FeeParts::NONE;
        }
        assert_eq!(back, expected);

        // A cell that is not a JSON array of details is named with its row.
        let mut snap = Snapshot::from_data(&data).expect("frames");
        let n = data.balance_transactions.len();
        let cells = StringChunked::from_iter_values(
            "fee_details".into(),
            (0..n).map(|i| if i == 2 { "{oops" } else { "[]" }),
        );
        snap.frame_mut(Table::BalanceTransactions)
            .with_column(cells.into_column())
            .expect("replace");
        let err = snap.to_data().expect_err("must fail").to_string();
        assert!(
            err.starts_with(
                "table balance_transactions: column fee_details is not a JSON array of fee details in row 2"
            ),
            "{err}"
        );
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
