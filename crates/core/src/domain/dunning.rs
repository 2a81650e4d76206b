//! The dunning worklist: which open invoices billing staff must chase, why their payments
//! failed, and what to do about each. Pure: rows of the snapshot and the clock in, the
//! worklist out (RULES.md, "Worklist").
//!
//! Membership: `status = open`, `amount_remaining > 0`, and either a failed payment
//! attempt or a `due_date` in the past. A failed attempt is a failed charge or a payment
//! error found through the invoice's payments, or, when the data holds no payment for the
//! invoice, `attempted` with `attempt_count >= 1` (Stripe only leaves an attempted invoice
//! open when the attempt failed). This includes invoices Stripe stopped retrying
//! (`next_payment_attempt` null). An attempt still in flight (a `processing` payment
//! intent or `pending` charge as the latest attempt) keeps a not-yet-due invoice off the
//! list. Paid, void and draft invoices are out; uncollectible ones are counted apart.
//!
//! The decline of the latest failed attempt is found through the invoice payments (and
//! the pre-basil `invoice.payment_intent`/`invoice.charge`) → the payment intent's
//! `last_payment_error` → the failed charge's `outcome`. The decline code is only ever
//! the one Stripe returned; without one, the failure code is shown with the words "no
//! decline code returned".

use std::collections::{BTreeMap, BTreeSet};

// foldhash: the indexes hash hundreds of thousands of Stripe ids per build; SipHash's
// DoS resistance buys nothing on the account's own data.
use foldhash::{HashMap, HashMapExt};
use rayon::prelude::*;

use crate::domain::declines::{self, Action, Basis, Classification, DeclineSignals};
use crate::model::AccountData;
use crate::model::rows::{ChargeRow, CustomerRow, InvoiceRow, PaymentIntentRow, SubscriptionRow};
use crate::model::status::{ChargeStatus, InvoiceStatus, SubscriptionStatus};
use crate::money::{Currency, Money, MoneyError, Totals};

pub(crate) mod attempts;
mod currency_order;
pub mod expiring;
pub mod reach;
pub mod since;
mod subtotals;
use attempts::*;
pub use currency_order::CurrencyOrder;
use reach::Reach;

/// The tables the worklist is built from (the others may be empty): what a cached read
/// for it loads, and what the SQL view `worklist` reads.
pub const READS: [crate::model::Table; 7] = {
    use crate::model::Table::*;
    [
        Invoices,
        InvoicePayments,
        PaymentIntents,
        Charges,
        Customers,
        Subscriptions,
        RenewalMethods,
    ]
};

/// The words shown after a failure code when Stripe returned no decline code.
pub const NO_DECLINE_CODE: &str = "no decline code returned";

/// Why an invoice is on the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// At least one payment attempt failed.
    FailedAttempt,
    /// Its due date has passed (and no failed attempt was seen).
    PastDue,
    /// Both.
    FailedAndPastDue,
}

/// What `days_past_due` is counted from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DueBasis {
    /// The invoice's `due_date` (set for `send_invoice` invoices).
    DueDate,
    /// The first payment attempt. `charge_automatically` invoices have no due date: they
    /// are due when Stripe first tries to collect them, which is when it finalises the
    /// invoice and creates its PaymentIntent. So the count runs from the earliest
    /// PaymentIntent of the invoice (present however the data was read: the fresh read
    /// fetches the failing intents but only their latest charge), else from the earliest
    /// failed charge (pre-basil invoices with only `invoice.charge`).
    FirstAttempt,
}

/// One payment attempt of an invoice, failed or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    pub charge: Option<String>,
    pub payment_intent: Option<String>,
    /// When the attempt was made (the charge's `created`); `None` when only the payment
    /// intent's error is known.
    pub created: Option<i64>,
    pub amount: i64,
    pub currency: Currency,
    /// `failed`, `succeeded`, `pending`, or the payment intent's status when no charge is known.
    pub status: String,
    pub failed: bool,
    pub decline_code: Option<String>,
    pub failure_code: Option<String>,
    pub outcome_reason: Option<String>,
    pub advice_code: Option<String>,
    pub message: Option<String>,
    /// The action for a failed attempt.
    pub action: Option<Action>,
}

impl Attempt {
    /// `insufficient_funds`, or `card_declined (no decline code returned)`, or empty.
    pub fn decline_label(&self) -> String {
        decline_label(self.decline_code.as_deref(), self.failure_code.as_deref())
    }
}

