use super::*;

/// A file in the shape of the BAI2 specification's example: one group, one USD account
/// whose summary is continued by an 88, details whose text is continued by an 88.
const FILE: &str = "01,122099999,123456789,261007,0600,1,80,,2/
02,123456789,122099999,1,261006,2400,,2/
03,0417164300,USD,010,2500000,,Z,015,2629542,,Z/
88,100,137829,1,Z,400,8940,1,Z/
16,165,137829,Z,ACH0001,DEMOIZLO18JNXT6E,STRIPE TRANSFER ST-QM6E9WUMLZ/
88,ACME DEMO, PAYOUT
16,475,8940,V,261007,,CHK0002,,CHECK 1042 PAID/
49,5423080,6/
98,5423080,1,8/
99,5423080,1,10/
";

#[test]
fn details_with_their_continuations_currency_and_date() {
    let lines = read("f.bai", FILE.as_bytes()).expect("reads");
    assert_eq!(lines.len(), 2);
    let a = &lines[0];
    assert_eq!((a.line, a.amount, a.currency.as_str()), (5, 137_829, "usd"));
    assert_eq!(a.date, jiff::civil::date(2026, 10, 6));
    assert_eq!(a.reference.as_deref(), Some("DEMOIZLO18JNXT6E"));
    assert_eq!(a.bank_id.as_deref(), Some("ACH0001"));
    assert_eq!(
        a.description,
        "STRIPE TRANSFER ST-QM6E9WUMLZ ACME DEMO, PAYOUT"
    );
    let b = &lines[1];
    assert_eq!((b.amount, b.reference.as_deref()), (-8940, None));
    assert_eq!(b.value_date, Some(jiff::civil::date(2026, 10, 7)));
    assert_eq!(b.description, "CHECK 1042 PAID");
    assert_eq!(
        super::super::Format::sniff(FILE.as_bytes()),
        super::super::Format::Bai2
    );
    let crlf = FILE.replace('\n', "\r\n");
    assert_eq!(read("f.bai", crlf.as_bytes()).expect("crlf"), lines);
}

/// Several records on one line, each ended by its `/`, read as on lines of their own.
#[test]
fn records_run_together_on_a_line() {
    let joined = FILE
        .replace("2/\n02,", "2/   02,")
        .replace("PAID/\n49,", "PAID/ 49,");
    assert_eq!(
        super::super::Format::sniff(joined.as_bytes()),
        super::super::Format::Bai2
    );
    let lines = read("r.bai", joined.as_bytes()).expect("reads");
    assert_eq!(lines.len(), 2);
    assert_eq!(
        (lines[1].line, lines[1].description.as_str()),
        (6, "CHECK 1042 PAID")
    );
}

#[test]
fn the_group_or_account_currency_and_minor_units() {
    let jpy = FILE
        .replace("2400,,2/", "2400,JPY,2/")
        .replace("03,0417164300,USD,", "03,0417164300,,");
    let lines = read("j.bai", jpy.as_bytes()).expect("reads");
    assert_eq!(
        (lines[0].currency.as_str(), lines[0].amount),
        ("jpy", 137_829)
    );
}

/// Funds types `S` and `D` carry availability amounts, in the summary and in a detail; a
/// count of distributions no bank writes is refused, not looped over.
#[test]
fn funds_types_with_their_extra_fields() {
    let text = FILE
        .replace("015,2629542,,Z/", "015,2629542,,S,1,2,3/")
        .replace("16,165,137829,Z,", "16,165,137829,D,2,0,100000,1,37829,");
    let lines = read("d.bai", text.as_bytes()).expect("reads");
    assert_eq!(lines[0].reference.as_deref(), Some("DEMOIZLO18JNXT6E"));
    let bad = FILE.replace("16,165,137829,Z,", "16,165,137829,D,99999999999999,");
    let e = read("d.bai", bad.as_bytes()).expect_err("refused");
    assert!(
        e.to_string()
            .contains("the number of distributions (0 to 99)"),
        "{e}"
    );
}

#[test]
fn control_totals_and_trailers_are_checked() {
    let err = |text: &str| {
        read("c.bai", text.as_bytes())
            .expect_err("refused")
            .to_string()
    };
    assert_eq!(
        err(&FILE.replace("49,5423080,6/", "49,5423081,6/")),
        "c.bai: line 8, record 49: the account's control total to be 5423080 (the sum of the \
         summary amounts of the 03 on line 3 and its 16 amounts, in minor units), found \
         5423081: the file is incomplete or altered; ask the bank for it again"
    );
    assert_eq!(
        err(&FILE.replace("49,5423080,6/", "49,5423080,7/")),
        "c.bai: line 8, record 49: the account's record count (03 to 49) to be 6, found '7': \
         the file is incomplete or altered; ask the bank for it again"
    );
    assert_eq!(
        err(&FILE.replace("99,5423080,1,10/\n", "")),
        "c.bai: line 9: a 99 file trailer after the last record (the file is truncated: ask \
         the bank for it again)"
    );
    assert_eq!(
        err(&FILE.replace("16,475,", "16,010,")),
        "c.bai: line 7, record 16: a detail type code, 100–399 for a credit or 400–699 for a \
         debit, found '010'"
    );
    assert_eq!(
        err(&FILE.replace("16,165,137829,", "16,165,1378.29,")),
        "c.bai: line 5, record 16: an amount in minor units without a decimal point (133130 \
         for 1331.30), found '1378.29'"
    );
    assert_eq!(
        err(&FILE.replace("261006,2400", "261306,2400")),
        "c.bai: line 2, record 02: a date as YYMMDD, found '261306' as the group's as-of date \
         (field 5)"
    );
}
