//! Reading a tickets file as helpdesks write it: CSV with a header (UTF-8, with or
//! without a BOM, LF or CRLF, quoted fields with commas, quotes and line breaks), JSON
//! lines, or one JSON array of objects. Columns (or keys) are found by name
//! ([`super::ticket_columns`]): tieout's own `ticket_id,email,order_id,message[,amount]`,
//! the helpdesk exports' headers, or an explicit map; columns tieout does not use are
//! ignored. A ticket without an order id has it looked for in its subject and message;
//! when none (or several) is found it stays empty and the rules send it to review. Pure
//! text in, tickets out; a line that cannot be read is reported with its line number and
//! the rest are still read.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::Ticket;
use super::ticket_columns::{
    ColumnMap, Field, Found, Layout, OrderPattern, check_order_source, email_of, resolve,
};

/// The formats a tickets file may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TicketsFormat {
    Csv,
    JsonLines,
    /// One JSON array of ticket objects.
    JsonArray,
}

impl TicketsFormat {
    /// By the file's extension (`.csv`; `.jsonl`, `.ndjson`; `.json` is an array when it
    /// starts with `[`, else JSON lines), else by content: a first non-blank character
    /// `{` means JSON lines, `[` a JSON array.
    pub fn detect(extension: Option<&str>, text: &str) -> TicketsFormat {
        let first = strip_bom(text).trim_start().chars().next();
        match extension.map(str::to_ascii_lowercase).as_deref() {
            Some("csv") => TicketsFormat::Csv,
            Some("jsonl" | "ndjson") => TicketsFormat::JsonLines,
            Some("json") if first == Some('[') => TicketsFormat::JsonArray,
            Some("json") => TicketsFormat::JsonLines,
            _ => match first {
                Some('{') => TicketsFormat::JsonLines,
                Some('[') => TicketsFormat::JsonArray,
                _ => TicketsFormat::Csv,
            },
        }
    }
}

/// A line that could not be read (or, in [`TicketsRead::notes`], was read with a remark).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineProblem {
    /// 1-based line number in the file.
    pub line: u64,
    pub message: String,
}

/// What a tickets file held.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TicketsRead {
    /// The readable tickets with their line numbers, in file order.
    pub tickets: Vec<(u64, Ticket)>,
    /// Lines that could not be read.
    pub problems: Vec<LineProblem>,
    /// Lines read with a remark the user should see (several order ids in a message, a
    /// repeated line item of a Shopify order).
    pub notes: Vec<LineProblem>,
}

/// How to read a file's columns: an explicit column map (over the built-in aliases) and
/// the order-id pattern for tickets without an order column.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    pub columns: ColumnMap,
    pub orders: OrderPattern,
}

fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Reads a tickets file with the built-in column names and order pattern.
pub fn read_tickets(text: &str, format: TicketsFormat) -> Result<TicketsRead, String> {
    read_tickets_with(text, format, &ReadOptions::default())
}

/// Reads a tickets file. `Err` only when the file as a whole cannot be read (a CSV header
/// without an email column, a JSON array that does not parse); single bad lines go to
/// [`TicketsRead::problems`].
pub fn read_tickets_with(
    text: &str,
    format: TicketsFormat,
    opts: &ReadOptions,
) -> Result<TicketsRead, String> {
    let mut read = match format {
        TicketsFormat::Csv => read_csv(strip_bom(text), opts),
        TicketsFormat::JsonLines => Ok(read_jsonl(strip_bom(text), opts)),
        TicketsFormat::JsonArray => read_json_array(strip_bom(text), opts),
    }?;
    note_repeated_ids(&mut read);
    Ok(read)
}

/// A ticket id on more than one line gets a note at each repeat, naming the first line:
/// both are still suggested (they may differ), but a helpdesk export that lists a
/// ticket twice is seen, not silently answered twice.
fn note_repeated_ids(read: &mut TicketsRead) {
    let mut first: HashMap<&str, u64> = HashMap::new();
    let mut repeats = Vec::new();
    for (line, t) in &read.tickets {
        let Some(id) = t.ticket_id.as_deref() else {
            continue;
        };
        match first.get(id) {
            Some(at) => repeats.push(LineProblem {
                line: *line,
                message: format!(
                    "ticket {id} is also on line {at}: both are suggested; check the export for a repeated ticket"
                ),
            }),
            None => {
                first.insert(id, *line);
            }
        }
    }
    if !repeats.is_empty() {
        read.notes.extend(repeats);
        read.notes.sort_by_key(|n| n.line);
    }
}

