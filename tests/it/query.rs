//! `tieout query`: golden files of every built-in query on the demo account (through the
//! binary), three of them checked against the same figures computed by the domain code
//! (fees per category per month from the tie-out, the worklist's totals per currency,
//! refunds per day), and the refusals and errors end to end.
//!
//! Regenerate the goldens after an intended change with `UPDATE_GOLDEN=1 cargo test --test
//! it query` and review the diff.

use std::collections::BTreeMap;

use polars::prelude::{AnyValue, DataFrame};
use tieout::app::query as uc;
use tieout::domain::{dunning, tieout as tie};
use tieout::query::saved;
use tieout::source::demo::load_demo;
use tieout::time::Month;

use crate::support::cli::{NOW, Tieout};
use crate::support::golden::{assert_golden, updating};

#[test]
fn builtin_queries_on_the_demo_match_their_golden_files() {
    let t = Tieout::demo();
    for q in saved::builtin() {
        let run = t.run(&["query", "--saved", &q.name, "--format", "csv"]);
        run.success();
        assert_golden(&format!("query/{}.csv", q.name), &run.stdout);
    }
    let run = t.run(&["query", "--saved", "worklist_by_currency"]);
    run.success();
    assert_golden("query/worklist_by_currency.txt", &run.stdout);
}

fn text(v: AnyValue<'_>) -> String {
    tieout::query::output::text(&v)
}

fn int(v: AnyValue<'_>) -> i64 {
    match v {
        AnyValue::Int64(x) => x,
        AnyValue::UInt32(x) => i64::from(x),
        AnyValue::UInt64(x) => x as i64,
        other => panic!("not an integer: {other:?}"),
    }
}

/// `(key columns joined by '|') -> value column` of a result.
fn by_key(df: &DataFrame, keys: &[&str], value: &str) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for i in 0..df.height() {
        let k: Vec<String> = keys
            .iter()
            .map(|c| text(df.column(c).expect(c).get(i).expect("cell")))
            .collect();
        let v = int(df.column(value).expect(value).get(i).expect("cell"));
        assert!(out.insert(k.join("|"), v).is_none(), "one row per key");
    }
    out
}

fn builtin(name: &str) -> String {
    saved::builtin()
        .into_iter()
        .find(|q| q.name == name)
        .expect(name)
        .sql
}

#[test]
fn three_builtin_queries_agree_with_the_domain() {
    let data = load_demo().expect("demo");
    let now = tieout::time::parse_instant(NOW).expect("now");
    let tz = jiff::tz::TimeZone::UTC;
    let engine = uc::engine_for(std::sync::Arc::new(data.clone()), now, &tz).expect("engine");

    // Fees per category per month, from the tie-out's per-payout subtotals.
    let months: std::collections::BTreeSet<Month> = data
        .payouts
        .iter()
        .map(|p| Month::of(p.arrival_date, &tz))
        .collect();
    let months: Vec<Month> = months.into_iter().collect();
    let mut want: BTreeMap<String, i64> = BTreeMap::new();
    for m in tie::tie_out_months(&data.payouts, &data.balance_transactions, &months, &tz) {
        for p in &m.payouts {
            for c in p.itemisation.iter().flat_map(|it| it.by_category.iter()) {
                let k = format!(
                    "{}|{}|{}",
                    m.month,
                    c.reporting_category,
                    p.currency().as_str()
                );
                *want.entry(k).or_default() += c.fee;
            }
        }
    }
    let df = uc::run(&engine, &builtin("fees_by_category_month")).expect("fees");
    let got = by_key(&df, &["month", "category", "currency"], "fee");
    assert!(!want.is_empty());
    assert_eq!(got, want, "fees per category per month");

    // The worklist's totals per currency.
    let w = dunning::build(&data, now).expect("worklist");
    let want: BTreeMap<String, i64> = w
        .totals_by_currency
        .iter()
        .map(|c| (c.currency.as_str().to_string(), c.amount_remaining))
        .collect();
    let want_n: BTreeMap<String, i64> = w
        .totals_by_currency
        .iter()
        .map(|c| (c.currency.as_str().to_string(), c.count as i64))
        .collect();
    let df = uc::run(&engine, &builtin("worklist_by_currency")).expect("worklist");
    assert!(!want.is_empty());
    assert_eq!(by_key(&df, &["currency"], "amount_remaining"), want);
    assert_eq!(by_key(&df, &["currency"], "invoices"), want_n);

    // Refunds per day (UTC) and currency: succeeded refunds, from the rows.
    let mut want: BTreeMap<String, i64> = BTreeMap::new();
    let mut want_n: BTreeMap<String, i64> = BTreeMap::new();
    for r in data
        .refunds
        .iter()
        .filter(|r| r.status.as_str() == "succeeded")
    {
        let day = tieout::time::date_in(r.created, &tz);
        let k = format!("{day}|{}", r.currency.as_str());
        *want.entry(k.clone()).or_default() += r.amount;
        *want_n.entry(k).or_default() += 1;
    }
    let df = uc::run(&engine, &builtin("refunds_by_day")).expect("refunds");
    assert!(!want.is_empty());
    assert_eq!(by_key(&df, &["day", "currency"], "amount"), want);
    assert_eq!(by_key(&df, &["day", "currency"], "refunds"), want_n);
}