/// The decline as people read it: the decline code, else the failure code with the words
/// "no decline code returned", else empty.
pub fn decline_label(decline_code: Option<&str>, failure_code: Option<&str>) -> String {
    match (decline_code, failure_code) {
        (Some(d), _) => d.to_string(),
        (None, Some(f)) => format!("{f} ({NO_DECLINE_CODE})"),
        (None, None) => String::new(),
    }
}

/// One invoice to work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkRow {
    pub invoice_id: String,
    pub invoice_number: Option<String>,
    pub customer_id: Option<String>,
    pub customer_email: Option<String>,
    pub customer_name: Option<String>,
    pub currency: Currency,
    pub amount_remaining: i64,
    pub attempt_count: i64,
    pub next_payment_attempt: Option<i64>,
    /// Stripe will still retry automatically: `next_payment_attempt` is set and no signal
    /// of the latest failure is on Stripe's non-retryable list.
    pub retries_left: bool,
    pub collection_method: Option<String>,
    pub due_date: Option<i64>,
    pub days_past_due: Option<i64>,
    pub days_past_due_basis: Option<DueBasis>,
    pub subscription_id: Option<String>,
    pub subscription_status: Option<SubscriptionStatus>,
    pub billing_reason: Option<String>,
    pub hosted_invoice_url: Option<String>,
    /// The latest failed attempt's codes, verbatim from Stripe.
    pub decline_code: Option<String>,
    pub failure_code: Option<String>,
    pub outcome_reason: Option<String>,
    pub advice_code: Option<String>,
    pub classification: Classification,
    pub reason: Reason,
    /// Every attempt found, oldest first.
    pub attempts: Vec<Attempt>,
}

impl WorkRow {
    pub fn action(&self) -> Action {
        self.classification.action
    }
    pub fn money(&self) -> Money {
        Money::new(self.amount_remaining, self.currency)
    }
    pub fn decline_label(&self) -> String {
        decline_label(self.decline_code.as_deref(), self.failure_code.as_deref())
    }
    pub fn decline_key(&self) -> DeclineKey {
        DeclineKey::of(self.decline_code.as_deref(), self.failure_code.as_deref())
    }
}

/// What totals by decline code group on: the decline code, or, without one, the failure
/// code, or nothing (no failed attempt seen).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeclineKey {
    pub decline_code: Option<String>,
    /// Only set when there is no decline code.
    pub failure_code: Option<String>,
}

impl DeclineKey {
    pub fn of(decline_code: Option<&str>, failure_code: Option<&str>) -> Self {
        Self {
            decline_code: decline_code.map(str::to_string),
            failure_code: if decline_code.is_some() {
                None
            } else {
                failure_code.map(str::to_string)
            },
        }
    }
    /// As shown: `insufficient_funds`, `card_declined (no decline code returned)`, or
    /// `(no failed attempt)`.
    pub fn label(&self) -> String {
        let l = decline_label(self.decline_code.as_deref(), self.failure_code.as_deref());
        if l.is_empty() {
            "(no failed attempt)".to_string()
        } else {
            l
        }
    }
}

/// Invoices and outstanding amount for one decline code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclineTotal {
    pub key: DeclineKey,
    pub count: usize,
    pub amounts: Totals,
}

/// Outstanding in one currency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CurrencyTotal {
    pub currency: Currency,
    pub count: usize,
    pub amount_remaining: i64,
    /// Invoices (and their amount) with no automatic retry left.
    pub no_retry_count: usize,
    pub no_retry_amount: i64,
}

/// Uncollectible invoices of one currency (already written off).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Uncollectible {
    pub currency: Currency,
    pub count: usize,
    pub amount_remaining: i64,
}

/// The worklist and its totals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worklist {
    pub now: i64,
    /// Sorted: currencies in [`Worklist::order`], within each currency by amount
    /// remaining (largest first, ties by invoice id).
    pub rows: Vec<WorkRow>,
    /// In the order of `rows`.
    pub totals_by_currency: Vec<CurrencyTotal>,
    /// Most invoices first, ties by label.
    pub totals_by_decline_code: Vec<DeclineTotal>,
    /// In [`Worklist::order`] (currencies not on the list after, by code).
    pub uncollectible: Vec<Uncollectible>,
    /// The order of currencies everywhere the worklist is shown: the account's default
    /// first, then by number of invoices on the list, ties by code.
    pub order: CurrencyOrder,
}

