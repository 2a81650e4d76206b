//! The notes a bookkeeper reads under a payout: why a failed, canceled, pending or
//! reversed payout is as it is, which transactions returned funds, and what is on hold.

use super::*;

/// Notes on failed, canceled, pending and reversed payouts, on reversals, and on
/// transactions that returned funds.
pub(super) fn status_notes(payout: &PayoutRow, related: &Related<'_>) -> Vec<String> {
    let mut notes = Vec::new();
    let why = match (&payout.failure_code, &payout.failure_message) {
        (Some(c), Some(m)) => format!(" ({c}: {m})"),
        (Some(c), None) => format!(" ({c})"),
        (None, Some(m)) => format!(" ({m})"),
        (None, None) => String::new(),
    };
    let failure_txn = payout
        .failure_balance_transaction
        .as_deref()
        .and_then(|id| related.by_id.get(id).copied());
    match &payout.status {
        PayoutStatus::Failed => {
            let via = match (failure_txn, &payout.failure_balance_transaction) {
                (Some(t), _) => format!(
                    "its payout_failure transaction {} ({})",
                    t.id,
                    money(t.net, t.currency)
                ),
                (None, Some(id)) => format!("its payout_failure transaction {id}"),
                (None, None) => "a payout_failure balance transaction".to_string(),
            };
            notes.push(format!(
                "This payout failed{why}: the bank did not accept it. Its funds returned to the Stripe balance through {via} so they can be paid out again."
            ));
        }
        PayoutStatus::Canceled => notes.push(format!(
            "This payout was canceled before it reached the bank{why}: its funds returned to the Stripe balance through a payout_cancel transaction."
        )),
        PayoutStatus::Pending | PayoutStatus::InTransit => notes.push(format!(
            "The bank has not confirmed this payout yet (status {}).",
            status_label(&payout.status)
        )),
        _ => {}
    }
    if let Some(by) = &payout.reversed_by {
        notes.push(format!(
            "This payout was reversed by payout {by}: Stripe debited its {} back from the bank account into the Stripe balance.",
            money(payout.amount, payout.currency)
        ));
    }
    if let Some(original) = &payout.original_payout {
        notes.push(format!(
            "This payout is the reversal of payout {original}: it debits {} from the bank account back into the Stripe balance.",
            money(payout.amount.saturating_abs(), payout.currency)
        ));
    }
    // A reversal, failure or cancellation recorded against this payout (its source is the
    // payout), other than the failure transaction named above.
    let returned = related
        .returning
        .get(payout.id.as_str())
        .into_iter()
        .flatten();
    for t in returned.filter(|t| failure_txn.is_none_or(|f| f.id != t.id)) {
        notes.push(format!(
            "Balance transaction {} ({}, {}) moved this payout's funds back to the Stripe balance.",
            t.id,
            if t.kind.is_empty() {
                "unknown type"
            } else {
                t.kind.as_str()
            },
            money(t.net, t.currency),
        ));
    }
    notes
}

/// Whether a transaction gives a payout's funds back to the balance (a failed, canceled
/// or reversed payout).
pub(super) fn returns_a_payout(t: &BalanceTxnRow) -> bool {
    matches!(t.kind.as_str(), "payout_failure" | "payout_cancel")
        || t.reporting_category == "payout_reversal"
}

/// The payout a line's funds came from or go back to, when its source is one.
fn payout_src(l: &BalanceTxnRow) -> Option<&str> {
    l.source.as_deref().filter(|s| s.starts_with("po_"))
}

/// Notes on minimum-balance holds and releases, and on funds of failed payouts paid out
/// again, among the lines.
pub(super) fn hold_notes(it: &Itemisation, cur: Currency) -> Vec<String> {
    let mut notes = Vec::new();
    for l in it.lines.iter().filter(|l| l.currency == cur) {
        // One look at the type: nearly every line is a charge or a refund, and falls through.
        match l.kind.as_str() {
            "payout_minimum_balance_hold" => notes.push(format!(
                "Stripe withheld {} to keep the account's minimum balance ({} payout_minimum_balance_hold); it is released into a later payout.",
                money(-l.net, cur),
                l.id
            )),
            "payout_minimum_balance_release" => notes.push(format!(
                "Includes {} released from the minimum-balance hold{} ({} payout_minimum_balance_release).",
                money(l.net, cur),
                payout_src(l)
                    .map(|p| format!(" of payout {p}"))
                    .unwrap_or_default(),
                l.id
            )),
            _ if returns_a_payout(l) => notes.push(format!(
                "Includes {} that came back from {} ({} {}) and is paid out again here.",
                money(l.net, cur),
                payout_src(l)
                    .map(|p| format!("payout {p}"))
                    .unwrap_or_else(|| "a payout that failed or was reversed".to_string()),
                l.id,
                l.kind
            )),
            _ => {}
        }
    }
    notes
}
