//! The query budget: how big a query may grow before tieout stops it, so a careless join
//! never takes the machine's memory (a three-way cross join of a month's balance
//! transactions asks for billions of rows).
//!
//! Three checks, each with a message that says which and what to write instead:
//! - **before it runs**, the optimised plan is sized: every step's rows (a table's own
//!   count; an equality join the rows its key values pair up, counted on the tables; a
//!   join without an equality multiplies its sides) times its columns is at most
//!   [`Budget::max_cells`];
//! - **while it runs**, the process's resident memory may grow by at most
//!   [`Budget::max_memory`] over what it held when the query started (sampled every few
//!   milliseconds, Linux's `/proc/self/status`; elsewhere only the other two checks
//!   hold), and the caller's cancel (Esc in the Query tab) is honoured: polars stops
//!   the work at its next step (a step already under way, one join or sort, runs to
//!   its end first, which is why the sizing before the run matters most);
//! - **after it runs**, the result itself is at most [`Budget::max_memory`] bytes.

use std::collections::HashMap;

use polars::prelude::{
    DataFrame, DataType, IntoLazy, JoinArgs, JoinType, LazyFrame, PlRefPath, ScanArgsParquet, col,
    len, lit,
};
use polars_plan::plans::expr_ir::ExprIR;
use polars_plan::prelude::{AExpr, Arena, FileInfo, IR, IRPlan, Node};

use super::QueryError;

/// How far a query may grow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Rows times columns at any step of the plan, as sized before it runs.
    pub max_cells: u64,
    /// Bytes of memory the query may take while it runs, and the most its result holds.
    pub max_memory: u64,
}

impl Default for Budget {
    /// 250 million cells (about 2 GB of 8-byte values) and 4 GiB of memory.
    fn default() -> Self {
        Budget {
            max_cells: 250_000_000,
            max_memory: 4 << 30,
        }
    }
}

/// The largest step of a plan: its rows, columns and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Largest {
    pub rows: u64,
    pub columns: u64,
    pub what: &'static str,
}

impl Largest {
    fn cells(&self) -> u64 {
        self.rows.saturating_mul(self.columns)
    }
}

/// Refuses a plan whose largest step is over `budget.max_cells`.
pub fn check_plan(plan: &IRPlan, budget: &Budget) -> Result<(), QueryError> {
    let mut sizer = Sizer {
        lp: &plan.lp_arena,
        exprs: &plan.expr_arena,
        largest: Largest {
            rows: 0,
            columns: 0,
            what: "",
        },
        keys: HashMap::new(),
    };
    sizer.rows_of(plan.lp_top);
    let largest = sizer.largest;
    if largest.cells() <= budget.max_cells {
        return Ok(());
    }
    Err(QueryError::Budget {
        message: format!(
            "refused before it ran: {} would hold about {} rows of {} columns ({} cells), over the \
             query budget of {} cells. Join on a column whose values are (nearly) unique \
             (`JOIN b ON a.id = b.id`), filter each side first in a WITH, or add LIMIT",
            largest.what,
            group(largest.rows),
            largest.columns,
            group(largest.cells()),
            group(budget.max_cells),
        ),
    })
}

/// How many rows a join key's values have: a frame of `k` (the value as text) and `n`.
type KeyCounts = DataFrame;

/// Sizes a plan's steps from the bottom up.
struct Sizer<'a> {
    lp: &'a Arena<IR>,
    exprs: &'a Arena<AExpr>,
    largest: Largest,
    /// The key counts of a column at a step, once worked out (None: not known).
    keys: HashMap<(Node, String), Option<KeyCounts>>,
}

