//! A row shape declared once, typed: each [`Field`] is a machine name (the CSV header, the
//! JSON key and the SQL view's column), a title people read (the Markdown table's and the
//! pane's), and one typed accessor ([`Get`]). Every projection takes its names and cells
//! from the one list, so a CSV header cannot drift from its SQL column or its pane title:
//!
//! - CSV: exported fields, money in major units, times as ISO 8601 UTC, `yes`/`no`;
//! - JSON: exported fields, money in minor units, times as ISO 8601 UTC or `null`;
//! - SQL: exported fields as typed columns ([`sql_columns`]: money in minor units, times
//!   as timestamps), turned into a frame by the query engine;
//! - Markdown and the pane: a selection of fields by name, under their titles, with the
//!   text people read ([`Field::shown`] where it differs from the value).
//!
//! Adding a column is one line in a row's list (plus the goldens that show it).

use std::borrow::Cow;

use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::money::{Money, format_major_inline};
use crate::report::columns::{CellText, CsvCell};
use crate::report::csv_out::CsvOut;
use crate::time::iso_utc;

/// How a field reads its value from a row; the variant is the field's type.
pub enum Get<R> {
    /// Text, or nothing.
    Str(fn(&R) -> Option<&str>),
    /// Text made for the row, or nothing.
    Text(fn(&R) -> Option<String>),
    /// An amount in its currency's minor units, or nothing.
    Money(fn(&R) -> Option<Money>),
    /// A count or a number of days, or nothing.
    Int(fn(&R) -> Option<i64>),
    Bool(fn(&R) -> bool),
    /// A moment (unix seconds), or nothing.
    Time(fn(&R) -> Option<i64>),
    /// Ids or links: space-separated in the CSV, a list in the JSON.
    List(fn(&R) -> &[String]),
}

impl<R> Clone for Get<R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R> Copy for Get<R> {}

/// One field's value in one row.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    Str(Option<Cow<'a, str>>),
    Money(Option<Money>),
    Int(Option<i64>),
    Bool(bool),
    Time(Option<i64>),
    List(&'a [String]),
}

impl<'a> Value<'a> {
    /// The CSV cell: money in major units, times ISO 8601 UTC, `yes`/`no`, lists joined by
    /// spaces, empty for none.
    pub fn csv(self) -> CellText<'a> {
        match self {
            Value::Str(Some(s)) => s.into(),
            Value::Money(Some(m)) => format_major_inline(m.minor, m.currency).into(),
            Value::Int(Some(n)) => n.to_string().into(),
            Value::Bool(b) => yes_no(b).into(),
            Value::Time(Some(ts)) => iso_utc(ts).into(),
            Value::List(items) => items.join(" ").into(),
            Value::Str(None) | Value::Money(None) | Value::Int(None) | Value::Time(None) => {
                "".into()
            }
        }
    }

    /// The text people read in a Markdown table: amounts with their currency.
    pub fn text(self) -> String {
        match self {
            Value::Money(Some(m)) => m.display(),
            other => String::from_utf8_lossy(other.csv().as_ref()).into_owned(),
        }
    }
}

impl Serialize for Value<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Str(v) => v.as_deref().serialize(s),
            Value::Money(m) => m.map(|m| m.minor).serialize(s),
            Value::Int(v) => v.serialize(s),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Time(v) => v.map(iso_utc).serialize(s),
            Value::List(items) => items.serialize(s),
        }
    }
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// Which files carry a field; every field may be shown to people (Markdown, the pane).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// The CSV (and so the SQL view) and the JSON.
    Exported,
    /// The CSV and the SQL view, not the JSON.
    CsvOnly,
    /// The JSON, not the CSV.
    JsonOnly,
    /// Only what people read: a composite of exported fields, never a column of a file a
    /// program reads.
    People,
}

