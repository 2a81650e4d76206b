//! The lazy engines (over the cache's Parquet files, and over rows in memory) against the
//! eager one tieout used to build: the same tables, columns and answers; nothing read that
//! a query does not name; an older cache's missing column read as nulls; a runaway join
//! refused before it runs.

use std::sync::Arc;

use jiff::tz::TimeZone;
use polars::prelude::{DataFrame, ParquetReader, ParquetWriter, SerReader};

use super::*;
use crate::source::cache::Cache;
use crate::source::demo::load_demo;
use crate::source::tables::Snapshot;

/// The demo saved as a cache in a temporary folder, with its engine over that cache.
struct Cached {
    _root: tempfile::TempDir,
    gen_dir: std::path::PathBuf,
    cache: Cache,
    data: AccountData,
    now: i64,
}

impl Cached {
    fn demo() -> Self {
        let root = tempfile::tempdir().expect("tmp");
        let cache = Cache::at(root.path());
        let data = load_demo().expect("demo");
        let saved = cache
            .save(&Snapshot::from_data(&data).expect("snapshot"))
            .expect("save");
        let gen_dir = saved.dir.join(saved.manifest.generation_dir());
        let now = data.meta.fetched_at;
        Cached {
            _root: root,
            gen_dir,
            cache,
            data,
            now,
        }
    }

    fn engine(&self) -> Engine {
        let meta = &self.data.meta;
        let generation = self
            .cache
            .generation(&meta.account_id, meta.mode)
            .expect("generation");
        Engine::over_cache(generation, self.now, &TimeZone::UTC).expect("engine")
    }

    fn eager(&self) -> Engine {
        Engine::eager(&self.data, self.now, &TimeZone::UTC).expect("eager")
    }

    fn in_memory(&self) -> Engine {
        Engine::over_data(Arc::new(self.data.clone()), self.now, &TimeZone::UTC).expect("lazy")
    }

    fn file(&self, table: &str) -> std::path::PathBuf {
        self.gen_dir.join(format!("{table}.parquet"))
    }
}

/// A table's name, columns and rows.
type Shape = (String, Vec<(String, String)>, usize);

fn same(a: &DataFrame, b: &DataFrame, what: &str) {
    assert_eq!(a.schema(), b.schema(), "{what}: columns differ");
    assert!(a.equals_missing(b), "{what}: answers differ\n{a}\n{b}");
}

#[test]
fn the_lazy_engines_list_the_same_tables_and_columns_as_the_eager_one() {
    let c = Cached::demo();
    let (eager, cached, memory) = (c.eager(), c.engine(), c.in_memory());
    let shape = |e: &Engine| -> Vec<Shape> {
        e.tables()
            .iter()
            .map(|t| (t.name.clone(), t.columns(), t.rows().expect("rows")))
            .collect()
    };
    assert_eq!(shape(&cached), shape(&eager));
    assert_eq!(shape(&memory), shape(&eager));
    assert_eq!(cached.column_names(), eager.column_names());
}

#[test]
fn the_lazy_engines_answer_every_saved_query_and_every_table_as_the_eager_one() {
    let c = Cached::demo();
    let (eager, cached, memory) = (c.eager(), c.engine(), c.in_memory());
    let mut queries: Vec<(String, String)> = saved::builtin()
        .into_iter()
        .map(|q| (q.name, q.sql))
        .collect();
    for t in eager.tables() {
        queries.push((t.name.clone(), format!("SELECT * FROM {}", t.name)));
    }
    assert!(queries.len() > 19, "{}", queries.len());
    for (name, sql) in &queries {
        let want = eager.run(sql).unwrap_or_else(|e| panic!("{name}: {e}"));
        same(
            &cached.run(sql).expect(name),
            &want,
            &format!("cache: {name}"),
        );
        same(
            &memory.run(sql).expect(name),
            &want,
            &format!("memory: {name}"),
        );
    }
}

