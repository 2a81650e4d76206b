//! The journal of a month: entries with postings in minor units per currency, built from
//! the month's tie-out (the payouts arriving in the month and the lines Stripe listed for
//! them).
//!
//! `daily`: each payout's lines grouped per day (their `created`, in the zone) and
//! category into the clearing account (amount to the category's account, fee to the fee
//! account), then the payout, dated its `arrival_date`, from clearing to the bank. Over a
//! payout's entries the clearing account nets to zero in every currency; what does not tie
//! out goes to the suspense account and is reported. `per-payout`: the same entries of a
//! payout folded into one, dated `arrival_date`, equal to the deposit. Every entry names
//! its payout; every entry balances per currency; no amount is ever converted.

use std::collections::BTreeMap;

use jiff::tz::TimeZone;

use super::accounts::{AccountMap, Unmapped};
use crate::domain::tieout::category::{category_str, compare};
use crate::domain::tieout::{MonthTieOut, PayoutTieOut, Verdict};
use crate::model::rows::BalanceTxnRow;
use crate::model::status::PayoutStatus;
use crate::money::{Currency, format_major};
use crate::time::{Month, date_in};

/// How entries are cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Style {
    /// Per day and category into clearing; each payout from clearing to the bank.
    #[default]
    Daily,
    /// One entry per payout, equal to the deposit.
    PerPayout,
}

impl Style {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "daily" => Some(Style::Daily),
            "per-payout" | "per_payout" => Some(Style::PerPayout),
            _ => None,
        }
    }

    pub fn as_str(&self) -> &'static str {
        match self {
            Style::Daily => "daily",
            Style::PerPayout => "per-payout",
        }
    }
}

/// One posting: a signed amount (debit positive) in minor units.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Posting {
    pub account: String,
    pub currency: Currency,
    pub amount: i64,
}

/// One journal entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// `YYYY-MM-DD` in the zone.
    pub date: String,
    /// The payout the entry belongs to.
    pub payout: String,
    /// What the entry is, in words (no payout id: renderers add it).
    pub narration: String,
    /// Why a person must look at it, when they must.
    pub review: Option<String>,
    pub postings: Vec<Posting>,
}

impl Entry {
    /// The sum of the postings per currency (all zero when the entry balances).
    pub fn sums(&self) -> BTreeMap<Currency, i64> {
        let mut s = BTreeMap::new();
        for p in &self.postings {
            *s.entry(p.currency).or_insert(0) += p.amount;
        }
        s
    }

    pub fn balances(&self) -> bool {
        self.sums().values().all(|v| *v == 0)
    }

    pub fn currencies(&self) -> Vec<Currency> {
        self.sums().into_keys().collect()
    }
}

/// An amount booked to the suspense account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuspenseItem {
    pub payout: String,
    pub currency: Currency,
    /// As posted to suspense (debit positive).
    pub amount: i64,
    pub reason: String,
}

/// The journal of a month.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Journal {
    pub month: Month,
    pub style: Style,
    /// Sorted by date, then in payout order.
    pub entries: Vec<Entry>,
    pub suspense: Vec<SuspenseItem>,
    /// The clearing account's name per currency it is used in.
    pub clearing: BTreeMap<Currency, String>,
    /// The clearing balance at the end of the month per currency (what this journal leaves
    /// in it: the payouts Stripe could not itemise).
    pub clearing_at_end: BTreeMap<Currency, i64>,
    /// The first day after the month (`YYYY-MM-DD`), where beancount asserts balances.
    pub next_day: String,
    /// The month's last day.
    pub last_day: String,
}

impl Journal {
    /// Whether the month ties out (nothing went to suspense).
    pub fn ties_out(&self) -> bool {
        self.suspense.is_empty()
    }

