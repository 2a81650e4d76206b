//! The incremental refresh (issue 39): after a full sync and a generated next day in the
//! fake, a refresh from Stripe's events writes the very tables a full sync of the same
//! moment writes (compared row for row, sorted), and the exports of the day are the same
//! bytes; it costs far fewer requests; each fallback to a full sync says why; and a
//! refresh interrupted part-way resumes from its journal to the same result.

use std::sync::{Arc, Mutex};

use tieout::model::Mode;
use tieout::model::events::FullReason;
use tieout::secrets::ApiKey;
use tieout::source::cache::Cache;
use tieout::source::progress::SyncEvent;
use tieout::source::sync::{self, How, SyncOptions};
use tieout::stripe::{Client, ClientConfig, RateConfig};
use tieout_testkit::fake_stripe::Fault;
use tieout_testkit::generator::next_day;

use crate::support::{FakeConfig, FakeStripe, NOW, TEST_KEY, Tieout};

/// Eight hours after the demo's clock: the same month, so the same window.
const LATER: &str = "2026-11-30T20:00:00Z";

fn client(fake: &FakeStripe, attempts: u32) -> Client {
    let key = ApiKey::parse(TEST_KEY).expect("test key");
    let mut cfg = ClientConfig::new(fake.base_url(), key);
    cfg.rate = RateConfig::unthrottled();
    cfg.max_attempts = attempts;
    Client::new(cfg).expect("client")
}

fn at(t: &str) -> i64 {
    tieout::time::parse_instant(t).expect("an instant")
}

fn opts(now: &str) -> SyncOptions {
    SyncOptions::for_months(at(now), &jiff::tz::TimeZone::UTC, 3)
}

/// Every event a sync reported, kept for assertions.
#[derive(Default, Clone)]
struct Heard(Arc<Mutex<Vec<SyncEvent>>>);

impl tieout::source::progress::Progress for Heard {
    fn event(&self, event: SyncEvent) {
        self.0.lock().expect("lock").push(event);
    }
}

impl Heard {
    fn full_reason(&self) -> Option<String> {
        self.0.lock().expect("lock").iter().find_map(|e| match e {
            SyncEvent::FullSync { reason } => Some(reason.clone()),
            _ => None,
        })
    }
}

async fn run(
    fake: &FakeStripe,
    cache: &Cache,
    now: &str,
    full: bool,
) -> (sync::SyncReport, How, Heard, usize) {
    let heard = Heard::default();
    fake.clear_requests();
    let (report, how) = sync::sync_incremental(
        &client(fake, 5),
        None,
        &opts(now),
        cache,
        "default",
        full,
        &heard,
    )
    .await
    .expect("sync");
    (report, how, heard, fake.requests().len())
}

/// Each table of a cache as sorted rows of text.
fn tables(cache: &Cache, account: &str) -> Vec<(String, Vec<String>)> {
    let snap = cache.load(account, Mode::Test).expect("a cache");
    snap.tables()
        .map(|(table, df)| {
            let names: Vec<String> = df
                .get_column_names()
                .iter()
                .map(|n| n.to_string())
                .collect();
            let mut rows: Vec<String> = (0..df.height())
                .map(|i| {
                    names
                        .iter()
                        .map(|n| {
                            let col = df.column(n.as_str()).expect("column");
                            format!("{}", col.get(i).expect("cell"))
                        })
                        .collect::<Vec<_>>()
                        .join("|")
                })
                .collect();
            rows.sort();
            (table.name().to_string(), rows)
        })
        .collect()
}

fn assert_same_tables(a: &Cache, b: &Cache, account: &str) {
    let (ta, tb) = (tables(a, account), tables(b, account));
    for ((name, ra), (_, rb)) in ta.iter().zip(&tb) {
        let only_a: Vec<&String> = ra.iter().filter(|r| !rb.contains(r)).take(3).collect();
        let only_b: Vec<&String> = rb.iter().filter(|r| !ra.contains(r)).take(3).collect();
        assert!(
            ra == rb,
            "table {name}: refresh {} rows, full {} rows\nonly in the refresh: {only_a:#?}\nonly in the full sync: {only_b:#?}",
            ra.len(),
            rb.len()
        );
    }
}