impl Worklist {
    pub fn outstanding(&self) -> Totals {
        let mut t = Totals::new();
        for c in &self.totals_by_currency {
            // Totals were checked when built; the same sums cannot overflow here.
            let _ = t.add_minor(c.amount_remaining, c.currency);
        }
        t
    }
    pub fn no_retry_left(&self) -> Totals {
        let mut t = Totals::new();
        for c in self
            .totals_by_currency
            .iter()
            .filter(|c| c.no_retry_count > 0)
        {
            let _ = t.add_minor(c.no_retry_amount, c.currency);
        }
        t
    }
    /// `t`'s amounts in the worklist's currency order.
    pub fn ordered(&self, t: &Totals) -> Vec<Money> {
        self.order.amounts(t)
    }
    pub fn no_retry_count(&self) -> usize {
        self.totals_by_currency
            .iter()
            .map(|c| c.no_retry_count)
            .sum()
    }
}

/// A filter over the worklist, as the Worklist pane offers it. Empty fields match all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Only invoices with no automatic retry left.
    pub no_retry_left: bool,
    pub decline: Option<DeclineKey>,
    pub currency: Option<Currency>,
    pub action: Option<Action>,
}

impl Filter {
    pub fn matches(&self, r: &WorkRow) -> bool {
        (!self.no_retry_left || !r.retries_left)
            && self.decline.as_ref().is_none_or(|k| *k == r.decline_key())
            && self.currency.is_none_or(|c| c == r.currency)
            && self.action.is_none_or(|a| a == r.action())
    }

    pub fn is_empty(&self) -> bool {
        *self == Filter::default()
    }

    /// The indices of the rows that match, in the worklist's order.
    pub fn apply(&self, w: &Worklist) -> Vec<usize> {
        w.rows
            .iter()
            .enumerate()
            .filter(|(_, r)| self.matches(r))
            .map(|(i, _)| i)
            .collect()
    }
}

impl Worklist {
    /// The decline keys, currencies and actions present, for the filter pickers.
    pub fn decline_keys(&self) -> Vec<DeclineKey> {
        self.totals_by_decline_code
            .iter()
            .map(|t| t.key.clone())
            .collect()
    }
    pub fn currencies(&self) -> Vec<Currency> {
        self.totals_by_currency.iter().map(|t| t.currency).collect()
    }
    pub fn actions(&self) -> Vec<Action> {
        let present: BTreeSet<Action> = self.rows.iter().map(WorkRow::action).collect();
        present.into_iter().collect()
    }
}

/// Why the worklist could not be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DunningError {
    #[error("the outstanding totals overflow: {0}")]
    Money(#[from] MoneyError),
}

fn row_for(inv: &InvoiceRow, ix: &Index<'_>, now: i64) -> Option<WorkRow> {
    if !reach::may_be_listed(inv) {
        return None;
    }
    let (attempts, in_flight, first_attempt) = attempts_of(inv, ix);
    let has_failure_record = attempts.iter().any(|a| a.failed);
    let no_payment_data = attempts.is_empty();
    let failed_attempt = !in_flight
        && (has_failure_record || (no_payment_data && inv.attempted && inv.attempt_count >= 1));
    let past_due = inv.due_date.is_some_and(|d| d < now);
    let reason = match (failed_attempt, past_due) {
        (true, true) => Reason::FailedAndPastDue,
        (true, false) => Reason::FailedAttempt,
        (false, true) => Reason::PastDue,
        (false, false) => return None,
    };
    let latest = if failed_attempt {
        latest_failed(&attempts)
    } else {
        None
    };
    let mut classification = match latest {
        Some(a) => classify_attempt(a),
        None => no_failure_classification(inv.attempted, inv.attempt_count),
    };
    let customer = inv
        .customer
        .as_deref()
        .and_then(|id| ix.customers.get(id).copied())
        .filter(|c| !c.deleted);
    let subscription = inv
        .subscription
        .as_deref()
        .and_then(|id| ix.subscriptions.get(id).copied());
    if let (Some(a), Some(s), Some(c)) = (latest, subscription, customer) {
        use crate::domain::recovery::wrong_card;
        let failed = wrong_card::FailedOn {
            method: a
                .charge
                .as_deref()
                .and_then(|id| ix.charges.get(id))
                .and_then(|ch| ch.payment_method.as_deref()),
            intent: a
                .payment_intent
                .as_deref()
                .and_then(|id| ix.intents.get(id).copied()),
        };
        if let Some(m) = wrong_card::check(failed, s, c) {
            classification.action = Action::SubscriptionOldCard;
            classification.staff = format!(
                "The subscription charges its own default payment method {}, the card that failed; the customer's invoice default is {}: set the subscription's default payment method to it.",
                m.failing, m.customer,
            );
        }
    }
    let retries_left = inv.next_payment_attempt.is_some() && classification.smart_retries;
    let first_failed = first_attempt.filter(|_| failed_attempt);
    let (days_past_due, days_past_due_basis) = match (inv.due_date, first_failed) {
        (Some(due), _) => (
            Some(crate::time::days_between(due, now).max(0)),
            Some(DueBasis::DueDate),
        ),
        (None, Some(first)) => (
            Some(crate::time::days_between(first, now).max(0)),
            Some(DueBasis::FirstAttempt),
        ),
        (None, None) => (None, None),
    };
    Some(WorkRow {
        invoice_id: inv.id.to_string(),
        invoice_number: nonempty(&inv.number),
        customer_id: nonempty(&inv.customer),
        customer_email: customer
            .and_then(|c| nonempty(&c.email))
            .or_else(|| nonempty(&inv.customer_email)),
        customer_name: customer
            .and_then(|c| nonempty(&c.name))
            .or_else(|| nonempty(&inv.customer_name)),
        currency: inv.currency,
        amount_remaining: inv.amount_remaining,
        attempt_count: inv.attempt_count,
        next_payment_attempt: inv.next_payment_attempt,
        retries_left,
        collection_method: nonempty(&inv.collection_method),
        due_date: inv.due_date,
        days_past_due,
        days_past_due_basis,
        subscription_id: nonempty(&inv.subscription),
        subscription_status: subscription.map(|s| s.status.clone()),
        billing_reason: nonempty(&inv.billing_reason),
        hosted_invoice_url: nonempty(&inv.hosted_invoice_url),
        decline_code: latest.and_then(|a| a.decline_code.clone()),
        failure_code: latest.and_then(|a| a.failure_code.clone()),
        outcome_reason: latest.and_then(|a| a.outcome_reason.clone()),
        advice_code: latest.and_then(|a| a.advice_code.clone()),
        classification,
        reason,
        attempts,
    })
}

