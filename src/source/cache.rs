//! The on-disk cache: one Parquet file per table plus a manifest, per account and mode, written atomically.
