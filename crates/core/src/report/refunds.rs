//! The refund-suggestion exports (README.md, "Exports"): one JSON object per ticket
//! (`refund-suggestions.jsonl`, and what `suggest` prints for one ticket) and
//! `refund-suggestions.csv` with exactly the columns
//! `ticket_id,email,order_id,recommendation,amount,currency,reason,evidence,evidence_urls`.
//! JSON carries minor units; the CSV shows major units with the currency's exponent.

use serde::Serialize;

use crate::domain::refunds::{Suggestion, Ticket};
use crate::money::format_major_inline;
use crate::report::columns::{self, Column};

pub const JSONL_FILE: &str = "refund-suggestions.jsonl";
pub const CSV_FILE: &str = "refund-suggestions.csv";
/// The CSV's columns: a ticket and the suggestion for it. Amount in major units (`0`
/// when no charge matched, so no currency applies), evidence as space-separated ids.
pub const CSV_COLUMNS: &[Column<(Ticket, Suggestion)>] = &[
    Column::csv("ticket_id", |(_, s)| opt(s.ticket_id.as_deref()).into()),
    Column::csv("email", |(t, _)| t.email.trim().into()),
    Column::csv("order_id", |(t, _)| t.order_id.trim().into()),
    Column::csv("recommendation", |(_, s)| s.recommendation.as_str().into()),
    Column::csv("amount", |(_, s)| match s.currency {
        Some(c) => format_major_inline(s.amount, c).into(),
        None => s.amount.to_string().into(),
    }),
    Column::csv("currency", |(_, s)| {
        opt(s.currency.as_ref().map(|c| c.as_str())).into()
    }),
    Column::csv("reason", |(_, s)| s.reason.as_str().into()),
    Column::csv("evidence", |(_, s)| s.evidence.join(" ").into()),
    Column::csv("evidence_urls", |(_, s)| s.evidence_urls.join(" ").into()),
];

fn opt(s: Option<&str>) -> &str {
    s.unwrap_or("")
}

/// The JSON object of one suggestion, keys in the contract's order:
/// `{"ticket_id","recommendation","amount","currency","reason","evidence","rule","evidence_urls"}`.
pub fn json_line(s: &Suggestion) -> String {
    #[derive(Serialize)]
    struct Line<'a> {
        ticket_id: Option<&'a str>,
        recommendation: &'static str,
        amount: i64,
        currency: Option<&'a str>,
        reason: &'a str,
        evidence: &'a [String],
        rule: &'a str,
        evidence_urls: &'a [String],
    }
    let line = Line {
        ticket_id: s.ticket_id.as_deref(),
        recommendation: s.recommendation.as_str(),
        amount: s.amount,
        currency: s.currency.as_ref().map(|c| c.as_str()),
        reason: &s.reason,
        evidence: &s.evidence,
        rule: &s.rule,
        evidence_urls: &s.evidence_urls,
    };
    // Serialising plain strings and integers cannot fail.
    serde_json::to_string(&line).unwrap_or_default()
}

/// `refund-suggestions.jsonl`: one [`json_line`] per ticket, `\n`-terminated.
pub fn jsonl(rows: &[(Ticket, Suggestion)]) -> Vec<u8> {
    let mut out = String::new();
    for (_, s) in rows {
        out.push_str(&json_line(s));
        out.push('\n');
    }
    out.into_bytes()
}

/// `refund-suggestions.csv`: one row per ticket, in [`CSV_COLUMNS`].
pub fn csv(rows: &[(Ticket, Suggestion)]) -> Vec<u8> {
    columns::csv(CSV_COLUMNS, rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::refunds::Recommendation;
    use crate::money::Currency;

    fn row(
        id: Option<&str>,
        rec: Recommendation,
        amount: i64,
        cur: Option<&str>,
    ) -> (Ticket, Suggestion) {
        (
            Ticket {
                ticket_id: id.map(str::to_string),
                email: "=cmd@x.io".into(),
                order_id: "ORD-1".into(),
                message: String::new(),
                amount: None,
            },
            Suggestion {
                ticket_id: id.map(str::to_string),
                recommendation: rec,
                amount,
                currency: cur.map(|c| Currency::parse(c).expect("cur")),
                reason: "Rule. Facts, with a comma.".into(),
                evidence: vec!["cus_1".into(), "ch_1".into()],
                rule: "first-purchase-window".into(),
                evidence_urls: vec!["https://dashboard.stripe.com/test/customers/cus_1".into()],
            },
        )
    }

    #[test]
    fn json_keys_follow_the_contract() {
        let (_, s) = row(Some("T-1"), Recommendation::Partial, 20_990, Some("kwd"));
        assert_eq!(
            json_line(&s),
            r#"{"ticket_id":"T-1","recommendation":"partial","amount":20990,"currency":"kwd","reason":"Rule. Facts, with a comma.","evidence":["cus_1","ch_1"],"rule":"first-purchase-window","evidence_urls":["https://dashboard.stripe.com/test/customers/cus_1"]}"#
        );
        let (_, s) = row(None, Recommendation::Review, 0, None);
        assert!(json_line(&s).starts_with(
            r#"{"ticket_id":null,"recommendation":"review","amount":0,"currency":null,"#
        ));
    }

    #[test]
    fn csv_has_the_exact_columns_major_units_and_safe_cells() {
        let rows = vec![
            row(Some("T-1"), Recommendation::Partial, 20_990, Some("kwd")),
            row(Some("T-2"), Recommendation::Approve, 4980, Some("jpy")),
            row(None, Recommendation::Review, 0, None),
        ];
        let text = String::from_utf8(csv(&rows)).expect("utf8");
        let lines: Vec<&str> = text.split("\r\n").collect();
        assert_eq!(
            lines[0],
            "ticket_id,email,order_id,recommendation,amount,currency,reason,evidence,evidence_urls"
        );
        assert_eq!(
            lines[1],
            "T-1,'=cmd@x.io,ORD-1,partial,20.990,kwd,\"Rule. Facts, with a comma.\",cus_1 ch_1,https://dashboard.stripe.com/test/customers/cus_1"
        );
        assert_eq!(
            lines[2],
            "T-2,'=cmd@x.io,ORD-1,approve,4980,jpy,\"Rule. Facts, with a comma.\",cus_1 ch_1,https://dashboard.stripe.com/test/customers/cus_1"
        );
        assert_eq!(
            lines[3],
            ",'=cmd@x.io,ORD-1,review,0,,\"Rule. Facts, with a comma.\",cus_1 ch_1,https://dashboard.stripe.com/test/customers/cus_1"
        );
        assert_eq!(jsonl(&rows).iter().filter(|b| **b == b'\n').count(), 3);
    }
}