/// Builds the worklist of `data` as of `now` (unix seconds).
pub fn build(data: &AccountData, now: i64) -> Result<Worklist, DunningError> {
    let ix = Index::new(data);
    // Each invoice's row reads only the index: built on all cores, in the invoices' order.
    let mut rows: Vec<WorkRow> = data
        .invoices
        .par_iter()
        .filter_map(|inv| row_for(inv, &ix, now))
        .collect();

    // Totals by currency.
    let mut by_currency: BTreeMap<Currency, CurrencyTotal> = BTreeMap::new();
    for r in &rows {
        let t = by_currency.entry(r.currency).or_insert(CurrencyTotal {
            currency: r.currency,
            count: 0,
            amount_remaining: 0,
            no_retry_count: 0,
            no_retry_amount: 0,
        });
        t.count += 1;
        t.amount_remaining = checked(t.amount_remaining, r.amount_remaining)?;
        if !r.retries_left {
            t.no_retry_count += 1;
            t.no_retry_amount = checked(t.no_retry_amount, r.amount_remaining)?;
        }
    }
    let order = CurrencyOrder::new(
        data.meta.default_currency,
        by_currency.values().map(|t| (t.currency, t.count)),
    );
    let mut totals_by_currency: Vec<CurrencyTotal> = by_currency.into_values().collect();
    order.sort(&mut totals_by_currency, |t| t.currency);
    rows.sort_by(|a, b| {
        order
            .cmp(a.currency, b.currency)
            .then_with(|| b.amount_remaining.cmp(&a.amount_remaining))
            .then_with(|| a.invoice_id.cmp(&b.invoice_id))
    });

    // Totals by decline code.
    let mut by_code: BTreeMap<DeclineKey, DeclineTotal> = BTreeMap::new();
    for r in &rows {
        let key = r.decline_key();
        let t = by_code.entry(key.clone()).or_insert(DeclineTotal {
            key,
            count: 0,
            amounts: Totals::new(),
        });
        t.count += 1;
        t.amounts.add(r.money())?;
    }
    let mut totals_by_decline_code: Vec<DeclineTotal> = by_code.into_values().collect();
    totals_by_decline_code.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.key.cmp(&b.key)));

    // Uncollectible, apart.
    let mut unc: BTreeMap<Currency, Uncollectible> = BTreeMap::new();
    for inv in data
        .invoices
        .iter()
        .filter(|i| i.status == InvoiceStatus::Uncollectible)
    {
        let u = unc.entry(inv.currency).or_insert(Uncollectible {
            currency: inv.currency,
            count: 0,
            amount_remaining: 0,
        });
        u.count += 1;
        u.amount_remaining = checked(u.amount_remaining, inv.amount_remaining)?;
    }

    let mut uncollectible: Vec<Uncollectible> = unc.into_values().collect();
    order.sort(&mut uncollectible, |u| u.currency);
    Ok(Worklist {
        now,
        rows,
        totals_by_currency,
        totals_by_decline_code,
        uncollectible,
        order,
    })
}

