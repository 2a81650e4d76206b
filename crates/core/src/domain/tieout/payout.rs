//! One payout tied out: which kind it is, whether Stripe can itemise it, its lines (the
//! balance transactions its `?payout=` listing returned, minus its own `type=payout`
//! transaction), the checks, the subtotals by category, and the notes a bookkeeper needs.

use std::borrow::Cow;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use serde::Serialize;

use super::category;
use super::lines::Lines;
use crate::model::rows::{BalanceTxnRow, PayoutRow};
use crate::model::status::{PayoutStatus, ReconciliationStatus};
use crate::money::{Currency, format_major};

mod notes;
use notes::*;

/// Stripe's reason, in words, why a manual payout has no itemised lines.
pub const MANUAL_REASON: &str = "Stripe cannot itemise manual payouts: you choose their timing and amount, so the Balance Transactions API answers 400 for ?payout= on them.";
/// The same for an instant payout.
pub const INSTANT_REASON: &str = "Stripe cannot itemise instant payouts: you trigger them and choose their amount, so the Balance Transactions API answers 400 for ?payout= on them.";
/// The same for a payout that reverses another (`original_payout` set).
pub const REVERSAL_REASON: &str = "Stripe does not itemise a payout reversal: it has no lines of its own, it takes one earlier payout back.";

/// How a payout came about, which decides whether Stripe can itemise it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PayoutKind {
    /// Made by the payout schedule: the only kind `?payout=` itemises.
    Automatic,
    /// Requested by hand.
    Manual,
    /// An instant payout (`method=instant`).
    Instant,
}

impl PayoutKind {
    pub fn of(p: &PayoutRow) -> Self {
        if p.method.eq_ignore_ascii_case("instant") {
            PayoutKind::Instant
        } else if p.automatic {
            PayoutKind::Automatic
        } else {
            PayoutKind::Manual
        }
    }

    pub fn as_str(&self) -> &'static str {
        match self {
            PayoutKind::Automatic => "automatic",
            PayoutKind::Manual => "manual",
            PayoutKind::Instant => "instant",
        }
    }
}

/// The result of tying one payout out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Lines' net equals the payout amount and every check passed.
    Tied,
    /// Lines' net differs from the amount, or a line failed a check.
    Difference,
    /// A manual or instant payout: Stripe cannot list its lines.
    NotItemisable,
    /// Stripe has not finished reconciling it (`reconciliation_status` not `completed`).
    InProgress,
    /// The payout failed (`status=failed`): the bank did not accept it and its funds went
    /// back to the balance. Shown as what it is even when its lines tie.
    Failed,
    /// The payout was canceled (`status=canceled`) before it reached the bank.
    Canceled,
    /// The payout reached the bank and was then reversed (`reversed_by` names the payout
    /// that debited it back). Shown as what it is even when its lines tie.
    Reversed,
}

impl Verdict {
    /// The machine name (`tied`, `difference`, `not_itemisable`, `in_progress`, `failed`,
    /// `canceled`, `reversed`).
    pub fn as_str(&self) -> &'static str {
        match self {
            Verdict::Tied => "tied",
            Verdict::Difference => "difference",
            Verdict::NotItemisable => "not_itemisable",
            Verdict::InProgress => "in_progress",
            Verdict::Failed => "failed",
            Verdict::Canceled => "canceled",
            Verdict::Reversed => "reversed",
        }
    }

    /// The words people read (`tied out`, `difference`, ...).
    pub fn label(&self) -> &'static str {
        match self {
            Verdict::Tied => "tied out",
            Verdict::Difference => "difference",
            Verdict::NotItemisable => "not itemisable",
            Verdict::InProgress => "in progress",
            Verdict::Failed => "failed",
            Verdict::Canceled => "canceled",
            Verdict::Reversed => "reversed",
        }
    }
}

/// A subtotal of a payout's lines in one category (the payout's currency only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CategorySubtotal {
    pub reporting_category: String,
    pub count: usize,
    pub gross: i64,
    pub fee: i64,
    pub net: i64,
}

/// A check that failed on one payout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// A line whose `net` is not `amount - fee`.
    LineArithmetic {
        txn: String,
        amount: i64,
        fee: i64,
        net: i64,
        currency: Currency,
    },
    /// A line in a currency other than the payout's: left out of every sum.
    ForeignCurrency {
        txn: String,
        currency: Currency,
        net: i64,
    },
    /// The payout's own `type=payout` transaction does not carry `net = -amount`.
    OwnTransaction {
        txn: String,
        net: i64,
        expected: i64,
        currency: Currency,
    },
}

