//! `tieout dunning`: the failed-payment worklist as failed-payments.md/.csv/.json.

use super::{CmdResult, Ctx, OutArgs};

pub fn run(_ctx: &Ctx, _out: &OutArgs) -> CmdResult {
    super::not_yet("tieout dunning")
}