#[test]
fn errors_point_at_the_sql_and_exit_2() {
    let t = Tieout::demo();
    let run = t.run(&["query", "SELECT id,\n  amout FROM payouts"]);
    run.code(2);
    assert!(
        run.stderr
            .contains("line 2, column 3: no column named `amout`; did you mean `amount`?"),
        "{}",
        run.stderr
    );
    let run = t.run(&["query", "SELECT * FROM read_csv('/etc/passwd')"]);
    run.code(2);
    assert!(
        run.stderr.contains("table function read_csv"),
        "{}",
        run.stderr
    );
    let run = t.run(&["query", "DELETE FROM payouts"]);
    run.code(2);
    assert!(
        run.stderr.contains("DELETE statements are not allowed"),
        "{}",
        run.stderr
    );
    let run = t.run(&["query", "SELECT * FROM payouts WHERE"]);
    run.code(2);
    assert!(run.stderr.contains("SQL syntax"), "{}", run.stderr);
    // A three-way cross join of the balance transactions: billions of rows, refused
    // before it runs (it once grew to 8 GB in 13 s).
    let run = t.run(&[
        "query",
        "SELECT * FROM balance_transactions a, balance_transactions b, balance_transactions c",
    ]);
    run.code(2);
    assert!(
        run.stderr.contains("refused before it ran")
            && run.stderr.contains("over the query budget"),
        "{}",
        run.stderr
    );
}

#[test]
fn file_out_and_tables() {
    let t = Tieout::demo();
    let q = t.work_dir().join("q.sql");
    std::fs::write(&q, "SELECT id, amount FROM payouts ORDER BY id LIMIT 2").expect("w");
    let out = t.work_dir().join("r.json");
    let run = t.run(&[
        "query",
        "--file",
        &q.display().to_string(),
        "--format",
        "json",
        "--out",
        &out.display().to_string(),
    ]);
    run.success();
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&out).expect("out")).expect("json");
    assert_eq!(v.as_array().map(Vec::len), Some(2));
    assert!(
        v[0]["amount"].is_i64(),
        "money stays integer minor units: {v}"
    );
    let run = t.run(&["query", "--tables"]);
    run.success();
    for want in [
        "payout_lines",
        "worklist",
        "created_utc",
        "money(amount, currency)",
    ] {
        assert!(run.stdout.contains(want), "{want}");
    }
}

/// `query --out` follows every export's rule: an existing different file is refused
/// without `--force` (exit 2, left as it was), replaced with it; a link is never followed
/// and a device is never replaced, `--force` or not.
#[test]
fn query_out_never_replaces_a_file_without_force_nor_anything_but_a_file() {
    let t = Tieout::demo();
    let sql = "SELECT id FROM payouts ORDER BY id LIMIT 1";
    let out = t.work_dir().join("r.csv");
    std::fs::write(&out, "an earlier, precious file\n").expect("w");
    let path = out.display().to_string();
    let run = t.run(&["query", sql, "--format", "csv", "--out", &path]);
    run.code(2);
    assert!(run.stderr.contains("--force"), "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(&out).expect("kept"),
        "an earlier, precious file\n"
    );
    t.run(&["query", sql, "--format", "csv", "--out", &path, "--force"])
        .success();
    assert!(
        std::fs::read_to_string(&out)
            .expect("replaced")
            .starts_with("id\n")
    );
    #[cfg(unix)]
    {
        let link = t.work_dir().join("link.csv");
        std::os::unix::fs::symlink(&out, &link).expect("symlink");
        let before = std::fs::read(&out).expect("target");
        let link_path = link.display().to_string();
        for force in [false, true] {
            let mut args = vec![
                "query",
                "SELECT 1 AS x",
                "--format",
                "csv",
                "--out",
                &link_path,
            ];
            if force {
                args.push("--force");
            }
            let run = t.run(&args);
            run.code(2);
            assert!(run.stderr.contains("not a regular file"), "{}", run.stderr);
        }
        assert_eq!(std::fs::read(&out).expect("target"), before);
        assert!(
            std::fs::symlink_metadata(&link)
                .expect("link")
                .file_type()
                .is_symlink()
        );
        let run = t.run(&[
            "query",
            sql,
            "--format",
            "csv",
            "--out",
            "/dev/null",
            "--force",
        ]);
        run.code(2);
        assert!(
            run.stderr.contains("a device, FIFO or socket"),
            "{}",
            run.stderr
        );
    }
}