impl Problem {
    /// One sentence saying what is wrong.
    pub fn describe(&self) -> String {
        match self {
            Problem::LineArithmetic {
                txn,
                amount,
                fee,
                net,
                currency,
            } => format!(
                "Line {txn}: net {} is not amount {} minus fee {} ({} {currency}).",
                format_major(*net, *currency),
                format_major(*amount, *currency),
                format_major(*fee, *currency),
                format_major(amount - fee, *currency),
            ),
            Problem::ForeignCurrency { txn, currency, net } => format!(
                "Line {txn} is in {currency} ({} {currency}), not the payout's currency: it is left out of the sums.",
                format_major(*net, *currency),
            ),
            Problem::OwnTransaction {
                txn,
                net,
                expected,
                currency,
            } => format!(
                "The payout's own transaction {txn} has net {} {currency}; it should be {} {currency} (minus the payout amount).",
                format_major(*net, *currency),
                format_major(*expected, *currency),
            ),
        }
    }
}

/// The lines of an itemisable payout, the sums and the checks. The lines are borrowed
/// from the balance transactions tied out (`'a`) until [`Itemisation::into_owned`].
#[derive(Debug, Clone, PartialEq)]
pub struct Itemisation<'a> {
    /// The balance transactions paid out, oldest first (not the payout's own one).
    pub lines: Lines<'a>,
    /// The payout's own `type=payout` transaction, when it was listed.
    pub own: Option<Cow<'a, BalanceTxnRow>>,
    /// Sum of the lines' `net` in the payout's currency.
    pub lines_net: i64,
    pub lines_gross: i64,
    pub lines_fee: i64,
    /// `lines_net - payout.amount`: zero when they agree.
    pub difference: i64,
    /// Subtotals by category, in [`category::compare`] order.
    pub by_category: Vec<CategorySubtotal>,
    pub problems: Vec<Problem>,
}

impl Itemisation<'_> {
    /// The lines of one category, oldest first.
    pub fn lines_in<'s>(&'s self, cat: &'s str) -> impl Iterator<Item = &'s BalanceTxnRow> + 's {
        self.lines
            .iter()
            .filter(move |l| category::category_str(l) == cat)
    }

    /// The same itemisation owning its lines (copied once if borrowed).
    pub fn into_owned(self) -> Itemisation<'static> {
        Itemisation {
            lines: self.lines.into_owned(),
            own: self.own.map(|o| Cow::Owned(o.into_owned())),
            lines_net: self.lines_net,
            lines_gross: self.lines_gross,
            lines_fee: self.lines_fee,
            difference: self.difference,
            by_category: self.by_category,
            problems: self.problems,
        }
    }
}

/// One payout, tied out (or said why it cannot be).
#[derive(Debug, Clone, PartialEq)]
pub struct PayoutTieOut<'a> {
    pub payout: PayoutRow,
    pub kind: PayoutKind,
    pub verdict: Verdict,
    /// Present when the payout is automatic and Stripe finished reconciling it.
    pub itemisation: Option<Itemisation<'a>>,
    /// Sentences for people: why not itemisable, in progress, failed, holds, problems.
    pub notes: Vec<String>,
}

impl PayoutTieOut<'_> {
    /// The same tie-out owning its lines, to outlive the rows it was computed from.
    pub fn into_owned(self) -> PayoutTieOut<'static> {
        PayoutTieOut {
            payout: self.payout,
            kind: self.kind,
            verdict: self.verdict,
            itemisation: self.itemisation.map(Itemisation::into_owned),
            notes: self.notes,
        }
    }

    pub fn currency(&self) -> Currency {
        self.payout.currency
    }

    /// Lines' net, when itemised.
    pub fn lines_net(&self) -> Option<i64> {
        self.itemisation.as_ref().map(|i| i.lines_net)
    }

    /// `lines_net - amount`, when itemised.
    pub fn difference(&self) -> Option<i64> {
        self.itemisation.as_ref().map(|i| i.difference)
    }

    /// The notes as one paragraph.
    pub fn note(&self) -> String {
        self.notes.join(" ")
    }
}

/// The payout status in words (`in transit` rather than `in_transit`).
pub fn status_label(status: &PayoutStatus) -> String {
    match status {
        PayoutStatus::InTransit => "in transit".to_string(),
        PayoutStatus::Unknown(s) if s.is_empty() => "unknown".to_string(),
        other => other.as_str().to_string(),
    }
}

