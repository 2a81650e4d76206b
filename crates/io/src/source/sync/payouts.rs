//! The payouts' side of a sync: the payouts of the window and, for each payout Stripe can
//! itemise, its balance transactions (reused from the cache once the payout is settled).

use super::*;

/// Stripe can list this payout's lines (`?payout=` works only for automatic,
/// non-instant payouts whose reconciliation completed).
pub fn itemisable(p: &PayoutRow) -> bool {
    p.automatic
        && p.method != "instant"
        && p.reconciliation_status == ReconciliationStatus::Completed
}

/// The payout is final and itemised: its lines cannot change any more.
pub fn settled(p: &PayoutRow) -> bool {
    itemisable(p)
        && matches!(
            p.status,
            PayoutStatus::Paid | PayoutStatus::Failed | PayoutStatus::Canceled
        )
}

pub(super) struct PayoutPart {
    pub(super) payouts: Vec<PayoutRow>,
    pub(super) lines: Vec<BalanceTxnRow>,
    pub(super) reused_payouts: usize,
    pub(super) reused_lines: usize,
}

pub(super) async fn fetch_payouts(
    client: &Client,
    opts: &SyncOptions,
    previous: Option<&AccountData>,
    progress: &dyn Progress,
) -> Result<PayoutPart, StripeError> {
    let (start, end) = opts.window;
    let query = params([
        ("arrival_date[gte]", start.to_string()),
        ("arrival_date[lt]", end.to_string()),
    ]);
    let payouts: Vec<Payout> = list_with(
        client,
        Resource::Payouts.list_path(),
        query,
        Part::Payouts,
        progress,
    )
    .await?;
    let payouts: Vec<PayoutRow> = payouts.iter().map(PayoutRow::from).collect();

    // Lines the previous sync fetched, by payout, and the status each payout had then.
    let mut cached_lines: HashMap<&str, Vec<&BalanceTxnRow>> = HashMap::new();
    let mut cached_status: HashMap<&str, &PayoutRow> = HashMap::new();
    if let Some(prev) = previous {
        for t in &prev.balance_transactions {
            if let Some(po) = t.payout.as_deref() {
                cached_lines.entry(po).or_default().push(t);
            }
        }
        for p in &prev.payouts {
            cached_status.insert(&p.id, p);
        }
    }

    let mut reused: HashMap<&str, Vec<BalanceTxnRow>> = HashMap::new();
    let mut to_fetch: Vec<&str> = Vec::new();
    for p in payouts.iter().filter(|p| itemisable(p)) {
        let keep = settled(p)
            && cached_status
                .get(p.id.as_str())
                .is_some_and(|old| settled(old) && old.status == p.status)
            && cached_lines.contains_key(p.id.as_str());
        match cached_lines.get(p.id.as_str()).filter(|_| keep) {
            Some(lines) => {
                reused.insert(&p.id, lines.iter().map(|t| (*t).clone()).collect());
            }
            None => to_fetch.push(&p.id),
        }
    }
    let reused_payouts = reused.len();
    let reused_lines = reused.values().map(Vec::len).sum();
    if reused_payouts > 0 {
        progress.event(SyncEvent::Reused {
            payouts: reused_payouts,
            lines: reused_lines,
        });
    }

    let total = to_fetch.len();
    progress.event(SyncEvent::Planned {
        part: Part::BalanceTransactions,
        total,
    });
    let done = AtomicUsize::new(0);
    let items = AtomicUsize::new(0);
    // One list per payout, many at once: in the background lane, so the long page chains
    // (charges, customers, ...) never queue behind them.
    let fan_out = client.background();
    let fetched: Vec<Vec<BalanceTxnRow>> = client
        .map_concurrent(to_fetch.iter().copied(), |id| {
            let (done, items, fan_out) = (&done, &items, &fan_out);
            async move {
                let query = params([("payout", id)]);
                let txns: Vec<BalanceTransaction> =
                    fan_out.list_all("/v1/balance_transactions", &query).await?;
                let payout = PayoutId::from(id);
                let rows: Vec<BalanceTxnRow> = txns
                    .iter()
                    .map(|t| crate::source::from_wire::balance_txn_row(t, Some(&payout)))
                    .collect();
                let items = items.fetch_add(rows.len(), Ordering::Relaxed) + rows.len();
                progress.event(SyncEvent::Fetched {
                    part: Part::BalanceTransactions,
                    done: done.fetch_add(1, Ordering::Relaxed) + 1,
                    total,
                    items,
                });
                Ok(rows)
            }
        })
        .await?;
    let mut fetched: HashMap<&str, Vec<BalanceTxnRow>> =
        to_fetch.iter().copied().zip(fetched).collect();

    // Lines in the payouts' order, each payout's lines in Stripe's order.
    let mut lines = Vec::new();
    for p in &payouts {
        if let Some(l) = reused.remove(p.id.as_str()) {
            lines.extend(l);
        } else if let Some(l) = fetched.remove(p.id.as_str()) {
            lines.extend(l);
        }
    }
    Ok(PayoutPart {
        payouts,
        lines,
        reused_payouts,
        reused_lines,
    })
}
