//! The SQL functions tieout adds to polars' own (which has no `date_trunc` and no
//! `date_format`, unlike Stripe Sigma's Trino):
//!
//! - `money(amount, currency)`: minor units rendered in major units for display, with the
//!   currency's own exponent (`money(1999, 'usd')` = `'19.99'`, `money(500, 'jpy')` =
//!   `'500'`). Text: sum and compare the integer column, render at the end. Never converts
//!   between currencies.
//! - `month(t)`: `'YYYY-MM'` of a time (epoch seconds or a `*_utc` column), in UTC.
//! - `day(t)`: `'YYYY-MM-DD'` of a time, in UTC.

use std::sync::Arc;

use jiff::Timestamp;
use jiff::tz::TimeZone;
use polars::prelude::{
    BaseColumnUdf, Column, DataType, Field, IntoColumn, PolarsResult, Schema, StringChunked,
    TimeUnit, UserDefinedFunction, polars_bail,
};
use polars::sql::FunctionRegistry;

use tieout_core::money::{Currency, format_major};

/// The names of the added functions, with what they do (for `--tables` and the README).
pub const FUNCTIONS: &[(&str, &str)] = &[
    (
        "money(amount, currency)",
        "minor units as major-unit text for display ('19.99'); sum the integers, render last",
    ),
    (
        "month(t)",
        "'YYYY-MM' of a time (epoch seconds or *_utc), UTC",
    ),
    (
        "day(t)",
        "'YYYY-MM-DD' of a time (epoch seconds or *_utc), UTC",
    ),
];

/// The registry polars' SQL context calls for functions it does not know.
pub struct Functions;

impl FunctionRegistry for Functions {
    fn register(&mut self, _name: &str, _fun: UserDefinedFunction) -> PolarsResult<()> {
        polars_bail!(ComputeError: "tieout's SQL functions are fixed")
    }

    fn get_udf(&self, name: &str) -> PolarsResult<Option<UserDefinedFunction>> {
        Ok(match name.to_ascii_lowercase().as_str() {
            "money" => Some(udf("money", money)),
            "month" => Some(udf("month", |c| format_time(c, "%Y-%m"))),
            "day" => Some(udf("day", |c| format_time(c, "%Y-%m-%d"))),
            _ => None,
        })
    }

    fn contains(&self, name: &str) -> bool {
        matches!(
            name.to_ascii_lowercase().as_str(),
            "money" | "month" | "day"
        )
    }
}

/// The registry, shared.
pub fn registry() -> Arc<dyn FunctionRegistry> {
    Arc::new(Functions)
}

fn udf(
    name: &'static str,
    f: impl Fn(&mut [Column]) -> PolarsResult<Column> + Send + Sync + 'static,
) -> UserDefinedFunction {
    let out = move |_: &Schema, fields: &[Field]| {
        let n = fields.first().map_or(name.into(), |f| f.name().clone());
        Ok(Field::new(n, DataType::String))
    };
    UserDefinedFunction::new(name.into(), BaseColumnUdf::new(f, out))
}

fn money(cols: &mut [Column]) -> PolarsResult<Column> {
    let [amount, currency] = cols else {
        polars_bail!(InvalidOperation: "money() takes two arguments: money(amount, currency)");
    };
    let name = amount.name().clone();
    let amount = amount.cast(&DataType::Int64)?;
    let amount = amount.i64()?;
    let currency = currency.str()?;
    let out: StringChunked = if currency.len() == 1 && amount.len() != 1 {
        let c = currency.get(0).and_then(|c| Currency::parse(c).ok());
        amount
            .iter()
            .map(|a| a.zip(c).map(|(a, c)| format_major(a, c)))
            .collect()
    } else {
        amount
            .iter()
            .zip(currency.iter())
            .map(|(a, c)| {
                let c = c.and_then(|c| Currency::parse(c).ok())?;
                a.map(|a| format_major(a, c))
            })
            .collect()
    };
    Ok(out.with_name(name).into_column())
}

/// Seconds since the epoch of a time column (integers are seconds already).
fn seconds(c: &Column) -> PolarsResult<Vec<Option<i64>>> {
    let per_second = match c.dtype() {
        DataType::Datetime(TimeUnit::Milliseconds, _) => 1_000,
        DataType::Datetime(TimeUnit::Microseconds, _) => 1_000_000,
        DataType::Datetime(TimeUnit::Nanoseconds, _) => 1_000_000_000,
        DataType::Date => {
            let days = c.cast(&DataType::Int64)?;
            return Ok(days.i64()?.iter().map(|d| d.map(|d| d * 86_400)).collect());
        }
        t if t.is_integer() => 1,
        other => {
            polars_bail!(InvalidOperation: "month()/day() take a time (epoch seconds or a *_utc column), not {}", other)
        }
    };
    let raw = c.to_physical_repr().cast(&DataType::Int64)?;
    Ok(raw
        .i64()?
        .iter()
        .map(|v| v.map(|v| v.div_euclid(per_second)))
        .collect())
}

fn format_time(cols: &mut [Column], fmt: &'static str) -> PolarsResult<Column> {
    let [c] = cols else {
        polars_bail!(InvalidOperation: "month() and day() take one argument");
    };
    let name = c.name().clone();
    let out: StringChunked = seconds(c)?
        .into_iter()
        .map(|s| {
            s.and_then(|s| Timestamp::from_second(s).ok())
                .map(|t| t.to_zoned(TimeZone::UTC).strftime(fmt).to_string())
        })
        .collect();
    Ok(out.with_name(name).into_column())
}
