//! Late changes to a closed month (`tieout close --verify DIR --against-stripe`): what a
//! sealed close packet says of its month, read back from its own files, set against the
//! account as it is now. A payout whose status changed, a trace id that arrived, a refund
//! or dispute of one of the month's charges made after the packet was sealed, a figure of
//! the balance roll-forward that moved: each is a row of `drift.csv`, and the ones that
//! move money get an adjusting entry proposed for the open month. Pure: bytes and rows in,
//! rows and bytes out.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::domain::balance::Rollforward;
use crate::journal::AccountMap;
use crate::model::AccountData;
use crate::model::rows::PayoutRow;
use crate::money::{Currency, Money, format_major_i128, parse_major};
use crate::report::fields::{self, Field, Get};
use crate::time::{Month, parse_instant};

/// What the packet sealed: its month, when its data was read, its payouts' status and
/// trace id, the charges its payouts paid out, and its roll-forward's figures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sealed {
    pub month: Month,
    pub read_at: i64,
    pub payouts: BTreeMap<String, SealedPayout>,
    /// The month's charges: the sources of the charge lines its payouts paid out.
    pub charges: BTreeSet<String>,
    /// currency -> figure name -> minor units, as `balance-rollforward.csv` wrote them.
    pub rollforward: BTreeMap<Currency, BTreeMap<String, i128>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealedPayout {
    pub status: String,
    pub trace_id: Option<String>,
    pub amount: i64,
    pub currency: Currency,
}

#[derive(Deserialize)]
struct ManifestPart {
    month: String,
    data_read_at_utc: String,
}

#[derive(Deserialize)]
struct ReconciliationPart {
    payouts: Vec<PayoutPart>,
}

#[derive(Deserialize)]
struct PayoutPart {
    id: String,
    status: String,
    trace_id: Option<String>,
    currency: String,
    amount: i64,
    #[serde(default)]
    lines: Vec<LinePart>,
}

#[derive(Deserialize)]
struct LinePart {
    reporting_category: String,
    source_id: Option<String>,
}

impl Sealed {
    /// Reads the packet's `MANIFEST.json`, `reconciliation.json` and
    /// `balance-rollforward.csv`; an error names the file and what is wrong with it.
    pub fn parse(
        manifest: &[u8],
        reconciliation: &[u8],
        rollforward: &[u8],
    ) -> Result<Self, String> {
        let m: ManifestPart = serde_json::from_slice(manifest)
            .map_err(|e| format!("MANIFEST.json cannot be read: {e}"))?;
        let month: Month = m
            .month
            .parse()
            .map_err(|_| format!("MANIFEST.json names no month: {:?}", m.month))?;
        let read_at = parse_instant(&m.data_read_at_utc)
            .map_err(|e| format!("MANIFEST.json's data_read_at_utc: {e}"))?;
        let r: ReconciliationPart = serde_json::from_slice(reconciliation)
            .map_err(|e| format!("reconciliation.json cannot be read: {e}"))?;
        let mut payouts = BTreeMap::new();
        let mut charges = BTreeSet::new();
        for p in r.payouts {
            let currency = Currency::parse(&p.currency)
                .map_err(|e| format!("reconciliation.json, payout {}: {e}", p.id))?;
            charges.extend(
                p.lines
                    .iter()
                    .filter(|l| l.reporting_category == "charge")
                    .filter_map(|l| l.source_id.clone()),
            );
            payouts.insert(
                p.id,
                SealedPayout {
                    status: p.status,
                    trace_id: p.trace_id.filter(|t| !t.is_empty()),
                    amount: p.amount,
                    currency,
                },
            );
        }
        Ok(Sealed {
            month,
            read_at,
            payouts,
            charges,
            rollforward: parse_rollforward(rollforward)?,
        })
    }
}

fn parse_rollforward(bytes: &[u8]) -> Result<BTreeMap<Currency, BTreeMap<String, i128>>, String> {
    let bad = |e: String| format!("balance-rollforward.csv cannot be read: {e}");
    let mut reader = csv::Reader::from_reader(bytes);
    let headers = reader.headers().map_err(|e| bad(e.to_string()))?.clone();
    let mut out = BTreeMap::new();
    for record in reader.records() {
        let record = record.map_err(|e| bad(e.to_string()))?;
        let cell = |name: &str| {
            headers
                .iter()
                .position(|h| h == name)
                .and_then(|i| record.get(i))
                .unwrap_or_default()
        };
        let currency = Currency::parse(cell("currency")).map_err(|e| bad(e.to_string()))?;
        let mut figures = BTreeMap::new();
        for name in crate::domain::balance::rollforward::FIGURE_NAMES {
            let minor = parse_major(cell(name), currency)
                .map_err(|e| bad(format!("{name} of {currency}: {e}")))?;
            figures.insert(name.to_string(), i128::from(minor));
        }
        out.insert(currency, figures);
    }
    Ok(out)
}

