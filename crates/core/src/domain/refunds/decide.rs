//! The decision: the refund rules (ARCHITECTURE.md, "Refund suggestions") in order, first match wins.
//!
//! 1. `no-customer` -> review;
//! 2. `no-charge` / `ambiguous-charge` -> review;
//! 3. `already-refunded` -> decline;
//! 4. `disputed` -> decline;
//! 5. `refund-pattern` -> review;
//! 6. `first-purchase-window` (at most `window.days` x 24 h after the charge) -> approve
//!    what is left to refund;
//! 7. `annual-prorate` -> partial: floor(amount captured x unused whole months / 12),
//!    capped at what is left and floored to the currency's step;
//! 8. `outside-window` -> decline.
//!
//! Ids and wording come from the [`Policy`]; the reason is the rule's sentence followed by
//! one sentence of facts. Text from the ticket (its email, its order id) is quoted inert
//! ([`quoted`]), so no ticket can add sentences to a reason.

use jiff::tz::TimeZone;

use crate::model::rows::{ChargeRow, RefundRow};
use crate::model::status::RefundStatus;
use crate::money::{Currency, Money};
use crate::time::{date_in, days_between, whole_months_between};

use super::matching::{MatchVia, Matched, OrderMatch, PeriodLink};
use super::policy::{Policy, RuleKind};
use super::{Recommendation, Suggestion, Ticket};

const DAY: i64 = 86_400;

fn money(minor: i64, currency: Currency) -> String {
    Money::new(minor, currency).display()
}

fn plural(n: i64, one: &str, many: &str) -> String {
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
struct Evidence(Vec<String>);

impl Evidence {
    fn add(&mut self, id: &str) {
        if !id.is_empty() && !self.0.iter().any(|x| x == id) {
            self.0.push(id.to_string());
        }
    }
    fn extend<'a>(&mut self, ids: impl IntoIterator<Item = &'a str>) {
        for id in ids {
            self.add(id);
        }
    }
}

struct Out<'p> {
    policy: &'p Policy,
    ticket_id: Option<String>,
    evidence: Evidence,
}

