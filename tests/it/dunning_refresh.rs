//! The morning `tieout dunning` (issue 39) reads only what changed: after a complete
//! sync and a generated next day in the fake Stripe, its fresh read is the refresh
//! `tieout sync` runs (the events list and the few changed objects, far fewer requests
//! than its own read), and the worklist it writes is the same bytes as a fresh read of
//! the same state without the cache. Without a cache, or when the key may not read the
//! events, it reads its own part as before and says why, in `tieout sync`'s words.

use std::path::Path;

use tieout_testkit::generator::next_day;

use crate::support::cli::{RunOutput, Tieout};
use crate::support::fake::{RunningFake, start_fake};
use crate::support::{FakeConfig, NOW, TEST_KEY};

/// Eight hours after the demo's clock: the same month, so the same window.
const LATER: &str = "2026-11-30T20:00:00Z";

/// The worklist's files (the Markdown and JSON name where the data came from and when,
/// the same for both reads here: live, at `LATER`).
const FILES: [&str; 4] = [
    "failed-payments.csv",
    "failed-payments.md",
    "failed-payments.json",
    "expiring-cards.csv",
];

fn at(t: &str) -> i64 {
    tieout::time::parse_instant(t).expect("an instant")
}

/// `tieout` against the fake with its cache and data in `data`.
fn cli(fake: &RunningFake, data: &Path, now: &str) -> Tieout {
    Tieout::against(fake)
        .env("TIEOUT_DATA_DIR", &data.display().to_string())
        .now(Some(now))
}

/// `tieout dunning` at `LATER`: its output, the files it wrote and the paths of the
/// requests the fake saw.
fn dunning(fake: &RunningFake, data: &Path) -> (RunOutput, Vec<Vec<u8>>, Vec<String>) {
    let t = cli(fake, data, LATER);
    fake.clear_requests();
    let run = t.run(&["dunning"]);
    run.success();
    let paths = fake.requests().into_iter().map(|r| r.path).collect();
    let files = FILES
        .iter()
        .map(|name| std::fs::read(t.work_dir().join(name)).expect(name))
        .collect();
    (run, files, paths)
}

fn assert_same_files(a: &[Vec<u8>], b: &[Vec<u8>]) {
    for ((name, fa), fb) in FILES.iter().zip(a).zip(b) {
        assert!(
            fa == fb,
            "{name} differs\n--- refreshed\n{}\n--- fresh read\n{}",
            String::from_utf8_lossy(fa),
            String::from_utf8_lossy(fb)
        );
    }
}

#[test]
fn the_morning_dunning_refreshes_from_the_events_and_writes_a_fresh_reads_worklist() {
    let fake = start_fake(FakeConfig::default());
    let root = tempfile::tempdir().expect("tmp");
    let (synced, empty) = (root.path().join("synced"), root.path().join("empty"));
    cli(&fake, &synced, NOW).run(&["sync"]).success();
    let day = fake
        .with_store(|s| next_day(s, 11, at(NOW), at(LATER)))
        .expect("a next day");

    let (refresh_run, refreshed, refresh_paths) = dunning(&fake, &synced);
    let run = &refresh_run;
    assert!(
        run.stderr.contains("refreshing from "),
        "the progress says it follows the events\n{}",
        run.stderr
    );
    assert!(!run.stderr.contains("full sync"), "{}", run.stderr);
    assert_eq!(
        refresh_paths.iter().filter(|p| *p == "/v1/events").count(),
        1,
        "one page of events: {refresh_paths:?}"
    );
    // Nothing of the worklist's own read: no list of the open invoices or the charges.
    for list in ["/v1/invoices", "/v1/charges"] {
        assert!(
            !refresh_paths.iter().any(|p| p == list),
            "{list}: {refresh_paths:?}"
        );
    }

    let (fresh_run, fresh, fresh_paths) = dunning(&fake, &empty);
    assert!(
        fresh_run
            .stderr
            .contains("full sync: the cache records no event cursor"),
        "{}",
        fresh_run.stderr
    );
    eprintln!(
        "requests: refresh {}, fresh read {} ({} objects changed)",
        refresh_paths.len(),
        fresh_paths.len(),
        day.objects
    );
    // On the demo: 13 requests against 58, within the bound of 2 per changed
    // object plus a page per 100 events.
    assert!(
        refresh_paths.len() * 4 <= fresh_paths.len(),
        "refresh {refresh_paths:?}\nfresh read {fresh_paths:?}"
    );
    assert!(refresh_paths.len() <= 2 * day.objects + day.events.div_ceil(100));
    eprintln!("the refresh's progress:\n{}", run.stderr);
    assert_same_files(&refreshed, &fresh);
    assert_eq!(
        refresh_run.stdout, fresh_run.stdout,
        "the channel post and the paths"
    );

    // The refresh was saved as a sync saves it: the next one starts from its cursor
    // (no event since) and the cached worklist is the same.
    let again = cli(&fake, &synced, LATER).run(&["sync"]);
    again.success();
    assert!(
        again.stdout.contains("refreshed from 0 events"),
        "{}",
        again.stdout
    );
    let cached = cli(&fake, &synced, LATER);
    cached.run(&["--cached", "dunning"]).success();
    let csv = std::fs::read(cached.work_dir().join(FILES[0])).expect("csv");
    assert_eq!(csv, refreshed[0], "the cached worklist after the refresh");
}