/// [`read_tickets_bytes_with`] with the built-in column names and order pattern.
pub fn read_tickets_bytes(bytes: &[u8], format: TicketsFormat) -> Result<TicketsRead, String> {
    read_tickets_bytes_with(bytes, format, &ReadOptions::default())
}

/// Why a line is not UTF-8: the first bad byte, its column, and the likely encoding.
/// (tieout does not transcode: guessing Windows-1252 could silently change an email or an
/// order id, while re-saving the export as UTF-8 is one step in any spreadsheet.)
fn not_utf8(line: &[u8]) -> Option<String> {
    let e = std::str::from_utf8(line).err()?;
    let at = e.valid_up_to();
    let byte = line.get(at).copied().unwrap_or(0);
    let column = String::from_utf8_lossy(&line[..at]).chars().count() + 1;
    let guess = if line.starts_with(&[0xFF, 0xFE]) || line.starts_with(&[0xFE, 0xFF]) {
        " (the file is UTF-16: it starts with a UTF-16 byte-order mark)"
    } else if byte >= 0x80 {
        " (the file looks like Windows-1252 or Latin-1)"
    } else {
        ""
    };
    Some(format!(
        "is not UTF-8 text: byte 0x{byte:02X} at column {column}{guess}; save the export as UTF-8 and read it again"
    ))
}

/// Reads a tickets file from its bytes: a line that is not UTF-8 is reported as broken
/// (by its number, the byte and its column) rather than failing the file.
pub fn read_tickets_bytes_with(
    bytes: &[u8],
    format: TicketsFormat,
    opts: &ReadOptions,
) -> Result<TicketsRead, String> {
    // By line, ascending (looked up by binary search: a file of many bad lines stays
    // linear).
    let bad_lines: Vec<(u64, String)> = bytes
        .split(|b| *b == b'\n')
        .enumerate()
        .filter_map(|(i, l)| not_utf8(l).map(|why| (i as u64 + 1, why)))
        .collect();
    // Without a readable header no column can be found: the encoding is the error.
    if let Some((_, why)) = bad_lines.iter().find(|(l, _)| *l == 1) {
        return Err(format!("line 1: the header {why}"));
    }
    let text = String::from_utf8_lossy(bytes);
    let mut read = read_tickets_with(&text, format, opts)?;
    if !bad_lines.is_empty() {
        let (bad, good): (Vec<_>, Vec<_>) = read.tickets.into_iter().partition(|(line, t)| {
            bad_lines.binary_search_by_key(line, |(l, _)| *l).is_ok()
                || [&t.email, &t.order_id, &t.message]
                    .iter()
                    .chain(t.ticket_id.as_ref().iter())
                    .any(|f| f.contains('\u{fffd}'))
        });
        read.tickets = good;
        read.problems.extend(bad.into_iter().map(|(line, _)| {
            let message = bad_lines
                .get(bad_lines.partition_point(|(l, _)| *l < line))
                .map_or_else(|| "is not UTF-8 text".to_string(), |(_, why)| why.clone());
            LineProblem { line, message }
        }));
        read.problems.sort_by_key(|p| p.line);
    }
    Ok(read)
}

/// The (order id in ASCII lowercase, email) of every ticket read so far: a Shopify
/// export's later line item of an order is found in a set, not by scanning every earlier
/// ticket (which made a 40,000-order export quadratic).
type OrdersSeen = HashSet<(String, String)>;

