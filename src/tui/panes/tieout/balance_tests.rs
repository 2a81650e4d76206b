//! The Balance view on the demo account: `b` switches the Tie-out tab to the month's
//! roll-forward per currency (snapshots at 80x24 and 120x40) and back, `[`/`]` move it,
//! Enter drills from a currency to its categories and from a category to its lines, Esc
//! comes back up with the selection kept; a difference and incomplete lines are shown.

use super::*;
use crate::report::balance as export;
use crate::tui::harness::{Harness, buffer_text, style_layer, test_settings};
use crate::tui::state::Startup;
use crate::tui::workspace::Workspace;

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

fn demo() -> AccountData {
    crate::source::demo::load_demo().expect("demo")
}

fn harness_with(pane: TieOutPane, data: AccountData, (w, h): (u16, u16)) -> Harness {
    let ws = Workspace::new(data, Vec::new());
    let mut h = Harness::with_tabs(
        test_settings(Startup::Demo),
        vec![Box::new(pane)],
        Box::new(move |_| Ok(ws.clone())),
        w,
        h,
    );
    h.start();
    h
}

fn harness(data: AccountData, size: (u16, u16)) -> Harness {
    harness_with(TieOutPane::new(), data, size)
}

/// The figures `tieout balance --month M` builds on `data`.
fn report(data: &AccountData, month: &str) -> export::BalanceReport {
    let month = month.parse().expect("month");
    export::build(data, month, &jiff::tz::TimeZone::UTC)
}

/// The focused table: its title, rows shown and selected row.
fn table(h: &Harness) -> (String, usize, Option<usize>) {
    let t = h.state.focused().and_then(|p| p.table()).expect("a table");
    (t.title().to_string(), t.visible(), t.selected_row())
}

#[test]
fn b_shows_the_roll_forward_per_currency_and_goes_back() {
    let expected = report(&demo(), "2026-11");
    assert!(expected.ties(), "the demo's balance ties");
    for (w, hh) in SIZES {
        let mut h = harness(demo(), (w, hh));
        assert_eq!(table(&h).0, "Payouts arriving in November 2026");
        h.keys("b");
        let (title, rows, selected) = table(&h);
        assert_eq!(title, "Stripe balance, November 2026");
        assert_eq!(rows, expected.rollforward.len());
        assert_eq!(selected, Some(0));
        let frame = h.frame();
        assert!(frame.contains("3 currencies · ties"), "{frame}");
        assert!(frame.contains("EUR roll-forward, November 2026"), "{frame}");
        // The month that holds the read is compared with Stripe's balance, and ties.
        assert!(frame.contains("Stripe's balance"), "{frame}");
        assert!(frame.contains("/v1/balance"), "{frame}");
        assert!(
            frame.contains("summed, and derived back: they agree"),
            "{frame}"
        );
        insta::assert_snapshot!(format!("tieout_balance_{w}x{hh}"), frame);
        h.keys("b");
        assert_eq!(table(&h).0, "Payouts arriving in November 2026");
        assert!(h.frame().contains("payouts:"), "back to the payouts");
    }
}

#[test]
fn the_statement_shows_the_selected_currencys_figures() {
    let expected = report(&demo(), "2026-11");
    let usd = expected
        .rollforward
        .iter()
        .find(|f| f.currency == crate::money::Currency::USD)
        .expect("usd");
    let mut h = harness(demo(), (120, 40));
    h.keys("b end");
    let frame = h.frame();
    assert!(frame.contains("USD roll-forward, November 2026"), "{frame}");
    let g = |v: i128| format!("{} USD", balance::grouped(v, usd.currency));
    for (label, v) in [
        ("  Opening balance", usd.opening),
        ("+ Activity", usd.activity),
        ("+ Payouts", usd.payouts),
        ("= Closing balance", usd.closing),
        ("    pending", usd.closing_pending),
        ("    available", usd.closing_available),
    ] {
        let line = frame
            .lines()
            .find(|l| l.contains(&format!("│ {label} ")))
            .unwrap_or_else(|| panic!("{label}: {frame}"));
        assert!(line.contains(&g(v)), "{label} {}: {line}", g(v));
    }
    assert!(frame.contains("ties"), "{frame}");
}

