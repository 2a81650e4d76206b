//! Reading the account from Stripe into [`AccountData`]: what `tieout sync` stores in the
//! cache and what a fresh headless command reads.
//!
//! # What is read (every list with `limit=100`, following `starting_after`)
//!
//! - `GET /v1/account` once, for the account id and name (a restricted key may be refused:
//!   the id is then taken from Stripe's 403 message or `--stripe-account`).
//! - Payouts with `arrival_date[gte]`/`[lt]` over the window (default: the current month
//!   and the two before, in `--tz`), then for each payout that is `automatic`, not
//!   `instant`, and `reconciliation_status=completed`:
//!   `GET /v1/balance_transactions?payout=po_...` (all pages), concurrently. Manual and
//!   instant payouts are never itemised (Stripe answers 400 for them).
//! - Invoices: `status=open` with `expand[]=data.payments`, and `status=uncollectible`.
//!   For each open invoice with a failed attempt (`attempted` and `attempt_count >= 1`,
//!   or, `charge_automatically` only, its default payment is `open` with a PaymentIntent;
//!   see [`failing_payment_intent`]):
//!   `GET /v1/payment_intents/pi_...?expand[]=latest_charge`, concurrently. When an
//!   invoice's expanded `payments` list says `has_more`:
//!   `GET /v1/invoice_payments?invoice=in_...` (all pages).
//! - Customers, charges (`created[gte]` 13 months back, so a year of refund patterns is
//!   visible), refunds, disputes and subscriptions (`status=all`): full lists.
//! - Active subscriptions with their payment methods expanded, for the cards ([`cards`]).
//! - Early fraud warnings since the charges' start ([`fraud`]; a 403 is recorded).
//!
//! # Using the rate budget to the full
//!
//! The independent lists run concurrently, and so do the fan-outs (the lines of
//! [`Client::in_flight`] payouts at once, as many payment intents), each fan-out
//! slot refilled as soon as any of its reads finishes. The client's shared rate limiter
//! keeps the total under the budget, so concurrency only removes idle waiting: with
//! Stripe's latency (150 ms and more a request) one chain of pages alone reaches only
//! ~6 req/s. The fan-outs wait in the limiter's background lane and the page chains in
//! the foreground: a chain's next page takes the next free slot, the fan-outs fill
//! every other one. Without the lanes a long chain (13 months of charges: hundreds of
//! pages on a large account) gets only its share of a crowded queue, finishes last and
//! leaves the end of the sync at one chain's speed. Results are put back in a fixed order (payouts
//! and invoices in Stripe's order, each payout's lines in Stripe's order), so the cache
//! is the same bytes whatever order the answers arrived in.
//!
//! # Resuming, and back-pressure
//!
//! A [`sync`] keeps every answer it reads in a journal beside the cache
//! ([`journal`]); killed at any point and started again, it replays what it had and reads
//! from Stripe only the rest, and the journal goes once the new cache generation is
//! saved. A 429 slows the client ([`crate::stripe::pace`]); the progress hears of it as
//! [`SyncEvent::Paced`].
//!
//! # Request count (the dunning strategy's cost)
//!
//! With `O` open invoices, `U` uncollectible ones and `F` failing ones among the open:
//! `ceil(O/100) + ceil(U/100) + F` requests (plus one `invoice_payments` list per invoice
//! with more payments than the expanded handful, which is rare). The decline of each
//! failing invoice needs its PaymentIntent (`last_payment_error`: code, decline code,
//! advice code) and the failed charge's `outcome` (reason, network status); one GET with
//! `expand[]=latest_charge` returns both. Expanding them from the invoice list instead
//! would need `data.payments.data.payment.payment_intent.latest_charge`, six levels where
//! Stripe allows four, so one request per failing invoice is the minimum; it is also
//! what keeps the read allocation low: no request is made for an invoice that has not
//! failed. Payouts cost `ceil(P/100)` plus, per itemisable payout, `ceil((lines+1)/100)`.
//!
//! # Refresh rule (a later sync)
//!
//! A payout whose status is final (`paid`, `failed` or `canceled`) with
//! `reconciliation_status=completed`, and whose lines the previous sync fetched while it
//! already had that same status, cannot gain or lose lines: Stripe itemises a payout once
//! its reconciliation completes, and those balance transactions are immutable. Its lines
//! are kept from the cache and not fetched again. Everything else is fetched again on
//! every sync: the payouts list itself (cheap: 100 per request, and a `paid` payout can
//! still turn `failed`), payouts still `pending`/`in_transit` or in reconciliation, open
//! invoices and their payment intents, charges (they can be refunded or disputed later),
//! refunds, disputes, customers and subscriptions. A payout whose status changed since
//! the cache has its lines fetched again.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};