/// Builds the ticket of one record from its fields (`get` gives a field's text, empty when
/// the file has no such column): an email is required; a missing order id is looked for
/// in the subject and message; a Shopify order's repeated line-item rows are read once
/// (`seen` holds the orders read).
fn add_ticket(
    line: u64,
    layout: &Layout,
    get: impl Fn(Field) -> Result<String, String>,
    opts: &ReadOptions,
    out: &mut TicketsRead,
    seen: &mut OrdersSeen,
) {
    let mut values: Vec<String> = Vec::with_capacity(Field::ALL.len());
    for f in Field::ALL {
        match get(f) {
            Ok(v) => values.push(v),
            Err(message) => {
                out.problems.push(LineProblem { line, message });
                return;
            }
        }
    }
    let Ok([id, email, order, message, subject, amount]) = <[String; 6]>::try_from(values) else {
        return;
    };
    let email = email_of(&email);
    if email.is_empty() {
        out.problems.push(LineProblem {
            line,
            message: "email is empty".to_string(),
        });
        return;
    }
    let order = if order.is_empty() {
        match opts.orders.find(&[&subject, &message]) {
            Found::One(id) => id,
            Found::None => String::new(),
            Found::Several(ids) => {
                out.notes.push(LineProblem {
                    line,
                    message: format!(
                        "names several order ids ({}) and no order column says which; left for review",
                        ids.join(", ")
                    ),
                });
                String::new()
            }
        }
    } else {
        order
    };
    // The same order (ignoring ASCII case) with the same email as an earlier ticket: only
    // a Shopify export repeats an order per line item, so only it keeps the set.
    let key = (layout.is_shopify_orders() && !order.is_empty())
        .then(|| (order.to_ascii_lowercase(), email.clone()));
    if key.as_ref().is_some_and(|k| seen.contains(k)) {
        out.notes.push(LineProblem {
            line,
            message: format!("another line item of order {order}, read once"),
        });
        return;
    }
    if let Some(key) = key {
        seen.insert(key);
    }
    let message = if message.is_empty() { subject } else { message };
    out.tickets.push((
        line,
        Ticket {
            ticket_id: Some(id).filter(|s| !s.is_empty()),
            email,
            order_id: order,
            message,
            amount: Some(amount).filter(|s| !s.is_empty()),
        },
    ));
}

/// The 1-based line a record starting at byte `byte` is on. The csv reader's own line
/// count skips blank lines and its record offsets can point at the `\n` of the previous
/// line's CRLF, so line breaks at the offset are stepped over first.
fn line_at(text: &str, byte: u64) -> u64 {
    Lines::new(text).line_at(byte)
}

/// [`line_at`] for positions read in order: each call counts only the line breaks since
/// the last one, so numbering a file's records is linear in its size (counting from the
/// start each time made a 100,000-ticket export quadratic).
struct Lines<'t> {
    bytes: &'t [u8],
    /// Where counting reached, and the line breaks before it.
    at: usize,
    breaks: u64,
}

impl<'t> Lines<'t> {
    fn new(text: &'t str) -> Self {
        Self {
            bytes: text.as_bytes(),
            at: 0,
            breaks: 0,
        }
    }

    fn line_at(&mut self, byte: u64) -> u64 {
        let bytes = self.bytes;
        let mut at = usize::try_from(byte).unwrap_or(usize::MAX).min(bytes.len());
        while at < bytes.len() && matches!(bytes[at], b'\r' | b'\n') {
            at += 1;
        }
        if at < self.at {
            // A position behind the last one (never from the reader): count afresh.
            self.at = 0;
            self.breaks = 0;
        }
        self.breaks += memchr::memchr_iter(b'\n', &bytes[self.at..at]).count() as u64;
        self.at = at;
        self.breaks + 1
    }
}

/// A header line that looks like a ticket (an `@` in a column name) is named as such.
fn header_hint(headers: &[String], e: String) -> String {
    if headers.iter().any(|h| h.contains('@')) {
        format!(
            "line 1: {e} (the first line looks like a ticket: the file needs a header line naming its columns)"
        )
    } else {
        format!("line 1: {e}")
    }
}

