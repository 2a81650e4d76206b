//! The fee statement: what Stripe took in the month, per currency. The fees inside the
//! month's lines by their `fee_details` type (a line whose fee Stripe did not itemise, or
//! a cache that predates the itemisation, counts as `unitemised`), and the fees Stripe
//! bills as lines of their own (reporting category `fee`: Billing, Tax, Radar, Connect),
//! by the line's `type`, as the positive amount taken.

use std::collections::BTreeMap;

use jiff::tz::TimeZone;
use serde::Serialize;

use crate::model::rows::BalanceTxnRow;
use crate::money::Currency;
use crate::time::Month;

/// Where a fee was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FeeSource {
    /// Inside a line's `fee` (`fee_details`).
    LineFee,
    /// A line of its own (reporting category `fee`).
    FeeLine,
}

impl FeeSource {
    pub fn as_str(self) -> &'static str {
        match self {
            FeeSource::LineFee => "line_fee",
            FeeSource::FeeLine => "fee_line",
        }
    }
}

/// One (currency, source, fee type) of the statement (minor units, positive = taken).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FeeRow {
    pub currency: Currency,
    pub source: FeeSource,
    pub fee_type: String,
    pub count: u64,
    pub amount: i128,
}

/// The month's fee statement, sorted by currency, source and type.
pub fn fee_statement(lines: &[BalanceTxnRow], month: Month, tz: &TimeZone) -> Vec<FeeRow> {
    let (start, end) = month.range(tz);
    let mut by: BTreeMap<(Currency, FeeSource, String), (u64, i128)> = BTreeMap::new();
    let mut add = |c: Currency, s: FeeSource, t: &str, amount: i128| {
        let e = by.entry((c, s, t.to_owned())).or_default();
        e.0 += 1;
        e.1 += amount;
    };
    for l in lines
        .iter()
        .filter(|l| l.created >= start && l.created < end)
    {
        if l.reporting_category.as_str() == "fee" {
            add(
                l.currency,
                FeeSource::FeeLine,
                l.kind.as_str(),
                -i128::from(l.net),
            );
            continue;
        }
        let parts = l.fee_details.as_slice();
        let itemised: i128 = parts.iter().map(|p| i128::from(p.amount)).sum();
        for p in parts {
            add(
                p.currency,
                FeeSource::LineFee,
                p.kind.as_str(),
                i128::from(p.amount),
            );
        }
        let rest = i128::from(l.fee) - itemised;
        if rest != 0 {
            add(l.currency, FeeSource::LineFee, "unitemised", rest);
        }
    }
    by.into_iter()
        .map(|((currency, source, fee_type), (count, amount))| FeeRow {
            currency,
            source,
            fee_type,
            count,
            amount,
        })
        .collect()
}

/// The statement's total per currency.
pub fn fee_totals(rows: &[FeeRow]) -> BTreeMap<Currency, i128> {
    let mut t = BTreeMap::new();
    for r in rows {
        *t.entry(r.currency).or_insert(0) += r.amount;
    }
    t
}