/// One field of a row.
pub struct Field<R> {
    /// The CSV header, the JSON key and the SQL column.
    pub name: &'static str,
    /// The heading people read (Markdown, the pane).
    pub title: &'static str,
    /// The heading of a narrow pane column, when the title is too wide for it (`Att.`).
    pub short: Option<&'static str>,
    pub get: Get<R>,
    pub reach: Reach,
    /// The text people read when it is not the value's own (`Next retry`'s `none`).
    pub shown: Option<fn(&R) -> String>,
    /// The CSV cell when it is not the value's own (an amount with no currency written
    /// `0`; a million-line file's cells made without a heap allocation).
    pub csv: Option<CsvCell<R>>,
}

impl<R> Clone for Field<R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R> Copy for Field<R> {}

impl<R> Field<R> {
    /// A field of every output.
    pub const fn new(name: &'static str, title: &'static str, get: Get<R>) -> Self {
        Field {
            name,
            title,
            short: None,
            get,
            reach: Reach::Exported,
            shown: None,
            csv: None,
        }
    }

    /// A field only people read (Markdown, the pane).
    pub const fn people(name: &'static str, title: &'static str, get: Get<R>) -> Self {
        Field {
            name,
            title,
            short: None,
            get,
            reach: Reach::People,
            shown: None,
            csv: None,
        }
    }

    /// The field is in the CSV (and the SQL view) only, or the JSON only.
    pub const fn only(mut self, reach: Reach) -> Self {
        self.reach = reach;
        self
    }

    /// The CSV writes `csv` instead of the value's own text.
    pub const fn csv_as(mut self, csv: CsvCell<R>) -> Self {
        self.csv = Some(csv);
        self
    }

    /// A narrow pane heads the column `short` instead of the title.
    pub const fn short(mut self, short: &'static str) -> Self {
        self.short = Some(short);
        self
    }

    /// The heading of a pane column.
    pub fn pane_title(&self) -> &'static str {
        self.short.unwrap_or(self.title)
    }

    /// People read `shown` instead of the value's own text.
    pub const fn shown_as(mut self, shown: fn(&R) -> String) -> Self {
        self.shown = Some(shown);
        self
    }

    /// The field's value in `row`.
    pub fn value<'r>(&self, row: &'r R) -> Value<'r> {
        match self.get {
            Get::Str(f) => Value::Str(f(row).map(Cow::Borrowed)),
            Get::Text(f) => Value::Str(f(row).map(Cow::Owned)),
            Get::Money(f) => Value::Money(f(row)),
            Get::Int(f) => Value::Int(f(row)),
            Get::Bool(f) => Value::Bool(f(row)),
            Get::Time(f) => Value::Time(f(row)),
            Get::List(f) => Value::List(f(row)),
        }
    }

    /// The field's CSV cell in `row`.
    pub fn csv_cell<'r>(&self, row: &'r R) -> CellText<'r> {
        match self.csv {
            Some(csv) => csv(row),
            None => self.value(row).csv(),
        }
    }

    /// The text people read in `row`.
    pub fn people_text(&self, row: &R) -> String {
        match self.shown {
            Some(shown) => shown(row),
            None => self.value(row).text(),
        }
    }

    /// Right-aligned where people read it (amounts and numbers).
    pub fn right_aligned(&self) -> bool {
        matches!(self.get, Get::Money(_) | Get::Int(_))
    }

    /// In the CSV and the SQL view.
    pub fn in_csv(&self) -> bool {
        matches!(self.reach, Reach::Exported | Reach::CsvOnly)
    }

    /// In the JSON.
    pub fn in_json(&self) -> bool {
        matches!(self.reach, Reach::Exported | Reach::JsonOnly)
    }
}

/// The field named `name`. Panics only on a name no list declares, which the lists' own
/// tests rule out.
pub fn field<'f, R>(fields: &'f [Field<R>], name: &str) -> Option<&'f Field<R>> {
    fields.iter().find(|f| f.name == name)
}