impl Sizer<'_> {
    /// The rows `node` yields at most. A table has its count; a join with an equality on
    /// columns that come from the tables has the sum over key values of the rows each
    /// side has with that value (the rows a key shared by many rows on both sides makes);
    /// an equality on computed values is taken as its larger side (the memory checks
    /// catch a wrong guess); a join without an equality multiplies its sides. Records
    /// the largest step.
    fn rows_of(&mut self, node: Node) -> u64 {
        let ir = self.lp.get(node);
        // A step used twice (a table joined with itself) is a cache whose input `inputs`
        // does not list: sized through it all the same.
        let inputs: Vec<Node> = match ir {
            IR::Cache { input, .. } => vec![*input],
            _ => ir.inputs().collect(),
        };
        let sizes: Vec<u64> = inputs.iter().map(|n| self.rows_of(*n)).collect();
        let widest = sizes.iter().copied().max().unwrap_or(0);
        let (rows, what) = match ir {
            IR::DataFrameScan { df, .. } => (df.height() as u64, "a table"),
            IR::Scan { file_info, .. } => (scan_rows(file_info), "a table"),
            IR::Slice { len, .. } => (widest.min(u64::from(*len)), "a LIMIT"),
            IR::Join {
                input_left,
                input_right,
                left_on,
                right_on,
                options,
                ..
            } => {
                let l = sizes.first().copied().unwrap_or(0);
                let r = sizes.get(1).copied().unwrap_or(0);
                let mut matched = || {
                    let (lk, rk) = (left_on.first()?, right_on.first()?);
                    let lk = self.column_of(lk)?;
                    let rk = self.column_of(rk)?;
                    let left = self.key_counts(*input_left, &lk)?;
                    let right = self.key_counts(*input_right, &rk)?;
                    matched_rows(&left, &right)
                };
                match options.args.how {
                    JoinType::Semi | JoinType::Anti => (l, "a join"),
                    JoinType::Inner => (matched().unwrap_or(l.max(r)), "a join"),
                    JoinType::Left => (matched().map_or(l.max(r), |m| m + l), "a join"),
                    JoinType::Right => (matched().map_or(l.max(r), |m| m + r), "a join"),
                    JoinType::Full => (matched().map_or(l.max(r), |m| m + l + r), "a join"),
                    _ => (l.saturating_mul(r), "a join without an equality condition"),
                }
            }
            IR::Union { .. } => (sizes.iter().sum(), "a UNION"),
            _ => (widest, "a step"),
        };
        let columns = ir.schema(self.lp).len() as u64;
        let step = Largest {
            rows,
            columns,
            what,
        };
        if step.cells() > self.largest.cells() {
            self.largest = step;
        }
        rows
    }

    /// The column a join key reads, when the key is a plain column.
    fn column_of(&self, key: &ExprIR) -> Option<String> {
        match self.exprs.get(key.node()) {
            AExpr::Column(name) => Some(name.to_string()),
            _ => None,
        }
    }

    /// How many rows each value of `column` has at most at `node`, followed down to the
    /// table it comes from (a filter or limit only lowers them; through a join each
    /// count is multiplied by the most rows the other side has for one key).
    fn key_counts(&mut self, node: Node, column: &str) -> Option<KeyCounts> {
        let at = (node, column.to_string());
        if let Some(known) = self.keys.get(&at) {
            return known.clone();
        }
        let counts = self.key_counts_here(node, column);
        self.keys.insert(at, counts.clone());
        counts
    }

    fn key_counts_here(&mut self, node: Node, column: &str) -> Option<KeyCounts> {
        let lp = self.lp;
        match lp.get(node) {
            IR::DataFrameScan { df, .. } => counts_of(df, column),
            IR::Scan { sources, .. } => scan_counts(sources.first_path()?, column),
            IR::Filter { input, .. }
            | IR::Slice { input, .. }
            | IR::Sort { input, .. }
            | IR::Cache { input, .. }
            | IR::Distinct { input, .. }
            | IR::SimpleProjection { input, .. } => self.key_counts(*input, column),
            IR::Select { input, expr, .. } => {
                let e = expr.iter().find(|e| e.output_name().as_str() == column)?;
                let source = self.column_of(e)?;
                self.key_counts(*input, &source)
            }
            IR::HStack { input, exprs, .. } => {
                match exprs.iter().find(|e| e.output_name().as_str() == column) {
                    Some(e) => {
                        let source = self.column_of(e)?;
                        self.key_counts(*input, &source)
                    }
                    None => self.key_counts(*input, column),
                }
            }
            IR::Join {
                input_left,
                input_right,
                left_on,
                right_on,
                options,
                ..
            } => {
                let has = |n: Node, c: &str| lp.get(n).schema(lp).contains(c);
                let (side, name, other, other_key) = if has(*input_left, column) {
                    (*input_left, column.to_string(), *input_right, right_on)
                } else {
                    let name = if has(*input_right, column) {
                        column.to_string()
                    } else {
                        column
                            .strip_suffix(options.args.suffix().as_str())?
                            .to_string()
                    };
                    (*input_right, name, *input_left, left_on)
                };
                let counts = self.key_counts(side, &name)?;
                let key = self.column_of(other_key.first()?)?;
                let most = self
                    .key_counts(other, &key)?
                    .column("n")
                    .ok()?
                    .as_materialized_series()
                    .max::<u64>()
                    .ok()?
                    .unwrap_or(0)
                    .max(1);
                counts
                    .lazy()
                    .with_column((col("n") * lit(most)).alias("n"))
                    .collect()
                    .ok()
            }
            _ => None,
        }
    }
}

