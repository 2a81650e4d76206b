//! How an invoice's payment attempts are found in the snapshot (its invoice payments, the
//! payment intents and charges they name) and which failed attempt's decline the
//! worklist shows.

use super::*;

pub(super) struct Index<'a> {
    pub(super) payments_by_invoice:
        HashMap<&'a str, Vec<&'a crate::model::rows::InvoicePaymentRow>>,
    pub(super) intents: HashMap<&'a str, &'a PaymentIntentRow>,
    pub(super) charges: HashMap<&'a str, &'a ChargeRow>,
    pub(super) charges_by_intent: HashMap<&'a str, Vec<&'a ChargeRow>>,
    pub(super) customers: HashMap<&'a str, &'a CustomerRow>,
    pub(super) subscriptions: HashMap<&'a str, &'a SubscriptionRow>,
}

impl<'a> Index<'a> {
    /// Indexes only what the invoices that can be on the worklist (open, with an amount
    /// remaining: see `row_for`) can reach through `payments_of` and
    /// `attempt_from_charge`: their payments, the payment intents and charges those name,
    /// and the intents of those charges. Every lookup those make finds what an index of
    /// the whole account would (the same rows, in the same order), without hashing the
    /// hundreds of thousands of settled charges and intents of a large account.
    pub(super) fn new(d: &'a AccountData) -> Self {
        let mut reach = Reach::seeds(&d.invoices, &d.invoice_payments);
        let mut payments_by_invoice: HashMap<&str, Vec<_>> = HashMap::new();
        for p in &d.invoice_payments {
            if reach.invoices.contains(p.invoice.as_str()) {
                payments_by_invoice
                    .entry(p.invoice.as_str())
                    .or_default()
                    .push(p);
            }
        }
        for pi in &d.payment_intents {
            reach.intent_names(
                &pi.id,
                [pi.latest_charge.as_deref(), pi.error_charge.as_deref()],
            );
        }
        let mut charges_by_intent: HashMap<&str, Vec<_>> = HashMap::new();
        let mut charges: HashMap<&str, &ChargeRow> = HashMap::new();
        for c in &d.charges {
            let pi = c.payment_intent.as_deref();
            if let Some(pi) = pi
                && reach.seeded_intent(pi)
            {
                charges_by_intent.entry(pi).or_default().push(c);
            }
            if reach.take_charge(&c.id, pi) {
                charges.insert(c.id.as_str(), c);
            }
        }
        let mut intents: HashMap<&str, &PaymentIntentRow> = HashMap::new();
        for p in d
            .payment_intents
            .iter()
            .filter(|p| reach.wants_intent(&p.id))
        {
            intents.insert(p.id.as_str(), p);
        }
        Self {
            payments_by_invoice,
            intents,
            charges,
            charges_by_intent,
            customers: d.customers.iter().map(|c| (c.id.as_str(), c)).collect(),
            subscriptions: d.subscriptions.iter().map(|s| (s.id.as_str(), s)).collect(),
        }
    }
}

/// Everything known about an invoice's payments.
pub(super) struct Payments<'a> {
    pub(super) intents: Vec<&'a PaymentIntentRow>,
    pub(super) charges: Vec<&'a ChargeRow>,
}

pub(super) fn payments_of<'a>(inv: &'a InvoiceRow, ix: &Index<'a>) -> Payments<'a> {
    let mut pi_ids: BTreeSet<&str> = BTreeSet::new();
    let mut charge_ids: BTreeSet<&str> = BTreeSet::new();
    for p in ix
        .payments_by_invoice
        .get(inv.id.as_str())
        .into_iter()
        .flatten()
    {
        if let Some(pi) = p.payment_intent.as_deref() {
            pi_ids.insert(pi);
        }
        if let Some(ch) = p.charge.as_deref() {
            charge_ids.insert(ch);
        }
    }
    if let Some(pi) = inv.legacy_payment_intent.as_deref() {
        pi_ids.insert(pi);
    }
    if let Some(ch) = inv.legacy_charge.as_deref() {
        charge_ids.insert(ch);
    }
    let intents: Vec<&PaymentIntentRow> = pi_ids
        .iter()
        .filter_map(|id| ix.intents.get(id).copied())
        .collect();
    for pi in &pi_ids {
        for c in ix.charges_by_intent.get(pi).into_iter().flatten() {
            charge_ids.insert(c.id.as_str());
        }
    }
    for pi in &intents {
        for ch in [pi.latest_charge.as_deref(), pi.error_charge.as_deref()]
            .into_iter()
            .flatten()
        {
            charge_ids.insert(ch);
        }
    }
    let mut charges: Vec<&ChargeRow> = charge_ids
        .iter()
        .filter_map(|id| ix.charges.get(id).copied())
        .collect();
    charges.sort_by(|a, b| a.created.cmp(&b.created).then_with(|| a.id.cmp(&b.id)));
    Payments { intents, charges }
}

pub(super) fn nonempty<S: AsRef<str>>(s: &Option<S>) -> Option<String> {
    s.as_ref()
        .map(AsRef::as_ref)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// The payment intent's error, when it belongs to this charge (or names no charge).
pub(crate) fn error_of<'a>(
    pi: Option<&'a PaymentIntentRow>,
    charge: &str,
) -> Option<&'a PaymentIntentRow> {
    pi.filter(|p| {
        (p.error_code.is_some() || p.error_decline_code.is_some())
            && p.error_charge.as_deref().is_none_or(|c| c == charge)
    })
}

