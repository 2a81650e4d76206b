//! Hardening, secrets (SECURITY.md): every headless command runs against the fake Stripe
//! server with a recognisable canary key, and the key never shows up in what tieout
//! prints, in any file it leaves behind (cache, exports, logs), or in a panic message.
//! Keys are never accepted as command-line arguments.

use std::path::Path;

use crate::support::{FakeConfig, Fault, RunOutput, Tieout, start_fake};

/// A key the fake accepts (any `rk_test_` key) and that is easy to spot.
pub const CANARY: &str = "rk_test_SECRETcanary0123456789";
/// A part of the canary that the masked form (`rk_test_...6789`) never contains.
const CANARY_CORE: &str = "SECRETcanary";

/// Every file under `dir` (recursively), with its bytes.
pub fn files_under(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(bytes) = std::fs::read(&p) {
                out.push((p, bytes));
            }
        }
    }
    out
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[track_caller]
fn assert_no_canary(label: &str, run: &RunOutput) {
    for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
        assert!(
            !text.contains(CANARY_CORE),
            "`{label}` printed the key on {stream}:\n{text}"
        );
        assert!(
            !text.contains("panicked"),
            "`{label}` panicked ({stream}):\n{text}"
        );
    }
}

#[test]
fn no_command_leaks_the_key_to_output_cache_exports_or_logs() {
    let fake = start_fake(FakeConfig::default());
    let t = Tieout::new()
        .key(CANARY)
        .api_base(&fake.base_url())
        .env("RUST_BACKTRACE", "1");
    let work = t.work_dir();
    let w = |sub: &str| work.join(sub).display().to_string();
    let tickets = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/demo/tickets.csv");
    let runs: Vec<(&str, Vec<String>, i32)> = vec![
        ("status", vec!["status".into()], 0),
        ("sync", vec!["sync".into()], 0),
        (
            "reconcile",
            vec![
                "reconcile".into(),
                "--month".into(),
                "2026-10".into(),
                "--out".into(),
                w("rec"),
            ],
            0,
        ),
        (
            "reconcile --cached",
            vec![
                "--cached".into(),
                "reconcile".into(),
                "--month".into(),
                "2026-10".into(),
                "--out".into(),
                w("rec-cached"),
            ],
            0,
        ),
        (
            "dunning",
            vec!["dunning".into(), "--out".into(), w("dun")],
            0,
        ),
        (
            "suggest --tickets",
            vec![
                "suggest".into(),
                "--tickets".into(),
                tickets.into(),
                "--out".into(),
                w("sug"),
            ],
            0,
        ),
        (
            "close",
            vec![
                "close".into(),
                "--month".into(),
                "2026-10".into(),
                "--out".into(),
                w("close"),
            ],
            0,
        ),
        (
            "close --verify",
            vec!["close".into(), "--verify".into(), w("close")],
            0,
        ),
        (
            "suggest (one ticket)",
            vec![
                "suggest".into(),
                "--email".into(),
                "nobody@example.invalid".into(),
                "--order".into(),
                "ORD-0".into(),
            ],
            0,
        ),
        ("audit", vec!["audit".into()], 0),
        // The workbench refuses to start without a terminal, after reading the key.
        ("tui", vec![], 2),
        // A failing run prints an error: it must not carry the key either.
        (
            "reconcile (bad month)",
            vec!["reconcile".into(), "--month".into(), "2026-13".into()],
            2,
        ),
    ];
    for (label, args, expect) in &runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = t.run(&args);
        out.code(*expect);
        assert_no_canary(label, &out);
    }
    // A key pasted into --stripe-account by mistake is not printed back either.
    let misplaced = t.run(&["--stripe-account", CANARY, "status"]);
    assert_no_canary("status --stripe-account KEY", &misplaced);
    misplaced.code(3);
    assert!(
        misplaced.stdout.contains("acting as rk_test_..."),
        "{}",
        misplaced.stdout
    );
    // Nor one pasted into --profile (it would become a file name) or --bank (its
    // refusal names the path).
    let home_before = files_under(&t.home()).len();
    let as_profile = t.run(&["--profile", CANARY, "status"]);
    assert_no_canary("--profile KEY status", &as_profile);
    as_profile.code(2);
    assert!(
        as_profile
            .stderr
            .contains("--profile takes a profile's name"),
        "{}",
        as_profile.stderr
    );
    assert_eq!(
        files_under(&t.home()).len(),
        home_before,
        "no file made for the profile"
    );
    let as_bank = t.run(&[
        "--demo",
        "reconcile",
        "--month",
        "2026-10",
        "--bank",
        CANARY,
    ]);
    assert_no_canary("reconcile --bank KEY", &as_bank);
    assert_ne!(as_bank.code, Some(0), "{}", as_bank.stderr);
    // A run that fails at Stripe (retries exhausted) prints the request, not the key.
    fake.inject(Fault::status("", 500, Fault::ALWAYS));
    let failed = t.run(&["sync"]);
    failed.code(4);
    assert_no_canary("dunning (Stripe down)", &failed);
    fake.clear_faults();

    let files = files_under(t.root());
    assert!(
        files.iter().any(|(p, _)| p.starts_with(work.join("close"))),
        "close wrote no export to check"
    );
    assert!(
        files.iter().any(|(p, _)| !p.starts_with(&work)),
        "sync wrote no cache to check"
    );
    for (path, bytes) in &files {
        assert!(
            !contains(bytes, CANARY_CORE),
            "the key is in {}",
            path.display()
        );
    }
}