/// The CSV header: the exported fields' names, in order.
pub fn csv_header<R>(fields: &[Field<R>]) -> Vec<&'static str> {
    fields
        .iter()
        .filter(|f| f.in_csv())
        .map(|f| f.name)
        .collect()
}

/// A CSV document: the header, then one line per row.
pub fn csv<'r, R: 'r>(fields: &[Field<R>], rows: impl IntoIterator<Item = &'r R>) -> Vec<u8> {
    // Writing to a Vec cannot fail.
    csv_to(fields, rows, Vec::new()).unwrap_or_default()
}

/// [`csv`] written into `w` as it goes (the same bytes), handing `w` back flushed.
pub fn csv_to<'r, R: 'r, W: std::io::Write>(
    fields: &[Field<R>],
    rows: impl IntoIterator<Item = &'r R>,
    w: W,
) -> Result<W, csv::Error> {
    let in_csv: Vec<&Field<R>> = fields.iter().filter(|f| f.in_csv()).collect();
    let mut out = CsvOut::new(w, &csv_header(fields))?;
    for row in rows {
        out.row(in_csv.iter().map(|f| f.csv_cell(row)))?;
    }
    out.finish()
}

/// One row as a JSON object: the exported fields' names and values, in order.
pub struct JsonFields<'f, 'r, R> {
    fields: &'f [Field<R>],
    row: &'r R,
}

impl<'f, 'r, R> JsonFields<'f, 'r, R> {
    pub fn new(fields: &'f [Field<R>], row: &'r R) -> Self {
        Self { fields, row }
    }
}

impl<R> Serialize for JsonFields<'_, '_, R> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        for f in self.fields.iter().filter(|f| f.in_json()) {
            map.serialize_entry(f.name, &f.value(self.row))?;
        }
        map.end()
    }
}

/// A Markdown table of `rows` showing the fields named in `shown`, in that order, under
/// their titles (a time's with ` (UTC)`; pipes escaped, line breaks flattened). Names no field carries are skipped
/// (the lists' tests check every selection).
pub fn markdown_table<R>(fields: &[Field<R>], shown: &[&str], rows: &[R]) -> String {
    let picked: Vec<&Field<R>> = shown.iter().filter_map(|n| field(fields, n)).collect();
    let mut o = String::new();
    // The table writes times as ISO 8601 UTC, and says so in their titles.
    let titles: Vec<String> = picked
        .iter()
        .map(|f| match f.get {
            Get::Time(_) => format!("{} (UTC)", f.title),
            _ => f.title.to_string(),
        })
        .collect();
    o.push_str(&format!("| {} |\n", titles.join(" | ")));
    let rules: Vec<&str> = picked
        .iter()
        .map(|f| if f.right_aligned() { "---:" } else { "---" })
        .collect();
    o.push_str(&format!("|{}|\n", rules.join("|")));
    for row in rows {
        let cells: Vec<String> = picked
            .iter()
            .map(|f| markdown_cell(&f.people_text(row)))
            .collect();
        o.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    o
}

/// A Markdown table cell: backslashes and pipes escaped, line breaks flattened, any other
/// control character but tab made visible ([`crate::controls`]).
pub fn markdown_cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '|' => out.push_str("\\|"),
            '\r' | '\n' => out.push(' '),
            c => crate::controls::push(&mut out, c),
        }
    }
    out
}

/// One column of a SQL view, typed.
#[derive(Debug, Clone, PartialEq)]
pub enum SqlData {
    Text(Vec<Option<String>>),
    /// Counts and amounts (minor units).
    Int(Vec<Option<i64>>),
    Bool(Vec<bool>),
    /// Unix seconds, shown as UTC timestamps.
    Time(Vec<Option<i64>>),
}