use futures::TryStreamExt;
use serde::de::DeserializeOwned;

use crate::source::cache::{Cache, CacheError, ProfilePointer, Saved};
use crate::source::progress::{Part, Progress, SyncEvent};
use crate::source::tables::{Snapshot, TableError};
use crate::stripe::models::{
    BalanceTransaction, Charge, Customer, Dispute, Expandable, HasId, Invoice, InvoicePayment,
    InvoiceStatus, PaymentIntent, Payout, PayoutStatus, ReconciliationStatus, Refund, Subscription,
};
use crate::stripe::query::params;
use crate::stripe::{Client, RequestStats, StripeError};
use tieout_core::model::rows::{
    BalanceTxnRow, ChargeRow, CustomerRow, DisputeRow, InvoicePaymentRow, InvoiceRow,
    PaymentIntentRow, PayoutId, PayoutRow, RefundRow, StripeId, SubscriptionRow,
};
use tieout_core::model::{AccountData, Mode, Origin, SnapshotMeta};

mod balance;
mod cards;
mod expanding;
mod fraud;
mod options;
pub use options::SyncOptions;
mod invoices;
pub mod journal;
mod paced;
pub mod partial;
mod payouts;
pub mod refresh;
pub use invoices::failing_payment_intent;
use invoices::*;
use paced::with_pace;
use payouts::*;
pub use payouts::{itemisable, settled};
pub use refresh::{FreshHow, How, read_fresh_refreshing, sync_incremental};
/// The vocabulary of what a read is made of lives in the core crate
/// (`tieout_core::model::resource`); named here too while the shells move to it.
use tieout_core::model::{AccountIdent, Resource};

/// How many months of charges a sync reads, counting back from the current one.
pub const CHARGE_MONTHS: u32 = 13;

/// How many months before the current one a sync reads paid and void invoices from: the
/// recovery picture's default six months of failures, and the month before them in which
/// an invoice that first failed at the window's start may have been created.
pub const SETTLED_MONTHS: u32 = 6;

/// The id used when neither Stripe nor the command line names the account.
pub const UNKNOWN_ACCOUNT: &str = "acct_unknown";

/// Which account the client reads ([`crate::stripe::account::identify`]); when a
/// restricted key may not read it, `--stripe-account`, else the id Stripe's refusal
/// names, else [`UNKNOWN_ACCOUNT`]. A bad key fails here, before anything else is read.
pub async fn identify(
    client: &Client,
    stripe_account: Option<&str>,
) -> Result<AccountIdent, StripeError> {
    let found = crate::stripe::account::identify(client).await?;
    let named = stripe_account.map(str::to_string);
    let id = if found.refused {
        named.or(found.id)
    } else {
        found.id.or(named)
    }
    .unwrap_or_else(|| UNKNOWN_ACCOUNT.to_string());
    if found.refused {
        tracing::info!(%id, "GET /v1/account refused to this key; using the id named elsewhere");
    }
    Ok(AccountIdent {
        id,
        name: found.name,
        default_currency: found.default_currency,
    })
}

/// What [`fetch`] read.
#[derive(Debug, Clone, PartialEq)]
pub struct Fetched {
    pub data: AccountData,
    /// Settled payouts whose lines were kept from the previous sync.
    pub reused_payouts: usize,
    pub reused_lines: usize,
}

async fn list_with<T>(
    client: &Client,
    path: &str,
    query: Vec<(String, String)>,
    part: Part,
    progress: &dyn Progress,
) -> Result<Vec<T>, StripeError>
where
    T: DeserializeOwned + HasId + Send + 'static,
{
    let mut stream = client.list::<T>(path, &query);
    let mut out = Vec::new();
    while let Some(item) = stream.try_next().await? {
        out.push(item);
        if out.len().is_multiple_of(100) {
            progress.event(SyncEvent::Listing {
                part,
                count: out.len(),
            });
        }
    }
    progress.event(SyncEvent::Listed {
        part,
        count: out.len(),
    });
    Ok(out)
}