pub(super) fn attempt_from_charge(c: &ChargeRow, ix: &Index<'_>) -> Attempt {
    let failed = c.status == ChargeStatus::Failed;
    let pi = c
        .payment_intent
        .as_deref()
        .and_then(|id| ix.intents.get(id).copied());
    let err = if failed { error_of(pi, &c.id) } else { None };
    let decline_code = err.and_then(|e| nonempty(&e.error_decline_code));
    let failure_code =
        nonempty(&c.failure_code).or_else(|| err.and_then(|e| nonempty(&e.error_code)));
    let advice_code = err
        .and_then(|e| nonempty(&e.error_advice_code))
        .or_else(|| nonempty(&c.outcome_advice_code));
    let outcome_reason = nonempty(&c.outcome_reason);
    let mut a = Attempt {
        charge: Some(c.id.to_string()),
        payment_intent: c.payment_intent.as_deref().map(str::to_owned),
        created: Some(c.created),
        amount: c.amount,
        currency: c.currency,
        status: c.status.as_str().to_string(),
        failed,
        decline_code,
        failure_code,
        outcome_reason,
        advice_code,
        message: nonempty(&c.failure_message)
            .or_else(|| err.and_then(|e| nonempty(&e.error_message)))
            .or_else(|| nonempty(&c.outcome_seller_message)),
        action: None,
    };
    if failed {
        a.action = Some(classify_attempt(&a).action);
    }
    a
}

/// An attempt known only from a payment intent's `last_payment_error` (its charge is not in
/// the data).
pub(super) fn attempt_from_intent(p: &PaymentIntentRow) -> Attempt {
    let mut a = Attempt {
        charge: p.error_charge.as_deref().map(str::to_string),
        payment_intent: Some(p.id.to_string()),
        created: None,
        amount: p.amount,
        currency: p.currency,
        status: p.status.to_string(),
        failed: true,
        decline_code: nonempty(&p.error_decline_code),
        failure_code: nonempty(&p.error_code),
        outcome_reason: None,
        advice_code: nonempty(&p.error_advice_code),
        message: nonempty(&p.error_message),
        action: None,
    };
    a.action = Some(classify_attempt(&a).action);
    a
}

pub(super) fn classify_attempt(a: &Attempt) -> Classification {
    declines::classify(&DeclineSignals {
        decline_code: a.decline_code.as_deref(),
        failure_code: a.failure_code.as_deref(),
        advice_code: a.advice_code.as_deref(),
        outcome_reason: a.outcome_reason.as_deref(),
    })
}

/// The attempts found, whether one is still in flight, and when the first attempt was
/// made (see [`DueBasis::FirstAttempt`]).
pub(super) fn attempts_of(inv: &InvoiceRow, ix: &Index<'_>) -> (Vec<Attempt>, bool, Option<i64>) {
    let pay = payments_of(inv, ix);
    let mut attempts: Vec<Attempt> = pay
        .charges
        .iter()
        .map(|c| attempt_from_charge(c, ix))
        .collect();
    // Errors of payment intents whose failed charge is not in the data.
    for pi in &pay.intents {
        let has_error = pi.error_code.is_some() || pi.error_decline_code.is_some();
        let covered = attempts.iter().any(|a| {
            a.failed
                && a.payment_intent.as_deref() == Some(pi.id.as_str())
                && (pi.error_charge.is_none() || a.charge.as_deref() == pi.error_charge.as_deref())
        });
        if has_error && !covered {
            attempts.push(attempt_from_intent(pi));
        }
    }
    let latest_charge_pending = pay
        .charges
        .last()
        .is_some_and(|c| c.status == ChargeStatus::Pending);
    let intent_processing = pay.intents.iter().any(|p| p.status == "processing");
    let first = pay.intents.iter().map(|p| p.created).min().or_else(|| {
        attempts
            .iter()
            .filter(|a| a.failed)
            .filter_map(|a| a.created)
            .min()
    });
    (attempts, latest_charge_pending || intent_processing, first)
}

/// The latest failed attempt: the failed charge created last (ties by id), else an
/// intent-only failure.
pub(super) fn latest_failed(attempts: &[Attempt]) -> Option<&Attempt> {
    attempts
        .iter()
        .filter(|a| a.failed && a.created.is_some())
        .max_by(|a, b| {
            a.created
                .cmp(&b.created)
                .then_with(|| a.charge.cmp(&b.charge))
        })
        .or_else(|| attempts.iter().rev().find(|a| a.failed))
}

pub(super) fn no_failure_classification(attempted: bool, attempt_count: i64) -> Classification {
    if attempted && attempt_count >= 1 {
        Classification {
            action: Action::Review,
            smart_retries: true,
            disclose: true,
            basis: Basis::Nothing,
            code: None,
            staff: format!(
                "Stripe made {attempt_count} payment attempt(s) but no failed payment was found in the data; look at the invoice in the Dashboard."
            ),
            customer: "Your invoice is still unpaid. Please pay it at the invoice link."
                .to_string(),
        }
    } else {
        Classification {
            action: Action::ContactCustomer,
            smart_retries: true,
            disclose: true,
            basis: Basis::Nothing,
            code: None,
            staff: "Past its due date with no failed payment: remind the customer to pay."
                .to_string(),
            customer: "Your invoice is past due. Please pay it at the invoice link.".to_string(),
        }
    }
}
