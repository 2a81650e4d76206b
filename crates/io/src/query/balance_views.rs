//! The SQL views of the Stripe balance (issue 33): `balance_rollforward` (one month and
//! currency of the roll-forward, from the first month with a line to "now"'s) and `fees`
//! (one month, currency, source and fee type of the fee statement). Amounts are integer
//! minor units, computed by the same core code as `tieout balance`, with the snapshot's
//! Stripe balance (`stripe_balance`/`difference` on the month that holds the instant it
//! was read) and its openings summed when the lines are every line the account has.

use jiff::tz::TimeZone;
use polars::prelude::{
    Column, DataFrame, Int64Chunked, IntoColumn, NewChunkedArray, StringChunked,
};

use tieout_core::domain::balance::{fee_statement, roll_forward};
use tieout_core::model::AccountData;
use tieout_core::report::balance::opening_how;
use tieout_core::time::Month;

use super::QueryError;

fn s(name: &str, v: Vec<String>) -> Column {
    StringChunked::from_iter_values(name.into(), v.iter().map(String::as_str)).into_column()
}

fn i(name: &str, v: Vec<Option<i64>>) -> Column {
    Int64Chunked::from_iter_options(name.into(), v.into_iter()).into_column()
}

/// An i128 sum as an i64 column cell, refused (not clamped) when it does not fit.
fn fit(v: i128) -> Result<i64, QueryError> {
    i64::try_from(v).map_err(|_| QueryError::engine(format!("a balance sum {v} exceeds 64 bits")))
}

fn fit_opt(v: Option<i128>) -> Result<Option<i64>, QueryError> {
    v.map(fit).transpose()
}

/// Every month from the first line's to `now`'s, in `tz`.
fn months(data: &AccountData, now: i64, tz: &TimeZone) -> Vec<Month> {
    let Some(first) = data.balance_transactions.iter().map(|l| l.created).min() else {
        return Vec::new();
    };
    let (mut m, last) = (Month::of(first, tz), Month::of(now.max(first), tz));
    let mut out = Vec::new();
    while m <= last {
        out.push(m);
        m = m.next();
    }
    out
}

/// `balance_rollforward` and `fees`.
pub fn balance_views(
    data: &AccountData,
    now: i64,
    tz: &TimeZone,
) -> Result<(DataFrame, DataFrame), QueryError> {
    let lines = &data.balance_transactions;
    let (mut rm, mut rc, mut src) = (vec![], vec![], vec![]);
    let mut nums: [Vec<Option<i64>>; 9] = Default::default();
    let (mut fm, mut fc, mut fs, mut ft, mut fn_, mut fa) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    for m in months(data, now, tz) {
        for r in roll_forward(
            lines,
            m,
            tz,
            data.meta.lines_complete,
            data.meta.balance_for(m.range(tz).0),
        ) {
            rm.push(m.to_string());
            rc.push(r.currency.as_str().to_string());
            src.push(opening_how(r.opening_source).to_string());
            let vals = [
                Some(r.opening),
                Some(r.activity),
                Some(r.payouts),
                Some(r.closing),
                Some(r.closing_available),
                Some(r.closing_pending),
                r.stripe_balance,
                r.difference,
                r.opening_difference,
            ];
            for (col, v) in nums.iter_mut().zip(vals) {
                col.push(fit_opt(v)?);
            }
        }
        for f in fee_statement(lines, m, tz) {
            fm.push(m.to_string());
            fc.push(f.currency.as_str().to_string());
            fs.push(f.source.as_str().to_string());
            ft.push(f.fee_type.clone());
            fn_.push(i64::try_from(f.count).ok());
            fa.push(Some(fit(f.amount)?));
        }
    }
    let names = tieout_core::domain::balance::rollforward::FIGURE_NAMES
        .into_iter()
        .chain(["stripe_balance", "difference", "opening_difference"]);
    let height = rm.len();
    let mut cols = vec![s("month", rm), s("currency", rc)];
    cols.extend(names.zip(nums).map(|(n, v)| i(n, v)));
    cols.push(s("opening_source", src));
    let roll = DataFrame::new(height, cols).map_err(QueryError::engine)?;
    let height = fm.len();
    let fees = DataFrame::new(
        height,
        vec![
            s("month", fm),
            s("currency", fc),
            s("source", fs),
            s("fee_type", ft),
            i("count", fn_),
            i("amount", fa),
        ],
    )
    .map_err(QueryError::engine)?;
    Ok((roll, fees))
}
