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

/// The demo's warnings, as if read from a test-mode cache (so a batch can be sent),
/// against a policy naming Ana (agent): the review warning on top refuses its mark, the
/// two USD warnings to refund are marked (rows 4 and 6).
fn two_warnings_marked(size: (u16, u16)) -> Harness {
    use crate::domain::refund_gate::GatePolicy;
    let mut data = crate::source::demo::load_demo().expect("demo");
    data.meta.origin = crate::model::Origin::Cache;
    data.meta.mode = crate::model::Mode::Test;
    let tickets = parse_tickets_csv(crate::source::demo::demo_tickets_csv()).expect("tickets");
    let policy = "[daily_budget]\nusd = \"500.00\"\n\n[approval]\napprovers = [{ name = \"Ana\", role = \"agent\" }]\n";
    let ws = Workspace::new(data, tickets)
        .with_gate_policy(GatePolicy::from_toml(policy).expect("policy"));
    let mut h = Harness::with_tabs(
        test_settings(Startup::Demo),
        vec![pane()],
        Box::new(move |_| Ok(ws.clone())),
        size.0,
        size.1,
    );
    h.start();
    h.keys("w");
    h.keys("space");
    for _ in 0..3 {
        h.action(Action::Down);
    }
    h.keys("space"); // issfr_nQeN…, then the selection moves to issfr_9ATo… (EUR)
    h.action(Action::Down);
    h.keys("space"); // issfr_0shb…
    h
}

#[test]
fn a_warning_for_review_cannot_be_marked() {
    let mut h = demo_harness((120, 40));
    h.keys("w");
    h.keys("space");
    let toast = h.state.core.toast.as_ref().expect("a toast");
    assert!(toast.error);
    assert!(
        toast
            .text
            .contains("nothing to refund: issfr_chSi7qUz8OGjEQ9FUyqApE0p is review"),
        "{}",
        toast.text
    );
    assert!(marked_lines(&h.frame()).is_empty());
}

fn marked_lines(frame: &str) -> Vec<&str> {
    frame.lines().filter(|l| l.contains("● refund")).collect()
}

#[test]
fn warnings_to_refund_are_marked_and_previewed_as_one_batch() {
    use crate::domain::refund_approval::RefundSource;
    use crate::tui::msg::PreviewEvent;
    let mut h = two_warnings_marked((120, 40));
    let frame = h.frame();
    let marked = marked_lines(&frame);
    assert_eq!(marked.len(), 2, "{frame}");
    assert!(marked[0].contains("issfr_nQeN"), "{frame}");
    assert!(marked[1].contains("issfr_0shb"), "{frame}");

    h.keys("A");
    h.type_text("Ana");
    h.keys("enter");
    let opened: Vec<_> = h
        .log
        .iter()
        .filter_map(|e| match e {
            Effect::AuditBatch { batch, event } if *event == PreviewEvent::Opened => Some(batch),
            _ => None,
        })
        .collect();
    assert_eq!(opened.len(), 1, "{}", h.frame());
    let b = opened[0];
    let sources: Vec<&RefundSource> = b.items.iter().map(|i| &i.source).collect();
    assert_eq!(
        sources,
        [
            &RefundSource::FraudWarning("issfr_nQeNnMMr7wtkhwQoswUCCAnI".into()),
            &RefundSource::FraudWarning("issfr_0shbgmpwByFmCPHWhqSGgQcv".into()),
        ]
    );
    let amounts: Vec<(i64, &str, &str)> = (b.items.iter())
        .map(|i| {
            (
                i.proposal.amount,
                i.proposal.reason.as_str(),
                i.proposal.charge.as_str(),
            )
        })
        .collect();
    assert_eq!(
        amounts,
        [
            (9_199, "fraudulent", "ch_s1oRbGWls4LTLo4Z0LunCdkF"),
            (2_400, "fraudulent", "ch_9YmlDlXgqzl2MynYNJd0LV6M"),
        ]
    );
}

#[test]
fn snapshot_the_batch_preview_of_fraud_warnings() {
    for (w, hgt) in [(80, 24), (120, 40)] {
        let mut h = two_warnings_marked((w, hgt));
        h.keys("A");
        h.type_text("Ana");
        h.keys("enter");
        insta::assert_snapshot!(format!("refunds_fraud_warnings_batch_{w}x{hgt}"), h.frame());
    }
}
