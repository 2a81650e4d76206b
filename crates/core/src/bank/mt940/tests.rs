use super::*;

/// A Sparkasse-style statement: `?`-sub-fields, an entry date, LF line ends.
const SPK: &str = ":20:STARTUMSE
:25:37040044/0532013000
:28C:00001/001
:60F:C261001EUR15000,00
:61:2610061006CR1378,29NTRFNONREF//POS 1
:86:166?00SEPA-GUTSCHRIFT?109310?20EREF+DEMOIZLO18JNXT6E?21SVWZ+ST
RIPE PAYOUT?30AIBKIE2D?31IE29AIBK93115212345678?32Stripe Technology
?33 Europe Ltd?34000
:61:261030D89,40NDDTNONREF
:86:105?00SEPA-LASTSCHRIFT?20EREF+NOTPROVIDED?21SVWZ+Strom Oktober?32
Stadtwerke
:62F:C261030EUR16288,89
";

#[test]
fn a_sparkasse_statement_with_its_sub_fields() {
    let lines = read("s.sta", SPK.as_bytes()).expect("reads");
    assert_eq!(lines.len(), 2);
    let a = &lines[0];
    assert_eq!((a.line, a.amount, a.currency.as_str()), (5, 137_829, "eur"));
    assert_eq!(a.date, jiff::civil::date(2026, 10, 6));
    assert_eq!(a.value_date, Some(jiff::civil::date(2026, 10, 6)));
    assert_eq!(a.reference.as_deref(), Some("DEMOIZLO18JNXT6E"));
    assert_eq!(a.bank_id.as_deref(), Some("POS 1"));
    assert_eq!(
        a.description,
        "Stripe Technology Europe Ltd SEPA-GUTSCHRIFT EREF+DEMOIZLO18JNXT6E SVWZ+STRIPE PAYOUT"
    );
    let b = &lines[1];
    assert_eq!((b.amount, b.reference.as_deref()), (-8940, None));
    assert_eq!(
        b.description,
        "Stadtwerke SEPA-LASTSCHRIFT EREF+NOTPROVIDED SVWZ+Strom Oktober"
    );
    // CR/LF, and a byte order mark, read the same.
    let crlf = SPK.replace('\n', "\r\n");
    assert_eq!(read("s.sta", crlf.as_bytes()).expect("crlf"), lines);
    let bom = format!("\u{feff}{SPK}");
    assert_eq!(
        super::super::Format::sniff(bom.as_bytes()),
        super::super::Format::Mt940
    );
    assert_eq!(read("s.sta", bom.as_bytes()).expect("bom"), lines);
}

#[test]
fn ing_slash_codes_and_a_swift_wrapper_with_two_statements() {
    let ing = "{1:F01INGBNL2AXXXX0000000000}{2:O940INGBNL2AXXXXN}{4:
:20:P261031000000001
:25:NL91INGB0001234567EUR
:28C:00000
:60F:C261001EUR1500,00
:61:261013C2547,21NTRFEREF//00000000000001
/TRCD/00100/
:86:/TRTP/SEPA OVERBOEKING/IBAN/IE29AIBK93115212345678/BIC/AIBKIE2D/NAME/
Stripe Technology Europe Ltd/REMI/USTD//STRIPE PAYOUT/EREF/DEMO6WGST8UYYAR7/
:62F:C261031EUR4047,21
:64:C261031EUR4047,21
:65:C261101EUR4047,21
:86:/SUM/1/0/2547,21/0,00/
-}
{1:F01INGBNL2AXXXX0000000000}{2:O940INGBNL2AXXXXN}{4:
:20:P261031000000002
:25:NL91INGB0007654321USD
:28C:00000
:60F:D261001USD10,00
:61:2610131013RD10,00NRTINONREF
:86:free text
:62M:C261031USD0,
-}";
    let lines = read("i.sta", ing.as_bytes()).expect("reads");
    assert_eq!(lines.len(), 2);
    let a = &lines[0];
    assert_eq!((a.amount, a.statement, a.line), (254_721, 0, 6));
    assert_eq!(a.reference.as_deref(), Some("DEMO6WGST8UYYAR7"));
    assert_eq!(
        a.description,
        "Stripe Technology Europe Ltd STRIPE PAYOUT /TRCD/00100/"
    );
    let b = &lines[1];
    assert_eq!(
        (b.amount, b.statement, b.currency.as_str()),
        (1000, 1, "usd")
    );
    assert_eq!(b.description, "free text");
    assert_eq!(
        super::super::Format::sniff(ing.as_bytes()),
        super::super::Format::Mt940
    );
    assert_eq!(
        super::super::Format::sniff(SPK.as_bytes()),
        super::super::Format::Mt940
    );
}

/// Free text cut where a line is full (65 characters with the tag) joins without a space;
/// a shorter line is a line break, a space.
#[test]
fn free_text_lines_are_joined_as_the_bank_cut_them() {
    let text = SPK.replace(
        ":86:105?00SEPA-LASTSCHRIFT?20EREF+NOTPROVIDED?21SVWZ+Strom Oktober?32\nStadtwerke",
        ":86:RETURN R02 ACCOUNT CLOSED STRIPE TRANSFER ST-WOWHJJZEGZ ACME \nDEMO\nSECOND LINE",
    );
    let lines = read("f.sta", text.as_bytes()).expect("reads");
    assert_eq!(
        lines[1].description,
        "RETURN R02 ACCOUNT CLOSED STRIPE TRANSFER ST-WOWHJJZEGZ ACME DEMO SECOND LINE"
    );
}