fn read_csv(text: &str, opts: &ReadOptions) -> Result<TicketsRead, String> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .has_headers(true)
        .from_reader(text.as_bytes());
    let header = reader
        .byte_headers()
        .map_err(|e| format!("the header line cannot be read: {e}"))?
        .clone();
    let names: Vec<String> = header
        .iter()
        .map(|h| String::from_utf8_lossy(h).trim().to_string())
        .collect();
    let names: Vec<String> = if names.len() == 1 && names[0].is_empty() {
        Vec::new()
    } else {
        names
    };
    let layout = resolve(&names, &opts.columns)
        .and_then(|l| check_order_source(&l, &names).map(|()| l))
        .map_err(|e| header_hint(&names, e))?;
    let mut out = TicketsRead::default();
    let mut seen = OrdersSeen::new();
    let mut record = csv::ByteRecord::new();
    let mut lines = Lines::new(text);
    loop {
        let line = lines.line_at(reader.position().byte());
        match reader.read_byte_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                let line = e.position().map_or(line, |p| lines.line_at(p.byte()));
                out.problems.push(LineProblem {
                    line,
                    message: format!("not readable as CSV: {e}"),
                });
                // The csv reader recovers at the next record.
                continue;
            }
        }
        let line = record.position().map_or(line, |p| lines.line_at(p.byte()));
        if record.len() == 1
            && record
                .get(0)
                .is_some_and(|f| f.iter().all(u8::is_ascii_whitespace))
        {
            continue;
        }
        if record.len() != names.len() {
            out.problems.push(LineProblem {
                line,
                message: format!(
                    "has {} fields, the header has {} (a comma inside a message needs \"quotes\")",
                    record.len(),
                    names.len()
                ),
            });
            continue;
        }
        let get = |f: Field| -> Result<String, String> {
            match layout.column(f).and_then(|i| record.get(i)) {
                None => Ok(String::new()),
                Some(bytes) => std::str::from_utf8(bytes)
                    .map(|s| s.trim().to_string())
                    .map_err(|_| "is not UTF-8 text".to_string()),
            }
        };
        add_ticket(line, &layout, get, opts, &mut out, &mut seen);
    }
    // The csv reader takes an unclosed quote to run to the end of the file, which would
    // silently swallow every later line into one message: refuse that record instead.
    if let Some(open) = unclosed_quote_line(text) {
        out.tickets.retain(|(l, _)| *l < open);
        out.problems.retain(|p| p.line < open);
        out.notes.retain(|p| p.line < open);
        out.problems.push(LineProblem {
            line: open,
            message: format!(
                "a quoted field opened on this line is never closed, so lines {open} to {} were read as one field; add the closing quote",
                (line_at(text, text.len() as u64) - u64::from(text.ends_with('\n'))).max(open)
            ),
        });
    }
    Ok(out)
}

/// The line where a quoted CSV field opens that no quote closes, if any (RFC 4180: a
/// field is quoted when it starts with `"`; `""` inside it is an escaped quote).
fn unclosed_quote_line(text: &str) -> Option<u64> {
    let bytes = text.as_bytes();
    let mut line = 1u64;
    let mut at_field_start = true;
    let mut opened_on: Option<u64> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if opened_on.is_some() {
            if b == b'"' {
                if bytes.get(i + 1) == Some(&b'"') {
                    i += 1;
                } else {
                    opened_on = None;
                }
            }
        } else if b == b'"' && at_field_start {
            opened_on = Some(line);
        }
        if b == b'\n' {
            line += 1;
        }
        at_field_start = opened_on.is_none() && matches!(b, b',' | b'\n' | b'\r');
        i += 1;
    }
    opened_on
}

/// A JSON value as ticket text: strings as they are, numbers written out (`"ticket_id": 42`).
fn text_of(v: Option<&Value>, key: &str) -> Result<String, String> {
    match v {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.trim().to_string()),
        Some(Value::Number(n)) => Ok(n.to_string()),
        Some(other) => Err(format!("'{key}' must be text, not {other}")),
    }
}

/// An object's keys with nested objects spelled out (`{"requester": {"email": …}}` has
/// the key `requester.email`, which finds the same field as a `Requester email` column).
fn flatten(prefix: &str, map: &serde_json::Map<String, Value>, out: &mut Vec<(String, Value)>) {
    for (k, v) in map {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            Value::Object(inner) => flatten(&key, inner, out),
            other => out.push((key, other.clone())),
        }
    }
}

/// One JSON object as a ticket (its keys found like a CSV header's columns).
fn add_json_ticket(
    line: u64,
    v: Value,
    opts: &ReadOptions,
    out: &mut TicketsRead,
    seen: &mut OrdersSeen,
) {
    let Value::Object(map) = v else {
        out.problems.push(LineProblem {
            line,
            message: "is not a JSON object".to_string(),
        });
        return;
    };
    let mut pairs = Vec::new();
    flatten("", &map, &mut pairs);
    let keys: Vec<String> = pairs.iter().map(|(k, _)| k.clone()).collect();
    match resolve(&keys, &opts.columns) {
        Ok(layout) => {
            let get = |f: Field| {
                let at = layout.column(f);
                text_of(
                    at.map(|i| &pairs[i].1),
                    at.map_or("", |i| pairs[i].0.as_str()),
                )
            };
            add_ticket(line, &layout, get, opts, out, seen);
        }
        Err(e) => out.problems.push(LineProblem {
            line,
            message: e.replace("the header has", "the object has"),
        }),
    }
}

