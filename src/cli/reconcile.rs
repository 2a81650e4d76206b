//! `tieout reconcile --month`: the payout tie-out of a month as CSV, Markdown and JSON.

use super::{CmdResult, Ctx, OutArgs};

pub fn run(_ctx: &Ctx, _month: &str, _out: &OutArgs) -> CmdResult {
    super::not_yet("tieout reconcile")
}