const README_BEGIN: &str =
    "<!-- query-tables: begin (the output of `tieout --demo query --tables --format md`) -->\n";
const README_END: &str = "<!-- query-tables: end -->";

/// The README's list of tables, views, functions and saved queries is what `tieout query
/// --tables --format md` prints on the demo account, so it cannot drift from the registry
/// (`UPDATE_GOLDEN=1` rewrites the README's block after a deliberate change).
#[test]
fn the_readme_lists_the_tables_as_query_tables_prints_them() {
    let run = Tieout::demo().run(&["query", "--tables", "--format", "md"]);
    run.success();
    assert!(
        run.stdout.contains("- **`payout_lines`**")
            && run.stdout.contains("`created_utc` timestamp (UTC)"),
        "{}",
        run.stdout
    );
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(&path).expect("README.md");
    let start = readme
        .find(README_BEGIN)
        .expect("the README's query-tables begin marker")
        + README_BEGIN.len();
    let end = start + readme[start..].find(README_END).expect("the end marker");
    let block = &readme[start..end];
    let want = format!("\n{}\n", run.stdout.trim_end());
    if updating() {
        let text = format!("{}{want}{}", &readme[..start], &readme[end..]);
        std::fs::write(&path, text).expect("rewrite README.md");
        return;
    }
    assert_eq!(
        block, want,
        "README.md's list of tables differs from `tieout --demo query --tables --format md` \
         (run with UPDATE_GOLDEN=1 to rewrite it)"
    );
}

/// Every SQL example in the README (its ```sql blocks: the three worked examples) runs on
/// the demo account and returns rows.
#[test]
fn the_readme_sql_examples_run_on_the_demo() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(&path).expect("README.md");
    let blocks: Vec<&str> = readme
        .split("```sql\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap_or_default())
        .collect();
    assert!(blocks.len() >= 3, "three worked examples: {}", blocks.len());
    let data = load_demo().expect("demo");
    let now = tieout::time::parse_instant(NOW).expect("now");
    let engine =
        uc::engine_for(std::sync::Arc::new(data), now, &jiff::tz::TimeZone::UTC).expect("engine");
    for sql in blocks {
        let df = uc::run(&engine, sql).unwrap_or_else(|f| panic!("{sql}\n{}", f.message));
        assert!(df.height() > 0, "no rows: {sql}");
    }
}

/// Over a synced cache (`--cached`: the Parquet files scanned lazily), a question answers
/// as over the same rows in memory; a cross join of the largest table with itself over the
/// budget is refused before it runs with the budget's message (exit 2, nothing printed on
/// stdout); `--max-cells` and `--max-memory` set the budget.
#[test]
fn over_the_cache_a_runaway_query_is_refused_and_the_budget_is_configurable() {
    use crate::support::{FakeConfig, start_fake};
    let fake = start_fake(FakeConfig::default());
    let t = Tieout::against(&fake);
    t.run(&["sync"]).success();
    let sql = "SELECT currency, COUNT(*) AS n, SUM(net) AS net FROM balance_transactions \
               GROUP BY currency ORDER BY currency";
    let cached = t.run(&["--cached", "query", "--format", "csv", sql]);
    cached.success();
    assert!(cached.stdout.lines().count() > 2, "{}", cached.stdout);
    let fresh = t.run(&["query", "--format", "csv", sql]);
    fresh.success();
    assert_eq!(cached.stdout, fresh.stdout);

    // A month's lines crossed with themselves fit the default budget here; on a large
    // account they are a runaway (BENCHMARKS.md §12), as they are here under a smaller one.
    let run = t.run(&[
        "--cached",
        "query",
        "--max-cells",
        "1000000",
        "SELECT * FROM balance_transactions a CROSS JOIN balance_transactions b",
    ]);
    run.code(2);
    assert!(
        run.stderr.contains("refused before it ran"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);

    let run = t.run(&[
        "--cached",
        "query",
        "--max-cells",
        "10",
        "SELECT * FROM payouts",
    ]);
    run.code(2);
    assert!(
        run.stderr.contains("over the query budget of 10 cells"),
        "{}",
        run.stderr
    );
    let run = t.run(&[
        "--cached",
        "query",
        "--max-memory",
        "0",
        "SELECT * FROM payouts",
    ]);
    run.code(2);
    assert!(
        run.stderr.contains("query budget of 0 MiB"),
        "{}",
        run.stderr
    );
}