fn checked(a: i64, b: i64) -> Result<i64, DunningError> {
    a.checked_add(b)
        .ok_or(DunningError::Money(MoneyError::Overflow))
}

/// Builders of small accounts for the worklist's tests and the Worklist pane's snapshots.
/// Rows for tests, shared with the upper floors' tests through the `testdata` feature.
#[cfg(any(test, feature = "testdata"))]
pub mod testdata;

#[cfg(test)]
mod tests {
    use super::testdata::*;
    use super::*;
    use crate::model::rows::InvoicePaymentRow;

    fn ids(w: &Worklist) -> Vec<&str> {
        w.rows.iter().map(|r| r.invoice_id.as_str()).collect()
    }

    #[test]
    fn paid_void_and_draft_are_out() {
        let mut d = data(vec![]);
        for (id, st) in [
            ("in_paid", InvoiceStatus::Paid),
            ("in_void", InvoiceStatus::Void),
            ("in_draft", InvoiceStatus::Draft),
        ] {
            let mut inv = attempted(invoice(id, st, 1000), 2, None);
            inv.due_date = Some(NOW - 20 * DAY);
            d.invoices.push(inv);
        }
        let w = build(&d, NOW).expect("build");
        assert!(w.rows.is_empty(), "{:?}", ids(&w));
        assert!(w.uncollectible.is_empty());
    }

    #[test]
    fn uncollectible_is_counted_apart_per_currency() {
        let mut d = data(vec![
            attempted(
                invoice("in_u1", InvoiceStatus::Uncollectible, 1500),
                4,
                None,
            ),
            attempted(invoice("in_u2", InvoiceStatus::Uncollectible, 500), 4, None),
        ]);
        let mut eur = attempted(invoice("in_u3", InvoiceStatus::Uncollectible, 700), 4, None);
        eur.currency = Currency::EUR;
        d.invoices.push(eur);
        let w = build(&d, NOW).expect("build");
        assert!(w.rows.is_empty());
        assert_eq!(
            w.uncollectible,
            vec![
                Uncollectible {
                    currency: Currency::EUR,
                    count: 1,
                    amount_remaining: 700
                },
                Uncollectible {
                    currency: Currency::USD,
                    count: 2,
                    amount_remaining: 2000
                },
            ]
        );
    }

    #[test]
    fn zero_remaining_is_out() {
        let mut d = data(vec![]);
        failed(&mut d, "in_zero", 0, "insufficient_funds");
        let mut past = invoice("in_zero_due", InvoiceStatus::Open, 0);
        past.due_date = Some(NOW - DAY);
        d.invoices.push(past);
        assert!(build(&d, NOW).expect("build").rows.is_empty());
    }

    #[test]
    fn open_not_attempted_and_not_due_is_out() {
        let mut not_due = invoice("in_future", InvoiceStatus::Open, 1000);
        not_due.collection_method = Some("send_invoice".into());
        not_due.due_date = Some(NOW + DAY);
        let fresh = invoice("in_fresh", InvoiceStatus::Open, 1000);
        let w = build(&data(vec![not_due, fresh]), NOW).expect("build");
        assert!(w.rows.is_empty(), "{:?}", ids(&w));
    }

    #[test]
    fn send_invoice_past_due_is_in() {
        let mut inv = invoice("in_late", InvoiceStatus::Open, 4200);
        inv.collection_method = Some("send_invoice".into());
        inv.due_date = Some(NOW - 12 * DAY - 3600);
        let w = build(&data(vec![inv]), NOW).expect("build");
        assert_eq!(ids(&w), ["in_late"]);
        let r = &w.rows[0];
        assert_eq!(r.reason, Reason::PastDue);
        assert_eq!(r.days_past_due, Some(12));
        assert_eq!(r.days_past_due_basis, Some(DueBasis::DueDate));
        assert!(!r.retries_left, "send_invoice has no automatic retry");
        assert_eq!(r.decline_code, None);
        assert_eq!(r.failure_code, None);
        assert_eq!(r.action(), Action::ContactCustomer);
        assert_eq!(r.decline_label(), "");
    }

