//! What leaves the table as text: the CSV export (`export`) and the copies, the selected
//! row (`copy_row`) or every row the table shows after its filter and sort
//! (`copy_table`, not only the page on screen), as TSV, a Markdown table or JSON
//! (`copy_format` in settings.toml).
//!
//! One column model for all of them: every column by its title, and a money column as
//! its amount in major units (`-1234.50`, no grouping, so a spreadsheet reads a number)
//! followed by a `<title> currency` column (`USD`), the amount's own currency on each
//! row. TSV escapes a backslash, tab, newline and carriage return inside a cell as
//! `\\`, `\t`, `\n`, `\r` (the "linear TSV" convention), so a cell never breaks a line
//! or a column; Markdown escapes `|` and puts a newline as a space; JSON is an array of
//! objects, one a line (one object for a row), keyed by the column titles in column
//! order, amounts as strings (exact decimals), counts as numbers, blanks as `null`.

use super::*;
use crate::app::settings::CopyFormat;

/// One copied value.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Value {
    Text(String),
    Int(i64),
    Blank,
}

impl Value {
    fn text(&self) -> Cow<'_, str> {
        match self {
            Value::Text(s) => Cow::Borrowed(s),
            Value::Int(n) => Cow::Owned(n.to_string()),
            Value::Blank => Cow::Borrowed(""),
        }
    }

    fn json(&self) -> serde_json::Value {
        match self {
            Value::Text(s) => serde_json::Value::String(s.clone()),
            Value::Int(n) => serde_json::Value::from(*n),
            Value::Blank => serde_json::Value::Null,
        }
    }
}

/// The copied columns: titles, and which source columns carry money (a currency column
/// follows each), judged by the first row shown.
struct Layout {
    titles: Vec<String>,
    money: Vec<bool>,
}

impl DataTable {
    fn layout(&self) -> Layout {
        let cols = self.source.columns();
        let first = self.view.first().map(|r| *r as usize);
        let money: Vec<bool> = (0..cols.len())
            .map(|c| first.is_some_and(|r| matches!(self.source.cell(r, c), Cell::Money(_))))
            .collect();
        let mut titles = Vec::new();
        for (col, m) in cols.iter().zip(&money) {
            titles.push(col.title.clone());
            if *m {
                titles.push(format!("{} currency", col.title));
            }
        }
        Layout { titles, money }
    }

    /// Source row `r` in the copied columns.
    fn values(&self, layout: &Layout, r: usize) -> Vec<Value> {
        let mut out = Vec::with_capacity(layout.titles.len());
        for (c, money) in layout.money.iter().enumerate() {
            let cell = self.source.cell(r, c);
            let currency = match &cell {
                Cell::Money(m) => Value::Text(m.currency.upper()),
                _ => Value::Blank,
            };
            out.push(match cell {
                Cell::Int(n) => Value::Int(n),
                c if c.is_blank() => Value::Blank,
                c => Value::Text(c.export(&self.tz).into_owned()),
            });
            if *money {
                out.push(currency);
            }
        }
        out
    }

    /// The rows in view (filter and sort applied) as CSV: header plus one line per row;
    /// money columns carry major units with a `<title> currency` column after them.
    pub fn to_csv(&self) -> Vec<u8> {
        let layout = self.layout();
        let header: Vec<&str> = layout.titles.iter().map(String::as_str).collect();
        let mut doc = CsvDoc::new(&header);
        for r in &self.view {
            let cells = self.values(&layout, *r as usize);
            doc.row(cells.iter().map(|v| v.text().into_owned()));
        }
        doc.into_bytes()
    }

    /// The selected row as `format` (TSV: the values alone, without a header), or
    /// `None` with no row selected.
    pub fn copy_row(&self, format: CopyFormat) -> Option<String> {
        let r = self.selected_row()?;
        let layout = self.layout();
        let row = self.values(&layout, r);
        Some(match format {
            CopyFormat::Tsv => tsv_line(&row),
            CopyFormat::Markdown => markdown(&layout, std::slice::from_ref(&row)),
            CopyFormat::Json => json_object(&layout, &row),
        })
    }

    /// Every row the table shows (filter and sort applied, all pages) as `format`, with
    /// the header; `None` when it shows no rows.
    pub fn copy_table(&self, format: CopyFormat) -> Option<String> {
        if self.view.is_empty() {
            return None;
        }
        let layout = self.layout();
        let rows: Vec<Vec<Value>> = self
            .view
            .iter()
            .map(|r| self.values(&layout, *r as usize))
            .collect();
        Some(match format {
            CopyFormat::Tsv => {
                let header: Vec<Value> = layout.titles.iter().cloned().map(Value::Text).collect();
                let mut out = tsv_line(&header);
                out.push('\n');
                for row in &rows {
                    out.push_str(&tsv_line(row));
                    out.push('\n');
                }
                out
            }
            CopyFormat::Markdown => markdown(&layout, &rows),
            CopyFormat::Json => {
                let objects: Vec<String> = rows
                    .iter()
                    .map(|row| format!("  {}", json_object(&layout, row)))
                    .collect();
                format!("[\n{}\n]\n", objects.join(",\n"))
            }
        })
    }
}

/// One TSV line (no line end), each cell escaped.
fn tsv_line(row: &[Value]) -> String {
    let cells: Vec<String> = row.iter().map(|v| tsv_escape(&v.text())).collect();
    cells.join("\t")
}

/// A TSV cell: `\`, tab, newline and carriage return as `\\`, `\t`, `\n`, `\r`.
fn tsv_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

/// A Markdown table: the header, the alignment row (amounts and counts to the right),
/// then the rows; every line ends with a newline.
fn markdown(layout: &Layout, rows: &[Vec<Value>]) -> String {
    let line = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
    let mut out = line(layout.titles.iter().map(|t| md_escape(t)).collect());
    // A currency column stays left; its amount column (the one before it) and counts go
    // right.
    let mut align = Vec::new();
    for m in &layout.money {
        align.push(if *m { "---:" } else { "---" }.to_string());
        if *m {
            align.push("---".to_string());
        }
    }
    for (i, a) in align.iter_mut().enumerate() {
        if rows.iter().all(|r| matches!(r.get(i), Some(Value::Int(_)))) {
            *a = "---:".to_string();
        }
    }
    out.push_str(&line(align));
    for row in rows {
        out.push_str(&line(row.iter().map(|v| md_escape(&v.text())).collect()));
    }
    out
}

/// A Markdown table cell: `|` escaped, line breaks as spaces.
fn md_escape(s: &str) -> String {
    s.replace('|', "\\|")
        .replace("\r\n", " ")
        .replace(['\n', '\r'], " ")
}

/// One row as a JSON object on one line, its keys in column order.
fn json_object(layout: &Layout, row: &[Value]) -> String {
    let fields: Vec<String> = layout
        .titles
        .iter()
        .zip(row)
        .map(|(t, v)| {
            let key = serde_json::to_string(t).unwrap_or_default();
            let value = serde_json::to_string(&v.json()).unwrap_or_default();
            format!("{key}: {value}")
        })
        .collect();
    format!("{{{}}}", fields.join(", "))
}
