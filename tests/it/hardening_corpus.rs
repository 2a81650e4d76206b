//! Hardening, bad input (issue 10 item 2): every hand-written malformed file under
//! `tests/corpus/<kind>/` goes through the real parser or command, and what tieout says is
//! compared with `<file>.expected` next to it (run with `UPDATE_GOLDEN=1` to rewrite them,
//! then review the diff). Beyond the golden text, each refusal must be a clean exit (never
//! a panic) that names the file and the place of the fault (line/column or field path).
//!
//! - `json/<endpoint>.<case>.json`: the body of a 200 answer to `GET /v1/<endpoint>`,
//!   read by `stripe::Client` (one attempt) from a loopback server;
//! - `tickets/*.{csv,jsonl}`: `tieout --demo suggest --tickets FILE`;
//! - `policy/*.toml`: `tieout --demo suggest --policy FILE --email .. --order ..`;
//! - `keymap/*.toml`: `keymap.toml` in `TIEOUT_CONFIG_DIR`, then `tieout --demo demo`;
//! - `theme/*.toml`: `tieout --demo --theme FILE demo`;
//! - `bank/*`: `tieout --demo reconcile --month 2026-10 --bank FILE` (CSV, OFX, CAMT, MT940),
//!   with `--bank-profile corpus` from `<file>.bank.toml` as `bank.toml` when there is one;
//!   `bank/accepted-*` must be reconciled with no control character written raw;
//! - `settings/*.toml`: `settings.toml` in `TIEOUT_CONFIG_DIR`, then `tieout dunning` with
//!   a test key (refused before any request);
//! - `bank_toml/*.toml`: `bank.toml` in `TIEOUT_CONFIG_DIR`, then `tieout --demo reconcile
//!   --bank` with the demo's statement.

use std::path::{Path, PathBuf};

use axum::body::Body;
use axum::response::Response;
use serde::de::DeserializeOwned;

use tieout::secrets::ApiKey;
use tieout::stripe::models::{
    Account, Balance, BalanceTransaction, Charge, Customer, Dispute, Invoice, InvoicePayment, List,
    PaymentIntent, Payout, Refund, Subscription,
};
use tieout::stripe::{Client, ClientConfig, RateConfig};

use crate::support::{RunOutput, Tieout};

fn corpus_dir(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(kind)
}

/// The inputs of a corpus kind (every file but the `.expected` ones), sorted.
fn inputs(kind: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir(kind))
        .expect("read the corpus folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e != "expected"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "too few {kind} inputs: {files:?}");
    files
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .expect("a file name")
        .to_string_lossy()
        .into_owned()
}

