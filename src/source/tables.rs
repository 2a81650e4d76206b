//! Rows <-> polars DataFrames: the snapshot's columnar tables (money as i64 minor units).
