//! Which payment intents and charges the worklist can reach: those the invoices that can
//! be on it (open, with an amount remaining) name through their invoice payments and the
//! pre-basil `invoice.payment_intent`/`invoice.charge`, the charges of those intents, the
//! charges those intents name (`latest_charge`, the error's charge), and the intents of
//! those charges. The worklist's index holds only these, and a staged open reads only
//! these before the Worklist's first frame: a large account's hundreds of thousands of
//! settled charges and intents are not needed to draw it. Of the invoices, the first part
//! reads those [`worklist_reads`] names, with their invoice payments.
//!
//! The walk is written once, over ids, so the index (over rows) and the cache reader (over
//! columns, before any row is built) cannot disagree about what is reached.

use foldhash::{HashSet, HashSetExt};

use crate::model::rows::{InvoicePaymentRow, InvoiceRow};
use crate::model::status::InvoiceStatus;

/// Whether `inv` can be on the worklist at all (see `row_for`).
pub fn may_be_listed(inv: &InvoiceRow) -> bool {
    listed(&inv.status, inv.amount_remaining)
}

/// [`may_be_listed`] over an invoice's two fields (for a reader of columns).
fn listed(status: &InvoiceStatus, amount_remaining: i64) -> bool {
    *status == InvoiceStatus::Open && amount_remaining > 0
}

/// Whether the worklist's build reads an invoice of this status and amount remaining at
/// all: one that may be listed, or an uncollectible one (counted apart). The others (paid,
/// void, draft, open with nothing remaining) change nothing on it, so a staged open's
/// first part reads only these and their invoice payments.
pub fn worklist_reads(status: &InvoiceStatus, amount_remaining: i64) -> bool {
    listed(status, amount_remaining) || *status == InvoiceStatus::Uncollectible
}

/// The ids reached so far. Feed it in the order of the steps: [`Reach::seeds`], then each
/// intent ([`Reach::intent_names`]) and each charge ([`Reach::take_charge`]) in any
/// order, then [`Reach::wants_intent`] for the final intents.
pub struct Reach<'a> {
    /// The invoices that may be listed.
    pub invoices: HashSet<&'a str>,
    /// The intents the listed invoices name (the seeds).
    intents: HashSet<&'a str>,
    /// The charges reached so far.
    charges: HashSet<&'a str>,
    /// The intents of reached charges (kept apart so the seeds do not grow mid-walk).
    later_intents: HashSet<&'a str>,
}

impl<'a> Reach<'a> {
    /// The invoices that may be listed, and the intents and charges they name.
    pub fn seeds(invoices: &'a [InvoiceRow], payments: &'a [InvoicePaymentRow]) -> Self {
        let listed: Vec<&InvoiceRow> = invoices.iter().filter(|i| may_be_listed(i)).collect();
        let ids: HashSet<&str> = listed.iter().map(|i| i.id.as_str()).collect();
        let mut intents = HashSet::new();
        let mut charges = HashSet::new();
        for p in payments.iter().filter(|p| ids.contains(p.invoice.as_str())) {
            intents.extend(p.payment_intent.as_deref());
            charges.extend(p.charge.as_deref());
        }
        for inv in listed {
            intents.extend(inv.legacy_payment_intent.as_deref());
            charges.extend(inv.legacy_charge.as_deref());
        }
        Self {
            invoices: ids,
            intents,
            charges,
            later_intents: HashSet::new(),
        }
    }

    /// Whether the intent `id` was named by a listed invoice (before any charge added
    /// its own intent): the intents whose charges and named charges are reached.
    pub fn seeded_intent(&self, id: &str) -> bool {
        self.intents.contains(id)
    }

    /// An intent's named charges (`latest_charge`, `last_payment_error.charge`): reached
    /// when the intent was seeded.
    pub fn intent_names(&mut self, id: &str, named: impl IntoIterator<Item = Option<&'a str>>) {
        if self.intents.contains(id) {
            self.charges.extend(named.into_iter().flatten());
        }
    }

    /// Whether the charge `id` of intent `payment_intent` is reached: a charge of a seeded
    /// intent, or one named by an invoice payment, an invoice or a seeded intent. Call
    /// after every [`Reach::intent_names`]; a reached charge's own intent is reached too
    /// (noted here, read by [`Reach::wants_intent`]).
    pub fn take_charge(&mut self, id: &str, payment_intent: Option<&'a str>) -> bool {
        let of_seeded = payment_intent.is_some_and(|pi| self.intents.contains(pi));
        let reached = of_seeded || self.charges.contains(id);
        if reached && let Some(pi) = payment_intent {
            self.later_intents.insert(pi);
        }
        reached
    }

    /// Whether the intent `id` is reached: seeded, or the intent of a reached charge.
    pub fn wants_intent(&self, id: &str) -> bool {
        self.intents.contains(id) || self.later_intents.contains(id)
    }
}
