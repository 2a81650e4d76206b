//! An invoice's payment attempts as the recovery picture reads them: the charges and
//! payment intents its invoice payments name (and the pre-basil `invoice.payment_intent` /
//! `invoice.charge`), the charges of those intents, oldest first; and its first failure.

use std::collections::BTreeSet;

use foldhash::{HashMap, HashMapExt};

use crate::domain::dunning::DeclineKey;
use crate::domain::dunning::attempts::error_of;
use crate::model::AccountData;
use crate::model::rows::{ChargeRow, CustomerRow, InvoicePaymentRow, InvoiceRow, PaymentIntentRow};
use crate::model::status::ChargeStatus;

/// The first failed attempt of an invoice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedAttempt {
    /// When it was made (unix seconds): the charge's `created`, else the payment intent's.
    pub at: i64,
    pub charge: Option<String>,
    /// The decline code, or the failure code when Stripe returned none.
    pub decline: DeclineKey,
    /// The payment method charged, when the charge is known.
    pub payment_method: Option<String>,
}

/// One payment attempt, failed or succeeded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecoveryAttempt {
    pub at: i64,
    pub charge: Option<String>,
    pub payment_intent: Option<String>,
    pub amount: i64,
    /// `failed`, `succeeded`, `pending`.
    pub status: String,
    pub failed: bool,
    pub decline: DeclineKey,
    pub payment_method: Option<String>,
}

/// The rows the picture looks up, indexed once.
pub struct Index<'a> {
    pub(super) payments: HashMap<&'a str, Vec<&'a InvoicePaymentRow>>,
    pub(super) intents: HashMap<&'a str, &'a PaymentIntentRow>,
    pub(super) charges: HashMap<&'a str, &'a ChargeRow>,
    pub(super) charges_by_intent: HashMap<&'a str, Vec<&'a ChargeRow>>,
    pub(super) customers: HashMap<&'a str, &'a CustomerRow>,
    pub(super) subscriptions: HashMap<&'a str, &'a crate::model::rows::SubscriptionRow>,
}

impl<'a> Index<'a> {
    pub fn new(d: &'a AccountData) -> Self {
        let mut payments: HashMap<&str, Vec<_>> = HashMap::new();
        for p in &d.invoice_payments {
            payments.entry(p.invoice.as_str()).or_default().push(p);
        }
        let mut charges_by_intent: HashMap<&str, Vec<_>> = HashMap::new();
        for c in &d.charges {
            if let Some(pi) = c.payment_intent.as_deref() {
                charges_by_intent.entry(pi).or_default().push(c);
            }
        }
        Self {
            payments,
            intents: d
                .payment_intents
                .iter()
                .map(|p| (p.id.as_str(), p))
                .collect(),
            charges: d.charges.iter().map(|c| (c.id.as_str(), c)).collect(),
            charges_by_intent,
            customers: d.customers.iter().map(|c| (c.id.as_str(), c)).collect(),
            subscriptions: d.subscriptions.iter().map(|s| (s.id.as_str(), s)).collect(),
        }
    }

    /// The invoice's invoice payments (any order).
    pub fn payments_of(&self, invoice: &str) -> &[&'a InvoicePaymentRow] {
        self.payments.get(invoice).map_or(&[], Vec::as_slice)
    }
}

/// An invoice's attempts and its first failure.
pub struct History {
    pub attempts: Vec<RecoveryAttempt>,
    pub first_failure: FailedAttempt,
}

