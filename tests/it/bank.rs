//! `tieout reconcile --bank` end to end through the binary: golden files (bank-match.csv,
//! the reconciliation files with their Bank section, stdout and the exit code) for the
//! demo's October and November against the fixture statements, a user's CSV profile from
//! `bank.toml`, and malformed statements refused with the place named (exit 2, nothing
//! written).
//!
//! Regenerate the goldens after an intended change with
//! `UPDATE_GOLDEN=1 cargo test --test it bank` and review the diff.

use std::path::PathBuf;

use crate::support::{RunOutput, Tieout, assert_golden, assert_golden_dir};

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/bank")
        .join(name)
        .display()
        .to_string()
}

fn reconcile(t: &Tieout, month: &str, out: &str, profile: &str, files: &[&str]) -> RunOutput {
    let paths: Vec<String> = files.iter().map(|f| fixture(f)).collect();
    let mut args = vec![
        "reconcile",
        "--month",
        month,
        "--out",
        out,
        "--bank-profile",
        profile,
    ];
    for p in &paths {
        args.push("--bank");
        args.push(p);
    }
    t.run(&args)
}

fn stdout_golden(out: &RunOutput) -> String {
    format!(
        "{}exit: {:?}\n{}",
        out.stdout,
        out.code.unwrap_or(-1),
        out.stderr
    )
}

#[test]
fn demo_months_against_the_fixture_statements_match_their_golden_files() {
    let t = Tieout::demo();
    // (month, name, profile, files, exit code)
    let cases: [(&str, &str, &str, &[&str], i32); 4] = [
        (
            "2026-10",
            "2026-10-all",
            "us-debit-credit",
            &[
                "us-checking-2026-10-11.csv",
                "jpy-2026-10-11.ofx",
                "eur-2026-10-11.camt053.xml",
            ],
            5,
        ),
        (
            "2026-11",
            "2026-11-all",
            "us-debit-credit",
            &[
                "us-checking-2026-10-11.csv",
                "jpy-2026-10-11.ofx",
                "eur-2026-10-11.camt053.xml",
            ],
            5,
        ),
        (
            "2026-11",
            "2026-11-eu-csv",
            "eu-semicolon",
            &["eu-giro-2026-10-11.csv"],
            0,
        ),
        // One CAMT.053 file with a USD and a EUR statement (the USD one padded to five
        // decimals): both accounts' payouts are matched.
        (
            "2026-10",
            "2026-10-usd-eur-camt",
            "us-debit-credit",
            &["usd-eur-2026-10-11.camt053.xml"],
            5,
        ),
    ];
    for (month, name, profile, files, code) in cases {
        let out = reconcile(&t, month, name, profile, files);
        // A review or a missing deposit: exit 5, with the files written.
        assert_eq!(out.code, Some(code), "{}\n{}", out.stdout, out.stderr);
        assert_eq!(
            out.stderr.contains("on the bank side"),
            code == 5,
            "{}",
            out.stderr
        );
        assert_golden_dir(&format!("bank/{name}/files"), &t.work_dir().join(name));
        assert_golden(&format!("bank/{name}/stdout.txt"), &stdout_golden(&out));
    }
}

/// CSV exports as five bank styles write them (issue 34), each read with its profile from
/// `tests/fixtures/bank/bank.toml` (the README's examples): ING's `Af`/`Bij` sign column,
/// Triodos with no header and `Debet`/`Credit`, Nordea with pending `Varaus` rows, a German
/// export with a preamble, `Währung` and a closing balance line, Wells Fargo with no
/// header. Each golden `bank-match.csv` shows its lines matched to the demo's payouts (by
/// trace id, by amount and date, a failed payout's debit-back; Wells Fargo's statement
/// lacks one payout, so exit 5).
#[test]
fn bank_csv_styles_read_with_their_profiles_match_their_golden_files() {
    let config = tempfile::tempdir().expect("config dir");
    std::fs::copy(fixture("bank.toml"), config.path().join("bank.toml")).expect("bank.toml");
    let t = Tieout::demo().env("TIEOUT_CONFIG_DIR", &config.path().display().to_string());
    // (profile and fixture name, exit code)
    let cases: [(&str, i32); 5] = [
        ("ing", 0),
        ("triodos", 0),
        ("nordea", 0),
        ("german-preamble", 0),
        ("wells-fargo", 5),
    ];
    for (profile, code) in cases {
        let name = format!("2026-10-{profile}-csv");
        let file = format!("{profile}-2026-10-11.csv");
        let out = reconcile(&t, "2026-10", &name, profile, &[file.as_str()]);
        assert_eq!(
            out.code,
            Some(code),
            "{profile}: {}\n{}",
            out.stdout,
            out.stderr
        );
        // The Stripe side is the same as in the other goldens: only the bank leg is kept.
        let csv = std::fs::read_to_string(t.work_dir().join(&name).join("bank-match.csv"))
            .expect("bank-match.csv");
        assert_golden(&format!("bank/{name}/bank-match.csv"), &csv);
        assert_golden(&format!("bank/{name}/stdout.txt"), &stdout_golden(&out));
    }
}

