//! Saved views through the binary: `tieout dunning --view NAME` writes exactly the rows
//! and columns the Worklist shows with that view open (compared with the pane itself,
//! driven by the harness on the same demo account); an unknown name lists the saved
//! views and a mistake in views.toml is placed by line and column (exit 2 both).

use clap::Parser;
use tieout::app::views::ViewsFile;
use tieout::cli::{Cli, Ctx};
use tieout::tui::harness::Harness;
use tieout::tui::screenshots::NOW;

use crate::support::cli::Tieout;

const VIEWS: &str = r#"
[[view]]
name = "usd-by-amount"
pane = "worklist"
filter = "usd"
columns = ["Customer", "Amount", "Action", "Days late"]
sort = { column = "Amount", direction = "desc" }
facets = { no_retry_left = true }

[[view]]
name = "october"
pane = "tieout"
month = "2026-10"
columns = ["Arrival", "Payout", "Result", "Amount", "Difference"]
sort = { column = "Amount", direction = "desc" }
"#;

/// A demo environment whose config folder holds `views`.
fn with_views(views: &str) -> Tieout {
    let t = Tieout::demo();
    let dir = t.home().join(".config").join("tieout-views");
    std::fs::create_dir_all(&dir).expect("config dir");
    std::fs::write(dir.join("views.toml"), views).expect("views.toml");
    t.env("TIEOUT_CONFIG_DIR", &dir.display().to_string())
}

/// What the tab `tab` shows with `name` opened from the open prompt: its CSV export
/// (`export`) and its row count.
fn pane_csv(name: &str, tab: usize) -> (Vec<u8>, usize) {
    let cli = Cli::parse_from(["tieout", "--demo", "--now", NOW]);
    let ctx = Ctx::from_args(cli.global);
    let ws = tieout::cli::tui_cmd::demo_workspace(&ctx).expect("the demo account");
    let mut h = Harness::loaded(ws, 120, 40);
    h.state.views = ViewsFile::parse(VIEWS, "views.toml").expect("views").view;
    h.keys("2 V");
    h.type_text(name);
    h.keys("enter");
    assert_eq!(h.state.active, tab, "the view opens on its tab");
    let t = h.state.tabs[tab].table().expect("the tab's table");
    (t.to_csv(), t.visible())
}

#[test]
fn dunning_view_writes_exactly_what_the_pane_shows() {
    let t = with_views(VIEWS);
    let run = t.run(&["dunning", "--view", "usd-by-amount"]);
    run.success();
    let csv = std::fs::read(t.work_dir().join("failed-payments-usd-by-amount.csv")).expect("csv");
    let (want, rows) = pane_csv("usd-by-amount", 0);
    assert!(rows > 0, "the view shows rows");
    assert_eq!(
        String::from_utf8_lossy(&csv),
        String::from_utf8_lossy(&want),
        "the file is the pane's rows and columns"
    );
    let header = String::from_utf8_lossy(&csv)
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    assert!(
        header.starts_with("Customer,Amount,Amount currency,Action"),
        "{header}"
    );
    assert!(!header.contains("Decline"), "{header}");
    let md =
        std::fs::read_to_string(t.work_dir().join("failed-payments-usd-by-amount.md")).expect("md");
    assert_eq!(
        md.lines().filter(|l| l.starts_with('|')).count(),
        rows + 2,
        "{md}"
    );
    let json =
        std::fs::read(t.work_dir().join("failed-payments-usd-by-amount.json")).expect("json");
    let json: serde_json::Value = serde_json::from_slice(&json).expect("json parses");
    assert_eq!(json.as_array().map(Vec::len), Some(rows));
    assert!(
        run.stdout.contains(&format!("{rows} of ")),
        "{}",
        run.stdout
    );
    assert!(
        !t.work_dir().join("failed-payments.csv").exists(),
        "only the view's files"
    );
}

