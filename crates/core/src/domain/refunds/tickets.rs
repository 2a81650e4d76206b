//! Reading a tickets file: CSV with a header (`ticket_id,email,order_id,message`, plus an
//! optional `amount`) or JSON lines (one object per line with those keys). Pure text in,
//! tickets out; a line that cannot be read is reported with its line number and the rest
//! are still read.

use serde_json::Value;

use super::Ticket;

/// The two formats a tickets file may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TicketsFormat {
    Csv,
    JsonLines,
}

impl TicketsFormat {
    /// By the file's extension (`.csv`; `.jsonl`, `.ndjson`, `.json`), else by content:
    /// a first non-blank character `{` means JSON lines.
    pub fn detect(extension: Option<&str>, text: &str) -> TicketsFormat {
        match extension.map(str::to_ascii_lowercase).as_deref() {
            Some("csv") => TicketsFormat::Csv,
            Some("jsonl" | "ndjson" | "json") => TicketsFormat::JsonLines,
            _ => {
                if strip_bom(text).trim_start().starts_with('{') {
                    TicketsFormat::JsonLines
                } else {
                    TicketsFormat::Csv
                }
            }
        }
    }
}

/// A line that could not be read, and why.
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
}

fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

const COLUMNS: [&str; 5] = ["ticket_id", "email", "order_id", "message", "amount"];

/// Reads a tickets file. `Err` only when the file as a whole cannot be read (a CSV header
/// without `email` and `order_id`, an unknown column); single bad lines go to
/// [`TicketsRead::problems`].
pub fn read_tickets(text: &str, format: TicketsFormat) -> Result<TicketsRead, String> {
    match format {
        TicketsFormat::Csv => read_csv(strip_bom(text)),
        TicketsFormat::JsonLines => Ok(read_jsonl(strip_bom(text))),
    }
}

/// Reads a tickets file from its bytes: a line that is not UTF-8 is reported as broken
/// (by its number) rather than failing the file.
pub fn read_tickets_bytes(bytes: &[u8], format: TicketsFormat) -> Result<TicketsRead, String> {
    let bad_lines: Vec<u64> = bytes
        .split(|b| *b == b'\n')
        .enumerate()
        .filter(|(_, l)| std::str::from_utf8(l).is_err())
        .map(|(i, _)| i as u64 + 1)
        .collect();
    let text = String::from_utf8_lossy(bytes);
    let mut read = read_tickets(&text, format)?;
    if !bad_lines.is_empty() {
        let (bad, good): (Vec<_>, Vec<_>) = read.tickets.into_iter().partition(|(line, t)| {
            bad_lines.contains(line)
                || [&t.email, &t.order_id, &t.message]
                    .iter()
                    .chain(t.ticket_id.as_ref().iter())
                    .any(|f| f.contains('\u{fffd}'))
        });
        read.tickets = good;
        read.problems
            .extend(bad.into_iter().map(|(line, _)| LineProblem {
                line,
                message: "is not UTF-8 text".to_string(),
            }));
        read.problems.sort_by_key(|p| p.line);
    }
    Ok(read)
}

fn check_ticket(line: u64, t: Ticket, out: &mut TicketsRead) {
    let missing: Vec<&str> = [("email", &t.email), ("order_id", &t.order_id)]
        .into_iter()
        .filter(|(_, v)| v.trim().is_empty())
        .map(|(k, _)| k)
        .collect();
    if missing.is_empty() {
        out.tickets.push((line, t));
    } else {
        out.problems.push(LineProblem {
            line,
            message: format!("{} is empty", missing.join(" and ")),
        });
    }
}

/// The 1-based line a record starting at byte `byte` is on. The csv reader's own line
/// count skips blank lines and its record offsets can point at the `\n` of the previous
/// line's CRLF, so line breaks at the offset are stepped over first.
fn line_at(text: &str, byte: u64) -> u64 {
    let bytes = text.as_bytes();
    let mut at = usize::try_from(byte).unwrap_or(usize::MAX).min(bytes.len());
    while at < bytes.len() && matches!(bytes[at], b'\r' | b'\n') {
        at += 1;
    }
    bytes[..at].iter().filter(|b| **b == b'\n').count() as u64 + 1
}

