//! Pairs each payout with the bank line(s) it became, in deterministic passes that each
//! consume what they match:
//!
//! 1. **reference**: the line's text or reference names the payout's trace id or its `po_`
//!    id (compared without case, spaces or punctuation). Payouts and lines joined by such
//!    names match when their sums agree, even outside the date window; when they do not,
//!    the payouts go to review as an amount mismatch (never a fall-through).
//! 2. **failed**: a failed payout is paired with its credit and the debit that took it
//!    back; nothing on the statement is what a failed payout should show.
//! 3. **exact**: same currency and signed amount, the line's date in the window around
//!    `arrival_date` (one day before to three business days after by default), and the
//!    pair unique both ways; repeated until nothing changes.
//! 4. **aggregate**: one line equal to the sum of a few payouts in its window, or one
//!    payout equal to the sum of a few lines, when exactly one subset fits and no other
//!    proposal wants the same payout or line.
//! 5. everything else: `review` with ranked candidates and the reason, `pending` when the
//!    window has not closed yet, `missing` when it has and nothing is near.
//!
//! Lines are sorted by their file and place first, and a pass accepts a pair only when it
//! is unique whatever the order, so the result never depends on the input order.

use std::collections::{BTreeMap, BTreeSet};

use jiff::civil::Date;

use super::BankLine;
use crate::model::rows::PayoutRow;
use crate::model::status::PayoutStatus;
use crate::money::{Currency, format_major};

mod state;
mod text;
mod window;

use state::{State, expected};
use text::{descriptors, looks_like_stripe, normalise, plural};
pub use window::add_business_days;
use window::{add_days, days_between, in_window, window};

/// What the matcher needs of a payout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayoutKey {
    pub id: String,
    /// Signed minor units, as Stripe gives them.
    pub amount: i64,
    pub currency: Currency,
    /// `arrival_date`, as a UTC day.
    pub arrival: Date,
    pub status: PayoutStatus,
    pub failure_code: Option<String>,
    /// `trace_id.value` when Stripe has one.
    pub trace_id: Option<String>,
    pub statement_descriptor: Option<String>,
}

impl PayoutKey {
    /// The key of a payout row; `trace_id` is given apart because not every source keeps
    /// it.
    pub fn from_row(row: &PayoutRow, trace_id: Option<String>) -> Self {
        let arrival = jiff::Timestamp::from_second(row.arrival_date)
            .map(|t| t.to_zoned(jiff::tz::TimeZone::UTC).date())
            .unwrap_or_default();
        Self {
            id: row.id.clone(),
            amount: row.amount,
            currency: row.currency,
            arrival,
            status: row.status.clone(),
            failure_code: row.failure_code.clone(),
            trace_id: trace_id.filter(|t| !t.trim().is_empty()),
            statement_descriptor: row.statement_descriptor.clone(),
        }
    }
}

/// The matcher's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchOptions {
    /// How many calendar days before `arrival_date` a deposit may be booked.
    pub days_before: i64,
    /// How many business days (Monday to Friday) after `arrival_date`.
    pub business_days_after: i64,
    /// How many business days after `arrival_date` a failed payout's debit-back may come.
    pub return_business_days: i64,
    /// The largest number of payouts (or lines) an aggregate may join.
    pub max_subset: usize,
    /// Today (UTC): a payout whose window ends on or after it is not due yet.
    pub today: Date,
    /// The days whose unmatched Stripe-looking lines are listed (a statement often covers
    /// more than the month matched); all days when `None`.
    pub listed_days: Option<(Date, Date)>,
}

impl MatchOptions {
    pub fn new(today: Date) -> Self {
        Self {
            days_before: 1,
            business_days_after: 3,
            return_business_days: 10,
            max_subset: 4,
            today,
            listed_days: None,
        }
    }

    /// Lists only the unmatched lines a payout arriving from `first` to `last` could have
    /// become: from the day before `first` to the end of `last`'s window.
    pub fn listing(mut self, first: Date, last: Date) -> Self {
        self.listed_days = Some((
            add_days(first, -self.days_before),
            add_business_days(last, self.business_days_after),
        ));
        self
    }
}

