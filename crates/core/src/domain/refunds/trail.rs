//! The trail behind one recommendation (`tieout suggest --explain`): what was looked up
//! and found, each candidate charge and why it named the order or not, then each rule in
//! order and whether it applied, ending at the one that decided. It is recorded while
//! matching and deciding run (the candidates by [`super::matching::match_order_traced`],
//! the rules by [`super::decide::decide_traced`]), never worked out again afterwards. The
//! Stripe requests made for the ticket come in as data ([`StripeRequests`]) from the
//! shell that made them. It holds ids, amounts, request paths and the ticket's own text,
//! never a key or a header.
//!
//! [`section`] is the one rendering of a trail: `refund-explanations.md` is its sections
//! under a title, and the Refunds pane's trail screen shows the same lines.

use serde::Serialize;

use crate::model::Origin;
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
            charge: c.id.to_string(),
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

/// One Stripe request made for a ticket, as the shell that made it recorded it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StripeLookup {
    /// `GET /v1/customers?email=ann@x.io`: the endpoint and query, never a header or key.
    pub request: String,
    /// How many objects it returned (every page).
    pub returned: usize,
    /// The ids it returned, in order.
    pub ids: Vec<String>,
    /// Stripe's `Request-Id` of each page, when Stripe sent one.
    pub request_ids: Vec<String>,
    /// An earlier ticket of the batch made this request; its answer was reused.
    pub reused: bool,
    /// Why it failed (the error with its Request-Id), when it did.
    pub error: Option<String>,
}

/// The Stripe requests behind a trail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum StripeRequests {
    /// Made for this ticket (a live `suggest`), in the order they were made.
    Made(Vec<StripeLookup>),
    /// None for this ticket alone: the data came from elsewhere (the sentence says where).
    NotPerTicket(String),
}

impl Default for StripeRequests {
    fn default() -> Self {
        StripeRequests::NotPerTicket(String::new())
    }
}

impl StripeRequests {
    /// Where the rows came from when no request was made for the ticket alone: the demo,
    /// the cache, or a read of the whole account (the workbench's), at `fetched_at`.
    pub fn from_snapshot(origin: Origin, fetched_at: i64) -> Self {
        let at = crate::time::iso_utc(fetched_at);
        StripeRequests::NotPerTicket(match origin {
            Origin::Demo => format!(
                "none: decided over the bundled demo account (generated {at}), no request is sent"
            ),
            Origin::Cache => {
                format!("none for this ticket: decided over the cache of the sync at {at}")
            }
            Origin::Live => {
                format!("none for this ticket: decided over the read of the whole account at {at}")
            }
        })
    }
}

/// How many ids of a lookup the trail names before it only counts.
const IDS_SHOWN: usize = 5;

fn lookup_line(l: &StripeLookup) -> String {
    let mut out = l.request.clone();
    match &l.error {
        Some(e) => out.push_str(&format!(": failed: {e}")),
        None => {
            out.push_str(&format!(": {} returned", l.returned));
            if !l.ids.is_empty() {
                let shown: Vec<&str> = l.ids.iter().take(IDS_SHOWN).map(String::as_str).collect();
                out.push_str(&format!(": {}", shown.join(", ")));
                if l.ids.len() > IDS_SHOWN {
                    out.push_str(&format!(" and {} more", l.ids.len() - IDS_SHOWN));
                }
            }
        }
    }
    if !l.request_ids.is_empty() {
        out.push_str(&format!(" (Request-Id {})", l.request_ids.join(", ")));
    }
    if l.reused {
        out.push_str(" (made for an earlier ticket, answer reused)");
    }
    out
}

/// The whole trail of one ticket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Trail {
    pub ticket_id: Option<String>,
    /// The Stripe requests made for the ticket (or where its data came from).
    pub stripe: StripeRequests,
    /// What matching looked up in the rows, in order, each with what it found.
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
            "\n## {}\n\n",
            t.ticket_id.as_deref().unwrap_or("(no ticket id)")
        ));
        for line in section(t) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// One ticket's trail as lines of Markdown (no heading): the Stripe requests, the