#[test]
fn a_rejected_key_is_not_echoed() {
    let fake = start_fake(FakeConfig::default().accept_only(["rk_test_someOtherKey0000"]));
    let t = Tieout::new().key(CANARY).api_base(&fake.base_url());
    for args in [
        vec!["status"],
        vec!["sync"],
        vec!["close", "--month", "2026-10", "--out", "x"],
    ] {
        let out = t.run(&args);
        out.code(3);
        assert_no_canary(&args.join(" "), &out);
    }
    for (path, bytes) in files_under(t.root()) {
        assert!(!contains(&bytes, CANARY_CORE), "{}", path.display());
    }
}

#[test]
fn keys_are_never_command_line_arguments() {
    let t = Tieout::demo();
    for args in [
        vec!["--key", CANARY, "status"],
        vec!["--api-key", CANARY, "status"],
        vec![&format!("--api-key={CANARY}"), "status"],
        vec!["status", "--key", CANARY],
        vec!["login", "--key", CANARY],
        vec!["sync", "--api-key", CANARY],
        vec!["status", CANARY],
        vec!["login", CANARY],
        vec!["logout", "--key", CANARY],
        vec!["--stripe-key", CANARY, "sync"],
        vec!["--secret-key", CANARY, "dunning"],
        vec!["reconcile", "--month", "2026-10", CANARY],
    ]
    .iter()
    .map(|a| a.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = t.run(&args);
        out.code(2);
        assert!(
            out.stderr.contains("unexpected argument"),
            "{args:?}: {}",
            out.stderr
        );
        // Refused, and not echoed back either (clap's message is masked).
        assert_no_canary(&args.join(" "), &out);
        assert!(out.stdout.is_empty(), "{args:?}: {}", out.stdout);
    }
}

