//! `tieout dunning`: the failed-payment worklist as failed-payments.md/.csv/.json, and a
//! few lines on stdout fit for a billing channel post, then the paths written.

use std::path::{Path, PathBuf};

use super::{CmdResult, Ctx, Failure, Formats, OutArgs};
use crate::domain::dunning;
use crate::report::dunning as export;
use crate::source::AccountData;

/// How many decline codes the channel post names.
const TOP_DECLINES: usize = 3;

pub fn run(ctx: &Ctx, out: &OutArgs) -> CmdResult {
    let formats = Formats::parse(&out.format)?;
    let data = load(ctx)?;
    let lines = write(&data, ctx.now, out.out.as_deref(), formats, out.force)?;
    for l in lines {
        println!("{l}");
    }
    Ok(())
}

/// Open and uncollectible invoices with their payments, from wherever `--demo`,
/// `--cached` or the key say (`source::load`).
fn load(ctx: &Ctx) -> Result<AccountData, Failure> {
    if ctx.global.demo {
        // The bundled account, directly (no key, no network).
        return crate::source::demo::load_demo().map_err(|e| {
            Failure::data(format!(
                "the bundled demo account could not be read: {e}; this build is broken, please report it"
            ))
        });
    }
    crate::app::load::load(&ctx.request(), crate::app::load::Need::Dunning)
}

/// Computes the worklist of `data` at `now`, writes the chosen files into `dir` (the
/// current folder when `None`) and returns the lines to print: the channel summary, then
/// the path of each file.
pub fn write(
    data: &AccountData,
    now: i64,
    dir: Option<&Path>,
    formats: Formats,
    force: bool,
) -> Result<Vec<String>, Failure> {
    let w = dunning::build(data, now).map_err(|e| {
        Failure::data(format!(
            "could not total the worklist: {e}; the account's amounts are out of range"
        ))
    })?;
    let dir = dir
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let mut files: Vec<(&str, Vec<u8>)> = Vec::new();
    if formats.md {
        files.push((export::MD_NAME, export::markdown(&w, &data.meta)));
    }
    if formats.csv {
        files.push((export::CSV_NAME, export::csv(&w)));
    }
    if formats.json {
        files.push((export::JSON_NAME, export::json(&w, &data.meta)));
    }
    let mut lines = export::summary(&w, &data.meta, TOP_DECLINES);
    // All or nothing: a different earlier file refuses the whole set (exit 2) before any
    // is written. Identical bytes already on disk count as written: re-running is harmless.
    for (path, _) in super::write_exports(&dir, &files, force)? {
        lines.push(path.display().to_string());
    }
    Ok(lines)
}
