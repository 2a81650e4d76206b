//! A small hand-made account for tests and snapshots (independent of the generated demo
//! fixtures, so pane snapshots do not change when the demo is regenerated).

use crate::model::rows::{InvoiceRow, PayoutRow};
use crate::model::{AccountData, Mode, Origin, SnapshotMeta};
use crate::money::{Currency, Money};
use crate::stripe::models::{InvoiceStatus, PayoutStatus, ReconciliationStatus};

use super::workspace::{Ticket, Workspace};

/// 2026-11-30T12:00:00Z, the demo's clock.
pub const NOW: i64 = 1_796_040_000;
const DAY: i64 = 86_400;

/// The sample account's metadata.
pub fn meta(origin: Origin) -> SnapshotMeta {
    SnapshotMeta {
        account_id: "acct_1SampleTieout".into(),
        account_name: Some("Sample Roasters Ltd".into()),
        mode: Mode::Test,
        origin,
        api_version: "2026-07-29.dahlia".into(),
        fetched_at: NOW - 3 * 3600,
        window_start: NOW - 90 * DAY,
        window_end: NOW,
        default_currency: None,
        payment_methods: Default::default(),
        settled_invoices_since: Some(i64::MIN),
        balance: None,
        lines_complete: false,
        lines_since: None,
        fraud_warnings: Default::default(),
    }
}

fn invoice(
    n: u32,
    status: InvoiceStatus,
    remaining: i64,
    currency: Currency,
    attempts: i64,
    due_days_ago: i64,
    who: (&str, &str),
) -> InvoiceRow {
    InvoiceRow {
        id: format!("in_1Sample{n:04}").into(),
        number: Some(format!("SR-{n:04}").into()),
        customer: Some(format!("cus_Sample{n:03}").into()),
        customer_email: Some(who.1.into()),
        customer_name: Some(who.0.into()),
        status,
        collection_method: Some("charge_automatically".into()),
        currency,
        amount_due: remaining.max(0) + 1000,
        amount_paid: 1000,
        amount_remaining: remaining,
        attempt_count: attempts,
        attempted: attempts > 0,
        next_payment_attempt: (attempts > 0 && attempts < 4).then_some(NOW + 2 * DAY),
        due_date: Some(NOW - due_days_ago * DAY),
        created: NOW - (due_days_ago + 30) * DAY,
        subscription: n
            .is_multiple_of(2)
            .then(|| format!("sub_Sample{n:03}").into()),
        hosted_invoice_url: Some(format!("https://invoice.stripe.com/i/sample_{n}")),
        billing_reason: Some("subscription_cycle".into()),
        legacy_payment_intent: None,
        legacy_charge: None,
        status_transitions: Default::default(),
        amount_paid_off_stripe: 0,
    }
}

fn payout(n: u32, amount: i64, days_ago: i64, status: PayoutStatus, automatic: bool) -> PayoutRow {
    PayoutRow {
        id: format!("po_1Sample{n:04}"),
        amount,
        currency: Currency::USD,
        arrival_date: NOW - days_ago * DAY,
        created: NOW - (days_ago + 2) * DAY,
        status,
        automatic,
        method: "standard".into(),
        reconciliation_status: ReconciliationStatus::Completed,
        failure_code: None,
        failure_message: None,
        balance_transaction: Some(format!("txn_1SamplePo{n:04}")),
        failure_balance_transaction: None,
        description: Some("STRIPE PAYOUT".into()),
        statement_descriptor: None,
        original_payout: None,
        reversed_by: None,
        trace_id: None,
        trace_id_status: None,
    }
}

/// The sample account: a few invoices (open, failed, paid, in two currencies), payouts
/// (one failed, one manual) and tickets.
pub fn account(origin: Origin) -> AccountData {
    let eur = Currency::EUR;
    let usd = Currency::USD;
    let mut d = AccountData::empty(meta(origin));
    d.invoices = vec![
        invoice(
            1,
            InvoiceStatus::Open,
            129_900,
            usd,
            3,
            12,
            ("Ada Lovelace", "ada@example.com"),
        ),
        invoice(
            2,
            InvoiceStatus::Open,
            4_900,
            usd,
            1,
            -3,
            ("Grace Hopper", "grace@example.com"),
        ),
        invoice(
            3,
            InvoiceStatus::Paid,
            0,
            usd,
            1,
            20,
            ("Alan Turing", "alan@example.com"),
        ),
        invoice(
            4,
            InvoiceStatus::Open,
            250_000,
            eur,
            4,
            40,
            ("Émilie du Châtelet", "emilie@example.fr"),
        ),
        invoice(
            5,
            InvoiceStatus::Uncollectible,
            19_900,
            usd,
            4,
            75,
            ("Charles Babbage", "charles@example.com"),
        ),
        invoice(
            6,
            InvoiceStatus::Open,
            9_900,
            eur,
            0,
            5,
            ("Hedy Lamarr", "hedy@example.at"),
        ),
    ];
    d.payouts = vec![
        payout(1, 1_234_567, 2, PayoutStatus::Paid, true),
        payout(2, 987_650, 9, PayoutStatus::Paid, true),
        payout(3, 45_000, 16, PayoutStatus::Failed, true),
        payout(4, 200_000, 23, PayoutStatus::Paid, false),
        payout(5, -1_500, 30, PayoutStatus::Paid, true),
    ];
    d
}

/// The sample tickets.
pub fn tickets() -> Vec<Ticket> {
    let t = |id: &str, email: &str, order: &str, msg: &str| Ticket {
        ticket_id: Some(id.into()),
        email: email.into(),
        order_id: order.into(),
        message: msg.into(),
        amount: None,
    };
    vec![
        t(
            "T-1001",
            "ada@example.com",
            "ORD-5521",
            "Charged twice for my November box, please refund one.",
        ),
        t(
            "T-1002",
            "grace@example.com",
            "ORD-5530",
            "Cancel my annual plan and refund the unused months.",
        ),
        t("T-1003", "nobody@example.net", "ORD-0000", "Refund please."),
    ]
}

/// The sample account as a workspace.
pub fn workspace(origin: Origin) -> Workspace {
    Workspace::new(account(origin), tickets())
}

/// An amount in the sample's main currency (for tests).
pub fn usd(minor: i64) -> Money {
    Money::new(minor, Currency::USD)
}
