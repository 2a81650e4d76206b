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

/// The account data the picture needs, from the demo, the cache or Stripe.
pub fn load(ctx: &ReadRequest, window: &Window) -> Result<AccountData, Failure> {
    // An invoice whose first failure is in the window was finalised at most a month or so
    // before it (Stripe's retries run for weeks): its charges are read from a month before.
    load::load(ctx, Need::Recovery(window.start - 31 * 86_400))
}

/// The picture of `data` for `window`.
pub fn build(ctx: &ReadRequest, data: &AccountData, window: &Window) -> Recovery {
    recovery::build(data, window, &ctx.tz)
}
