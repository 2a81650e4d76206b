//! `tieout completions` and `tieout man` through the binary: bash itself completes every
//! command and an option from the script, the other shells' scripts name every command,
//! and groff reads every man page without a warning (under `CI=true` a missing bash or
//! groff fails the test, as the journal checkers do).

use std::io::Write as _;
use std::process::Command;

use clap::CommandFactory;

use crate::support::cli::Tieout;

/// The commands a user can type (the clap definition's, not a copy).
fn commands() -> Vec<String> {
    tieout::cli::Cli::command()
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| c.get_name().to_string())
        .collect()
}

/// Whether `tool` runs here; when not, says so past the harness and fails under CI.
fn have(tool: &str) -> bool {
    if Command::new(tool).arg("--version").output().is_ok() {
        return true;
    }
    let msg = format!("{tool} is not installed: its check did NOT run (see .ci/run)");
    let _ = writeln!(std::io::stderr(), "SKIPPED: {msg}");
    assert!(
        std::env::var("CI").map_or(true, |v| v != "true"),
        "under CI=true every checker must run: {msg}"
    );
    false
}

/// What bash's completion function of the script proposes for the words typed so far.
fn bash_completes(script: &str, words: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let cword = words.len() - 1;
    let prev = if cword > 0 { words[cword - 1] } else { "" };
    let program = format!(
        "{script}\nCOMP_WORDS=({}); COMP_CWORD={cword}; _tieout tieout '{}' '{prev}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        quoted.join(" "),
        words[cword],
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(program)
        .output()
        .expect("run bash");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut offered: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    offered.sort();
    offered
}

#[test]
fn bash_completes_every_command_and_a_commands_options() {
    let t = Tieout::demo();
    let run = t.run(&["completions", "bash"]);
    run.success();
    if !have("bash") {
        return;
    }
    let offered = bash_completes(&run.stdout, &["tieout", ""]);
    for c in commands() {
        assert!(offered.contains(&c), "{c} not offered: {offered:?}");
    }
    assert_eq!(
        bash_completes(&run.stdout, &["tieout", "recovery", "--mo"]),
        vec!["--months".to_string()]
    );
    assert_eq!(
        bash_completes(&run.stdout, &["tieout", "reco"]),
        vec!["reconcile".to_string(), "recovery".to_string()]
    );
}

#[test]
fn every_shells_script_names_every_command_and_an_unknown_shell_is_refused() {
    let t = Tieout::demo();
    for (shell, marker) in [
        ("zsh", "#compdef tieout"),
        ("fish", "complete -c tieout"),
        ("elvish", "edit:completion:arg-completer[tieout]"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let run = t.run(&["completions", shell]);
        run.success();
        assert!(run.stdout.contains(marker), "{shell}: no {marker}");
        for c in commands() {
            assert!(run.stdout.contains(&c), "{shell}: {c} missing");
        }
    }
    let run = t.run(&["completions", "tcsh"]);
    run.code(2);
    assert!(
        run.stderr
            .contains("choose one of bash, elvish, fish, powershell, zsh"),
        "{}",
        run.stderr
    );
}

#[test]
fn man_prints_tieout_1_and_writes_a_page_per_command_that_groff_reads_cleanly() {
    let t = Tieout::demo();
    let run = t.run(&["man"]);
    run.success();
    assert!(run.stdout.contains(".TH tieout 1"), "{}", run.stdout);
    for c in commands() {
        // Each command is listed as its own page, `tieout-dunning(1)` (a roff `\-`).
        let listed = format!("tieout\\-{}(1)", c.replace('-', "\\-"));
        assert!(
            run.stdout.contains(&listed),
            "tieout.1 does not list {listed}"
        );
    }

    let dir = t.work_dir().join("man1");
    let dir_arg = dir.to_str().expect("utf-8 path");
    t.run(&["man", "--out", dir_arg]).success();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("pages written")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut want: Vec<String> = commands().iter().map(|c| format!("tieout-{c}.1")).collect();
    want.push("tieout.1".to_string());
    want.sort();
    assert_eq!(names, want);
    // The same pages again are no change; a page edited since needs --force.
    t.run(&["man", "--out", dir_arg]).success();
    std::fs::write(dir.join("tieout-recovery.1"), "edited").expect("edit");
    t.run(&["man", "--out", dir_arg]).code(2);
    assert_eq!(
        std::fs::read_to_string(dir.join("tieout-recovery.1")).expect("kept"),
        "edited"
    );
    t.run(&["man", "--out", dir_arg, "--force"]).success();

    if !have("groff") {
        return;
    }
    for name in &names {
        // -k: through preconv, as man does, since the help text is UTF-8; -ww: every
        // warning; -z: no output, only the check.
        let out = Command::new("groff")
            .args(["-k", "-man", "-ww", "-z"])
            .arg(dir.join(name))
            .output()
            .expect("run groff");
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "groff on {name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// What `cargo install` gives: the binary alone, away from the repository. Copied into a
/// folder of its own and run from another, with no fixtures folder anywhere near, it still
/// opens its bundled demo (compiled in) and writes the demo's worklist byte for byte as the
/// repository's golden file holds it.
#[test]
fn the_binary_alone_outside_the_repository_runs_its_bundled_demo() {
    let bin_dir = tempfile::tempdir().expect("tmp");
    let work = tempfile::tempdir().expect("tmp");
    let data = tempfile::tempdir().expect("tmp");
    let installed = bin_dir.path().join("tieout");
    std::fs::copy(env!("CARGO_BIN_EXE_tieout"), &installed).expect("copy the binary");
    let home = data.path();
    let out = Command::new(&installed)
        .current_dir(work.path())
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("TZ", "UTC")
        .env("LANG", "C.UTF-8")
        .args([
            "--demo",
            "--now",
            crate::support::cli::NOW,
            "dunning",
            "--format",
            "csv",
        ])
        .output()
        .expect("run the copied binary");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = std::fs::read(work.path().join("failed-payments.csv")).expect("written");
    let golden = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden/dunning/failed-payments.csv"),
    )
    .expect("golden");
    assert_eq!(written, golden);
}
