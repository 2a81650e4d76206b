//! The TUI's command-line edges: problems with the keymap, theme or settings file
//! (`copy_format`) are reported before the terminal is taken over (exit 2, naming the
//! valid names), and the workbench refuses to start without a terminal instead of
//! drawing into a pipe.

use assert_cmd::Command;

fn tieout(config: &std::path::Path) -> Command {
    let mut cmd = Command::cargo_bin("tieout").expect("binary");
    cmd.env("TIEOUT_CONFIG_DIR", config)
        .env("TIEOUT_DATA_DIR", config.join("data"))
        .env_remove("NO_COLOR");
    cmd
}

#[test]
fn an_unknown_action_in_the_keymap_file_is_exit_2_with_the_valid_names() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::write(
        dir.path().join("keymap.toml"),
        "[keys]\n\"x\" = \"launch\"\n",
    )
    .expect("write");
    let out = tieout(dir.path()).arg("demo").output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("keymap.toml"), "{err}");
    assert!(err.contains("'launch'"), "{err}");
    assert!(
        err.contains("copy_row") && err.contains("cycle_theme"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "nothing drawn");
}

#[test]
fn a_copy_format_tieout_does_not_know_is_exit_2_before_the_screen_opens() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::write(
        dir.path().join("settings.toml"),
        "[workbench]\ncopy_format = \"csv\"\n",
    )
    .expect("write");
    let out = tieout(dir.path()).arg("demo").output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("settings.toml") && err.contains("line 2") && err.contains("markdown"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "nothing drawn");
}

#[test]
fn an_unknown_key_name_is_exit_2_with_the_key_names() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::write(
        dir.path().join("keymap.toml"),
        "[keys]\n\"hyper-q\" = \"quit\"\n",
    )
    .expect("write");
    let out = tieout(dir.path()).arg("demo").output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("hyper-q") && err.contains("pagedown"), "{err}");
}

#[test]
fn unknown_presets_and_themes_are_exit_2() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = tieout(dir.path())
        .args(["demo", "--keys", "emacs"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("default or vim"));
    let out = tieout(dir.path())
        .args(["--theme", "neon", "demo"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("high-contrast"));
}

#[test]
fn without_a_terminal_the_workbench_says_what_to_use_instead() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = tieout(dir.path()).arg("demo").output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needs a terminal"), "{err}");
}
