//! Cards that will fail before renewal, end to end: the demo and the fake Stripe (the
//! subscription list with its payment methods expanded) give the same section and
//! `expiring-cards.csv`; a key without `rak_payment_method_read` gets the section's
//! message and an otherwise complete run (the same worklist files, exit 0), and so does
//! a sync with it, whose cache remembers why the cards were not checked; `tieout status`
//! lists the permission.

use crate::support::cli::Tieout;
use crate::support::fake::start_fake;
use crate::support::{FakeConfig, TEST_KEY};

const PERMISSION: &str = "rak_payment_method_read";
const SECTION: &str = "## Cards that will fail before renewal";

fn read(t: &Tieout, name: &str) -> String {
    String::from_utf8(std::fs::read(t.work_dir().join(name)).expect(name)).expect("utf8")
}

/// The Markdown up to the cards section (and without the line naming when it ran).
fn before_section(md: &str) -> String {
    md.split(SECTION)
        .next()
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.starts_with("Computed at "))
        .collect::<Vec<_>>()
        .join("\n")
}

fn section(md: &str) -> String {
    md.split_once(SECTION)
        .map(|(_, s)| s.to_string())
        .unwrap_or_default()
}

fn json(t: &Tieout) -> serde_json::Value {
    serde_json::from_str(&read(t, "failed-payments.json")).expect("json")
}

#[test]
fn the_fake_server_lists_the_same_cards_as_the_demo() {
    let demo = Tieout::demo();
    demo.run(&["dunning"]).success();
    let fake = start_fake(FakeConfig::default().account_readable_by_restricted_keys(true));
    let live = Tieout::against(&fake);
    live.run(&["dunning"]).success();
    let csv = read(&demo, "expiring-cards.csv");
    assert_eq!(csv, read(&live, "expiring-cards.csv"));
    assert_eq!(
        csv.lines().count(),
        5,
        "four cards fail before renewal:\n{csv}"
    );
    assert_eq!(
        section(&read(&demo, "failed-payments.md")),
        section(&read(&live, "failed-payments.md"))
    );
    assert_eq!(json(&demo)["expiring_cards"], json(&live)["expiring_cards"]);
    // One list of active subscriptions, its payment methods expanded in the same pages.
    let reads: Vec<_> = fake
        .requests()
        .into_iter()
        .filter(|r| r.path == "/v1/subscriptions")
        .collect();
    assert_eq!(reads.len(), 1, "{reads:?}");
    assert!(
        reads[0].query.contains("status=active")
            && reads[0]
                .query
                .contains("expand[]=data.customer.invoice_settings.default_payment_method"),
        "{:?}",
        reads[0].query
    );
}

#[test]
fn without_the_payment_method_permission_the_section_says_so_and_the_rest_is_complete() {
    let fake = start_fake(FakeConfig::default().account_readable_by_restricted_keys(true));
    let full = Tieout::against(&fake);
    full.run(&["dunning"]).success();
    fake.deny(TEST_KEY, PERMISSION);
    let denied = Tieout::against(&fake);
    let run = denied.run(&["dunning"]);
    run.success();
    assert!(
        run.stderr.contains(PERMISSION),
        "the run warns which permission is missing:\n{}",
        run.stderr
    );
    // The worklist's own files are the same.
    assert_eq!(
        read(&full, "failed-payments.csv"),
        read(&denied, "failed-payments.csv")
    );
    let (md_full, md_denied) = (
        read(&full, "failed-payments.md"),
        read(&denied, "failed-payments.md"),
    );
    assert_eq!(before_section(&md_full), before_section(&md_denied));
    let text = section(&md_denied);
    assert!(
        text.contains(&format!("missing `{PERMISSION}`"))
            && text.contains("PaymentMethods")
            && text.contains("tieout login")
            && text.contains("The rest of this report is complete."),
        "{text}"
    );
    let (mut a, mut b) = (json(&full), json(&denied));
    assert_eq!(b["expiring_cards"]["checked"], false);
    assert_eq!(b["expiring_cards"]["missing_permission"], PERMISSION);
    for v in [&mut a, &mut b] {
        let o = v.as_object_mut().expect("object");
        o.remove("expiring_cards");
        o.remove("computed_at_utc");
    }
    assert_eq!(a, b, "the JSON differs only in expiring_cards");
    // The CSV is the header alone: nothing was checked, nothing is invented.
    assert_eq!(
        read(&denied, "expiring-cards.csv").lines().count(),
        1,
        "{}",
        read(&denied, "expiring-cards.csv")
    );
    fake.allow(TEST_KEY, PERMISSION);
}

#[test]
fn a_sync_without_the_permission_succeeds_and_the_cache_says_why_cards_were_not_checked() {
    let fake = start_fake(FakeConfig::default().account_readable_by_restricted_keys(true));
    fake.deny(TEST_KEY, PERMISSION);
    let t = Tieout::against(&fake);
    t.run(&["sync"]).success();
    t.run(&["--cached", "dunning", "--format", "md"]).success();
    let text = section(&read(&t, "failed-payments.md"));
    assert!(text.contains(&format!("missing `{PERMISSION}`")), "{text}");
    // With the permission, the next sync reads the cards and the cache has them.
    fake.allow(TEST_KEY, PERMISSION);
    t.run(&["sync"]).success();
    t.run(&["--cached", "dunning", "--format", "csv", "--force"])
        .success();
    assert_eq!(read(&t, "expiring-cards.csv").lines().count(), 5);
}

#[test]
fn status_lists_the_payment_method_permission() {
    let fake = start_fake(FakeConfig::default());
    let out = Tieout::against(&fake).run(&["status"]);
    out.success();
    let row = |stdout: &str| {
        stdout
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{PERMISSION} ")))
            .map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
            .unwrap_or_default()
    };
    assert!(
        row(&out.stdout).contains(&"yes".to_string()),
        "{}",
        out.stdout
    );
    fake.deny(TEST_KEY, PERMISSION);
    let out = Tieout::against(&fake).run(&["status"]);
    out.success();
    assert!(
        row(&out.stdout).contains(&"NO".to_string()),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(&format!(
            "this key lacks {PERMISSION}: add Read on PaymentMethods in the Dashboard"
        )),
        "{}",
        out.stdout
    );
}
