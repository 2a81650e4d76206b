//! The month-end close packet: produced on the demo account, verified, byte-identical when
//! made again from the same data and `--now`, never replaced without `--force`, and
//! `--verify` names a file that changed.

use std::fs;

use crate::support::cli::Tieout;
use crate::support::golden::assert_golden_dir;

const FILES: [&str; 20] = [
    "MANIFEST.json",
    "README.md",
    // The Stripe balance (issue 33).
    "balance-activity.csv",
    "balance-rollforward.csv",
    "balance.json",
    "balance.md",
    "conversions.csv",
    "fees.csv",
    "disputes.csv",
    "failed-payments.csv",
    "failed-payments.json",
    "failed-payments.md",
    "journal-2026-10-qbo-journal-EUR.csv",
    "journal-2026-10-qbo-journal-JPY.csv",
    "journal-2026-10-qbo-journal-USD.csv",
    "journal-2026-10.beancount",
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

    // The packet's journal is the one `tieout journal` writes (beancount and the QBO
    // journal, the default `[close]` formats), and the README explains it.
    for name in FILES.iter().filter(|n| n.starts_with("journal-")) {
        assert_eq!(
            fs::read(a.join(name)).expect("packet"),
            fs::read(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/golden/journal/2026-10/daily")
                    .join(name)
            )
            .expect("journal golden"),
            "{name} differs from the journal command's"
        );
    }
    let readme = fs::read_to_string(a.join("README.md")).expect("readme");
    assert!(readme.contains("## Journal for the books"), "{readme}");
    assert!(readme.contains("`[close]`"), "{readme}");
    assert!(out.stdout.contains("journal: "), "{}", out.stdout);
}

/// The `[close]` section of the account map in the config folder picks the packet's
/// journal formats; a map that does not fit the month stops the packet before anything is
/// written (exit 2, what to change said).
#[test]
fn the_account_maps_close_section_picks_the_journal_and_a_bad_map_writes_nothing() {
    use tieout_core::journal::DEFAULT_MAP;
    let t = Tieout::demo();
    let config = t.home().join(".config/tieout");
    fs::create_dir_all(&config).expect("config dir");
    fs::write(
        config.join("accounts.toml"),
        DEFAULT_MAP.replace(
            "journal = [\"beancount\", \"qbo-journal\"]",
            "journal = [\"hledger\"]",
        ),
    )
    .expect("map");
    let dir = t.work_dir().join("hledger");
    t.run(&[
        "close",
        "--month",
        "2026-10",
        "--out",
        dir.to_str().expect("utf8"),
    ])
    .success();
    assert!(dir.join("journal-2026-10.hledger.journal").exists());
    assert!(!dir.join("journal-2026-10.beancount").exists());
    t.run(&["close", "--verify", dir.to_str().expect("utf8")])
        .success();

    fs::write(
        config.join("accounts.toml"),
        DEFAULT_MAP.replace("refund = \"Income:Sales:Refunds\"\n", ""),
    )
    .expect("map");
    let bad = t.work_dir().join("bad");
    let run = t.run(&[
        "close",
        "--month",
        "2026-10",
        "--out",
        bad.to_str().expect("utf8"),
    ]);
    run.code(2);
    assert!(
        run.stderr.contains("reporting category 'refund'")
            && run.stderr.contains("`journal = []` under [close]"),
        "{}",
        run.stderr
    );
    assert!(!bad.exists(), "nothing is written");
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
    // Exit 2, as for any export refused because files are already there.
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
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

    // A month the data was not read for would make an incomplete packet: refused (5).
    let old = t.work_dir().join("old");
    let r = t.run(&[
        "close",
        "--month",
        "2026-06",
        "--out",
        old.to_str().expect("utf8"),
    ]);
    r.code(5);
    assert!(
        r.stderr
            .contains("payouts arriving 2026-09-01 to 2026-11-30, which does not cover 2026-06"),
        "{}",
        r.stderr
    );
    assert!(!old.exists(), "nothing is written for an uncovered month");
}

