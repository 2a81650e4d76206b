//! SQL over the snapshot (the engine is `query` in the IO crate): load the account as the
//! other headless commands do, build the engine, run one query, list the tables, find the
//! saved queries (built-in plus `queries/*.sql` in the config folder) and write a result.
//! The workbench's Query tab holds the engine as a [`SqlEngine`] and reads its failures as
//! [`SqlError`]s: the same engine and guard as `tieout query`, in this layer's words.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use polars::prelude::DataFrame;

use super::ReadRequest;
use super::load::{Need, cache_failure, cached_generation, load};
use crate::failure::Failure;
use crate::model::AccountData;
use crate::query::output::{self, Format};
use crate::query::saved::{self, Saved};
use crate::query::{Engine, QueryError, functions};
use crate::source::cache::Cache;

/// The engine over everything the request reads: over the cache (`--cached`) nothing is
/// read until a query names a table, and then only its Parquet file's needed columns; the
/// demo and a fresh read are read whole first, as the other commands read them.
pub fn engine(ctx: &ReadRequest) -> Result<Engine, Failure> {
    if ctx.cached && !ctx.demo {
        let cache = Cache::open_default().map_err(cache_failure)?;
        let generation = cached_generation(&cache, &ctx.profile)?;
        return Engine::over_cache(generation, ctx.now, &ctx.tz).map_err(unprepared);
    }
    let data = load(ctx, Need::All)?;
    engine_for(Arc::new(data), ctx.now, &ctx.tz)
}

/// The engine over `data` (the worklist at `now`, tie-out months in `tz`): each table
/// becomes a frame, and each view is computed, the first time a query names it.
pub fn engine_for(
    data: Arc<AccountData>,
    now: i64,
    tz: &jiff::tz::TimeZone,
) -> Result<Engine, Failure> {
    Engine::over_data(data, now, tz).map_err(unprepared)
}

fn unprepared(e: QueryError) -> Failure {
    Failure::data(format!("the snapshot could not be prepared for SQL: {e}"))
}

/// What a query may name, in a sentence (the Query tab's first screen).
pub fn introduction() -> String {
    let tables: Vec<&str> = crate::model::Table::ALL.iter().map(|t| t.name()).collect();
    let views: Vec<&str> = crate::query::views::VIEWS.iter().map(|(n, _)| *n).collect();
    format!(
        "SQL over the loaded account: tables {}; views {} (--tables lists the columns).",
        tables.join(", "),
        views.join(", ")
    )
}

/// A query's error as a command failure (usage: the SQL needs changing), with the line
/// of SQL it points at.
pub fn failure(e: &QueryError, sql: &str) -> Failure {
    Failure::usage(e.with_source(sql))
}

/// Runs `sql`.
pub fn run(engine: &Engine, sql: &str) -> Result<DataFrame, Failure> {
    engine.run(sql).map_err(|e| failure(&e, sql))
}

/// The folder of the user's saved queries: `queries/` in the config folder
/// (`TIEOUT_CONFIG_DIR` overrides the platform's).
pub fn queries_dir() -> Option<PathBuf> {
    Some(super::config_dir()?.join("queries"))
}

/// A saved query: its name (what `tieout query --saved` takes), its title (the file's
/// first comment line) and its SQL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedQuery {
    pub name: String,
    pub title: String,
    pub sql: String,
}

impl From<Saved> for SavedQuery {
    fn from(q: Saved) -> Self {
        Self {
            name: q.name,
            title: q.title,
            sql: q.sql,
        }
    }
}

/// The built-in queries and the user's, with a sentence per file that could not be read.
pub fn saved_queries() -> (Vec<SavedQuery>, Vec<String>) {
    let (list, problems) = saved::all(queries_dir().as_deref());
    (list.into_iter().map(SavedQuery::from).collect(), problems)
}

/// The built-in queries alone.
pub fn builtin_queries() -> Vec<SavedQuery> {
    saved::builtin().into_iter().map(SavedQuery::from).collect()
}

/// A place in the SQL text, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SqlPos {
    pub line: u64,
    pub column: u64,
}

/// Why a query gave no result: the message with the offending line of SQL and a caret
/// under the column, and where it points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlError {
    pub message: String,
    pub at: Option<SqlPos>,
}

/// The engine over one account, built once and asked many questions.
pub struct SqlEngine(Engine);

impl SqlEngine {
    /// The engine over `data` (the worklist at `now`, tie-out months in `tz`).
    pub fn over(
        data: Arc<AccountData>,
        now: i64,
        tz: &jiff::tz::TimeZone,
    ) -> Result<Self, Failure> {
        engine_for(data, now, tz).map(SqlEngine)
    }

    /// An engine the caller built (tests over synthetic tables).
    pub fn from_engine(engine: Engine) -> Self {
        SqlEngine(engine)
    }