fn read_csv(text: &str) -> Result<TicketsRead, String> {
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
        .map(|h| String::from_utf8_lossy(h).trim().to_ascii_lowercase())
        .collect();
    if let Some(bad) = names.iter().find(|n| !COLUMNS.contains(&n.as_str())) {
        return Err(format!(
            "line 1: unknown column '{bad}'; the header must name ticket_id,email,order_id,message (and optionally amount)"
        ));
    }
    for required in ["email", "order_id"] {
        if !names.iter().any(|n| n == required) {
            return Err(format!(
                "line 1: the header has no '{required}' column; write ticket_id,email,order_id,message"
            ));
        }
    }
    let col = |name: &str| names.iter().position(|n| n == name);
    let (c_id, c_email, c_order, c_msg, c_amount) = (
        col("ticket_id"),
        col("email"),
        col("order_id"),
        col("message"),
        col("amount"),
    );
    let mut out = TicketsRead::default();
    let mut record = csv::ByteRecord::new();
    loop {
        let line = line_at(text, reader.position().byte());
        match reader.read_byte_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                let line = e.position().map_or(line, |p| line_at(text, p.byte()));
                out.problems.push(LineProblem {
                    line,
                    message: format!("not readable as CSV: {e}"),
                });
                // The csv reader recovers at the next record.
                continue;
            }
        }
        let line = record.position().map_or(line, |p| line_at(text, p.byte()));
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
        let field = |c: Option<usize>| -> Result<String, String> {
            match c.and_then(|i| record.get(i)) {
                None => Ok(String::new()),
                Some(bytes) => std::str::from_utf8(bytes)
                    .map(|s| s.trim().to_string())
                    .map_err(|_| "is not UTF-8 text".to_string()),
            }
        };
        let fields = (|| -> Result<Ticket, String> {
            let id = field(c_id)?;
            let amount = field(c_amount)?;
            Ok(Ticket {
                ticket_id: Some(id).filter(|s| !s.is_empty()),
                email: field(c_email)?,
                order_id: field(c_order)?,
                message: field(c_msg)?,
                amount: Some(amount).filter(|s| !s.is_empty()),
            })
        })();
        match fields {
            Ok(t) => check_ticket(line, t, &mut out),
            Err(message) => out.problems.push(LineProblem { line, message }),
        }
    }
    // The csv reader takes an unclosed quote to run to the end of the file, which would
    // silently swallow every later line into one message: refuse that record instead.
    if let Some(open) = unclosed_quote_line(text) {
        out.tickets.retain(|(l, _)| *l < open);
        out.problems.retain(|p| p.line < open);
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

fn read_jsonl(text: &str) -> TicketsRead {
    let mut out = TicketsRead::default();
    for (i, raw) in text.lines().enumerate() {
        let line = i as u64 + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let parsed: Result<Ticket, String> = serde_json::from_str::<Value>(raw)
            .map_err(|e| format!("not valid JSON: {e}"))
            .and_then(|v| match v {
                Value::Object(map) => {
                    let get = |k: &str| text_of(map.get(k), k);
                    let id = get("ticket_id")?;
                    let amount = get("amount")?;
                    Ok(Ticket {
                        ticket_id: Some(id).filter(|s| !s.is_empty()),
                        email: get("email")?,
                        order_id: get("order_id")?,
                        message: get("message")?,
                        amount: Some(amount).filter(|s| !s.is_empty()),
                    })
                }
                _ => Err("is not a JSON object".to_string()),
            });
        match parsed {
            Ok(t) => check_ticket(line, t, &mut out),
            Err(message) => out.problems.push(LineProblem { line, message }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(
            read.problems,
            [LineProblem {
                line: 3,
                message: "is not UTF-8 text".into()
            }]
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
        assert!(e.contains("unknown column 'id'"), "{e}");
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
        assert_eq!(got, [(1, Some("T-1"), "ORD-1"), (5, Some("3"), "7")]);
        let lines: Vec<u64> = read.problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, [2, 4, 6, 7], "{:?}", read.problems);
        assert!(read.problems[0].message.starts_with("not valid JSON"));
        assert!(read.problems[2].message.contains("order_id is empty"));
    }
}