/// The TUI's "export close packet" on the demo: the Tie-out tab, the month before the
/// one it opens on, `export_packet`, a folder typed into the prompt; the effect run by the
/// runtime's own function writes a packet that verifies and is byte-identical to
/// `tieout close` for the same month and `--now`. A second export is refused until the
/// explicit `overwrite_packet`.
#[test]
fn the_tui_export_writes_the_commands_packet_and_it_verifies() {
    use tieout::tui::harness::Harness;
    use tieout::tui::msg::{Effect, Msg};
    use tieout::tui::runtime::effects::export_packet;
    use tieout::tui::workspace::Workspace;

    let t = Tieout::demo();
    let cli = t.work_dir().join("cli");
    t.run(&[
        "close",
        "--month",
        "2026-10",
        "--out",
        cli.to_str().expect("utf8"),
    ])
    .success();

    let data = tieout::source::demo::load_demo().expect("demo");
    let mut h = Harness::loaded(Workspace::new(data, Vec::new()), 120, 40);
    h.keys("2");
    assert!(
        h.frame().contains("November 2026"),
        "opens on the latest month"
    );
    let tui = t.work_dir().join("from-the-tui");
    h.keys("[ P ctrl-u");
    h.type_text(tui.to_str().expect("utf8"));
    h.keys("enter");

    // Runs the export the TUI asked for, like the runtime's worker thread does.
    let run = |h: &mut Harness| -> Vec<String> {
        let (req, month, dir, force, input) = h
            .log
            .iter()
            .rev()
            .find_map(|e| match e {
                Effect::ExportPacket {
                    req,
                    month,
                    dir,
                    force,
                    input,
                } => Some((*req, *month, dir.clone(), *force, input.clone())),
                _ => None,
            })
            .expect("an ExportPacket effect");
        assert_eq!(month.to_string(), "2026-10");
        assert_eq!(dir, tui);
        let mut steps = Vec::new();
        let result = export_packet(&input, month, &dir, force, &mut |s| {
            h.step(Msg::Progress {
                req,
                text: s.clone(),
            });
            steps.push(s)
        });
        h.step(Msg::PacketExported { req, result });
        steps
    };
    let steps = run(&mut h);
    assert!(
        steps
            .iter()
            .any(|s| s == "writing MANIFEST.json (1/20 files)"),
        "{steps:?}"
    );
    assert!(
        steps
            .iter()
            .any(|s| s == "writing reconciliation.md (19/20 files)"),
        "{steps:?}"
    );
    let frame = h.frame();
    assert!(
        frame.contains(&format!(
            "Close packet 2026-10: {} · 19 files",
            tui.display()
        )),
        "{frame}"
    );

    let (manifest, v) = tieout::packet_dir::verify(&tui).expect("verify");
    assert!(v.is_intact(), "{v:?}");
    assert_eq!(manifest.files.len(), 19);
    for name in FILES {
        assert_eq!(
            fs::read(tui.join(name)).expect("tui file"),
            fs::read(cli.join(name)).expect("cli file"),
            "{name} differs between the TUI's packet and the command's"
        );
    }
    t.run(&["close", "--verify", tui.to_str().expect("utf8")])
        .success();

    // Again: the packet is kept, and only the explicit overwrite replaces it.
    fs::write(tui.join("README.md"), "edited\n").expect("tamper");
    h.keys("P ctrl-u");
    h.type_text(tui.to_str().expect("utf8"));
    h.keys("enter");
    run(&mut h);
    let frame = h.frame();
    assert!(
        frame.contains("a packet already exists; press F to overwrite"),
        "{frame}"
    );
    assert_eq!(
        fs::read_to_string(tui.join("README.md")).expect("kept"),
        "edited\n"
    );
    h.keys("F");
    run(&mut h);
    assert!(
        tieout::packet_dir::verify(&tui)
            .expect("verify")
            .1
            .is_intact()
    );
    assert_eq!(
        fs::read(tui.join("README.md")).expect("tui"),
        fs::read(cli.join("README.md")).expect("cli")
    );
}

