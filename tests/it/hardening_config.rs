//! Hardening, config files (issue 40): `settings.toml`, the refund policy and `bank.toml`
//! are read by the one strict reader, through the real binary. A key tieout does not know
//! is refused with its line and column and the nearest known key, text that is not UTF-8
//! is placed (and not called a permissions problem), an empty policy is refused, and every
//! refusal exits 2 naming the README section that documents the file.

use crate::support::{TEST_KEY, Tieout};

/// A test key pointed at a closed port: the settings are read before any request.
fn with_settings(text: &[u8]) -> (tempfile::TempDir, Tieout) {
    let config = tempfile::tempdir().expect("a config folder");
    std::fs::write(config.path().join("settings.toml"), text).expect("write settings.toml");
    let t = Tieout::new()
        .key(TEST_KEY)
        .api_base("http://127.0.0.1:9")
        .env("TIEOUT_CONFIG_DIR", &config.path().display().to_string());
    (config, t)
}

#[test]
fn a_misspelt_settings_key_is_refused_with_its_place_and_the_nearest_key() {
    let (_config, t) = with_settings(b"[stripe]\ngive_up_after = 60\nrtae = 10\n");
    let out = t.run(&["dunning"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(
        out.stderr.contains("settings.toml, line 3, column 1")
            && out.stderr.contains("did you mean `rate`?")
            && out.stderr.contains("see the README's \"Settings\""),
        "{}",
        out.stderr
    );
}

#[test]
fn a_settings_file_that_is_not_utf8_is_placed_and_not_blamed_on_permissions() {
    let (_config, t) = with_settings(b"[stripe]\nrate = 20 # d\xe9bit\n");
    let out = t.run(&["dunning"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(
        out.stderr.contains("line 2, column 14") && out.stderr.contains("not UTF-8"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("permissions"), "{}", out.stderr);
}

#[test]
fn an_empty_policy_is_refused_and_says_how_to_get_the_default() {
    let t = Tieout::demo();
    std::fs::write(t.work_dir().join("policy.toml"), "# to write\n\n").expect("write");
    let out = t.run(&[
        "suggest",
        "--policy",
        "policy.toml",
        "--email",
        "nobody@example.invalid",
        "--order",
        "ORD-0",
    ]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(
        out.stderr.contains("policy.toml is empty")
            && out
                .stderr
                .contains("leave --policy out for the built-in default")
            && out.stderr.contains("see the README's \"Refund policy\""),
        "{}",
        out.stderr
    );
}

#[test]
fn an_unknown_table_in_bank_toml_is_refused() {
    let config = tempfile::tempdir().expect("a config folder");
    std::fs::write(
        config.path().join("bank.toml"),
        "[profile.giro]\ndate = \"Datum\"\ndate_formats = [\"%d.%m.%Y\"]\namount = \"Betrag\"\ndescription = [\"Text\"]\n",
    )
    .expect("write bank.toml");
    let statement = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/demo/bank-usd.csv")
        .display()
        .to_string();
    let t = Tieout::demo().env("TIEOUT_CONFIG_DIR", &config.path().display().to_string());
    let out = t.run(&[
        "reconcile",
        "--month",
        "2026-10",
        "--out",
        "out",
        "--bank",
        &statement,
    ]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(
        out.stderr.contains("bank.toml, line 1, column 2")
            && out.stderr.contains("did you mean `profiles`?")
            && out.stderr.contains("see the README's \"Bank profiles\""),
        "{}",
        out.stderr
    );
    assert!(!t.work_dir().join("out").exists(), "nothing is written");
}
