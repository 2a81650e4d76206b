//! SQL over the local snapshot, with polars' SQL front end (`polars::sql::SQLContext`).
//!
//! [`Engine`] registers the snapshot's tables and the domain's views ([`catalog`]), adds
//! tieout's functions ([`functions`]: `money`, `month`, `day`), checks each query before
//! it runs ([`guard`]: one `SELECT`/`WITH`, no table function, so nothing outside the
//! snapshot is read), and turns polars' errors into ones that point at the SQL (line and
//! column) and name the closest valid table or column. [`output`] writes results as a
//! text table, CSV, JSON or Markdown, row by row; [`saved`] holds the built-in queries.
//!
//! Known traps of polars SQL handled here: no `date_trunc`/`date_format` (use `month()`,
//! `day()` or `strftime(created_utc, '%Y-%m')`); a `CAST` of epoch seconds to a timestamp
//! reads them as microseconds (hence the `*_utc` columns); `SELECT k - SUM(x) … GROUP BY k`
//! returns a list instead of a number (upstream pola-rs/polars#14938): such a result is
//! refused with how to write it.

mod account;
mod balance_views;
pub mod budget;
pub mod catalog;
pub mod functions;
pub mod guard;
pub mod output;
pub mod saved;
pub mod views;

use std::fmt;

use jiff::tz::TimeZone;
use std::sync::Arc;

use polars::prelude::{DataFrame, DataType, InProcessQuery, LazyFrame, PolarsError};
use polars::sql::SQLContext;
use sqlparser::ast::Statement;

use tieout_core::model::AccountData;

use crate::source::cache::Generation;
use account::Account;

pub use budget::Budget;
pub use catalog::TableInfo;

/// A place in the SQL text, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    pub line: u64,
    pub column: u64,
}

/// Why a query gave no result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryError {
    /// The SQL does not parse.
    Syntax { message: String, at: Option<Pos> },
    /// The SQL parses but is not allowed (not a query, a table function, two statements).
    Refused { message: String, at: Option<Pos> },
    /// A table or column that does not exist, with the closest valid name.
    Unknown {
        what: &'static str,
        name: String,
        closest: Option<String>,
        at: Option<Pos>,
    },
    /// A result column came back as a list (the group-key trap).
    ListResult { column: String },
    /// polars refused or failed to run the query.
    Engine { message: String, at: Option<Pos> },
    /// The query would grow, or grew, past the [`Budget`].
    Budget { message: String },
    /// The caller cancelled the query (Esc in the Query tab).
    Cancelled,
}

impl QueryError {
    pub fn engine(e: impl fmt::Display) -> Self {
        QueryError::Engine {
            message: e.to_string(),
            at: None,
        }
    }

    /// Where in the SQL the problem is, when known.
    pub fn at(&self) -> Option<Pos> {
        match self {
            QueryError::Syntax { at, .. }
            | QueryError::Refused { at, .. }
            | QueryError::Unknown { at, .. }
            | QueryError::Engine { at, .. } => *at,
            QueryError::ListResult { .. } | QueryError::Budget { .. } | QueryError::Cancelled => {
                None
            }
        }
    }

    /// The message with the offending line of `sql` and a caret under the column.
    pub fn with_source(&self, sql: &str) -> String {
        let mut out = self.to_string();
        if let Some(at) = self.at()
            && let Some(line) = sql.lines().nth(at.line.saturating_sub(1) as usize)
        {
            let pad = " ".repeat(at.column.saturating_sub(1) as usize);
            out.push_str(&format!("\n  {line}\n  {pad}^"));
        }
        out
    }
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(at) = self.at() {
            write!(f, "line {}, column {}: ", at.line, at.column)?;
        }
        match self {
            QueryError::Syntax { message, .. } => write!(f, "SQL syntax: {message}"),
            QueryError::Refused { message, .. } => write!(f, "refused: {message}"),
            QueryError::Unknown {
                what,
                name,
                closest,
                ..
            } => {
                write!(f, "no {what} named `{name}`")?;
                match closest {
                    Some(c) => write!(f, "; did you mean `{c}`?"),
                    None => write!(f, " (see `tieout query --tables`)"),
                }
            }
            QueryError::ListResult { column } => write!(
                f,
                "column `{column}` came back as a list, not a value: polars SQL does this for \
                 `SELECT k - SUM(x) … GROUP BY k` (pola-rs/polars#14938). Write `MAX(k) - SUM(x)`, \
                 or compute the sums in a CTE and join them"
            ),
            QueryError::Engine { message, .. } | QueryError::Budget { message } => {
                write!(f, "{message}")
            }
            QueryError::Cancelled => write!(f, "query cancelled"),
        }
    }
}

impl std::error::Error for QueryError {}

/// The stack of the thread a query runs on: room for [`guard::MAX_OPERATORS`] levels of
/// recursion in the parser and planner, in a debug build too (only what is used is
/// committed).
const QUERY_STACK: usize = 512 << 20;