async fn maybe<T, F>(wanted: bool, fut: F) -> Result<Vec<T>, StripeError>
where
    F: std::future::Future<Output = Result<Vec<T>, StripeError>>,
{
    if wanted { fut.await } else { Ok(Vec::new()) }
}

/// Reads what `opts` asks for. `previous` (the cache of the same account and mode) lends
/// the lines of settled payouts (see the module docs); nothing else is taken from it.
/// The first resource that could not be read fails the whole read.
pub async fn fetch(
    client: &Client,
    account: &AccountIdent,
    opts: &SyncOptions,
    previous: Option<&AccountData>,
    progress: &dyn Progress,
) -> Result<Fetched, StripeError> {
    let (fetched, failed) = fetch_each(client, account, opts, previous, progress).await;
    match failed.into_iter().find(|(r, _)| !opts.best_effort.has(*r)) {
        Some((_, e)) => Err(e),
        None => Ok(fetched),
    }
}

/// Reads what `opts` asks for, each [`Resource`] on its own: what could be read is in
/// the data (the others' tables empty), and each resource that could not be read is
/// returned with its error (a missing permission, a failure after retries), in
/// [`Resource::ALL`] order.
pub async fn fetch_each(
    client: &Client,
    account: &AccountIdent,
    opts: &SyncOptions,
    previous: Option<&AccountData>,
    progress: &dyn Progress,
) -> (Fetched, Vec<(Resource, StripeError)>) {
    let parts = opts.parts;
    let charges_q = params([("created[gte]", opts.charges_since.to_string())]);
    let (payouts, invoices, customers, charges, refunds, disputes, subscriptions, cards, warnings) = futures::join!(
        async {
            if parts.payouts {
                futures::try_join!(
                    fetch_payouts(client, opts, previous, progress),
                    balance::fetch(client, opts, progress),
                )
                .map(Some)
            } else {
                Ok(None)
            }
        },
        async {
            if parts.invoices {
                fetch_invoices(client, opts.settled_invoices_since, progress)
                    .await
                    .map(Some)
            } else {
                Ok(None)
            }
        },
        maybe(
            parts.customers,
            expanding::list_expanding::<Customer>(
                client,
                Resource::Customers.list_path(),
                &[],
                &[CUSTOMER_DEFAULT_METHOD],
                Part::Customers,
                progress
            )
        ),
        maybe(
            parts.charges,
            list_with::<Charge>(
                client,
                Resource::Charges.list_path(),
                charges_q,
                Part::Charges,
                progress
            )
        ),
        maybe(
            parts.refunds,
            list_with::<Refund>(
                client,
                Resource::Refunds.list_path(),
                Vec::new(),
                Part::Refunds,
                progress
            )
        ),
        maybe(
            parts.disputes,
            list_with::<Dispute>(
                client,
                Resource::Disputes.list_path(),
                Vec::new(),
                Part::Disputes,
                progress
            )
        ),
        maybe(
            parts.subscriptions,
            list_with::<Subscription>(
                client,
                Resource::Subscriptions.list_path(),
                params([("status", "all")]),
                Part::Subscriptions,
                progress
            )
        ),
        cards::fetch(client, parts.payment_methods, progress),
        fraud::fetch(client, parts.fraud_warnings, opts.charges_since, progress),
    );
    let mut failed: Vec<(Resource, StripeError)> = Vec::new();
    let payouts = keep(Resource::Payouts, payouts, &mut failed);
    let invoices = keep(Resource::Invoices, invoices, &mut failed);
    let customers = keep(Resource::Customers, customers, &mut failed);
    let charges = keep(Resource::Charges, charges, &mut failed);
    let refunds = keep(Resource::Refunds, refunds, &mut failed);
    let disputes = keep(Resource::Disputes, disputes, &mut failed);
    let subscriptions = keep(Resource::Subscriptions, subscriptions, &mut failed);
    let (renewal_methods, cards_read) = cards::methods_read(cards, &mut failed);
    let (fraud_warnings, warnings_read) = fraud::warnings_read(warnings, &mut failed);
    let failed_read = |r: Resource| failed.iter().any(|(f, _)| *f == r);

    // A window is recorded only when the payouts in it were read.
    let window = if parts.payouts && payouts.is_some() {
        opts.window
    } else {
        (0, 0)
    };
    let mut data = AccountData::empty(SnapshotMeta {
        account_id: account.id.clone(),
        account_name: account.name.clone(),
        mode: client.key().mode(),
        origin: Origin::Live,
        api_version: crate::stripe::API_VERSION.to_string(),
        fetched_at: opts.now,
        window_start: window.0,
        window_end: window.1,
        default_currency: account.default_currency,
        payment_methods: cards_read,
        // How failures ended needs both the settled invoices and the charges since then.
        settled_invoices_since: opts
            .settled_invoices_since
            .filter(|_| invoices.is_some() && parts.charges && !failed_read(Resource::Charges))
            .map(|t| t.max(opts.charges_since)),
        balance: None,
        lines_complete: false,
        lines_since: None,
        fraud_warnings: warnings_read,
    });
    let (mut reused_payouts, mut reused_lines) = (0, 0);
    if let Some((p, b)) = payouts {
        data.payouts = p.payouts;
        data.balance_transactions = match &b.all_lines {
            Some(all) => balance::merge_lines(p.lines, all),
            None => p.lines,
        };
        data.meta.balance = b.balance;
        data.meta.lines_complete = b.all_lines.is_some() && b.lines_since.is_none();
        data.meta.lines_since = b.lines_since.filter(|_| b.all_lines.is_some());
        reused_payouts = p.reused_payouts;
        reused_lines = p.reused_lines;
    }
    data.charges = charges.iter().map(ChargeRow::from).collect();
    let (mut invoice_customers, mut invoice_subscriptions) = (Vec::new(), Vec::new());
    if let Some(inv) = invoices {
        data.invoices = inv.invoices;
        data.invoice_payments = inv.payments;
        data.payment_intents = inv.intents;
        // The failed charges behind the worklist, unless the charges list has them.
        let known: HashSet<StripeId> = data.charges.iter().map(|c| c.id.clone()).collect();
        let mut added = HashSet::new();
        for c in inv.charges {
            if !known.contains(&c.id) && added.insert(c.id.clone()) {
                data.charges.push(c);
            }
        }
        invoice_customers = inv.customers;
        invoice_subscriptions = inv.subscriptions;
    }
    // The open invoices' own customers and subscriptions stand in for the lists when those
    // were not read (the worklist's wrong card).
    data.customers = if parts.customers {
        customers.iter().map(CustomerRow::from).collect()
    } else {
        invoice_customers
    };
    data.refunds = refunds.iter().map(RefundRow::from).collect();
    data.disputes = disputes.iter().map(DisputeRow::from).collect();
    data.subscriptions = if parts.subscriptions {
        subscriptions.iter().map(SubscriptionRow::from).collect()
    } else {
        invoice_subscriptions
    };
    data.renewal_methods = renewal_methods;
    data.fraud_warnings = fraud_warnings;
    failed.sort_by_key(|(r, _)| *r);
    (
        Fetched {
            data,
            reused_payouts,
            reused_lines,
        },
        failed,
    )
}

