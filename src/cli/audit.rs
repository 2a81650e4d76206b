//! `tieout audit`: prints the refund audit log, filtered by ticket and day.

use super::{CmdResult, Ctx};

pub fn run(_ctx: &Ctx, _ticket: Option<&str>, _day: Option<&str>) -> CmdResult {
    super::not_yet("tieout audit")
}