#[test]
fn with_no_cache_the_dunning_reads_its_own_part_and_no_events() {
    let fake = start_fake(FakeConfig::default());
    let root = tempfile::tempdir().expect("tmp");
    let (run, files, paths) = dunning(&fake, root.path());
    assert!(
        run.stderr
            .contains("full sync: the cache records no event cursor"),
        "{}",
        run.stderr
    );
    assert!(!paths.iter().any(|p| p == "/v1/events"), "{paths:?}");
    assert!(paths.iter().any(|p| p == "/v1/invoices"), "{paths:?}");
    assert!(!files[0].is_empty());
    // A partial read is not a whole account: no cache is written.
    let status = cli(&fake, root.path(), LATER).run(&["--cached", "dunning"]);
    status.code(2);
}

#[test]
fn a_key_that_may_not_read_events_gets_its_own_read_and_the_reason() {
    let fake = start_fake(FakeConfig::default());
    let root = tempfile::tempdir().expect("tmp");
    let (synced, empty) = (root.path().join("synced"), root.path().join("empty"));
    cli(&fake, &synced, NOW).run(&["sync"]).success();
    fake.with_store(|s| next_day(s, 5, at(NOW), at(LATER)))
        .expect("a next day");
    fake.deny(TEST_KEY, "rak_event_read");
    let (run, denied, paths) = dunning(&fake, &synced);
    assert!(
        run.stderr
            .contains("full sync: the key may not read events (missing rak_event_read)"),
        "{}",
        run.stderr
    );
    assert!(paths.iter().any(|p| p == "/v1/invoices"), "{paths:?}");
    let (_, fresh, _) = dunning(&fake, &empty);
    assert_same_files(&denied, &fresh);
}

/// With `--stripe-account`, the morning dunning follows that connected account's events:
/// every request of its refresh carries the account's `Stripe-Account`.
#[test]
fn a_connected_accounts_morning_dunning_follows_that_accounts_events() {
    let fake = start_fake(FakeConfig::default());
    // The fake serves one account: it is the connected one here.
    let connected = fake.account_id();
    let root = tempfile::tempdir().expect("tmp");
    let as_connected = |now: &str| {
        cli(&fake, root.path(), now)
            .arg("--stripe-account")
            .arg(&connected)
    };
    as_connected(NOW).run(&["sync"]).success();
    fake.with_store(|s| next_day(s, 3, at(NOW), at(LATER)))
        .expect("a next day");
    fake.clear_requests();
    let run = as_connected(LATER).run(&["dunning"]);
    run.success();
    assert!(run.stderr.contains("refreshing from "), "{}", run.stderr);
    let requests = fake.requests();
    assert!(requests.iter().any(|r| r.path == "/v1/events"));
    assert!(
        requests
            .iter()
            .all(|r| r.stripe_account.as_deref() == Some(connected.as_str()) && r.method == "GET"),
        "{requests:#?}"
    );
}

/// A refresh needs reads the dunning's own part does not (the balance and its lines): a
/// key refused one of them gets the dunning's own read instead, which says why, and the
/// worklist of a fresh read.
#[test]
fn a_refresh_refused_a_read_the_dunning_does_not_need_falls_back_to_its_own_read() {
    let fake = start_fake(FakeConfig::default());
    let root = tempfile::tempdir().expect("tmp");
    let (synced, empty) = (root.path().join("synced"), root.path().join("empty"));
    cli(&fake, &synced, NOW).run(&["sync"]).success();
    fake.with_store(|s| next_day(s, 13, at(NOW), at(LATER)))
        .expect("a next day");
    fake.deny(TEST_KEY, "rak_balance_read");
    let (run, refused, paths) = dunning(&fake, &synced);
    assert!(
        run.stderr.contains(
            "full sync: the key may not read all a refresh reads (missing rak_balance_read)"
        ),
        "{}",
        run.stderr
    );
    assert!(paths.iter().any(|p| p == "/v1/invoices"), "{paths:?}");
    let (_, fresh, _) = dunning(&fake, &empty);
    assert_same_files(&refused, &fresh);
}
