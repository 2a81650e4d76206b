//! Picks where a command's data comes from and loads it: the bundled demo (`--demo`), the
//! local cache (`--cached`), or fresh from Stripe, reading only what the command needs.
//!
//! The fresh path resolves the key first (env or keychain, outside any async runtime:
//! the Secret Service store panics inside one), then reads on a small runtime of its own
//! with progress on stderr. Lines of settled payouts are taken from the cache when one
//! exists for the account (they cannot change; see `source::sync`); everything else is
//! read fresh, so an invoice paid overnight is gone from the worklist.
//!
//! The morning `tieout dunning` reads only what changed: when the account has a complete
//! cache with an event cursor a refresh may follow (the conditions of `tieout sync`), its
//! fresh read is that refresh, saved as a sync saves it, and the worklist is built from
//! the refreshed snapshot; otherwise it reads its own part fresh and says why on stderr.

use jiff::tz::TimeZone;

use super::ReadRequest;
use crate::app::run_history::CachedLookup;
use crate::failure::{FailKind, Failure};
use crate::model::{AccountData, Parts, Table};
use crate::source::cache::{Cache, CacheError, Generation};
use crate::source::progress::StderrProgress;
use crate::source::sync::{self, SyncOptions};
use crate::stripe::StripeError;
use crate::time::Month;

/// How many months of payouts a fresh read of everything covers (as `tieout sync`).
pub const DEFAULT_MONTHS: u32 = 3;

/// What a command needs from the account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// The payouts arriving in the month (in `--tz`) and their lines; nothing else.
    Month(Month),
    /// Open and uncollectible invoices, their payments and failing payment intents (with
    /// the failed charges), and the payment methods active subscriptions renew with
    /// (cards that will fail).
    Dunning,
    /// Customers, charges, refunds, disputes, subscriptions (and the rest: everything).
    Refunds,
    /// The recovery picture of the failures since the instant (unix seconds): invoices
    /// with their payments and payment intents, the charges since then (failed and
    /// succeeded, with their payment methods), customers and subscriptions.
    Recovery(i64),
    /// The early fraud warnings queue: the warnings, the charges (13 months back) and
    /// disputes that say whether each is still to decide, the customers, and in a cache
    /// the balance lines a charge's fee may come from.
    FraudWarnings,
    /// Everything a sync reads.
    All,
    /// Everything the close packet of the month needs: what `All` reads, with the payouts
    /// (and their lines) of that month, however long ago it was, and the charges back to
    /// it; the month need not be in the cache's window.
    Close(Month),
    /// The balance roll-forward of the month: the payouts of the month and the next with
    /// their lines, Stripe's balance now and every balance transaction of the account
    /// (paid out or not, back to the first), so the opening is summed and checked; the
    /// charges and refunds, for what a converted line presented.
    Balance(Month),
}

impl Need {
    /// Whether a cached load for this need reads `table`; the others stay empty.
    pub fn reads(&self, table: Table) -> bool {
        match self {
            Need::Month(_) => matches!(table, Table::Payouts | Table::BalanceTransactions),
            Need::Balance(_) => matches!(
                table,
                Table::Payouts | Table::BalanceTransactions | Table::Charges | Table::Refunds
            ),
            Need::Dunning => crate::domain::dunning::READS.contains(&table),
            Need::Recovery(_) => crate::domain::recovery::READS.contains(&table),
            Need::FraudWarnings => matches!(
                table,
                Table::FraudWarnings
                    | Table::Charges
                    | Table::Disputes
                    | Table::Customers
                    | Table::BalanceTransactions
            ),
            Need::Refunds | Need::All | Need::Close(_) => true,
        }
    }