/// lookups, the candidate charges, the rules in order and the deciding rule, each part
/// under its label and followed by a blank line.
pub fn section(t: &Trail) -> Vec<String> {
    let mut out = vec!["Stripe requests:".to_string(), String::new()];
    match &t.stripe {
        StripeRequests::Made(made) if made.is_empty() => {
            out.push("- none: the ticket gives no email to look up".to_string());
        }
        StripeRequests::Made(made) => {
            out.extend(made.iter().map(|l| format!("- {}", lookup_line(l))))
        }
        StripeRequests::NotPerTicket(why) => out.push(format!("- {why}")),
    }
    out.extend(["".to_string(), "Lookups:".to_string(), String::new()]);
    out.extend(t.lookups.iter().map(|l| format!("- {l}")));
    out.extend([
        "".to_string(),
        "Candidate charges:".to_string(),
        String::new(),
    ]);
    if t.candidates.is_empty() {
        out.push("- none".to_string());
    }
    for c in &t.candidates {
        out.push(format!(
            "- {} ({}): {}: {}",
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
    out.extend([
        "".to_string(),
        "Rules, in order:".to_string(),
        String::new(),
    ]);
    for (i, r) in t.rules.iter().enumerate() {
        out.push(format!(
            "{}. {}: {}",
            i + 1,
            r.rule,
            if r.applied {
                "applies, and decides"
            } else {
                "does not apply"
            }
        ));
    }
    out.push(String::new());
    out.push(format!("Decided by: {}", t.decided_by));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(request: &str, ids: &[&str], request_id: Option<&str>) -> StripeLookup {
        StripeLookup {
            request: request.to_string(),
            returned: ids.len(),
            ids: ids.iter().map(|s| s.to_string()).collect(),
            request_ids: request_id.into_iter().map(str::to_string).collect(),
            reused: false,
            error: None,
        }
    }

    #[test]
    fn a_section_names_each_request_with_its_count_ids_and_request_id() {
        let mut reused = lookup("GET /v1/charges?customer=cus_a", &["ch_1"], None);
        reused.reused = true;
        let failed = StripeLookup {
            error: Some("Stripe answered 500 (Request-Id req_9)".into()),
            ..lookup("GET /v1/disputes?charge=ch_1", &[], None)
        };
        let many: Vec<String> = (0..7).map(|i| format!("re_{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let t = Trail {
            ticket_id: Some("T-1".into()),
            stripe: StripeRequests::Made(vec![
                lookup("GET /v1/customers?email=a@x.io", &[], Some("req_1")),
                lookup(
                    "GET /v1/customers/search?query=email:'a@x.io'",
                    &["cus_a"],
                    Some("req_2"),
                ),
                reused,
                lookup("GET /v1/refunds?charge=ch_1", &many, Some("req_3")),
                failed,
            ]),
            decided_by: "no-charge".into(),
            ..Trail::default()
        };
        let lines = section(&t);
        let want = [
            "Stripe requests:",
            "",
            "- GET /v1/customers?email=a@x.io: 0 returned (Request-Id req_1)",
            "- GET /v1/customers/search?query=email:'a@x.io': 1 returned: cus_a (Request-Id req_2)",
            "- GET /v1/charges?customer=cus_a: 1 returned: ch_1 (made for an earlier ticket, answer reused)",
            "- GET /v1/refunds?charge=ch_1: 7 returned: re_0, re_1, re_2, re_3, re_4 and 2 more (Request-Id req_3)",
            "- GET /v1/disputes?charge=ch_1: failed: Stripe answered 500 (Request-Id req_9)",
            "",
            "Lookups:",
        ];
        assert_eq!(&lines[..want.len()], want);
        assert_eq!(
            lines.last().map(String::as_str),
            Some("Decided by: no-charge")
        );
        // The Markdown file is the sections under their headings, nothing else.
        let md = markdown(std::slice::from_ref(&t));
        assert_eq!(
            md,
            format!("# Refund explanations\n\n## T-1\n\n{}\n", lines.join("\n"))
        );
    }

    #[test]
    fn without_requests_for_the_ticket_the_trail_says_where_the_rows_came_from() {
        let said = |o| match StripeRequests::from_snapshot(o, 1_790_000_000) {
            StripeRequests::NotPerTicket(why) => why,
            StripeRequests::Made(_) => String::new(),
        };
        assert!(said(Origin::Demo).contains("bundled demo account (generated 2026-09-21T"));
        assert!(said(Origin::Cache).contains("the cache of the sync at 2026-09-21T"));
        assert!(said(Origin::Live).contains("read of the whole account at"));
    }
}