/// How often a running query's cancel and memory are looked at.
const WATCH_EVERY: std::time::Duration = std::time::Duration::from_millis(2);

/// Why a watched run gave no frame.
enum Watched {
    Polars(PolarsError),
    Stopped(QueryError),
}

/// Cancels a running query and returns `why` at once. polars stops the work at its next
/// step and then hands its (cancelled) answer to the query's channel, which must still be
/// there: a thread of its own waits for that answer, so the caller does not.
fn stop(query: InProcessQuery, why: QueryError) -> QueryError {
    query.cancel();
    let waiter = query.clone();
    let waited = std::thread::Builder::new()
        .name("tieout-sql-stop".into())
        .spawn(move || {
            let _ = waiter.fetch_blocking();
        });
    if let Err(e) = waited {
        tracing::warn!("no thread to wait for a stopped query ({e}); waiting here");
        let _ = query.fetch_blocking();
    }
    why
}

/// The snapshot's tables and views, ready to query.
#[derive(Debug, Clone)]
pub struct Engine {
    tables: Vec<TableInfo>,
    budget: Budget,
}

impl Engine {
    /// Every table and view of the rows in `data` (the worklist at `now`, months in `tz`),
    /// nothing built yet: a table becomes a frame, and a view is computed, the first time
    /// a query names it.
    pub fn over_data(data: Arc<AccountData>, now: i64, tz: &TimeZone) -> Result<Self, QueryError> {
        Ok(Self::from_tables(catalog::lazy(Account::in_memory(
            data, now, tz,
        ))?))
    }

    /// Every table and view of a cache generation, nothing read yet: a query reads the
    /// Parquet files of the tables it names (only the columns and row groups it needs), and
    /// a view's tables only when it names the view.
    pub fn over_cache(generation: Generation, now: i64, tz: &TimeZone) -> Result<Self, QueryError> {
        Ok(Self::from_tables(catalog::lazy(Account::cached(
            generation, now, tz,
        ))?))
    }

    /// Every table and view of `data`, built at once (the reference the lazy engines are
    /// compared with).
    pub fn eager(data: &AccountData, now: i64, tz: &TimeZone) -> Result<Self, QueryError> {
        Ok(Self::from_tables(catalog::eager(data, now, tz)?))
    }

    /// An engine over the given tables (tests, benches).
    pub fn from_tables(tables: Vec<TableInfo>) -> Self {
        Self {
            tables,
            budget: Budget::default(),
        }
    }

    /// The same engine with another budget (`tieout query --max-memory`, tests).
    pub fn with_budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    pub fn tables(&self) -> &[TableInfo] {
        &self.tables
    }

    /// Checks and runs one query.
    /// Parsing and planning recurse once per operator (`a OR b OR c …` is a tree as deep
    /// as it is long), so a query runs on a thread of its own with a stack sized for the
    /// deepest query the guard lets through ([`guard::MAX_OPERATORS`]): a long query is
    /// refused with a message, never a stack overflow that aborts the process (and, in
    /// the workbench, leaves the terminal in its raw mode).
    pub fn run(&self, sql: &str) -> Result<DataFrame, QueryError> {
        self.run_until(sql, &|| false)
    }

    /// [`Engine::run`], stopped with [`QueryError::Cancelled`] as soon as `cancelled`
    /// says so: polars stops the work itself at its next step.
    pub fn run_until(
        &self,
        sql: &str,
        cancelled: &(dyn Fn() -> bool + Sync),
    ) -> Result<DataFrame, QueryError> {
        guard::check_size(sql)?;
        std::thread::scope(|scope| {
            let worker = std::thread::Builder::new()
                .name("tieout-sql".into())
                .stack_size(QUERY_STACK)
                .spawn_scoped(scope, || self.run_here(sql, cancelled))
                .map_err(|e| QueryError::engine(format!("could not start the query: {e}")))?;
            worker
                .join()
                .unwrap_or_else(|_| Err(QueryError::engine("the query stopped unexpectedly")))
        })
    }

    fn run_here(
        &self,
        sql: &str,
        cancelled: &(dyn Fn() -> bool + Sync),
    ) -> Result<DataFrame, QueryError> {
        let statements = guard::check(sql)?;
        let mut ctx = SQLContext::new().with_function_registry(functions::registry());
        // Only what the query reads from is registered: a view is built, and a table
        // read, only for a query that names it in a FROM or JOIN.
        let named = guard::relations(&statements);
        for t in &self.tables {
            if named.contains(&t.name.to_ascii_lowercase()) {
                ctx.register(&t.name, t.lazy()?);
            }
        }
        let explain = |e| self.explain(e, &statements);
        let lf = ctx.execute(sql).map_err(explain)?;
        let plan = lf.clone().to_alp_optimized().map_err(explain)?;
        budget::check_plan(&plan, &self.budget)?;
        let df = self.collect_watched(lf, cancelled).map_err(|e| match e {
            Watched::Polars(e) => explain(e),
            Watched::Stopped(e) => e,
        })?;
        budget::check_result(df.estimated_size() as u64, &self.budget)?;
        if let Some(c) = df
            .columns()
            .iter()
            .find(|c| matches!(c.dtype(), DataType::List(_)))
        {
            return Err(QueryError::ListResult {
                column: c.name().to_string(),
            });
        }
        Ok(df)
    }