    /// The reads a fresh load makes for this need.
    pub fn options(&self, now: i64, tz: &TimeZone) -> SyncOptions {
        match self {
            Need::Month(m) => SyncOptions::for_month(now, tz, *m),
            Need::Dunning => {
                let mut o = SyncOptions::for_months(now, tz, DEFAULT_MONTHS);
                // And how last month's failures ended, for the morning line: the paid and
                // void invoices and the charges since the month before it. The charges
                // are best effort: a key without the charge permission still gets the
                // worklist, without the line.
                let since = crate::domain::recovery::Window::ending_at(now, 2, tz).reads_from;
                o.parts = Parts {
                    invoices: true,
                    charges: true,
                    payment_methods: true,
                    ..Parts::none()
                };
                o.charges_since = since;
                o.settled_invoices_since = Some(since);
                o.best_effort = Parts {
                    charges: true,
                    ..Parts::none()
                };
                o
            }
            Need::Recovery(since) => {
                let mut o = SyncOptions::for_months(now, tz, DEFAULT_MONTHS);
                o.parts = Parts {
                    invoices: true,
                    customers: true,
                    charges: true,
                    subscriptions: true,
                    ..Parts::none()
                };
                o.charges_since = *since;
                o.settled_invoices_since = Some(*since);
                o
            }
            Need::Refunds => {
                let mut o = SyncOptions::for_months(now, tz, DEFAULT_MONTHS);
                o.settled_invoices_since = None;
                o
            }
            Need::FraudWarnings => {
                let mut o = SyncOptions::for_months(now, tz, DEFAULT_MONTHS);
                o.parts = Parts {
                    fraud_warnings: true,
                    charges: true,
                    disputes: true,
                    ..Parts::none()
                };
                o.settled_invoices_since = None;
                o
            }
            Need::All => SyncOptions::for_months(now, tz, DEFAULT_MONTHS),
            Need::Close(m) => {
                let mut o = SyncOptions::for_months(now, tz, DEFAULT_MONTHS);
                // And the next month's payouts: the journal accrues the lines they pay out.
                o.window = (m.range(tz).0, m.next().range(tz).1);
                o.charges_since = o.charges_since.min(o.window.0);
                // Every line since the month's start, paid out or not: its roll-forward.
                o.lines_since = Some(o.window.0);
                o.settled_invoices_since = None;
                o
            }
            Need::Balance(m) => {
                let mut o = Need::Close(*m).options(now, tz);
                o.parts = Parts {
                    payouts: true,
                    charges: true,
                    refunds: true,
                    ..Parts::none()
                };
                o.all_lines = true;
                o
            }
        }
    }

    /// Whether a fresh read for this need refreshes the cache from the account's events
    /// when it can (the morning `tieout dunning`), rather than reading its own part.
    fn follows_events(&self) -> bool {
        matches!(self, Need::Dunning)
    }

    /// The month whose payouts this need reads, whatever the cache holds.
    fn month(&self) -> Option<Month> {
        match self {
            Need::Month(m) | Need::Close(m) | Need::Balance(m) => Some(*m),
            _ => None,
        }
    }
}

/// The data `need` requires, from the demo, the cache or Stripe as the flags say.
pub fn load(ctx: &ReadRequest, need: Need) -> Result<AccountData, Failure> {
    if ctx.demo {
        return load_demo();
    }
    if ctx.cached {
        let cache = Cache::open_default().map_err(cache_failure)?;
        return load_cached(&cache, &ctx.profile, need, &ctx.tz);
    }
    load_fresh(ctx, need)
}

fn load_demo() -> Result<AccountData, Failure> {
    crate::source::demo::load_demo()
        .map_err(|e| Failure::data(format!("the bundled demo account could not be read: {e}")))
}

/// A cache problem as a command failure (unreadable data: 5; `--cached` with no cache
/// yet: 2, the user asked for something to run `tieout sync` for first; anything else: 1).
pub fn cache_failure(e: CacheError) -> Failure {
    let kind = match e {
        CacheError::Unreadable { .. } => FailKind::Data,
        CacheError::Missing { .. } => FailKind::Usage,
        _ => FailKind::Other,
    };
    Failure::new(kind, e.to_string())
}

/// A Stripe error as a command failure: 3 for key problems, 4 for Stripe or network.
pub fn stripe_failure(e: StripeError) -> Failure {
    Failure::new(e.fail_kind(), e.to_string())
}

/// The cache of the account `profile` last synced.
pub fn load_cached(
    cache: &Cache,
    profile: &str,
    need: Need,
    tz: &TimeZone,
) -> Result<AccountData, Failure> {
    let data = cached_generation(cache, profile)?
        .load_data(&|t| need.reads(t))
        .map_err(cache_failure)?;
    if let Some(m) = need.month()
        && !covers(&data.meta, m, tz)
    {
        let (have_start, have_end) = (data.meta.window_start, data.meta.window_end);
        let last = (have_end - 1).max(have_start);
        return Err(Failure::data(format!(
            "the cache holds payouts arriving {} to {}, which does not cover {m}; drop --cached to read {m} from Stripe (or run `tieout sync --months N` with enough months)",
            crate::time::date_in(have_start, tz),
            crate::time::date_in(last, tz),
        )));
    }
    Ok(data)
}