#[test]
fn the_month_keys_move_the_view_and_keep_the_currency() {
    let data = demo();
    let (oct, nov) = (report(&data, "2026-10"), report(&data, "2026-11"));
    let mut h = harness(data, (120, 40));
    h.keys("b end");
    assert_eq!(table(&h).2, Some(2), "USD");
    h.keys("[");
    let (title, rows, selected) = table(&h);
    assert_eq!(title, "Stripe balance, October 2026");
    assert_eq!(rows, oct.rollforward.len());
    assert_eq!(selected, Some(2), "the currency stays chosen");
    let frame = h.frame();
    assert!(frame.contains("USD roll-forward, October 2026"), "{frame}");
    // A past month is not compared with Stripe's balance, and says which month is.
    assert!(frame.contains("compared for November 2026 only"), "{frame}");
    // October's closing is November's opening, in every currency.
    for (o, n) in oct.rollforward.iter().zip(&nov.rollforward) {
        assert_eq!(o.currency, n.currency);
        assert_eq!(o.closing, n.opening, "{}", o.currency);
    }
    h.keys("]");
    assert_eq!(table(&h).0, "Stripe balance, November 2026");
    // The payouts view moved with it.
    h.keys("b");
    assert_eq!(table(&h).0, "Payouts arriving in November 2026");
}

#[test]
fn enter_drills_to_categories_then_lines_and_esc_keeps_the_selection() {
    let data = demo();
    let nov = report(&data, "2026-11");
    let usd_cats: Vec<_> = nov
        .activity
        .iter()
        .filter(|a| a.currency == crate::money::Currency::USD)
        .collect();
    let mut h = harness(data.clone(), (120, 40));
    h.keys("b end enter");
    assert_eq!(h.state.screens.len(), 1);
    let (title, rows, _) = table(&h);
    assert_eq!(title, "USD 2026-11 by reporting category");
    assert_eq!(rows, usd_cats.len() + 1, "the categories and all lines");
    let frame = h.frame();
    assert!(frame.contains("all lines"), "{frame}");
    assert!(frame.contains("payments received"), "{frame}");
    insta::assert_snapshot!("tieout_balance_activity_120x40", frame);

    // The second category's lines: exactly the month's USD lines of that category.
    h.keys("down enter");
    assert_eq!(h.state.screens.len(), 2);
    let cat = &usd_cats[1].reporting_category;
    let (title, rows, _) = table(&h);
    assert_eq!(title, format!("USD 2026-11 › {cat}"));
    assert_eq!(rows as u64, usd_cats[1].count);
    let (start, end) = nov.month.range(&jiff::tz::TimeZone::UTC);
    let want = data
        .balance_transactions
        .iter()
        .filter(|l| l.currency == crate::money::Currency::USD)
        .filter(|l| l.created >= start && l.created < end && &l.reporting_category == cat)
        .count();
    assert_eq!(rows, want);

    // Esc goes back up one level at a time, with the selections kept.
    h.keys("esc");
    assert_eq!(h.state.screens.len(), 1);
    assert_eq!(table(&h).2, Some(1), "the category stays selected");
    h.keys("esc");
    assert!(h.state.screens.is_empty());
    let (title, _, selected) = table(&h);
    assert_eq!(title, "Stripe balance, November 2026");
    assert_eq!(selected, Some(2), "USD stays selected");
}