/// MT940 files as three kinds of bank write them (issue 34), found by their content: a
/// German savings bank's (`?`-sub-fields with `EREF+`/`SVWZ+`, an entry date, one statement
/// per month, Latin-1, CR/LF), ING's (slash codes `/NAME/`, `/REMI/`, `/EREF/`, LF) and a
/// corporate bank's SWIFT messages (`{1:}{2:}{4:` wrappers, a USD account in two pages
/// `:60M:`/`:62M:` and a JPY account, the trace id as the `:61:` customer reference); and a
/// US bank's BAI2 prior-day file (a group per day, `88` continuations of the summaries and
/// the texts, type codes 165, 195, 475, 495, 699, every control total). Each golden
/// `bank-match.csv` shows the demo's payouts matched by the trace id the text or the
/// reference names, by amount and date where a line names none, a failed payout's
/// debit-back; the USD accounts lack one payout, so exit 5.
#[test]
fn mt940_and_bai2_files_match_their_golden_files() {
    let t = Tieout::demo();
    // (fixture, golden folder, exit code)
    let cases: [(&str, &str, i32); 4] = [
        ("sparkasse-2026-10-11.mt940", "2026-10-sparkasse-mt940", 0),
        ("ing-2026-10-11.mt940", "2026-10-ing-mt940", 0),
        ("corporate-2026-10-11.mt940", "2026-10-corporate-mt940", 5),
        ("usd-2026-10-11.bai2", "2026-10-usd-bai2", 5),
    ];
    for (file, name, code) in cases {
        let out = reconcile(&t, "2026-10", name, "tieout", &[file]);
        assert_eq!(
            out.code,
            Some(code),
            "{file}: {}\n{}",
            out.stdout,
            out.stderr
        );
        // The Stripe side is the same as in the other goldens: only the bank leg is kept.
        let csv = std::fs::read_to_string(t.work_dir().join(name).join("bank-match.csv"))
            .expect("bank-match.csv");
        assert_golden(&format!("bank/{name}/bank-match.csv"), &csv);
        assert_golden(&format!("bank/{name}/stdout.txt"), &stdout_golden(&out));
    }
}

/// The columns of `bank-match.csv` that say what matched what, by which rule.
fn matches(t: &Tieout, out: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(t.work_dir().join(out).join("bank-match.csv"))
        .expect("bank-match.csv");
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    reader
        .records()
        .map(|r| {
            let r = r.expect("a row");
            [0, 4, 5, 6, 8, 9, 10]
                .iter()
                .map(|&i| r.get(i).unwrap_or("").to_string())
                .collect()
        })
        .collect()
}

