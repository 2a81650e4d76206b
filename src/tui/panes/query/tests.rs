use super::*;
use crate::query::TableInfo;
use crate::query::saved;
use crate::source::Origin;
use crate::tui::harness::{Harness, test_settings};
use crate::tui::state::Startup;

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

fn name(what: &str, (w, h): (u16, u16)) -> String {
    format!("query_{what}_{w}x{h}")
}

/// The Query tab alone over the sample account, its saved queries the built-in ones.
fn harness((w, h): (u16, u16)) -> Harness {
    let ws = crate::tui::sample::workspace(Origin::Demo);
    let mut h = Harness::with_tabs(
        test_settings(Startup::Demo),
        vec![Box::new(QueryPane::new(saved::builtin()))],
        Box::new(move |_| Ok(ws.clone())),
        w,
        h,
    );
    h.start();
    h
}

fn run_query(h: &mut Harness, sql: &str) {
    h.keys("i");
    h.type_text(sql);
    h.keys("enter");
}

#[test]
fn snapshot_empty() {
    for size in SIZES {
        let mut h = harness(size);
        let frame = h.frame();
        assert!(frame.contains("fees_by_category_month"), "{frame}");
        insta::assert_snapshot!(name("empty", size), frame);
    }
}

#[test]
fn snapshot_running_then_result() {
    for size in SIZES {
        let mut h = harness(size);
        h.auto = false;
        run_query(
            &mut h,
            "SELECT id, amount, currency, arrival_date_utc FROM payouts ORDER BY id",
        );
        let frame = h.frame();
        assert!(frame.contains("Running the query"), "{frame}");
        insta::assert_snapshot!(name("running", size), frame);
        h.settle();
        let frame = h.frame();
        assert!(frame.contains("arrival_date_utc"), "{frame}");
        assert!(!frame.contains("Running the query"), "{frame}");
        insta::assert_snapshot!(name("result", size), frame);
    }
}

#[test]
fn snapshot_error_names_the_closest_column() {
    for size in SIZES {
        let mut h = harness(size);
        run_query(&mut h, "SELECT id, amout FROM payouts");
        let frame = h.frame();
        assert!(frame.contains("did you mean `amount`?"), "{frame}");
        insta::assert_snapshot!(name("error", size), frame);
    }
}

#[test]
fn a_refused_table_function_shows_as_an_error() {
    let mut h = harness((120, 40));
    run_query(&mut h, "SELECT * FROM read_parquet('/etc/passwd')");
    assert!(h.frame().contains("refused: table function read_parquet"));
}

#[test]
fn esc_while_running_cancels_and_history_brings_the_query_back() {
    let mut h = harness((80, 24));
    h.auto = false;
    run_query(&mut h, "SELECT COUNT(*) AS n FROM payouts");
    assert!(h.frame().contains("Running the query"));
    h.keys("esc");
    assert!(h.frame().contains("Query cancelled"), "{}", h.frame());
    h.settle();
    assert!(
        h.frame().contains("Query cancelled"),
        "a dropped result stays dropped"
    );
    h.keys("i");
    h.keys("ctrl-u");
    h.keys("up");
    h.auto = true;
    h.keys("enter");
    let frame = h.frame();
    assert!(frame.contains(" n "), "{frame}");
}

#[test]
fn saved_queries_step_into_the_editor() {
    let mut h = harness((120, 40));
    h.keys("n");
    h.keys("enter");
    let frame = h.frame();
    assert!(frame.contains("fee_major"), "{frame}");
}

#[test]
fn a_million_row_result_stays_virtualised_and_exports_streamed() {
    let n = 1_000_000i64;
    let frame = polars::df!(
        "n" => (0..n).collect::<Vec<i64>>(),
        "amount" => (0..n).map(|i| i % 997).collect::<Vec<i64>>(),
    )
    .expect("frame");
    let engine = Engine::from_tables(vec![TableInfo {
        name: "big".into(),
        about: "",
        frame,
    }]);
    let dir = tempfile::tempdir().expect("dir");
    let ws = crate::tui::sample::workspace(Origin::Demo);
    let mut h = Harness::with_tabs(
        test_settings(Startup::Demo),
        vec![Box::new(QueryPane::with_engine(
            saved::builtin(),
            engine,
            dir.path().to_path_buf(),
        ))],
        Box::new(move |_| Ok(ws.clone())),
        80,
        24,
    );
    h.start();
    run_query(&mut h, "SELECT n, amount FROM big");
    let total = h
        .state
        .focused()
        .and_then(|p| p.table())
        .map_or(0, DataTable::total);
    assert_eq!(total, 1_000_000);
    h.keys("end");
    let frame = h.frame();
    assert!(frame.contains("999999"), "{frame}");
    h.keys("E");
    let csv = std::fs::read_to_string(dir.path().join("query-result.csv")).expect("csv");
    assert_eq!(csv.lines().count(), 1_000_001);
    assert!(dir.path().join("query-result.json").exists());
    assert!(dir.path().join("query-result.md").exists());
}