fn money(minor: i64, currency: Currency) -> String {
    format!("{} {currency}", format_major(minor, currency))
}

/// Ties one payout out against the balance transactions at hand.
///
/// `listed` are the transactions whose `?payout=` listing was this payout's; `all` is
/// every transaction known (to find a failure or reversal transaction by id or source).
pub fn tie_out<'a>(
    payout: &PayoutRow,
    listed: &[&'a BalanceTxnRow],
    all: &[BalanceTxnRow],
) -> PayoutTieOut<'a> {
    tie_out_with(
        payout,
        listed,
        &Related::new(std::slice::from_ref(payout), all),
    )
}

/// The transactions outside a payout's listing that its notes name: its failure
/// transaction (by id) and those that gave its funds back (by source). Found in one pass
/// over all transactions for many payouts at once, so a month (or every month) of payouts
/// does not scan a million transactions per payout.
pub struct Related<'a> {
    by_id: HashMap<&'a str, &'a BalanceTxnRow>,
    returning: HashMap<&'a str, Vec<&'a BalanceTxnRow>>,
}

impl<'a> Related<'a> {
    /// The related transactions of `payouts` among `all`.
    pub fn new<'p>(
        payouts: impl IntoIterator<Item = &'p PayoutRow>,
        all: &'a [BalanceTxnRow],
    ) -> Self {
        let mut failure_ids: HashSet<&str> = HashSet::new();
        let mut payout_ids: HashSet<&str> = HashSet::new();
        for p in payouts {
            payout_ids.insert(p.id.as_str());
            if let Some(f) = p.failure_balance_transaction.as_deref() {
                failure_ids.insert(f);
            }
        }
        let mut by_id: HashMap<&'a str, &'a BalanceTxnRow> = HashMap::new();
        let mut returning: HashMap<&'a str, Vec<&'a BalanceTxnRow>> = HashMap::new();
        for t in all {
            if !failure_ids.is_empty() && failure_ids.contains(t.id.as_str()) {
                // The first with the id wins, as a linear search would find it.
                by_id.entry(t.id.as_str()).or_insert(t);
            }
            if returns_a_payout(t)
                && let Some(src) = t.source.as_deref()
                && payout_ids.contains(src)
            {
                returning.entry(src).or_default().push(t);
            }
        }
        Self { by_id, returning }
    }
}

/// [`tie_out`] with the related transactions found beforehand ([`Related`]).
pub fn tie_out_with<'a>(
    payout: &PayoutRow,
    listed: &[&'a BalanceTxnRow],
    related: &Related<'_>,
) -> PayoutTieOut<'a> {
    let kind = PayoutKind::of(payout);
    let mut notes = Vec::new();
    let (verdict, itemisation) = match kind {
        PayoutKind::Manual => {
            notes.push(if payout.original_payout.is_some() {
                REVERSAL_REASON.to_string()
            } else {
                MANUAL_REASON.to_string()
            });
            (Verdict::NotItemisable, None)
        }
        PayoutKind::Instant => {
            notes.push(INSTANT_REASON.to_string());
            (Verdict::NotItemisable, None)
        }
        PayoutKind::Automatic => match &payout.reconciliation_status {
            ReconciliationStatus::Completed => {
                let it = itemise(payout, listed);
                let tied = it.difference == 0 && it.problems.is_empty();
                if !tied && it.difference != 0 {
                    notes.push(format!(
                        "The lines' net is {} but the payout is {}: a difference of {}.",
                        money(it.lines_net, payout.currency),
                        money(payout.amount, payout.currency),
                        money(it.difference, payout.currency),
                    ));
                }
                if listed.is_empty() {
                    notes.push(
                        "No balance transactions are on hand for this payout: its ?payout= listing returned nothing."
                            .to_string(),
                    );
                } else if it.own.is_none() {
                    notes.push(
                        "Its own type=payout transaction was not in the listing (Stripe normally includes it)."
                            .to_string(),
                    );
                }
                notes.extend(it.problems.iter().map(Problem::describe));
                let v = if tied {
                    Verdict::Tied
                } else {
                    Verdict::Difference
                };
                (v, Some(it))
            }
            ReconciliationStatus::InProgress => {
                notes.push(
                    "Stripe is still reconciling this payout (reconciliation_status in_progress), so its lines cannot be listed completely yet; tie it out once Stripe marks it completed."
                        .to_string(),
                );
                (Verdict::InProgress, None)
            }
            ReconciliationStatus::NotApplicable => {
                notes.push(
                    "Stripe marks this payout's reconciliation not applicable (reconciliation_status not_applicable), so it has no itemised lines."
                        .to_string(),
                );
                (Verdict::InProgress, None)
            }
            ReconciliationStatus::Unknown(s) => {
                let shown = if s.is_empty() { "none" } else { s.as_str() };
                notes.push(format!(
                    "Stripe gave reconciliation_status '{shown}', not completed: the payout is not tied out until it is."
                ));
                (Verdict::InProgress, None)
            }
        },
    };
    // A failed, canceled or reversed payout is shown as what it is, even when its lines
    // tie; a difference in its lines is still a difference.
    let verdict = match (&payout.status, verdict) {
        (_, Verdict::Difference) => Verdict::Difference,
        (PayoutStatus::Failed, _) => Verdict::Failed,
        (PayoutStatus::Canceled, _) => Verdict::Canceled,
        _ if payout.reversed_by.is_some() => Verdict::Reversed,
        (_, v) => v,
    };
    notes.extend(status_notes(payout, related));
    if let Some(it) = &itemisation {
        notes.extend(hold_notes(it, payout.currency));
    }
    if payout.amount < 0 && payout.original_payout.is_none() {
        notes.push(format!(
            "A negative payout: Stripe debited {} from the bank account.",
            money(-payout.amount, payout.currency)
        ));
    }
    PayoutTieOut {
        payout: payout.clone(),
        kind,
        verdict,
        itemisation,
        notes,
    }
}