    #[test]
    fn attempted_with_a_failed_attempt_is_in_with_its_decline() {
        let mut d = data(vec![]);
        failed(&mut d, "in_a", 1999, "insufficient_funds");
        let w = build(&d, NOW).expect("build");
        assert_eq!(ids(&w), ["in_a"]);
        let r = &w.rows[0];
        assert_eq!(r.reason, Reason::FailedAttempt);
        assert_eq!(r.decline_code.as_deref(), Some("insufficient_funds"));
        assert_eq!(r.failure_code.as_deref(), Some("card_declined"));
        assert_eq!(r.outcome_reason.as_deref(), Some("insufficient_funds"));
        assert_eq!(r.action(), Action::RetryLater);
        assert!(r.retries_left);
        assert_eq!(
            r.days_past_due,
            Some(10),
            "from the payment intent's creation"
        );
        assert_eq!(r.days_past_due_basis, Some(DueBasis::FirstAttempt));
        assert_eq!(r.customer_email.as_deref(), Some("ada@example.com"));
        assert_eq!(r.attempts.len(), 1);
    }

    #[test]
    fn stripe_stopped_retrying_is_in_with_no_retry_left() {
        let mut d = data(vec![]);
        failed(&mut d, "in_done", 5000, "insufficient_funds");
        d.invoices[0].attempt_count = 4;
        d.invoices[0].next_payment_attempt = None;
        let w = build(&d, NOW).expect("build");
        assert_eq!(ids(&w), ["in_done"]);
        assert!(!w.rows[0].retries_left);
        assert_eq!(w.no_retry_left().get(Currency::USD), 5000);
    }

    #[test]
    fn non_retryable_code_means_no_retry_left_even_when_scheduled() {
        let mut d = data(vec![]);
        failed(&mut d, "in_stolen", 800, "stolen_card");
        let w = build(&d, NOW).expect("build");
        let r = &w.rows[0];
        assert!(r.next_payment_attempt.is_some());
        assert!(!r.retries_left);
        assert_eq!(r.action(), Action::DoNotRetry);
        assert!(!r.classification.disclose);
        assert_eq!(w.no_retry_count(), 1);
    }

    #[test]
    fn attempted_without_payment_data_still_counts_as_failed() {
        let inv = attempted(
            invoice("in_bare", InvoiceStatus::Open, 300),
            2,
            Some(NOW + DAY),
        );
        let w = build(&data(vec![inv]), NOW).expect("build");
        assert_eq!(ids(&w), ["in_bare"]);
        let r = &w.rows[0];
        assert_eq!(r.action(), Action::Review);
        assert_eq!(r.decline_code, None, "never invent a code");
        assert_eq!(r.failure_code, None);
        assert_eq!(r.days_past_due, None);
    }

    #[test]
    fn an_attempt_in_flight_is_not_a_failure() {
        let mut d = data(vec![]);
        failed(&mut d, "in_ach", 1000, "insufficient_funds");
        // A newer attempt is processing.
        d.payment_intents[0].status = "processing".into();
        let mut pending = charge("ch_new", Some("pi_in_ach"), NOW - DAY, None);
        pending.status = ChargeStatus::Pending;
        d.charges.push(pending);
        assert!(build(&d, NOW).expect("build").rows.is_empty());
        // Unless the invoice is past due.
        d.invoices[0].due_date = Some(NOW - DAY);
        let w = build(&d, NOW).expect("build");
        assert_eq!(w.rows[0].reason, Reason::PastDue);
    }

    #[test]
    fn the_latest_failed_attempt_decides() {
        let mut d = data(vec![]);
        failed(&mut d, "in_multi", 1000, "insufficient_funds");
        // A second payment intent failed later with an expired card.
        d.invoice_payments.push(InvoicePaymentRow {
            id: "inpay_2".into(),
            ..payment("in_multi", "pi_2")
        });
        d.payment_intents
            .push(intent("pi_2", Some("expired_card"), None, "ch_2"));
        d.charges.push(charge(
            "ch_2",
            Some("pi_2"),
            NOW - DAY,
            Some("expired_card"),
        ));
        let w = build(&d, NOW).expect("build");
        let r = &w.rows[0];
        assert_eq!(r.decline_code.as_deref(), Some("expired_card"));
        assert_eq!(r.action(), Action::UpdatePaymentMethod);
        assert_eq!(r.attempts.len(), 2);
        assert_eq!(
            r.attempts[0].decline_code.as_deref(),
            Some("insufficient_funds")
        );
        assert_eq!(r.attempts[1].action, Some(Action::UpdatePaymentMethod));
        assert_eq!(r.days_past_due, Some(10), "from the first attempt");
    }

    #[test]
    fn an_older_charge_does_not_borrow_the_intents_latest_error() {
        let mut d = data(vec![]);
        failed(&mut d, "in_two", 1000, "expired_card");
        // An earlier failed charge of the same intent: the intent's error is not its own.
        d.charges
            .push(charge("ch_old", Some("pi_in_two"), NOW - 9 * DAY, None));
        let w = build(&d, NOW).expect("build");
        let r = &w.rows[0];
        assert_eq!(r.attempts[0].charge.as_deref(), Some("ch_old"));
        assert_eq!(r.attempts[0].decline_code, None);
        assert_eq!(
            r.attempts[0].decline_label(),
            "card_declined (no decline code returned)"
        );
        assert_eq!(r.decline_code.as_deref(), Some("expired_card"));
        assert_eq!(r.days_past_due, Some(10));
    }

