//! The trail behind one recommendation (`tieout suggest --explain`): what was looked up
//! and found, each candidate charge and why it named the order or not, then each rule in
//! order and whether it applied, ending at the one that decided. It is recorded while
//! matching and deciding run (the candidates by [`super::matching::match_order_traced`],
//! the rules by [`super::decide::decide_traced`]), never worked out again afterwards. It
//! holds ids, amounts and the ticket's own text, never a key.

use serde::Serialize;

use crate::model::rows::ChargeRow;
use crate::money::Money;

use super::Ticket;
use super::matching::{EmailMatch, Matched, OrderMatch, PeriodLink};

/// One charge of the customers, and whether it named the ticket's order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Candidate {
    pub charge: String,
    /// `49.00 USD, 2026-11-20` style, for reading.
    pub amount: String,
    pub matched: bool,
    pub why: String,
}

impl Candidate {
    pub(super) fn of(c: &ChargeRow, matched: bool, why: String) -> Candidate {
        Candidate {
            charge: c.id.clone(),
            amount: Money::new(c.amount, c.currency).display(),
            matched,
            why,
        }
    }
}

/// One rule as it was checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleStep {
    /// The rule's id (as the output's `rule`).
    pub rule: String,
    pub applied: bool,
}

/// The whole trail of one ticket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Trail {
    pub ticket_id: Option<String>,
    /// What was looked up, in order, each with what it found.
    pub lookups: Vec<String>,
    pub candidates: Vec<Candidate>,
    /// The rules checked, in order; the last one decided.
    pub rules: Vec<RuleStep>,
    pub decided_by: String,
}

fn ids<'a>(it: impl IntoIterator<Item = &'a str>) -> String {
    let v: Vec<&str> = it.into_iter().collect();
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(", ")
    }
}

/// The lookups of a match, as matching made them: customers by email, their charges, the
/// matched charge's refunds and disputes, the customers' other refunds, the subscription.
pub(super) fn lookups(ticket: &Ticket, m: &Matched) -> Vec<String> {
    let email = ticket.email.trim();
    let how = match m.email_match {
        EmailMatch::Exact => "exactly",
        EmailMatch::CaseInsensitive => "ignoring case (customer search)",
        EmailMatch::None => "exactly, then ignoring case (customer search)",
    };
    let mut out = vec![format!(
        "customers with email {}, {how}: {}",
        super::decide::quoted(email),
        ids(m.customers.iter().map(|c| c.id.as_str()))
    )];
    if m.customers.is_empty() {
        return out;
    }
    out.push(format!(
        "succeeded charges of {}: {}",
        ids(m.customers.iter().map(|c| c.id.as_str())),
        ids(m.customer_charges.iter().map(|c| c.id.as_str()))
    ));
    out.push(format!(
        "refunds of the customers' charges: {}",
        ids(m.customer_refunds.iter().map(|r| r.id.as_str()))
    ));
    if let OrderMatch::One { charge, .. } = &m.order {
        out.push(format!(
            "refunds of {}: {}",
            charge.id,
            ids(m.refunds.iter().map(|r| r.id.as_str()))
        ));
        out.push(format!(
            "disputes of {}: {}",
            charge.id,
            ids(m.disputes.iter().map(|d| d.id.as_str()))
        ));
        out.push(match &m.subscription {
            Some(link) => format!(
                "subscription whose current period {} paid: {} ({})",
                charge.id,
                link.subscription.id,
                match &link.via {
                    PeriodLink::PeriodStart => "charged at the period start".to_string(),
                    PeriodLink::LatestInvoice { invoice } => format!("it paid {invoice}"),
                }
            ),
            None => format!("subscription whose current period {} paid: none", charge.id),
        });
    }
    out
}

/// The trail as Markdown, one section per ticket (`refund-explanations.md`).
pub fn markdown(trails: &[Trail]) -> String {
    let mut out = String::from("# Refund explanations\n");
    for t in trails {
        out.push_str(&format!(
            "\n## {}\n\nLookups:\n\n",
            t.ticket_id.as_deref().unwrap_or("(no ticket id)")
        ));
        for l in &t.lookups {
            out.push_str(&format!("- {l}\n"));
        }
        out.push_str("\nCandidate charges:\n\n");
        if t.candidates.is_empty() {
            out.push_str("- none\n");
        }
        for c in &t.candidates {
            out.push_str(&format!(
                "- {} ({}): {}: {}\n",
                c.charge,
                c.amount,
                if c.matched {
                    "matches"
                } else {
                    "does not match"
                },
                c.why
            ));
        }
        out.push_str("\nRules, in order:\n\n");
        for (i, r) in t.rules.iter().enumerate() {
            out.push_str(&format!(
                "{}. {}: {}\n",
                i + 1,
                r.rule,
                if r.applied {
                    "applies, and decides"
                } else {
                    "does not apply"
                }
            ));
        }
        out.push_str(&format!("\nDecided by: {}\n", t.decided_by));
    }
    out
}