/// Full sync, a generated day, then a refresh; and a full sync of the same state.
async fn refresh_equals_full(fake: &FakeStripe, seed: u64) -> (usize, usize, usize) {
    let root = tempfile::tempdir().expect("tmp");
    let (refreshed, full) = (
        Cache::at(root.path().join("refreshed")),
        Cache::at(root.path().join("full")),
    );
    let (_, how, heard, _) = run(fake, &refreshed, NOW, false).await;
    assert_eq!(how, How::Full(FullReason::NoCursor));
    assert!(
        heard
            .full_reason()
            .is_some_and(|r| r.contains("no event cursor"))
    );
    let day = fake
        .with_store(|s| next_day(s, seed, at(NOW), at(LATER)))
        .expect("a next day");
    let before = tables(&refreshed, &fake.account_id());
    let (_, how, _, refresh_requests) = run(fake, &refreshed, LATER, false).await;
    assert!(matches!(how, How::Refreshed { .. }), "{how:?}");
    let paths: Vec<String> = fake.requests().iter().map(|r| r.path.clone()).collect();
    eprintln!("refresh requests: {paths:#?}");
    let after = tables(&refreshed, &fake.account_id());
    for name in [
        "invoices",
        "charges",
        "refunds",
        "payouts",
        "balance_transactions",
    ] {
        let rows = |t: &[(String, Vec<String>)]| t.iter().find(|(n, _)| n == name).cloned();
        assert_ne!(rows(&before), rows(&after), "the day changed {name}");
    }
    let (_, how, _, full_requests) = run(fake, &full, LATER, true).await;
    assert_eq!(how, How::Full(FullReason::Forced));
    assert_same_tables(&refreshed, &full, &fake.account_id());
    (refresh_requests, full_requests, day.objects)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_the_demo_a_refresh_after_a_day_writes_the_tables_of_a_full_sync() {
    let fake = FakeStripe::start(FakeConfig::default()).await;
    let (refresh, full, changed) = refresh_equals_full(&fake, 7).await;
    eprintln!("requests: full sync {full}, refresh {refresh} ({changed} objects changed)");
    assert!(refresh * 10 <= full, "refresh {refresh} vs full {full}");
    assert!(
        refresh <= 2 * changed + 10,
        "refresh {refresh}, {changed} changed"
    );
}

#[test]
fn the_exports_of_the_day_are_the_same_bytes_after_a_refresh_or_a_full_sync() {
    let fake = crate::support::start_fake(FakeConfig::default());
    let cli = |data: &str| Tieout::against(&fake).env("TIEOUT_DATA_DIR", data);
    let root = tempfile::tempdir().expect("tmp");
    let (a, b) = (
        root.path().join("a").display().to_string(),
        root.path().join("b").display().to_string(),
    );
    let first = cli(&a).run(&["sync"]);
    first.success();
    assert!(
        first
            .stdout
            .contains("full sync: the cache records no event cursor"),
        "{}",
        first.stdout
    );
    fake.with_store(|s| next_day(s, 11, at(NOW), at(LATER)))
        .expect("a next day");
    let refresh = cli(&a).now(Some(LATER)).run(&["sync"]);
    refresh.success();
    assert!(
        refresh.stdout.contains("refreshed from "),
        "{}",
        refresh.stdout
    );
    let full = cli(&b).now(Some(LATER)).run(&["sync", "--full"]);
    full.success();
    assert!(
        full.stdout
            .contains("full sync: --full asked for a full sync"),
        "{}",
        full.stdout
    );
    for args in [
        &["--cached", "dunning", "--format", "csv"][..],
        &["--cached", "recovery", "--format", "csv"][..],
    ] {
        let ra = cli(&a).now(Some(LATER)).run(args);
        let rb = cli(&b).now(Some(LATER)).run(args);
        ra.success();
        rb.success();
        assert_eq!(ra.stdout, rb.stdout, "{args:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sync_older_than_the_event_retention_is_full_and_says_why() {
    let fake = FakeStripe::start(FakeConfig::default()).await;
    let root = tempfile::tempdir().expect("tmp");
    let cache = Cache::at(root.path());
    run(&fake, &cache, "2026-10-01T12:00:00Z", false).await;
    let (_, how, heard, _) = run(&fake, &cache, NOW, false).await;
    assert!(
        matches!(how, How::Full(FullReason::TooOld { .. })),
        "{how:?}"
    );
    let reason = heard.full_reason().expect("a reason in the progress");
    assert!(
        reason.contains("older than Stripe keeps events"),
        "{reason}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_without_the_events_read_gets_a_full_sync_that_names_it() {
    let fake = FakeStripe::start(FakeConfig::default()).await;
    let root = tempfile::tempdir().expect("tmp");
    let cache = Cache::at(root.path());
    run(&fake, &cache, NOW, false).await;
    fake.deny(TEST_KEY, "rak_event_read");
    let (_, how, heard, _) = run(&fake, &cache, LATER, false).await;
    assert_eq!(
        how,
        How::Full(FullReason::PermissionMissing("rak_event_read".into()))
    );
    let reason = heard.full_reason().expect("a reason in the progress");
    assert!(reason.contains("rak_event_read"), "{reason}");
    // That full sync could not record a cursor: the next one is full again.
    let (_, how, _, _) = run(&fake, &cache, LATER, false).await;
    assert_eq!(how, How::Full(FullReason::NoCursor));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_asks_for_a_full_sync_and_says_so() {
    let fake = FakeStripe::start(FakeConfig::default()).await;
    let root = tempfile::tempdir().expect("tmp");
    let cache = Cache::at(root.path());
    run(&fake, &cache, NOW, false).await;
    let (_, how, heard, _) = run(&fake, &cache, LATER, true).await;
    assert_eq!(how, How::Full(FullReason::Forced));
    assert!(heard.full_reason().is_some_and(|r| r.contains("--full")));
    // A cache of another window (a new month) is read in full too.
    let (_, how, _, _) = run(&fake, &cache, "2026-12-01T08:00:00Z", false).await;
    assert_eq!(how, How::Full(FullReason::ScopeChanged));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refresh_interrupted_part_way_resumes_to_the_same_tables() {
    let fake = FakeStripe::start(FakeConfig::default()).await;
    let root = tempfile::tempdir().expect("tmp");
    let (refreshed, full) = (
        Cache::at(root.path().join("refreshed")),
        Cache::at(root.path().join("full")),
    );
    run(&fake, &refreshed, NOW, false).await;
    fake.with_store(|s| next_day(s, 3, at(NOW), at(LATER)))
        .expect("a next day");
    // The balance is read last: the refresh fails there, its reads kept in the journal.
    fake.inject(Fault::status("/v1/balance", 500, 1));
    let failed = sync::sync_incremental(
        &client(&fake, 1),
        None,
        &opts(LATER),
        &refreshed,
        "default",
        false,
        &Heard::default(),
    )
    .await;
    assert!(failed.is_err(), "the injected fault stops the refresh");
    let (_, how, heard, _) = run(&fake, &refreshed, LATER, false).await;
    assert!(matches!(how, How::Refreshed { .. }), "{how:?}");
    let resumed = heard
        .0
        .lock()
        .expect("lock")
        .iter()
        .any(|e| matches!(e, SyncEvent::Resumed { pages } if *pages > 0));
    assert!(resumed, "the second run continues from the journal");
    run(&fake, &full, LATER, true).await;
    assert_same_tables(&refreshed, &full, &fake.account_id());
}

mod property {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 4, ..ProptestConfig::default() })]

        /// Whatever the account's seed, the day's seed and its length, the refresh writes
        /// a full sync's tables.
        #[test]
        fn any_generated_day_refreshes_to_a_full_syncs_tables(
            account_seed in 1u64..1_000_000,
            seed in 0u64..1_000_000,
            hours in 1i64..8,
        ) {
            let fixtures = tempfile::tempdir().expect("tmp");
            tieout_testkit::generator::generate(account_seed, 1, fixtures.path())
                .expect("a generated account");
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("a runtime");
            rt.block_on(async {
                let fake = FakeStripe::start(FakeConfig::default().fixtures(fixtures.path())).await;
                let root = tempfile::tempdir().expect("tmp");
                let (refreshed, full) = (
                    Cache::at(root.path().join("refreshed")),
                    Cache::at(root.path().join("full")),
                );
                run(&fake, &refreshed, NOW, false).await;
                fake.with_store(|s| next_day(s, seed, at(NOW), at(NOW) + hours * 3600))
                    .expect("a next day");
                let later = tieout::time::iso_utc(at(NOW) + hours * 3600);
                let (_, how, _, _) = run(&fake, &refreshed, &later, false).await;
                assert!(matches!(how, How::Refreshed { .. }), "{how:?}");
                run(&fake, &full, &later, true).await;
                assert_same_tables(&refreshed, &full, &fake.account_id());
            });
        }
    }
}

/// A manifest written before tieout read events (no `events` field) still loads, and the
/// next sync is full because it has no cursor.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_older_manifest_without_a_cursor_loads_and_gets_a_full_sync() {
    let fake = FakeStripe::start(FakeConfig::default()).await;
    let root = tempfile::tempdir().expect("tmp");
    let cache = Cache::at(root.path());
    let (report, _, _, _) = run(&fake, &cache, NOW, false).await;
    let path = report.saved.dir.join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("manifest")).expect("json");
    assert!(
        manifest.get("events").is_some(),
        "a sync records its cursor"
    );
    manifest
        .as_object_mut()
        .expect("an object")
        .remove("events");
    std::fs::write(&path, serde_json::to_vec(&manifest).expect("json")).expect("write");
    cache
        .load(&fake.account_id(), Mode::Test)
        .expect("the older manifest loads");
    let (_, how, heard, _) = run(&fake, &cache, LATER, false).await;
    assert_eq!(how, How::Full(FullReason::NoCursor));
    assert!(
        heard
            .full_reason()
            .is_some_and(|r| r.contains("no event cursor"))
    );
}