/// A payout's bank status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BankStatus {
    /// Paired with its deposit by a rule.
    Matched,
    /// No deposit yet, and the window has not closed.
    Pending,
    /// No deposit and nothing near it, and the window has closed.
    Missing,
    /// Candidates that no rule may accept alone: a person decides.
    Review,
    /// A failed payout with nothing on the statement (none expected).
    Failed,
    /// A failed payout whose credit and debit-back are both on the statement.
    DebitedBack,
    /// A canceled payout: nothing expected.
    Canceled,
    /// No statement given covers the payout's currency.
    NoStatement,
}

impl BankStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Matched => "matched",
            Self::Pending => "pending",
            Self::Missing => "missing",
            Self::Review => "review",
            Self::Failed => "failed",
            Self::DebitedBack => "debited_back",
            Self::Canceled => "canceled",
            Self::NoStatement => "no_statement",
        }
    }

    /// What the status means, for the reports' legends.
    pub fn meaning(self) -> &'static str {
        match self {
            Self::Matched => "paired with its deposit by the rule in match_rule",
            Self::Pending => "no deposit yet, but the arrival window has not closed",
            Self::Missing => "no deposit and nothing near it after the arrival window closed",
            Self::Review => "candidates no rule may accept alone; the note gives the reason",
            Self::Failed => "the payout failed at Stripe and nothing reached the statement",
            Self::DebitedBack => {
                "the payout failed; its credit and the debit-back are both on the statement"
            }
            Self::Canceled => "the payout was canceled; nothing is expected",
            Self::NoStatement => "no statement given covers this currency",
        }
    }

    pub const ALL: [BankStatus; 8] = [
        Self::Matched,
        Self::Pending,
        Self::Missing,
        Self::Review,
        Self::Failed,
        Self::DebitedBack,
        Self::Canceled,
        Self::NoStatement,
    ];
}

/// The rule that paired a payout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchRule {
    Reference,
    Exact,
    Aggregate,
    /// A failed payout's credit and debit-back.
    Return,
}

impl MatchRule {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Reference => "reference",
            Self::Exact => "exact",
            Self::Aggregate => "aggregate",
            Self::Return => "return",
        }
    }
}

/// A bank line offered to a person for a payout under review, with why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub line: BankLine,
    pub reason: String,
}

/// One payout's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayoutMatch {
    pub payout: PayoutKey,
    pub status: BankStatus,
    pub rule: Option<MatchRule>,
    /// The line(s) it was paired with (several for a split or a debit-back).
    pub lines: Vec<BankLine>,
    /// For a review: the candidates, best first (at most three).
    pub candidates: Vec<Candidate>,
    pub note: String,
}

impl PayoutMatch {
    /// Calendar days from `arrival_date` to the (last) bank line.
    pub fn days_offset(&self) -> Option<i64> {
        self.lines
            .iter()
            .map(|l| days_between(self.payout.arrival, l.date))
            .max()
    }

    /// Whether a person must look: a review, or a due payout with no deposit.
    pub fn needs_attention(&self) -> bool {
        matches!(self.status, BankStatus::Review | BankStatus::Missing)
    }
}

/// The whole result: every payout once, and the Stripe-looking lines no payout took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BankMatch {
    pub payouts: Vec<PayoutMatch>,
    /// Lines whose text looks like Stripe (STRIPE or a payout's descriptor) that no payout
    /// was paired with.
    pub unmatched_stripe: Vec<BankLine>,
    /// How many lines the statements had in all.
    pub lines_read: usize,
    /// The currencies the statements cover.
    pub currencies: BTreeSet<Currency>,
}

impl BankMatch {
    /// How many payouts have each status (every status, zeros included).
    pub fn counts(&self) -> BTreeMap<BankStatus, usize> {
        let mut c: BTreeMap<BankStatus, usize> = BankStatus::ALL.iter().map(|s| (*s, 0)).collect();
        for p in &self.payouts {
            *c.entry(p.status).or_default() += 1;
        }
        c
    }

    /// The payouts a person must look at.
    pub fn attention(&self) -> impl Iterator<Item = &PayoutMatch> {
        self.payouts.iter().filter(|p| p.needs_attention())
    }
}

/// The accounts' currencies: per file, the currency most of its lines are in (all of them
/// on a tie). A line in another currency is still read, and offered as "currency off".
pub fn statement_currencies(lines: &[BankLine]) -> BTreeSet<Currency> {
    let mut per_file: BTreeMap<&str, BTreeMap<Currency, usize>> = BTreeMap::new();
    for l in lines {
        *per_file
            .entry(l.file.as_str())
            .or_default()
            .entry(l.currency)
            .or_default() += 1;
    }
    let mut out = BTreeSet::new();
    for counts in per_file.values() {
        let top = counts.values().copied().max().unwrap_or(0);
        out.extend(counts.iter().filter(|(_, n)| **n == top).map(|(c, _)| *c));
    }
    out
}