/// A month older than the cache's window, and than the three months a fresh read covers,
/// is closed in one command: `close` reads the payouts of that month (and everything else
/// the packet needs) from Stripe instead of asking for a longer sync and `--cached`.
#[test]
fn a_month_older_than_the_cache_window_is_closed_in_one_command_through_the_fake() {
    use crate::support::{FakeConfig, start_fake};
    let fake = start_fake(FakeConfig::default());
    // Two months after the demo's last payout: the cache holds January 2027 only.
    let t = Tieout::against(&fake).now(Some("2027-01-15T12:00:00Z"));
    t.run(&["sync", "--months", "1"]).success();
    let dir = t.work_dir().join("close-2026-09");
    let dir_s = dir.to_str().expect("utf8");

    // From the cache alone it cannot be done, and the message says what to do.
    let cached = t.run(&["--cached", "close", "--month", "2026-09", "--out", dir_s]);
    cached.code(5);
    assert!(
        cached
            .stderr
            .contains("drop --cached to read 2026-09 from Stripe"),
        "{}",
        cached.stderr
    );
    assert!(!dir.exists());

    let run = t.run(&["close", "--month", "2026-09", "--out", dir_s]);
    run.success();
    assert!(run.stdout.contains("wrote close packet"), "{}", run.stdout);
    let verified = t.run(&["close", "--verify", dir_s]);
    verified.success();
    assert!(verified.stdout.contains("intact"), "{}", verified.stdout);

    // September's tie-out is the one the demo (which holds September) gives.
    let demo = Tieout::demo();
    let demo_dir = demo.work_dir().join("close-demo");
    demo.run(&[
        "close",
        "--month",
        "2026-09",
        "--out",
        demo_dir.to_str().expect("utf8"),
    ])
    .success();
    let csv = fs::read_to_string(dir.join("payout-reconciliation.csv")).expect("csv");
    let demo_csv = fs::read_to_string(demo_dir.join("payout-reconciliation.csv")).expect("csv");
    assert!(csv.lines().count() > 10, "{csv}");
    assert_eq!(csv, demo_csv);
    let first = run.stdout.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("2026-09: ") && !first.starts_with("2026-09: 0 payouts"),
        "{}",
        run.stdout
    );
}

/// The demo's bundled bank statements, as paths for `--bank`.
fn demo_statements() -> Vec<String> {
    ["bank-usd.csv", "bank-eur.csv", "bank-jpy.csv"]
        .iter()
        .map(|f| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures/demo")
                .join(f)
                .display()
                .to_string()
        })
        .collect()
}

/// `close --bank`: the packet gains `bank-match.csv`, the Bank sections and a README
/// section on the statuses; the manifest lists the file and `--verify` checks it.
#[test]
fn a_packet_with_the_bank_statement_holds_the_bank_match_and_verifies() {
    let t = Tieout::demo();
    let dir = t.work_dir().join("close-bank");
    let mut args = vec![
        "close".to_string(),
        "--month".into(),
        "2026-10".into(),
        "--out".into(),
        dir.display().to_string(),
    ];
    for f in demo_statements() {
        args.push("--bank".into());
        args.push(f);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = t.run(&args);
    out.success();
    assert!(out.stdout.contains("bank: "), "{}", out.stdout);
    let manifest = fs::read_to_string(dir.join("MANIFEST.json")).expect("manifest");
    assert!(manifest.contains("\"bank-match.csv\""), "{manifest}");
    let readme = fs::read_to_string(dir.join("README.md")).expect("readme");
    assert!(readme.contains("## Does it reach the bank?"), "{readme}");
    assert!(readme.contains("| `pending` |") && readme.contains("| `review` |"));
    assert!(readme.contains("| `bank-match.csv` |"));
    let verified = t.run(&["close", "--verify", dir.to_str().expect("utf8")]);
    verified.success();
    assert!(verified.stdout.contains("intact"), "{}", verified.stdout);
    // Changing the bank file is caught like any other.
    fs::write(dir.join("bank-match.csv"), "payout_id\n").expect("tamper");
    let tampered = t.run(&["close", "--verify", dir.to_str().expect("utf8")]);
    assert_eq!(tampered.code, Some(5));
    assert!(
        tampered.stdout.contains("changed   bank-match.csv"),
        "{}",
        tampered.stdout
    );
    // --bank belongs to writing a packet, not to verifying one.
    let mixed = t.run(&[
        "close",
        "--verify",
        dir.to_str().expect("utf8"),
        "--bank",
        "x.csv",
    ]);
    assert_eq!(mixed.code, Some(2), "{}", mixed.stderr);

    let golden = t.work_dir().join("close-bank-golden");
    let mut again: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    again[4] = golden.display().to_string();
    let again: Vec<&str> = again.iter().map(String::as_str).collect();
    t.run(&again).success();
    assert_golden_dir("close/2026-10-bank", &golden);
}