/// One late change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriftRow {
    pub object_id: String,
    /// `payout`, `refund`, `dispute`, `rollforward`.
    pub kind: &'static str,
    pub what_changed: String,
    pub sealed_value: String,
    pub now_value: String,
    /// The money the change moves (minor units), when it moves any.
    pub amount: Option<i128>,
    pub currency: Currency,
    /// The adjusting entry it needs, when it needs one.
    pub entry: Option<Adjustment>,
}

/// An adjusting entry: `amount` into `debit`, out of `credit`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Adjustment {
    pub narration: String,
    pub debit: String,
    pub credit: String,
    pub amount: i128,
}

/// `drift.csv`'s row.
pub const DRIFT_FIELDS: &[Field<DriftRow>] = &[
    Field::new("object_id", "Object", Get::Str(|r| Some(&r.object_id))),
    Field::new("kind", "Kind", Get::Str(|r| Some(r.kind))),
    Field::new(
        "what_changed",
        "What changed",
        Get::Str(|r| Some(&r.what_changed)),
    ),
    Field::new(
        "sealed_value",
        "Sealed",
        Get::Str(|r| Some(&r.sealed_value)),
    ),
    Field::new("now_value", "Now", Get::Str(|r| Some(&r.now_value))),
    Field::new(
        "amount",
        "Amount",
        Get::Text(|r| r.amount.map(|a| format_major_i128(a, r.currency))),
    ),
    Field::new(
        "currency",
        "Currency",
        Get::Str(|r| Some(r.currency.as_str())),
    ),
];

/// The late changes of the sealed month in `now`, the account as read again, with the
/// month's roll-forward made again from it. Entries use `map`'s accounts.
pub fn drift(
    sealed: &Sealed,
    now: &AccountData,
    rollforward_now: &[Rollforward],
    map: &AccountMap,
) -> Vec<DriftRow> {
    let mut rows = payout_changes(sealed, &now.payouts, map);
    rows.extend(late_refunds_and_disputes(sealed, now, map));
    rows.extend(moved_figures(sealed, rollforward_now));
    rows
}

fn payout_changes(sealed: &Sealed, payouts: &[PayoutRow], map: &AccountMap) -> Vec<DriftRow> {
    let mut rows = Vec::new();
    for p in payouts {
        let Some(was) = sealed.payouts.get(p.id.as_str()) else {
            continue;
        };
        let status = p.status.as_str();
        if status != was.status {
            let failed = matches!(status, "failed" | "canceled");
            let entry = failed
                .then(|| {
                    Some(Adjustment {
                        narration: format!(
                            "payout {} {status} after {} was closed: the money is back in the Stripe balance",
                            p.id, sealed.month
                        ),
                        debit: map.clearing(p.currency).ok()?,
                        credit: map.bank(p.currency).ok()?,
                        amount: i128::from(p.amount),
                    })
                })
                .flatten();
            rows.push(DriftRow {
                object_id: p.id.clone(),
                kind: "payout",
                what_changed: "status".to_string(),
                sealed_value: was.status.clone(),
                now_value: status.to_string(),
                amount: failed.then_some(i128::from(p.amount)),
                currency: p.currency,
                entry,
            });
        }
        let trace = p.trace_id.clone().filter(|t| !t.is_empty());
        if trace != was.trace_id {
            rows.push(DriftRow {
                object_id: p.id.clone(),
                kind: "payout",
                what_changed: "trace_id".to_string(),
                sealed_value: was.trace_id.clone().unwrap_or_default(),
                now_value: trace.unwrap_or_default(),
                amount: None,
                currency: p.currency,
                entry: None,
            });
        }
    }
    rows
}

