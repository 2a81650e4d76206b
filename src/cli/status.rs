//! `tieout status`: account, mode, masked key, where the key came from, cache age.

use super::{CmdResult, Ctx};

pub fn run(_ctx: &Ctx) -> CmdResult {
    super::not_yet("tieout status")
}