/// Whether the payouts of `data` (read for its window) cover `month` in `tz`.
pub fn covers(meta: &crate::model::SnapshotMeta, month: Month, tz: &TimeZone) -> bool {
    let (start, end) = month.range(tz);
    start >= meta.window_start && end <= meta.window_end
}

/// `data` with the payouts and lines of `month` taken from `month_data` (a read for
/// [`Need::Month`]), for a close packet of a month outside the window `data` was read
/// for. Everything else (the worklist as of now, refunds, disputes) stays `data`'s.
pub fn with_month(data: &AccountData, mut month_data: AccountData) -> AccountData {
    let mut out = data.clone();
    out.take_table(Table::Payouts, &mut month_data);
    out.take_table(Table::BalanceTransactions, &mut month_data);
    out.meta.window_start = month_data.meta.window_start;
    out.meta.window_end = month_data.meta.window_end;
    out
}

/// The current cache generation of the account `profile` last synced.
pub fn cached_generation(cache: &Cache, profile: &str) -> Result<Generation, Failure> {
    let pointer = cache.last_used(profile).map_err(cache_failure)?.ok_or_else(|| {
        Failure::usage(format!(
            "there is no cache for profile '{profile}' in {}: run `tieout sync` first, or drop --cached to read Stripe directly",
            cache.root().display()
        ))
    })?;
    cache
        .generation(&pointer.account_id, pointer.mode)
        .map_err(cache_failure)
}

/// The tables the first part of a staged open reads: what the Worklist (the TUI's first
/// tab) needs, with only the charges and payment intents its open invoices reach. The rest
/// (payouts, balance transactions, refunds, disputes, and all the charges and intents)
/// follows.
pub const FIRST_PART: Need = Need::Dunning;

/// Whether the rest of a staged open reads `table`: every table the first part does not,
/// and the four it reads only in part (the invoices the worklist reads with their
/// payments, and the charges and intents those reach).
pub fn rest_reads(table: Table) -> bool {
    !FIRST_PART.reads(table)
        || matches!(
            table,
            Table::Invoices | Table::InvoicePayments | Table::Charges | Table::PaymentIntents
        )
}

/// The whole cache of the account `profile` last synced, read in two parts from the same
/// generation: `first` gets the tables [`FIRST_PART`] reads as soon as they are read
/// (everything else empty; of the invoices only those the worklist reads, with their
/// payments and the charges and intents they reach), with a lookup of the statuses of the
/// invoices it lacks (for the worklist's "since": one that left the list is paid or
/// voided, so not in the first part), and the rest is returned (the tables [`rest_reads`]
/// names) for [`merge_rest`] to complete it. The TUI shows its Worklist from the first
/// part while the million balance transactions of a large account are still being read;
/// `first` may block (the TUI's waits for the Worklist's first frame, so the two do not
/// share the cores).
pub fn load_cached_in_parts(
    cache: &Cache,
    profile: &str,
    first: impl FnOnce(AccountData, CachedLookup),
) -> Result<AccountData, Failure> {
    let generation = cached_generation(cache, profile)?;
    first(
        first_part(&generation)?,
        CachedLookup {
            generation: generation.clone(),
        },
    );
    generation.load_data(&rest_reads).map_err(cache_failure)
}

/// The first part of [`load_cached_in_parts`] alone (what the Worklist's first frame
/// waits for), from the cache of the account `profile` last synced.
pub fn load_cached_first_part(cache: &Cache, profile: &str) -> Result<AccountData, Failure> {
    first_part(&cached_generation(cache, profile)?)
}

fn first_part(generation: &Generation) -> Result<AccountData, Failure> {
    let mut data = generation
        .load_reached(&|t| FIRST_PART.reads(t))
        .map_err(cache_failure)?;
    // Only the worklist's invoices and the charges they reach: not how every failure
    // ended, whatever the cache holds, until the rest is merged.
    data.meta.settled_invoices_since = None;
    Ok(data)
}