/// Issue 34, item 6: `bank-profile --guess` proposes, for every CSV fixture, a profile
/// that reads it into the same matches (payout, status, line, rule, offset) as the
/// profile the fixture is known by; the printed table is saved as `bank.toml` unchanged.
#[test]
fn a_guessed_profile_reads_every_csv_fixture_into_the_same_matches() {
    let known = tempfile::tempdir().expect("config dir");
    std::fs::copy(fixture("bank.toml"), known.path().join("bank.toml")).expect("bank.toml");
    let cases = [
        ("2026-10", "ing-2026-10-11.csv", "ing"),
        ("2026-10", "triodos-2026-10-11.csv", "triodos"),
        ("2026-10", "nordea-2026-10-11.csv", "nordea"),
        (
            "2026-10",
            "german-preamble-2026-10-11.csv",
            "german-preamble",
        ),
        ("2026-10", "wells-fargo-2026-10-11.csv", "wells-fargo"),
        ("2026-10", "us-checking-2026-10-11.csv", "us-debit-credit"),
        ("2026-11", "eu-giro-2026-10-11.csv", "eu-semicolon"),
    ];
    for (month, file, profile) in cases {
        let t = Tieout::new();
        let said = t.run(&[
            "bank-profile",
            "--guess",
            &fixture(file),
            "--name",
            "guessed",
        ]);
        assert_eq!(said.code, Some(0), "{file}: {}", said.stderr);
        assert!(
            said.stdout.contains("[profiles.guessed]\n"),
            "{}",
            said.stdout
        );
        let guessed = tempfile::tempdir().expect("config dir");
        std::fs::write(guessed.path().join("bank.toml"), &said.stdout).expect("bank.toml");
        let with = |dir: &tempfile::TempDir| {
            Tieout::demo().env("TIEOUT_CONFIG_DIR", &dir.path().display().to_string())
        };
        let (a, b) = (with(&known), with(&guessed));
        let want = reconcile(&a, month, "known", profile, &[file]);
        let got = reconcile(&b, month, "guessed", "guessed", &[file]);
        assert_eq!(
            got.code, want.code,
            "{file}: {}\n{}",
            got.stderr, said.stdout
        );
        assert_eq!(
            matches(&b, "guessed"),
            matches(&a, "known"),
            "{file}:\n{}",
            said.stdout
        );
    }
    let t = Tieout::new();
    let bad = t.work_dir().join("notes.csv");
    std::fs::write(&bad, "just some notes\nno columns here\n").expect("write");
    let out = t.run(&["bank-profile", "--guess", &bad.display().to_string()]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(
        out.stderr.contains("set `delimiter` by hand"),
        "{}",
        out.stderr
    );
}

#[test]
fn the_bank_section_and_file_appear_only_with_a_statement() {
    let t = Tieout::demo();
    let out = t.run(&["reconcile", "--month", "2026-10", "--out", "plain"]);
    assert!(matches!(out.code, Some(0) | Some(5)), "{}", out.stderr);
    let dir = t.work_dir().join("plain");
    assert!(!dir.join("bank-match.csv").exists());
    let md = std::fs::read_to_string(dir.join("reconciliation.md")).expect("md");
    assert!(!md.contains("## Bank"));
    // The same run with a statement keeps every byte before the Bank section.
    let with = reconcile(&t, "2026-10", "with", "tieout", &["jpy-2026-10-11.ofx"]);
    assert!(matches!(with.code, Some(0) | Some(5)), "{}", with.stderr);
    let md_bank = std::fs::read_to_string(t.work_dir().join("with/reconciliation.md")).expect("md");
    assert!(
        md_bank.starts_with(&md),
        "the Markdown before the Bank section is unchanged"
    );
    let json = std::fs::read_to_string(dir.join("reconciliation.json")).expect("json");
    let json_bank =
        std::fs::read_to_string(t.work_dir().join("with/reconciliation.json")).expect("json");
    let head = json.trim_end().trim_end_matches('}').trim_end();
    assert!(json_bank.starts_with(head));
    let v: serde_json::Value = serde_json::from_str(&json_bank).expect("valid JSON");
    assert_eq!(v["bank"]["counts"]["matched"], 5, "{}", v["bank"]["counts"]);
    assert_eq!(
        std::fs::read(dir.join("payout-reconciliation.csv")).expect("csv"),
        std::fs::read(t.work_dir().join("with/payout-reconciliation.csv")).expect("csv")
    );
}

#[test]
fn a_users_csv_profile_from_bank_toml() {
    let config = tempfile::tempdir().expect("config dir");
    std::fs::write(
        config.path().join("bank.toml"),
        "[profiles.giro]\ndate = \"Buchungstag\"\ndate_formats = [\"%d.%m.%Y\"]\namount = \"Betrag\"\ncurrency_column = \"Waehrung\"\ndescription = [\"Auftraggeber\", \"Verwendungszweck\"]\ndecimal_comma = true\ndelimiter = \";\"\n",
    )
    .expect("write bank.toml");
    let t = Tieout::demo().env("TIEOUT_CONFIG_DIR", &config.path().display().to_string());
    let user = reconcile(&t, "2026-11", "user", "giro", &["eu-giro-2026-10-11.csv"]);
    let builtin = reconcile(
        &t,
        "2026-11",
        "builtin",
        "eu-semicolon",
        &["eu-giro-2026-10-11.csv"],
    );
    assert_eq!(user.code, builtin.code, "{}", user.stderr);
    assert_eq!(
        std::fs::read(t.work_dir().join("user/bank-match.csv")).expect("user"),
        std::fs::read(t.work_dir().join("builtin/bank-match.csv")).expect("builtin")
    );
    let out = reconcile(&t, "2026-11", "none", "nope", &["eu-giro-2026-10-11.csv"]);
    assert_eq!(out.code, Some(2));
    assert!(
        out.stderr
            .contains("no bank CSV profile named 'nope': use one of giro, tieout"),
        "{}",
        out.stderr
    );
}

#[test]
fn malformed_statements_are_refused_naming_the_place() {
    let t = Tieout::demo();
    let cases = [
        (
            "bad-date.csv",
            "date,amount,currency,description\n2026-10-05,1.00,usd,STRIPE\n2026-10-32,2.00,usd,STRIPE\n",
            "tieout: bank statement bad-date.csv: line 3: a date in column 'date' as %Y-%m-%d, found '2026-10-32'",
        ),
        (
            "empty.ofx",
            "OFXHEADER:100\nDATA:OFXSGML\n\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>USD<BANKTRANLIST><DTSTART>20261001</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n",
            "tieout: bank statement empty.ofx: <BANKTRANLIST>: at least one <STMTTRN> transaction (the file has none)",
        ),
        (
            "cut.xml",
            "<?xml version=\"1.0\"?>\n<Document xmlns=\"urn:iso:std:iso:20022:tech:xsd:camt.053.001.02\"><BkToCstmrStmt><Stmt>\n<Ntry><Amt Ccy=\"EUR\">1.00</Amt>\n",
            "tieout: bank statement cut.xml: line 3, <Ntry>: </Ntry> before the end of the file (the XML is truncated)",
        ),
    ];
    for (name, text, message) in cases {
        let path = t.work_dir().join(name);
        std::fs::write(&path, text).expect("write the statement");
        let out = t.run(&[
            "reconcile",
            "--month",
            "2026-10",
            "--out",
            "bad",
            "--bank",
            &path.display().to_string(),
        ]);
        assert_eq!(out.code, Some(2), "{name}: {}", out.stderr);
        assert_eq!(out.stderr.trim_end(), message);
        assert!(!t.work_dir().join("bad").exists(), "nothing is written");
    }
}

/// The demo's own statements (`fixtures/demo/bank-*.csv`, made by the generator from the
/// demo payouts) against October and November: golden files, stdout and the exit code.
#[test]
fn the_demo_against_its_bundled_statements_matches_its_golden_files() {
    let t = Tieout::demo();
    let files: Vec<String> = ["bank-usd.csv", "bank-eur.csv", "bank-jpy.csv"]
        .iter()
        .map(|f| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures/demo")
                .join(f)
                .display()
                .to_string()
        })
        .collect();
    for month in ["2026-10", "2026-11"] {
        let name = format!("demo-{month}");
        let mut args = vec!["reconcile", "--month", month, "--out", &name];
        for f in &files {
            args.push("--bank");
            args.push(f);
        }
        let out = t.run(&args);
        assert!(matches!(out.code, Some(0) | Some(5)), "{}", out.stderr);
        assert!(out.stdout.contains("bank: "), "{}", out.stdout);
        assert_golden_dir(&format!("bank/{name}/files"), &t.work_dir().join(&name));
        assert_golden(&format!("bank/{name}/stdout.txt"), &stdout_golden(&out));
    }
}

