//! Opening the TUI: on the demo account, or on the profile's account (cache first).

use super::{CmdResult, Ctx};

pub fn run(_ctx: &Ctx, _demo: bool) -> CmdResult {
    super::not_yet("the TUI")
}
