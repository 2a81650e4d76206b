//! CSV in RFC 4180 with a header row, made safe for spreadsheets and terminals: every
//! control character other than tab in a cell (NUL, ESC, BEL, CR, LF, DEL, C1) is written
//! as the visible text `\u{XX}` ([`crate::controls`]), then a text cell that begins with
//! `=`, `+`, `-`, `@` or tab is prefixed with `'` so it is not run as a formula. Numbers
//! (including negative amounts like `-12.34`) stay numbers.

use std::borrow::Cow;

use crate::controls;

/// A cell as every CSV export writes it: control characters other than tab made
/// visible, then [`neutralise`]d. Borrowed when nothing changes.
pub fn safe_cell(cell: &[u8]) -> Cow<'_, [u8]> {
    match controls::escape_bytes(cell) {
        Cow::Borrowed(b) => neutralise_bytes(b),
        Cow::Owned(v) => Cow::Owned(neutralise_bytes(&v).into_owned()),
    }
}

/// Neutralises a cell that a spreadsheet would treat as a formula.
pub fn neutralise(cell: &str) -> Cow<'_, str> {
    if is_risky(cell.as_bytes()) {
        Cow::Owned(format!("'{cell}"))
    } else {
        Cow::Borrowed(cell)
    }
}

/// [`neutralise`] on a cell's bytes (the bytes of a text), as the writer applies it.
fn neutralise_bytes(cell: &[u8]) -> Cow<'_, [u8]> {
    if is_risky(cell) {
        Cow::Owned([b"'", cell].concat())
    } else {
        Cow::Borrowed(cell)
    }
}

/// Whether a spreadsheet would run the cell as a formula: it starts with a formula
/// character and is not a plain number.
fn is_risky(cell: &[u8]) -> bool {
    matches!(
        cell.first(),
        Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r')
    ) && !is_plain_number(cell)
}

/// A plain decimal number such as `-12.34`, `+5` or `1234`.
fn is_plain_number(cell: &[u8]) -> bool {
    let body = cell
        .strip_prefix(b"-")
        .or_else(|| cell.strip_prefix(b"+"))
        .unwrap_or(cell);
    let mut parts = body.splitn(2, |&b| b == b'.');
    let int = parts.next().unwrap_or(b"");
    let frac = parts.next();
    !int.is_empty()
        && int.iter().all(u8::is_ascii_digit)
        && frac.is_none_or(|f| !f.is_empty() && f.iter().all(u8::is_ascii_digit))
}

/// Builds a CSV document in memory from a header and rows of cells.
pub struct CsvDoc {
    out: CsvOut<Vec<u8>>,
}

impl CsvDoc {
    pub fn new(header: &[&str]) -> Self {
        // Writing to a Vec cannot fail.
        let out = CsvOut::new(Vec::new(), header).unwrap_or_else(|_| CsvOut::empty(Vec::new()));
        Self { out }
    }

    /// Appends one row; every cell is made safe ([`safe_cell`]).
    pub fn row<I, S>(&mut self, cells: I)
    where
        I: IntoIterator<Item = S>,
        S: AsRef<[u8]>,
    {
        let _ = self.out.row(cells);
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.out.finish().unwrap_or_default()
    }
}

/// The same CSV written as it goes into any writer (a file: a million-line
/// reconciliation is not held in memory first). The caller buffers the writer or not.
pub struct CsvOut<W: std::io::Write> {
    writer: csv::Writer<W>,
}

impl<W: std::io::Write> CsvOut<W> {
    /// Starts the document with its header row.
    pub fn new(w: W, header: &[&str]) -> Result<Self, csv::Error> {
        let mut out = Self::empty(w);
        out.writer.write_record(header)?;
        Ok(out)
    }

    fn empty(w: W) -> Self {
        let writer = csv::WriterBuilder::new()
            .terminator(csv::Terminator::CRLF)
            .from_writer(w);
        Self { writer }
    }

    /// Appends one row; every cell (a text's bytes) is made safe ([`safe_cell`]).
    pub fn row<I, S>(&mut self, cells: I) -> Result<(), csv::Error>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<[u8]>,
    {
        // Field by field, so a cell that needs no change is not copied (a million-line
        // reconciliation is twelve million cells).
        for c in cells {
            self.writer.write_field(safe_cell(c.as_ref()))?;
        }
        self.writer.write_record(None::<&[u8]>)
    }

    /// Flushes what is buffered and hands the writer back.
    pub fn finish(self) -> Result<W, csv::Error> {
        self.writer
            .into_inner()
            .map_err(|e| csv::Error::from(e.into_error()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_are_neutralised_numbers_are_not() {
        assert_eq!(neutralise("=SUM(A1)"), "'=SUM(A1)");
        assert_eq!(neutralise("@cmd"), "'@cmd");
        assert_eq!(neutralise("+1 555 0100"), "'+1 555 0100");
        assert_eq!(neutralise("-2+3"), "'-2+3");
        assert_eq!(neutralise("\tx"), "'\tx");
        assert_eq!(neutralise("-12.34"), "-12.34");
        assert_eq!(neutralise("+5"), "+5");
        assert_eq!(neutralise("1234"), "1234");
        assert_eq!(neutralise("plain"), "plain");
        assert_eq!(neutralise(""), "");
        assert_eq!(neutralise("-"), "'-");
    }

    #[test]
    fn the_writer_neutralises_bytes_as_neutralise_does_text() {
        for cell in [
            "=SUM(A1)",
            "@cmd",
            "+1 555 0100",
            "-2+3",
            "\tx",
            "\rx",
            "-12.34",
            "+5",
            "1234",
            "plain",
            "",
            "-",
            "+",
            "-.5",
            "5.",
            "-0.05",
            "txn_1",
            "=",
            "\u{e9}t\u{e9}",
        ] {
            let mut doc = CsvDoc::new(&["c"]);
            doc.row([cell]);
            let mut expected = CsvDoc::new(&["c"]);
            expected.row([neutralise(&controls::escape(cell)).as_ref()]);
            assert_eq!(doc.into_bytes(), expected.into_bytes(), "{cell:?}");
            assert_eq!(
                neutralise_bytes(cell.as_bytes()).as_ref(),
                neutralise(cell).as_bytes(),
                "{cell:?}"
            );
        }
    }

    #[test]
    fn quotes_commas_and_makes_line_breaks_visible() {
        let mut doc = CsvDoc::new(&["a", "b"]);
        doc.row(["x,y", "line\nbreak"]);
        let text = String::from_utf8(doc.into_bytes()).expect("utf8");
        assert_eq!(text, "a,b\r\n\"x,y\",line\\u{0A}break\r\n");
    }

    /// Issue 40: NUL, ESC and BEL in a bank description reached the CSV raw.
    #[test]
    fn control_characters_never_reach_a_cell_raw() {
        let mut doc = CsvDoc::new(&["text", "n"]);
        doc.row(["STRIPE\0PAYOUT\u{1b}[2J\u{7}", "=1\u{1b}"]);
        doc.row(["\u{85}-x\u{7f}", "\ttab"]);
        let bytes = doc.into_bytes();
        let text = String::from_utf8(bytes).expect("utf8");
        assert_eq!(
            text,
            "text,n\r\nSTRIPE\\u{00}PAYOUT\\u{1B}[2J\\u{07},'=1\\u{1B}\r\n\\u{85}-x\\u{7F},'\ttab\r\n"
        );
        let body = text.replace("\r\n", "");
        assert!(
            !body.chars().any(|c| c.is_control() && c != '\t'),
            "{body:?}"
        );
    }
}
