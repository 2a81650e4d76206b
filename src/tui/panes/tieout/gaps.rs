//! The Tie-out tab when the fresh read could not read part of the account: a month
//! without payouts says the payouts could not be read (and why), never that none
//! arrived; and its reports refuse rather than write files that hide the gap (the
//! close packet holds every part of the account, so any gap stops it, as `tieout close`
//! with the same key stops).

use crate::domain::tieout::EMPTY_MONTH;
use crate::model::Resource;
use crate::tui::workspace::Gap;

/// The payouts' gap, if the fresh read could not read them.
pub(super) fn payouts(gaps: &[Gap]) -> Option<&Gap> {
    gaps.iter().find(|g| g.resource == Resource::Payouts)
}

/// What a month without payouts says (`refresh`: the key that reads them again).
pub(super) fn empty_month(gap: Option<&Gap>, refresh: &str) -> String {
    let Some(g) = gap else {
        return EMPTY_MONTH.to_string();
    };
    // A failure's own words are long and already above the pane.
    let why = if g.retryable() {
        format!("the error is above; {refresh} reads them again")
    } else {
        g.reason()
    };
    if g.stale {
        format!(
            "No payouts arrived in this month as of the last sync; the payouts could not be read now ({why})."
        )
    } else {
        format!(
            "The payouts could not be read ({why}), so whether any arrived in this month is unknown."
        )
    }
}

/// What the Balance view says above its figures when the lines (read with the payouts)
/// could not be read: its figures then count only the last sync's lines, or none.
pub(super) fn balance_note(gap: Option<&Gap>, refresh: &str) -> Option<String> {
    let g = gap?;
    let why = if g.retryable() {
        format!("the error is above; {refresh} reads them again")
    } else {
        g.reason()
    };
    Some(if g.stale {
        format!(
            "The balance transactions could not be read now ({why}): these are the last sync's figures."
        )
    } else {
        format!(
            "The balance transactions could not be read ({why}): these figures do not hold them."
        )
    })
}

/// What to do about `gaps`: press `refresh` to read again those that failed.
fn what_to_do(gaps: &[&Gap], refresh: &str) -> String {
    let failed: Vec<&str> = gaps
        .iter()
        .filter(|g| g.retryable())
        .map(|g| g.resource.label())
        .collect();
    if failed.is_empty() {
        String::new()
    } else {
        format!(" Press {refresh} to read {} again.", failed.join(", "))
    }
}

/// Why the month's reconciliation files and journal (`export`, `export_journal`) are not
/// written: the payouts could not be read. `None`: they may be written.
pub(super) fn refuse_reports(gaps: &[Gap], refresh: &str) -> Option<String> {
    let g = payouts(gaps)?;
    Some(format!(
        "nothing was exported: {}.{}",
        g.message(),
        what_to_do(&[g], refresh)
    ))
}

/// Why the close packet is not written: some part of the account could not be read (a
/// packet would hold an empty or old file for it). `None`: it may be written.
pub(super) fn refuse_packet(gaps: &[Gap], refresh: &str) -> Option<String> {
    if gaps.is_empty() {
        return None;
    }
    let why: Vec<String> = gaps.iter().map(Gap::message).collect();
    let all: Vec<&Gap> = gaps.iter().collect();
    Some(format!(
        "it holds every part of the account, and {} (`tieout close` stops the same way).{}",
        why.join("; "),
        what_to_do(&all, refresh)
    ))
}
