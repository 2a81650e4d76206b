//! `tieout login` and `tieout logout`: store, verify and delete the key in the OS keychain.

use super::{CmdResult, Ctx};

pub fn login(_ctx: &Ctx) -> CmdResult {
    super::not_yet("tieout login")
}

pub fn logout(_ctx: &Ctx) -> CmdResult {
    super::not_yet("tieout logout")
}
