use super::*;
use crate::domain::dunning::testdata::meta;
use crate::domain::refunds::testdata as r;
use crate::domain::tieout::testdata as t;

/// A payout with a charge line and a refund line, the charge's refund, an invoice paid
/// by the charge, and a ticket.
fn account() -> (AccountData, Vec<Ticket>) {
    let mut d = AccountData::empty(meta());
    let p = t::payout("po_1OCT", 9_000, "2026-10-07T00:00:00Z");
    let mut charge_line = t::line("txn_1CH", "po_1OCT", "charge", "charge", 10_000, 300);
    charge_line.source = Some("ch_1A".into());
    let mut refund_line = t::line("txn_1RE", "po_1OCT", "refund", "refund", -700, 0);
    refund_line.source = Some("re_1A".into());
    let mut unpaid = t::line("txn_2NOPAYOUT", "po_1OCT", "charge", "charge", 500, 0);
    unpaid.payout = None;
    d.balance_transactions = vec![t::own(&p), charge_line, refund_line, unpaid];
    d.payouts = vec![p];
    d.charges = vec![r::charge("ch_1A", "cus_1", 10_000, "usd", 1_790_000_000)];
    d.refunds = vec![r::refund("re_1A", "ch_1A", 700, "usd", 1_790_000_100)];
    d.customers = vec![r::customer("cus_1", "a@b.c", 1_780_000_000)];
    d.invoice_payments = vec![r::invoice_payment("inpay_1", "in_1A", Some("ch_1A"), None)];
    let mut ticket = r::ticket("a@b.c", "ord_1");
    ticket.ticket_id = Some("T-1042".into());
    (d, vec![ticket])
}

fn found(d: &AccountData, tickets: &[Ticket], text: &str) -> Located {
    match locate(d, tickets, text) {
        Lookup::Found(l) => *l,
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn a_line_opens_its_payouts_lines_in_its_category() {
    let (d, tickets) = account();
    let l = found(&d, &tickets, "txn_1RE");
    assert_eq!(l.kind, Kind::BalanceTxn);
    assert_eq!(
        l.places,
        [Place::PayoutLine {
            payout: "po_1OCT".into(),
            arrival: t::at("2026-10-07T00:00:00Z"),
            category: "refund".into(),
            txn: "txn_1RE".into(),
        }]
    );
    assert_eq!(l.also_in, [("balance_transactions", 1)]);
    assert_eq!(l.also_in_text(), "");
}

#[test]
fn a_payouts_own_line_opens_the_payout_and_an_unpaid_line_has_no_place() {
    let (d, tickets) = account();
    let own = found(&d, &tickets, "txn_own_po_1OCT");
    assert!(matches!(&own.places[..], [Place::Payout { payout, .. }] if payout == "po_1OCT"));
    assert_eq!(found(&d, &tickets, "txn_2NOPAYOUT").places, []);
}

#[test]
fn a_charge_goes_to_its_ticket_first_then_its_line_and_says_where_else_it_is() {
    let (d, tickets) = account();
    let l = found(&d, &tickets, "ch_1A");
    assert_eq!(l.kind, Kind::Charge);
    assert_eq!(
        l.places[0],
        Place::TicketOfCharge {
            charge: "ch_1A".into()
        }
    );
    assert!(matches!(&l.places[1], Place::PayoutLine { txn, .. } if txn == "txn_1CH"));
    assert_eq!(
        l.also_in,
        [
            ("charges", 1),
            ("balance_transactions", 1),
            ("invoice_payments", 1),
            ("refunds", 1)
        ]
    );
    assert_eq!(
        l.also_in_text(),
        "also in: balance_transactions (1), invoice_payments (1), refunds (1)"
    );
}

#[test]
fn an_invoice_goes_to_the_worklist_then_the_line_of_the_charge_that_paid_it() {
    let (mut d, tickets) = account();
    d.invoices.push(crate::domain::dunning::testdata::invoice(
        "in_1A",
        crate::model::status::InvoiceStatus::Paid,
        0,
    ));
    let l = found(&d, &tickets, "in_1A");
    assert_eq!(
        l.places[0],
        Place::Invoice {
            invoice: "in_1A".into()
        }
    );
    assert!(matches!(&l.places[1], Place::PayoutLine { txn, .. } if txn == "txn_1CH"));
    // Through its payment: the same places.
    assert_eq!(found(&d, &tickets, "inpay_1").places, l.places);
}

#[test]
fn a_refund_a_customer_a_payout_and_a_ticket() {
    let (d, tickets) = account();
    assert!(matches!(
        &found(&d, &tickets, "re_1A").places[..],
        [Place::PayoutLine { txn, .. }] if txn == "txn_1RE"
    ));
    assert_eq!(
        found(&d, &tickets, "cus_1").places,
        [Place::Customer {
            customer: "cus_1".into()
        }]
    );
    let po = found(&d, &tickets, "po_1OCT");
    assert!(matches!(&po.places[..], [Place::Payout { .. }]));
    assert_eq!(po.also_in[0], ("payouts", 1));
    // Ticket ids are matched whatever their case.
    let tk = found(&d, &tickets, "t-1042");
    assert_eq!((tk.kind, tk.id.as_str()), (Kind::Ticket, "T-1042"));
    assert_eq!(
        tk.places,
        [Place::Ticket {
            ticket: "T-1042".into()
        }]
    );
}

#[test]
fn the_start_of_one_id_finds_it_of_several_is_ambiguous_and_short_text_must_be_whole() {
    let (d, tickets) = account();
    assert_eq!(found(&d, &tickets, " txn_1C ").id, "txn_1CH");
    match locate(&d, &tickets, "txn_1") {
        Lookup::Ambiguous { count, first } => {
            assert_eq!(count, 2);
            assert_eq!(first, ["txn_1CH", "txn_1RE"]);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(locate(&d, &tickets, "txn"), Lookup::NotFound);
    assert_eq!(locate(&d, &tickets, "ch_9ZZZ"), Lookup::NotFound);
    assert_eq!(locate(&d, &tickets, ""), Lookup::NotFound);
}
