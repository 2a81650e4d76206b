//! OFX and QFX statements, version 1 (SGML: leaf elements have no end tag) and version 2
//! (XML), read by one small tag scanner: each `<STMTTRN>` becomes a line with `DTPOSTED`,
//! `TRNAMT`, `FITID`, `NAME`/`MEMO` and `REFNUM`; the currency is the statement's `CURDEF`
//! unless the transaction names its own (`<CURRENCY><CURSYM>`). The header before `<OFX>`
//! (SGML `KEY:VALUE` lines, or the XML and `<?OFX ...?>` declarations) is skipped.
//! Every bank or credit-card statement (`<STMTRS>`, `<CCSTMTRS>`) of a file is read, each
//! with its own `CURDEF`; a sign-on or statement `<STATUS>` with severity `ERROR` (a failed
//! download) is the error, with the bank's code and message; an investment statement is
//! refused as such.

use super::{BankLine, StatementError, parse_amount, parse_compact_date};
use crate::money::Currency;

/// One token of the scan.
#[derive(Debug)]
enum Token<'a> {
    Open(&'a str),
    Close(&'a str),
    Text(&'a str),
}

/// Splits the body into tags and texts, each with its 1-based line.
fn tokens<'a>(
    file: &str,
    text: &'a str,
    start: usize,
) -> Result<Vec<(u32, Token<'a>)>, StatementError> {
    let mut out = Vec::new();
    let mut line: u32 = 1 + u32::try_from(text[..start].matches('\n').count()).unwrap_or(0);
    let mut rest = &text[start..];
    while !rest.is_empty() {
        match rest.find('<') {
            None => {
                if !rest.trim().is_empty() {
                    out.push((line, Token::Text(rest.trim())));
                }
                break;
            }
            Some(lt) => {
                let before = &rest[..lt];
                if !before.trim().is_empty() {
                    out.push((line, Token::Text(before.trim())));
                }
                line += u32::try_from(before.matches('\n').count()).unwrap_or(0);
                let tag_text = &rest[lt..];
                if let Some(comment) = tag_text.strip_prefix("<!--") {
                    let end = comment.find("-->").ok_or_else(|| {
                        StatementError::new(
                            file,
                            format!("line {line}"),
                            "the end of a comment (-->)",
                        )
                    })?;
                    line += u32::try_from(comment[..end].matches('\n').count()).unwrap_or(0);
                    rest = &comment[end + 3..];
                    continue;
                }
                let gt = tag_text.find('>').ok_or_else(|| {
                    StatementError::new(
                        file,
                        format!("line {line}"),
                        "a '>' closing the tag (the file looks truncated)",
                    )
                })?;
                let inner = &tag_text[1..gt];
                if let Some(name) = inner.strip_prefix('/') {
                    out.push((line, Token::Close(name.trim())));
                } else if !inner.starts_with('?') && !inner.starts_with('!') {
                    let name = inner.split_whitespace().next().unwrap_or("");
                    let name = name.strip_suffix('/').unwrap_or(name);
                    out.push((line, Token::Open(name)));
                    if inner.trim_end().ends_with('/') {
                        out.push((line, Token::Close(name)));
                    }
                }
                line += u32::try_from(inner.matches('\n').count()).unwrap_or(0);
                rest = &tag_text[gt + 1..];
            }
        }
    }
    Ok(out)
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&")
}

#[derive(Default)]
struct Txn {
    line: u32,
    statement: u32,
    posted: Option<(u32, String)>,
    amount: Option<(u32, String)>,
    fitid: Option<String>,
    refnum: Option<String>,
    name: Option<String>,
    memo: Option<String>,
    cursym: Option<String>,
}

/// A `<STATUS>` aggregate: where, whose (sign-on or statement), and what it says.
struct Status {
    line: u32,
    of: &'static str,
    code: String,
    severity: String,
    message: String,
}

impl Status {
    /// An error status: severity `ERROR`, or a non-zero code without a severity.
    fn failed(&self) -> bool {
        self.severity.eq_ignore_ascii_case("ERROR")
            || (self.severity.is_empty() && !self.code.is_empty() && self.code != "0")
    }
}

/// The error for a download the bank answered with an error status.
fn bank_error(file: &str, failed: &[Status]) -> StatementError {
    let parts: Vec<String> = failed
        .iter()
        .map(|s| match s.message.is_empty() {
            true => format!("{} ({} status)", s.code, s.of),
            false => format!("{}: {} ({} status)", s.code, s.message, s.of),
        })
        .collect();
    StatementError::new(
        file,
        format!("line {}, <STATUS>", failed.first().map_or(0, |s| s.line)),
        format!(
            "the bank answered {}; the download failed and holds no statement: download it \
             again (or export it from the bank's website)",
            parts.join(", then ")
        ),
    )
}

/// Reads every `<STMTTRN>` of an OFX/QFX file. A file with no `<OFX>` element or no
/// `<STMTTRN>` at all is an error, as is a transaction without `DTPOSTED` or `TRNAMT`.
pub fn read(file: &str, bytes: &[u8]) -> Result<Vec<BankLine>, StatementError> {
    let text = String::from_utf8_lossy(bytes);
    let start = text
        .find("<OFX>")
        .or_else(|| text.find("<OFX "))
        .ok_or_else(|| StatementError::new(file, "line 1", "an <OFX> element after the header"))?;
    let toks = tokens(file, &text, start)?;
    let mut lines = Vec::new();
    let mut curdef: Option<(u32, String)> = None;
    let mut txn: Option<Txn> = None;
    let mut last_open: Option<&str> = None;
    let mut statements = 0_u32;
    let mut status_of = "sign-on";
    let mut status: Option<Status> = None;
    let mut failed: Vec<Status> = Vec::new();
    for (line, tok) in &toks {
        match tok {
            Token::Open(name) => {
                let upper = name.to_ascii_uppercase();
                // An SGML `<STATUS>` left open ends at the first tag not its own.
                if !matches!(upper.as_str(), "CODE" | "SEVERITY" | "MESSAGE")
                    && let Some(s) = status.take()
                    && s.failed()
                {
                    failed.push(s);
                }
                match upper.as_str() {
                    "STMTRS" | "CCSTMTRS" => {
                        statements += 1;
                        curdef = None;
                    }
                    "SONRS" => status_of = "sign-on",
                    "STMTTRNRS" | "CCSTMTTRNRS" => status_of = "statement",
                    "STATUS" => {
                        status = Some(Status {
                            line: *line,
                            of: status_of,
                            code: String::new(),
                            severity: String::new(),
                            message: String::new(),
                        })
                    }
                    "INVSTMTMSGSRSV1" | "INVSTMTTRNRS" | "INVSTMTRS" => {
                        return Err(StatementError::new(
                            file,
                            format!("line {line}, <{name}>"),
                            "a bank or credit-card statement (<STMTRS> or <CCSTMTRS>); this is \
                             an investment statement, which tieout does not read: download \
                             the statement of the account the payouts are paid into",
                        ));
                    }
                    _ => {}
                }
                if name.eq_ignore_ascii_case("STMTTRN") {
                    if let Some(t) = &txn {
                        return Err(StatementError::new(
                            file,
                            format!("line {}, <STMTTRN>", t.line),
                            format!("</STMTTRN> before the next <STMTTRN> at line {line}"),
                        ));
                    }
                    txn = Some(Txn {
                        line: *line,
                        statement: statements.saturating_sub(1),
                        ..Txn::default()
                    });
                }
                last_open = Some(name);
            }
            Token::Text(value) => {
                let Some(tag) = last_open.take() else {
                    continue;
                };
                let value = unescape(value);
                let tag = tag.to_ascii_uppercase();
                if tag == "CURDEF" {
                    curdef = Some((*line, value));
                    continue;
                }
                if let Some(s) = status.as_mut() {
                    match tag.as_str() {
                        "CODE" => s.code = value,
                        "SEVERITY" => s.severity = value,
                        "MESSAGE" => s.message = value,
                        _ => {}
                    }
                    continue;
                }
                if let Some(t) = txn.as_mut() {
                    match tag.as_str() {
                        "DTPOSTED" => t.posted = Some((*line, value)),
                        "TRNAMT" => t.amount = Some((*line, value)),
                        "FITID" => t.fitid = Some(value),
                        "REFNUM" => t.refnum = Some(value),
                        "NAME" => t.name = Some(value),
                        "MEMO" => t.memo = Some(value),
                        "CURSYM" => t.cursym = Some(value),
                        _ => {}
                    }
                }
            }
            Token::Close(name) => {
                last_open = None;
                if name.eq_ignore_ascii_case("STATUS")
                    && let Some(s) = status.take()
                    && s.failed()
                {
                    failed.push(s);
                }
                if name.eq_ignore_ascii_case("STMTTRN") {
                    let t = txn.take().ok_or_else(|| {
                        StatementError::new(
                            file,
                            format!("line {line}"),
                            "a <STMTTRN> before </STMTTRN>",
                        )
                    })?;
                    lines.push(finish(file, t, curdef.as_ref())?);
                }
            }
        }
    }
    if let Some(s) = status.take().filter(Status::failed) {
        failed.push(s);
    }
    if !failed.is_empty() {
        return Err(bank_error(file, &failed));
    }
    if let Some(t) = txn {
        return Err(StatementError::new(
            file,
            format!("line {}, <STMTTRN>", t.line),
            "</STMTTRN> closing the transaction (the file looks truncated)",
        ));
    }
    if lines.is_empty() {
        return Err(StatementError::new(
            file,
            "<BANKTRANLIST>",
            "at least one <STMTTRN> transaction (the file has none)",
        ));
    }
    Ok(lines)
}

fn finish(file: &str, t: Txn, curdef: Option<&(u32, String)>) -> Result<BankLine, StatementError> {
    let place = format!("line {}, <STMTTRN>", t.line);
    let err = |what: String| StatementError::new(file, place.clone(), what);
    let code = t
        .cursym
        .clone()
        .or_else(|| curdef.map(|(_, c)| c.clone()))
        .ok_or_else(|| err("a currency (<CURDEF> in the statement or <CURSYM>)".to_string()))?;
    let currency = Currency::parse(code.trim())
        .map_err(|_| err(format!("a currency code, found '{code}'")))?;
    let (date_line, posted) = t
        .posted
        .ok_or_else(|| err("a <DTPOSTED> date".to_string()))?;
    let date = parse_compact_date(&posted)
        .map_err(|e| StatementError::new(file, format!("line {date_line}, <DTPOSTED>"), e))?;
    let (amount_line, amount_text) = t
        .amount
        .ok_or_else(|| err("a <TRNAMT> amount".to_string()))?;
    let decimal_comma = amount_text.contains(',') && !amount_text.contains('.');
    let amount = parse_amount(&amount_text, currency, decimal_comma)
        .map_err(|e| StatementError::new(file, format!("line {amount_line}, <TRNAMT>"), e))?;
    let description = match (t.name, t.memo) {
        (Some(n), Some(m)) if n != m => format!("{n} {m}"),
        (Some(n), _) => n,
        (None, Some(m)) => m,
        (None, None) => String::new(),
    };
    Ok(BankLine {
        file: file.to_string(),
        line: t.line,
        date,
        value_date: None,
        amount,
        currency,
        description,
        reference: t.refnum,
        bank_id: t.fitid,
        statement: t.statement,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SGML: &str = "OFXHEADER:100\r\nDATA:OFXSGML\r\nVERSION:102\r\nCHARSET:1252\r\n\r\n<OFX>\r\n<SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS></SONRS></SIGNONMSGSRSV1>\r\n<BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>USD\r\n<BANKTRANLIST><DTSTART>20261001<DTEND>20261031\r\n<STMTTRN>\r\n<TRNTYPE>CREDIT\r\n<DTPOSTED>20261005120000[-5:EST]\r\n<TRNAMT>1393.11\r\n<FITID>F1\r\n<NAME>STRIPE TRANSFER\r\n<MEMO>ST-A1B2 ACME &amp; CO\r\n</STMTTRN>\r\n<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20261016<TRNAMT>-1331.30<FITID>F2<NAME>RETURN</STMTTRN>\r\n</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\r\n";

    #[test]
    fn sgml_version_1() {
        let lines = read("a.ofx", SGML.as_bytes()).expect("reads");
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].line, 10);
        assert_eq!(lines[0].amount, 139_311);
        assert_eq!(lines[0].date, jiff::civil::date(2026, 10, 5));
        assert_eq!(lines[0].description, "STRIPE TRANSFER ST-A1B2 ACME & CO");
        assert_eq!(lines[0].bank_id.as_deref(), Some("F1"));
        assert_eq!(lines[1].amount, -133_130);
        assert_eq!(lines[1].line, 18);
    }

    #[test]
    fn xml_version_2_with_a_transaction_currency() {
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<?OFX OFXHEADER=\"200\" VERSION=\"220\"?>\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>EUR</CURDEF><BANKTRANLIST>\n<STMTTRN><TRNTYPE>CREDIT</TRNTYPE><DTPOSTED>20261006</DTPOSTED><TRNAMT>1378.29</TRNAMT><FITID>X1</FITID><NAME>STRIPE</NAME><REFNUM>DEMOIZLO18JNXT6E</REFNUM></STMTTRN>\n<STMTTRN><TRNTYPE>CREDIT</TRNTYPE><DTPOSTED>20261007</DTPOSTED><TRNAMT>5.00</TRNAMT><FITID>X2</FITID><CURRENCY><CURRATE>1.1</CURRATE><CURSYM>USD</CURSYM></CURRENCY><MEMO/></STMTTRN>\n</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n";
        let lines = read("b.ofx", xml.as_bytes()).expect("reads");
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].currency.as_str(), "eur");
        assert_eq!(lines[0].reference.as_deref(), Some("DEMOIZLO18JNXT6E"));
        assert_eq!(lines[0].line, 4);
        assert_eq!(lines[1].currency.as_str(), "usd");
        assert_eq!(lines[1].amount, 500);
    }

    /// A failed download: the sign-on and statement status codes and messages are the error.
    #[test]
    fn a_bank_error_status_is_passed_on() {
        let failed = "OFXHEADER:100\nDATA:OFXSGML\n\n<OFX><SIGNONMSGSRSV1><SONRS><STATUS><CODE>15500<SEVERITY>ERROR<MESSAGE>Signon invalid</STATUS><DTSERVER>20261201</SONRS></SIGNONMSGSRSV1>\n<BANKMSGSRSV1><STMTTRNRS><TRNUID>1\n<STATUS><CODE>2000<SEVERITY>ERROR<MESSAGE>General Server Error</STATUS>\n</STMTTRNRS></BANKMSGSRSV1></OFX>\n";
        let e = read("f.ofx", failed.as_bytes()).expect_err("bank error");
        assert_eq!(
            e.to_string(),
            "f.ofx: line 4, <STATUS>: the bank answered 15500: Signon invalid (sign-on status), \
             then 2000: General Server Error (statement status); the download failed and holds \
             no statement: download it again (or export it from the bank's website)"
        );
        // Informational codes (0 success, 1 up to date) are not errors.
        let info = SGML.replace("<CODE>0<SEVERITY>INFO", "<CODE>1<SEVERITY>INFO");
        assert_eq!(read("i.ofx", info.as_bytes()).map(|l| l.len()), Ok(2));
    }

    /// Two accounts in one download: each statement is read with its own `CURDEF`.
    #[test]
    fn several_statements_each_with_its_currency() {
        let eur = "<STMTTRNRS><STMTRS><CURDEF>EUR<BANKTRANLIST><STMTTRN><DTPOSTED>20261006<TRNAMT>8.850<FITID>E1</STMTTRN></BANKTRANLIST></STMTRS></STMTTRNRS>";
        let two = SGML.replace("</STMTTRNRS>", &format!("</STMTTRNRS>{eur}"));
        let lines = read("two.ofx", two.as_bytes()).expect("reads");
        let got: Vec<(u32, &str, i64)> = lines
            .iter()
            .map(|l| (l.statement, l.currency.as_str(), l.amount))
            .collect();
        assert_eq!(
            got,
            [(0, "usd", 139_311), (0, "usd", -133_130), (1, "eur", 885)]
        );
    }

    #[test]
    fn an_investment_statement_is_refused_as_such() {
        let inv = "OFXHEADER:100\n\n<OFX><INVSTMTMSGSRSV1><INVSTMTTRNRS><INVSTMTRS><CURDEF>USD</INVSTMTRS></INVSTMTTRNRS></INVSTMTMSGSRSV1></OFX>";
        let e = read("inv.ofx", inv.as_bytes()).expect_err("investment");
        assert_eq!(
            e.to_string(),
            "inv.ofx: line 3, <INVSTMTMSGSRSV1>: a bank or credit-card statement (<STMTRS> or \
             <CCSTMTRS>); this is an investment statement, which tieout does not read: download \
             the statement of the account the payouts are paid into"
        );
    }

    #[test]
    fn malformed_files_name_the_place() {
        let none = "OFXHEADER:100\n\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>USD<BANKTRANLIST></BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>";
        let e = read("n.ofx", none.as_bytes()).expect_err("no STMTTRN");
        assert_eq!(
            e.to_string(),
            "n.ofx: <BANKTRANLIST>: at least one <STMTTRN> transaction (the file has none)"
        );
        let e = read(
            "t.ofx",
            &SGML.as_bytes()[..SGML.find("</STMTTRN>").unwrap_or(0)],
        )
        .expect_err("truncated");
        assert_eq!(
            e.to_string(),
            "t.ofx: line 10, <STMTTRN>: </STMTTRN> closing the transaction (the file looks truncated)"
        );
        let bad = SGML.replace("<TRNAMT>1393.11", "<TRNAMT>1.2.3");
        let e = read("m.ofx", bad.as_bytes()).expect_err("bad amount");
        assert!(
            e.to_string()
                .starts_with("m.ofx: line 13, <TRNAMT>: an amount in USD"),
            "{e}"
        );
        let bad = SGML.replace("<DTPOSTED>20261005120000[-5:EST]", "<DTPOSTED>10/05/2026");
        let e = read("d.ofx", bad.as_bytes()).expect_err("bad date");
        assert_eq!(
            e.to_string(),
            "d.ofx: line 12, <DTPOSTED>: a date as YYYYMMDD..., found '10/05/2026'"
        );
        let e = read("x.ofx", b"hello").expect_err("not ofx");
        assert_eq!(
            e.to_string(),
            "x.ofx: line 1: an <OFX> element after the header"
        );
    }
}
