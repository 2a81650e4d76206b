//! The recovery picture as a use case (issue 36; RULES.md, "Recovery"): reads what
//! `load::Need::Recovery` names for the window of `months` months ending with `now`'s (in
//! `tz`), and builds the picture with the core's rules. Both shells call it.

use crate::app::ReadRequest;
use crate::app::load::{self, Need};
use crate::domain::recovery::{self, Recovery, Window};
use crate::failure::Failure;
use crate::model::AccountData;

/// The command's default number of months.
pub const DEFAULT_MONTHS: u32 = 6;

/// The most months a run may ask for (ten years of failures).
pub const MAX_MONTHS: u32 = 120;

/// The window of `months` months ending with the current one, refused when out of range.
pub fn window(ctx: &ReadRequest, months: u32) -> Result<Window, Failure> {
    if months == 0 || months > MAX_MONTHS {
        return Err(Failure::usage(format!(
            "--months {months}: give a number of months from 1 to {MAX_MONTHS}"
        )));
    }
    Ok(Window::ending_at(ctx.now, months, &ctx.tz))
}

/// The account data the picture needs, from the demo, the cache or Stripe. A cache that
/// lacks the paid and void invoices of the window is refused (exit 5): the picture would
/// report their failures as never recovered.
pub fn load(ctx: &ReadRequest, window: &Window) -> Result<AccountData, Failure> {
    let data = load::load(ctx, Need::Recovery(window.reads_from))?;
    match window.settled_gap(&data.meta) {
        Some(gap) => Err(Failure::data(format!(
            "{gap}; run `tieout sync` (it reads them for the last {DEFAULT_MONTHS} months), or drop --cached to read Stripe directly"
        ))),
        None => Ok(data),
    }
}

/// The picture of `data` for `window`.
pub fn build(ctx: &ReadRequest, data: &AccountData, window: &Window) -> Recovery {
    recovery::build(data, window, &ctx.tz)
}