/// The rows of `df` per value of `column` (nulls never match, so they are left out).
fn counts_of(df: &DataFrame, column: &str) -> Option<KeyCounts> {
    df.select([column])
        .ok()?
        .lazy()
        .select([col(column).cast(DataType::String).alias("k")])
        .filter(col("k").is_not_null())
        .group_by([col("k")])
        .agg([len().cast(DataType::UInt64).alias("n")])
        .collect()
        .ok()
}

/// The rows a file scan yields at most: the files' own count (Parquet's metadata says it).
fn scan_rows(info: &FileInfo) -> u64 {
    let (known, estimated) = info.row_estimation;
    match known {
        Some(n) => n as u64,
        None if estimated != usize::MAX => estimated as u64,
        None => 0,
    }
}

/// [`counts_of`] the Parquet file at `path`, reading that one column.
fn scan_counts(path: &PlRefPath, column: &str) -> Option<KeyCounts> {
    let lf = LazyFrame::scan_parquet(path.clone(), ScanArgsParquet::default()).ok()?;
    lf.select([col(column).cast(DataType::String).alias("k")])
        .filter(col("k").is_not_null())
        .group_by([col("k")])
        .agg([len().cast(DataType::UInt64).alias("n")])
        .collect()
        .ok()
}

/// The rows an equality join of two sides with these key counts yields.
fn matched_rows(left: &KeyCounts, right: &KeyCounts) -> Option<u64> {
    let right = right
        .clone()
        .lazy()
        .select([col("k"), col("n").alias("n_other")]);
    let total = left
        .clone()
        .lazy()
        .join(
            right,
            [col("k")],
            [col("k")],
            JoinArgs::new(JoinType::Inner),
        )
        .select([(col("n") * col("n_other")).sum().alias("rows")])
        .collect()
        .ok()?;
    total
        .column("rows")
        .ok()?
        .as_materialized_series()
        .max::<u64>()
        .ok()?
        .or(Some(0))
}

/// Refuses a result larger than the memory budget.
pub fn check_result(bytes: u64, budget: &Budget) -> Result<(), QueryError> {
    if bytes <= budget.max_memory {
        return Ok(());
    }
    Err(over_memory(bytes, budget))
}

/// The message of a query stopped for memory.
pub fn over_memory(bytes: u64, budget: &Budget) -> QueryError {
    QueryError::Budget {
        message: format!(
            "stopped: the query took {} MiB, over the query budget of {} MiB. Narrow it with \
             WHERE, aggregate with GROUP BY, or add LIMIT",
            bytes >> 20,
            budget.max_memory >> 20
        ),
    }
}

/// `n` with thousands separators.
fn group(n: u64) -> String {
    tieout_core::money::group_thousands(&n.to_string())
}

/// The process's resident memory in bytes, where the OS tells it (Linux).
pub fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line
        .trim_start_matches("VmRSS:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib << 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_thousands() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1_000), "1,000");
        assert_eq!(group(250_000_000), "250,000,000");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn reads_resident_memory() {
        let rss = resident_bytes().expect("VmRSS on Linux");
        assert!(rss > 1 << 20, "{rss}");
    }
}