/// What was read of a resource; nothing (its default, and the error noted) otherwise.
fn keep<T: Default>(
    r: Resource,
    read: Result<T, StripeError>,
    failed: &mut Vec<(Resource, StripeError)>,
) -> T {
    read.unwrap_or_else(|e| {
        failed.push((r, e));
        T::default()
    })
}

/// A fresh read for a command: identifies the account, then reads what `opts` asks for,
/// taking settled payouts' lines from `cache` when it holds this account (an unreadable
/// cache is ignored: everything is then read). Nothing is written.
pub async fn read_fresh(
    client: &Client,
    stripe_account: Option<&str>,
    opts: &SyncOptions,
    cache: Option<&Cache>,
    progress: &dyn Progress,
) -> Result<Fetched, StripeError> {
    let account = identify(client, stripe_account).await?;
    read_fresh_for(client, &account, opts, cache, progress).await
}

/// [`read_fresh`] for an account already identified.
pub(crate) async fn read_fresh_for(
    client: &Client,
    account: &AccountIdent,
    opts: &SyncOptions,
    cache: Option<&Cache>,
    progress: &dyn Progress,
) -> Result<Fetched, StripeError> {
    let previous = (cache.filter(|_| opts.parts.payouts))
        .and_then(|c| c.load(&account.id, client.key().mode()).ok())
        .and_then(|s| s.to_data().ok());
    let read = fetch(client, account, opts, previous.as_ref(), progress);
    with_pace(client, progress, read).await
}

