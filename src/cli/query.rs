//! `tieout query "SELECT …"`: SQL over the snapshot (demo, `--cached` or fresh, as the
//! other headless commands), printed as a table or written as CSV, JSON or Markdown.
//! `--file q.sql` reads the query from a file, `--saved NAME` runs a saved query, and
//! `--tables` lists every table, column and type (`--format md`: as the README lists them).

use std::path::PathBuf;

use clap::Args;

use super::{CmdResult, Ctx, Failure};
use crate::app::query as uc;
use crate::query::Budget;
use crate::query::output::Format;

#[derive(Debug, Clone, Args)]
pub struct QueryArgs {
    /// The query (one SELECT or WITH … SELECT).
    #[arg(value_name = "SQL", conflicts_with_all = ["file", "saved", "tables"])]
    pub sql: Option<String>,
    /// Read the query from a file.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["saved", "tables"])]
    pub file: Option<PathBuf>,
    /// Run a saved query by name (built-in or queries/NAME.sql in the config folder).
    #[arg(long, value_name = "NAME", conflicts_with = "tables")]
    pub saved: Option<String>,
    /// List every table, column and type, the added functions and the saved queries
    /// (as Markdown with `--format md`).
    #[arg(long)]
    pub tables: bool,
    /// table, csv, json or md.
    #[arg(long, default_value = "table", value_name = "FORMAT")]
    pub format: String,
    /// Write the result to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Replace an existing `--out` file with different content (only a regular file:
    /// never a link's target, a device or a FIFO).
    #[arg(long)]
    pub force: bool,
    /// Stop a query whose memory grows past this many MiB while it runs (or whose result
    /// is larger).
    #[arg(long, value_name = "MIB", default_value_t = Budget::default().max_memory >> 20)]
    pub max_memory: u64,
    /// Refuse, before it runs, a query with a step of more cells (rows times columns).
    #[arg(long, value_name = "CELLS", default_value_t = Budget::default().max_cells)]
    pub max_cells: u64,
}

pub fn run(ctx: &Ctx, args: &QueryArgs) -> CmdResult {
    let format = Format::parse(&args.format).ok_or_else(|| {
        Failure::usage(format!(
            "unknown format '{}': use table, csv, json or md",
            args.format
        ))
    })?;
    let sql = if args.tables {
        None
    } else {
        Some(sql_of(args)?)
    };
    let engine = uc::engine(&ctx.request())?.with_budget(Budget {
        max_memory: args.max_memory.saturating_mul(1 << 20),
        max_cells: args.max_cells,
    });
    let Some(sql) = sql else {
        let text = match format {
            Format::Md => uc::describe_markdown(&engine),
            _ => uc::describe(&engine)?,
        };
        print!("{text}");
        return Ok(());
    };
    let df = uc::run(&engine, &sql)?;
    let mut stdout = std::io::stdout().lock();
    uc::write_result(&df, format, args.out.as_deref(), args.force, &mut stdout)?;
    if let Some(p) = &args.out {
        println!("{} rows -> {}", df.height(), p.display());
    }
    Ok(())
}

/// The query text from the argument, the file or the saved query.
fn sql_of(args: &QueryArgs) -> Result<String, Failure> {
    if let Some(sql) = &args.sql {
        return Ok(sql.clone());
    }
    if let Some(path) = &args.file {
        return std::fs::read_to_string(path)
            .map_err(|e| Failure::usage(format!("could not read {}: {e}", path.display())));
    }
    if let Some(name) = &args.saved {
        let (list, _) = uc::saved_queries();
        return list
            .into_iter()
            .find(|q| &q.name == name)
            .map(|q| q.sql)
            .ok_or_else(|| {
                Failure::usage(format!(
                    "no saved query named '{name}' (see `tieout query --tables`)"
                ))
            });
    }
    Err(Failure::usage(
        "give a query: tieout query \"SELECT …\", --file q.sql, --saved NAME, or --tables",
    ))
}