/// A statement path that is a device (or a link to one) is refused before it is read:
/// `--bank /dev/zero` used to read until memory ran out.
#[cfg(unix)]
#[test]
fn a_bank_path_that_is_not_a_file_is_refused_before_it_is_read() {
    let t = Tieout::demo();
    let out = t.work_dir().join("out");
    let link = t.work_dir().join("statement.csv");
    std::os::unix::fs::symlink("/dev/zero", &link).expect("link");
    let run = t.run(&[
        "reconcile",
        "--month",
        "2026-10",
        "--out",
        &out.display().to_string(),
        "--bank",
        &link.display().to_string(),
    ]);
    run.code(2);
    assert!(run.stderr.contains("not a regular file"), "{}", run.stderr);
}

fn demo_statement(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/demo")
        .join(name)
        .display()
        .to_string()
}

/// The payout rows of a `bank-match.csv` (the lines listed after them left out).
fn payout_rows(t: &Tieout, out: &str) -> Vec<String> {
    std::fs::read_to_string(t.work_dir().join(out).join("bank-match.csv"))
        .expect("bank-match.csv")
        .lines()
        .filter(|r| r.starts_with("po_"))
        .map(str::to_string)
        .collect()
}

/// Issue 40: the same statement given twice sent 23 payouts to review without naming the
/// repeated lines. Two overlapping exports of the demo's USD account: the lines both hold
/// are named `duplicate` with the place of each copy, and the payouts match as with one.
#[test]
fn a_statement_line_in_two_files_is_named_a_duplicate_and_the_payouts_still_match() {
    let t = Tieout::demo();
    let usd = std::fs::read_to_string(demo_statement("bank-usd.csv")).expect("statement");
    let rows: Vec<&str> = usd.lines().collect();
    let (header, body) = (rows[0], &rows[1..]);
    // a.csv: the file's lines 2 to 35; b.csv: its lines 20 to the end (16 shared).
    let a = format!("{header}\n{}\n", body[..34].join("\n"));
    let b = format!("{header}\n{}\n", body[18..].join("\n"));
    std::fs::write(t.work_dir().join("a.csv"), a).expect("write a");
    std::fs::write(t.work_dir().join("b.csv"), b).expect("write b");
    let others = [
        demo_statement("bank-eur.csv"),
        demo_statement("bank-jpy.csv"),
    ];
    let run = |out: &str, usd: &[&str]| {
        let mut args = vec!["reconcile", "--month", "2026-10", "--out", out];
        for f in usd.iter().copied().chain(others.iter().map(String::as_str)) {
            args.push("--bank");
            args.push(f);
        }
        t.run(&args)
    };
    let whole = demo_statement("bank-usd.csv");
    let once = run("once", &[&whole]);
    let split = run("split", &["a.csv", "b.csv"]);
    assert_eq!(split.code, once.code, "{}", split.stderr);
    assert_eq!(split.stderr, once.stderr, "no payout goes to review for it");
    assert_eq!(payout_rows(&t, "split"), payout_rows(&t, "once"));
    assert!(
        split.stdout.contains("; 16 statement lines given twice"),
        "{}",
        split.stdout
    );

    let csv = std::fs::read_to_string(t.work_dir().join("split/bank-match.csv")).expect("csv");
    let dups: Vec<&str> = csv.lines().filter(|r| r.contains(",duplicate,")).collect();
    assert_eq!(dups.len(), 16, "{csv}");
    assert!(
        dups[0].contains(",b.csv:2,")
            && dups[0].contains("the same line as a.csv:20 in a statement given before"),
        "{}",
        dups[0]
    );
    let md = std::fs::read_to_string(t.work_dir().join("split/reconciliation.md")).expect("md");
    assert!(md.contains("\n### Statement lines given twice\n"), "{md}");
    assert!(md.contains("| b.csv:17 | a.csv:35 | "), "{md}");
    let json =
        std::fs::read_to_string(t.work_dir().join("split/reconciliation.json")).expect("json");
    let v: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
    let lines = v["bank"]["duplicate_lines"].as_array().expect("duplicates");
    assert_eq!(lines.len(), 16);
    assert_eq!(lines[0]["status"], "duplicate");
    assert_eq!(lines[0]["same_as"], "a.csv:20");

    // One file holding a line twice is two postings: nothing is named.
    let once_md = std::fs::read_to_string(t.work_dir().join("once/reconciliation.md")).expect("md");
    assert!(!once_md.contains("given twice"), "{once_md}");
}