/// Why a sync failed. The cache is untouched in every case.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error(transparent)]
    Stripe(#[from] StripeError),
    #[error(transparent)]
    Cache(#[from] CacheError),
    #[error("the data read could not be tabulated: {0}")]
    Table(#[from] TableError),
}

impl SyncError {
    /// The exit code class: Stripe's own (key 3, Stripe 4), cache problems 1, data 5.
    pub fn fail_kind(&self) -> tieout_core::failure::FailKind {
        match self {
            SyncError::Stripe(e) => e.fail_kind(),
            SyncError::Cache(_) => tieout_core::failure::FailKind::Other,
            SyncError::Table(_) => tieout_core::failure::FailKind::Data,
        }
    }
}

impl From<SyncError> for tieout_core::failure::Failure {
    fn from(e: SyncError) -> Self {
        tieout_core::failure::Failure::new(e.fail_kind(), e.to_string())
    }
}

/// What a sync did.
#[derive(Debug, Clone)]
pub struct SyncReport {
    pub data: AccountData,
    pub saved: Saved,
    /// Requests this sync sent (retries included).
    pub stats: RequestStats,
    pub reused_payouts: usize,
    pub reused_lines: usize,
    /// The previous cache could not be read (it was rebuilt from scratch).
    pub previous_problem: Option<String>,
}

/// A full sync: identifies the account, reads it (keeping settled payouts' lines from
/// the previous cache), saves the new cache generation and points `profile` at it.
/// Nothing is written unless everything was read. `tieout sync` goes through
/// [`sync_incremental`], which refreshes from the events when it can.
pub async fn sync(
    client: &Client,
    stripe_account: Option<&str>,
    opts: &SyncOptions,
    cache: &Cache,
    profile: &str,
    progress: &dyn Progress,
) -> Result<SyncReport, SyncError> {
    let before = client.stats();
    let account = identify(client, stripe_account).await?;
    progress.event(SyncEvent::Listed {
        part: Part::Account,
        count: 1,
    });
    let start = Start {
        before,
        cursor: None,
    };
    sync_as(client, &account, opts, cache, profile, progress, start).await
}

/// Where a full sync starts: the client's counters, and the event cursor its snapshot
/// records (read before anything else, [`refresh::events_head`]; `None`: none recorded).
struct Start {
    before: RequestStats,
    cursor: Option<tieout_core::model::events::EventCursor>,
}

/// [`sync`] of an account already identified, from `start`.
async fn sync_as(
    client: &Client,
    account: &AccountIdent,
    opts: &SyncOptions,
    cache: &Cache,
    profile: &str,
    progress: &dyn Progress,
    start: Start,
) -> Result<SyncReport, SyncError> {
    let mode = client.key().mode();
    let (previous, previous_problem) = match cache.load(&account.id, mode) {
        Ok(snap) => match snap.to_data() {
            Ok(d) => (Some(d), None),
            Err(e) => (None, Some(e.to_string())),
        },
        Err(CacheError::Missing { .. }) => (None, None),
        Err(e) => (None, Some(e.to_string())),
    };
    let journal = open_journal(cache, account, mode, opts, progress);
    let reader = match &journal {
        Some(j) => client.with_journal(j.clone()),
        None => client.clone(),
    };
    let read = fetch(&reader, account, opts, previous.as_ref(), progress);
    let fetched = with_pace(client, progress, read).await?;
    let saved = refresh::save_snapshot(cache, profile, &fetched.data, opts.now, start.cursor)
        .map_err(|e| *e)?;
    if let Some(j) = &journal {
        j.finish();
    }
    let after = client.stats();
    Ok(SyncReport {
        data: fetched.data,
        saved,
        stats: stats_since(&start.before, &after),
        reused_payouts: fetched.reused_payouts,
        reused_lines: fetched.reused_lines,
        previous_problem,
    })
}

/// The journal that lets this sync resume (an interrupted one's, or a new one); without
/// one (the folder cannot be written) the sync still runs, it just cannot resume.
fn open_journal(
    cache: &Cache,
    account: &AccountIdent,
    mode: Mode,
    opts: &SyncOptions,
    progress: &dyn Progress,
) -> Option<std::sync::Arc<journal::DiskJournal>> {
    match journal::DiskJournal::open(cache, &account.id, mode, opts) {
        Ok(j) => {
            if j.resumed() > 0 {
                progress.event(SyncEvent::Resumed { pages: j.resumed() });
            }
            Some(j)
        }
        Err(e) => {
            tracing::warn!(error = %e, "no sync journal: an interrupted sync will start again");
            None
        }
    }
}

/// The requests sent between two readings of a client's counters.
pub fn stats_since(before: &RequestStats, after: &RequestStats) -> RequestStats {
    let mut by_endpoint = after.by_endpoint.clone();
    for (k, v) in &before.by_endpoint {
        if let Some(n) = by_endpoint.get_mut(k) {
            *n = n.saturating_sub(*v);
        }
    }
    by_endpoint.retain(|_, n| *n > 0);
    RequestStats {
        requests: after.requests.saturating_sub(before.requests),
        retries: after.retries.saturating_sub(before.retries),
        rate_limited: after.rate_limited.saturating_sub(before.rate_limited),
        replayed: after.replayed.saturating_sub(before.replayed),
        by_endpoint,
    }
}

/// The blocking entry point for the CLI: the process's one runtime. Resolve the key
/// before calling this (keychain access must stay outside a tokio runtime).
pub use crate::stripe::blocking::block_on;

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::tz::TimeZone;
    use tieout_core::money::Currency;
    use tieout_core::time::Month;

    fn payout(status: PayoutStatus, recon: ReconciliationStatus, automatic: bool) -> PayoutRow {
        PayoutRow {
            id: "po_1".into(),
            amount: 100,
            currency: Currency::USD,
            arrival_date: 0,
            created: 0,
            status,
            automatic,
            method: "standard".into(),
            reconciliation_status: recon,
            failure_code: None,
            failure_message: None,
            balance_transaction: None,
            failure_balance_transaction: None,
            description: None,
            statement_descriptor: None,
            original_payout: None,
            reversed_by: None,
            trace_id: None,
            trace_id_status: None,
        }
    }

    #[test]
    fn only_automatic_completed_standard_payouts_are_itemised() {
        use PayoutStatus as S;
        use ReconciliationStatus as R;
        assert!(itemisable(&payout(S::Paid, R::Completed, true)));
        assert!(!itemisable(&payout(S::Paid, R::Completed, false)));
        assert!(!itemisable(&payout(S::Paid, R::InProgress, true)));
        let mut instant = payout(S::Paid, R::Completed, true);
        instant.method = "instant".into();
        assert!(!itemisable(&instant));
        assert!(settled(&payout(S::Paid, R::Completed, true)));
        assert!(settled(&payout(S::Failed, R::Completed, true)));
        assert!(!settled(&payout(S::InTransit, R::Completed, true)));
        assert!(!settled(&payout(S::Pending, R::Completed, true)));
    }

    #[test]
    fn windows_follow_calendar_months_in_the_zone() {
        let tz = TimeZone::UTC;
        let now = tieout_core::time::parse_instant("2026-11-30T12:00:00Z").expect("now");
        let o = SyncOptions::for_months(now, &tz, 3);
        assert_eq!(
            tieout_core::time::iso_utc(o.window.0),
            "2026-09-01T00:00:00Z"
        );
        assert_eq!(
            tieout_core::time::iso_utc(o.window.1),
            "2026-12-01T00:00:00Z"
        );
        assert_eq!(
            tieout_core::time::iso_utc(o.charges_since),
            "2025-10-01T00:00:00Z"
        );
        let one = SyncOptions::for_months(now, &tz, 1);
        assert_eq!(
            tieout_core::time::iso_utc(one.window.0),
            "2026-11-01T00:00:00Z"
        );
        let zero = SyncOptions::for_months(now, &tz, 0);
        assert_eq!(zero.window, one.window);
        let m: Month = "2026-10".parse().expect("month");
        let o = SyncOptions::for_month(now, &tz, m);
        assert!(o.parts.payouts && !o.parts.invoices && !o.parts.charges);
        assert_eq!(
            tieout_core::time::iso_utc(o.window.1),
            "2026-11-01T00:00:00Z"
        );
    }

    fn inv(attempted: bool, count: i64) -> InvoiceRow {
        InvoiceRow {
            id: "in_1".into(),
            number: None,
            customer: None,
            customer_email: None,
            customer_name: None,
            status: InvoiceStatus::Open,
            collection_method: Some("charge_automatically".into()),
            currency: Currency::USD,
            amount_due: 100,
            amount_paid: 0,
            amount_remaining: 100,
            attempt_count: count,
            attempted,
            next_payment_attempt: None,
            due_date: None,
            created: 0,
            subscription: None,
            hosted_invoice_url: None,
            billing_reason: None,
            legacy_payment_intent: None,
            legacy_charge: None,
            status_transitions: Default::default(),
            amount_paid_off_stripe: 0,
        }
    }

    fn pay(
        id: &str,
        pi: Option<&str>,
        default: bool,
        status: &str,
        created: i64,
    ) -> InvoicePaymentRow {
        InvoicePaymentRow {
            id: id.into(),
            invoice: "in_1".into(),
            payment_intent: pi.map(Into::into),
            charge: None,
            status: status.into(),
            is_default: default,
            amount_requested: 100,
            amount_paid: None,
            currency: Currency::USD,
            created,
            payment_type: None,
            paid_at: None,
        }
    }

    #[test]
    fn failing_invoices_name_the_payment_intent_to_read() {
        let default = pay("inpay_1", Some("pi_default"), true, "open", 1);
        let newer = pay("inpay_2", Some("pi_newer"), false, "canceled", 5);
        // Attempted and failed: the default payment's intent.
        assert_eq!(
            failing_payment_intent(&inv(true, 2), &[&newer, &default]).as_deref(),
            Some("pi_default")
        );
        // Not attempted, but the default payment is open with an intent.
        assert_eq!(
            failing_payment_intent(&inv(false, 0), &[&default]).as_deref(),
            Some("pi_default")
        );
        // Not attempted and no open default: not failing, no request.
        assert_eq!(failing_payment_intent(&inv(false, 0), &[&newer]), None);
        // A send_invoice invoice nobody tried to pay: its open intent has no error.
        let mut sent = inv(false, 0);
        sent.collection_method = Some("send_invoice".into());
        assert_eq!(failing_payment_intent(&sent, &[&default]), None);
        // Once the customer's attempt failed, it is read.
        sent.attempted = true;
        sent.attempt_count = 1;
        assert_eq!(
            failing_payment_intent(&sent, &[&default]).as_deref(),
            Some("pi_default")
        );
        // Attempted without a default: the newest payment with an intent.
        assert_eq!(
            failing_payment_intent(&inv(true, 1), &[&newer]).as_deref(),
            Some("pi_newer")
        );
        // Pre-basil shape: the invoice's own payment_intent.
        let mut old = inv(true, 1);
        old.legacy_payment_intent = Some("pi_legacy".into());
        assert_eq!(
            failing_payment_intent(&old, &[]).as_deref(),
            Some("pi_legacy")
        );
        // Only open invoices are worked.
        let mut paid = inv(true, 3);
        paid.status = InvoiceStatus::Paid;
        assert_eq!(failing_payment_intent(&paid, &[&default]), None);
    }

    #[test]
    fn stats_since_subtracts_counters() {
        let mut before = RequestStats {
            requests: 3,
            ..RequestStats::default()
        };
        before.by_endpoint.insert("/v1/payouts".into(), 3);
        let mut after = before.clone();
        after.requests = 10;
        after.retries = 1;
        after.by_endpoint.insert("/v1/payouts".into(), 4);
        after.by_endpoint.insert("/v1/charges".into(), 6);
        let d = stats_since(&before, &after);
        assert_eq!(d.requests, 7);
        assert_eq!(d.retries, 1);
        assert_eq!(d.by_endpoint.get("/v1/payouts"), Some(&1));
        assert_eq!(d.by_endpoint.get("/v1/charges"), Some(&6));
    }
}
