//! What a sync reads and as of when ([`SyncOptions`]): the parts, the payout window, how
//! far back charges and settled invoices go, the clock, and whether every balance
//! transaction is listed.

use jiff::tz::TimeZone;
use tieout_core::model::Parts;
use tieout_core::time::Month;

use super::{CHARGE_MONTHS, SETTLED_MONTHS};

/// What a sync reads and as of when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncOptions {
    pub parts: Parts,
    /// Payouts arriving in `[start, end)`, unix seconds.
    pub window: (i64, i64),
    /// Charges created at or after this instant.
    pub charges_since: i64,
    /// With the invoices: also the paid and void ones created at or after this instant
    /// (how the failures of the recovery picture ended); `None`: open and uncollectible
    /// only.
    pub settled_invoices_since: Option<i64>,
    /// Parts whose failure (a missing permission) does not fail the read: their tables
    /// stay empty and the snapshot's meta does not claim them (the morning `dunning` reads
    /// charges for its recovery line, which it leaves out without them).
    pub best_effort: Parts,
    /// The clock (recorded as the snapshot's `fetched_at`, and as the instant the
    /// balance was read).
    pub now: i64,
    /// With the payouts: also every balance transaction of the account, paid out or not
    /// (the `balance` reads), so a month's opening can be summed from the first line.
    pub all_lines: bool,
    /// With the payouts: also every balance transaction created at or after this instant,
    /// paid out or not (`created[gte]`), so the lines no payout has paid out yet are in
    /// the snapshot and a month's opening can be derived back from Stripe's balance.
    pub lines_since: Option<i64>,
}

fn months_back(m: Month, n: u32) -> Month {
    (0..n).fold(m, |m, _| m.prev())
}

impl SyncOptions {
    /// Everything, with payouts of the current month and the `months - 1` before it.
    pub fn for_months(now: i64, tz: &TimeZone, months: u32) -> Self {
        let current = Month::of(now, tz);
        let first = months_back(current, months.max(1) - 1);
        Self {
            parts: Parts::all(),
            window: (first.range(tz).0, current.range(tz).1),
            charges_since: months_back(current, CHARGE_MONTHS).range(tz).0,
            settled_invoices_since: Some(months_back(current, SETTLED_MONTHS).range(tz).0),
            best_effort: Parts::none(),
            now,
            all_lines: false,
            lines_since: Some(first.range(tz).0),
        }
    }

    /// Only the payouts arriving in `month` and their lines.
    pub fn for_month(now: i64, tz: &TimeZone, month: Month) -> Self {
        Self {
            parts: Parts {
                payouts: true,
                ..Parts::none()
            },
            window: month.range(tz),
            charges_since: month.range(tz).0,
            settled_invoices_since: None,
            best_effort: Parts::none(),
            now,
            all_lines: false,
            lines_since: Some(month.range(tz).0),
        }
    }
}