/// Completes the first part of a staged load (see [`load_cached_in_parts`]) with the rest:
/// every table [`rest_reads`] names is moved over from `rest` (the invoices, their
/// payments, the charges and intents replacing the first part's few).
pub fn merge_rest(first: &mut AccountData, mut rest: AccountData) {
    for table in Table::ALL {
        if rest_reads(table) {
            first.take_table(table, &mut rest);
        }
    }
    first.meta.settled_invoices_since = rest.meta.settled_invoices_since;
}

/// The month's payouts and those arriving up to `margin` seconds either side of it (the
/// bank leg matches a month's neighbours too, so a deposit of the next month's first
/// payout is not taken for this month's). A fresh read widens its window; the demo and
/// the cache already hold the months around it.
pub fn load_month_with_margin(
    ctx: &ReadRequest,
    month: Month,
    margin: i64,
) -> Result<AccountData, Failure> {
    if ctx.demo || ctx.cached {
        return load(ctx, Need::Month(month));
    }
    let mut opts = Need::Month(month).options(ctx.now, &ctx.tz);
    opts.window = (opts.window.0 - margin, opts.window.1 + margin);
    read_fresh(ctx, &opts)
}

/// The month's payouts and those arriving in the next month: the journal of the month
/// accrues the lines the later payouts pay out. A fresh read widens its window to the next
/// month's end; the demo and the cache hold the payouts they hold.
pub fn load_month_and_next(ctx: &ReadRequest, month: Month) -> Result<AccountData, Failure> {
    if ctx.demo || ctx.cached {
        return load(ctx, Need::Month(month));
    }
    let mut opts = Need::Month(month).options(ctx.now, &ctx.tz);
    opts.window.1 = month.next().range(&ctx.tz).1;
    read_fresh(ctx, &opts)
}

fn load_fresh(ctx: &ReadRequest, need: Need) -> Result<AccountData, Failure> {
    let progress = StderrProgress::new();
    let result = if need.follows_events() {
        read_following_events(ctx, need, &progress)
    } else {
        load_fresh_with(ctx, need, &progress)
    };
    progress.finish();
    result
}

/// A fresh read for `need` that follows the account's events when its cache allows a
/// refresh (`sync::read_fresh_refreshing`: the refresh `tieout sync` runs, over what
/// `tieout sync` reads, saved as a new cache generation as a sync saves it), keeping
/// only the tables `need` reads, as a cached load does; otherwise (or when the refresh
/// needs a permission the key lacks) `need`'s own fresh read, the progress saying why it
/// read in full (`full sync: ...`, in `tieout sync`'s words).
fn read_following_events(
    ctx: &ReadRequest,
    need: Need,
    progress: &dyn crate::source::progress::Progress,
) -> Result<AccountData, Failure> {
    let client = super::connect(ctx)?;
    let cache = Cache::open_default().ok();
    let sync_opts = Need::All.options(ctx.now, &ctx.tz);
    let own = need.options(ctx.now, &ctx.tz);
    let (data, how) = sync::block_on(sync::read_fresh_refreshing(
        &client,
        ctx.stripe_account.as_deref(),
        (&sync_opts, &own),
        cache.as_ref(),
        &ctx.profile,
        progress,
    ))
    .map_err(|e| Failure::other(format!("could not start the network runtime: {e}")))?
    .map_err(Failure::from)?;
    Ok(match how {
        sync::FreshHow::Refreshed { .. } => only_what(need, data),
        sync::FreshHow::Own(_) => data,
    })
}

/// `data` with only the tables `need` reads (the others empty), as a cached load gives.
fn only_what(need: Need, mut data: AccountData) -> AccountData {
    let mut out = AccountData::empty(data.meta.clone());
    for table in Table::ALL.into_iter().filter(|t| need.reads(*t)) {
        out.take_table(table, &mut data);
    }
    out
}

/// A fresh read from Stripe for `need`, reporting to `progress` (the TUI's status line;
/// the headless commands report on stderr).
pub fn load_fresh_with(
    ctx: &ReadRequest,
    need: Need,
    progress: &dyn crate::source::progress::Progress,
) -> Result<AccountData, Failure> {
    read_fresh_with(ctx, &need.options(ctx.now, &ctx.tz), progress)
}

/// A fresh read of `opts`, with the progress on stderr.
fn read_fresh(ctx: &ReadRequest, opts: &SyncOptions) -> Result<AccountData, Failure> {
    let progress = StderrProgress::new();
    let result = read_fresh_with(ctx, opts, &progress);
    progress.finish();
    result
}