fn read_jsonl(text: &str, opts: &ReadOptions) -> TicketsRead {
    let mut out = TicketsRead::default();
    let mut seen = OrdersSeen::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i as u64 + 1;
        if raw.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(raw) {
            Ok(v) => add_json_ticket(line, v, opts, &mut out, &mut seen),
            Err(e) => out.problems.push(LineProblem {
                line,
                message: format!("not valid JSON: {e}"),
            }),
        }
    }
    out
}

/// The line each element of a top-level JSON array starts on.
fn element_lines(text: &str) -> Vec<u64> {
    let (mut line, mut depth, mut in_str, mut escaped) = (1u64, 0u32, false, false);
    let mut starts = Vec::new();
    let mut expecting = false;
    for c in text.chars() {
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
        } else {
            if depth == 1 && expecting && !c.is_whitespace() && c != ',' && c != ']' {
                starts.push(line);
                expecting = false;
            }
            match c {
                '"' => in_str = true,
                '[' | '{' => {
                    depth += 1;
                    if depth == 1 {
                        expecting = true;
                    }
                }
                ']' | '}' => depth = depth.saturating_sub(1),
                ',' if depth == 1 => expecting = true,
                _ => {}
            }
        }
        if c == '\n' {
            line += 1;
        }
    }
    starts
}

