//! The decision: the refund rules ([`super::rules`], RULES.md, "Refund
//! suggestions") in their declared order, first match wins.
//!
//! Ids and wording come from the [`Policy`]; the reason is the rule's sentence followed by
//! one sentence of facts. Text from the ticket (its email, its order id) is quoted inert
//! ([`quoted`]), so no ticket can add sentences to a reason.

use jiff::tz::TimeZone;

use crate::model::rows::RefundRow;
use crate::model::status::RefundStatus;
use crate::money::{Currency, Money};

use super::matching::{MatchVia, Matched};
use super::policy::Policy;
use super::rules::{Case, RuleKind, Verdict};
use super::trail::RuleStep;
use super::{Recommendation, Suggestion, Ticket};

pub(super) fn money(minor: i64, currency: Currency) -> String {
    Money::new(minor, currency).display()
}

pub(super) fn plural(n: i64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

/// A refund that moved (or is moving) money: not failed, not canceled.
pub fn refund_counts(r: &RefundRow) -> bool {
    !matches!(r.status, RefundStatus::Failed | RefundStatus::Canceled)
}

/// Evidence ids in the order they were relied on, without repeats.
#[derive(Default)]
pub(super) struct Evidence(Vec<String>);

impl Evidence {
    pub(super) fn add(&mut self, id: &str) {
        if !id.is_empty() && !self.0.iter().any(|x| x == id) {
            self.0.push(id.to_string());
        }
    }
    pub(super) fn extend<'a>(&mut self, ids: impl IntoIterator<Item = &'a str>) {
        for id in ids {
            self.add(id);
        }
    }
}

/// The longest text from outside (a ticket's email or order id, a metadata key) a reason
/// repeats, in characters; longer text is cut with "…".
pub const QUOTE_MAX_CHARS: usize = 64;

/// Text from outside made inert for a reason: on one line (control and bidi-override
/// characters dropped, whitespace runs made one space), at most [`QUOTE_MAX_CHARS`],
/// curly quotes straightened, and `.`, `!`, `?` before a space replaced by their small
/// forms (﹒ ﹗ ﹖) so they cannot end a sentence.
fn inert(text: &str) -> String {
    let visible: String = text
        .chars()
        .filter(|c| {
            !c.is_control()
                && !matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect();
    let mut chars: Vec<char> = visible
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .collect();
    if chars.len() > QUOTE_MAX_CHARS {
        chars.truncate(QUOTE_MAX_CHARS - 1);
        while chars.last() == Some(&' ') {
            chars.pop();
        }
        chars.push('…');
    }
    let mut out = String::with_capacity(chars.len() + 8);
    for (i, c) in chars.iter().enumerate() {
        let before_space = chars.get(i + 1) == Some(&' ');
        out.push(match c {
            '“' | '”' => '"',
            '.' if before_space => '﹒',
            '!' if before_space => '﹗',
            '?' if before_space => '﹖',
            other => *other,
        });
    }
    out
}

/// A ticket's value as a reason shows it: [`inert`], within “…”.
pub fn quoted(text: &str) -> String {
    format!("“{}”", inert(text))
}

/// Where the order id was found, in words; a metadata key is the merchant's text.
pub(super) fn via_words(via: &MatchVia) -> String {
    match via {
        MatchVia::Metadata { key } => format!("metadata.{}", inert(key)),
        MatchVia::Description => via.describe(),
    }
}

pub(super) fn list(ids: &[&str]) -> String {
    ids.join(", ")
}

/// Applies the rules to what matching found, in their declared order: the first rule that
/// matches decides. `now` is the clock (unix seconds); `tz` decides calendar dates and
/// whole months.
pub fn decide(
    ticket: &Ticket,
    m: &Matched,
    policy: &Policy,
    now: i64,
    tz: &TimeZone,
) -> (RuleKind, Suggestion) {
    let (kind, suggestion, _) = decide_traced(ticket, m, policy, now, tz);
    (kind, suggestion)
}

/// [`decide`], recording each rule as it is checked (in order, the last one decided).
pub fn decide_traced(
    ticket: &Ticket,
    m: &Matched,
    policy: &Policy,
    now: i64,
    tz: &TimeZone,
) -> (RuleKind, Suggestion, Vec<RuleStep>) {
    let case = Case::new(ticket, m, policy, now, tz);
    let mut steps: Vec<RuleStep> = Vec::new();
    let (kind, verdict) = RuleKind::ALL
        .into_iter()
        .find_map(|kind| {
            let v = kind.check()(&case);
            steps.push(RuleStep {
                rule: policy.id(kind).to_string(),
                applied: v.is_some(),
            });
            v.map(|v| (kind, v))
        })
        // Not reached: without a single charge no-charge or ambiguous-charge matches, and
        // with one outside-window always does.
        .unwrap_or_else(|| {
            (
                RuleKind::NoCharge,
                Verdict {
                    recommendation: Recommendation::Review,
                    amount: 0,
                    currency: None,
                    facts: "No single charge was found.".to_string(),
                    evidence: Evidence::default(),
                },
            )
        });
    let mut evidence = Evidence::default();
    evidence.extend(case.customer_ids.iter().copied());
    evidence.extend(verdict.evidence.0.iter().map(String::as_str));
    let suggestion = Suggestion {
        ticket_id: ticket.id(),
        recommendation: verdict.recommendation,
        amount: verdict.amount,
        currency: verdict.currency,
        reason: format!("{} {}", policy.says(kind), verdict.facts.trim()),
        evidence: evidence.0,
        rule: policy.id(kind).to_string(),
        // Filled by `assess`, which knows the account's mode.
        evidence_urls: Vec::new(),
    };
    (kind, suggestion, steps)
}