fn read_fresh_with(
    ctx: &ReadRequest,
    opts: &SyncOptions,
    progress: &dyn crate::source::progress::Progress,
) -> Result<AccountData, Failure> {
    let client = super::connect(ctx)?;
    let cache = Cache::open_default().ok();
    let stripe_account = ctx.stripe_account.as_deref();
    sync::block_on(sync::read_fresh(
        &client,
        stripe_account,
        opts,
        cache.as_ref(),
        progress,
    ))
    .map_err(|e| Failure::other(format!("could not start the network runtime: {e}")))?
    .map(|f| f.data)
    .map_err(stripe_failure)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Mode, Origin};
    use crate::source::cache::ProfilePointer;
    use crate::source::tables::Snapshot;
    use crate::source::testdata::random_data;

    #[test]
    fn demo_needs_no_key_and_no_network() {
        let ctx = ReadRequest {
            profile: "default".into(),
            allow_secret_key: false,
            api_base: "http://127.0.0.1:9".into(),
            stripe_account: None,
            demo: true,
            cached: false,
            now: 0,
            tz: TimeZone::UTC,
            rate: None,
        };
        let data = load(&ctx, Need::All).expect("demo");
        assert_eq!(data.meta.origin, Origin::Demo);
        assert_eq!(data, crate::source::demo::load_demo().expect("demo"));
    }

    #[test]
    fn needs_read_only_what_they_need() {
        let tz = TimeZone::UTC;
        let now = crate::time::parse_instant("2026-11-30T12:00:00Z").expect("now");
        let m: Month = "2026-10".parse().expect("m");
        let o = Need::Month(m).options(now, &tz);
        assert_eq!(
            o.parts,
            Parts {
                payouts: true,
                ..Parts::none()
            }
        );
        assert_eq!(o.window, m.range(&tz));
        let o = Need::Dunning.options(now, &tz);
        assert_eq!(
            o.parts,
            Parts {
                invoices: true,
                charges: true,
                payment_methods: true,
                ..Parts::none()
            }
        );
        // Last month's (2026-10) failures and how they ended, from the month before it;
        // without the charge permission the worklist is still read.
        let sep = crate::time::parse_instant("2026-09-01T00:00:00Z").expect("sep");
        assert_eq!(
            (o.charges_since, o.settled_invoices_since),
            (sep, Some(sep))
        );
        assert_eq!(
            o.best_effort,
            Parts {
                charges: true,
                ..Parts::none()
            }
        );
        assert_eq!(Need::Refunds.options(now, &tz).parts, Parts::all());
        assert_eq!(Need::All.options(now, &tz).parts, Parts::all());
    }

    #[test]
    fn cached_loads_follow_the_profile_pointer_and_check_the_month() {
        let root = tempfile::tempdir().expect("tmp");
        let cache = Cache::at(root.path());
        let tz = TimeZone::UTC;
        let m: Month = "2026-10".parse().expect("m");

        let err = load_cached(&cache, "default", Need::All, &tz).expect_err("no cache");
        assert!(
            err.message.contains("run `tieout sync` first"),
            "{}",
            err.message
        );
        assert_eq!(err.kind, FailKind::Usage, "a usage problem: exit 2");

        let mut data = random_data(9, 3);
        data.meta.account_id = "acct_9".into();
        data.meta.mode = Mode::Test;
        let (s, e) = m.range(&tz);
        data.meta.window_start = s;
        data.meta.window_end = e;
        cache
            .save(&Snapshot::from_data(&data).expect("frames"))
            .expect("save");
        cache
            .set_last_used(
                "default",
                &ProfilePointer {
                    account_id: "acct_9".into(),
                    mode: Mode::Test,
                    updated_at: 0,
                },
            )
            .expect("pointer");
        let got = load_cached(&cache, "default", Need::Month(m), &tz).expect("cached");
        assert_eq!(got.meta.origin, Origin::Cache);
        assert_eq!(got.payouts, data.payouts);
        assert_eq!(got.balance_transactions, data.balance_transactions);
        // A month reads only the payouts and their lines.
        assert!(got.invoices.is_empty() && got.charges.is_empty());
        assert!(!data.invoices.is_empty() && !data.charges.is_empty());
        let all = load_cached(&cache, "default", Need::All, &tz).expect("all");
        let mut expected = data.clone();
        expected.meta.origin = Origin::Cache;
        assert_eq!(all, expected);
        let dunning = load_cached(&cache, "default", Need::Dunning, &tz).expect("dunning");
        assert_eq!(dunning.invoices, data.invoices);
        assert!(dunning.balance_transactions.is_empty());

        let err = load_cached(&cache, "default", Need::Month(m.next()), &tz)
            .expect_err("outside the window");
        assert_eq!(err.kind, FailKind::Data);
        assert!(
            err.message
                .starts_with("the cache holds payouts arriving 2026-10-01 to 2026-10-31, which does not cover 2026-11"),
            "{}",
            err.message
        );
    }

    /// The demo account saved as the cache of profile `default`.
    fn demo_cache(root: &std::path::Path) -> Cache {
        let cache = Cache::at(root);
        let mut data = crate::source::demo::load_demo().expect("demo");
        data.meta.mode = Mode::Test;
        cache
            .save(&Snapshot::from_data(&data).expect("frames"))
            .expect("save");
        cache
            .set_last_used(
                "default",
                &ProfilePointer {
                    account_id: data.meta.account_id.clone(),
                    mode: Mode::Test,
                    updated_at: 0,
                },
            )
            .expect("pointer");
        cache
    }

    #[test]
    fn a_load_in_parts_ends_with_exactly_the_one_shot_load() {
        let root = tempfile::tempdir().expect("tmp");
        let cache = demo_cache(root.path());
        let whole = load_cached(&cache, "default", Need::All, &TimeZone::UTC).expect("whole");
        let mut first = None;
        let rest = load_cached_in_parts(&cache, "default", |part, lookup| {
            first = Some((part, lookup))
        })
        .expect("in parts");
        let (mut first, lookup) = first.expect("the first part came before the rest");
        // The first part holds what the Worklist reads, and nothing of the rest: its
        // tables in full, but for the invoices (only those the worklist reads, with their
        // payments) and the charges and intents (only those these reach): fewer, each as
        // the whole read has it; the worklist built from it is the whole account's.
        let worklist = load_cached(&cache, "default", FIRST_PART, &TimeZone::UTC).expect("wl");
        for table in Table::ALL.into_iter().filter(|t| !rest_reads(*t)) {
            assert_eq!(first.row_count(table), worklist.row_count(table), "{table}");
        }
        fn fewer_of<T: PartialEq>(part: &[T], whole: &[T], what: &str) {
            assert!(!part.is_empty() && part.len() < whole.len(), "{what}");
            assert!(part.iter().all(|r| whole.contains(r)), "{what}");
        }
        fewer_of(&first.invoices, &worklist.invoices, "invoices");
        fewer_of(
            &first.invoice_payments,
            &worklist.invoice_payments,
            "invoice payments",
        );
        fewer_of(&first.charges, &worklist.charges, "charges");
        fewer_of(
            &first.payment_intents,
            &worklist.payment_intents,
            "payment intents",
        );
        let now = crate::source::demo::DEMO_NOW;
        assert_eq!(
            crate::domain::dunning::build(&first, now).expect("from the first part"),
            crate::domain::dunning::build(&whole, now).expect("from the whole")
        );
        // What the first part lacks of an invoice that left the list, its status, the
        // lookup reads from the same cache: "since" says the same from either part.
        let ids: Vec<String> = whole.invoices.iter().map(|i| i.id.to_string()).collect();
        let paid = whole
            .invoices
            .iter()
            .find(|i| i.status == crate::stripe::models::InvoiceStatus::Paid)
            .expect("a paid invoice");
        assert!(!first.invoices.iter().any(|i| i.id == paid.id));
        use crate::app::run_history::{NoLookup, departures};
        assert_eq!(
            departures(&first, &ids, &lookup),
            departures(&whole, &ids, &NoLookup)
        );
        assert!(first.payouts.is_empty() && first.balance_transactions.is_empty());
        assert!(!rest.payouts.is_empty() && !rest.balance_transactions.is_empty());
        assert!(!rest.refunds.is_empty() && !rest.disputes.is_empty());
        assert!(rest.customers.is_empty());
        assert_eq!(rest.invoices, whole.invoices);
        assert_eq!(rest.invoice_payments, whole.invoice_payments);
        assert_eq!(rest.charges, whole.charges);
        merge_rest(&mut first, rest);
        assert_eq!(first, whole);
        assert_eq!(whole.meta.origin, Origin::Cache);
    }
}