/// The invoice's attempts, oldest first, and its first failure; `None` when no attempt
/// failed (the invoice is not in the picture).
pub fn of(inv: &InvoiceRow, ix: &Index<'_>) -> Option<History> {
    let mut pi_ids: BTreeSet<&str> = BTreeSet::new();
    let mut charge_ids: BTreeSet<&str> = BTreeSet::new();
    for p in ix.payments_of(&inv.id) {
        pi_ids.extend(p.payment_intent.as_deref());
        charge_ids.extend(p.charge.as_deref());
    }
    pi_ids.extend(inv.legacy_payment_intent.as_deref());
    charge_ids.extend(inv.legacy_charge.as_deref());
    for pi in &pi_ids {
        for c in ix.charges_by_intent.get(pi).into_iter().flatten() {
            charge_ids.insert(&c.id);
        }
        if let Some(p) = ix.intents.get(pi) {
            charge_ids.extend(p.latest_charge.as_deref());
            charge_ids.extend(p.error_charge.as_deref());
        }
    }
    let mut attempts: Vec<RecoveryAttempt> = charge_ids
        .iter()
        .filter_map(|id| ix.charges.get(id))
        .map(|c| from_charge(c, ix))
        .collect();
    // A failure known only from a payment intent's error (its charge was not read).
    for pi in &pi_ids {
        let Some(p) = ix.intents.get(pi) else {
            continue;
        };
        // Covered as the worklist counts it (`dunning::attempts::attempts_of`): a failed
        // charge of the intent that its error names, or any when it names none.
        let has_error = p.error_code.is_some() || p.error_decline_code.is_some();
        let covered = attempts.iter().any(|a| {
            a.failed
                && a.payment_intent.as_deref() == Some(p.id.as_str())
                && (p.error_charge.is_none() || a.charge.as_deref() == p.error_charge.as_deref())
        });
        if has_error && !covered {
            attempts.push(RecoveryAttempt {
                at: p.created,
                charge: p.error_charge.as_deref().map(str::to_owned),
                payment_intent: Some(p.id.to_string()),
                amount: p.amount,
                status: "failed".to_string(),
                failed: true,
                decline: DeclineKey::of(
                    nonempty(p.error_decline_code.as_deref()),
                    nonempty(p.error_code.as_deref()),
                ),
                payment_method: None,
            });
        }
    }
    attempts.sort_by(|a, b| (a.at, &a.charge).cmp(&(b.at, &b.charge)));
    let first = attempts.iter().find(|a| a.failed)?;
    let first_failure = FailedAttempt {
        at: first.at,
        charge: first.charge.clone(),
        decline: first.decline.clone(),
        payment_method: first.payment_method.clone(),
    };
    Some(History {
        attempts,
        first_failure,
    })
}

fn nonempty(s: Option<&str>) -> Option<&str> {
    s.filter(|s| !s.is_empty())
}

/// A charge as an attempt. Its decline: the payment intent's `decline_code` when the
/// intent's error is this charge's (it names this charge, or none: the rule the worklist
/// reads the same charge by, `dunning::attempts::error_of`); else, for an issuer decline,
/// the charge's `outcome.reason` (where Stripe puts the issuer's decline code: an earlier
/// failed charge of a retried invoice is not the intent's latest error); else its failure
/// code (shown as "no decline code returned").
fn from_charge(c: &ChargeRow, ix: &Index<'_>) -> RecoveryAttempt {
    let failed = c.status == ChargeStatus::Failed;
    let decline = if failed {
        let pi = c
            .payment_intent
            .as_deref()
            .and_then(|pi| ix.intents.get(pi));
        let err = error_of(pi.copied(), &c.id);
        let from_intent = err.and_then(|p| nonempty(p.error_decline_code.as_deref()));
        let from_outcome = (c.outcome_type.as_deref() == Some("issuer_declined"))
            .then(|| nonempty(c.outcome_reason.as_deref()))
            .flatten();
        let failure = nonempty(c.failure_code.as_deref())
            .or_else(|| err.and_then(|p| nonempty(p.error_code.as_deref())));
        DeclineKey::of(from_intent.or(from_outcome), failure)
    } else {
        DeclineKey::of(None, None)
    };
    RecoveryAttempt {
        at: c.created,
        charge: Some(c.id.to_string()),
        payment_intent: c.payment_intent.as_deref().map(str::to_owned),
        amount: c.amount,
        status: c.status.as_str().to_string(),
        failed,
        decline,
        payment_method: c.payment_method.as_deref().map(str::to_owned),
    }
}