/// The same file given twice, by the same path, through a link or as a byte-for-byte
/// copy, is refused before anything is written.
#[test]
fn the_same_statement_file_given_twice_is_refused() {
    let t = Tieout::demo();
    let whole = demo_statement("bank-usd.csv");
    let copy = t.work_dir().join("copy.csv");
    std::fs::copy(&whole, &copy).expect("copy");
    let copy = copy.display().to_string();
    let link = t.work_dir().join("link.csv");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&whole, &link).expect("link");
    #[cfg(not(unix))]
    std::fs::copy(&whole, &link).expect("copy");
    let link = link.display().to_string();
    let link_said = if cfg!(unix) {
        "the same file as"
    } else {
        "a copy of"
    };
    for (second, said) in [
        (whole.as_str(), "the same file as"),
        (copy.as_str(), "a copy of"),
        (link.as_str(), link_said),
    ] {
        let out = t.run(&[
            "reconcile",
            "--month",
            "2026-10",
            "--out",
            "twice",
            "--bank",
            &whole,
            "--bank",
            second,
        ]);
        assert_eq!(out.code, Some(2), "{}", out.stderr);
        assert_eq!(
            out.stderr.trim_end(),
            format!("tieout: --bank {second}: {said} --bank {whole} (give each statement once)")
        );
        assert!(!t.work_dir().join("twice").exists(), "nothing is written");
    }
}
