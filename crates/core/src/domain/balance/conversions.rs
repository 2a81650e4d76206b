//! The month's conversions: the lines settled in a currency other than the one the
//! customer paid in (Stripe set `exchange_rate`), with what was presented and what was
//! settled, and their sum per currency pair. The presented amount and currency are the
//! line's source's (the charge, or the refund), when that object was read; the rate is
//! Stripe's, exact.

use std::collections::{BTreeMap, HashMap};

use jiff::tz::TimeZone;
use rust_decimal::Decimal;
use serde::Serialize;

use crate::model::rows::{BalanceTxnRow, ChargeRow, RefundRow};
use crate::money::Currency;
use crate::time::Month;

/// One converted line (minor units of each side's currency).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConversionRow {
    pub balance_transaction_id: String,
    pub created: i64,
    /// What the customer was charged (or refunded), signed as the line: `None` when the
    /// line's source was not read.
    pub presentment_amount: Option<i64>,
    pub presentment_currency: Option<Currency>,
    pub settled_amount: i64,
    pub settled_currency: Currency,
    /// Settlement currency per presentment major unit, as Stripe wrote it.
    #[serde(serialize_with = "decimal_text")]
    pub exchange_rate: Decimal,
}

fn decimal_text<S: serde::Serializer>(d: &Decimal, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(d)
}

/// One currency pair's sum (minor units of each side's currency).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConversionPair {
    /// `None`: the lines whose source was not read.
    pub presentment_currency: Option<Currency>,
    pub settled_currency: Currency,
    pub count: u64,
    /// The presented amounts summed (only the lines whose source was read).
    pub presentment_amount: i128,
    pub settled_amount: i128,
}

/// The month's lines with an exchange rate, in created order (then id).
pub fn conversions(
    lines: &[BalanceTxnRow],
    charges: &[ChargeRow],
    refunds: &[RefundRow],
    month: Month,
    tz: &TimeZone,
) -> Vec<ConversionRow> {
    let (start, end) = month.range(tz);
    let converted: Vec<&BalanceTxnRow> = lines
        .iter()
        .filter(|l| l.created >= start && l.created < end && l.exchange_rate.is_some())
        .collect();
    if converted.is_empty() {
        return Vec::new();
    }
    let charge: HashMap<&str, &ChargeRow> = charges.iter().map(|c| (c.id.as_str(), c)).collect();
    let refund: HashMap<&str, &RefundRow> = refunds.iter().map(|r| (r.id.as_str(), r)).collect();
    let mut out: Vec<ConversionRow> = converted
        .into_iter()
        .filter_map(|l| {
            let rate = l.exchange_rate.get()?;
            let presented = l.source.as_ref().and_then(|s| {
                let s = s.as_str();
                charge
                    .get(s)
                    .map(|c| (c.amount, c.currency))
                    .or_else(|| refund.get(s).map(|r| (r.amount, r.currency)))
            });
            // Signed as the line: a refund takes money back.
            let sign = if l.amount < 0 { -1 } else { 1 };
            Some(ConversionRow {
                balance_transaction_id: l.id.as_str().to_string(),
                created: l.created,
                presentment_amount: presented.map(|(a, _)| sign * a.abs()),
                presentment_currency: presented.map(|(_, c)| c),
                settled_amount: l.amount,
                settled_currency: l.currency,
                exchange_rate: rate,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        (a.created, &a.balance_transaction_id).cmp(&(b.created, &b.balance_transaction_id))
    });
    out
}

/// The conversions summed per (presentment, settlement) currency pair.
pub fn conversion_pairs(rows: &[ConversionRow]) -> Vec<ConversionPair> {
    let mut by: BTreeMap<(Option<Currency>, Currency), ConversionPair> = BTreeMap::new();
    for r in rows {
        let p = by
            .entry((r.presentment_currency, r.settled_currency))
            .or_insert_with(|| ConversionPair {
                presentment_currency: r.presentment_currency,
                settled_currency: r.settled_currency,
                count: 0,
                presentment_amount: 0,
                settled_amount: 0,
            });
        p.count += 1;
        p.presentment_amount += i128::from(r.presentment_amount.unwrap_or(0));
        p.settled_amount += i128::from(r.settled_amount);
    }
    by.into_values().collect()
}
