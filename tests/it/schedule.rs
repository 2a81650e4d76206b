//! `tieout schedule`: golden files of the systemd service and timer, the launchd agent and
//! the crontab line (with the keychain and with an env file), byte-identical on a second
//! run, an env file others can read refused, and `systemd-analyze verify` on the units
//! when the tool is there (the test says so when it is not).

use std::process::Command;

use crate::support::cli::Tieout;
use crate::support::golden::{assert_golden, assert_golden_bytes};

const FILES: [&str; 4] = [
    "tieout-dunning.service",
    "tieout-dunning.timer",
    "com.tieout.dunning.plist",
    "crontab.txt",
];

fn fixed(t: &Tieout, extra: &[&str]) -> crate::support::cli::RunOutput {
    let mut args = vec![
        "--tz",
        "Europe/Berlin",
        "--profile",
        "live",
        "schedule",
        "--weekdays",
        "07:30",
        "--bin",
        "/usr/local/bin/tieout",
        "--reports",
        "/srv/billing/dunning",
    ];
    args.extend_from_slice(extra);
    t.run(&args)
}

#[test]
fn the_files_match_their_goldens_and_a_second_run_is_identical() {
    let t = Tieout::new();
    let run = fixed(
        &t,
        &["--env-file", "/etc/tieout/stripe.env", "--out", "units"],
    );
    run.success();
    assert!(
        run.stderr
            .contains("install -D -m 600 /dev/null /etc/tieout/stripe.env"),
        "{}",
        run.stderr
    );
    let dir = t.work_dir().join("units");
    let first: Vec<Vec<u8>> = FILES
        .iter()
        .map(|n| std::fs::read(dir.join(n)).expect(n))
        .collect();
    for (name, bytes) in FILES.iter().zip(&first) {
        assert_golden_bytes(&format!("schedule/env-file/{name}"), bytes);
    }
    // Same day, same inputs: the same bytes, and no --force needed.
    fixed(
        &t,
        &["--env-file", "/etc/tieout/stripe.env", "--out", "units"],
    )
    .success();
    for (name, bytes) in FILES.iter().zip(&first) {
        assert_eq!(&std::fs::read(dir.join(name)).expect(name), bytes, "{name}");
    }
    // A different schedule into the same folder is refused without --force.
    let other = t.run(&[
        "schedule",
        "--weekdays",
        "08:00",
        "--bin",
        "/usr/local/bin/tieout",
        "--reports",
        "/srv/billing/dunning",
        "--out",
        "units",
    ]);
    other.code(2);
    assert!(other.stderr.contains("--force"), "{}", other.stderr);
    // With the keychain, printed.
    let printed = fixed(&t, &[]);
    printed.success();
    assert_golden("schedule/keychain-stdout.txt", &printed.stdout);
    assert!(!printed.stdout.contains("EnvironmentFile"));
    assert!(printed.stdout.contains("dunning --since last --out /srv/billing/dunning --summary /srv/billing/dunning/summary.txt --force"));
}

#[test]
fn an_env_file_others_can_read_is_refused() {
    let t = Tieout::new();
    let env = t.root().join("stripe.env");
    std::fs::write(&env, "STRIPE_API_KEY=rk_test_x\n").expect("write");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&env, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let run = fixed(&t, &["--env-file", env.to_str().expect("utf8")]);
        run.code(2);
        assert!(run.stderr.contains("chmod 600"), "{}", run.stderr);
        std::fs::set_permissions(&env, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        fixed(&t, &["--env-file", env.to_str().expect("utf8")]).success();
    }
    let bad = t.run(&["schedule", "--weekdays", "7:30"]);
    bad.code(2);
    assert!(bad.stderr.contains("HH:MM"), "{}", bad.stderr);
}

#[test]
fn systemd_analyze_verifies_the_units() {
    let Ok(probe) = Command::new("systemd-analyze").arg("--version").output() else {
        println!("SKIPPED: systemd-analyze is not installed here, so the units were not verified");
        return;
    };
    assert!(probe.status.success());
    let t = Tieout::new();
    let reports = t.root().join("reports");
    let bin = env!("CARGO_BIN_EXE_tieout");
    t.run(&[
        "schedule",
        "--weekdays",
        "07:30",
        "--bin",
        bin,
        "--reports",
        reports.to_str().expect("utf8"),
        "--out",
        "units",
    ])
    .success();
    let dir = t.work_dir().join("units");
    // System mode: a container has no user manager for `--user`; the unit syntax, the
    // calendar expression and the executables are checked the same way.
    let out = Command::new("systemd-analyze")
        .arg("verify")
        .arg(dir.join("tieout-dunning.service"))
        .arg(dir.join("tieout-dunning.timer"))
        .output()
        .expect("systemd-analyze runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "systemd-analyze verify failed:\n{stderr}"
    );
    assert!(
        !stderr.contains("tieout-dunning"),
        "warnings about the units:\n{stderr}"
    );
}
