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
