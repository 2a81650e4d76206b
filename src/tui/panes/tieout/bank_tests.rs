//! The Tie-out pane with the demo's bundled bank statements: the Bank column and summary
//! line (snapshots at 80x24 and 120x40), the drill-down from a payout's Bank cell to its
//! bank line or its candidates, and the close packet asked for with the statement.

use super::*;
use crate::bank::BankStatus;
use crate::tui::harness::{Harness, test_settings};
use crate::tui::msg::Effect;
use crate::tui::state::Startup;
use crate::tui::workspace::Workspace;

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

fn demo_with_bank() -> Workspace {
    let data = crate::source::demo::load_demo().expect("demo");
    let lines = crate::source::demo::demo_bank_lines().expect("the demo's statements");
    Workspace::new(data, Vec::new()).with_bank(Some(lines))
}

fn harness((w, h): (u16, u16)) -> Harness {
    let ws = demo_with_bank();
    let mut h = Harness::with_tabs(
        test_settings(Startup::Demo),
        vec![pane()],
        Box::new(move |_| Ok(ws.clone())),
        w,
        h,
    );
    h.start();
    h
}

/// The match the pane should show for `month`, computed as the commands do.
fn expected(month: &str) -> crate::bank::BankMatch {
    let ws = demo_with_bank();
    let t = crate::domain::tieout::tie_out_month(
        &ws.data.payouts,
        &ws.data.balance_transactions,
        month.parse().expect("month"),
        &jiff::tz::TimeZone::UTC,
    );
    let lines = ws.bank.expect("lines");
    crate::bank::match_month(&t, &ws.data.payouts, &lines, crate::tui::sample::NOW)
}

#[test]
fn the_bank_column_and_summary_show_each_status() {
    for size in SIZES {
        let mut h = harness(size);
        h.keys("[");
        let frame = h.frame();
        assert!(frame.contains("October 2026"), "{frame}");
        assert!(frame.contains("Bank: "), "{frame}");
        assert!(frame.contains(" matched"), "{frame}");
        insta::assert_snapshot!(format!("tieout_bank_{}x{}", size.0, size.1), frame);
    }
}

#[test]
fn the_summary_counts_what_the_match_says() {
    let mut h = harness((120, 40));
    h.keys("[");
    let m = expected("2026-10");
    let frame = h.frame();
    for (s, n) in m.counts() {
        let always = [
            BankStatus::Matched,
            BankStatus::Pending,
            BankStatus::Missing,
            BankStatus::Review,
        ];
        if n > 0 || always.contains(&s) {
            let want = format!("{n} {}", s.as_str());
            assert!(frame.contains(&want), "{want} in {frame}");
        }
    }
    assert!(m.payouts.len() > 20, "October's payouts are matched");
}

#[test]
fn enter_on_the_bank_cell_opens_the_bank_lines_elsewhere_the_payout() {
    let mut h = harness((120, 40));
    h.keys("[");
    // Arrival, Payout, Result, Bank: three steps right.
    h.keys("right right right enter");
    assert_eq!(h.state.screens.len(), 1);
    let frame = h.frame();
    assert!(frame.contains("› bank"), "{frame}");
    assert!(frame.contains("matched"), "{frame}");
    insta::assert_snapshot!("tieout_bank_lines_120x40", frame);
    h.keys("esc");
    // On another column: the payout's categories, as without a statement.
    h.keys("left enter");
    let frame = h.frame();
    assert!(frame.contains("by category"), "{frame}");
}

#[test]
fn a_review_shows_its_ranked_candidates() {
    let (month, keys) = if expected("2026-10").counts()[&BankStatus::Review] > 0 {
        ("2026-10", "[")
    } else {
        ("2026-11", "")
    };
    let m = expected(month);
    let review = m
        .payouts
        .iter()
        .find(|p| p.status == BankStatus::Review)
        .expect("the demo statement has a review in October or November");
    assert!(!review.candidates.is_empty(), "{review:?}");
    let mut h = harness((120, 40));
    h.keys(keys);
    h.keys("g");
    h.type_text(&review.payout.id);
    h.keys("enter right right right enter");
    let frame = h.frame();
    assert!(
        frame.contains(&format!("{} › bank", review.payout.id)),
        "{frame}"
    );
    assert!(frame.contains("candidate"), "{frame}");
}

#[test]
fn the_close_packet_is_asked_for_with_the_statement() {
    let mut h = harness((120, 40));
    h.keys("[ P enter");
    let input = h
        .log
        .iter()
        .rev()
        .find_map(|e| match e {
            Effect::ExportPacket { input, .. } => Some(input.clone()),
            _ => None,
        })
        .expect("an ExportPacket effect");
    assert!(input.bank.as_ref().is_some_and(|l| !l.is_empty()));
}