/// With `--stripe-account`, the refresh reads that connected account's events: every
/// request, the events list included, carries its `Stripe-Account`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connected_accounts_refresh_follows_that_accounts_events() {
    let fake = FakeStripe::start(FakeConfig::default()).await;
    // The fake serves one account: it is the connected one here.
    let connected_id = fake.account_id();
    let connected = connected_id.as_str();
    let key = ApiKey::parse(TEST_KEY).expect("test key");
    let mut cfg = ClientConfig::new(fake.base_url(), key);
    cfg.rate = RateConfig::unthrottled();
    cfg.stripe_account = Some(connected.to_string());
    let client = Client::new(cfg).expect("client");
    let root = tempfile::tempdir().expect("tmp");
    let cache = Cache::at(root.path());
    let sync = |now: &'static str| {
        let (client, cache) = (&client, &cache);
        async move {
            sync::sync_incremental(
                client,
                Some(connected),
                &opts(now),
                cache,
                "default",
                false,
                &Heard::default(),
            )
            .await
            .expect("sync")
            .1
        }
    };
    sync(NOW).await;
    fake.with_store(|s| next_day(s, 5, at(NOW), at(LATER)))
        .expect("a next day");
    fake.clear_requests();
    assert!(matches!(sync(LATER).await, How::Refreshed { .. }));
    let requests = fake.requests();
    assert!(requests.iter().any(|r| r.path == "/v1/events"));
    assert!(
        requests
            .iter()
            .all(|r| r.stripe_account.as_deref() == Some(connected) && r.method == "GET"),
        "{requests:#?}"
    );
}