/// What real exports do beyond the standard: a bank's header lines before each message
/// (ABN AMRO, ING, Rabobank), SOH/ETX around it (mBank), an amount without a decimal
/// comma (Knab), the 30 February as a value date (German quarter closings).
#[test]
fn bank_headers_framing_and_quirks_are_read() {
    let quirks = SPK
        .replace(
            ":20:STARTUMSE",
            "\u{1}ABNANL2A\n940\n:940:\n0000 01INGBNL2AXXXX00001\n:20:STARTUMSE",
        )
        .replace(":61:261030D89,40", ":61:2602301030D89,40")
        .replace(
            ":62F:C261030EUR16288,89",
            ":62F:C261030EUR16288,89\n-\nABNANL2A\n940\u{3}",
        );
    let lines = read("q.sta", quirks.as_bytes()).expect("reads");
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0].line, 9);
    assert_eq!(lines[1].value_date, Some(jiff::civil::date(2026, 2, 28)));
    let knab = SPK
        .replace("CR1378,29NTRF", "CR1378NTRF")
        .replace("16288,89", "16288,60");
    let lines = read("k.sta", knab.as_bytes()).expect("reads");
    assert_eq!(lines[0].amount, 137_800);
}

#[test]
fn an_mt942_interim_report_is_named() {
    let mt942 = SPK.replace(
        ":60F:C261001EUR15000,00",
        ":34F:EURD0,\n:13D:2610301200+0100",
    );
    let e = read("i.sta", mt942.as_bytes()).expect_err("refused");
    assert!(e.to_string().ends_with("(this looks like an MT942 interim report, which has none and is not read: export the MT940 statement instead)"), "{e}");
}

#[test]
fn entry_dates_across_the_year_end() {
    let v = jiff::civil::date(2027, 1, 2);
    assert_eq!(entry_date(v, "1231"), Ok(jiff::civil::date(2026, 12, 31)));
    let v = jiff::civil::date(2026, 12, 31);
    assert_eq!(entry_date(v, "0102"), Ok(jiff::civil::date(2027, 1, 2)));
    assert!(entry_date(v, "1332").is_err());
}

#[test]
fn malformed_statements_name_the_line_and_the_field() {
    let err = |text: &str| {
        read("m.sta", text.as_bytes())
            .expect_err("refused")
            .to_string()
    };
    assert_eq!(
        err(&SPK.replace("CR1378,29NTRF", "CRNTRF")),
        "m.sta: line 5, :61:: an amount after the mark (C1234,56), found 'NTRFNONREF//POS 1'"
    );
    assert_eq!(
        err(&SPK.replace(":61:2610061006", ":61:2613061006")),
        "m.sta: line 5, :61:: a date as YYMMDD, found '261306'"
    );
    assert_eq!(
        err(&SPK.replace("16288,89", "16288,98")),
        "m.sta: line 12, :62F:: a closing balance equal to the opening balance 15000.00 EUR \
         (line 4) plus the 2 lines' net 1288.89 EUR, that is 16288.89 EUR, found 16288.98 EUR: \
         the statement does not add up (a line is missing or altered); ask the bank for the \
         file again"
    );
    let cut = &SPK[..SPK.find(":62F:").unwrap_or(0)];
    assert_eq!(
        err(cut),
        "m.sta: line 1, :20:: a closing balance :62F: for the statement 'STARTUMSE' before the \
         end of the file (the file is truncated: ask the bank for the file again)"
    );
    assert_eq!(
        err(&SPK.replace("D89,40NDDT", "D89.40NDDT")),
        "m.sta: line 9, :61:: an amount with a decimal comma (1234,56), found '89.40'"
    );
    assert_eq!(
        err(&SPK.replace("D89,40NDDTNONREF", "D89,40")),
        "m.sta: line 9, :61:: a transaction type after the amount (N, F or S and three \
         characters, NTRF), found ''"
    );
    assert_eq!(
        err(&SPK.replace(":60F:C261001EUR15000,00\n", "")),
        "m.sta: line 4, :61:: an opening balance (:60F: or :60M:) before the statement's first :61: line"
    );
    assert_eq!(
        err(&SPK.replace("C261001EUR15000,00", "C261001EUR15000,001")),
        "m.sta: line 4, :60F:: an amount in EUR, found '15000,001' ('15000.001' is not an amount \
         in EUR: it has a non-zero digit beyond the decimals the currency allows)"
    );
    assert_eq!(
        err(&SPK.replace(":61:261030", ":61:261032")),
        "m.sta: line 9, :61:: a date as YYMMDD, found '261032'"
    );
}

#[test]
fn latin1_text_is_read() {
    let text = SPK.replace("Stadtwerke", "Stadtwerke M\u{fc}nchen");
    let bytes: Vec<u8> = text
        .chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
        .collect();
    let lines = read("l.sta", &bytes).expect("latin-1");
    assert!(
        lines[1].description.starts_with("Stadtwerke München"),
        "{}",
        lines[1].description
    );
}
