//! The client's changes of pace (a 429 slowing it, the rate won back) passed on to a
//! read's progress while it runs, so the bars say "rate-limited, slowing to N req/s"
//! instead of going quiet.

use super::*;

/// Runs `work`, reporting every change of `client`'s pace to `progress` meanwhile.
pub(super) async fn with_pace<T>(
    client: &Client,
    progress: &dyn Progress,
    work: impl std::future::Future<Output = T>,
) -> T {
    let mut reports = client.pace_reports();
    let forward = async {
        while reports.changed().await.is_ok() {
            let r = *reports.borrow_and_update();
            progress.event(SyncEvent::Paced {
                per_second: whole(r.per_second.floor()),
                budget: whole(r.budget.round()),
                rate_limited: r.rate_limited,
            });
        }
        std::future::pending::<T>().await
    };
    tokio::select! {
        out = work => out,
        out = forward => out,
    }
}

/// A rate as whole req/s (rates are small and non-negative; anything else reads 0).
fn whole(rate: f64) -> u32 {
    if rate.is_finite() && rate >= 0.0 && rate <= f64::from(u32::MAX) {
        rate as u32
    } else {
        0
    }
}
