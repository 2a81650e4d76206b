//! The Refunds tab's Fraud warnings view over the demo: `w` switches to it and back, its
//! rows are the queue `tieout suggest --fraud-warnings` writes, the selected warning's costs
//! are shown, copy gives them ready to paste; snapshots at 80x24 and 120x40.

use crate::tui::action::Action;
use crate::tui::harness::{Harness, test_settings};
use crate::tui::msg::Effect;
use crate::tui::state::Startup;
use crate::tui::workspace::{Workspace, parse_tickets_csv};

use super::*;

fn demo_harness((w, h): (u16, u16)) -> Harness {
    let data = crate::source::demo::load_demo().expect("demo");
    let tickets = parse_tickets_csv(crate::source::demo::demo_tickets_csv()).expect("tickets");
    let ws = Workspace::new(data, tickets);
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

fn shown(h: &Harness) -> bool {
    h.state
        .focused()
        .and_then(|p| p.table())
        .is_some_and(|t| t.title().starts_with("Fraud warnings"))
}

#[test]
fn w_switches_to_the_fraud_warnings_and_back() {
    let mut h = demo_harness((120, 40));
    assert!(!shown(&h));
    h.keys("w");
    assert!(shown(&h), "{}", h.frame());
    let table = h.state.focused().and_then(|p| p.table()).expect("table");
    assert_eq!(table.total(), 6, "the demo's six warnings to decide");
    assert_eq!(
        table.title(),
        "Fraud warnings (2 off the list: 1 refunded, 1 disputed)"
    );
    let first = table.row_fields(0);
    assert!(
        first
            .iter()
            .any(|(_, v)| v == "issfr_chSi7qUz8OGjEQ9FUyqApE0p"),
        "{first:?}"
    );
    let frame = h.frame();
    assert!(
        frame.contains("Refund") && frame.contains("Wait"),
        "{frame}"
    );
    h.keys("w");
    assert!(!shown(&h));
}

#[test]
fn copy_row_gives_the_warning_and_its_costs() {
    let mut h = demo_harness((80, 24));
    h.action(Action::FraudView);
    h.action(Action::Bottom);
    h.action(Action::CopyRow);
    let copied: Vec<&String> = h
        .log
        .iter()
        .filter_map(|e| match e {
            Effect::Copy(t) => Some(t),
            _ => None,
        })
        .collect();
    assert_eq!(copied.len(), 1);
    assert!(
        copied[0].starts_with("issfr_0shbgmpwByFmCPHWhqSGgQcv: refund (fraud-warning-actionable)"),
        "{}",
        copied[0]
    );
    assert!(
        copied[0].contains("Wait: 24.00 USD + fee 0.99 USD + dispute fee 15.00 USD + 1 dispute"),
        "{}",
        copied[0]
    );
}

#[test]
fn snapshot_the_fraud_warnings_view() {
    for (w, hgt) in [(80, 24), (120, 40)] {
        let mut h = demo_harness((w, hgt));
        h.keys("w");
        insta::assert_snapshot!(format!("refunds_fraud_warnings_{w}x{hgt}"), h.frame());
    }
}
