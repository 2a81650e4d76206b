use std::sync::OnceLock;

use jiff::tz::TimeZone;
use polars::prelude::{AnyValue, DataFrame, Int64Chunked, IntoColumn};

use super::*;
use crate::source::demo::load_demo;

/// The demo account's engine, built once (the worklist at the snapshot's fetch time).
fn demo() -> &'static Engine {
    static E: OnceLock<Engine> = OnceLock::new();
    E.get_or_init(|| {
        let data = load_demo().expect("demo");
        let now = data.meta.fetched_at;
        Engine::over_data(std::sync::Arc::new(data), now, &TimeZone::UTC).expect("engine")
    })
}

fn one_i64(df: &DataFrame) -> i64 {
    match df.columns()[0].get(0).expect("a row") {
        AnyValue::Int64(v) => v,
        AnyValue::UInt32(v) => i64::from(v),
        AnyValue::UInt64(v) => v as i64,
        other => panic!("not an integer: {other:?}"),
    }
}

#[test]
fn every_table_and_view_is_registered_with_utc_columns_beside_epoch_seconds() {
    let names: Vec<&str> = demo().tables().iter().map(|t| t.name.as_str()).collect();
    for want in [
        "payouts",
        "balance_transactions",
        "charges",
        "refunds",
        "disputes",
        "invoices",
        "invoice_payments",
        "payment_intents",
        "customers",
        "subscriptions",
        "payout_tieout",
        "payout_lines",
        "worklist",
        "recovery",
        "recovery_invoices",
        "balance_rollforward",
        "fees",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    let bt = demo()
        .tables()
        .iter()
        .find(|t| t.name == "balance_transactions")
        .expect("bt");
    let cols = bt.columns();
    let i = cols
        .iter()
        .position(|(n, _)| n == "created")
        .expect("created");
    assert_eq!(
        cols[i + 1],
        ("created_utc".into(), "timestamp (UTC)".into())
    );
    assert_eq!(cols[i].1, "integer");
}

#[test]
fn the_utc_column_is_the_epoch_seconds_not_microseconds() {
    // The trap: CAST(created AS TIMESTAMP) reads seconds as microseconds (1970). The
    // `_utc` column agrees with the seconds.
    let df = demo()
        .run("SELECT created, created_utc, month(created) AS m1, month(created_utc) AS m2, day(created) AS d FROM payouts ORDER BY created LIMIT 1")
        .expect("runs");
    let secs = one_i64(&df);
    let when = jiff::Timestamp::from_second(secs).expect("ts");
    let utc = output::text(&df.columns()[1].get(0).expect("v"));
    assert_eq!(utc, when.strftime("%Y-%m-%dT%H:%M:%SZ").to_string());
    let m1 = output::text(&df.columns()[2].get(0).expect("v"));
    let m2 = output::text(&df.columns()[3].get(0).expect("v"));
    assert_eq!(m1, when.strftime("%Y-%m").to_string());
    assert_eq!(m1, m2);
    let d = output::text(&df.columns()[4].get(0).expect("v"));
    assert_eq!(d, when.strftime("%Y-%m-%d").to_string());
}

#[test]
fn money_renders_major_units_with_the_currency_exponent() {
    let df = demo()
        .run("SELECT money(amount * 0 + 1999, 'usd') AS a, money(amount * 0 - 500, 'jpy') AS b, money(amount, currency) AS c, amount, currency FROM payouts LIMIT 1")
        .expect("runs");
    assert_eq!(output::text(&df.columns()[0].get(0).expect("v")), "19.99");
    assert_eq!(output::text(&df.columns()[1].get(0).expect("v")), "-500");
    let amount = df.columns()[3].get(0).expect("v");
    let AnyValue::Int64(amount) = amount else {
        panic!("{amount:?}")
    };
    let cur = output::text(&df.columns()[4].get(0).expect("v"));
    let cur = tieout_core::money::Currency::parse(&cur).expect("currency");
    assert_eq!(
        output::text(&df.columns()[2].get(0).expect("v")),
        tieout_core::money::format_major(amount, cur)
    );
}

#[test]
fn every_builtin_query_runs_on_the_demo_account() {
    for q in saved::builtin() {
        let df = demo()
            .run(&q.sql)
            .unwrap_or_else(|e| panic!("{}: {}", q.name, e.with_source(&q.sql)));
        assert!(df.width() > 0, "{}", q.name);
        assert!(!q.title.is_empty(), "{} has a title line", q.name);
    }
}

#[test]
fn malformed_sql_points_at_line_and_column() {
    let sql = "SELECT id\n  FROM payouts WHERE (amount > 1";
    let e = demo().run(sql).expect_err("malformed");
    assert!(matches!(e, QueryError::Syntax { .. }), "{e:?}");
    let at = e.at().expect("a position");
    assert_eq!(at.line, 2, "{e}");
    assert!(e.to_string().starts_with("line 2, column "), "{e}");
    assert!(
        e.with_source(sql)
            .contains("  FROM payouts WHERE (amount > 1\n"),
        "{}",
        e.with_source(sql)
    );
}

#[test]
fn an_unknown_column_names_the_closest_one_and_where_it_is() {
    let sql = "SELECT id,\n       amout\nFROM payouts";
    let e = demo().run(sql).expect_err("unknown column");
    match &e {
        QueryError::Unknown {
            what,
            name,
            closest,
            at,
        } => {
            assert_eq!((*what, name.as_str()), ("column", "amout"));
            assert_eq!(closest.as_deref(), Some("amount"));
            assert_eq!(*at, Some(Pos { line: 2, column: 8 }));
        }
        other => panic!("{other:?}"),
    }
    assert!(e.to_string().contains("did you mean `amount`?"), "{e}");
}

#[test]
fn an_unknown_table_names_the_closest_one() {
    let e = demo()
        .run("SELECT * FROM payout WHERE 1 = 1")
        .expect_err("unknown table");
    match &e {
        QueryError::Unknown {
            what,
            name,
            closest,
            at,
        } => {
            assert_eq!((*what, name.as_str()), ("table", "payout"));
            assert_eq!(closest.as_deref(), Some("payouts"));
            assert_eq!(
                *at,
                Some(Pos {
                    line: 1,
                    column: 15
                })
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn table_functions_that_read_files_are_refused_before_execution() {
    // The path exists and is Parquet-shaped enough to be read if polars were asked to:
    // the refusal must come from the check, not from polars failing on the file.
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("x.parquet");
    let mut df = polars::df!("a" => [1i64, 2]).expect("df");
    let f = std::fs::File::create(&path).expect("file");
    polars::prelude::ParquetWriter::new(f)
        .finish(&mut df)
        .expect("write parquet");
    let p = path.display();
    for sql in [
        format!("SELECT * FROM read_parquet('{p}')"),
        format!("SELECT * FROM payouts WHERE id IN (SELECT a FROM read_parquet('{p}'))"),
        format!("WITH x AS (SELECT * FROM read_csv('{p}')) SELECT * FROM x"),
        format!("SELECT * FROM payouts JOIN read_json('{p}') j ON true"),
        format!("SELECT * FROM read_ipc('{p}')"),
    ] {
        let e = demo().run(&sql).expect_err("refused");
        match &e {
            QueryError::Refused { message, at } => {
                assert!(message.contains("table function"), "{message}");
                assert!(at.is_some(), "{sql}");
            }
            other => panic!("{sql}: {other:?}"),
        }
    }
}

#[test]
fn statements_that_are_not_queries_are_refused_before_execution() {
    for (sql, word) in [
        ("DELETE FROM payouts", "DELETE"),
        ("CREATE TABLE x AS SELECT * FROM payouts", "CREATE"),
        ("DROP TABLE payouts", "DROP"),
        ("TRUNCATE payouts", "TRUNCATE"),
        ("SHOW TABLES", "SHOW"),
        ("EXPLAIN SELECT * FROM payouts", "EXPLAIN"),
        ("COPY payouts TO '/tmp/x.csv'", "COPY"),
        // Writes that parse as a query: stopped by tieout's guard, not by polars.
        ("SELECT * INTO stolen FROM payouts", "SELECT … INTO"),
        (
            "WITH p AS (SELECT * FROM payouts) INSERT INTO payouts SELECT * FROM p",
            "INSERT",
        ),
        ("WITH p AS (SELECT 1) DELETE FROM payouts", "DELETE"),
        (
            "WITH p AS (SELECT 1) UPDATE payouts SET amount = 0",
            "UPDATE",
        ),
        (
            "SELECT id FROM payouts UNION SELECT id INTO x FROM charges",
            "SELECT … INTO",
        ),
    ] {
        let e = demo().run(sql).expect_err(sql);
        match &e {
            QueryError::Refused { message, .. } => {
                assert!(message.starts_with(word), "{sql}: {message}")
            }
            other => panic!("{sql}: {other:?}"),
        }
    }
    let e = demo()
        .run("SELECT 1; SELECT 2")
        .expect_err("two statements");
    assert!(matches!(e, QueryError::Refused { .. }), "{e:?}");
    // The registered table is intact afterwards.
    assert!(one_i64(&demo().run("SELECT COUNT(*) FROM payouts").expect("count")) > 0);
}

#[test]
fn a_group_key_minus_an_aggregate_list_result_is_caught_with_the_rewrite() {
    let e = demo()
        .run("SELECT payout, amount - SUM(lines) AS d FROM payout_tieout GROUP BY payout, amount")
        .expect_err("list result");
    assert!(
        matches!(&e, QueryError::ListResult { column } if column == "d"),
        "{e:?}"
    );
    assert!(e.to_string().contains("MAX(k) - SUM(x)"), "{e}");
    // The rewrite works.
    demo()
        .run("SELECT payout, MAX(amount) - SUM(lines) AS d FROM payout_tieout GROUP BY payout")
        .expect("rewritten");
}

#[test]
fn added_functions_inside_a_cte_say_where_they_work() {
    let e = demo()
        .run("WITH m AS (SELECT month(created) AS m FROM payouts) SELECT * FROM m")
        .expect_err("not inside a CTE");
    assert!(e.to_string().contains("strftime(created_utc"), "{e}");
}

#[test]
fn date_trunc_is_not_there_and_the_message_says_what_it_is() {
    let e = demo()
        .run("SELECT date_trunc('month', created_utc) FROM payouts")
        .expect_err("no date_trunc");
    assert!(e.to_string().contains("date_trunc"), "{e}");
}

#[test]
fn a_million_row_result_is_returned_and_written_row_by_row() {
    let n = 1_000_000usize;
    let ids = Int64Chunked::from_vec("n".into(), (0..n as i64).collect()).into_column();
    let amounts = Int64Chunked::from_vec("amount".into(), (0..n as i64).map(|i| i % 997).collect())
        .into_column();
    let frame = DataFrame::new(n, vec![ids, amounts]).expect("frame");
    let engine = Engine::from_tables(vec![TableInfo::from_frame("big", "", frame)]);
    let df = engine
        .run("SELECT n, amount * 2 AS twice FROM big")
        .expect("runs");
    assert_eq!(df.height(), n);
    // The writer streams: count lines as they arrive instead of holding the text.
    struct Lines(usize, usize);
    impl std::io::Write for Lines {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.iter().filter(|c| **c == b'\n').count();
            self.1 = self.1.max(b.len());
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut w = Lines(0, 0);
    output::write(&df, output::Format::Csv, &mut w).expect("csv");
    assert_eq!(w.0, n + 1);
    assert!(w.1 < 1 << 20, "written in pieces, largest {}", w.1);
}

#[test]
fn closest_is_only_offered_for_likely_typos() {
    let names = ["amount", "currency", "created"];
    assert_eq!(
        closest("amout", names.into_iter()).as_deref(),
        Some("amount")
    );
    assert_eq!(
        closest("CURENCY", names.into_iter()).as_deref(),
        Some("currency")
    );
    assert_eq!(closest("zzzzzzzz", names.into_iter()), None);
}

#[test]
fn user_queries_are_read_from_the_folder_and_replace_a_builtin_of_the_same_name() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("mine.sql"), "-- Mine\nSELECT 1 AS one").expect("w");
    std::fs::write(
        dir.path().join("refunds_by_day.sql"),
        "-- Override\nSELECT 2 AS two",
    )
    .expect("w");
    std::fs::write(dir.path().join("notes.txt"), "ignored").expect("w");
    let (list, problems) = saved::all(Some(dir.path()));
    assert!(problems.is_empty());
    let mine = list.iter().find(|q| q.name == "mine").expect("mine");
    assert_eq!(mine.title, "Mine");
    let r = list.iter().find(|q| q.name == "refunds_by_day").expect("r");
    assert_eq!(r.title, "Override");
    assert_eq!(list.len(), saved::builtin().len() + 1);
    // A saved query goes through the same check.
    std::fs::write(
        dir.path().join("evil.sql"),
        "SELECT * FROM read_parquet('/etc/passwd')",
    )
    .expect("w");
    let (list, _) = saved::all(Some(dir.path()));
    let evil = list.iter().find(|q| q.name == "evil").expect("evil");
    assert!(matches!(
        demo().run(&evil.sql),
        Err(QueryError::Refused { .. })
    ));
}

#[test]
fn the_worklist_view_has_the_columns_of_failed_payments_csv_typed() {
    use tieout_core::report::{dunning, fields};
    let view = demo()
        .tables()
        .iter()
        .find(|t| t.name == "worklist")
        .expect("worklist");
    let cols = view.columns();
    let names: Vec<&str> = cols.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, fields::csv_header(dunning::FIELDS));
    let type_of = |name: &str| {
        cols.iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.as_str())
            .expect("column")
    };
    assert_eq!(type_of("amount_remaining"), "integer");
    assert_eq!(type_of("next_payment_attempt_utc"), "timestamp (UTC)");
    assert_eq!(type_of("retries_left"), "boolean");
    assert_eq!(type_of("advice_code"), "text");
    // Minor units, as every money column of the SQL tables.
    let total = demo()
        .run("SELECT SUM(amount_remaining) FROM worklist WHERE currency = 'usd'")
        .expect("runs");
    assert!(one_i64(&total) > 0);
}

#[test]
fn the_recovery_views_have_the_columns_of_their_csv_files_typed() {
    use tieout_core::report::{fields, recovery};
    let view = |name: &str| {
        demo()
            .tables()
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("{name}"))
            .columns()
    };
    let type_of = |cols: &[(String, String)], name: &str| {
        cols.iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.clone())
            .unwrap_or_else(|| panic!("{name}"))
    };
    // The CSV's columns, then `complete` (the picture holds every settled invoice the
    // window needs: the demo holds the whole account).
    let with_complete = |fields: Vec<&'static str>| [fields, vec!["complete"]].concat();
    let cohorts = view("recovery");
    let names: Vec<&str> = cohorts.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        with_complete(fields::csv_header(recovery::COHORT_FIELDS))
    );
    assert_eq!(type_of(&cohorts, "complete"), "boolean");
    let incomplete = demo()
        .run("SELECT COUNT(*) AS n FROM recovery_invoices WHERE NOT complete")
        .expect("complete");
    assert_eq!(
        incomplete
            .column("n")
            .expect("n")
            .get(0)
            .expect("row")
            .to_string(),
        "0"
    );
    assert_eq!(type_of(&cohorts, "failed_amount"), "integer");
    assert_eq!(type_of(&cohorts, "recovered_count"), "integer");
    assert_eq!(type_of(&cohorts, "cohort_month"), "text");
    let invoices = view("recovery_invoices");
    let names: Vec<&str> = invoices.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        with_complete(fields::csv_header(recovery::INVOICE_FIELDS))
    );
    assert_eq!(type_of(&invoices, "amount_due"), "integer");
    assert_eq!(type_of(&invoices, "first_failed_at_utc"), "timestamp (UTC)");
    assert_eq!(type_of(&invoices, "days_to_outcome"), "integer");
    // The cohorts sum their invoices: per currency, the same count and amount (minor
    // units) failed in both views.
    let per_currency = |sql: &str| {
        let df = demo().run(sql).expect(sql);
        let cur = df.column("currency").expect("currency").clone();
        let n = df.column("n").expect("n").clone();
        let amount = df.column("amount").expect("amount").clone();
        (0..df.height())
            .map(|i| {
                (
                    cur.get(i).expect("row").to_string(),
                    n.get(i).expect("row").to_string(),
                    amount.get(i).expect("row").to_string(),
                )
            })
            .collect::<Vec<_>>()
    };
    let from_cohorts = per_currency(
        "SELECT currency, SUM(failed_count) AS n, SUM(failed_amount) AS amount \
         FROM recovery GROUP BY currency ORDER BY currency",
    );
    let from_invoices = per_currency(
        "SELECT currency, COUNT(*) AS n, SUM(amount_due) AS amount \
         FROM recovery_invoices GROUP BY currency ORDER BY currency",
    );
    assert!(!from_cohorts.is_empty(), "the demo has failures to recover");
    assert_eq!(from_cohorts, from_invoices);
}

