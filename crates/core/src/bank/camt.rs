//! CAMT.053 (ISO 20022 Bank-to-Customer Statement, any `camt.053.001.xx` version) read
//! with `quick-xml`, and the camt.052 account report (`Rpt`) and camt.054 notification
//! (`Ntfctn`), whose entries have the same shape. Every statement of a file is read with
//! its own account currency; each `<Ntry>` becomes a line with `Amt` and its `Ccy`, `CdtDbtInd`
//! (a `DBIT` is negative), `BookgDt` (else `ValDt`), `ValDt`, `AcctSvcrRef` (else
//! `NtryRef`) as the bank's id, the end-to-end id as the reference, and as the text the
//! related parties' names, every `RmtInf/Ustrd` and the additional entry information.

use quick_xml::Reader;
use quick_xml::events::Event;

use super::{BankLine, StatementError, parse_amount, parse_date};
use crate::money::Currency;

/// The 1-based line of a byte offset.
fn line_of(newlines: &[usize], offset: u64) -> u32 {
    let offset = usize::try_from(offset).unwrap_or(usize::MAX);
    let before = newlines.partition_point(|&n| n < offset);
    u32::try_from(before + 1).unwrap_or(u32::MAX)
}

#[derive(Default)]
struct Entry {
    line: u32,
    statement: u32,
    amount: Option<String>,
    currency: Option<String>,
    indicator: Option<String>,
    booked: Option<String>,
    value: Option<String>,
    servicer_ref: Option<String>,
    entry_ref: Option<String>,
    end_to_end: Option<String>,
    texts: Vec<String>,
    /// The transactions of a batch entry (`NtryDtls/TxDtls`), in order.
    txs: Vec<Tx>,
}

/// One `TxDtls` of an entry: its own amount (when given), reference and text.
#[derive(Default)]
struct Tx {
    line: u32,
    amount: Option<String>,
    currency: Option<String>,
    indicator: Option<String>,
    end_to_end: Option<String>,
    texts: Vec<String>,
}

