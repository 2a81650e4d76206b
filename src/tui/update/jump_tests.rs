//! Jump to an id through the harness: `g`, the id (or its start), Enter; the state after
//! the keys (tab, month, drill-down, selection, status line) and snapshots of a jump from
//! a `txn_` id to its payout line at 80x24 and 120x40.

use crate::domain::refunds::Ticket;
use crate::model::{AccountData, Origin};
use crate::tui::harness::{Harness, buffer_text};
use crate::tui::palette::tests::month_on_screen;
use crate::tui::sample;
use crate::tui::workspace::Workspace;

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];
const TIEOUT: usize = 1;
const REFUNDS: usize = 2;

/// The Tie-out's sample month (payouts with lines, a charge, a refund, a dispute) with the
/// sample's invoices, and the sample tickets plus one about the charge.
fn workspace() -> Workspace {
    let mut d: AccountData = crate::tui::panes::tieout::tests::account();
    d.invoices = sample::account(Origin::Demo).invoices;
    let mut tickets = sample::tickets();
    tickets.push(Ticket {
        ticket_id: Some("T-2001".into()),
        email: "ada@example.com".into(),
        order_id: "ORD-7".into(),
        message: "Please refund the rest of my beans plan.".into(),
        amount: None,
    });
    Workspace::new(d, tickets)
}

fn harness((w, h): (u16, u16)) -> Harness {
    Harness::loaded(workspace(), w, h)
}

fn jump(h: &mut Harness, text: &str) {
    h.keys("g");
    h.type_text(text);
    h.keys("enter");
}

/// The cells of the focused pane's selected row.
fn selected(h: &Harness) -> Vec<String> {
    let t = h.state.focused().and_then(|p| p.table()).expect("a table");
    let row = t.selected_row().expect("a selected row");
    t.row_fields(row).into_iter().map(|(_, v)| v).collect()
}

/// Whether the focused pane's selected row holds `value`.
fn selected_has(h: &Harness, value: &str) -> bool {
    selected(h).iter().any(|v| v == value)
}

fn screen_titles(h: &Harness) -> Vec<String> {
    h.state.screens.iter().map(|(_, s)| s.title()).collect()
}

fn toast(h: &Harness) -> (String, bool) {
    let t = h.state.core.toast.clone().expect("a status message");
    (t.text, t.error)
}

#[test]
fn a_balance_transaction_opens_its_payouts_lines_with_it_selected() {
    for size in SIZES {
        let mut h = harness(size);
        assert_eq!(h.state.active, 0);
        jump(&mut h, "txn_r1");
        assert_eq!(h.state.active, TIEOUT);
        assert_eq!(month_on_screen(&h), Some("2026-10".parse().expect("month")));
        assert_eq!(screen_titles(&h), ["Payout po_tied", "refund"]);
        assert!(selected_has(&h, "txn_r1"), "{:?}", selected(&h));
        let (text, error) = toast(&h);
        assert!(!error);
        assert_eq!(
            text,
            "txn_r1 (balance transaction): Tie-out, payout po_tied › refund"
        );
        // Back goes to the payout's categories with the refund's selected, then the month
        // with the payout selected.
        h.keys("esc");
        assert!(selected_has(&h, "refund"), "{:?}", selected(&h));
        h.keys("esc");
        assert!(selected_has(&h, "po_tied"), "{:?}", selected(&h));
        h.keys("g");
        h.type_text("txn_r1");
        h.keys("enter");
        let name = format!("jump_txn_to_payout_line_{}x{}", size.0, size.1);
        insta::assert_snapshot!(name, buffer_text(&h.draw()));
    }
}

#[test]
fn a_payout_selects_its_row_in_its_month_and_replaces_the_drill_down() {
    let mut h = harness((120, 40));
    jump(&mut h, "txn_c1");
    assert_eq!(h.state.screens.len(), 2);
    // Pasted, as an id copied from the Dashboard or a ticket comes.
    h.keys("g");
    h.step(crate::tui::msg::Msg::Paste("po_short\n".into()));
    h.keys("enter");
    assert_eq!(h.state.active, TIEOUT);
    assert!(h.state.screens.is_empty());
    assert!(selected_has(&h, "po_short"), "{:?}", selected(&h));
    // The start of an id is enough when it names one.
    jump(&mut h, "po_ti");
    assert!(selected_has(&h, "po_tied"), "{:?}", selected(&h));
}

#[test]
fn an_invoice_lands_on_its_worklist_row() {
    let mut h = harness((120, 40));
    h.action(crate::tui::action::Action::Tab(REFUNDS as u8));
    jump(&mut h, "in_1Sample0002");
    assert_eq!(h.state.active, 0);
    let t = h.state.focused().and_then(|p| p.table()).expect("table");
    let fields = t.row_fields(t.selected_row().expect("row"));
    assert!(fields.iter().any(|(_, v)| v == "SR-0002"), "{fields:?}");
    assert!(
        toast(&h)
            .0
            .starts_with("in_1Sample0002 (invoice): Worklist")
    );
}

#[test]
fn a_charge_lands_on_the_ticket_it_matched_and_says_where_else_it_is() {
    let mut h = harness((120, 40));
    jump(&mut h, "ch_1Beans");
    assert_eq!(h.state.active, REFUNDS);
    assert!(selected_has(&h, "T-2001"), "{:?}", selected(&h));
    let (text, _) = toast(&h);
    assert!(
        text.starts_with("ch_1Beans (charge): Refunds, the ticket it matched · also in:"),
        "{text}"
    );
    assert!(
        text.contains("refunds (1)") && text.contains("balance_transactions (1)"),
        "{text}"
    );
    // A ticket id, in any case.
    jump(&mut h, "t-1002");
    assert!(selected_has(&h, "T-1002"), "{:?}", selected(&h));
}

#[test]
fn an_unknown_or_ambiguous_id_says_so_and_stays() {
    let mut h = harness((120, 40));
    jump(&mut h, "ch_nothing");
    assert_eq!(h.state.active, 0);
    assert_eq!(toast(&h), ("no row or id ch_nothing".to_string(), true));
    jump(&mut h, "txn_c");
    assert_eq!(h.state.active, 0);
    let (text, error) = toast(&h);
    assert!(error);
    assert!(
        text.starts_with("4 ids start with txn_c: txn_c1, txn_c2, txn_c3, txn_c4 (type"),
        "{text}"
    );
    // A customer no tab lists: what it is and where it is.
    jump(&mut h, "cus_Ada");
    assert_eq!(h.state.active, 0);
    let (text, error) = toast(&h);
    assert!(!error);
    assert_eq!(
        text,
        "cus_Ada (customer) is in customers (1), charges (1); no tab shows it (tieout query can)"
    );
}
