//! What changed on the dunning worklist since an earlier run: each run keeps a small
//! [`RunRecord`] of its worklist (invoice, amount remaining, currency, action, retries left,
//! decline, invoice status), and [`diff`] compares two of them. Pure: the records and the
//! statuses of the invoices that left the list come in, the [`Changes`] go out. Storing
//! and finding records is the application's job (`app::run_history`).
//!
//! Categories, one line per invoice and category (an invoice whose action changed *and*
//! lost its last retry has two lines):
//! - `new`: on the list now, not before;
//! - `recovered`: left the list and is `paid` (the amount is what was outstanding before);
//! - `written_off`: left the list and is `uncollectible`;
//! - `voided`: left the list and is `void`;
//! - `left`: left the list for another reason (still open but no longer failing, e.g. a
//!   payment in flight, or a status tieout could not learn); shown, never hidden;
//! - `no_retry_left`: on both lists, Stripe had an automatic retry left and has none now;
//! - `action_changed`: on both lists with a different action;
//! - `amount_changed`: on both lists with a different amount remaining (a partial payment).

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::domain::dunning::Worklist;
use crate::money::{Currency, MoneyError, Totals};

/// The version of the record's shape; a record of another version is skipped, not misread.
pub const RECORD_VERSION: u32 = 1;

/// One invoice of a recorded worklist. Text fields are kept as Stripe and tieout spelled
/// them at the time, so a record written by another version still compares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordRow {
    pub invoice_id: String,
    pub currency: String,
    pub amount_remaining: i64,
    pub action: String,
    pub retries_left: bool,
    #[serde(default)]
    pub decline: String,
    #[serde(default)]
    pub status: String,
}

/// The worklist of one run, as kept in the data folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRecord {
    pub version: u32,
    pub account_id: String,
    pub mode: String,
    /// The run's clock (unix seconds).
    pub taken_at: i64,
    /// Where the run read from (`live`, `cache`, `demo`).
    #[serde(default)]
    pub origin: String,
    pub rows: Vec<RecordRow>,
}

impl RunRecord {
    /// The record of worklist `w` (its rows are all `open` invoices).
    pub fn of(w: &Worklist, account_id: &str, mode: &str, origin: &str) -> RunRecord {
        let rows = w
            .rows
            .iter()
            .map(|r| RecordRow {
                invoice_id: r.invoice_id.clone(),
                currency: r.currency.as_str().to_string(),
                amount_remaining: r.amount_remaining,
                action: r.action().as_str().to_string(),
                retries_left: r.retries_left,
                decline: r.decline_label(),
                status: "open".to_string(),
            })
            .collect();
        RunRecord {
            version: RECORD_VERSION,
            account_id: account_id.to_string(),
            mode: mode.to_string(),
            taken_at: w.now,
            origin: origin.to_string(),
            rows,
        }
    }

    /// Invoices of `self` that are not in `now`: the ones whose status must be looked up.
    pub fn departed(&self, now: &RunRecord) -> Vec<String> {
        let present: std::collections::HashSet<&str> =
            now.rows.iter().map(|r| r.invoice_id.as_str()).collect();
        self.rows
            .iter()
            .filter(|r| !present.contains(r.invoice_id.as_str()))
            .map(|r| r.invoice_id.clone())
            .collect()
    }
}

/// The kind of one change, in the order the reports list them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChangeKind {
    New,
    Recovered,
    WrittenOff,
    Voided,
    Left,
    NoRetryLeft,
    ActionChanged,
    AmountChanged,
}

impl ChangeKind {
    pub const ALL: [ChangeKind; 8] = [
        ChangeKind::New,
        ChangeKind::Recovered,
        ChangeKind::WrittenOff,
        ChangeKind::Voided,
        ChangeKind::Left,
        ChangeKind::NoRetryLeft,
        ChangeKind::ActionChanged,
        ChangeKind::AmountChanged,
    ];

    /// The machine form (CSV `change`, JSON keys).
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::New => "new",
            ChangeKind::Recovered => "recovered",
            ChangeKind::WrittenOff => "written_off",
            ChangeKind::Voided => "voided",
            ChangeKind::Left => "left",
            ChangeKind::NoRetryLeft => "no_retry_left",
            ChangeKind::ActionChanged => "action_changed",
            ChangeKind::AmountChanged => "amount_changed",
        }
    }

    /// As people read it.
    pub fn label(self) -> &'static str {
        match self {
            ChangeKind::New => "new on the list",
            ChangeKind::Recovered => "recovered (paid)",
            ChangeKind::WrittenOff => "written off (uncollectible)",
            ChangeKind::Voided => "voided",
            ChangeKind::Left => "left the list otherwise",
            ChangeKind::NoRetryLeft => "newly without automatic retry",
            ChangeKind::ActionChanged => "action changed",
            ChangeKind::AmountChanged => "amount changed",
        }
    }
}

/// One change of one invoice. `*_before` are empty for `new`, `*_now` for the ones that
/// left the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub invoice_id: String,
    pub kind: ChangeKind,
    pub currency: String,
    pub amount_before: Option<i64>,
    pub amount_now: Option<i64>,
    pub action_before: Option<String>,
    pub action_now: Option<String>,
    pub retries_left_before: Option<bool>,
    pub retries_left_now: Option<bool>,
    /// For `left`: the invoice's status now (`open`, or `unknown` when it could not be
    /// learned).
    pub status_now: Option<String>,
}

impl Change {
    /// The amount the change is about: before for departures, now otherwise.
    pub fn amount(&self) -> i64 {
        self.amount_now.or(self.amount_before).unwrap_or(0)
    }
}