/// Reads every `<Ntry>` of a camt.053 document. Malformed or truncated XML, a document
/// with no `<Stmt>`, and an entry missing its amount, currency, indicator or date are
/// errors naming the line and element.
pub fn read(file: &str, bytes: &[u8]) -> Result<Vec<BankLine>, StatementError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        StatementError::new(file, format!("byte {}", e.valid_up_to()), "UTF-8 text")
    })?;
    let newlines: Vec<usize> = text.match_indices('\n').map(|(i, _)| i).collect();
    let mut reader = Reader::from_str(text);

    let mut stack: Vec<(String, u32)> = Vec::new();
    let mut buf = String::new();
    let mut account_ccy: Option<String> = None;
    let mut statements = 0_usize;
    let mut entry: Option<Entry> = None;
    let mut lines = Vec::new();
    loop {
        let event = reader.read_event().map_err(|e| {
            StatementError::new(
                file,
                format!("line {}", line_of(&newlines, reader.error_position())),
                format!("well-formed XML ({e})"),
            )
        })?;
        match event {
            Event::Start(start) => {
                let name = String::from_utf8_lossy(start.local_name().as_ref()).into_owned();
                let line = line_of(&newlines, reader.buffer_position().saturating_sub(1));
                // A camt.053 `Stmt`, a camt.052 `Rpt` or a camt.054 `Ntfctn`: one account.
                if matches!(name.as_str(), "Stmt" | "Rpt" | "Ntfctn")
                    && !stack.iter().any(|(n, _)| n == "Ntry")
                {
                    statements += 1;
                    // Each statement names its own account's currency.
                    account_ccy = None;
                }
                if name == "Ntry" && entry.is_none() {
                    entry = Some(Entry {
                        line,
                        statement: u32::try_from(statements.saturating_sub(1)).unwrap_or(u32::MAX),
                        ..Entry::default()
                    });
                }
                if name == "TxDtls"
                    && let Some(e) = entry.as_mut()
                {
                    e.txs.push(Tx {
                        line,
                        ..Tx::default()
                    });
                }
                let parent = stack.last().map(|(n, _)| n.as_str());
                if name == "Amt"
                    && let Some(e) = entry.as_mut()
                {
                    let ccy = start
                        .attributes()
                        .flatten()
                        .find(|a| a.key.local_name().as_ref() == b"Ccy")
                        .and_then(|a| a.unescape_value().ok().map(|v| v.into_owned()));
                    match parent {
                        Some("Ntry") => e.currency = ccy,
                        Some("TxDtls" | "TxAmt") => {
                            if let Some(t) = e.txs.last_mut() {
                                t.currency = ccy;
                            }
                        }
                        _ => {}
                    }
                }
                stack.push((name, line));
                buf.clear();
            }
            Event::Text(t) => {
                buf.push_str(&t.decode().unwrap_or_default());
            }
            Event::CData(t) => {
                buf.push_str(&String::from_utf8_lossy(&t));
            }
            Event::GeneralRef(r) => {
                if let Ok(Some(c)) = r.resolve_char_ref() {
                    buf.push(c);
                } else {
                    match r.decode().unwrap_or_default().as_ref() {
                        "amp" => buf.push('&'),
                        "lt" => buf.push('<'),
                        "gt" => buf.push('>'),
                        "quot" => buf.push('"'),
                        "apos" => buf.push('\''),
                        _ => {}
                    }
                }
            }
            Event::End(_) => {
                let value = buf.trim().to_string();
                buf.clear();
                let names: Vec<&str> = stack.iter().map(|(n, _)| n.as_str()).collect();
                on_end(&names, value, &mut entry, &mut account_ccy);
                if let Some((name, _)) = stack.pop()
                    && name == "Ntry"
                    && !stack.iter().any(|(n, _)| n == "Ntry")
                    && let Some(e) = entry.take()
                {
                    lines.extend(split(file, e, account_ccy.as_deref())?);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if let Some((name, line)) = stack.last() {
        return Err(StatementError::new(
            file,
            format!("line {line}, <{name}>"),
            format!("</{name}> before the end of the file (the XML is truncated)"),
        ));
    }
    if statements == 0 {
        return Err(StatementError::new(
            file,
            "<BkToCstmrStmt>",
            "at least one <Stmt> statement (the file has none)",
        ));
    }
    Ok(lines)
}

/// Files the text of an element that just ended, by its path.
fn on_end(
    path: &[&str],
    value: String,
    entry: &mut Option<Entry>,
    account_ccy: &mut Option<String>,
) {
    let Some(&last) = path.last() else { return };
    let Some(at) = path.iter().position(|n| *n == "Ntry") else {
        if last == "Ccy" && path.len() >= 2 && path[path.len() - 2] == "Acct" {
            *account_ccy = Some(value);
        }
        return;
    };
    let Some(e) = entry.as_mut() else { return };
    let rel = &path[at + 1..];
    if let (["NtryDtls", "TxDtls", within @ ..], Some(t)) = (rel, e.txs.last_mut()) {
        match within {
            ["Amt"] | ["AmtDtls", "TxAmt", "Amt"] => t.amount = Some(value.clone()),
            ["CdtDbtInd"] => t.indicator = Some(value.clone()),
            _ if last == "EndToEndId" && value != "NOTPROVIDED" && t.end_to_end.is_none() => {
                t.end_to_end = Some(value.clone());
            }
            _ if last == "Ustrd" || last == "AddtlTxInf" => t.texts.push(value.clone()),
            _ if last == "Nm" && within.contains(&"RltdPties") => t.texts.insert(0, value.clone()),
            _ => {}
        }
    }
    match rel {
        ["Amt"] => e.amount = Some(value),
        ["CdtDbtInd"] => e.indicator = Some(value),
        ["BookgDt", "Dt" | "DtTm"] => e.booked = Some(value),
        ["ValDt", "Dt" | "DtTm"] => e.value = Some(value),
        ["AcctSvcrRef"] => e.servicer_ref = Some(value),
        ["NtryRef"] => e.entry_ref = Some(value),
        ["AddtlNtryInf"] => e.texts.push(value),
        _ if last == "EndToEndId" && value != "NOTPROVIDED" && e.end_to_end.is_none() => {
            e.end_to_end = Some(value);
        }
        _ if last == "Ustrd" || last == "AddtlTxInf" => e.texts.push(value),
        _ if last == "Nm" && rel.contains(&"RltdPties") => e.texts.insert(0, value),
        _ => {}
    }
}

/// An entry's lines: a batch entry whose every `TxDtls` gives its own amount becomes one
/// line per transaction, each with its own reference and text (the bank's id gets the
/// transaction's number, `AS0001/2`); any other entry is one line, naming every
/// transaction's end-to-end id.
fn split(
    file: &str,
    mut e: Entry,
    account_ccy: Option<&str>,
) -> Result<Vec<BankLine>, StatementError> {
    let txs = std::mem::take(&mut e.txs);
    if txs.len() < 2 || txs.iter().any(|t| t.amount.is_none()) {
        let ids: Vec<&str> = txs.iter().filter_map(|t| t.end_to_end.as_deref()).collect();
        if ids.len() >= 2 {
            e.end_to_end = Some(ids.join(" "));
        }
        return Ok(vec![finish(file, e, account_ccy)?]);
    }
    let entry_ccy = e.currency.clone();
    let id = e.servicer_ref.clone().or_else(|| e.entry_ref.clone());
    let mut out = Vec::with_capacity(txs.len());
    for (n, t) in txs.into_iter().enumerate() {
        let one = Entry {
            line: t.line,
            statement: e.statement,
            amount: t.amount,
            currency: t.currency.or_else(|| entry_ccy.clone()),
            indicator: t.indicator.or_else(|| e.indicator.clone()),
            booked: e.booked.clone(),
            value: e.value.clone(),
            servicer_ref: id.as_ref().map(|i| format!("{i}/{}", n + 1)),
            entry_ref: None,
            end_to_end: t.end_to_end,
            texts: t.texts,
            txs: Vec::new(),
        };
        out.push(finish(file, one, account_ccy)?);
    }
    Ok(out)
}

fn finish(file: &str, e: Entry, account_ccy: Option<&str>) -> Result<BankLine, StatementError> {
    let place = format!("line {}, <Ntry>", e.line);
    let err = |what: &str| StatementError::new(file, place.clone(), what.to_string());
    let code = e
        .currency
        .as_deref()
        .or(account_ccy)
        .ok_or_else(|| err("a currency (the Ccy of <Amt>)"))?;
    let currency = Currency::parse(code)
        .map_err(|_| err(&format!("a currency code in <Amt Ccy>, found '{code}'")))?;
    let amount_text = e.amount.as_deref().ok_or_else(|| err("an <Amt> amount"))?;
    let amount =
        parse_amount(amount_text, currency, false).map_err(|m| err(&format!("{m} in <Amt>")))?;
    let amount = match e.indicator.as_deref() {
        Some("CRDT") => amount,
        Some("DBIT") => -amount,
        other => {
            return Err(err(&format!(
                "<CdtDbtInd> CRDT or DBIT, found '{}'",
                other.unwrap_or("")
            )));
        }
    };
    let day = |t: &str| parse_date(t.get(..10).unwrap_or(t), "%Y-%m-%d");
    let booked = e
        .booked
        .as_deref()
        .or(e.value.as_deref())
        .ok_or_else(|| err("a <BookgDt> or <ValDt> date"))?;
    let date = day(booked).map_err(|m| err(&format!("{m} in <BookgDt>")))?;
    let value_date = match e.value.as_deref() {
        Some(v) => Some(day(v).map_err(|m| err(&format!("{m} in <ValDt>")))?),
        None => None,
    };
    let texts: Vec<String> = e.texts.into_iter().filter(|t| !t.is_empty()).collect();
    Ok(BankLine {
        file: file.to_string(),
        line: e.line,
        date,
        value_date,
        amount,
        currency,
        description: texts.join(" "),
        reference: e.end_to_end,
        bank_id: e.servicer_ref.or(e.entry_ref),
        statement: e.statement,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
<BkToCstmrStmt><GrpHdr><MsgId>M1</MsgId></GrpHdr>
<Stmt><Id>S1</Id><Acct><Id><IBAN>DE00</IBAN></Id><Ccy>EUR</Ccy></Acct>
<Ntry>
  <Amt Ccy="EUR">1378.29</Amt>
  <CdtDbtInd>CRDT</CdtDbtInd>
  <Sts>BOOK</Sts>
  <BookgDt><Dt>2026-10-06</Dt></BookgDt>
  <ValDt><Dt>2026-10-07</Dt></ValDt>
  <AcctSvcrRef>REF-1</AcctSvcrRef>
  <NtryDtls><TxDtls>
    <Refs><EndToEndId>DEMOIZLO18JNXT6E</EndToEndId></Refs>
    <AmtDtls><TxAmt><Amt Ccy="USD">9.99</Amt></TxAmt></AmtDtls>
    <RltdPties><Dbtr><Nm>Stripe Payments Europe</Nm></Dbtr></RltdPties>
    <RmtInf><Ustrd>STRIPE PAYOUT &amp; more</Ustrd></RmtInf>
  </TxDtls></NtryDtls>
</Ntry>
<Ntry><Amt Ccy="EUR">12.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><BookgDt><DtTm>2026-10-08T10:00:00</DtTm></BookgDt><NtryRef>N2</NtryRef><AddtlNtryInf>Fee</AddtlNtryInf></Ntry>
</Stmt></BkToCstmrStmt></Document>
"#;

    #[test]
    fn entries_with_their_fields() {
        let lines = read("s.xml", DOC.as_bytes()).expect("reads");
        assert_eq!(lines.len(), 2);
        let a = &lines[0];
        assert_eq!(a.line, 5);
        assert_eq!(a.amount, 137_829);
        assert_eq!(a.currency.as_str(), "eur");
        assert_eq!(a.date, jiff::civil::date(2026, 10, 6));
        assert_eq!(a.value_date, Some(jiff::civil::date(2026, 10, 7)));
        assert_eq!(a.bank_id.as_deref(), Some("REF-1"));
        assert_eq!(a.reference.as_deref(), Some("DEMOIZLO18JNXT6E"));
        assert_eq!(a.description, "Stripe Payments Europe STRIPE PAYOUT & more");
        let b = &lines[1];
        assert_eq!(b.amount, -1200);
        assert_eq!(b.bank_id.as_deref(), Some("N2"));
        assert_eq!(b.date, jiff::civil::date(2026, 10, 8));
        assert_eq!(b.description, "Fee");
    }

    /// Two statements in one file, each with its own account currency: every entry is
    /// read, in its statement, and an entry without `Ccy` takes its own account's.
    #[test]
    fn every_statement_with_its_own_currency() {
        let usd = DOC
            .replace("<Ccy>EUR</Ccy>", "<Ccy>USD</Ccy>")
            .replace("<Amt Ccy=\"EUR\">12.00</Amt>", "<Amt>12.00000</Amt>");
        let usd_stmt = &usd[usd.find("<Stmt>").unwrap_or(0)..usd.find("</Stmt>").unwrap_or(0)];
        let two = DOC.replace("</Stmt>", &format!("</Stmt>{usd_stmt}</Stmt>"));
        let lines = read("two.xml", two.as_bytes()).expect("reads");
        let got: Vec<(u32, &str, i64)> = lines
            .iter()
            .map(|l| (l.statement, l.currency.as_str(), l.amount))
            .collect();
        assert_eq!(
            got,
            [
                (0, "eur", 137_829),
                (0, "eur", -1200),
                (1, "eur", 137_829),
                (1, "usd", -1200)
            ]
        );
    }

    /// A camt.052 report and a camt.054 notification carry the same `<Ntry>`: read alike.
    #[test]
    fn reports_and_notifications_are_read_like_statements() {
        for (ns, root, stmt) in [
            ("camt.052.001.02", "BkToCstmrAcctRpt", "Rpt"),
            ("camt.054.001.02", "BkToCstmrDbtCdtNtfctn", "Ntfctn"),
        ] {
            let doc = DOC
                .replace("camt.053.001.02", ns)
                .replace("BkToCstmrStmt", root)
                .replace("<Stmt>", &format!("<{stmt}>"))
                .replace("</Stmt>", &format!("</{stmt}>"));
            assert_eq!(
                super::super::Format::sniff(doc.as_bytes()),
                super::super::Format::Camt053
            );
            let lines = read("r.xml", doc.as_bytes()).expect(ns);
            let amounts: Vec<i64> = lines.iter().map(|l| l.amount).collect();
            assert_eq!(amounts, [137_829, -1200], "{ns}");
        }
    }

    /// A batch entry keeps each transaction's reference: one line per `TxDtls` when each
    /// gives its amount, else one line naming every end-to-end id.
    #[test]
    fn batch_entries_keep_each_transactions_reference() {
        let tx = |id: &str, amt: &str| {
            format!(
                "<TxDtls><Refs><EndToEndId>{id}</EndToEndId></Refs>{amt}<RmtInf><Ustrd>PAYOUT {id}</Ustrd></RmtInf></TxDtls>"
            )
        };
        let batch = |a: &str, b: &str| {
            format!(
                "<Ntry><Amt Ccy=\"EUR\">30.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2026-10-09</Dt></BookgDt><AcctSvcrRef>B1</AcctSvcrRef>\n<NtryDtls>\n{}\n{}\n</NtryDtls></Ntry>\n</Stmt>",
                tx("E2E-A", a),
                tx("E2E-B", b)
            )
        };
        let doc = DOC.replace(
            "</Stmt>",
            &batch(
                "<Amt Ccy=\"EUR\">10.00</Amt>",
                "<AmtDtls><TxAmt><Amt Ccy=\"EUR\">20.000</Amt></TxAmt></AmtDtls>",
            ),
        );
        let lines = read("b.xml", doc.as_bytes()).expect("reads");
        let got: Vec<String> = lines[2..]
            .iter()
            .map(|l| {
                let (r, id) = (l.reference.as_deref(), l.bank_id.as_deref());
                format!("{} {} {r:?} {id:?} {}", l.line, l.amount, l.description)
            })
            .collect();
        assert_eq!(
            got,
            [
                "22 1000 Some(\"E2E-A\") Some(\"B1/1\") PAYOUT E2E-A",
                "23 2000 Some(\"E2E-B\") Some(\"B1/2\") PAYOUT E2E-B",
            ]
        );
        let doc = DOC.replace("</Stmt>", &batch("", ""));
        let lines = read("b.xml", doc.as_bytes()).expect("reads");
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[2].amount, 3000);
        assert_eq!(lines[2].reference.as_deref(), Some("E2E-A E2E-B"));
        assert_eq!(lines[2].description, "PAYOUT E2E-A PAYOUT E2E-B");
    }

    #[test]
    fn malformed_documents_name_the_place() {
        let cut = &DOC[..DOC.find("<CdtDbtInd>DBIT").unwrap_or(0)];
        let e = read("t.xml", cut.as_bytes()).expect_err("truncated");
        assert_eq!(
            e.to_string(),
            "t.xml: line 19, <Ntry>: </Ntry> before the end of the file (the XML is truncated)"
        );
        let bad = DOC.replace("<CdtDbtInd>CRDT", "<CdtDbtInd>CREDIT");
        let e = read("c.xml", bad.as_bytes()).expect_err("indicator");
        assert_eq!(
            e.to_string(),
            "c.xml: line 5, <Ntry>: <CdtDbtInd> CRDT or DBIT, found 'CREDIT'"
        );
        let bad = DOC.replace("<Amt Ccy=\"EUR\">1378.29</Amt>", "");
        let e = read("a.xml", bad.as_bytes()).expect_err("amount");
        assert_eq!(e.to_string(), "a.xml: line 5, <Ntry>: an <Amt> amount");
        let bad = DOC.replace("</Ntry>\n<Ntry>", "</Ntryx>\n<Ntry>");
        let e = read("m.xml", bad.as_bytes()).expect_err("mismatch");
        assert!(
            e.to_string().starts_with("m.xml: line 18: well-formed XML"),
            "{e}"
        );
        let e = read(
            "e.xml",
            b"<Document><BkToCstmrStmt></BkToCstmrStmt></Document>",
        )
        .expect_err("no statement");
        assert_eq!(
            e.to_string(),
            "e.xml: <BkToCstmrStmt>: at least one <Stmt> statement (the file has none)"
        );
    }
}