#[test]
fn a_query_reads_only_the_tables_it_names() {
    let c = Cached::demo();
    // Damage every table a tie-out does not read: questions about payouts and their lines,
    // and the tie-out views, still answer; a question that names a damaged table says so.
    for table in [
        "charges",
        "invoices",
        "customers",
        "payment_intents",
        "refunds",
    ] {
        std::fs::write(c.file(table), b"not parquet").expect("damage");
    }
    let engine = c.engine();
    let payouts = engine
        .run("SELECT COUNT(*) AS n FROM payouts")
        .expect("payouts");
    assert_eq!(payouts.height(), 1);
    engine
        .run("SELECT verdict, COUNT(*) AS n FROM payout_tieout GROUP BY verdict")
        .expect("the tie-out view reads payouts and lines only");
    engine
        .run("SELECT currency, COUNT(*) AS n FROM balance_rollforward GROUP BY currency")
        .expect("the balance views read the lines only");
    let e = engine
        .run("SELECT COUNT(*) FROM charges")
        .expect_err("damaged");
    let text = e.to_string();
    assert!(
        text.contains("charges.parquet") && text.contains("tieout sync"),
        "{text}"
    );
}

#[test]
fn a_column_an_older_cache_lacks_reads_as_nulls() {
    let c = Cached::demo();
    let path = c.file("payouts");
    let mut df = ParquetReader::new(std::fs::File::open(&path).expect("open"))
        .finish()
        .expect("read");
    let rows = df.height();
    df = df.drop("failure_code").expect("a payouts column");
    ParquetWriter::new(std::fs::File::create(&path).expect("create"))
        .finish(&mut df)
        .expect("write");
    let engine = c.engine();
    let payouts = engine
        .tables()
        .iter()
        .find(|t| t.name == "payouts")
        .expect("payouts");
    assert!(payouts.columns().iter().any(|(n, _)| n == "failure_code"));
    let df = engine
        .run("SELECT COUNT(*) AS n FROM payouts WHERE failure_code IS NULL")
        .expect("runs");
    assert_eq!(
        df.column("n")
            .expect("n")
            .get(0)
            .expect("row")
            .extract::<usize>(),
        Some(rows)
    );
}

#[test]
fn a_cross_join_of_the_largest_table_with_itself_is_refused_before_it_runs() {
    let c = Cached::demo();
    // The demo's lines are few enough that their cross join fits the default budget; a
    // budget of 200 cells per line makes it a runaway, as the default is on a large account.
    let lines = c.data.balance_transactions.len() as u64;
    let engine = c.engine().with_budget(Budget {
        max_cells: lines * 200,
        ..Budget::default()
    });
    let e = engine
        .run("SELECT * FROM balance_transactions a CROSS JOIN balance_transactions b")
        .expect_err("refused");
    assert!(matches!(e, QueryError::Budget { .. }), "{e:?}");
    assert!(e.to_string().contains("refused before it ran"), "{e}");
    // An equality on a key many lines share (the currency) is sized from the file's own
    // key counts, and refused the same way; an equality on an id is not.
    let e = engine
        .run("SELECT * FROM balance_transactions a JOIN balance_transactions b ON a.currency = b.currency")
        .expect_err("refused");
    assert!(e.to_string().contains("refused before it ran"), "{e}");
    engine
        .run("SELECT p.id, b.net FROM payouts p JOIN balance_transactions b ON b.payout = p.id")
        .expect("an equality on ids fits");
}

#[test]
fn a_name_that_is_not_read_from_builds_no_view() {
    let c = Cached::demo();
    // The lines are damaged: a view built from them (`fees`, `payout_lines`) would fail.
    std::fs::write(c.file("balance_transactions"), b"not parquet").expect("damage");
    let engine = c.engine();
    let df = engine
        .run("SELECT COUNT(*) AS fees, MAX(id) AS payout_lines FROM payouts fees")
        .expect("an alias or a column named like a view reads no view");
    assert_eq!(df.height(), 1);
    let e = engine
        .run("WITH x AS (SELECT * FROM fees) SELECT COUNT(*) FROM x")
        .expect_err("a view read in a CTE is built");
    assert!(
        e.to_string().contains("balance_transactions.parquet"),
        "{e}"
    );
}
