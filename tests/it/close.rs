//! The month-end close packet: produced on the demo account, verified, byte-identical when
//! made again from the same data and `--now`, never replaced without `--force`, and
//! `--verify` names a file that changed.

use std::fs;

use crate::support::cli::Tieout;
use crate::support::golden::assert_golden_dir;

const FILES: [&str; 10] = [
    "MANIFEST.json",
    "README.md",
    "disputes.csv",
    "failed-payments.csv",
    "failed-payments.json",
    "failed-payments.md",
    "payout-reconciliation.csv",
    "reconciliation.json",
    "reconciliation.md",
    "refunds.csv",
];

#[test]
fn demo_packet_is_complete_verifies_and_is_deterministic() {
    let t = Tieout::demo();
    let a = t.work_dir().join("close-a");
    let b = t.work_dir().join("close-b");
    let out = t.run(&[
        "close",
        "--month",
        "2026-10",
        "--out",
        a.to_str().expect("utf8"),
    ]);
    out.success();
    assert!(out.stdout.contains("wrote close packet"), "{}", out.stdout);

    let mut names: Vec<String> = fs::read_dir(&a)
        .expect("packet folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut expected: Vec<String> = FILES.iter().map(|s| s.to_string()).collect();
    expected.sort();
    assert_eq!(names, expected);

    let verified = t.run(&["close", "--verify", a.to_str().expect("utf8")]);
    verified.success();
    assert!(verified.stdout.contains("intact"), "{}", verified.stdout);

    // Same data and --now: byte-identical, file by file (the manifest included).
    t.run(&[
        "close",
        "--month",
        "2026-10",
        "--out",
        b.to_str().expect("utf8"),
    ])
    .success();
    for name in &names {
        assert_eq!(
            fs::read(a.join(name)).expect("a"),
            fs::read(b.join(name)).expect("b"),
            "{name} differs between two runs"
        );
    }
    assert_golden_dir("close/2026-10", &a);
}

#[test]
fn an_existing_packet_is_kept_without_force_and_replaced_with_it() {
    let t = Tieout::demo();
    let dir = t.work_dir().join("packet");
    let d = dir.to_str().expect("utf8");
    t.run(&["close", "--month", "2026-10", "--out", d])
        .success();
    fs::write(dir.join("reconciliation.md"), "edited by hand\n").expect("tamper");

    let refused = t.run(&["close", "--month", "2026-10", "--out", d]);
    assert_ne!(refused.code, Some(0));
    assert!(refused.stderr.contains("--force"), "{}", refused.stderr);
    assert_eq!(
        fs::read_to_string(dir.join("reconciliation.md")).expect("kept"),
        "edited by hand\n",
        "a refused run must not touch the existing packet"
    );

    let tampered = t.run(&["close", "--verify", d]);
    tampered.code(5);
    assert!(
        tampered.stdout.contains("changed   reconciliation.md"),
        "{}",
        tampered.stdout
    );

    t.run(&["close", "--month", "2026-10", "--out", d, "--force"])
        .success();
    t.run(&["close", "--verify", d]).success();
}

#[test]
fn bad_month_and_missing_manifest_are_clear_errors() {
    let t = Tieout::demo();
    let out = t.work_dir().join("x");
    let bad = t.run(&[
        "close",
        "--month",
        "2026-13",
        "--out",
        out.to_str().expect("utf8"),
    ]);
    bad.code(2);
    assert!(bad.stderr.contains("YYYY-MM"), "{}", bad.stderr);
    assert!(!out.exists(), "nothing is written for a bad month");

    let empty = t.work_dir().join("empty");
    fs::create_dir_all(&empty).expect("mkdir");
    let v = t.run(&["close", "--verify", empty.to_str().expect("utf8")]);
    v.code(2);
    assert!(v.stderr.contains("MANIFEST.json"), "{}", v.stderr);
}