    #[test]
    fn no_decline_code_shows_the_failure_code() {
        let mut d = data(vec![]);
        failed(&mut d, "in_nd", 1000, "x");
        d.payment_intents[0].error_decline_code = None;
        d.charges[0].outcome_reason = None;
        let w = build(&d, NOW).expect("build");
        let r = &w.rows[0];
        assert_eq!(r.decline_code, None);
        assert_eq!(
            r.decline_label(),
            "card_declined (no decline code returned)"
        );
        assert_eq!(r.action(), Action::ContactCustomer);
        assert_eq!(
            w.totals_by_decline_code[0].key.label(),
            "card_declined (no decline code returned)"
        );
    }

    #[test]
    fn outcome_reason_and_advice_override() {
        let mut d = data(vec![]);
        failed(&mut d, "in_block", 1000, "generic_decline");
        d.charges[0].outcome_reason = Some("previously_declined_do_not_retry".into());
        d.charges[0].outcome_type = Some("blocked".into());
        failed(&mut d, "in_advice", 900, "insufficient_funds");
        d.payment_intents[1].error_advice_code = Some("do_not_try_again".into());
        let w = build(&d, NOW).expect("build");
        for r in &w.rows {
            assert_eq!(r.action(), Action::DoNotRetry, "{}", r.invoice_id);
            assert!(!r.retries_left, "{}", r.invoice_id);
        }
        assert_eq!(w.rows[0].decline_code.as_deref(), Some("generic_decline"));
        assert_eq!(w.rows[1].advice_code.as_deref(), Some("do_not_try_again"));
    }

    #[test]
    fn legacy_invoice_fields_find_the_decline() {
        let mut d = data(vec![]);
        let mut inv = attempted(
            invoice("in_old", InvoiceStatus::Open, 1000),
            1,
            Some(NOW + DAY),
        );
        inv.legacy_payment_intent = Some("pi_old".into());
        d.invoices.push(inv);
        d.payment_intents
            .push(intent("pi_old", Some("lost_card"), None, "ch_old"));
        d.charges.push(charge(
            "ch_old",
            Some("pi_old"),
            NOW - 2 * DAY,
            Some("lost_card"),
        ));
        let mut inv2 = attempted(
            invoice("in_old2", InvoiceStatus::Open, 500),
            1,
            Some(NOW + DAY),
        );
        inv2.legacy_charge = Some("ch_only".into());
        d.invoices.push(inv2);
        d.charges
            .push(charge("ch_only", None, NOW - 2 * DAY, Some("expired_card")));
        let w = build(&d, NOW).expect("build");
        assert_eq!(ids(&w), ["in_old", "in_old2"]);
        assert_eq!(w.rows[0].decline_code.as_deref(), Some("lost_card"));
        assert_eq!(w.rows[0].action(), Action::DoNotRetry);
        // The charge alone carries no decline code: the outcome reason classifies it.
        assert_eq!(w.rows[1].decline_code, None);
        assert_eq!(w.rows[1].outcome_reason.as_deref(), Some("expired_card"));
        assert_eq!(w.rows[1].action(), Action::UpdatePaymentMethod);
        // No payment intent: the failed charge dates the first attempt.
        assert_eq!(w.rows[1].days_past_due, Some(2));
    }

    #[test]
    fn intent_error_without_its_charge() {
        let mut d = data(vec![]);
        failed(&mut d, "in_pi", 1000, "authentication_required");
        d.charges.clear();
        let w = build(&d, NOW).expect("build");
        let r = &w.rows[0];
        assert_eq!(r.decline_code.as_deref(), Some("authentication_required"));
        assert_eq!(r.action(), Action::CustomerMustAuthenticate);
        assert!(!r.retries_left);
        assert_eq!(
            r.days_past_due,
            Some(10),
            "the intent alone dates the first attempt"
        );
    }

