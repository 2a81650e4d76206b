//! The refund rules (RULES.md, "Refund suggestions"), declared once: the list
//! below gives each rule its [`RuleKind`], its key (the `[rules.<key>]` section of the
//! policy file) and its function, in the order they are checked; the first rule that
//! matches decides ([`super::decide::decide`]).
//!
//! A new rule is one line in [`declare_rules!`]'s list, one function below and its
//! `[rules.<key>]` section in `default_policy.toml`.

use jiff::tz::TimeZone;

use crate::model::rows::{ChargeRow, RefundRow};
use crate::money::Currency;
use crate::time::{date_in, days_between, whole_months_between};

use super::decide::{Evidence, list, money, plural, quoted, refund_counts, via_words};
use super::matching::{MatchVia, Matched, OrderMatch, PeriodLink};
use super::policy::{Policy, RawRule};
use super::{Recommendation, Ticket};

const DAY: i64 = 86_400;

/// Declares the rules: `Kind = key;` per rule, in the order they are checked. Each key
/// is also the name of the rule's function in this module and of its policy section.
macro_rules! declare_rules {
    ($( $(#[$doc:meta])* $kind:ident = $key:ident; )+) => {
        /// The rules, in the fixed order they are checked (first match wins).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum RuleKind {
            $( $(#[$doc])* $kind, )+
        }

        impl RuleKind {
            pub const ALL: [RuleKind; [$(stringify!($kind)),+].len()] = [$(RuleKind::$kind),+];

            /// The key of the rule's table in the policy file (`[rules.<key>]`).
            pub fn key(self) -> &'static str {
                match self {
                    $( RuleKind::$kind => stringify!($key), )+
                }
            }

            /// The rule itself: what it says about a case, or `None` when it does not apply.
            pub(super) fn check(self) -> fn(&Case<'_>) -> Option<Verdict> {
                match self {
                    $( RuleKind::$kind => $key, )+
                }
            }
        }

        /// The `[rules]` table of a policy file: one optional section per rule.
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub(super) struct RawRules {
            $( $key: Option<RawRule>, )+
        }

        impl RawRules {
            pub(super) fn take(&mut self, kind: RuleKind) -> Option<RawRule> {
                match kind {
                    $( RuleKind::$kind => self.$key.take(), )+
                }
            }
        }
    };
}

declare_rules! {
    /// The ticket's email matches no customer: review.
    NoCustomer = no_customer;
    /// No succeeded charge names the order: review.
    NoCharge = no_charge;
    /// Several charges name the order: review, never a guess.
    AmbiguousCharge = ambiguous_charge;
    /// Nothing is left to refund: decline.
    AlreadyRefunded = already_refunded;
    /// The charge is disputed: decline.
    Disputed = disputed;
    /// The customer had `pattern.threshold` refunds in the lookback: review.
    RefundPattern = refund_pattern;
    /// Within `window.days` x 24 h of the charge: approve what is left to refund.
    FirstPurchaseWindow = first_purchase_window;
    /// A yearly plan: partial, floor(captured x unused whole months / 12), capped at what
    /// is left and floored to the currency's step.
    AnnualProrate = annual_prorate;
    /// Otherwise: decline.
    OutsideWindow = outside_window;
}

/// What a rule decided: everything of the suggestion but the rule's own id and sentence.
pub(super) struct Verdict {
    pub recommendation: Recommendation,
    pub amount: i64,
    pub currency: Option<Currency>,
    /// The sentence of facts the reason adds after the rule's sentence.
    pub facts: String,
    /// Evidence relied on beyond the customers, in order.
    pub evidence: Evidence,
}

impl Verdict {
    /// A review before any single charge was found.
    fn review(facts: String) -> Verdict {
        Verdict {
            recommendation: Recommendation::Review,
            amount: 0,
            currency: None,
            facts,
            evidence: Evidence::default(),
        }
    }
}

/// A ticket with what matching found, as the rules read it.
pub(super) struct Case<'a> {
    pub ticket: &'a Ticket,
    pub m: &'a Matched,
    pub policy: &'a Policy,
    /// The clock (unix seconds).
    pub now: i64,
    /// Decides calendar dates and whole months.
    pub tz: &'a TimeZone,
    pub customer_ids: Vec<&'a str>,
    /// The single charge that names the order, when there is one.
    pub charge: Option<Charged<'a>>,
}

/// The one charge that names the ticket's order, with the facts several rules read.
pub(super) struct Charged<'a> {
    pub charge: &'a ChargeRow,
    pub via: &'a MatchVia,
    pub cur: Currency,
    /// What is left to refund.
    pub refundable: i64,
    /// Refunds of the charge that moved (or are moving) money.
    pub refund_ids: Vec<&'a str>,
    /// Whole days since the charge (0 for a charge stamped after `now`).
    pub days: i64,
    /// At most `window.days` x 24 h after the charge's `created`, to the second (30 days
    /// and 1 second is outside). A charge stamped after `now` (clock skew) is inside.
    pub inside: bool,
    /// The customer's succeeded charges before this one, oldest first.
    pub earlier: Vec<&'a ChargeRow>,
    /// The charge's calendar date.
    pub when: String,
}