/// Refunds and disputes of the month's charges made after the packet's data was read.
fn late_refunds_and_disputes(
    sealed: &Sealed,
    now: &AccountData,
    map: &AccountMap,
) -> Vec<DriftRow> {
    let of_month = |charge: &Option<String>| {
        charge
            .as_deref()
            .is_some_and(|c| sealed.charges.contains(c))
    };
    let mut rows = Vec::new();
    for r in now
        .refunds
        .iter()
        .filter(|r| r.created > sealed.read_at && of_month(&r.charge))
    {
        rows.push(late_row(
            &r.id,
            "refund",
            r.charge.as_deref().unwrap_or_default(),
            r.status.as_str(),
            Money::new(r.amount, r.currency),
            map.line_account("refund", "refund", r.currency).ok(),
            sealed.month,
            map,
        ));
    }
    for d in now
        .disputes
        .iter()
        .filter(|d| d.created > sealed.read_at && of_month(&d.charge))
    {
        rows.push(late_row(
            &d.id,
            "dispute",
            d.charge.as_deref().unwrap_or_default(),
            d.status.as_str(),
            Money::new(d.amount, d.currency),
            map.line_account("dispute", "dispute", d.currency).ok(),
            sealed.month,
            map,
        ));
    }
    rows
}

#[allow(clippy::too_many_arguments)]
fn late_row(
    id: &str,
    kind: &'static str,
    charge: &str,
    status: &str,
    money: Money,
    account: Option<String>,
    month: Month,
    map: &AccountMap,
) -> DriftRow {
    let entry = account.and_then(|debit| {
        Some(Adjustment {
            narration: format!(
                "{kind} {id} of {charge}, a charge of {month}, made after it was closed"
            ),
            debit,
            credit: map.clearing(money.currency).ok()?,
            amount: i128::from(money.minor),
        })
    });
    DriftRow {
        object_id: id.to_string(),
        kind,
        what_changed: format!("new {kind} of {charge}"),
        sealed_value: String::new(),
        now_value: status.to_string(),
        amount: Some(-i128::from(money.minor)),
        currency: money.currency,
        entry,
    }
}

fn moved_figures(sealed: &Sealed, now: &[Rollforward]) -> Vec<DriftRow> {
    let mut rows = Vec::new();
    for rf in now {
        let Some(was) = sealed.rollforward.get(&rf.currency) else {
            continue;
        };
        for (name, now_value) in rf.figures() {
            let Some(&sealed_value) = was.get(name) else {
                continue;
            };
            if sealed_value != now_value {
                let c = rf.currency;
                rows.push(DriftRow {
                    object_id: format!("balance-rollforward:{}", c.as_str()),
                    kind: "rollforward",
                    what_changed: name.to_string(),
                    sealed_value: format_major_i128(sealed_value, c),
                    now_value: format_major_i128(now_value, c),
                    amount: Some(now_value - sealed_value),
                    currency: c,
                    entry: None,
                });
            }
        }
    }
    rows
}

/// `drift.csv`.
pub fn drift_csv(rows: &[DriftRow]) -> Vec<u8> {
    fields::csv(DRIFT_FIELDS, rows)
}

/// The proposed adjusting entries, dated `date` (`YYYY-MM-DD`, in the open month), as
/// a beancount file (with the `open` directives it needs) and an hledger journal.
pub fn entries(rows: &[DriftRow], date: &str, month: Month) -> (String, String) {
    let mut bean = format!(
        ";; tieout: adjusting entries for late changes to {month}, proposed for the open month; review before booking.\n"
    );
    let mut led = bean.replacen(";;", ";", 1);
    let mut accounts: BTreeSet<&str> = BTreeSet::new();
    for r in rows {
        if let Some(e) = &r.entry {
            accounts.insert(&e.debit);
            accounts.insert(&e.credit);
        }
    }
    for a in &accounts {
        bean.push_str(&format!("{date} open {a}\n"));
    }
    for r in rows {
        let Some(e) = &r.entry else { continue };
        let c = r.currency;
        let amount = format_major_i128(e.amount, c);
        let minus = format_major_i128(-e.amount, c);
        let narration = e.narration.replace('"', "'");
        bean.push_str(&format!(
            "\n{date} ! \"tieout\" \"{narration}\"\n  {}  {amount} {up}\n  {}  {minus} {up}\n",
            e.debit,
            e.credit,
            up = c.upper()
        ));
        led.push_str(&format!(
            "\n{date} ! {narration}\n    {}  {amount} {up}\n    {}  {minus} {up}\n",
            e.debit,
            e.credit,
            up = c.upper()
        ));
    }
    (bean, led)
}