/// Compares `actual` with `<input>.expected`, or writes it with `UPDATE_GOLDEN=1`.
/// Returns the mismatch instead of panicking, so one run lists every differing file.
fn check_expected(input: &Path, actual: &str) -> Option<String> {
    let path = PathBuf::from(format!("{}.expected", input.display()));
    if std::env::var("UPDATE_GOLDEN").is_ok_and(|v| v == "1") {
        std::fs::write(&path, actual).expect("write the expected file");
        return None;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    (expected != actual).then(|| {
        format!(
            "{} differs (UPDATE_GOLDEN=1 rewrites it):\n{}",
            path.display(),
            similar::TextDiff::from_lines(expected.as_str(), actual)
                .unified_diff()
                .header("expected", "actual")
        )
    })
}

#[track_caller]
fn assert_no_mismatch(kind: &str, mismatches: Vec<String>, checked: usize) {
    eprintln!("corpus {kind}: {checked} inputs checked");
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// What a run printed, as the expected files keep it: the exit code and stderr, with the
/// run's temp folders replaced by placeholders.
fn transcript(out: &RunOutput, t: &Tieout) -> String {
    let root = t.root().display().to_string();
    format!(
        "exit {}\n{}",
        out.code.map_or("signal".to_string(), |c| c.to_string()),
        out.stderr.replace(&root, "<tmp>")
    )
}

/// A refusal must be a clean exit naming the file and a place in it.
fn check_refusal(kind: &str, name: &str, out: &RunOutput, place: &[&str]) -> Option<String> {
    let problem = if out.stderr.contains("panicked") || out.code == Some(101) {
        "panicked"
    } else if out.code.is_none() {
        "was killed by a signal"
    } else if out.code != Some(0) && !out.stderr.contains(name) {
        "refused it without naming the file"
    } else if out.code != Some(0) && !place.iter().any(|p| out.stderr.contains(p)) {
        "refused it without naming the place (line/column or field)"
    } else {
        return None;
    };
    Some(format!("{kind}/{name}: tieout {problem}:\n{}", out.stderr))
}

// ---- Stripe JSON, through the client ----------------------------------------------------

/// Serves `body` as the 200 answer to every request.
async fn serve(body: Vec<u8>) -> String {
    let app = axum::Router::new().fallback(move || {
        let body = body.clone();
        async move {
            Response::builder()
                .status(200)
                .header("content-type", "application/json")
                .header("request-id", "req_corpus")
                .body(Body::from(body))
                .expect("response")
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}")
}

async fn get<T: DeserializeOwned>(client: &Client, path: &str, count: fn(&T) -> usize) -> String {
    match client.get::<T>(path, &[]).await {
        Ok(v) => format!("ok: {} object(s)\n", count(&v)),
        Err(e) => format!("error: {e}\n"),
    }
}

/// Reads the answer as the model of its endpoint; `ok: N object(s)` or `error: ...`.
async fn read_as_client(endpoint: &str, base: &str) -> String {
    let key = ApiKey::parse("rk_test_51CorpusKey000000000000WXYZ").expect("key");
    let mut cfg = ClientConfig::new(base, key);
    cfg.rate = RateConfig::unthrottled();
    cfg.max_attempts = 1;
    let client = Client::new(cfg).expect("client");
    let path = format!("/v1/{endpoint}");
    fn n<T>(l: &List<T>) -> usize {
        l.data.len()
    }
    match endpoint {
        "account" => get::<Account>(&client, &path, |_| 1).await,
        "balance" => get::<Balance>(&client, &path, |_| 1).await,
        "payouts" => get::<List<Payout>>(&client, &path, n).await,
        "balance_transactions" => get::<List<BalanceTransaction>>(&client, &path, n).await,
        "invoices" => get::<List<Invoice>>(&client, &path, n).await,
        "invoice_payments" => get::<List<InvoicePayment>>(&client, &path, n).await,
        "payment_intents" => get::<List<PaymentIntent>>(&client, &path, n).await,
        "charges" => get::<List<Charge>>(&client, &path, n).await,
        "refunds" => get::<List<Refund>>(&client, &path, n).await,
        "disputes" => get::<List<Dispute>>(&client, &path, n).await,
        "customers" => get::<List<Customer>>(&client, &path, n).await,
        "subscriptions" => get::<List<Subscription>>(&client, &path, n).await,
        other => panic!("corpus file for an unknown endpoint '{other}'"),
    }
}

#[tokio::test]
async fn corpus_stripe_json_is_refused_naming_the_field_or_line() {
    let mut mismatches = Vec::new();
    let files = inputs("json");
    for input in &files {
        let name = file_name(input);
        let endpoint = name.split('.').next().expect("endpoint prefix");
        let body = std::fs::read(input).expect("read the corpus file");
        let base = serve(body).await;
        let said = read_as_client(endpoint, &base).await;
        if said.starts_with("error: ") {
            let names_place = said.contains("could not be understood at '")
                || (said.contains(" line ") && said.contains(" column "));
            if !names_place {
                mismatches.push(format!("json/{name}: no field path or line/column: {said}"));
            }
            if !said.contains("req_corpus") {
                mismatches.push(format!("json/{name}: the request id is missing: {said}"));
            }
        }
        mismatches.extend(check_expected(input, &said));
    }
    assert_no_mismatch("json", mismatches, files.len());
}

// ---- Files a user writes, through the binary ---------------------------------------------

/// Copies a corpus input into the run's work folder under its own name.
fn stage(t: &Tieout, input: &Path) -> String {
    let name = file_name(input);
    std::fs::copy(input, t.work_dir().join(&name)).expect("copy the corpus file");
    name
}

#[test]
fn corpus_tickets_files_name_the_broken_lines() {
    let mut mismatches = Vec::new();
    let files = inputs("tickets");
    for input in &files {
        let t = Tieout::demo();
        let name = stage(&t, input);
        let out = t.run(&["suggest", "--tickets", &name, "--out", "out"]);
        mismatches.extend(check_refusal("tickets", &name, &out, &[" line "]));
        mismatches.extend(check_expected(input, &transcript(&out, &t)));
    }
    assert_no_mismatch("tickets", mismatches, files.len());
}

#[test]
fn corpus_policy_files_name_the_line_and_column() {
    let mut mismatches = Vec::new();
    let files = inputs("policy");
    for input in &files {
        let t = Tieout::demo();
        let name = stage(&t, input);
        let out = t.run(&[
            "suggest",
            "--policy",
            &name,
            "--email",
            "nobody@example.invalid",
            "--order",
            "ORD-0",
        ]);
        // An empty policy has no place to name: it says it is empty.
        mismatches.extend(check_refusal(
            "policy",
            &name,
            &out,
            &[", line ", " is empty"],
        ));
        mismatches.extend(check_expected(input, &transcript(&out, &t)));
    }
    assert_no_mismatch("policy", mismatches, files.len());
}

#[test]
fn corpus_keymap_files_name_the_line_or_the_entry() {
    let mut mismatches = Vec::new();
    let files = inputs("keymap");
    for input in &files {
        let config = tempfile::tempdir().expect("a config folder");
        std::fs::copy(input, config.path().join("keymap.toml")).expect("copy");
        let t = Tieout::demo().env("TIEOUT_CONFIG_DIR", &config.path().display().to_string());
        let out = t.run(&["demo"]);
        let said = transcript(&out, &t).replace(&config.path().display().to_string(), "<config>");
        // Accepted keymaps get as far as the terminal check (exit 2, "needs a terminal").
        if !out.stderr.contains("needs a terminal") {
            mismatches.extend(check_refusal(
                "keymap",
                "keymap.toml",
                &out,
                &["line ", "'"],
            ));
        }
        mismatches.extend(check_expected(input, &said));
    }
    assert_no_mismatch("keymap", mismatches, files.len());
}

#[test]
fn corpus_theme_files_name_the_line_or_the_role() {
    let mut mismatches = Vec::new();
    let files = inputs("theme");
    for input in &files {
        let t = Tieout::demo();
        let name = stage(&t, input);
        let out = t.run(&["--theme", &name, "demo"]);
        if !out.stderr.contains("needs a terminal") {
            mismatches.extend(check_refusal("theme", &name, &out, &["line ", "roles."]));
        }
        mismatches.extend(check_expected(input, &transcript(&out, &t)));
    }
    assert_no_mismatch("theme", mismatches, files.len());
}

// ---- Bank statements, through `tieout reconcile --bank` ----------------------------------

/// A CSV statement's own profile: `bank/<case>.csv.bank.toml` next to it, a `bank.toml`
/// with one `[profiles.corpus]` table, which the statement is then read with.
const PROFILE_SUFFIX: &str = ".bank.toml";

#[test]
fn corpus_bank_statements_name_the_line_or_the_element() {
    let mut mismatches = Vec::new();
    let files: Vec<PathBuf> = inputs("bank")
        .into_iter()
        .filter(|p| !file_name(p).ends_with(PROFILE_SUFFIX))
        .collect();
    for input in &files {
        let profile = PathBuf::from(format!("{}{PROFILE_SUFFIX}", input.display()));
        let config = tempfile::tempdir().expect("a config folder");
        let mut t = Tieout::demo();
        let mut args = vec!["reconcile", "--month", "2026-10", "--out", "out"];
        if profile.exists() {
            std::fs::copy(&profile, config.path().join("bank.toml")).expect("copy");
            t = t.env("TIEOUT_CONFIG_DIR", &config.path().display().to_string());
            args.extend(["--bank-profile", "corpus"]);
        }
        let name = stage(&t, input);
        args.extend(["--bank", &name]);
        let out = t.run(&args);
        if name.starts_with("accepted-") {
            let (problem, said) = check_accepted_statement(&t, &out);
            mismatches.extend(problem.map(|p| format!("bank/{name}: {p}")));
            mismatches.extend(check_expected(input, &said));
            continue;
        }
        mismatches.extend(check_refusal("bank", &name, &out, &["line ", "<"]));
        if out.code != Some(2) || t.work_dir().join("out").exists() {
            mismatches.push(format!(
                "bank/{name}: a malformed statement must exit 2 before anything is written:\n{}",
                out.stderr
            ));
        }
        mismatches.extend(check_expected(input, &transcript(&out, &t)));
    }
    assert_no_mismatch("bank", mismatches, files.len());
}

/// An odd but valid statement (`bank/accepted-*`): reconciled (exit 0, or 5 for the
/// payouts it leaves to look at), and no file written holds a control character other
/// than tab and the CSV's CRLF row ends (issue 40: NUL, ESC and BEL in a description
/// reached `reconciliation.md` and the CSV raw). What the expected file keeps: the
/// transcript, then `bank-match.csv` and the Markdown's bank section.
fn check_accepted_statement(t: &Tieout, out: &RunOutput) -> (Option<String>, String) {
    let dir = t.work_dir().join("out");
    let mut said = transcript(out, t);
    if !matches!(out.code, Some(0 | 5)) || !dir.is_dir() {
        return (Some(format!("was not reconciled:\n{}", out.stderr)), said);
    }
    let mut problem = None;
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the written folder")
        .flatten()
        .map(|e| e.path())
        .collect();
    names.sort();
    for path in &names {
        let text =
            String::from_utf8(std::fs::read(path).expect("a written file")).expect("UTF-8 output");
        let raw = text
            .replace("\r\n", "\n")
            .chars()
            .filter(|c| c.is_control() && !matches!(c, '\t' | '\n'))
            .collect::<Vec<_>>();
        if !raw.is_empty() {
            problem = Some(format!("{} holds raw {raw:?}", file_name(path)));
        }
    }
    let csv = std::fs::read_to_string(dir.join("bank-match.csv")).unwrap_or_default();
    let md = std::fs::read_to_string(dir.join("reconciliation.md")).unwrap_or_default();
    let bank = md.find("\n## Bank").map_or("", |i| &md[i..]);
    said.push_str(&format!(
        "--- bank-match.csv\n{csv}--- reconciliation.md, from ## Bank\n{bank}"
    ));
    (problem, said)
}

// ---- Config files, through the strict reader -----------------------------------------------

/// Runs `args` with `input` copied to `file_name` in a fresh config folder; the transcript
/// names the folder `<config>`.
fn with_config_file(
    t: Tieout,
    input: &Path,
    file_name: &str,
    args: &[&str],
) -> (RunOutput, String) {
    let config = tempfile::tempdir().expect("a config folder");
    std::fs::copy(input, config.path().join(file_name)).expect("copy");
    let t = t.env("TIEOUT_CONFIG_DIR", &config.path().display().to_string());
    let out = t.run(args);
    let said = transcript(&out, &t).replace(&config.path().display().to_string(), "<config>");
    (out, said)
}

/// A config file's refusal: exit 2, the line and column, the README section, and never
/// "permissions" for what is a fault of the text.
fn check_config_refusal(kind: &str, name: &str, out: &RunOutput, section: &str) -> Option<String> {
    let see = format!("see the README's \"{section}\"");
    let problem = if out.code != Some(2) {
        "did not exit 2"
    } else if !(out.stderr.contains("line ") && out.stderr.contains("column ")) {
        "did not name the line and column"
    } else if !out.stderr.contains(&see) {
        "did not name the README section"
    } else if out.stderr.contains("permissions") {
        "blamed the permissions"
    } else {
        return None;
    };
    Some(format!("{kind}/{name}: tieout {problem}:\n{}", out.stderr))
}

#[test]
fn corpus_settings_files_name_the_line_the_nearest_key_and_the_section() {
    let mut mismatches = Vec::new();
    let files = inputs("settings");
    for input in &files {
        let name = file_name(input);
        let t = Tieout::new()
            .key(crate::support::TEST_KEY)
            .api_base("http://127.0.0.1:9");
        let (out, said) = with_config_file(t, input, "settings.toml", &["dunning"]);
        mismatches.extend(check_refusal("settings", "settings.toml", &out, &["line "]));
        mismatches.extend(check_config_refusal("settings", &name, &out, "Settings"));
        mismatches.extend(check_expected(input, &said));
    }
    assert_no_mismatch("settings", mismatches, files.len());
}

#[test]
fn corpus_bank_toml_files_name_the_line_the_nearest_key_and_the_section() {
    let mut mismatches = Vec::new();
    let files = inputs("bank_toml");
    let statement = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo/bank-usd.csv");
    let statement = statement.display().to_string();
    for input in &files {
        let name = file_name(input);
        let args = [
            "reconcile",
            "--month",
            "2026-10",
            "--out",
            "out",
            "--bank",
            statement.as_str(),
        ];
        let (out, said) = with_config_file(Tieout::demo(), input, "bank.toml", &args);
        mismatches.extend(check_refusal("bank_toml", "bank.toml", &out, &["line "]));
        mismatches.extend(check_config_refusal(
            "bank_toml",
            &name,
            &out,
            "Bank profiles",
        ));
        let said = said.replace(&statement, "<statement>");
        mismatches.extend(check_expected(input, &said));
    }
    assert_no_mismatch("bank_toml", mismatches, files.len());
}