/// Everything that changed between an earlier record and this run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changes {
    /// When the earlier run was taken (unix seconds).
    pub since: i64,
    /// Sorted by kind, then currency, then amount (largest first), then invoice id.
    pub changes: Vec<Change>,
}

impl Changes {
    pub fn of_kind(&self, kind: ChangeKind) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(move |c| c.kind == kind)
    }
    pub fn count(&self, kind: ChangeKind) -> usize {
        self.of_kind(kind).count()
    }
    /// The amounts of one kind per currency (currencies tieout cannot parse are left out
    /// of the totals; their lines are still listed).
    pub fn totals(&self, kind: ChangeKind) -> Result<Totals, MoneyError> {
        let mut t = Totals::new();
        for c in self.of_kind(kind) {
            if let Ok(cur) = Currency::parse(&c.currency) {
                t.add_minor(c.amount(), cur)?;
            }
        }
        Ok(t)
    }
    /// The invoice ids with any change that concerns a row still on the list.
    pub fn marked(&self) -> HashMap<&str, ChangeKind> {
        let mut m: HashMap<&str, ChangeKind> = HashMap::new();
        for c in self.changes.iter().filter(|c| c.amount_now.is_some()) {
            m.entry(c.invoice_id.as_str())
                .and_modify(|k| *k = (*k).min(c.kind))
                .or_insert(c.kind);
        }
        m
    }
}

/// What tieout learned of an invoice that left the list: its status now (`paid`, `void`,
/// `uncollectible`, `open`, ...), or nothing when it could not be read.
pub type Departures = HashMap<String, String>;

/// Compares the earlier record `before` with this run's `now`. `departed` gives the
/// current status of the invoices of `before` that are not in `now`.
pub fn diff(before: &RunRecord, now: &RunRecord, departed: &Departures) -> Changes {
    let before_ix: BTreeMap<&str, &RecordRow> = before
        .rows
        .iter()
        .map(|r| (r.invoice_id.as_str(), r))
        .collect();
    let now_ix: BTreeMap<&str, &RecordRow> = now
        .rows
        .iter()
        .map(|r| (r.invoice_id.as_str(), r))
        .collect();
    let mut out = Vec::new();
    for (id, n) in &now_ix {
        match before_ix.get(id) {
            None => out.push(change(id, ChangeKind::New, None, Some(n), None)),
            Some(b) => {
                if b.retries_left && !n.retries_left {
                    out.push(change(id, ChangeKind::NoRetryLeft, Some(b), Some(n), None));
                }
                if b.action != n.action {
                    out.push(change(
                        id,
                        ChangeKind::ActionChanged,
                        Some(b),
                        Some(n),
                        None,
                    ));
                }
                if b.amount_remaining != n.amount_remaining {
                    out.push(change(
                        id,
                        ChangeKind::AmountChanged,
                        Some(b),
                        Some(n),
                        None,
                    ));
                }
            }
        }
    }
    for (id, b) in &before_ix {
        if now_ix.contains_key(id) {
            continue;
        }
        let status = departed.get(*id).map(String::as_str);
        let kind = match status {
            Some("paid") => ChangeKind::Recovered,
            Some("uncollectible") => ChangeKind::WrittenOff,
            Some("void") => ChangeKind::Voided,
            _ => ChangeKind::Left,
        };
        let status_now =
            (kind == ChangeKind::Left).then(|| status.unwrap_or("unknown").to_string());
        out.push(change(id, kind, Some(b), None, status_now));
    }
    out.sort_by(|a, b| {
        a.kind
            .cmp(&b.kind)
            .then_with(|| a.currency.cmp(&b.currency))
            .then_with(|| b.amount().cmp(&a.amount()))
            .then_with(|| a.invoice_id.cmp(&b.invoice_id))
    });
    Changes {
        since: before.taken_at,
        changes: out,
    }
}

fn change(
    id: &str,
    kind: ChangeKind,
    before: Option<&RecordRow>,
    now: Option<&RecordRow>,
    status_now: Option<String>,
) -> Change {
    let currency = now
        .or(before)
        .map(|r| r.currency.clone())
        .unwrap_or_default();
    Change {
        invoice_id: id.to_string(),
        kind,
        currency,
        amount_before: before.map(|r| r.amount_remaining),
        amount_now: now.map(|r| r.amount_remaining),
        action_before: before.map(|r| r.action.clone()),
        action_now: now.map(|r| r.action.clone()),
        retries_left_before: before.map(|r| r.retries_left),
        retries_left_now: now.map(|r| r.retries_left),
        status_now,
    }
}

/// Which earlier record a run compares with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Since {
    /// The latest record taken before this run.
    Last,
    /// The latest record taken on or before this date (its end, in the run's zone, as
    /// unix seconds: records taken before this instant qualify).
    Until(i64),
}

/// What a run with `--since` found: a comparison, or no earlier record to compare with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SinceOutcome {
    Compared(Changes),
    NoEarlierRun { asked: Since },
}

impl SinceOutcome {
    pub fn changes(&self) -> Option<&Changes> {
        match self {
            SinceOutcome::Compared(c) => Some(c),
            SinceOutcome::NoEarlierRun { .. } => None,
        }
    }
}

/// Picks the record `since` names among `taken` (the times of the kept records), for a
/// run at `now`: the latest strictly before `now` (and, for a date, before its end).
pub fn pick(taken: &[i64], since: Since, now: i64) -> Option<i64> {
    let limit = match since {
        Since::Last => now,
        Since::Until(end) => end.min(now),
    };
    taken.iter().copied().filter(|t| *t < limit).max()
}

#[cfg(test)]
#[path = "since_tests.rs"]
mod tests;
