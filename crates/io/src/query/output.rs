//! A query's result written out row by row (a million rows never become one string):
//! an aligned text table, CSV, JSON (an array of objects) or Markdown. Integers stay
//! integers (money in minor units), times are RFC 3339 in UTC, nulls are empty (JSON
//! `null`).

use std::io::{self, Write};

use polars::prelude::{AnyValue, DataFrame, TimeUnit};
use tieout_core::report::csv_out::safe_cell;
use unicode_width::UnicodeWidthStr;

/// How a result is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Csv,
    Json,
    Md,
}

impl Format {
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "table" => Some(Format::Table),
            "csv" => Some(Format::Csv),
            "json" => Some(Format::Json),
            "md" | "markdown" => Some(Format::Md),
            _ => None,
        }
    }

    /// The file extension.
    pub fn extension(&self) -> &'static str {
        match self {
            Format::Table => "txt",
            Format::Csv => "csv",
            Format::Json => "json",
            Format::Md => "md",
        }
    }
}

/// A time in milliseconds (or another unit) as RFC 3339 UTC.
fn datetime(v: i64, unit: TimeUnit) -> String {
    let (secs, nanos) = match unit {
        TimeUnit::Milliseconds => (v.div_euclid(1_000), v.rem_euclid(1_000) * 1_000_000),
        TimeUnit::Microseconds => (v.div_euclid(1_000_000), v.rem_euclid(1_000_000) * 1_000),
        TimeUnit::Nanoseconds => (v.div_euclid(1_000_000_000), v.rem_euclid(1_000_000_000)),
    };
    let ts = jiff::Timestamp::new(secs, nanos as i32).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    ts.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// A value as text (empty for null).
pub fn text(v: &AnyValue<'_>) -> String {
    match v {
        AnyValue::Null => String::new(),
        AnyValue::String(s) => s.to_string(),
        AnyValue::StringOwned(s) => s.to_string(),
        AnyValue::Boolean(b) => b.to_string(),
        AnyValue::Datetime(t, unit, _) => datetime(*t, *unit),
        AnyValue::DatetimeOwned(t, unit, _) => datetime(*t, *unit),
        AnyValue::Date(d) => jiff::civil::Date::constant(1970, 1, 1)
            .checked_add(jiff::Span::new().days(i64::from(*d)))
            .map(|d| d.to_string())
            .unwrap_or_default(),
        other => other.to_string(),
    }
}

/// A value as JSON: numbers stay numbers.
pub fn json(v: &AnyValue<'_>) -> serde_json::Value {
    use serde_json::Value;
    match v {
        AnyValue::Null => Value::Null,
        AnyValue::Boolean(b) => Value::Bool(*b),
        AnyValue::Int8(x) => Value::from(*x),
        AnyValue::Int16(x) => Value::from(*x),
        AnyValue::Int32(x) => Value::from(*x),
        AnyValue::Int64(x) => Value::from(*x),
        AnyValue::UInt8(x) => Value::from(*x),
        AnyValue::UInt16(x) => Value::from(*x),
        AnyValue::UInt32(x) => Value::from(*x),
        AnyValue::UInt64(x) => Value::from(*x),
        AnyValue::Float32(x) => Value::from(f64::from(*x)),
        AnyValue::Float64(x) => Value::from(*x),
        other => Value::String(text(other)),
    }
}

/// The result's cells, row by row, as text.
pub fn rows(df: &DataFrame) -> impl Iterator<Item = Vec<String>> + '_ {
    let cols = df.columns();
    (0..df.height()).map(move |i| {
        cols.iter()
            .map(|c| c.get(i).map(|v| text(&v)).unwrap_or_default())
            .collect()
    })
}

fn header(df: &DataFrame) -> Vec<String> {
    df.get_column_names()
        .iter()
        .map(|n| n.to_string())
        .collect()
}

/// A Markdown cell: pipes escaped, line breaks flattened, other control characters made
/// visible.
fn md_cell(s: &str) -> String {
    let flat = s.replace('|', "\\|").replace(['\n', '\r'], " ");
    tieout_core::controls::escape(&flat).into_owned()
}

/// Writes `df` in `format` to `w`, row by row.
pub fn write(df: &DataFrame, format: Format, w: &mut dyn Write) -> io::Result<()> {
    let head = header(df);
    match format {
        Format::Csv => {
            // Control characters made visible and formula cells neutralised as in every
            // other export (SECURITY.md): a text starting `=`, `+`, `-` or `@` that is not
            // a plain number gets a leading `'`.
            let mut out = csv::Writer::from_writer(w);
            for row in std::iter::once(head.clone()).chain(rows(df)) {
                // Field by field: a cell that needs no change is not copied.
                for c in &row {
                    out.write_field(safe_cell(c.as_bytes()))?;
                }
                out.write_record(None::<&[u8]>)?;
            }
            out.flush()?;
        }
        Format::Md => {
            writeln!(
                w,
                "| {} |",
                head.iter()
                    .map(|h| md_cell(h))
                    .collect::<Vec<_>>()
                    .join(" | ")
            )?;
            writeln!(w, "|{}|", vec!["---"; head.len()].join("|"))?;
            for row in rows(df) {
                writeln!(
                    w,
                    "| {} |",
                    row.iter()
                        .map(|c| md_cell(c))
                        .collect::<Vec<_>>()
                        .join(" | ")
                )?;
            }
        }
        Format::Json => {
            let cols = df.columns();
            w.write_all(b"[")?;
            for i in 0..df.height() {
                let mut obj = serde_json::Map::new();
                for (name, c) in head.iter().zip(cols) {
                    let v = c.get(i).map(|v| json(&v)).unwrap_or_default();
                    obj.insert(name.clone(), v);
                }
                w.write_all(if i == 0 { b"\n  " } else { b",\n  " })?;
                serde_json::to_writer(&mut *w, &obj)?;
            }
            w.write_all(if df.height() == 0 { b"]\n" } else { b"\n]\n" })?;
        }
        Format::Table => {
            let body: Vec<Vec<String>> = rows(df).collect();
            let mut widths: Vec<usize> = head.iter().map(|h| h.width()).collect();
            for row in &body {
                for (wd, c) in widths.iter_mut().zip(row) {
                    *wd = (*wd).max(c.width());
                }
            }
            let numeric: Vec<bool> = df
                .columns()
                .iter()
                .map(|c| c.dtype().is_primitive_numeric())
                .collect();
            let line = |cells: &[String], w: &mut dyn Write| -> io::Result<()> {
                let parts: Vec<String> = cells
                    .iter()
                    .zip(&widths)
                    .zip(&numeric)
                    .map(|((c, wd), num)| {
                        let pad = " ".repeat(wd.saturating_sub(c.width()));
                        if *num {
                            format!("{pad}{c}")
                        } else {
                            format!("{c}{pad}")
                        }
                    })
                    .collect();
                writeln!(w, "{}", parts.join("  ").trim_end())
            };
            line(&head, w)?;
            let rule: Vec<String> = widths.iter().map(|wd| "-".repeat(*wd)).collect();
            writeln!(w, "{}", rule.join("  "))?;
            for row in &body {
                line(row, w)?;
            }
            writeln!(
                w,
                "({} row{})",
                df.height(),
                if df.height() == 1 { "" } else { "s" }
            )?;
        }
    }
    Ok(())
}