/// Matches `payouts` against the statements' `lines`. Every payout appears once in the
/// result, in arrival then id order.
pub fn match_payouts(payouts: &[PayoutKey], lines: &[BankLine], o: &MatchOptions) -> BankMatch {
    let mut payouts: Vec<&PayoutKey> = payouts.iter().collect();
    payouts.sort_by(|a, b| (a.arrival, &a.id).cmp(&(b.arrival, &b.id)));
    let mut sorted = lines.to_vec();
    sorted.sort();
    let currencies = statement_currencies(&sorted);
    let n = payouts.len();
    let mut s = State {
        used: vec![false; sorted.len()],
        lines: sorted,
        result: vec![None; n],
        review: vec![Vec::new(); n],
        payouts,
    };
    for i in 0..n {
        let p = s.payouts[i];
        if !currencies.contains(&p.currency) {
            s.settle(
                i,
                BankStatus::NoStatement,
                format!("no statement in {}", p.currency.upper()),
            );
        } else if p.status == PayoutStatus::Canceled {
            s.settle(
                i,
                BankStatus::Canceled,
                "canceled at Stripe: nothing expected".to_string(),
            );
        }
    }
    reference_pass(&mut s, o);
    failed_pass(&mut s, o);
    exact_pass(&mut s, o);
    aggregate_pass(&mut s, o);
    review_pass(&mut s, o);

    let descriptors = descriptors(&s.payouts);
    let unmatched_stripe = s
        .lines
        .iter()
        .zip(&s.used)
        .filter(|(l, used)| {
            !**used
                && looks_like_stripe(l, &descriptors)
                && o.listed_days
                    .is_none_or(|(lo, hi)| lo <= l.date && l.date <= hi)
        })
        .map(|(l, _)| l.clone())
        .collect();
    BankMatch {
        payouts: s.result.into_iter().flatten().collect(),
        unmatched_stripe,
        lines_read: s.lines.len(),
        currencies,
    }
}