#[test]
fn an_unknown_view_or_one_of_another_tab_is_refused_with_the_names() {
    let t = with_views(VIEWS);
    let run = t.run(&["dunning", "--view", "nope"]);
    run.code(2);
    assert!(
        run.stderr.contains("usd-by-amount, october"),
        "{}",
        run.stderr
    );
    let run = t.run(&["dunning", "--view", "october"]);
    run.code(2);
    assert!(run.stderr.contains("tieout tab"), "{}", run.stderr);
    // The workbench refuses an unknown name before it needs a terminal.
    let run = t.run(&["--view", "nope"]);
    run.code(2);
    assert!(run.stderr.contains("the saved views are"), "{}", run.stderr);
    let run = t.run(&["reconcile", "--month", "2026-09", "--view", "october"]);
    run.code(2);
    assert!(run.stderr.contains("--month 2026-10"), "{}", run.stderr);
    let bad = with_views("[[view]]\nname = \"x\"\npane = \"tieout\"\nmonth = \"October\"\n");
    let run = bad.run(&["--view", "x"]);
    run.code(2);
    assert!(run.stderr.contains("is not a month"), "{}", run.stderr);
    let run = t.run(&["status", "--view", "october"]);
    run.code(2);
    assert!(
        run.stderr.contains("this command takes none"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_mistake_in_views_toml_is_placed_by_line_and_column() {
    let t = with_views("[[view]]\nname = \"x\"\npane = \"worklist\"\nfiltre = \"usd\"\n");
    let run = t.run(&["dunning", "--view", "x"]);
    run.code(2);
    assert!(
        run.stderr.contains("line 4, column 1") && run.stderr.contains("did you mean `filter`?"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("\"Saved views\""), "{}", run.stderr);
}

#[test]
fn reconcile_view_writes_the_payouts_the_tieout_pane_shows() {
    let t = with_views(VIEWS);
    let run = t.run(&[
        "reconcile",
        "--month",
        "2026-10",
        "--view",
        "october",
        "--format",
        "csv",
    ]);
    assert!(matches!(run.code, Some(0 | 5)), "{run:?}");
    let csv = std::fs::read(t.work_dir().join("payouts-2026-10-october.csv")).expect("csv");
    let (want, rows) = pane_csv("october", 1);
    assert!(rows > 0, "the month has payouts");
    assert_eq!(
        String::from_utf8_lossy(&csv),
        String::from_utf8_lossy(&want)
    );
    assert!(
        String::from_utf8_lossy(&csv)
            .starts_with("Arrival,Payout,Result,Amount,Amount currency,Difference"),
        "{}",
        String::from_utf8_lossy(&csv)
    );
    assert!(!t.work_dir().join("reconciliation-2026-10.csv").exists());
}

const REFUND_VIEWS: &str = r#"
[[view]]
name = "usd approvals"
pane = "refunds"
filter = "usd"
columns = ["Ticket", "Suggest", "Amount", "Rule"]
sort = { column = "Amount", direction = "desc" }
"#;

/// `tieout suggest --tickets FILE --view NAME` writes the Refunds queue as the pane shows
/// it with that view open (the demo's tickets, decided the same way).
#[test]
fn suggest_view_writes_the_tickets_the_refunds_pane_shows() {
    let t = with_views(REFUND_VIEWS);
    let tickets =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo/tickets.csv");
    let tickets = tickets.display().to_string();
    let run = t.run(&["suggest", "--tickets", &tickets, "--view", "usd approvals"]);
    run.success();
    let csv = std::fs::read(t.work_dir().join("refund-suggestions-usd-approvals.csv"))
        .expect("the view's csv");
    assert!(
        !t.work_dir().join("refund-suggestions.csv").exists(),
        "the whole queue is not written with --view"
    );

    let cli = Cli::parse_from(["tieout", "--demo", "--now", NOW]);
    let ctx = Ctx::from_args(cli.global);
    let ws = tieout::cli::tui_cmd::demo_workspace(&ctx).expect("the demo account");
    let mut h = Harness::loaded(ws, 120, 40);
    h.state.views = ViewsFile::parse(REFUND_VIEWS, "views.toml")
        .expect("views")
        .view;
    h.keys("V");
    h.type_text("usd");
    h.keys("enter");
    assert_eq!(h.state.active, 2, "the view opens on the Refunds tab");
    let table = h.state.tabs[2].table().expect("the queue");
    assert!(table.visible() > 0, "the view shows tickets");
    assert_eq!(
        String::from_utf8_lossy(&csv),
        String::from_utf8_lossy(&table.to_csv()),
        "the file is the pane's rows and columns"
    );
    let header = String::from_utf8_lossy(&csv)
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    assert!(header.starts_with("Ticket,Suggest,Amount"), "{header}");
    assert!(!header.contains("Email"), "{header}");
    assert!(
        run.stdout.contains(&format!("{} of ", table.visible())),
        "{}",
        run.stdout
    );

    let without = t.run(&[
        "suggest",
        "--email",
        "a@b.c",
        "--order",
        "1",
        "--view",
        "usd approvals",
    ]);
    without.code(2);
    assert!(
        without.stderr.contains("--tickets FILE"),
        "{}",
        without.stderr
    );
}

const MISSPELT_COLUMN: &str = r#"
[[view]]
name = "misspelt"
pane = "worklist"
columns = ["Customer", "Amnt"]
sort = { column = "Days lat", direction = "desc" }
"#;

/// A view that names a column the table does not have is refused with the names it got
/// wrong and the columns there are, from the command line and in the workbench (where
/// the table stays as it was).
#[test]
fn a_view_naming_a_column_the_table_lacks_is_refused_with_the_columns() {
    let t = with_views(MISSPELT_COLUMN);
    let run = t.run(&["dunning", "--view", "misspelt"]);
    run.code(2);
    assert!(
        run.stderr
            .contains(r#"no column "Amnt", "Days lat" in the Failed payments table"#),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("Days late"), "{}", run.stderr);
    assert!(
        !t.work_dir().join("failed-payments-misspelt.csv").exists(),
        "nothing is written"
    );

    let cli = Cli::parse_from(["tieout", "--demo", "--now", NOW]);
    let ctx = Ctx::from_args(cli.global);
    let ws = tieout::cli::tui_cmd::demo_workspace(&ctx).expect("the demo account");
    let mut h = Harness::loaded(ws, 120, 40);
    h.state.views = ViewsFile::parse(MISSPELT_COLUMN, "views.toml")
        .expect("views")
        .view;
    let before = h.state.tabs[0].table().expect("the worklist").to_csv();
    h.keys("V");
    h.type_text("misspelt");
    h.keys("enter");
    let frame = h.frame();
    assert!(frame.contains("no column \"Amnt\""), "{frame}");
    let after = h.state.tabs[0].table().expect("the worklist").to_csv();
    assert_eq!(before, after, "the table is as it was");
}