impl<'a> Case<'a> {
    pub fn new(
        ticket: &'a Ticket,
        m: &'a Matched,
        policy: &'a Policy,
        now: i64,
        tz: &'a TimeZone,
    ) -> Case<'a> {
        let charge = match &m.order {
            OrderMatch::One { charge, via, .. } => Some(Charged {
                charge,
                via,
                cur: charge.currency,
                refundable: charge.refundable(),
                refund_ids: m
                    .refunds
                    .iter()
                    .filter(|r| refund_counts(r))
                    .map(|r: &RefundRow| r.id.as_str())
                    .collect(),
                days: days_between(charge.created, now).max(0),
                inside: now.saturating_sub(charge.created)
                    <= policy.window_days.saturating_mul(DAY),
                earlier: m
                    .customer_charges
                    .iter()
                    .filter(|c| (c.created, c.id.as_str()) < (charge.created, charge.id.as_str()))
                    .collect(),
                when: date_in(charge.created, tz),
            }),
            _ => None,
        };
        Case {
            ticket,
            m,
            policy,
            now,
            tz,
            customer_ids: m.customers.iter().map(|c| c.id.as_str()).collect(),
            charge,
        }
    }
}

impl Charged<'_> {
    /// A verdict on this charge: its id is the first evidence after the customers.
    fn verdict(&self, recommendation: Recommendation, amount: i64, facts: String) -> Verdict {
        let mut evidence = Evidence::default();
        evidence.add(&self.charge.id);
        Verdict {
            recommendation,
            amount,
            currency: Some(self.cur),
            facts,
            evidence,
        }
    }

    fn first(&self) -> bool {
        self.earlier.is_empty()
    }
}

fn no_customer(case: &Case<'_>) -> Option<Verdict> {
    case.m.customers.is_empty().then(|| {
        Verdict::review(format!(
            "No customer has the email {}.",
            quoted(case.ticket.email.trim())
        ))
    })
}

fn no_charge(case: &Case<'_>) -> Option<Verdict> {
    if !matches!(case.m.order, OrderMatch::NoCustomer | OrderMatch::NotFound) {
        return None;
    }
    let n = case.m.customer_charges.len();
    let facts = if case.ticket.order_id.trim().is_empty() {
        "The ticket names no single order id (no order column gives one, and its subject and message name none or several), so no charge can be matched.".to_string()
    } else if n == 0 {
        format!("{} has no succeeded charge.", list(&case.customer_ids))
    } else {
        format!(
            "No succeeded charge of {} ({n} checked) names order {} in its metadata or description.",
            list(&case.customer_ids),
            quoted(case.ticket.order_id.trim())
        )
    };
    Some(Verdict::review(facts))
}

fn ambiguous_charge(case: &Case<'_>) -> Option<Verdict> {
    let OrderMatch::Ambiguous { charges, via } = &case.m.order else {
        return None;
    };
    let ids: Vec<&str> = charges.iter().map(|c| c.id.as_str()).collect();
    let mut v = Verdict::review(format!(
        "Order {} is named by {} charges ({}) in their {}.",
        quoted(case.ticket.order_id.trim()),
        ids.len(),
        list(&ids),
        via_words(via)
    ));
    v.evidence.extend(ids.iter().copied());
    Some(v)
}