/// Pass 1: payouts named in the bank text, grouped with the lines that name them.
fn reference_pass(s: &mut State<'_>, o: &MatchOptions) {
    let keys: Vec<Vec<(String, &'static str)>> = s
        .payouts
        .iter()
        .map(|p| {
            let mut k = vec![(normalise(&p.id), "payout id")];
            if let Some(t) = &p.trace_id {
                let t = normalise(t);
                if t.len() >= 6 {
                    k.push((t, "trace id"));
                }
            }
            k
        })
        .collect();
    // Edges payout -> line, with what was named.
    let mut edges: Vec<(usize, usize, &'static str)> = Vec::new();
    for (li, line) in s.lines.iter().enumerate() {
        let text = normalise(&line.text());
        for (i, key) in keys.iter().enumerate() {
            if s.result[i].is_some() || !expected(s.payouts[i]) {
                continue;
            }
            if let Some((_, what)) = key.iter().find(|(k, _)| text.contains(k.as_str())) {
                edges.push((i, li, what));
            }
        }
    }
    // Connected groups of payouts and lines, found from the smallest payout index.
    let mut seen_p = vec![false; s.payouts.len()];
    for start in 0..s.payouts.len() {
        if seen_p[start] || !edges.iter().any(|e| e.0 == start) {
            continue;
        }
        let mut ps = BTreeSet::from([start]);
        let mut ls = BTreeSet::new();
        loop {
            let before = (ps.len(), ls.len());
            for &(p, l, _) in &edges {
                if ps.contains(&p) || ls.contains(&l) {
                    ps.insert(p);
                    ls.insert(l);
                }
            }
            if (ps.len(), ls.len()) == before {
                break;
            }
        }
        for &p in &ps {
            seen_p[p] = true;
        }
        let ls: Vec<usize> = ls.into_iter().collect();
        let currency_ok = ps
            .iter()
            .map(|&p| s.payouts[p].currency)
            .chain(ls.iter().map(|&l| s.lines[l].currency))
            .collect::<BTreeSet<_>>()
            .len()
            == 1;
        let p_sum = ps
            .iter()
            .fold(0_i64, |a, &p| a.saturating_add(s.payouts[p].amount));
        let l_sum = ls
            .iter()
            .fold(0_i64, |a, &l| a.saturating_add(s.lines[l].amount));
        for &p in &ps {
            let named: BTreeSet<&str> = edges.iter().filter(|e| e.0 == p).map(|e| e.2).collect();
            let named = named.into_iter().collect::<Vec<_>>().join(" and ");
            let payout = s.payouts[p];
            if currency_ok && p_sum == l_sum {
                let mut note = format!("the bank text names the {named}");
                if ps.len() > 1 {
                    note.push_str(&format!(
                        "; one deposit for {}",
                        plural(ps.len(), "payout", "payouts")
                    ));
                }
                if ls.len() > 1 {
                    note.push_str(&format!("; split across {} bank lines", ls.len()));
                }
                let outside: Vec<String> = ls
                    .iter()
                    .filter(|&&l| !in_window(payout, &s.lines[l], o))
                    .map(|&l| format!("{} days", days_between(payout.arrival, s.lines[l].date)))
                    .collect();
                if !outside.is_empty() {
                    note.push_str(&format!(
                        "; outside the date window ({})",
                        outside.join(", ")
                    ));
                }
                s.matched(p, MatchRule::Reference, &ls, note);
            } else {
                let why = if currency_ok {
                    format!(
                        "amount mismatch: the bank text names the {named} but the bank amount is {} and the payout{} {}",
                        format_major(l_sum, payout.currency),
                        if ps.len() > 1 { "s total" } else { " is" },
                        format_major(p_sum, payout.currency)
                    )
                } else {
                    format!(
                        "currency mismatch: the bank text names the {named} but the currencies differ"
                    )
                };
                s.review[p] = ls.iter().map(|&l| (l, why.clone())).collect();
                for &l in &ls {
                    s.used[l] = true;
                }
            }
        }
    }
}

/// Pass 2: a failed payout's credit and debit-back.
fn failed_pass(s: &mut State<'_>, o: &MatchOptions) {
    for i in 0..s.payouts.len() {
        let p = s.payouts[i];
        if s.result[i].is_some() || p.status != PayoutStatus::Failed {
            continue;
        }
        let (lo, hi) = window(p, o);
        let back_hi = add_business_days(p.arrival, o.return_business_days);
        let pick = |amount: i64, hi: Date| -> Vec<usize> {
            (0..s.lines.len())
                .filter(|&l| {
                    let line = &s.lines[l];
                    !s.used[l]
                        && line.currency == p.currency
                        && line.amount == amount
                        && lo <= line.date
                        && line.date <= hi
                })
                .collect()
        };
        let credits = pick(p.amount, hi);
        let debits = pick(-p.amount, back_hi);
        let code = p.failure_code.as_deref().unwrap_or("no code");
        match (credits.as_slice(), debits.as_slice()) {
            ([], []) => s.settle(
                i,
                BankStatus::Failed,
                format!("failed at Stripe ({code}); nothing on the statement, as expected"),
            ),
            ([c], [d]) if s.lines[*d].date >= s.lines[*c].date => {
                let note = format!(
                    "failed at Stripe ({code}): credited on {} and debited back on {}",
                    s.lines[*c].date, s.lines[*d].date
                );
                s.matched(i, MatchRule::Return, &[*c, *d], note);
            }
            (cs, ds) => {
                let why = match (cs.len(), ds.len()) {
                    (0, _) => {
                        "failed at Stripe, but a debit of the amount with no credit before it"
                    }
                    (_, 0) => "failed at Stripe, but credited and no debit-back found",
                    _ => "failed at Stripe; several credits or debits could be its return",
                };
                s.review[i] = cs.iter().chain(ds).map(|&l| (l, why.to_string())).collect();
            }
        }
    }
}

/// Pass 3: one payout, one line, same amount and currency, in the window, unique both ways.
fn exact_pass(s: &mut State<'_>, o: &MatchOptions) {
    loop {
        let open: Vec<usize> = s.open().filter(|&i| expected(s.payouts[i])).collect();
        let cands: Vec<(usize, Vec<usize>)> = open
            .iter()
            .map(|&i| {
                let p = s.payouts[i];
                let c = (0..s.lines.len())
                    .filter(|&l| {
                        let line = &s.lines[l];
                        !s.used[l]
                            && line.currency == p.currency
                            && line.amount == p.amount
                            && in_window(p, line, o)
                    })
                    .collect();
                (i, c)
            })
            .collect();
        let mut wanted: BTreeMap<usize, usize> = BTreeMap::new();
        for (_, c) in &cands {
            for &l in c {
                *wanted.entry(l).or_default() += 1;
            }
        }
        let accept: Vec<(usize, usize)> = cands
            .iter()
            .filter(|(_, c)| c.len() == 1 && wanted.get(&c[0]) == Some(&1))
            .map(|(i, c)| (*i, c[0]))
            .collect();
        if accept.is_empty() {
            return;
        }
        for (i, l) in accept {
            let d = days_between(s.payouts[i].arrival, s.lines[l].date);
            let note = if d == 0 {
                String::new()
            } else {
                format!(
                    "booked {} {} the arrival date",
                    plural(d.unsigned_abs() as usize, "day", "days"),
                    if d > 0 { "after" } else { "before" }
                )
            };
            s.matched(i, MatchRule::Exact, &[l], note);
        }
    }
}

/// The subsets of `pool` (indices) of 2..=max items whose `value`s sum to `target`; stops
/// after two, since only a unique fit is used.
fn fits(pool: &[usize], value: &dyn Fn(usize) -> i64, target: i64, max: usize) -> Vec<Vec<usize>> {
    fn go(
        pool: &[usize],
        value: &dyn Fn(usize) -> i64,
        left: i64,
        max: usize,
        pick: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if out.len() >= 2 {
            return;
        }
        if left == 0 && pick.len() >= 2 {
            out.push(pick.clone());
            return;
        }
        if pick.len() == max {
            return;
        }
        for (k, &x) in pool.iter().enumerate() {
            pick.push(x);
            go(
                &pool[k + 1..],
                value,
                left.saturating_sub(value(x)),
                max,
                pick,
                out,
            );
            pick.pop();
        }
    }
    let mut out = Vec::new();
    go(pool, value, target, max, &mut Vec::new(), &mut out);
    out
}

/// The most items an aggregate search looks at, so it stays small.
const POOL_LIMIT: usize = 12;

/// The one subset of a small `pool` that sums to `target`, if exactly one does.
fn unique_fit(
    pool: &[usize],
    value: &dyn Fn(usize) -> i64,
    target: i64,
    o: &MatchOptions,
) -> Option<Vec<usize>> {
    if pool.len() < 2 || pool.len() > POOL_LIMIT {
        return None;
    }
    match fits(pool, value, target, o.max_subset).as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// Pass 4: one line for several payouts, or one payout in several lines.
fn aggregate_pass(s: &mut State<'_>, o: &MatchOptions) {
    let open: Vec<usize> = s.open().filter(|&i| expected(s.payouts[i])).collect();
    let free: Vec<usize> = (0..s.lines.len()).filter(|&l| !s.used[l]).collect();
    let same_sign =
        |a: i64, b: i64| a.signum() == b.signum() && a.unsigned_abs() < b.unsigned_abs();
    // (payouts, lines) proposals.
    let mut proposals: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
    for &l in &free {
        let line = &s.lines[l];
        let pool: Vec<usize> = open
            .iter()
            .copied()
            .filter(|&i| {
                let p = s.payouts[i];
                p.currency == line.currency
                    && same_sign(p.amount, line.amount)
                    && in_window(p, line, o)
            })
            .collect();
        if let Some(one) = unique_fit(&pool, &|i| s.payouts[i].amount, line.amount, o) {
            proposals.push((one, vec![l]));
        }
    }
    for &i in &open {
        let p = s.payouts[i];
        let pool: Vec<usize> = free
            .iter()
            .copied()
            .filter(|&l| {
                let line = &s.lines[l];
                line.currency == p.currency
                    && same_sign(line.amount, p.amount)
                    && in_window(p, line, o)
            })
            .collect();
        if let Some(one) = unique_fit(&pool, &|l| s.lines[l].amount, p.amount, o) {
            proposals.push((vec![i], one));
        }
    }
    let mut uses_p: BTreeMap<usize, usize> = BTreeMap::new();
    let mut uses_l: BTreeMap<usize, usize> = BTreeMap::new();
    for (ps, ls) in &proposals {
        for p in ps {
            *uses_p.entry(*p).or_default() += 1;
        }
        for l in ls {
            *uses_l.entry(*l).or_default() += 1;
        }
    }
    for (ps, ls) in &proposals {
        if ps.iter().any(|p| uses_p[p] > 1) || ls.iter().any(|l| uses_l[l] > 1) {
            continue;
        }
        for &p in ps {
            let note = if ps.len() > 1 {
                let others: Vec<&str> = ps
                    .iter()
                    .filter(|&&q| q != p)
                    .map(|&q| s.payouts[q].id.as_str())
                    .collect();
                format!(
                    "one bank line for {} payouts (with {})",
                    ps.len(),
                    others.join(", ")
                )
            } else {
                format!("split across {} bank lines", ls.len())
            };
            s.matched(p, MatchRule::Aggregate, ls, note);
        }
    }
}

/// Pass 5: what is left gets candidates and a status.
fn review_pass(s: &mut State<'_>, o: &MatchOptions) {
    let descriptors = descriptors(&s.payouts);
    for i in 0..s.payouts.len() {
        if s.result[i].is_some() {
            continue;
        }
        let p = s.payouts[i];
        let (_, hi) = window(p, o);
        // (rank, not Stripe-looking, |days|, line, reason)
        let not_stripe = |l: usize| !looks_like_stripe(&s.lines[l], &descriptors);
        let mut ranked: Vec<(u8, bool, i64, usize, String)> = s.review[i]
            .iter()
            .map(|(l, why)| {
                let d = days_between(p.arrival, s.lines[*l].date).abs();
                (0, not_stripe(*l), d, *l, why.clone())
            })
            .collect();
        let equal_in_window: Vec<usize> = (0..s.lines.len())
            .filter(|&l| {
                let line = &s.lines[l];
                !s.used[l]
                    && line.currency == p.currency
                    && line.amount == p.amount
                    && in_window(p, line, o)
            })
            .collect();
        if ranked.is_empty() {
            for l in 0..s.lines.len() {
                if s.used[l] {
                    continue;
                }
                let line = &s.lines[l];
                let d = days_between(p.arrival, line.date);
                let near = d.abs() <= 31;
                let reason = if equal_in_window.contains(&l) {
                    Some((
                        1,
                        format!("{} equal candidates in the window", equal_in_window.len()),
                    ))
                } else if line.currency == p.currency && line.amount == p.amount && near {
                    Some((
                        2,
                        format!("outside the date window ({d} days from arrival)"),
                    ))
                } else if line.currency != p.currency
                    && line.amount == p.amount
                    && in_window(p, line, o)
                {
                    Some((
                        3,
                        format!("currency off: the line is in {}", line.currency.upper()),
                    ))
                } else if line.currency == p.currency
                    && line.amount.signum() == p.amount.signum()
                    && in_window(p, line, o)
                    && (i128::from(line.amount) - i128::from(p.amount)).abs() * 20
                        <= i128::from(p.amount).abs()
                {
                    Some((
                        4,
                        format!(
                            "amount off by {}",
                            format_major(line.amount.saturating_sub(p.amount), p.currency)
                        ),
                    ))
                } else {
                    None
                };
                if let Some((rank, why)) = reason {
                    ranked.push((rank, not_stripe(l), d.abs(), l, why));
                }
            }
        }
        ranked.sort();
        ranked.truncate(3);
        let candidates: Vec<Candidate> = ranked
            .iter()
            .map(|(_, _, _, l, why)| Candidate {
                line: s.lines[*l].clone(),
                reason: why.clone(),
            })
            .collect();
        let due = o.today > hi;
        let forced = !s.review[i].is_empty() || equal_in_window.len() > 1;
        let (status, note) = if candidates.is_empty() {
            if due {
                (
                    BankStatus::Missing,
                    format!("no deposit by {hi}, the end of the window"),
                )
            } else {
                (
                    BankStatus::Pending,
                    format!("not due yet: expected by {hi}"),
                )
            }
        } else if due || forced {
            let list: Vec<String> = candidates
                .iter()
                .map(|c| format!("{} ({})", c.line.line_id(), c.reason))
                .collect();
            (BankStatus::Review, format!("review: {}", list.join("; ")))
        } else {
            (
                BankStatus::Pending,
                format!("not due yet: expected by {hi}"),
            )
        };
        s.result[i] = Some(PayoutMatch {
            payout: p.clone(),
            status,
            rule: None,
            lines: Vec::new(),
            candidates: if status == BankStatus::Review {
                candidates
            } else {
                Vec::new()
            },
            note,
        });
    }
}

#[cfg(test)]
mod tests;
