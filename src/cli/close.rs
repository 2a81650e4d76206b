//! `tieout close`: writes or verifies the month-end close packet.

use std::path::Path;

use super::{CmdResult, Ctx};

pub fn run(
    _ctx: &Ctx,
    _month: Option<&str>,
    _out: Option<&Path>,
    _verify: Option<&Path>,
    _force: bool,
) -> CmdResult {
    super::not_yet("tieout close")
}
