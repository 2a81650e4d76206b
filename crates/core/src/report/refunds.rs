//! The refund-suggestion exports (README.md, "Exports"): one JSON object per ticket
//! (`refund-suggestions.jsonl`, and what `suggest` prints for one ticket) and
//! `refund-suggestions.csv` with exactly the columns
//! `ticket_id,email,order_id,recommendation,amount,currency,reason,evidence,evidence_urls`.
//! JSON carries minor units; the CSV shows major units with the currency's exponent.

use crate::domain::refunds::{Assessment, Suggestion, Ticket};
use crate::money::{Money, format_major_inline};
use crate::report::fields::{self as report_fields, Field, Get, JsonFields, Reach};

pub const JSONL_FILE: &str = "refund-suggestions.jsonl";
pub const CSV_FILE: &str = "refund-suggestions.csv";

/// A row that carries a ticket and the suggestion for it: the pairs `suggest` writes and
/// the Refunds pane's assessments.
pub trait Suggested {
    fn ticket(&self) -> &Ticket;
    fn suggestion(&self) -> &Suggestion;
}

impl Suggested for (Ticket, Suggestion) {
    fn ticket(&self) -> &Ticket {
        &self.0
    }
    fn suggestion(&self) -> &Suggestion {
        &self.1
    }
}

impl Suggested for Assessment {
    fn ticket(&self) -> &Ticket {
        &self.ticket
    }
    fn suggestion(&self) -> &Suggestion {
        &self.suggestion
    }
}

/// The suggestion row, declared once ([`fields`]): the CSV's columns (amount in major
/// units, `0` when no charge matched so no currency applies; ids and links
/// space-separated), the JSON line's keys in the contract's order (minor units, lists),
/// and the titles of the Refunds pane's queue.
pub fn fields<R: Suggested>() -> [Field<R>; 12] {
    [
        Field::new(
            "ticket_id",
            "Ticket",
            Get::Str(|r: &R| r.suggestion().ticket_id.as_deref()),
        ),
        Field::new(
            "email",
            "Email",
            Get::Str(|r: &R| Some(r.ticket().email.trim())),
        )
        .only(Reach::CsvOnly),
        Field::new(
            "order_id",
            "Order",
            Get::Str(|r: &R| Some(r.ticket().order_id.trim())),
        )
        .only(Reach::CsvOnly),
        Field::new(
            "recommendation",
            "Suggest",
            Get::Str(|r: &R| Some(r.suggestion().recommendation.as_str())),
        ),
        Field::new(
            "amount",
            "Amount",
            Get::Int(|r: &R| Some(r.suggestion().amount)),
        )
        .csv_as(|r: &R| {
            let s = r.suggestion();
            match s.currency {
                Some(c) => format_major_inline(s.amount, c).into(),
                None => s.amount.to_string().into(),
            }
        }),
        Field::new(
            "currency",
            "Currency",
            Get::Str(|r: &R| r.suggestion().currency.as_ref().map(|c| c.as_str())),
        ),
        Field::new(
            "reason",
            "Reason",
            Get::Str(|r: &R| Some(&r.suggestion().reason)),
        ),
        Field::new(
            "evidence",
            "Evidence",
            Get::List(|r: &R| &r.suggestion().evidence),
        ),
        Field::new("rule", "Rule", Get::Str(|r: &R| Some(&r.suggestion().rule)))
            .only(Reach::JsonOnly),
        Field::new(
            "evidence_urls",
            "Evidence links",
            Get::List(|r: &R| &r.suggestion().evidence_urls),
        ),
        // What people read.
        Field::people(
            "refund",
            "Amount",
            Get::Money(|r: &R| {
                let s = r.suggestion();
                s.currency
                    .filter(|_| s.amount > 0)
                    .map(|c| Money::new(s.amount, c))
            }),
        ),
        Field::people(
            "message",
            "Message",
            Get::Str(|r: &R| Some(&r.ticket().message)),
        ),
    ]
}

/// The JSON object of one suggestion, keys in the contract's order:
/// `{"ticket_id","recommendation","amount","currency","reason","evidence","rule","evidence_urls"}`.
pub fn json_line(s: &Suggestion) -> String {
    json_of(&(Ticket::default(), s.clone()))
}

/// The JSON object of one row's suggestion.
pub fn json_of<R: Suggested>(row: &R) -> String {
    // Serialising strings, integers and lists cannot fail.
    serde_json::to_string(&JsonFields::new(&fields::<R>(), row)).unwrap_or_default()
}

/// `refund-suggestions.jsonl`: one [`json_line`] per ticket, `\n`-terminated.
pub fn jsonl(rows: &[(Ticket, Suggestion)]) -> Vec<u8> {
    let mut out = String::new();
    for row in rows {
        out.push_str(&json_of(row));
        out.push('\n');
    }
    out.into_bytes()
}

/// `refund-suggestions.csv`: one row per ticket, in the CSV columns of [`fields`].
pub fn csv(rows: &[(Ticket, Suggestion)]) -> Vec<u8> {
    report_fields::csv(&fields(), rows)
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
