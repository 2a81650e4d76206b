//! An exported file's columns, declared once: each [`Column`] is a header and how a row
//! gives its cell, for the CSV and, where the file's JSON twin has the same column, its
//! JSON value. The CSV header, the CSV cells and the JSON keys all come from the one
//! list, in its order, so a header cannot drift from its cell and adding a column is one
//! line (plus the golden files that show it).

use std::borrow::{Borrow, Cow};

use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::model::compact::{InlineText, StripeId};
use crate::report::csv_out::CsvOut;

/// A row's CSV cell (text; [`CsvOut`] makes it spreadsheet-safe).
pub type CsvCell<R> = fn(&R) -> CellText<'_>;

/// A CSV cell's text: borrowed from the row, made for it, made on the stack (dates and
/// amounts: a million-line export makes five a line), or an id's bytes read without the
/// UTF-8 check (three a line). The writer reads every kind as the text's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CellText<'a> {
    Borrowed(&'a str),
    Owned(String),
    Inline(InlineText),
    Id(&'a StripeId),
}

impl AsRef<[u8]> for CellText<'_> {
    fn as_ref(&self) -> &[u8] {
        match self {
            CellText::Borrowed(text) => text.as_bytes(),
            CellText::Owned(text) => text.as_bytes(),
            CellText::Inline(text) => text.as_bytes(),
            CellText::Id(id) => id.as_bytes(),
        }
    }
}

impl<'a> From<&'a StripeId> for CellText<'a> {
    fn from(id: &'a StripeId) -> Self {
        CellText::Id(id)
    }
}

impl<'a> From<&'a str> for CellText<'a> {
    fn from(text: &'a str) -> Self {
        CellText::Borrowed(text)
    }
}

impl From<String> for CellText<'_> {
    fn from(text: String) -> Self {
        CellText::Owned(text)
    }
}

impl From<InlineText> for CellText<'_> {
    fn from(text: InlineText) -> Self {
        CellText::Inline(text)
    }
}

impl<'a> From<Cow<'a, str>> for CellText<'a> {
    fn from(text: Cow<'a, str>) -> Self {
        match text {
            Cow::Borrowed(text) => CellText::Borrowed(text),
            Cow::Owned(text) => CellText::Owned(text),
        }
    }
}
/// A row's JSON value.
pub type JsonCell<R> = fn(&R) -> Json<'_>;

/// One column of an exported file.
pub struct Column<R> {
    /// The CSV header and the JSON key.
    pub header: &'static str,
    /// The CSV cell; `None` when the CSV has no such column.
    pub csv: Option<CsvCell<R>>,
    /// The JSON value; `None` when the JSON has no such key.
    pub json: Option<JsonCell<R>>,
}

impl<R> Column<R> {
    /// A column in both the CSV and the JSON.
    pub const fn both(header: &'static str, csv: CsvCell<R>, json: JsonCell<R>) -> Self {
        Self {
            header,
            csv: Some(csv),
            json: Some(json),
        }
    }

    /// A column of the CSV only.
    pub const fn csv(header: &'static str, csv: CsvCell<R>) -> Self {
        Self {
            header,
            csv: Some(csv),
            json: None,
        }
    }

    /// A key of the JSON only.
    pub const fn json(header: &'static str, json: JsonCell<R>) -> Self {
        Self {
            header,
            csv: None,
            json: Some(json),
        }
    }
}

/// The CSV header of `columns`.
pub fn csv_header<R>(columns: &[Column<R>]) -> Vec<&'static str> {
    columns
        .iter()
        .filter(|c| c.csv.is_some())
        .map(|c| c.header)
        .collect()
}

/// A CSV document: the header, then one line per row.
pub fn csv<R, B: Borrow<R>>(columns: &[Column<R>], rows: impl IntoIterator<Item = B>) -> Vec<u8> {
    // Writing to a Vec cannot fail.
    csv_to(columns, rows, Vec::new()).unwrap_or_default()
}

/// [`csv`] written into `w` as it goes (the same bytes), handing `w` back flushed.
pub fn csv_to<R, B: Borrow<R>, W: std::io::Write>(
    columns: &[Column<R>],
    rows: impl IntoIterator<Item = B>,
    w: W,
) -> Result<W, csv::Error> {
    let cells: Vec<CsvCell<R>> = columns.iter().filter_map(|c| c.csv).collect();
    let mut out = CsvOut::new(w, &csv_header(columns))?;
    for row in rows {
        let row = row.borrow();
        out.row(cells.iter().map(|cell| cell(row)))?;
    }
    out.finish()
}

/// A JSON value of one column.
#[derive(Debug, Clone, PartialEq)]
pub enum Json<'a> {
    Str(&'a str),
    Text(String),
    Int(i64),
    Bool(bool),
    Null,
    List(&'a [String]),
}

impl<'a> Json<'a> {
    /// The text, or `null`.
    pub fn opt_str(v: Option<&'a str>) -> Self {
        v.map_or(Json::Null, Json::Str)
    }

    /// The text, or `null`.
    pub fn opt_text(v: Option<String>) -> Self {
        v.map_or(Json::Null, Json::Text)
    }

    /// The number, or `null`.
    pub fn opt_int(v: Option<i64>) -> Self {
        v.map_or(Json::Null, Json::Int)
    }
}

impl Serialize for Json<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Str(v) => s.serialize_str(v),
            Json::Text(v) => s.serialize_str(v),
            Json::Int(v) => s.serialize_i64(*v),
            Json::Bool(v) => s.serialize_bool(*v),
            Json::Null => s.serialize_none(),
            Json::List(v) => v.serialize(s),
        }
    }
}

/// One row as a JSON object: the JSON columns' keys and values, in the list's order.
pub struct JsonRow<'c, R, B> {
    columns: &'c [Column<R>],
    row: B,
}

impl<'c, R, B: Borrow<R>> JsonRow<'c, R, B> {
    pub fn new(columns: &'c [Column<R>], row: B) -> Self {
        Self { columns, row }
    }
}

impl<R, B: Borrow<R>> Serialize for JsonRow<'_, R, B> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let row = self.row.borrow();
        let mut map = s.serialize_map(None)?;
        for c in self.columns {
            if let Some(json) = c.json {
                map.serialize_entry(c.header, &json(row))?;
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Row {
        id: &'static str,
        n: Option<i64>,
    }

    const COLUMNS: &[Column<Row>] = &[
        Column::both("id", |r| r.id.into(), |r| Json::Str(r.id)),
        Column::csv("n", |r| {
            r.n.map(|n| n.to_string()).unwrap_or_default().into()
        }),
        Column::json("n_or_null", |r| Json::opt_int(r.n)),
    ];

    #[test]
    fn the_csv_and_the_json_follow_the_one_list() {
        let rows = [
            Row {
                id: "a",
                n: Some(1),
            },
            Row { id: "=b", n: None },
        ];
        let text = String::from_utf8(csv(COLUMNS, &rows)).expect("utf8");
        assert_eq!(text, "id,n\r\na,1\r\n'=b,\r\n");
        let json: Vec<String> = rows
            .iter()
            .map(|r| serde_json::to_string(&JsonRow::new(COLUMNS, r)).expect("json"))
            .collect();
        assert_eq!(
            json,
            [
                r#"{"id":"a","n_or_null":1}"#,
                r#"{"id":"=b","n_or_null":null}"#
            ]
        );
    }
}
