//! `tieout sync`: fetch or refresh the local cache, with progress on stderr.

use super::{CmdResult, Ctx};

pub fn run(_ctx: &Ctx, _months: u32) -> CmdResult {
    super::not_yet("tieout sync")
}
