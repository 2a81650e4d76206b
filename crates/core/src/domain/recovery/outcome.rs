//! How an invoice with a failed attempt ended (RULES.md, "Recovery"): `paid` is recovered,
//! `uncollectible` written off, `void` voided, anything else still open; and a recovered
//! invoice's one way: paid outside Stripe, else on the first failure's payment method
//! (a retry), else on another one (a new method), else, with no paying charge in view
//! (a credit note, the customer's credit balance, a charge the read did not reach),
//! another way.

use crate::model::rows::InvoiceRow;
use crate::model::status::InvoiceStatus;

use super::history::{History, Index};

/// The way a paid invoice was recovered. Each recovered invoice has exactly one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Via {
    /// Paid by a charge on the payment method of the first failure (Stripe's retry, or
    /// the customer paying again on the same card).
    Retry,
    /// Paid by a charge on another payment method.
    NewMethod,
    /// Paid outside Stripe: a paid invoice payment of type `payment_record`, or an
    /// `amount_paid_off_stripe` above zero.
    OutOfBand,
    /// Paid, but no succeeded charge is in view: a credit note or the customer's credit
    /// balance settled it, or its charge was not read. Never guessed to be a retry.
    Other,
}

impl Via {
    pub const ALL: [Via; 4] = [Via::Retry, Via::NewMethod, Via::OutOfBand, Via::Other];

    /// As the exports write it.
    pub fn as_str(&self) -> &'static str {
        match self {
            Via::Retry => "retry",
            Via::NewMethod => "new_method",
            Via::OutOfBand => "out_of_band",
            Via::Other => "other",
        }
    }

    /// As people read it.
    pub fn title(&self) -> &'static str {
        match self {
            Via::Retry => "retry on the same payment method",
            Via::NewMethod => "a new payment method",
            Via::OutOfBand => "paid outside Stripe",
            Via::Other => "no paying charge in view (credit note, customer balance)",
        }
    }
}

/// How an invoice with a failed attempt stands now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    Recovered(Via),
    /// `uncollectible`.
    WrittenOff,
    /// `void`.
    Voided,
    /// Open (or any status that is not an end: draft, or one tieout does not know).
    StillOpen,
}

impl Outcome {
    /// As the exports write it: `recovered`, `written_off`, `voided`, `still_open`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Outcome::Recovered(_) => "recovered",
            Outcome::WrittenOff => "written_off",
            Outcome::Voided => "voided",
            Outcome::StillOpen => "still_open",
        }
    }
}

/// The invoice's outcome and when it came (Stripe's `status_transitions`; for a paid
/// invoice without `paid_at`, the paying charge's or invoice payment's time).
pub fn decide(inv: &InvoiceRow, h: &History, ix: &Index<'_>) -> (Outcome, Option<i64>) {
    let t = &inv.status_transitions;
    match inv.status {
        InvoiceStatus::Paid => {
            let (via, paid_by) = way(inv, h, ix);
            (Outcome::Recovered(via), t.paid_at.or(paid_by))
        }
        InvoiceStatus::Uncollectible => (Outcome::WrittenOff, t.marked_uncollectible_at),
        InvoiceStatus::Void => (Outcome::Voided, t.voided_at),
        _ => (Outcome::StillOpen, None),
    }
}

/// The way a paid invoice was recovered and, when found, when the paying payment was made.
///
/// Out of band wins when Stripe recorded any payment outside it. Otherwise the paying
/// charge is the latest succeeded one: on the first failure's payment method it is a
/// retry, on another a new method. Without a succeeded charge it is [`Via::Other`]; with
/// one whose payment method (or the first failure's) is not known, a retry (nothing shows
/// another method was used).
fn way(inv: &InvoiceRow, h: &History, ix: &Index<'_>) -> (Via, Option<i64>) {
    let record = ix
        .payments_of(&inv.id)
        .iter()
        .filter(|p| p.status == "paid" && p.payment_type.as_deref() == Some("payment_record"))
        .max_by_key(|p| p.paid_at.unwrap_or(p.created))
        .map(|p| p.paid_at.unwrap_or(p.created));
    if inv.amount_paid_off_stripe > 0 || record.is_some() {
        return (Via::OutOfBand, record);
    }
    let Some(paying) = h.attempts.iter().rev().find(|a| a.status == "succeeded") else {
        return (Via::Other, None);
    };
    let first = h.first_failure.payment_method.as_deref();
    let via = match (paying.payment_method.as_deref(), first) {
        (Some(paid), Some(failed)) if paid != failed => Via::NewMethod,
        _ => Via::Retry,
    };
    (via, Some(paying.at))
}