    /// Every account used, sorted.
    pub fn accounts(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .entries
            .iter()
            .flat_map(|e| e.postings.iter().map(|p| p.account.clone()))
            .chain(self.clearing.values().cloned())
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// Every currency used, sorted.
    pub fn currencies(&self) -> Vec<Currency> {
        let mut v: Vec<Currency> = self
            .entries
            .iter()
            .flat_map(|e| e.postings.iter().map(|p| p.currency))
            .collect();
        v.sort();
        v.dedup();
        v
    }
}

/// Why a journal could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JournalError {
    #[error("{0}")]
    Unmapped(#[from] Unmapped),
}

/// Adds `amount` to the posting of `account`/`currency`, keeping first-seen order.
fn post(postings: &mut Vec<Posting>, account: &str, currency: Currency, amount: i64) {
    if let Some(p) = postings
        .iter_mut()
        .find(|p| p.account == account && p.currency == currency)
    {
        p.amount = p.amount.saturating_add(amount);
    } else {
        postings.push(Posting {
            account: account.to_string(),
            currency,
            amount,
        });
    }
}

/// Builds the month's journal from its tie-out.
pub fn build(
    t: &MonthTieOut,
    map: &AccountMap,
    style: Style,
    tz: &TimeZone,
) -> Result<Journal, JournalError> {
    let mut entries: Vec<(usize, Entry)> = Vec::new();
    let mut suspense = Vec::new();
    let mut clearing_names = BTreeMap::new();
    for (order, p) in t.payouts.iter().enumerate() {
        let mut own = payout_entries(p, map, tz, &mut suspense, &mut clearing_names)?;
        if style == Style::PerPayout {
            own = vec![fold(own, p, tz)];
        }
        // A payout whose postings all cancel (a zero payout of nothing) books nothing.
        own.retain(|e| !e.postings.is_empty());
        entries.extend(own.into_iter().map(|e| (order, e)));
    }
    // By date, then payout order, then as built (stable).
    entries.sort_by(|a, b| a.1.date.cmp(&b.1.date).then(a.0.cmp(&b.0)));
    let entries: Vec<Entry> = entries.into_iter().map(|(_, e)| e).collect();

    let (_, end) = t.month.range(tz);
    let next_day = date_in(end, tz);
    let last_day = date_in(end - 1, tz);
    let mut clearing_at_end = BTreeMap::new();
    for (cur, name) in &clearing_names {
        let sum: i64 = entries
            .iter()
            .filter(|e| e.date < next_day)
            .flat_map(|e| &e.postings)
            .filter(|p| p.currency == *cur && &p.account == name)
            .map(|p| p.amount)
            .sum();
        clearing_at_end.insert(*cur, sum);
    }
    Ok(Journal {
        month: t.month,
        style,
        entries,
        suspense,
        clearing: clearing_names,
        clearing_at_end,
        next_day,
        last_day,
    })
}

/// The daily entries of one payout: its lines per day and category, then the payout.
fn payout_entries(
    p: &PayoutTieOut,
    map: &AccountMap,
    tz: &TimeZone,
    suspense: &mut Vec<SuspenseItem>,
    clearing_names: &mut BTreeMap<Currency, String>,
) -> Result<Vec<Entry>, JournalError> {
    let po = &p.payout;
    let cur = po.currency;
    let mut out = Vec::new();
    // Clearing per currency over this payout's line entries.
    let mut cleared: BTreeMap<Currency, i64> = BTreeMap::new();
    if let Some(it) = &p.itemisation {
        // (date, category order, category, currency) -> lines
        let mut groups: BTreeMap<(String, String, Currency), Vec<&BalanceTxnRow>> = BTreeMap::new();
        for l in &it.lines {
            groups
                .entry((
                    date_in(l.created, tz),
                    category_str(l).to_string(),
                    l.currency,
                ))
                .or_default()
                .push(l);
        }
        let mut keys: Vec<_> = groups.keys().cloned().collect();
        keys.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| compare(&a.1, &b.1))
                .then(a.2.cmp(&b.2))
        });
        for key in keys {
            let Some(lines) = groups.get(&key) else {
                continue;
            };
            let (date, cat, c) = key;
            let clearing = map.clearing(c)?;
            clearing_names.entry(c).or_insert_with(|| clearing.clone());
            let mut postings = Vec::new();
            let mut fees = Fees::default();
            let (mut net, mut fee, mut amount) = (0i64, 0i64, 0i64);
            for l in lines {
                let acct = map.line_account(&l.kind, &cat, c)?;
                post(&mut postings, &acct, c, -l.amount);
                amount = amount.saturating_add(l.amount);
                fee = fee.saturating_add(l.fee);
                net = net.saturating_add(l.net);
                fees.split(l, &cat, map)?;
            }
            postings.append(&mut fees.postings);
            post(&mut postings, &clearing, c, net);
            let off = amount - fee - net;
            let why = || format!("{cat} lines of {date} whose net is not amount minus fee");
            book_suspense(&mut postings, suspense, map, &po.id, c, off, why)?;
            postings.retain(|p| p.amount != 0);
            *cleared.entry(c).or_insert(0) += net;
            if postings.is_empty() {
                continue;
            }
            let n = lines.len();
            let mut narration = format!("{cat}: {n} line{}", if n == 1 { "" } else { "s" });
            if c != cur {
                narration.push_str(&format!(" in {c}, not the payout's currency"));
            }
            let mut notes: Vec<String> = Vec::new();
            if map.needs_review(&cat) {
                notes.push(format!(
                    "{cat}: Stripe fees billed apart may carry tax; split them by hand"
                ));
            }
            notes.extend(fees.notes());
            let review = (!notes.is_empty()).then(|| notes.join("; "));
            out.push(Entry {
                date,
                payout: po.id.clone(),
                narration,
                review,
                postings,
            });
        }
    }

    // The payout itself, from clearing to the bank (or, when it failed or was canceled,
    // to the returned-payouts account, where its funds come back from).
    let clearing = map.clearing(cur)?;
    clearing_names
        .entry(cur)
        .or_insert_with(|| clearing.clone());
    let failed = matches!(po.status, PayoutStatus::Failed | PayoutStatus::Canceled);
    let target = if failed {
        map.line_account("payout_failure", "payout_reversal", cur)?
    } else {
        map.bank(cur)?
    };
    let mut postings = Vec::new();
    post(&mut postings, &target, cur, po.amount);
    let mut review = None;
    if p.itemisation.is_some() {
        let mut currencies: Vec<Currency> = cleared.keys().copied().collect();
        if !currencies.contains(&cur) {
            currencies.push(cur);
        }
        for c in currencies {
            let sum = cleared.get(&c).copied().unwrap_or(0);
            post(&mut postings, &map.clearing(c)?, c, -sum);
            let off = if c == cur { sum - po.amount } else { sum };
            let why = || {
                if c == cur {
                    "the lines' net differs from the payout amount".to_string()
                } else {
                    format!("lines in {c}, not the payout's currency")
                }
            };
            book_suspense(&mut postings, suspense, map, &po.id, c, off, why)?;
        }
        if p.verdict == Verdict::Difference {
            review = Some("the payout does not tie out: see the suspense account".to_string());
        }
    } else {
        post(&mut postings, &clearing, cur, -po.amount);
        review = Some(match p.verdict {
            Verdict::InProgress => {
                "Stripe is still reconciling this payout: its lines are not booked yet".to_string()
            }
            _ => "Stripe cannot itemise this payout: book the activity it paid out by hand"
                .to_string(),
        });
    }
    postings.retain(|p| p.amount != 0);
    let what = if failed {
        format!("payout {}, returned to Stripe", po.status.as_str())
    } else if po.amount < 0 {
        "payout debited from the bank".to_string()
    } else {
        "payout to the bank".to_string()
    };
    if !postings.is_empty() {
        out.push(Entry {
            date: date_in(po.arrival_date, tz),
            payout: po.id.clone(),
            narration: what,
            review,
            postings,
        });
    }
    Ok(out)
}