/// Splits the listing into the payout's own transaction and its lines, sums and checks.
fn itemise<'a>(payout: &PayoutRow, listed: &[&'a BalanceTxnRow]) -> Itemisation<'a> {
    let is_own = |t: &BalanceTxnRow| {
        t.kind == "payout"
            && (t.source.as_deref() == Some(payout.id.as_str())
                || payout.balance_transaction.as_deref() == Some(t.id.as_str()))
    };
    let mut own: Option<&'a BalanceTxnRow> = None;
    let mut lines: Vec<&'a BalanceTxnRow> = Vec::with_capacity(listed.len());
    for &t in listed {
        if own.is_none() && is_own(t) {
            own = Some(t);
        } else {
            lines.push(t);
        }
    }
    lines.sort_by(|a, b| a.created.cmp(&b.created).then_with(|| a.id.cmp(&b.id)));

    let cur = payout.currency;
    let mut problems = Vec::new();
    if let Some(o) = &own
        && (o.net != -payout.amount || o.currency != cur)
    {
        problems.push(Problem::OwnTransaction {
            txn: o.id.to_string(),
            net: o.net,
            expected: -payout.amount,
            currency: o.currency,
        });
    }
    let (mut net, mut gross, mut fee) = (0i64, 0i64, 0i64);
    // A payout's lines fall in a handful of categories: a short list searched in place
    // beats a map keyed by an owned string (one search per line, a million lines).
    let mut by_category: Vec<CategorySubtotal> = Vec::new();
    for &l in &lines {
        if l.amount.checked_sub(l.fee) != Some(l.net) {
            problems.push(Problem::LineArithmetic {
                txn: l.id.to_string(),
                amount: l.amount,
                fee: l.fee,
                net: l.net,
                currency: l.currency,
            });
        }
        if l.currency != cur {
            problems.push(Problem::ForeignCurrency {
                txn: l.id.to_string(),
                currency: l.currency,
                net: l.net,
            });
            continue;
        }
        net = net.saturating_add(l.net);
        gross = gross.saturating_add(l.amount);
        fee = fee.saturating_add(l.fee);
        // A new String only per new group, not per line.
        let cat = category::category_str(l);
        let at = match by_category.iter().position(|g| g.reporting_category == cat) {
            Some(at) => at,
            None => {
                by_category.push(CategorySubtotal {
                    reporting_category: cat.to_string(),
                    count: 0,
                    gross: 0,
                    fee: 0,
                    net: 0,
                });
                by_category.len() - 1
            }
        };
        let g = &mut by_category[at];
        g.count += 1;
        g.gross = g.gross.saturating_add(l.amount);
        g.fee = g.fee.saturating_add(l.fee);
        g.net = g.net.saturating_add(l.net);
    }
    by_category.sort_by(|a, b| category::compare(&a.reporting_category, &b.reporting_category));
    Itemisation {
        lines: Lines::Borrowed(lines),
        own: own.map(Cow::Borrowed),
        lines_net: net,
        lines_gross: gross,
        lines_fee: fee,
        difference: net.saturating_sub(payout.amount),
        by_category,
        problems,
    }
}
