//! `tieout suggest`: refund recommendations for one ticket or a tickets file.

use super::{CmdResult, Ctx, SuggestArgs};

pub fn run(_ctx: &Ctx, _args: &SuggestArgs) -> CmdResult {
    super::not_yet("tieout suggest")
}