/// The workbench's fresh read (its open and its refresh) after a complete read is a
/// refresh from the events too: it sends no list of the whole account again, and the
/// cache it saves equals a full sync's.
#[test]
fn the_workbench_read_refreshes_from_the_events_after_a_complete_read() {
    let fake = crate::support::start_fake(FakeConfig::default());
    let root = tempfile::tempdir().expect("tmp");
    let (workbench, full) = (
        Cache::at(root.path().join("workbench")),
        Cache::at(root.path().join("full")),
    );
    let read = |now: &str| {
        let quiet = |_: SyncEvent| {};
        tieout::app::pane_reads::read(
            &client(&fake, 5),
            None,
            (at(now), &jiff::tz::TimeZone::UTC),
            Some(&workbench),
            "default",
            &quiet,
        )
        .expect("a read")
    };
    assert!(read(NOW).gaps.is_empty());
    fake.with_store(|s| next_day(s, 9, at(NOW), at(LATER)))
        .expect("a next day");
    fake.clear_requests();
    assert!(read(LATER).gaps.is_empty());
    let paths: Vec<String> = fake.requests().into_iter().map(|r| r.path).collect();
    assert!(paths.contains(&"/v1/events".to_string()), "{paths:?}");
    assert!(!paths.contains(&"/v1/charges".to_string()), "{paths:?}");
    fake.rt().block_on(run(&fake, &full, LATER, true));
    assert_same_tables(&workbench, &full, &fake.account_id());
}