/// A query's CSV is neutralised like every other export: a text that a spreadsheet would
/// run as a formula gets a leading `'`; plain numbers (negative ones too) stay numbers.
#[test]
fn query_csv_neutralises_formula_cells_and_keeps_numbers() {
    let df = demo()
        .run("SELECT '=SUM(A1:A9)' AS f, '@cmd' AS at, '+1 555' AS plus, -15 AS n, '-2.50' AS m")
        .expect("query");
    let mut out = Vec::new();
    output::write(&df, output::Format::Csv, &mut out).expect("csv");
    let text = String::from_utf8(out).expect("utf8");
    assert_eq!(
        text,
        "f,at,plus,n,m\n'=SUM(A1:A9),'@cmd,'+1 555,-15,-2.50\n"
    );
}

/// A chain of thousands of `OR`s used to overflow the stack and abort the process (a
/// 41 KB query, 3,000 conditions). Up to the guard's bound it runs (on the query's own
/// thread); beyond it, it is refused with a message that says what to write instead.
#[test]
fn a_very_long_chain_of_conditions_runs_or_is_refused_never_crashes() {
    let chain = |n: usize| {
        let conds: Vec<String> = (0..n).map(|i| format!("id = 'po_{i}'")).collect();
        format!("SELECT id FROM payouts WHERE {}", conds.join(" OR "))
    };
    // Each condition is two operators (`=` and `OR`).
    let within = guard::MAX_OPERATORS / 2;
    let df = demo().run(&chain(within)).expect("within the bound");
    assert_eq!(df.width(), 1);
    let e = demo().run(&chain(3_000)).expect_err("beyond the bound");
    match &e {
        QueryError::Refused { message, .. } => {
            assert!(message.contains("operators; at most"), "{message}");
            assert!(message.contains(" IN ("), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // A long IN list is one operator: it runs.
    let ids: Vec<String> = (0..5_000).map(|i| format!("'po_{i}'")).collect();
    let sql = format!("SELECT id FROM payouts WHERE id IN ({})", ids.join(", "));
    demo().run(&sql).expect("a long IN list");
}

#[test]
fn a_join_without_an_equality_that_would_outgrow_the_budget_is_refused_before_it_runs() {
    let sql =
        "SELECT * FROM balance_transactions a, balance_transactions b, balance_transactions c";
    match demo().run(sql) {
        Err(QueryError::Budget { message }) => {
            assert!(message.starts_with("refused before it ran"), "{message}");
            assert!(
                message.contains("a join without an equality condition"),
                "{message}"
            );
            assert!(message.contains("over the query budget of 250,000,000 cells"));
        }
        other => panic!("expected the budget to refuse it: {other:?}"),
    }
    // The same join, narrowed by LIMIT inside each side, is sized by the limit and runs.
    let small = "WITH a AS (SELECT id FROM balance_transactions LIMIT 10) \
                 SELECT COUNT(*) AS n FROM a x, a y, a z";
    assert_eq!(one_i64(&demo().run(small).expect("runs")), 1_000);
}

#[test]
fn a_query_that_grows_past_the_memory_budget_is_stopped_with_a_message() {
    let engine = demo().clone().with_budget(Budget {
        max_cells: Budget::default().max_cells,
        max_memory: 1 << 20,
    });
    // An equality join on a key shared by many rows: sized as its larger side before it
    // runs, far larger when it does (about a million rows).
    let sql = "SELECT a.id, b.id AS other FROM balance_transactions a \
               JOIN balance_transactions b ON a.currency = b.currency";
    match engine.run(sql) {
        Err(QueryError::Budget { message }) => {
            assert!(message.starts_with("stopped: the query took"), "{message}");
            assert!(
                message.contains("over the query budget of 1 MiB"),
                "{message}"
            );
        }
        other => panic!("expected the memory budget to stop it: {other:?}"),
    }
    // Under the default budget it runs.
    assert!(demo().run(sql).expect("runs").height() > 100_000);
}

#[test]
fn a_cancel_during_the_run_stops_the_query() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    // The first look says "go on", every later one "stop": the cancel is seen while
    // polars works, not only before it starts.
    let looks = AtomicUsize::new(0);
    let cancelled = || looks.fetch_add(1, Ordering::Relaxed) > 0;
    let sql = "SELECT a.id, b.id AS other FROM balance_transactions a \
               JOIN balance_transactions b ON a.currency = b.currency ORDER BY other, a.id";
    assert_eq!(
        demo().run_until(sql, &cancelled),
        Err(QueryError::Cancelled)
    );
    assert!(looks.load(Ordering::Relaxed) >= 2);
    assert_eq!(QueryError::Cancelled.to_string(), "query cancelled");
}

#[test]
fn an_equality_join_on_a_key_many_rows_share_is_sized_by_its_key_counts_before_it_runs() {
    // Joined on currency, a handful of values: each step pairs every row of a currency
    // with every other. Taken as its larger side, this ran past 9 GB in the workbench,
    // and Esc could not stop the join under way.
    let sql = "SELECT a.*, b.*, c.id AS c_id FROM balance_transactions a \
               JOIN balance_transactions b ON a.currency = b.currency \
               JOIN balance_transactions c ON b.currency = c.currency";
    match demo().run(sql) {
        Err(QueryError::Budget { message }) => {
            assert!(
                message.starts_with("refused before it ran: a join"),
                "{message}"
            );
        }
        other => panic!("expected the budget to refuse it: {other:?}"),
    }
    // A join on a unique key is sized as what it is and runs.
    let ok = "SELECT b.id, p.id AS payout FROM balance_transactions b \
              JOIN payouts p ON b.payout = p.id";
    assert!(demo().run(ok).expect("runs").height() > 0);
}

/// `balance_rollforward` rolls every month forward in integer minor units, each month
/// opening where the one before closed, and `fees` is there per month (issue 33).
#[test]
fn the_balance_views_roll_forward_in_minor_units() {
    let q = demo();
    let df = q
        .run(
            "SELECT month, currency, opening_balance, activity, payouts, closing_balance \
             FROM balance_rollforward ORDER BY currency, month",
        )
        .expect("rollforward");
    assert!(df.height() > 3, "the demo has months of lines");
    let get = |name: &str, i: usize| {
        df.column(name)
            .expect(name)
            .get(i)
            .expect("row")
            .try_extract::<i64>()
            .expect("integer")
    };
    let cur = df.column("currency").expect("currency").clone();
    for i in 0..df.height() {
        assert_eq!(
            get("opening_balance", i) + get("activity", i) + get("payouts", i),
            get("closing_balance", i)
        );
        if i > 0 && cur.get(i).expect("row") == cur.get(i - 1).expect("row") {
            assert_eq!(get("opening_balance", i), get("closing_balance", i - 1));
        }
    }
    // The month that holds the demo's clock is compared with its balance, and ties.
    let now = q
        .run(
            "SELECT currency, closing_balance, stripe_balance, difference, opening_source \
             FROM balance_rollforward WHERE month = '2026-11' ORDER BY currency",
        )
        .expect("current month");
    assert_eq!(now.height(), 3, "{now}");
    for i in 0..now.height() {
        let at = |name: &str| {
            now.column(name)
                .expect(name)
                .get(i)
                .expect("row")
                .to_string()
        };
        assert_eq!(at("stripe_balance"), at("closing_balance"), "{now}");
        assert_eq!(at("difference"), "0", "{now}");
        assert_eq!(at("opening_source"), "\"summed_and_derived\"", "{now}");
    }
    let fees = q
        .run("SELECT currency, SUM(amount) AS amount FROM fees GROUP BY currency")
        .expect("fees");
    assert!(fees.height() >= 3, "fees in three currencies");
}