fn read_json_array(text: &str, opts: &ReadOptions) -> Result<TicketsRead, String> {
    let items: Vec<Value> = serde_json::from_str(text).map_err(|e| {
        format!(
            "line {}: not a valid JSON array of tickets: {e}",
            e.line().max(1)
        )
    })?;
    let lines = element_lines(text);
    let mut out = TicketsRead::default();
    let mut seen = OrdersSeen::new();
    for (i, v) in items.into_iter().enumerate() {
        let line = lines.get(i).copied().unwrap_or(1);
        add_json_ticket(line, v, opts, &mut out, &mut seen);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ticket id repeated in the file is noted at the repeat, with the first line; both
    /// tickets are still read (they may differ), in CSV and JSON lines alike.
    #[test]
    fn a_repeated_ticket_id_is_noted_with_its_first_line() {
        let csv = "ticket_id,email,order_id,message\nT-1,a@x.io,ORD-1,ok\nT-2,b@x.io,ORD-2,ok\nT-1,a@x.io,ORD-9,again\n";
        let read = read_tickets(csv, TicketsFormat::Csv).expect("readable");
        assert_eq!(read.tickets.len(), 3);
        assert_eq!(read.notes.len(), 1, "{:?}", read.notes);
        assert_eq!(read.notes[0].line, 4);
        assert!(
            read.notes[0]
                .message
                .contains("ticket T-1 is also on line 2"),
            "{:?}",
            read.notes
        );
        let jsonl = "{\"ticket_id\":\"T-1\",\"email\":\"a@x.io\",\"order_id\":\"O\"}\n{\"ticket_id\":\"T-1\",\"email\":\"a@x.io\",\"order_id\":\"O\"}\n";
        let read = read_tickets(jsonl, TicketsFormat::JsonLines).expect("readable");
        assert_eq!(read.notes.len(), 1, "{:?}", read.notes);
        assert_eq!(read.notes[0].line, 2);
    }

    #[test]
    fn a_line_that_is_not_utf8_is_reported_not_fatal() {
        let mut bytes =
            b"ticket_id,email,order_id,message\nT-1,a@x.io,ORD-1,ok\nT-2,b@x.io,ORD-2,caf".to_vec();
        bytes.push(0xE9);
        bytes.extend_from_slice(b"\nT-3,c@x.io,ORD-3,ok\n");
        let read = read_tickets_bytes(&bytes, TicketsFormat::Csv).expect("readable");
        assert_eq!(
            read.tickets.iter().map(|(l, _)| *l).collect::<Vec<_>>(),
            [2, 4]
        );
        assert_eq!(read.problems.len(), 1, "{:?}", read.problems);
        assert_eq!(read.problems[0].line, 3);
        // The line, the byte and its column, the likely encoding and what to do.
        assert_eq!(
            read.problems[0].message,
            "is not UTF-8 text: byte 0xE9 at column 21 (the file looks like Windows-1252 or Latin-1); save the export as UTF-8 and read it again"
        );
    }

    #[test]
    fn an_unclosed_quote_is_reported_not_swallowing_later_lines() {
        let text = "ticket_id,email,order_id,message\nT-1,a@x.io,ORD-1,\"ok, \"\"quoted\"\"\"\nT-2,b@x.io,ORD-2,\"never closed\nT-3,c@x.io,ORD-3,lost\n";
        let read = read_tickets(text, TicketsFormat::Csv).expect("readable");
        assert_eq!(
            read.tickets.iter().map(|(l, _)| *l).collect::<Vec<_>>(),
            [2]
        );
        assert_eq!(read.problems.len(), 1, "{:?}", read.problems);
        assert_eq!(read.problems[0].line, 3);
        assert!(
            read.problems[0].message.contains("never closed"),
            "{:?}",
            read.problems
        );
        // A quote inside an unquoted field is text, not an opening quote.
        let fine = "ticket_id,email,order_id,message\nT-1,a@x.io,ORD-1,he said \"hi\n";
        let read = read_tickets(fine, TicketsFormat::Csv).expect("readable");
        assert_eq!(read.tickets.len(), 1);
        assert!(read.problems.is_empty(), "{:?}", read.problems);
    }

    #[test]
    fn detects_the_format() {
        assert_eq!(TicketsFormat::detect(Some("CSV"), "{"), TicketsFormat::Csv);
        assert_eq!(
            TicketsFormat::detect(Some("jsonl"), "a,b"),
            TicketsFormat::JsonLines
        );
        assert_eq!(
            TicketsFormat::detect(None, "\u{feff}  {\"email\":1}"),
            TicketsFormat::JsonLines
        );
        assert_eq!(
            TicketsFormat::detect(Some("txt"), "ticket_id,email"),
            TicketsFormat::Csv
        );
    }

    #[test]
    fn reads_csv_and_reports_broken_lines_by_number() {
        let text = "ticket_id,email,order_id,message\r\n\
                    T-1,a@x.io,ORD-1,\"Hi, please refund\"\r\n\
                    T-2,b@x.io,ORD-2\r\n\
                    T-3,,ORD-3,no email\r\n\
                    \r\n\
                    T-4,c@x.io,ORD-4,\"multi\nline\"\r\n\
                    T-5,d@x.io,ORD-5,ok\r\n";
        let read = read_tickets(text, TicketsFormat::Csv).expect("readable");
        let ids: Vec<(u64, &str)> = read
            .tickets
            .iter()
            .map(|(l, t)| (*l, t.ticket_id.as_deref().unwrap_or("")))
            .collect();
        assert_eq!(ids, [(2, "T-1"), (6, "T-4"), (8, "T-5")]);
        assert_eq!(read.tickets[0].1.message, "Hi, please refund");
        let lines: Vec<u64> = read.problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, [3, 4], "{:?}", read.problems);
        assert!(read.problems[0].message.contains("has 3 fields"));
        assert!(read.problems[1].message.contains("email is empty"));
    }

    #[test]
    fn a_csv_header_without_the_columns_is_refused() {
        let e = read_tickets("id,mail,order\n1,a,b\n", TicketsFormat::Csv).expect_err("bad header");
        assert!(
            e.starts_with("line 1: no column gives the customer's email"),
            "{e}"
        );
        assert!(
            e.contains("the header has: \"id\", \"mail\", \"order\""),
            "{e}"
        );
        let e = read_tickets("ticket_id,email\n1,a\n", TicketsFormat::Csv).expect_err("no order");
        assert!(e.contains("order_id"), "{e}");
        // Column order is free and `amount` is optional.
        let read = read_tickets(
            "email,order_id,amount\na@x.io,O-1,12.50\n",
            TicketsFormat::Csv,
        )
        .expect("readable");
        assert_eq!(read.tickets[0].1.amount.as_deref(), Some("12.50"));
        assert_eq!(read.tickets[0].1.ticket_id, None);
    }

    #[test]
    fn reads_json_lines_and_reports_broken_lines_by_number() {
        let text = "{\"ticket_id\":\"T-1\",\"email\":\"a@x.io\",\"order_id\":\"ORD-1\",\"message\":\"hi\"}\n\
                    {\"ticket_id\":2,\"email\":\"b@x.io\",\"order_id\":\"ORD-2\"\n\
                    \n\
                    [1,2]\n\
                    {\"ticket_id\":3,\"email\":\"c@x.io\",\"order_id\":7,\"extra\":true}\n\
                    {\"email\":\"d@x.io\"}\n\
                    {\"email\":{\"a\":1},\"order_id\":\"x\"}\n";
        let read = read_tickets(text, TicketsFormat::JsonLines).expect("readable");
        let got: Vec<(u64, Option<&str>, &str)> = read
            .tickets
            .iter()
            .map(|(l, t)| (*l, t.ticket_id.as_deref(), t.order_id.as_str()))
            .collect();
        // Line 6 names no order: a ticket all the same, which the rules send to review.
        assert_eq!(
            got,
            [
                (1, Some("T-1"), "ORD-1"),
                (5, Some("3"), "7"),
                (6, None, "")
            ]
        );
        let lines: Vec<u64> = read.problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, [2, 4, 7], "{:?}", read.problems);
        assert!(read.problems[0].message.starts_with("not valid JSON"));
        assert!(
            read.problems[2]
                .message
                .contains("no column gives the customer's email"),
            "{:?}",
            read.problems
        );
    }

    #[test]
    fn a_helpdesk_export_is_read_by_its_column_names() {
        // Freshdesk-style: BOM, CRLF, its own order and extra columns, a quoted line break,
        // no order column (the id is in the subject or the description).
        let text = "\u{feff}Ticket ID,Status,Subject,Description,Requester Email,Created Time\r\n\
                    41,Open,Refund ORD-7010,\"It never\r\narrived.\",Jordan <jordan@x.io>,2026-11-01\r\n\
                    42,Open,Refund please,\"Order #1042, thanks\",maya@x.io,2026-11-02\r\n\
                    43,Open,Refund please,no order here,dan@x.io,2026-11-03\r\n\
                    44,Open,ORD-1 and ORD-222,also ORD-333,eve@x.io,2026-11-04\r\n";
        let read = read_tickets(text, TicketsFormat::Csv).expect("readable");
        assert!(read.problems.is_empty(), "{:?}", read.problems);
        let got: Vec<(u64, &str, &str, &str)> = read
            .tickets
            .iter()
            .map(|(l, t)| {
                (
                    *l,
                    t.ticket_id.as_deref().unwrap_or(""),
                    t.email.as_str(),
                    t.order_id.as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (2, "41", "jordan@x.io", "ORD-7010"),
                (4, "42", "maya@x.io", "#1042"),
                (5, "43", "dan@x.io", ""),
                (6, "44", "eve@x.io", ""),
            ]
        );
        assert_eq!(read.tickets[0].1.message, "It never\r\narrived.");
        assert_eq!(read.notes.len(), 1, "{:?}", read.notes);
        assert_eq!(read.notes[0].line, 6);
        assert!(
            read.notes[0].message.contains("ORD-222, ORD-333"),
            "{:?}",
            read.notes
        );
    }

    #[test]
    fn a_column_map_and_an_order_pattern_are_used() {
        let opts = ReadOptions {
            columns: ColumnMap::parse("email=\"Mail, primary\",order_id=Ref").expect("map"),
            orders: OrderPattern::default(),
        };
        let text = "Ref,\"Mail, primary\",Other\nA-9,a@x.io,x\n";
        let read = read_tickets_with(text, TicketsFormat::Csv, &opts).expect("mapped");
        assert_eq!(read.tickets[0].1.order_id, "A-9");
        assert_eq!(read.tickets[0].1.email, "a@x.io");
        let custom = ReadOptions {
            columns: ColumnMap::default(),
            orders: OrderPattern::new(&["SO[0-9]+".into()]).expect("pattern"),
        };
        let read = read_tickets_with(
            "email,subject\na@x.io,about SO77\n",
            TicketsFormat::Csv,
            &custom,
        )
        .expect("readable");
        assert_eq!(read.tickets[0].1.order_id, "SO77");
    }

    #[test]
    fn shopify_line_items_of_one_order_are_read_once() {
        let text = "Name,Email,Financial Status,Total,Lineitem name,Id\n\
                    #1001,a@x.io,paid,49.00,Mug,555\n\
                    #1001,a@x.io,,,Lamp,555\n\
                    #1002,b@x.io,paid,12.00,Kettle,556\n";
        let read = read_tickets(text, TicketsFormat::Csv).expect("readable");
        let got: Vec<(&str, Option<&str>)> = read
            .tickets
            .iter()
            .map(|(_, t)| (t.order_id.as_str(), t.amount.as_deref()))
            .collect();
        assert_eq!(got, [("#1001", Some("49.00")), ("#1002", Some("12.00"))]);
        assert_eq!(read.notes[0].line, 3);
    }

    /// A repeat is the same order ignoring ASCII case with the same email; the same order
    /// for another email is another ticket. Each order is looked up in a set, so 40,000
    /// orders of three line items each read in one pass (a scan of the earlier tickets per
    /// row took minutes).
    #[test]
    fn shopify_repeats_are_found_by_order_and_email_in_one_pass() {
        let text = "Name,Email,Financial Status,Lineitem name,Id\n\
                    SO-1,a@x.io,paid,Mug,1\n\
                    so-1,a@x.io,,Lamp,1\n\
                    SO-1,b@x.io,paid,Mug,2\n";
        let read = read_tickets(text, TicketsFormat::Csv).expect("readable");
        let got: Vec<(u64, &str)> = read
            .tickets
            .iter()
            .map(|(l, t)| (*l, t.email.as_str()))
            .collect();
        assert_eq!(got, [(2, "a@x.io"), (4, "b@x.io")]);
        assert_eq!(read.notes.len(), 1);
        assert_eq!(read.notes[0].line, 3);

        let mut big = String::from("Name,Email,Financial Status,Lineitem name,Id\n");
        for i in 0..40_000 {
            big.push_str(&format!("#{i},c{i}@x.io,paid,Mug,{i}\n"));
            for item in ["Lamp", "Kettle"] {
                big.push_str(&format!("#{i},c{i}@x.io,,{item},{i}\n"));
            }
        }
        let started = std::time::Instant::now();
        let read = read_tickets(&big, TicketsFormat::Csv).expect("readable");
        assert_eq!(read.tickets.len(), 40_000);
        assert_eq!(read.notes.len(), 80_000);
        // Generous for a debug build on a loaded machine; the scan took minutes.
        assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
    }

    #[test]
    fn a_json_array_with_nested_keys_is_read_with_its_line_numbers() {
        let text = "[\n  {\"id\": 7, \"requester\": {\"email\": \"a@x.io\"}, \"subject\": \"ORD-1234\"},\n  \"text\",\n  {\"email\": \"b@x.io\", \"order_id\": \"ORD-2\", \"tags\": [\"refund\"]}\n]\n";
        assert_eq!(
            TicketsFormat::detect(Some("json"), text),
            TicketsFormat::JsonArray
        );
        let read = read_tickets(text, TicketsFormat::JsonArray).expect("readable");
        let got: Vec<(u64, &str, &str)> = read
            .tickets
            .iter()
            .map(|(l, t)| (*l, t.email.as_str(), t.order_id.as_str()))
            .collect();
        assert_eq!(got, [(2, "a@x.io", "ORD-1234"), (4, "b@x.io", "ORD-2")]);
        assert_eq!(read.tickets[0].1.ticket_id.as_deref(), Some("7"));
        assert_eq!(read.problems.len(), 1);
        assert_eq!(read.problems[0].line, 3);
        let e = read_tickets("[{\"email\": 1},\n", TicketsFormat::JsonArray).expect_err("broken");
        assert!(e.starts_with("line 2: not a valid JSON array"), "{e}");
    }

    #[test]
    fn a_header_that_is_not_utf8_is_an_encoding_error_not_a_missing_column() {
        let utf16 = b"\xff\xfeI\x00d\x00\n";
        let err = read_tickets_bytes(utf16, TicketsFormat::Csv).expect_err("utf-16");
        assert!(
            err.starts_with("line 1: the header is not UTF-8 text"),
            "{err}"
        );
        assert!(err.contains("UTF-16"), "{err}");
        let latin1 = b"ticket_id,e\xe9mail,order_id\nT-1,a@b.com,ORD-1\n";
        let err = read_tickets_bytes(latin1, TicketsFormat::Csv).expect_err("latin-1");
        assert!(err.contains("Windows-1252"), "{err}");
    }
}