fn already_refunded(case: &Case<'_>) -> Option<Verdict> {
    let c = case.charge.as_ref()?;
    let (ch, cur) = (c.charge, c.cur);
    if ch.amount_refunded < ch.amount_captured {
        return None;
    }
    let facts = if ch.amount_captured == 0 {
        format!("{} captured nothing, so nothing is left to refund.", ch.id)
    } else {
        let of = format!(
            "{} was refunded {} of {} already",
            ch.id,
            money(ch.amount_refunded, cur),
            money(ch.amount_captured, cur)
        );
        if c.refund_ids.is_empty() {
            format!("{of}.")
        } else {
            format!("{of} ({}).", list(&c.refund_ids))
        }
    };
    let mut v = c.verdict(Recommendation::Decline, 0, facts);
    v.evidence.extend(c.refund_ids.iter().copied());
    Some(v)
}

fn disputed(case: &Case<'_>) -> Option<Verdict> {
    let c = case.charge.as_ref()?;
    let disputes = &case.m.disputes;
    if !c.charge.disputed && disputes.is_empty() {
        return None;
    }
    let ids: Vec<&str> = disputes.iter().map(|d| d.id.as_str()).collect();
    let id = &c.charge.id;
    let facts = match disputes.first() {
        Some(d) if disputes.len() == 1 => format!(
            "{id} has dispute {} ({}{}).",
            d.id,
            d.status,
            d.reason
                .as_deref()
                .map(|r| format!(", {r}"))
                .unwrap_or_default()
        ),
        Some(_) => format!("{id} has disputes {}.", list(&ids)),
        None => format!("Stripe marks {id} as disputed."),
    };
    let mut v = c.verdict(Recommendation::Decline, 0, facts);
    v.evidence.extend(ids.iter().copied());
    Some(v)
}

fn refund_pattern(case: &Case<'_>) -> Option<Verdict> {
    let c = case.charge.as_ref()?;
    let (policy, now) = (case.policy, case.now);
    let since = now.saturating_sub(policy.pattern_lookback_days.saturating_mul(DAY));
    let pattern: Vec<&str> = case
        .m
        .customer_refunds
        .iter()
        .filter(|r| refund_counts(r) && r.created >= since && r.created <= now)
        .map(|r| r.id.as_str())
        .collect();
    if (pattern.len() as i64) < policy.pattern_threshold {
        return None;
    }
    let facts = format!(
        "{} had {} in the {} days before {} ({}).",
        list(&case.customer_ids),
        plural(pattern.len() as i64, "refund", "refunds"),
        policy.pattern_lookback_days,
        date_in(now, case.tz),
        list(&pattern)
    );
    let mut v = c.verdict(Recommendation::Review, 0, facts);
    v.evidence.extend(pattern.iter().copied());
    Some(v)
}

fn first_purchase_window(case: &Case<'_>) -> Option<Verdict> {
    let c = case.charge.as_ref()?;
    if !(c.inside && (c.first() || !case.policy.first_purchase_only)) {
        return None;
    }
    let (ch, cur) = (c.charge, c.cur);
    let amount = cur.floor_to_step(c.refundable);
    let what = if c.first() {
        "the customer's first purchase"
    } else {
        "a purchase"
    };
    let mut facts = format!(
        "{} ({}, {}, found by {}) is {what}, {} ago",
        ch.id,
        money(ch.amount_captured, cur),
        c.when,
        via_words(c.via),
        plural(c.days, "day", "days"),
    );
    if ch.amount_refunded > 0 {
        facts.push_str(&format!(
            ", and {} was refunded already",
            money(ch.amount_refunded, cur)
        ));
    }
    let mut v = if amount == 0 {
        facts.push_str(&format!(
            ", but the {} left is less than the smallest refund Stripe accepts in {cur}.",
            money(c.refundable, cur),
        ));
        c.verdict(Recommendation::Review, 0, facts)
    } else {
        facts.push_str(&format!("; refund {}.", money(amount, cur)));
        c.verdict(Recommendation::Approve, amount, facts)
    };
    v.evidence.extend(c.refund_ids.iter().copied());
    Some(v)
}