/// The fee postings of one day-and-category group, split by Stripe's `fee_details`, and
/// what about them needs a person.
#[derive(Default)]
struct Fees {
    postings: Vec<Posting>,
    /// Parts of a review kind (tax): kind -> (lines, amount).
    flagged: BTreeMap<String, (usize, i64)>,
    /// Fee left over by details that do not add up to it: (lines, amount).
    unitemised: (usize, i64),
    currency: Option<Currency>,
}

impl Fees {
    /// Books line `l`'s fee: each `fee_details` part to its kind's account; without
    /// details, the whole fee to the category's fee account. A part of a review kind
    /// (tax), or details that do not add up to the fee (the rest goes to the category's
    /// fee account), flag the entry: the split is a person's, never a guess.
    fn split(&mut self, l: &BalanceTxnRow, cat: &str, map: &AccountMap) -> Result<(), Unmapped> {
        let c = l.currency;
        self.currency = Some(c);
        let mut rest = l.fee;
        for d in l.fee_details.iter().filter(|d| d.currency == c) {
            post(
                &mut self.postings,
                &map.fee_kind_account(&d.kind, cat, c)?,
                c,
                d.amount,
            );
            rest = rest.saturating_sub(d.amount);
            if map.fee_kind_needs_review(&d.kind) {
                let f = self.flagged.entry(d.kind.clone()).or_insert((0, 0));
                f.0 += 1;
                f.1 = f.1.saturating_add(d.amount);
            }
        }
        if rest != 0 {
            post(&mut self.postings, &map.fee_account(cat, c)?, c, rest);
            if !l.fee_details.is_empty() {
                self.unitemised.0 += 1;
                self.unitemised.1 = self.unitemised.1.saturating_add(rest);
            }
        }
        Ok(())
    }