impl Out<'_> {
    fn done(
        self,
        kind: RuleKind,
        recommendation: Recommendation,
        amount: i64,
        currency: Option<Currency>,
        facts: String,
    ) -> (RuleKind, Suggestion) {
        let reason = format!("{} {}", self.policy.says(kind), facts.trim());
        (
            kind,
            Suggestion {
                ticket_id: self.ticket_id,
                recommendation,
                amount,
                currency,
                reason,
                evidence: self.evidence.0,
                rule: self.policy.id(kind).to_string(),
            },
        )
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
fn via_words(via: &MatchVia) -> String {
    match via {
        MatchVia::Metadata { key } => format!("metadata.{}", inert(key)),
        MatchVia::Description => via.describe(),
    }
}

fn list(ids: &[&str]) -> String {
    ids.join(", ")
}

/// Applies the rules to what matching found. `now` is the clock (unix seconds); `tz`
/// decides calendar dates and whole months.
pub fn decide(
    ticket: &Ticket,
    m: &Matched,
    policy: &Policy,
    now: i64,
    tz: &TimeZone,
) -> (RuleKind, Suggestion) {
    let mut out = Out {
        policy,
        ticket_id: ticket
            .ticket_id
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_string),
        evidence: Evidence::default(),
    };
    let customer_ids: Vec<&str> = m.customers.iter().map(|c| c.id.as_str()).collect();
    out.evidence.extend(customer_ids.iter().copied());
    let order = quoted(ticket.order_id.trim());

    // 1. no-customer
    if m.customers.is_empty() {
        let facts = format!("No customer has the email {}.", quoted(ticket.email.trim()));
        return out.done(RuleKind::NoCustomer, Recommendation::Review, 0, None, facts);
    }

    // 2. no-charge / ambiguous-charge
    let (charge, via) = match &m.order {
        OrderMatch::NoCustomer | OrderMatch::NotFound => {
            let n = m.customer_charges.len() as i64;
            let facts = if n == 0 {
                format!("{} has no succeeded charge.", list(&customer_ids))
            } else {
                format!(
                    "No succeeded charge of {} ({} checked) names order {order} in its metadata or description.",
                    list(&customer_ids),
                    n
                )
            };
            return out.done(RuleKind::NoCharge, Recommendation::Review, 0, None, facts);
        }
        OrderMatch::Ambiguous { charges, via } => {
            let ids: Vec<&str> = charges.iter().map(|c| c.id.as_str()).collect();
            out.evidence.extend(ids.iter().copied());
            let facts = format!(
                "Order {order} is named by {} charges ({}) in their {}.",
                ids.len(),
                list(&ids),
                via_words(via)
            );
            return out.done(
                RuleKind::AmbiguousCharge,
                Recommendation::Review,
                0,
                None,
                facts,
            );
        }
        OrderMatch::One { charge, via, .. } => (charge, via),
    };
    let cur = charge.currency;
    out.evidence.add(&charge.id);
    let refundable = charge.refundable();
    let moving_refunds: Vec<&RefundRow> = m.refunds.iter().filter(|r| refund_counts(r)).collect();
    let refund_ids: Vec<&str> = moving_refunds.iter().map(|r| r.id.as_str()).collect();

    // 3. already-refunded
    if charge.amount_refunded >= charge.amount_captured {
        out.evidence.extend(refund_ids.iter().copied());
        let facts = if charge.amount_captured == 0 {
            format!(
                "{} captured nothing, so nothing is left to refund.",
                charge.id
            )
        } else if refund_ids.is_empty() {
            format!(
                "{} was refunded {} of {} already.",
                charge.id,
                money(charge.amount_refunded, cur),
                money(charge.amount_captured, cur)
            )
        } else {
            format!(
                "{} was refunded {} of {} already ({}).",
                charge.id,
                money(charge.amount_refunded, cur),
                money(charge.amount_captured, cur),
                list(&refund_ids)
            )
        };
        return out.done(
            RuleKind::AlreadyRefunded,
            Recommendation::Decline,
            0,
            Some(cur),
            facts,
        );
    }

    // 4. disputed
    if charge.disputed || !m.disputes.is_empty() {
        let ids: Vec<&str> = m.disputes.iter().map(|d| d.id.as_str()).collect();
        out.evidence.extend(ids.iter().copied());
        let facts = match m.disputes.first() {
            Some(d) if m.disputes.len() == 1 => format!(
                "{} has dispute {} ({}{}).",
                charge.id,
                d.id,
                d.status,
                d.reason
                    .as_deref()
                    .map(|r| format!(", {r}"))
                    .unwrap_or_default()
            ),
            Some(_) => format!("{} has disputes {}.", charge.id, list(&ids)),
            None => format!("Stripe marks {} as disputed.", charge.id),
        };
        return out.done(
            RuleKind::Disputed,
            Recommendation::Decline,
            0,
            Some(cur),
            facts,
        );
    }

    // 5. refund-pattern
    let since = now.saturating_sub(policy.pattern_lookback_days.saturating_mul(DAY));
    let pattern: Vec<&str> = m
        .customer_refunds
        .iter()
        .filter(|r| refund_counts(r) && r.created >= since && r.created <= now)
        .map(|r| r.id.as_str())
        .collect();
    if pattern.len() as i64 >= policy.pattern_threshold {
        out.evidence.extend(pattern.iter().copied());
        let facts = format!(
            "{} had {} in the {} days before {} ({}).",
            list(&customer_ids),
            plural(pattern.len() as i64, "refund", "refunds"),
            policy.pattern_lookback_days,
            date_in(now, tz),
            list(&pattern)
        );
        return out.done(
            RuleKind::RefundPattern,
            Recommendation::Review,
            0,
            Some(cur),
            facts,
        );
    }

    // 6. first-purchase-window: within the window means at most window_days x 24 h after
    // the charge's `created`, to the second (30 days and 1 second is outside). A charge
    // stamped after `now` (clock skew) is inside.
    let days = days_between(charge.created, now).max(0);
    let inside = now.saturating_sub(charge.created) <= policy.window_days.saturating_mul(DAY);
    let earlier: Vec<&ChargeRow> = m
        .customer_charges
        .iter()
        .filter(|c| (c.created, c.id.as_str()) < (charge.created, charge.id.as_str()))
        .collect();
    let first = earlier.is_empty();
    let when = date_in(charge.created, tz);
    if inside && (first || !policy.first_purchase_only) {
        let amount = cur.floor_to_step(refundable);
        out.evidence.extend(refund_ids.iter().copied());
        let what = if first {
            "the customer's first purchase"
        } else {
            "a purchase"
        };
        let mut facts = format!(
            "{} ({}, {when}, found by {}) is {what}, {} ago",
            charge.id,
            money(charge.amount_captured, cur),
            via_words(via),
            plural(days, "day", "days"),
        );
        if charge.amount_refunded > 0 {
            facts.push_str(&format!(
                ", and {} was refunded already",
                money(charge.amount_refunded, cur)
            ));
        }
        if amount == 0 {
            facts.push_str(&format!(
                ", but the {} left is less than the smallest refund Stripe accepts in {}.",
                money(refundable, cur),
                cur
            ));
            return out.done(
                RuleKind::FirstPurchaseWindow,
                Recommendation::Review,
                0,
                Some(cur),
                facts,
            );
        }
        facts.push_str(&format!("; refund {}.", money(amount, cur)));
        return out.done(
            RuleKind::FirstPurchaseWindow,
            Recommendation::Approve,
            amount,
            Some(cur),
            facts,
        );
    }

    // 7. annual-prorate
    let mut no_month_left: Option<String> = None;
    if let (true, Some(link)) = (policy.annual_proration, &m.subscription) {
        let sub = &link.subscription;
        let yearly = sub.interval.as_deref() == Some("year") && sub.interval_count == 1;
        if let (true, Some(end)) = (yearly, sub.current_period_end) {
            let unused = whole_months_between(now, end, tz).clamp(0, 12);
            if unused == 0 {
                no_month_left = Some(format!(
                    "{}'s yearly period ends {} with no whole month left",
                    sub.id,
                    date_in(end, tz)
                ));
            } else {
                let raw = (i128::from(charge.amount_captured) * i128::from(unused) / 12)
                    .clamp(0, i128::from(i64::MAX)) as i64;
                let capped = raw.min(refundable);
                let amount = cur.floor_to_step(capped);
                if amount > 0 {
                    out.evidence.extend(refund_ids.iter().copied());
                    out.evidence.add(&sub.id);
                    if let PeriodLink::LatestInvoice { invoice } = &link.via {
                        out.evidence.add(invoice);
                    }
                    let mut facts = format!(
                        "{} paid {}'s yearly period ending {}, {}: floor({} x {unused} / 12) = {}",
                        charge.id,
                        sub.id,
                        date_in(end, tz),
                        plural(unused, "unused whole month", "unused whole months"),
                        money(charge.amount_captured, cur),
                        money(raw, cur),
                    );
                    if capped < raw {
                        facts.push_str(&format!(
                            ", capped at the {} left to refund",
                            money(refundable, cur)
                        ));
                    }
                    if amount < capped {
                        facts.push_str(&format!(
                            ", rounded down to {} (a multiple of {})",
                            money(amount, cur),
                            money(cur.amount_step(), cur)
                        ));
                    }
                    facts.push('.');
                    return out.done(
                        RuleKind::AnnualProrate,
                        Recommendation::Partial,
                        amount,
                        Some(cur),
                        facts,
                    );
                }
            }
        }
    }

    // 8. outside-window
    let mut facts = if !inside {
        // Past the window by less than a day, "30 days ago" would read as inside it.
        let ago = if days > policy.window_days {
            plural(days, "day", "days")
        } else {
            format!("more than {}", plural(policy.window_days, "day", "days"))
        };
        format!(
            "{} ({}) was charged on {when}, {ago} ago",
            charge.id,
            money(charge.amount_captured, cur),
        )
    } else {
        let first_charge = earlier.first().map(|c| (c.id.as_str(), c.created));
        match first_charge {
            Some((id, created)) => {
                out.evidence.add(id);
                format!(
                    "{} ({}, {when}) is not the customer's first purchase ({id} on {} was)",
                    charge.id,
                    money(charge.amount_captured, cur),
                    date_in(created, tz)
                )
            }
            None => format!(
                "{} ({}) was charged on {when}",
                charge.id,
                money(charge.amount_captured, cur)
            ),
        }
    };
    if let Some(why) = no_month_left {
        if let Some(link) = &m.subscription {
            out.evidence.add(&link.subscription.id);
        }
        facts.push_str(&format!(", and {why}"));
    }
    facts.push('.');
    out.done(
        RuleKind::OutsideWindow,
        Recommendation::Decline,
        0,
        Some(cur),
        facts,
    )
}
