//! The balance reads a sync makes beside the payouts (all need `rak_balance_read`, so a
//! key without it is refused here as in the payouts' lines, and the 403 names it):
//!
//! - Stripe's balance now, `GET /v1/balance` (one request), kept in the snapshot with the
//!   sync's clock as the instant it was read: the roll-forward of the month that holds it
//!   compares its closing with it.
//! - When a read asks for every line ([`SyncOptions::all_lines`]), every balance
//!   transaction of the account, `GET /v1/balance_transactions` without a filter (all
//!   pages: `ceil(N/100)` requests for `N` lines), so a month's opening is summed from the
//!   account's first line and checked against the one derived back from the balance. The
//!   lines the window's payouts listed keep their payout; the others are added without one.
//! - Otherwise, when it asks for the lines since an instant ([`SyncOptions::lines_since`],
//!   the window's start for a sync), `GET /v1/balance_transactions?created[gte]=…` (all
//!   pages: one request per 100 lines of the window): the lines no payout has paid out
//!   yet join the payouts' lines, without a payout, so the roll-forward of any month from
//!   the window's start is whole.

use std::collections::HashSet;

use tieout_core::model::StripeBalance;
use tieout_core::model::rows::{BalanceTxnRow, StripeId};

use super::{Part, Progress, SyncOptions, list_with};
use crate::stripe::models::{Balance, BalanceTransaction};
use crate::stripe::{Client, StripeError};

/// What the balance reads gave.
#[derive(Debug, Default)]
pub(super) struct BalancePart {
    pub balance: Option<StripeBalance>,
    /// Every line of the account, or of the window (see `lines_since`), when asked for.
    pub all_lines: Option<Vec<BalanceTransaction>>,
    /// The instant `all_lines` starts at when it holds the window's lines only.
    pub lines_since: Option<i64>,
}

/// Reads the balance, and every line when `opts` asks for them.
pub(super) async fn fetch(
    client: &Client,
    opts: &SyncOptions,
    progress: &dyn Progress,
) -> Result<BalancePart, StripeError> {
    let balance: Balance = client.get("/v1/balance", &[]).await?;
    let since = opts.lines_since.filter(|_| !opts.all_lines);
    let query = match since {
        Some(t) => vec![("created[gte]".to_string(), t.to_string())],
        None => Vec::new(),
    };
    let all_lines = if opts.all_lines || since.is_some() {
        Some(
            list_with::<BalanceTransaction>(
                client,
                "/v1/balance_transactions",
                query,
                Part::BalanceTransactions,
                progress,
            )
            .await?,
        )
    } else {
        None
    };
    Ok(BalancePart {
        balance: Some(balance.to_core(opts.now)),
        all_lines,
        lines_since: since,
    })
}

/// The payouts' lines (with their payout), then every other line of `all` in Stripe's
/// order, without a payout.
pub(super) fn merge_lines(
    mut paid: Vec<BalanceTxnRow>,
    all: &[BalanceTransaction],
) -> Vec<BalanceTxnRow> {
    let known: HashSet<StripeId> = paid.iter().map(|l| l.id.clone()).collect();
    paid.extend(
        all.iter()
            .filter(|t| !known.contains(&StripeId::from(t.id.as_str())))
            .map(|t| crate::source::from_wire::balance_txn_row(t, None)),
    );
    paid
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wire(id: &str, net: i64) -> BalanceTransaction {
        serde_json::from_value(serde_json::json!({
            "id": id, "net": net, "amount": net, "currency": "usd", "created": 1, "available_on": 2,
        }))
        .expect("a balance transaction")
    }

    #[test]
    fn every_line_is_kept_once_and_paid_lines_keep_their_payout() {
        let po = tieout_core::model::rows::PayoutId::from("po_1");
        let paid = vec![crate::source::from_wire::balance_txn_row(
            &wire("txn_a", 10),
            Some(&po),
        )];
        let all = [wire("txn_b", 5), wire("txn_a", 10), wire("txn_c", -3)];
        let merged = merge_lines(paid, &all);
        let ids: Vec<&str> = merged.iter().map(|l| l.id.as_str()).collect();
        assert_eq!(ids, ["txn_a", "txn_b", "txn_c"]);
        assert_eq!(merged[0].payout.as_deref(), Some("po_1"));
        assert!(merged[1].payout.is_none() && merged[2].payout.is_none());
    }
}
