//! `tieout gen-demo` (hidden): writes a generated account as Stripe-shaped JSON.

use std::path::Path;

use super::CmdResult;

pub fn run(_seed: u64, _scale: u32, _out: &Path) -> CmdResult {
    super::not_yet("tieout gen-demo")
}