    /// Why a person must look at these fees, if they must.
    fn notes(&self) -> Vec<String> {
        let Some(c) = self.currency else {
            return Vec::new();
        };
        let lines = |n: usize| format!("{n} line{}", if n == 1 { "" } else { "s" });
        let mut v: Vec<String> = self
            .flagged
            .iter()
            .map(|(kind, (n, amount))| {
                format!(
                    "Stripe fees carry {kind} ({} {c} on {}): check the tax split",
                    format_major(*amount, c),
                    lines(*n)
                )
            })
            .collect();
        let (n, amount) = self.unitemised;
        if n > 0 {
            v.push(format!(
                "fee_details leave {} {c} of the fees of {} unitemised: split it by hand",
                format_major(amount, c),
                lines(n)
            ));
        }
        v
    }
}

/// Books `off` (when not zero) to the suspense account and records why.
fn book_suspense(
    postings: &mut Vec<Posting>,
    suspense: &mut Vec<SuspenseItem>,
    map: &AccountMap,
    payout: &str,
    currency: Currency,
    off: i64,
    why: impl FnOnce() -> String,
) -> Result<(), JournalError> {
    if off != 0 {
        post(postings, &map.suspense(currency)?, currency, off);
        suspense.push(SuspenseItem {
            payout: payout.to_string(),
            currency,
            amount: off,
            reason: why(),
        });
    }
    Ok(())
}

/// One payout's entries as one, dated its arrival: clearing postings that cancel drop out.
fn fold(entries: Vec<Entry>, p: &PayoutTieOut, tz: &TimeZone) -> Entry {
    let po = &p.payout;
    let mut postings = Vec::new();
    let mut review: Option<String> = None;
    let mut lines = 0usize;
    for e in &entries {
        for ps in &e.postings {
            post(&mut postings, &ps.account, ps.currency, ps.amount);
        }
        if review.is_none() {
            review.clone_from(&e.review);
        }
        lines += 1;
    }
    // Clearing postings cancel over an itemised payout's entries.
    let mut keep: Vec<Posting> = postings.into_iter().filter(|p| p.amount != 0).collect();
    // The deposit first, then as met.
    if let Some(i) = keep
        .iter()
        .position(|ps| ps.currency == po.currency && ps.amount == po.amount)
    {
        let d = keep.remove(i);
        keep.insert(0, d);
    }
    let n = entries.len().saturating_sub(1);
    Entry {
        date: date_in(po.arrival_date, tz),
        payout: po.id.clone(),
        narration: if p.itemisation.is_some() {
            format!(
                "payout summary: {n} day-and-category group{}",
                if n == 1 { "" } else { "s" }
            )
        } else {
            "payout to the bank".to_string()
        },
        review: review.filter(|_| lines > 0),
        postings: keep,
    }
}