/// A yearly plan's current period, as the proration sees it.
enum Annual {
    /// The period ends with no whole month left (the text says so).
    NoMonthLeft(String),
    /// Whole months left in the period that ends at `end`.
    Unused { months: i64, end: i64 },
}

/// The yearly period the charge paid, when the policy prorates and the subscription is
/// yearly with a known period end.
fn annual(case: &Case<'_>) -> Option<Annual> {
    let link = case
        .m
        .subscription
        .as_ref()
        .filter(|_| case.policy.annual_proration)?;
    let sub = &link.subscription;
    let yearly = sub.interval.as_deref() == Some("year") && sub.interval_count == 1;
    let end = sub.current_period_end.filter(|_| yearly)?;
    let months = whole_months_between(case.now, end, case.tz).clamp(0, 12);
    Some(if months == 0 {
        Annual::NoMonthLeft(format!(
            "{}'s yearly period ends {} with no whole month left",
            sub.id,
            date_in(end, case.tz)
        ))
    } else {
        Annual::Unused { months, end }
    })
}

fn annual_prorate(case: &Case<'_>) -> Option<Verdict> {
    let c = case.charge.as_ref()?;
    let link = case.m.subscription.as_ref()?;
    let Annual::Unused { months, end } = annual(case)? else {
        return None;
    };
    let (ch, cur) = (c.charge, c.cur);
    let raw = (i128::from(ch.amount_captured) * i128::from(months) / 12)
        .clamp(0, i128::from(i64::MAX)) as i64;
    let capped = raw.min(c.refundable);
    let amount = cur.floor_to_step(capped);
    if amount == 0 {
        return None;
    }
    let sub = &link.subscription;
    let mut facts = format!(
        "{} paid {}'s yearly period ending {}, {}: floor({} x {months} / 12) = {}",
        ch.id,
        sub.id,
        date_in(end, case.tz),
        plural(months, "unused whole month", "unused whole months"),
        money(ch.amount_captured, cur),
        money(raw, cur),
    );
    if capped < raw {
        facts.push_str(&format!(
            ", capped at the {} left to refund",
            money(c.refundable, cur)
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
    let mut v = c.verdict(Recommendation::Partial, amount, facts);
    v.evidence.extend(c.refund_ids.iter().copied());
    v.evidence.add(&sub.id);
    if let PeriodLink::LatestInvoice { invoice } = &link.via {
        v.evidence.add(invoice);
    }
    Some(v)
}

fn outside_window(case: &Case<'_>) -> Option<Verdict> {
    let c = case.charge.as_ref()?;
    let (ch, cur, when) = (c.charge, c.cur, &c.when);
    let window = case.policy.window_days;
    let mut v = c.verdict(Recommendation::Decline, 0, String::new());
    let mut facts = if !c.inside {
        // Past the window by less than a day, "30 days ago" would read as inside it.
        let ago = if c.days > window {
            plural(c.days, "day", "days")
        } else {
            format!("more than {}", plural(window, "day", "days"))
        };
        format!(
            "{} ({}) was charged on {when}, {ago} ago",
            ch.id,
            money(ch.amount_captured, cur),
        )
    } else if let Some(first) = c.earlier.first() {
        v.evidence.add(&first.id);
        format!(
            "{} ({}, {when}) is not the customer's first purchase ({} on {} was)",
            ch.id,
            money(ch.amount_captured, cur),
            first.id,
            date_in(first.created, case.tz)
        )
    } else {
        format!(
            "{} ({}) was charged on {when}",
            ch.id,
            money(ch.amount_captured, cur)
        )
    };
    if let (Some(Annual::NoMonthLeft(why)), Some(link)) = (annual(case), &case.m.subscription) {
        v.evidence.add(&link.subscription.id);
        facts.push_str(&format!(", and {why}"));
    }
    facts.push('.');
    v.facts = facts;
    Some(v)
}
