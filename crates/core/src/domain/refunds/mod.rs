//! Refund suggestions, pure: a support ticket (email, order id, message) and a policy go
//! in; a recommendation (`approve`, `partial`, `decline`, `review`) with an amount, a reason
//! that quotes the rule, and the ids of the evidence comes out.
//!
//! - [`policy`]: the TOML policy (numbers and wording), default embedded;
//! - [`facts`]: the rows matched against and their index, built once per [`Facts`];
//! - [`matching`]: customers by email, the charge for the order id, its refunds,
//!   disputes and subscription period, looked up through that index;
//! - [`rules`]: the refund rules (RULES.md, "Refund suggestions"), declared once, one function each;
//! - [`decide`]: the rules in their declared order, first match wins;
//! - [`trail`]: what matching and deciding did, recorded as they ran (`--explain`);
//! - [`tickets`]: reading a tickets file (CSV, JSON lines or a JSON array);
//! - [`ticket_columns`]: which column holds what (helpdesk aliases, a column map, the
//!   order-id pattern).

pub mod decide;
#[cfg(test)]
mod decide_tests;
pub mod facts;
pub mod fraud_policy;
pub mod matching;
#[cfg(test)]
mod matching_tests;
pub mod policy;
pub mod rules;
/// Rows for tests, shared with the upper floors' tests through the `testdata` feature.
#[cfg(any(test, feature = "testdata"))]
pub mod testdata;
pub mod ticket_columns;
pub mod tickets;
pub mod trail;

use jiff::tz::TimeZone;
use serde::{Deserialize, Serialize};

use crate::money::Currency;

pub use decide::decide;
pub use matching::{Facts, Matched, match_ticket};
pub use policy::{FraudPolicy, Policy, PolicyError, RuleKind, load_policy};

/// A support ticket asking for a refund.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Ticket {
    /// The help desk's id, when it has one.
    pub ticket_id: Option<String>,
    pub email: String,
    pub order_id: String,
    /// What the customer wrote (shown to the agent; not used by the rules).
    #[serde(default)]
    pub message: String,
    /// The amount the ticket quotes, in major units (`49.00`), if any. Used only to break
    /// a tie between charges that name the same order id.
    #[serde(default)]
    pub amount: Option<String>,
}

impl Ticket {
    /// The ticket's id as the outputs carry it: trimmed, none when blank.
    pub fn id(&self) -> Option<String> {
        self.ticket_id
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_string)
    }
}

/// What the agent should do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Recommendation {
    /// Refund the amount in full (what is left of the charge).
    Approve,
    /// Refund part of the charge (annual proration).
    Partial,
    /// No refund, per the quoted rule.
    Decline,
    /// A person must look: no customer, no or several matching charges, a pattern.
    Review,
}

impl Recommendation {
    pub fn as_str(self) -> &'static str {
        match self {
            Recommendation::Approve => "approve",
            Recommendation::Partial => "partial",
            Recommendation::Decline => "decline",
            Recommendation::Review => "review",
        }
    }
}

/// One ticket's suggestion: exactly the fields the JSON and CSV exports carry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suggestion {
    pub ticket_id: Option<String>,
    pub recommendation: Recommendation,
    /// Minor units; 0 unless approve/partial; never above `amount_captured - amount_refunded`
    /// and always a multiple of the currency's step.
    pub amount: i64,
    /// The matched charge's currency (none when no single charge matched).
    pub currency: Option<Currency>,
    /// At most two sentences: the rule's sentence, then the facts (with the arithmetic of
    /// a partial refund).
    pub reason: String,
    /// Every id relied on, each one present in the data read: `cus_`, `ch_`, `re_`, `dp_`,
    /// `sub_`, `in_`.
    pub evidence: Vec<String>,
    /// The id of the rule that decided.
    pub rule: String,
    /// The Stripe Dashboard address of each evidence id that has a page, in order (test
    /// or live mode, the connected account's when read through Connect).
    #[serde(default)]
    pub evidence_urls: Vec<String>,
}

/// A ticket with what matching found and what the rules decided: what the pane shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Assessment {
    pub ticket: Ticket,
    pub matched: Matched,
    pub kind: RuleKind,
    pub suggestion: Suggestion,
    /// How the suggestion was reached, recorded while matching and deciding ran.
    pub trail: trail::Trail,
}

/// Matches and decides one ticket. The first ticket assessed over `facts` builds its
/// index of the rows; a batch passes the same `Facts` for every ticket, so the index is
/// built once and each ticket costs a few look-ups.
pub fn assess(
    ticket: &Ticket,
    facts: &Facts<'_>,
    policy: &Policy,
    now: i64,
    tz: &TimeZone,
) -> Assessment {
    let matched = match_ticket(ticket, facts);
    let (kind, mut suggestion, rules) = decide::decide_traced(ticket, &matched, policy, now, tz);
    suggestion.evidence_urls = facts.dashboard().urls(&suggestion.evidence);
    let trail = trail::Trail {
        ticket_id: suggestion.ticket_id.clone(),
        stripe: trail::StripeRequests::from_snapshot(facts.origin, facts.fetched_at),
        lookups: trail::lookups(ticket, &matched),
        candidates: matched.candidates.clone(),
        rules,
        decided_by: suggestion.rule.clone(),
    };
    Assessment {
        ticket: ticket.clone(),
        matched,
        kind,
        suggestion,
        trail,
    }
}

/// The rule id of a ticket whose Stripe objects could not be read (not a policy rule: no
/// rule ran, because the facts are missing).
pub const UNREADABLE_RULE: &str = "stripe-unreadable";

/// The suggestion for a ticket whose Stripe objects could not be read: `review`, with the
/// error (and its Request-Id) as the reason; never a decline on missing facts.
pub fn unreadable(ticket: &Ticket, why: &str) -> Suggestion {
    Suggestion {
        ticket_id: ticket.id(),
        recommendation: Recommendation::Review,
        amount: 0,
        currency: None,
        reason: format!("could not read Stripe: {}", why.trim()),
        evidence: Vec::new(),
        rule: UNREADABLE_RULE.to_string(),
        evidence_urls: Vec::new(),
    }
}