/// A pending balance transaction becomes available with no event (Stripe sends none): the
/// refresh lists the lines again from the oldest pending one kept, so its status is the
/// one a full sync reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_that_became_available_without_an_event_is_refreshed() {
    let fake = FakeStripe::start(FakeConfig::default()).await;
    let root = tempfile::tempdir().expect("tmp");
    let (refreshed, full) = (
        Cache::at(root.path().join("refreshed")),
        Cache::at(root.path().join("full")),
    );
    // Three pending lines fall due an hour after the sync (a line is made available when
    // its available_on comes); a fourth stays pending, not due by the refresh.
    let due = at(NOW) + 3600;
    let pending = fake.with_store(|s| {
        let pending: Vec<serde_json::Value> = s
            .table(tieout_testkit::fake_stripe::ObjectKind::BalanceTransaction)
            .iter()
            .filter(|l| l["status"] == "pending")
            .take(3)
            .cloned()
            .collect();
        for mut line in pending.clone() {
            line["available_on"] = serde_json::json!(due);
            s.put(line)?;
        }
        Ok::<Vec<serde_json::Value>, String>(pending)
    });
    let pending = pending.expect("the store");
    assert_eq!(pending.len(), 3, "the demo keeps pending lines");
    run(&fake, &refreshed, NOW, false).await;
    let flipped = fake.with_store(|s| {
        for line in &pending {
            let mut line = s
                .get(
                    tieout_testkit::fake_stripe::ObjectKind::BalanceTransaction,
                    line["id"].as_str().unwrap_or_default(),
                )
                .cloned()
                .ok_or_else(|| "the line".to_string())?;
            line["status"] = serde_json::json!("available");
            s.put(line)?;
        }
        Ok::<usize, String>(pending.len())
    });
    assert_eq!(flipped, Ok(3));
    let before = tables(&refreshed, &fake.account_id());
    let (_, how, _, _) = run(&fake, &refreshed, LATER, false).await;
    assert!(matches!(how, How::Refreshed { .. }), "{how:?}");
    let after = tables(&refreshed, &fake.account_id());
    assert_ne!(before, after, "the three lines' status changed");
    run(&fake, &full, LATER, true).await;
    assert_same_tables(&refreshed, &full, &fake.account_id());
}