/// `login` (key on stdin) stores the key in the OS keychain: the Secret Service when CI
/// sets `TIEOUT_REAL_KEYCHAIN=1` (its D-Bus session is passed through), else whatever
/// this machine has (the kernel keyring). `status` then finds the key there, `logout`
/// removes the entry, and afterwards no key is found and a second `logout` says so.
/// Nothing printed on the way carries the key.
#[test]
fn logout_removes_the_keychain_entry_that_login_stored() {
    let fake = start_fake(FakeConfig::default());
    let real = std::env::var("TIEOUT_REAL_KEYCHAIN").as_deref() == Ok("1");
    let profile = format!("harden-{}", std::process::id());
    let mut t = Tieout::new()
        .api_base(&fake.base_url())
        .arg("--profile")
        .arg(&profile)
        .env("RUST_BACKTRACE", "1");
    for var in ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"] {
        if let Ok(v) = std::env::var(var) {
            t = t.env(var, &v);
        }
    }

    let login = t.run_with_stdin(&["login"], &format!("{CANARY}\n"));
    assert_no_canary("login", &login);
    if login.code == Some(3) && login.stderr.contains("but was not stored") && !real {
        eprintln!(
            "skipped: no keychain on this machine (CI runs this with TIEOUT_REAL_KEYCHAIN=1)"
        );
        return;
    }
    login.code(0);
    assert!(
        login.stdout.contains(&format!("for profile '{profile}'")),
        "{}",
        login.stdout
    );
    if real {
        assert!(
            login.stdout.contains("OS keychain (Secret Service)"),
            "TIEOUT_REAL_KEYCHAIN=1 promises the Secret Service: {}",
            login.stdout
        );
    }

    let status = t.run(&["status"]);
    assert_no_canary("status (key from the keychain)", &status);
    status.code(0);
    assert!(
        status.stdout.contains("source   ") && !status.stdout.contains("STRIPE_API_KEY"),
        "the key did not come from the keychain:\n{}",
        status.stdout
    );
    if real {
        assert!(
            status
                .stdout
                .contains("source   OS keychain (Secret Service)"),
            "{}",
            status.stdout
        );
    }

    let logout = t.run(&["logout"]);
    assert_no_canary("logout", &logout);
    logout.code(0);
    assert!(
        logout
            .stdout
            .contains(&format!("Deleted the stored key of profile '{profile}'")),
        "{}",
        logout.stdout
    );

    let after = t.run(&["status"]);
    assert_no_canary("status after logout", &after);
    after.code(3);
    assert!(after.stderr.contains("tieout login"), "{}", after.stderr);

    let again = t.run(&["logout"]);
    again.code(0);
    assert!(
        again.stdout.contains("No key was stored"),
        "the entry is still there: {}",
        again.stdout
    );
    for (path, bytes) in files_under(t.root()) {
        assert!(!contains(&bytes, CANARY_CORE), "{}", path.display());
    }
}

/// Where a live key shape starts in `text`: `sk_`/`rk_`/`pk_` + `live_` + at least 10
/// letters or digits, the shape secret scanners (GitHub's, gitleaks) flag. Tests that
/// need a live-looking key build it with `concat!` so no such literal sits in the tree.
fn live_key_shape(text: &str) -> Option<usize> {
    let live = concat!("_live", "_");
    text.match_indices(live).find_map(|(at, _)| {
        let role = text.get(at.checked_sub(2)?..at)?;
        let body = &text[at + live.len()..];
        let run = body.bytes().take_while(u8::is_ascii_alphanumeric).count();
        (matches!(role, "sk" | "rk" | "pk") && run >= 10).then_some(at - 2)
    })
}

#[test]
fn the_live_key_shape_check_finds_what_scanners_flag() {
    let flagged = format!("key = {}", concat!("sk_live", "_0123456789abcdef"));
    assert_eq!(live_key_shape(&flagged), Some(6));
    assert_eq!(live_key_shape(concat!("rk_live", "_short")), None);
    assert_eq!(live_key_shape("sk_test_0123456789abcdef"), None);
    assert_eq!(live_key_shape(concat!("sk_live", "_...abcd")), None);
}

/// No file of the repository holds a live-key-shaped string: a newcomer's scanner or a
/// push protection would stop on it, and a real key pasted by mistake would be caught here.
#[test]
fn no_live_key_shaped_string_is_committed() {
    fn walk(dir: &Path, found: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if name == "target" || name == ".git" {
                continue;
            }
            if path.is_dir() {
                walk(&path, found);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                for (n, line) in text.lines().enumerate() {
                    if live_key_shape(line).is_some() {
                        found.push(format!("{}:{}", path.display(), n + 1));
                    }
                }
            }
        }
    }
    let mut found = Vec::new();
    walk(Path::new(env!("CARGO_MANIFEST_DIR")), &mut found);
    assert!(found.is_empty(), "live-key-shaped strings: {found:#?}");
}
