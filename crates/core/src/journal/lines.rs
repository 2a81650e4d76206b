//! A payout's balance transactions as entries into the clearing account: grouped per day
//! and reporting category (the amount to the category's account, each part of Stripe's
//! fee to its fee account, the net to clearing), the fee split by `fee_details`, and what
//! does not add up booked to suspense. Used for the lines a payout of the month pays out
//! and for the lines a later payout pays out that the month accrues.
//!
//! A line is dated its `created` day in the zone, never after its payout's arrival, and
//! never before the month: a line created before the month was the previous month's to
//! book (accrued there, reversed on this month's first day), so this month books it on
//! its first day and the two months' journals together book it once.

use std::collections::BTreeMap;

use jiff::tz::TimeZone;

use super::accounts::{AccountMap, Unmapped};
use super::model::{Entry, EntryKind, JournalError, Posting, SuspenseItem};
use crate::domain::tieout::PayoutTieOut;
use crate::domain::tieout::category::{category_str, compare};
use crate::model::rows::BalanceTxnRow;
use crate::money::{Currency, format_major};
use crate::time::{Month, date_in};

/// What the month's journal is cut by: its map, zone and days.
pub(super) struct MonthCut<'a> {
    pub map: &'a AccountMap,
    pub tz: &'a TimeZone,
    pub month: Month,
    /// `YYYY-MM-DD` of the month's first and last day and the day after it.
    pub first_day: String,
    pub last_day: String,
    pub next_day: String,
    /// The clearing account's name per currency used so far.
    pub clearing: BTreeMap<Currency, String>,
}

impl MonthCut<'_> {
    /// The clearing account of `c`, noted as used.
    pub fn clearing(&mut self, c: Currency) -> Result<String, JournalError> {
        let name = self.map.clearing(c)?;
        self.clearing.entry(c).or_insert_with(|| name.clone());
        Ok(name)
    }
}

/// Whether lines are booked (their payout arrives in the month) or accrued (it arrives
/// later, and the accrual is reversed on the next month's first day).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Booking {
    Booked,
    Accrued,
}

/// Adds `amount` to the posting of `account`/`currency`, keeping first-seen order.
pub(super) fn post(postings: &mut Vec<Posting>, account: &str, currency: Currency, amount: i64) {
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

/// The entries of `lines` of payout `p`, one per day, category and currency; adds each
/// group's net to `cleared` (per currency). Differences go to suspense and to `suspense`.
pub(super) fn line_entries(
    p: &PayoutTieOut,
    lines: &[&BalanceTxnRow],
    how: Booking,
    cut: &mut MonthCut<'_>,
    suspense: &mut Vec<SuspenseItem>,
    cleared: &mut BTreeMap<Currency, i64>,
) -> Result<Vec<Entry>, JournalError> {
    let po = &p.payout;
    let arrival = date_in(po.arrival_date, cut.tz);
    // (date, category, currency, created before the month) -> lines
    type Key = (String, String, Currency, bool);
    let mut groups: BTreeMap<Key, Vec<&BalanceTxnRow>> = BTreeMap::new();
    for l in lines {
        let created = date_in(l.created, cut.tz).min(arrival.clone());
        let early = created < cut.first_day;
        groups
            .entry((
                created.max(cut.first_day.clone()),
                category_str(l).to_string(),
                l.currency,
                early,
            ))
            .or_default()
            .push(l);
    }
    let mut keys: Vec<Key> = groups.keys().cloned().collect();
    keys.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then(b.3.cmp(&a.3))
            .then_with(|| compare(&a.1, &b.1))
            .then(a.2.cmp(&b.2))
    });
    let mut out = Vec::new();
    for key in keys {
        let Some(lines) = groups.get(&key) else {
            continue;
        };
        let (date, cat, c, early) = key;
        let clearing = cut.clearing(c)?;
        let map = cut.map;
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
        // An accrual's difference is its payout's to report, in the month it arrives.
        let mut own = Vec::new();
        let to = if how == Booking::Accrued {
            &mut own
        } else {
            &mut *suspense
        };
        book_suspense(&mut postings, to, map, &po.id, c, off, why)?;
        postings.retain(|p| p.amount != 0);
        *cleared.entry(c).or_insert(0) += net;
        if postings.is_empty() {
            continue;
        }
        let n = lines.len();
        let mut narration = format!("{cat}: {n} line{}", if n == 1 { "" } else { "s" });
        if early {
            narration.push_str(&format!(" created before {}", cut.month));
        }
        if c != po.currency {
            narration.push_str(&format!(" in {c}, not the payout's currency"));
        }
        match how {
            Booking::Accrued => {
                narration = format!("accrued: {narration}, paid out on {arrival}");
            }
            Booking::Booked if early => {
                let them = if n == 1 { "it" } else { "them" };
                narration.push_str(&format!(
                    " (the {} journal accrues {them})",
                    cut.month.prev()
                ));
            }
            Booking::Booked => {}
        }
        let mut notes: Vec<String> = Vec::new();
        if map.needs_review(&cat) {
            notes.push(format!(
                "{cat}: Stripe fees billed apart may carry tax; split them by hand"
            ));
        }
        notes.extend(fees.notes());
        if !own.is_empty() {
            notes.push("a line's net is not amount minus fee: the rest is in suspense until its payout's journal books it".to_string());
        }
        let review = (!notes.is_empty()).then(|| notes.join("; "));
        out.push(Entry {
            date,
            payout: po.id.clone(),
            kind: match how {
                Booking::Booked => EntryKind::Lines,
                Booking::Accrued => EntryKind::Accrual,
            },
            lines: lines.iter().map(|l| l.id.to_string()).collect(),
            narration,
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
                let f = self.flagged.entry(d.kind.to_string()).or_insert((0, 0));
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
pub(super) fn book_suspense(
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