    /// Runs `sql` through the guard and the engine.
    pub fn run(&self, sql: &str) -> Result<DataFrame, SqlError> {
        self.run_until(sql, &|| false)
    }

    /// [`SqlEngine::run`], stopped (the work itself, not only its answer) as soon as
    /// `cancelled` says so.
    pub fn run_until(
        &self,
        sql: &str,
        cancelled: &(dyn Fn() -> bool + Sync),
    ) -> Result<DataFrame, SqlError> {
        self.0.run_until(sql, cancelled).map_err(|e| SqlError {
            message: e.with_source(sql),
            at: e.at().map(|p| SqlPos {
                line: p.line,
                column: p.column,
            }),
        })
    }
}

/// A result cell as text (what the CSV writes for it).
pub fn cell_text(v: &polars::prelude::AnyValue<'_>) -> String {
    output::text(v)
}

/// Writes the whole of `df` into `dir` as `query-result.csv`, `.md` and `.json` (each
/// atomically), returning the paths written.
pub fn write_result_files(df: &DataFrame, dir: &Path) -> Result<Vec<PathBuf>, Failure> {
    let mut paths = Vec::new();
    for f in [Format::Csv, Format::Md, Format::Json] {
        let path = dir.join(format!("query-result.{}", f.extension()));
        // The pane's own file names in its export folder: a new result replaces the last.
        write_result(df, f, Some(&path), true, &mut std::io::sink())?;
        paths.push(path);
    }
    Ok(paths)
}

/// The two lists after the tables: the added functions and the saved queries (with a
/// line per file that could not be read), as `(heading, [(name, what)])`.
fn appendix() -> [(&'static str, Vec<(String, String)>); 2] {
    let functions = functions::FUNCTIONS
        .iter()
        .map(|(sig, what)| (sig.to_string(), what.to_string()))
        .collect();
    let (list, problems) = saved_queries();
    let mut saved: Vec<(String, String)> = list.into_iter().map(|q| (q.name, q.title)).collect();
    saved.extend(
        problems
            .into_iter()
            .map(|p| ("(unreadable)".to_string(), p)),
    );
    [
        (
            "Functions (outer SELECT only; polars SQL drops them inside WITH and subqueries)",
            functions,
        ),
        ("Saved queries (tieout query --saved NAME)", saved),
    ]
}

/// Every table, column and type, the added functions and the saved queries, as text
/// (a view's rows are counted by building it).
pub fn describe(engine: &Engine) -> Result<String, Failure> {
    let mut out = String::new();
    for t in engine.tables() {
        let rows = t.rows().map_err(unprepared)?;
        out.push_str(&format!("{} ({rows} rows): {}\n", t.name, t.about));
        for (name, ty) in t.columns() {
            out.push_str(&format!("  {name:<30} {ty}\n"));
        }
        out.push('\n');
    }
    for (i, (heading, entries)) in appendix().into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!("{heading}:\n"));
        for (name, what) in entries {
            out.push_str(&format!("  {name:<30} {what}\n"));
        }
    }
    Ok(out)
}

/// Every table and view with its columns and types, the added functions and the saved
/// queries, as Markdown (`tieout query --tables --format md`). The README's list of
/// tables is this output on the demo account (a test keeps the two equal).
pub fn describe_markdown(engine: &Engine) -> String {
    let mut out = String::new();
    for t in engine.tables() {
        let cols: Vec<String> = t
            .columns()
            .iter()
            .map(|(name, ty)| format!("`{name}` {ty}"))
            .collect();
        out.push_str(&format!(
            "- **`{}`**: {}. Columns: {}.\n",
            t.name,
            t.about,
            cols.join(", ")
        ));
    }
    for (heading, entries) in appendix() {
        out.push_str(&format!("\n{heading}:\n\n"));
        for (name, what) in entries {
            out.push_str(&format!("- `{name}`: {what}\n"));
        }
    }
    out
}

/// Writes `df` as `format` to `out` (atomically: a temporary file renamed into place),
/// or to `stdout` when `out` is `None`. Rows are written one by one.
pub fn write_result(
    df: &DataFrame,
    format: Format,
    out: Option<&Path>,
    force: bool,
    stdout: &mut dyn Write,
) -> Result<(), Failure> {
    let io = |e: std::io::Error| Failure::other(format!("could not write the result: {e}"));
    match out {
        None => output::write(df, format, stdout).map_err(io),
        // Every export's rule: atomic, an existing different file replaced only with
        // `force`, and never anything but a regular file.
        Some(path) => {
            crate::files::write_atomic_with(path, force, |w| output::write(df, format, w))
                .map(|_| ())
                .map_err(crate::app::exports::write_failure)
        }
    }
}