/// The SQL view of `rows`: one typed column per exported field, named as the CSV header.
pub fn sql_columns<R>(fields: &[Field<R>], rows: &[R]) -> Vec<(&'static str, SqlData)> {
    fields
        .iter()
        .filter(|f| f.in_csv())
        .map(|f| {
            let data = match f.get {
                Get::Str(g) => {
                    SqlData::Text(rows.iter().map(|r| g(r).map(str::to_string)).collect())
                }
                Get::Text(g) => SqlData::Text(rows.iter().map(g).collect()),
                Get::Money(g) => SqlData::Int(rows.iter().map(|r| g(r).map(|m| m.minor)).collect()),
                Get::Int(g) => SqlData::Int(rows.iter().map(g).collect()),
                Get::Bool(g) => SqlData::Bool(rows.iter().map(g).collect()),
                Get::Time(g) => SqlData::Time(rows.iter().map(g).collect()),
                Get::List(g) => SqlData::Text(rows.iter().map(|r| Some(g(r).join(" "))).collect()),
            };
            (f.name, data)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::money::Currency;

    struct Row {
        id: &'static str,
        n: Option<i64>,
        paid: Money,
        at: Option<i64>,
    }

    const FIELDS: &[Field<Row>] = &[
        Field::new("id", "Id", Get::Str(|r| Some(r.id))),
        Field::new("n", "N", Get::Int(|r| r.n)),
        Field::new("paid", "Paid", Get::Money(|r| Some(r.paid))),
        Field::new("at_utc", "At", Get::Time(|r| r.at)),
        Field::people(
            "label",
            "Label",
            Get::Text(|r: &Row| Some(format!("#{}", r.id))),
        )
        .shown_as(|r| format!("row {}", r.id)),
    ];

    fn rows() -> Vec<Row> {
        let usd = Currency::parse("usd").expect("usd");
        vec![
            Row {
                id: "a",
                n: Some(1),
                paid: Money::new(1250, usd),
                at: Some(0),
            },
            Row {
                id: "=b|c",
                n: None,
                paid: Money::new(-5, usd),
                at: None,
            },
        ]
    }

    #[test]
    fn the_csv_the_json_and_the_sql_view_take_the_exported_fields_in_order() {
        let rows = rows();
        let text = String::from_utf8(csv(FIELDS, &rows)).expect("utf8");
        assert_eq!(
            text,
            "id,n,paid,at_utc\r\na,1,12.50,1970-01-01T00:00:00Z\r\n'=b|c,,-0.05,\r\n"
        );
        let json: Vec<String> = rows
            .iter()
            .map(|r| serde_json::to_string(&JsonFields::new(FIELDS, r)).expect("json"))
            .collect();
        assert_eq!(
            json,
            [
                r#"{"id":"a","n":1,"paid":1250,"at_utc":"1970-01-01T00:00:00Z"}"#,
                r#"{"id":"=b|c","n":null,"paid":-5,"at_utc":null}"#,
            ]
        );
        let sql = sql_columns(FIELDS, &rows);
        let names: Vec<&str> = sql.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, csv_header(FIELDS));
        assert_eq!(sql[2].1, SqlData::Int(vec![Some(1250), Some(-5)]));
        assert_eq!(sql[3].1, SqlData::Time(vec![Some(0), None]));
    }

    /// Issue 40: control characters reached Markdown cells raw.
    #[test]
    fn a_markdown_cell_makes_control_characters_visible() {
        assert_eq!(
            markdown_cell("Ada\0|\u{1b}[2J\u{7}\r\nx\ty\u{9b}"),
            "Ada\\u{00}\\|\\u{1B}[2J\\u{07}  x\ty\\u{9B}"
        );
    }

    #[test]
    fn people_read_the_titles_the_shown_text_and_amounts_with_their_currency() {
        let md = markdown_table(FIELDS, &["label", "paid", "n"], &rows());
        assert_eq!(
            md,
            "| Label | Paid | N |\n|---|---:|---:|\n| row a | 12.50 USD | 1 |\n| row =b\\|c | -0.05 USD |  |\n"
        );
    }
}