    /// Runs `lf` while watching the cancel and the memory budget; either stops polars'
    /// work at its next step.
    fn collect_watched(
        &self,
        lf: LazyFrame,
        cancelled: &(dyn Fn() -> bool + Sync),
    ) -> Result<DataFrame, Watched> {
        let start = budget::resident_bytes();
        let query = lf.collect_concurrently().map_err(Watched::Polars)?;
        loop {
            if cancelled() {
                return Err(Watched::Stopped(stop(query, QueryError::Cancelled)));
            }
            if let Some(done) = query.fetch() {
                return done.map_err(Watched::Polars);
            }
            if let (Some(start), Some(now)) = (start, budget::resident_bytes()) {
                let grown = now.saturating_sub(start);
                if grown > self.budget.max_memory {
                    let over = budget::over_memory(grown, &self.budget);
                    return Err(Watched::Stopped(stop(query, over)));
                }
            }
            std::thread::sleep(WATCH_EVERY);
        }
    }

    /// A polars error, pointed at the SQL, with the closest valid name when a table or
    /// column is unknown.
    fn explain(&self, e: PolarsError, statements: &[Statement]) -> QueryError {
        let message = match &e {
            PolarsError::ColumnNotFound(m)
            | PolarsError::SQLInterface(m)
            | PolarsError::SQLSyntax(m)
            | PolarsError::InvalidOperation(m)
            | PolarsError::SchemaMismatch(m)
            | PolarsError::ComputeError(m) => m.to_string(),
            other => other.to_string(),
        };
        let first = message.lines().next().unwrap_or_default().to_string();
        if let Some(f) = quoted_after(&first, "unsupported function ")
            && functions::FUNCTIONS
                .iter()
                .any(|(sig, _)| sig.starts_with(&format!("{f}(")))
        {
            return QueryError::Engine {
                message: format!(
                    "{f}() works in the outer SELECT only: polars SQL drops added functions \
                     inside WITH and subqueries. Inside, write strftime(created_utc, '%Y-%m') \
                     for a month, strftime(created_utc, '%Y-%m-%d') for a day, and keep money \
                     in minor units until the outer SELECT"
                ),
                at: guard::find_function(statements, &f),
            };
        }
        let relation = quoted_after(&first, "relation ");
        let column = match &e {
            PolarsError::ColumnNotFound(_) => {
                quoted_after(&first, "").or_else(|| Some(first.trim().to_string()))
            }
            _ => {
                quoted_after(&first, "column ").or_else(|| quoted_after(&first, "no column named "))
            }
        };
        if let Some(name) = relation.filter(|n| !self.is_table(n)) {
            return QueryError::Unknown {
                what: "table",
                closest: closest(&name, self.tables.iter().map(|t| t.name.as_str())),
                at: guard::find_ident(statements, &name),
                name,
            };
        }
        if let Some(name) = column.filter(|n| !n.is_empty() && !n.contains(' ')) {
            let names = self.column_names();
            return QueryError::Unknown {
                what: "column",
                closest: closest(&name, names.iter().map(String::as_str)),
                at: guard::find_ident(statements, &name),
                name,
            };
        }
        QueryError::Engine {
            message: first,
            at: None,
        }
    }

    fn is_table(&self, name: &str) -> bool {
        self.tables.iter().any(|t| t.name == name)
    }

    /// Every column name of every table, sorted, once each.
    pub fn column_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .tables
            .iter()
            .flat_map(|t| t.schema.iter_names().map(|n| n.to_string()))
            .collect();
        v.sort();
        v.dedup();
        v
    }
}

/// The first quoted word (`"x"` or `'x'`) after `prefix` in `text`.
fn quoted_after(text: &str, prefix: &str) -> Option<String> {
    let start = if prefix.is_empty() {
        0
    } else {
        text.find(prefix)? + prefix.len()
    };
    let rest = &text[start..];
    let open = rest.find(['"', '\''])?;
    let q = rest[open..].chars().next()?;
    let body = &rest[open + 1..];
    let close = body.find(q)?;
    Some(body[..close].to_string())
}

/// The candidate closest to `name` (case-insensitive edit distance), when it is close
/// enough to be a likely typo.
pub fn closest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    let best = candidates
        .map(|c| {
            (
                strsim::damerau_levenshtein(&lower, &c.to_ascii_lowercase()),
                c,
            )
        })
        .min_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)))?;
    let limit = (lower.chars().count() / 3).max(2);
    (best.0 <= limit).then(|| best.1.to_string())
}

#[cfg(test)]
mod lazy_tests;
#[cfg(test)]
mod tests;
