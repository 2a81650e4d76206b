//! CSV in RFC 4180 with a header row, made safe for spreadsheets: a text cell that begins
//! with `=`, `+`, `-`, `@`, tab or CR is prefixed with `'` so it is not run as a formula.
//! Numbers (including negative amounts like `-12.34`) stay numbers.

/// Neutralises a cell that a spreadsheet would treat as a formula.
pub fn neutralise(cell: &str) -> std::borrow::Cow<'_, str> {
    let risky = matches!(
        cell.chars().next(),
        Some('=' | '+' | '-' | '@' | '\t' | '\r')
    );
    if risky && !is_plain_number(cell) {
        std::borrow::Cow::Owned(format!("'{cell}"))
    } else {
        std::borrow::Cow::Borrowed(cell)
    }
}

/// A plain decimal number such as `-12.34`, `+5` or `1234`.
fn is_plain_number(cell: &str) -> bool {
    let body = cell.strip_prefix(['-', '+']).unwrap_or(cell);
    let mut parts = body.splitn(2, '.');
    let int = parts.next().unwrap_or("");
    let frac = parts.next();
    !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.is_none_or(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
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

    /// Appends one row; every cell is neutralised.
    pub fn row<I, S>(&mut self, cells: I)
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
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

    /// Appends one row; every cell is neutralised.
    pub fn row<I, S>(&mut self, cells: I) -> Result<(), csv::Error>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        // Field by field, so a cell that needs no change is not copied (a million-line
        // reconciliation is twelve million cells).
        for c in cells {
            self.writer.write_field(neutralise(c.as_ref()).as_bytes())?;
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
    fn quotes_commas_and_newlines() {
        let mut doc = CsvDoc::new(&["a", "b"]);
        doc.row(["x,y", "line\nbreak"]);
        let text = String::from_utf8(doc.into_bytes()).expect("utf8");
        assert_eq!(text, "a,b\r\n\"x,y\",\"line\nbreak\"\r\n");
    }
}