#[test]
fn all_lines_lists_every_line_of_the_currencys_month() {
    let data = demo();
    let nov = report(&data, "2026-11");
    let usd: u64 = nov
        .activity
        .iter()
        .filter(|a| a.currency == crate::money::Currency::USD)
        .map(|a| a.count)
        .sum();
    let mut h = harness(data, (80, 24));
    h.keys("b end enter end enter");
    let (title, rows, _) = table(&h);
    assert_eq!(title, "USD 2026-11 › all lines");
    assert_eq!(rows as u64, usd);
    insta::assert_snapshot!("tieout_balance_lines_80x24", h.frame());
}

#[test]
fn a_difference_with_stripes_balance_is_shown_in_the_warning_colour() {
    let mut data = demo();
    if let Some(b) = data.meta.balance.as_mut()
        && let Some(usd) = b.amounts.get_mut(&crate::money::Currency::USD)
    {
        // Stripe says 1.00 more than the lines add up to.
        usd.0 += 100;
    }
    let mut h = harness(data, (120, 40));
    h.keys("b end");
    let buf = h.draw();
    let frame = buffer_text(&buf);
    assert!(frame.contains("does not tie"), "{frame}");
    assert!(
        frame.contains("closing − Stripe's: does not tie"),
        "{frame}"
    );
    let layer = style_layer(&buf, &h.state.theme, &[(Role::Warning, 'W')]);
    let (y, line) = frame
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("Difference") && l.contains("-1.00 USD"))
        .unwrap_or_else(|| panic!("the difference: {frame}"));
    let x = line[..line.find("-1.00 USD").expect("amount")]
        .chars()
        .count();
    let marks: String = layer
        .lines()
        .nth(y)
        .expect("row")
        .chars()
        .skip(x)
        .take(9)
        .collect();
    // Every printed cell of the amount (the space between carries no mark).
    assert_eq!(marks, "WWWWW.WWW", "{frame}");
    // The opening was derived back from the same balance, so it differs from the summed.
    assert!(frame.contains("Opening difference"), "{frame}");
}

#[test]
fn lines_incomplete_are_said_and_the_opening_is_derived() {
    // A cache from before tieout listed the window's lines: the payouts' lines only.
    let mut data = demo();
    data.meta.lines_complete = false;
    let mut h = harness(data.clone(), (80, 24));
    h.keys("b");
    let frame = h.frame();
    assert!(frame.contains("Lines incomplete"), "{frame}");
    assert!(frame.contains("not compared: lines incomplete"), "{frame}");
    insta::assert_snapshot!("tieout_balance_incomplete_80x24", frame);
    // A sync's cache holds every line since the window's start: the opening is derived
    // back from Stripe's balance and the month is compared with it.
    data.meta.lines_since = Some(data.meta.window_start);
    let mut h = harness(data, (80, 24));
    h.keys("b");
    let frame = h.frame();
    assert!(!frame.contains("Lines incomplete"), "{frame}");
    assert!(
        frame.contains("derived back from Stripe's balance"),
        "{frame}"
    );
}

#[test]
fn export_writes_the_months_balance_files() {
    let data = demo();
    let want = export::files(
        &report(&data, "2026-11"),
        Formats {
            md: true,
            csv: true,
            json: true,
        },
    );
    let mut h = harness(data, (120, 40));
    h.keys("b e");
    let written: Vec<(String, Vec<u8>)> = h
        .log
        .iter()
        .filter_map(|e| match e {
            Effect::Write { path, bytes } => Some((path.display().to_string(), bytes.clone())),
            _ => None,
        })
        .collect();
    let want: Vec<(String, Vec<u8>)> = want.into_iter().map(|(n, b)| (n.to_string(), b)).collect();
    assert_eq!(written, want);
}

#[test]
fn a_large_account_builds_the_figures_in_a_job() {
    let mut h = harness_with(TieOutPane::new().with_sync_limit(0), demo(), (80, 24));
    h.keys("b");
    assert_eq!(table(&h).1, 3);
    assert!(h.frame().contains("ties"), "{}", h.frame());
}

