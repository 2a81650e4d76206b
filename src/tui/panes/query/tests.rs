use super::*;
use crate::model::Origin;
use crate::query::Engine;
use crate::query::TableInfo;
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
        vec![Box::new(QueryPane::new(
            crate::app::query::builtin_queries(),
        ))],
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
    // The work itself stopped: the job saw its cancel and the engine gave up the query
    // instead of finishing it unseen.
    let [dropped] = std::mem::take(&mut h.dropped)
        .try_into()
        .expect("one job dropped");
    match dropped.downcast::<Ran>().map(|b| *b) {
        Ok(Err((message, _))) => assert_eq!(message, "query cancelled"),
        Ok(Ok(_)) => panic!("the cancelled query ran to its end"),
        Err(_) => panic!("not a query job's output"),
    }
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
    let engine = Engine::from_tables(vec![TableInfo::from_frame("big", "", frame)]);
    let dir = tempfile::tempdir().expect("dir");
    let ws = crate::tui::sample::workspace(Origin::Demo);
    let mut h = Harness::with_tabs(
        test_settings(Startup::Demo),
        vec![Box::new(QueryPane::with_engine(
            crate::app::query::builtin_queries(),
            crate::app::query::SqlEngine::from_engine(engine),
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

/// Types `lines` into the editor, a new line (alt-enter) between them.
fn type_lines(h: &mut Harness, lines: &[&str]) {
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            h.keys("alt-enter");
        }
        h.type_text(l);
    }
}

#[test]
fn snapshot_multi_line_editor_then_its_result() {
    for size in SIZES {
        let mut h = harness(size);
        h.keys("i");
        h.keys("ctrl-o");
        type_lines(
            &mut h,
            &[
                "SELECT currency,",
                "  COUNT(*) AS payouts,",
                "  SUM(amount) AS amount",
                "FROM payouts",
                "GROUP BY currency",
                "ORDER BY currency",
            ],
        );
        // Up moves to the line above, keeping the column where it can.
        h.keys("up");
        h.keys("up");
        let frame = h.frame();
        assert!(frame.contains(" 1 SELECT currency,"), "{frame}");
        assert!(frame.contains(" 6 ORDER BY currency"), "{frame}");
        assert!(
            frame.contains("new line") && frame.contains("ctrl-o one line"),
            "{frame}"
        );
        insta::assert_snapshot!(name("multiline", size), frame);
        h.keys("enter");
        let frame = h.frame();
        assert!(
            frame.contains("payouts") && frame.contains("amount"),
            "{frame}"
        );
        assert!(
            !frame.contains("Running the query") && !frame.contains(" Error "),
            "{frame}"
        );
        // The result leaves the editor tall, its lines shown with their numbers.
        assert!(frame.contains(" 6 ORDER BY currency"), "{frame}");
    }
}

#[test]
fn snapshot_an_error_on_line_two_points_at_that_line() {
    for size in SIZES {
        let mut h = harness(size);
        h.keys("i");
        type_lines(&mut h, &["SELECT id,", "  amout", "FROM payouts"]);
        h.keys("enter");
        let frame = h.frame();
        assert!(frame.contains("line 2, column 3"), "{frame}");
        assert!(frame.contains("did you mean `amount`?"), "{frame}");
        // The error repeats line 2 with the caret under its third column.
        let lines: Vec<&str> = frame.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.contains("│    amout"))
            .unwrap_or_else(|| panic!("line 2 in the error: {frame}"));
        assert_eq!(
            lines[at + 1].find('^'),
            lines[at].find('a'),
            "the caret sits under the a of amout: {frame}"
        );
        insta::assert_snapshot!(name("error_line2", size), frame);
    }
}

#[test]
fn the_history_brings_a_multi_line_query_back_whole() {
    let mut h = harness((120, 40));
    h.keys("i");
    type_lines(&mut h, &["SELECT COUNT(*) AS n", "FROM payouts"]);
    h.keys("enter");
    h.keys("i");
    h.keys("ctrl-u");
    // Back to one line: recalling the two-line query expands the editor again.
    h.keys("ctrl-o");
    h.keys("up");
    h.keys("enter");
    let frame = h.frame();
    assert!(frame.contains(" 2 FROM payouts"), "{frame}");
    assert!(frame.contains(" n "), "{frame}");
}

#[test]
fn a_saved_query_keeps_its_lines_in_the_multi_line_editor() {
    let mut h = harness((120, 40));
    h.keys("i");
    h.keys("ctrl-o");
    h.keys("esc");
    h.keys("n");
    let frame = h.frame();
    // The cursor is at the end: the last rows show, with their line numbers.
    let first = crate::app::query::builtin_queries().remove(0);
    let lines: Vec<&str> = first.sql.trim().lines().collect();
    let last = format!("{} {}", lines.len(), lines[lines.len() - 1]);
    assert!(
        lines.len() > 6 && frame.contains(&last),
        "{last:?}: {frame}"
    );
    h.keys("enter");
    assert!(h.frame().contains("fee_major"), "{}", h.frame());
}
