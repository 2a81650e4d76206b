//! The month's "balance change from activity": the lines created in the month, by
//! currency and reporting category, with their count, gross, fee and net.

use std::collections::BTreeMap;

use jiff::tz::TimeZone;
use serde::Serialize;

use crate::model::rows::BalanceTxnRow;
use crate::money::Currency;
use crate::time::Month;

/// One currency and reporting category of the month (minor units).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ActivityRow {
    pub currency: Currency,
    pub reporting_category: String,
    pub count: u64,
    pub gross: i128,
    pub fee: i128,
    pub net: i128,
}

/// The month's lines summed by (currency, reporting category), sorted by both.
pub fn activity(lines: &[BalanceTxnRow], month: Month, tz: &TimeZone) -> Vec<ActivityRow> {
    let (start, end) = month.range(tz);
    let mut by: BTreeMap<(Currency, &str), ActivityRow> = BTreeMap::new();
    for l in lines
        .iter()
        .filter(|l| l.created >= start && l.created < end)
    {
        let cat = l.reporting_category.as_str();
        let row = by.entry((l.currency, cat)).or_insert_with(|| ActivityRow {
            currency: l.currency,
            reporting_category: cat.to_owned(),
            count: 0,
            gross: 0,
            fee: 0,
            net: 0,
        });
        row.count += 1;
        row.gross += i128::from(l.amount);
        row.fee += i128::from(l.fee);
        row.net += i128::from(l.net);
    }
    by.into_values().collect()
}