#[test]
fn every_column_of_the_tables_is_a_declared_field_or_the_views_own() {
    use crate::report::fields;
    for (name, _) in balance::SHOWN {
        assert!(
            fields::field(export::ROLLFORWARD_FIELDS, name).is_some(),
            "{name}"
        );
    }
    for (name, _) in balance_screens::ACTIVITY_SHOWN {
        assert!(
            fields::field(export::ACTIVITY_FIELDS, name).is_some(),
            "{name}"
        );
    }
}

#[test]
fn lines_that_could_not_be_read_are_said_above_the_figures() {
    use crate::app::pane_reads::{Gap, Problem};
    let gap = Gap {
        resource: crate::model::Resource::Payouts,
        problem: Problem::Lacks {
            permission: "rak_balance_transaction_source_read".into(),
            row: "Balance".into(),
        },
        stale: true,
    };
    let ws = Workspace::new(demo(), Vec::new()).with_gaps(vec![gap]);
    let mut h = Harness::with_tabs(
        test_settings(Startup::Demo),
        vec![pane()],
        Box::new(move |_| Ok(ws.clone())),
        120,
        40,
    );
    h.start();
    h.keys("b");
    let frame = h.frame();
    assert!(
        frame.contains("The balance transactions could not be read now (this key lacks"),
        "{frame}"
    );
    assert!(frame.contains("last sync's figures"), "{frame}");
    // And its files are not written.
    h.keys("e");
    assert!(
        !h.log.iter().any(|e| matches!(e, Effect::Write { .. })),
        "nothing exported"
    );
}

/// `P` works in the Balance view too, and its outcome shows above the figures.
#[test]
fn the_close_packet_from_the_balance_view_says_how_it_went() {
    use crate::tui::msg::{Msg, PacketResult};
    let mut h = harness(demo(), (120, 40));
    h.keys("b P enter");
    let req = h
        .log
        .iter()
        .find_map(|e| match e {
            Effect::ExportPacket { req, month, .. } => {
                assert_eq!(month.to_string(), "2026-11");
                Some(*req)
            }
            _ => None,
        })
        .expect("the packet asked for");
    h.step(Msg::PacketExported {
        req,
        result: PacketResult::Exists(PathBuf::from("/books/close-2026-11")),
    });
    let frame = h.frame();
    assert!(
        frame.contains("A close packet for 2026-11 already exists at /books/close-2026-11"),
        "{frame}"
    );
    assert!(frame.contains("Stripe balance, November 2026"), "{frame}");
}

/// On a large account the figures are a job: two quick month moves, and the first job's
/// late result must not win.
#[test]
fn the_latest_month_asked_for_wins() {
    use crate::tui::msg::{CancelFlag, Msg};
    let mut h = harness_with(TieOutPane::new().with_sync_limit(0), demo(), (120, 40));
    h.keys("b");
    assert_eq!(table(&h).0, "Stripe balance, November 2026");
    h.auto = false;
    h.keys("[");
    let frame = h.frame();
    assert!(
        frame.contains("October 2026 ▶") && frame.contains("rolling the balance forward…"),
        "{frame}"
    );
    // The rows on screen still say which month they are of.
    assert_eq!(table(&h).0, "Stripe balance, November 2026");
    h.keys("[");
    let mut outputs = Vec::new();
    for e in std::mem::take(&mut h.queued) {
        if let Effect::Compute { req, job } = e {
            outputs.push((req, job.run(&CancelFlag::new())));
        }
    }
    // Two tie-outs and two roll-forwards; deliver the newer first, then the stale ones.
    assert_eq!(outputs.len(), 4);
    outputs.reverse();
    for (req, output) in outputs {
        h.step(Msg::Computed { req, output });
    }
    assert_eq!(table(&h).0, "Stripe balance, September 2026");
    assert!(h.frame().contains("September 2026 ▶"), "{}", h.frame());
}
