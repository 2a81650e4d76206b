//! The Debian package's recipe (`scripts/build-deb.sh`, `[package.metadata.deb]` in
//! Cargo.toml): every asset the package lists is either a file of the repository, the
//! binary, or a file the script writes with the binary's own commands, and those commands
//! write it here; the license the package carries is the one Cargo.toml declares. Building
//! the package itself needs cargo-deb and minutes of compression (README, "Install, shell
//! completions and man pages", says how it was checked).

use std::path::Path;

use crate::support::cli::Tieout;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `[source, destination, mode]` of every asset.
fn assets() -> Vec<[String; 3]> {
    let text = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    let manifest: toml::Table = toml::from_str(&text).expect("Cargo.toml parses");
    let deb = &manifest["package"]["metadata"]["deb"];
    deb["assets"]
        .as_array()
        .expect("assets")
        .iter()
        .map(|a| {
            let a = a
                .as_array()
                .expect("an asset is [source, destination, mode]");
            [0, 1, 2].map(|i| a[i].as_str().expect("a string").to_string())
        })
        .collect()
}

#[test]
fn the_package_carries_the_declared_license() {
    let text = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    let manifest: toml::Table = toml::from_str(&text).expect("Cargo.toml parses");
    assert_eq!(manifest["package"]["license"].as_str(), Some("MIT"));
    let deb = &manifest["package"]["metadata"]["deb"];
    let file = deb["license-file"][0].as_str().expect("license-file");
    let license = std::fs::read_to_string(root().join(file)).expect("the license file");
    assert!(license.starts_with("MIT License"), "{license}");
    assert!(deb["maintainer"].as_str().is_some_and(|m| !m.is_empty()));
}

#[test]
fn every_asset_is_in_the_repository_or_written_by_the_script() {
    let script = std::fs::read_to_string(root().join("scripts/build-deb.sh")).expect("script");
    let t = Tieout::new();
    let out = t.root().join("deb-assets");
    let written = |args: &[&str]| {
        let run = t.run(args);
        run.success();
        run.stdout
    };
    // What the script runs to make the assets, here into a temporary folder.
    let man = out.join("man");
    written(&["man", "--out", &man.display().to_string()]);
    for shell in ["bash", "zsh", "fish"] {
        assert!(
            !written(&["completions", shell]).trim().is_empty(),
            "{shell}"
        );
    }
    let listed = assets();
    let mut kinds = Vec::new();
    for [source, dest, mode] in &listed {
        if source == "target/release/tieout" {
            assert_eq!((dest.as_str(), mode.as_str()), ("usr/bin/", "755"));
            kinds.push("binary");
        } else if let Some(generated) = source.strip_prefix("target/deb-assets/") {
            if generated == "man/*.1.gz" {
                assert!(
                    script.contains(r#""$bin" man --out "$assets/man""#),
                    "{script}"
                );
                assert!(
                    script.contains(r#"gzip -9 -n "$assets"/man/*.1"#),
                    "{script}"
                );
                assert!(man.join("tieout.1").is_file());
                assert!(man.join("tieout-suggest.1").is_file());
                assert_eq!(dest, "usr/share/man/man1/");
                kinds.push("man");
            } else {
                let name = generated
                    .strip_prefix("completions/")
                    .expect("a completion");
                let shell = match name {
                    "tieout" => "bash",
                    "_tieout" => "zsh",
                    "tieout.fish" => "fish",
                    other => panic!("an asset the script does not write: {other}"),
                };
                let line = format!(r#""$bin" completions {shell} >"$assets/completions/{name}""#);
                assert!(script.contains(&line), "the script writes {name}: {line}");
                kinds.push(shell);
            }
        } else {
            assert!(
                root().join(source).is_file(),
                "{source} is in the repository"
            );
            kinds.push("file");
        }
        assert!(mode == "755" || mode == "644", "{source}: mode {mode}");
    }
    kinds.sort_unstable();
    assert_eq!(kinds, ["bash", "binary", "file", "fish", "man", "zsh"]);
}

#[test]
fn the_script_is_valid_bash() {
    let out = std::process::Command::new("bash")
        .arg("-n")
        .arg(root().join("scripts/build-deb.sh"))
        .output()
        .expect("bash");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
