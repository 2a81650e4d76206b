//! Hardening, read-only (DESIGN §6): everything the headless commands send to Stripe is a
//! GET, checked on the fake server's request log of a full sync and a close packet.

use crate::support::{FakeConfig, Tieout, start_fake};

#[test]
fn a_full_sync_and_close_send_only_gets() {
    let fake = start_fake(FakeConfig::default());
    let t = Tieout::against(&fake);
    t.run(&["sync"]).success();
    let out = t.work_dir().join("packet").display().to_string();
    t.run(&["close", "--month", "2026-10", "--out", &out])
        .success();
    let log = fake.requests();
    assert!(
        log.len() > 10,
        "too few requests to prove anything: {}",
        log.len()
    );
    for r in &log {
        assert_eq!(r.method, "GET", "{} {}?{}", r.method, r.path, r.query);
        assert!(
            r.idempotency_key.is_none(),
            "{}: an idempotency key on a read",
            r.path
        );
    }
}