    #[test]
    fn sorted_by_currency_then_amount_then_id() {
        let mut d = data(vec![]);
        failed(&mut d, "in_b", 1000, "insufficient_funds");
        failed(&mut d, "in_a", 1000, "insufficient_funds");
        failed(&mut d, "in_c", 3000, "expired_card");
        failed(&mut d, "in_e1", 2500, "insufficient_funds");
        failed(&mut d, "in_e2", 2600, "insufficient_funds");
        for inv in d.invoices.iter_mut().filter(|i| i.id.starts_with("in_e")) {
            inv.currency = Currency::EUR;
        }
        let w = build(&d, NOW).expect("build");
        // No default currency known: USD (three invoices) before EUR (two), although
        // EUR 51.00 outstanding is more than USD 50.00.
        assert_eq!(ids(&w), ["in_c", "in_a", "in_b", "in_e2", "in_e1"]);
        assert_eq!(w.totals_by_currency[0].currency, Currency::USD);
        assert_eq!(w.totals_by_currency[0].amount_remaining, 5000);
        assert_eq!(w.totals_by_currency[1].amount_remaining, 5100);
        // The account's default currency comes first whatever its count.
        d.meta.default_currency = Some(Currency::EUR);
        let w = build(&d, NOW).expect("build");
        assert_eq!(ids(&w), ["in_e2", "in_e1", "in_c", "in_a", "in_b"]);
        assert_eq!(w.totals_by_currency[0].currency, Currency::EUR);
        let codes: Vec<(String, usize)> = w
            .totals_by_decline_code
            .iter()
            .map(|t| (t.key.label(), t.count))
            .collect();
        assert_eq!(
            codes,
            [
                ("insufficient_funds".to_string(), 4),
                ("expired_card".to_string(), 1)
            ]
        );
        let ins = &w.totals_by_decline_code[0].amounts;
        assert_eq!(ins.get(Currency::USD), 2000);
        assert_eq!(ins.get(Currency::EUR), 5100);
    }

    #[test]
    fn filters_narrow_the_list() {
        let mut d = data(vec![]);
        failed(&mut d, "in_if", 1000, "insufficient_funds");
        failed(&mut d, "in_st", 900, "stolen_card");
        failed(&mut d, "in_ex", 800, "expired_card");
        d.invoices[2].currency = Currency::EUR;
        let w = build(&d, NOW).expect("build");
        let pick = |f: &Filter| -> Vec<&str> {
            f.apply(&w)
                .into_iter()
                .map(|i| w.rows[i].invoice_id.as_str())
                .collect()
        };
        assert_eq!(pick(&Filter::default()).len(), 3);
        assert_eq!(
            pick(&Filter {
                no_retry_left: true,
                ..Default::default()
            }),
            ["in_st"]
        );
        assert_eq!(
            pick(&Filter {
                currency: Some(Currency::EUR),
                ..Default::default()
            }),
            ["in_ex"]
        );
        assert_eq!(
            pick(&Filter {
                action: Some(Action::RetryLater),
                ..Default::default()
            }),
            ["in_if"]
        );
        assert_eq!(
            pick(&Filter {
                decline: Some(DeclineKey::of(Some("expired_card"), None)),
                ..Default::default()
            }),
            ["in_ex"]
        );
        assert!(
            pick(&Filter {
                no_retry_left: true,
                currency: Some(Currency::EUR),
                ..Default::default()
            })
            .is_empty()
        );
        assert_eq!(w.currencies(), [Currency::USD, Currency::EUR]);
        assert_eq!(
            w.actions(),
            [
                Action::UpdatePaymentMethod,
                Action::RetryLater,
                Action::DoNotRetry
            ]
        );
        assert_eq!(w.decline_keys().len(), 3);
    }

    #[test]
    fn a_larger_kwd_total_in_minor_units_does_not_sort_first_unless_it_is_the_default() {
        let kwd = Currency::parse("kwd").expect("kwd");
        let mut d = data(vec![]);
        // KWD 900.000 is 900000 minor units; EUR 1000.00 is only 100000.
        failed(&mut d, "in_k", 900_000, "insufficient_funds");
        failed(&mut d, "in_e", 100_000, "insufficient_funds");
        d.invoices[0].currency = kwd;
        d.invoices[1].currency = Currency::EUR;
        let w = build(&d, NOW).expect("build");
        // One invoice each: ties by code, EUR before KWD, whatever the minor units.
        assert_eq!(w.currencies(), [Currency::EUR, kwd]);
        assert_eq!(ids(&w), ["in_e", "in_k"]);
        let order: Vec<Currency> = w
            .ordered(&w.totals_by_decline_code[0].amounts)
            .iter()
            .map(|m| m.currency)
            .collect();
        assert_eq!(
            order,
            [Currency::EUR, kwd],
            "the decline totals follow it too"
        );
        d.meta.default_currency = Some(kwd);
        let w = build(&d, NOW).expect("build");
        assert_eq!(w.currencies(), [kwd, Currency::EUR]);
        assert_eq!(ids(&w), ["in_k", "in_e"]);
    }
}
