//! A sync that resumes: killed at seeded points (its future dropped once the fake has
//! received N requests, as Ctrl-C or a crash would stop it) and started again, it ends
//! with the very cache bytes of an uninterrupted sync, the cache is loadable (or absent,
//! never damaged) after every kill, and the final run reads each page once, from the
//! journal or from Stripe: what it sends plus what it replays is exactly what an
//! uninterrupted sync sends. (Of each endpoint's kept pages the first is read again, to
//! prove the key may still read it.)

use tieout::model::Mode;
use tieout::secrets::ApiKey;
use tieout::source::cache::{Cache, CacheError};
use tieout::source::progress::Quiet;
use tieout::source::sync::journal::{DiskJournal, JOURNAL_DIR};
use tieout::source::sync::{self, SyncOptions};
use tieout::stripe::{Client, ClientConfig, RateConfig};

use crate::support::{FakeConfig, FakeStripe, NOW, TEST_KEY};
use crate::sync::cache_files;

fn client(fake: &FakeStripe) -> Client {
    let key = ApiKey::parse(TEST_KEY).expect("test key");
    let mut cfg = ClientConfig::new(fake.base_url(), key);
    cfg.rate = RateConfig::unthrottled();
    cfg.max_attempts = 5;
    Client::new(cfg).expect("client")
}

/// A small seeded generator (xorshift64*), so the kill points are the same every run.
fn kill_points(seed: u64, kills: usize, below: u64) -> Vec<u64> {
    let mut x = seed.max(1);
    let mut points: Vec<u64> = (0..kills)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            2 + x.wrapping_mul(0x2545_F491_4F6C_DD1D) % below.saturating_sub(2).max(1)
        })
        .collect();
    points.sort_unstable();
    points
}

/// Runs a sync until the fake has received `point` requests in all, then drops it.
async fn sync_until(fake: &FakeStripe, cache: &Cache, opts: &SyncOptions, point: u64) -> Client {
    let c = client(fake);
    let run = sync::sync(&c, None, opts, cache, "default", &Quiet);
    let killed = async {
        while fake.stats().requests < point {
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
    };
    tokio::select! {
        done = run => panic!("the sync finished before its kill point {point}: {:?}", done.map(|r| r.stats)),
        () = killed => {}
    }
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sync_killed_at_seeded_points_resumes_to_the_same_cache_without_rereading_pages() {
    let tz = jiff::tz::TimeZone::UTC;
    let now = tieout::time::parse_instant(NOW).expect("NOW");
    let opts = SyncOptions::for_months(now, &tz, 3);
    let root = tempfile::tempdir().expect("tmp");

    // The uninterrupted run.
    let fake = FakeStripe::start(FakeConfig::default()).await;
    let whole_cache = Cache::at(root.path().join("whole"));
    let whole = sync::sync(&client(&fake), None, &opts, &whole_cache, "default", &Quiet)
        .await
        .expect("sync");
    let total = whole.stats.requests;
    assert_eq!(whole.stats.replayed, 0);
    let account = fake.account_id();
    let want = cache_files(&whole.saved);
    assert!(
        !whole.saved.dir.join(JOURNAL_DIR).exists(),
        "a finished sync leaves no journal"
    );

    for (round, seed) in [19u64, 7, 2026].into_iter().enumerate() {
        let fake = FakeStripe::start(FakeConfig::default()).await;
        let cache = Cache::at(root.path().join(format!("round-{round}")));
        let mut kept_before = 0;
        let mut sent = 0;
        // The seeded kills, and one three quarters of the way through: early kills alone
        // may keep only each endpoint's first pages, which the resumed run reads again by
        // design, so the replay would go untested.
        let mut points = kill_points(seed, 3, total);
        points.push(total * 3 / 4);
        points.sort_unstable();
        points.dedup();
        for point in points {
            let c = sync_until(&fake, &cache, &opts, point).await;
            sent += c.stats().requests;
            // Loadable at every moment: no cache yet, never a damaged one.
            match cache.load(&account, Mode::Test) {
                Err(CacheError::Missing { .. }) => {}
                other => panic!("round {round}, killed at {point}: {:?}", other.map(|_| ())),
            }
            let kept = DiskJournal::open(&cache, &account, Mode::Test, &opts)
                .expect("journal")
                .resumed();
            assert!(
                kept >= kept_before,
                "round {round}: the journal lost answers ({kept_before} -> {kept})"
            );
            kept_before = kept;
        }
        assert!(kept_before > 0, "round {round}: nothing was kept");

        let c = client(&fake);
        let last = sync::sync(&c, None, &opts, &cache, "default", &Quiet)
            .await
            .expect("the resumed sync completes");
        sent += last.stats.requests;
        // Kept pages replayed (but the first of each endpoint and those sent with it,
        // read again to prove the key still may), the rest read: each page once,
        // together exactly one uninterrupted sync.
        assert!(last.stats.replayed > 0, "round {round}: nothing replayed");
        assert!(last.stats.replayed as usize <= kept_before, "round {round}");
        assert_eq!(
            last.stats.requests + last.stats.replayed,
            total,
            "round {round}: the resumed sync read a page again (sent {}, replayed {})",
            last.stats.requests,
            last.stats.replayed
        );
        // The same cache, byte for byte, and no journal left behind.
        let got = cache_files(&last.saved);
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            want.keys().collect::<Vec<_>>()
        );
        for (name, bytes) in &want {
            assert!(got[name] == *bytes, "round {round}: {name} differs");
        }
        assert_eq!(last.data, whole.data);
        assert!(!last.saved.dir.join(JOURNAL_DIR).exists());
        // Requests over all the runs: the uninterrupted count, plus one account read per
        // restart and the answers that were in flight at each kill.
        eprintln!(
            "round {round}: {sent} requests over 4 runs (uninterrupted: {total}), {kept_before} pages kept before the last"
        );
        assert!(sent >= total);
    }
}
