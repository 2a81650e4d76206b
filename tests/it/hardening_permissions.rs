//! Hardening, restricted keys (SECURITY.md): for each read permission a restricted
//! key may lack, the fake answers 403 and tieout names the permission to add (exit 3);
//! commands that do not need that permission still work, and so does the cache.

use crate::support::{FakeConfig, TEST_KEY, Tieout, start_fake};

/// (slug, whether `dunning` works without it: it reads invoices, their payments and
/// failing payment intents, whose last error carries the decline).
const PERMISSIONS: [(&str, bool); 7] = [
    ("rak_payout_read", true),
    ("rak_balance_read", true),
    ("rak_invoice_read", false),
    ("rak_charge_read", true),
    ("rak_customer_read", true),
    ("rak_dispute_read", true),
    ("rak_subscription_read", true),
];

#[test]
fn each_missing_permission_is_named_and_other_commands_still_work() {
    let fake = start_fake(FakeConfig::default());
    let t = Tieout::against(&fake);
    t.run(&["sync"]).success();
    for (slug, dunning_works) in PERMISSIONS {
        fake.deny(TEST_KEY, slug);
        // A first sync (no cache to reuse settled payouts' lines from) needs every read.
        let sync = Tieout::against(&fake).run(&["sync"]);
        assert_eq!(sync.code, Some(3), "sync without {slug}: {}", sync.stderr);
        assert!(
            sync.stderr.contains(slug),
            "sync without {slug} does not name it:\n{}",
            sync.stderr
        );
        // The dunning's own fresh read, without a cache: with the cache of `t` the
        // morning dunning refreshes from the events instead, reading only what changed
        // (tests/it/dunning_refresh.rs).
        let dunning = Tieout::against(&fake).run(&["dunning", "--format", "csv", "--out", slug]);
        if dunning_works {
            assert_eq!(
                dunning.code,
                Some(0),
                "dunning without {slug}: {}",
                dunning.stderr
            );
        } else {
            assert_eq!(
                dunning.code,
                Some(3),
                "dunning without {slug}: {}",
                dunning.stdout
            );
            assert!(dunning.stderr.contains(slug), "{slug}: {}", dunning.stderr);
        }
        // The cache from before does not need Stripe at all.
        t.run(&[
            "--cached", "close", "--month", "2026-10", "--force", "--out", "packet",
        ])
        .success();
        fake.allow(TEST_KEY, slug);
    }
    t.run(&["sync"]).success();
}

/// For each missing permission, the other headless commands read live from Stripe: each
/// works when it does not need the permission, and otherwise exits 3 naming it.
/// (status: the balance; reconcile: payouts and balance transactions; suggest for the
/// demo's tickets: customers, charges, disputes and subscriptions.)
#[test]
fn each_command_works_without_the_permissions_it_does_not_need() {
    let tickets = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/demo/tickets.csv");
    let commands: [(&str, Vec<&str>, &[&str]); 3] = [
        ("status", vec!["status"], &["rak_balance_read"]),
        (
            "reconcile",
            vec!["reconcile", "--month", "2026-10", "--out", "rec"],
            &["rak_payout_read", "rak_balance_read"],
        ),
        (
            "suggest",
            vec!["suggest", "--tickets", tickets, "--out", "sug"],
            &[
                "rak_charge_read",
                "rak_customer_read",
                "rak_dispute_read",
                "rak_subscription_read",
            ],
        ),
    ];
    let fake = start_fake(FakeConfig::default());
    for (slug, _) in PERMISSIONS {
        fake.deny(TEST_KEY, slug);
        let t = Tieout::against(&fake);
        for (label, args, needs) in &commands {
            let out = t.run(args);
            assert!(!out.stderr.contains("panicked"), "{label}: {}", out.stderr);
            if needs.contains(&slug) {
                assert_eq!(out.code, Some(3), "{label} without {slug}: {}", out.stderr);
                assert!(
                    out.stderr.contains(&format!("Add '{slug}'")),
                    "{label} without {slug} does not say to add it:\n{}",
                    out.stderr
                );
            } else {
                assert_eq!(
                    out.code,
                    Some(0),
                    "{label} does not need {slug} but failed:\n{}",
                    out.stderr
                );
            }
        }
        fake.allow(TEST_KEY, slug);
    }
}

/// `tieout status` lists each permission tieout reads with and whether the key has it,
/// as a table, from one `limit=1` GET of each; a missing one is named with what to add.
#[test]
fn status_prints_a_table_of_the_permissions_the_key_has() {
    let fake = start_fake(FakeConfig::default());
    for denied in [&["rak_dispute_read"][..], &["rak_payout_read"][..]] {
        for slug in denied {
            fake.deny(TEST_KEY, slug);
        }
        fake.clear_requests();
        let out = Tieout::against(&fake).run(&["status"]);
        assert_eq!(out.code, Some(0), "{}", out.stderr);
        let row = |slug: &str| -> Vec<String> {
            out.stdout
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("{slug} ")))
                .unwrap_or_default()
                .split_whitespace()
                .map(str::to_string)
                .collect()
        };
        assert!(out.stdout.contains("permission"), "{}", out.stdout);
        for (slug, _) in PERMISSIONS {
            let r = row(slug);
            let want = if denied.contains(&slug) { "NO" } else { "yes" };
            assert!(r.len() > 3, "{slug} has no row:\n{}", out.stdout);
            assert!(
                r.contains(&want.to_string()),
                "{slug}: {r:?}\n{}",
                out.stdout
            );
        }
        let lacking = denied[0];
        let resource = if lacking == "rak_dispute_read" {
            "Disputes"
        } else {
            "Payouts"
        };
        assert!(
            out.stdout.contains(&format!(
                "this key lacks {lacking}: add Read on {resource} in the Dashboard, then run `tieout login` again"
            )),
            "{}",
            out.stdout
        );
        // One cheap GET per permission it reads with.
        let probes: Vec<_> = fake
            .requests()
            .into_iter()
            .filter(|r| r.query == "limit=1")
            .collect();
        assert!(probes.iter().all(|r| r.method == "GET"), "{probes:?}");
        for path in [
            "/v1/disputes",
            "/v1/payouts",
            "/v1/invoices",
            "/v1/balance_transactions",
        ] {
            assert_eq!(
                probes.iter().filter(|r| r.path == path).count(),
                1,
                "{path}: {probes:?}"
            );
        }
        for slug in denied {
            fake.allow(TEST_KEY, slug);
        }
    }
}
