//! The dunning exports: `failed-payments.csv` (the contract's exact columns, major units),
//! `failed-payments.md` (totals, the worklist, totals by decline code, uncollectible, and
//! where the data came from) and `failed-payments.json` (the same content, minor units),
//! plus the few lines `tieout dunning` prints for a billing channel. Byte-deterministic:
//! the same worklist and snapshot give the same bytes.

use serde::Serialize;

use crate::domain::declines::Basis;
use crate::domain::dunning::since::SinceOutcome;
use crate::domain::dunning::{WorkRow, Worklist};
use crate::model::SnapshotMeta;
use crate::money::{Money, Totals, format_major};
use crate::report::fields::{self, Field, Get, JsonFields};
use crate::time::iso_utc;

pub const CSV_NAME: &str = "failed-payments.csv";
pub const MD_NAME: &str = "failed-payments.md";
pub const JSON_NAME: &str = "failed-payments.json";

/// The worklist row, declared once ([`fields`]): the CSV's header and cells (exactly as
/// README.md ("Exports") fixes them, money in major units), the JSON rows' keys and values
/// (minor units), the SQL view `worklist` (minor units, timestamps), and the titles and
/// text of the Markdown table ([`MARKDOWN_TABLE`]) and the Worklist pane.
pub const FIELDS: &[Field<WorkRow>] = &[
    Field::new("invoice_id", "Invoice", Get::Str(|r| Some(&r.invoice_id))),
    Field::new(
        "invoice_number",
        "Number",
        Get::Str(|r| r.invoice_number.as_deref()),
    ),
    Field::new(
        "customer_id",
        "Customer id",
        Get::Str(|r| r.customer_id.as_deref()),
    ),
    Field::new(
        "customer_email",
        "Email",
        Get::Str(|r| r.customer_email.as_deref()),
    ),
    Field::new(
        "customer_name",
        "Name",
        Get::Str(|r| r.customer_name.as_deref()),
    ),
    Field::new(
        "currency",
        "Currency",
        Get::Str(|r| Some(r.currency.as_str())),
    ),
    Field::new(
        "amount_remaining",
        "Amount",
        Get::Money(|r| Some(r.money())),
    ),
    Field::new(
        "attempt_count",
        "Attempts",
        Get::Int(|r: &WorkRow| Some(r.attempt_count)),
    )
    .short("Att."),
    Field::new(
        "next_payment_attempt_utc",
        "Next attempt",
        Get::Time(|r| r.next_payment_attempt),
    ),
    Field::new(
        "retries_left",
        "Retries left",
        Get::Bool(|r| r.retries_left),
    ),
    Field::new("due_date_utc", "Due", Get::Time(|r| r.due_date)),
    Field::new(
        "days_past_due",
        "Days past due",
        Get::Int(|r: &WorkRow| r.days_past_due),
    )
    .short("Days late"),
    Field::new(
        "subscription_id",
        "Subscription",
        Get::Str(|r| r.subscription_id.as_deref()),
    ),
    Field::new(
        "decline_code",
        "Decline code",
        Get::Str(|r| r.decline_code.as_deref()),
    ),
    Field::new(
        "failure_code",
        "Failure code",
        Get::Str(|r| r.failure_code.as_deref()),
    ),
    Field::new(
        "outcome_reason",
        "Outcome",
        Get::Str(|r| r.outcome_reason.as_deref()),
    ),
    Field::new(
        "advice_code",
        "Advice",
        Get::Str(|r| r.advice_code.as_deref()),
    ),
    Field::new(
        "action",
        "Action",
        Get::Str(|r: &WorkRow| Some(r.action().as_str())),
    )
    .shown_as(|r| r.action().label().to_string()),
    Field::new(
        "hosted_invoice_url",
        "Invoice URL",
        Get::Str(|r| r.hosted_invoice_url.as_deref()),
    ),
    // What people read, made of the fields above.
    Field::people("customer", "Customer", Get::Str(customer)),
    Field::people(
        "next_retry",
        "Next retry",
        Get::Time(|r: &WorkRow| r.next_payment_attempt),
    )
    .short("Retry")
    .shown_as(|r| {
        r.next_payment_attempt
            .map_or_else(|| "none".to_string(), iso_utc)
    }),
    Field::people("decline", "Decline", Get::Text(|r| Some(decline_cell(r)))),
    Field::people(
        "action_in_full",
        "Action (in full)",
        Get::Str(|r| Some(r.action().label())),
    ),
];

/// The Markdown worklist's columns, in order (names from [`FIELDS`]).
pub const MARKDOWN_TABLE: &[&str] = &[
    "invoice_id",
    "invoice_number",
    "customer",
    "customer_email",
    "amount_remaining",
    "attempt_count",
    "next_retry",
    "retries_left",
    "due_date_utc",
    "days_past_due",
    "subscription_id",
    "decline",
    "action",
    "hosted_invoice_url",
];

/// Who the invoice is for, as people read it: the name, else the email, else the id.
fn customer(r: &WorkRow) -> Option<&str> {
    r.customer_name
        .as_deref()
        .or(r.customer_email.as_deref())
        .or(r.customer_id.as_deref())
}

/// `failed-payments.csv`: one row per worklist invoice, in the worklist's order.
pub fn csv(w: &Worklist) -> Vec<u8> {
    fields::csv(FIELDS, &w.rows)
}

#[derive(Serialize)]
struct JsonDoc<'a> {
    source: JsonSource<'a>,
    computed_at_utc: String,
    rows: Vec<JsonFields<'a, 'a, WorkRow>>,
    totals_by_currency: Vec<JsonCurrencyTotal>,
    totals_by_decline_code: Vec<JsonDeclineTotal>,
    uncollectible: Vec<JsonAmountCount>,
    #[serde(skip_serializing_if = "Option::is_none")]
    changes: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expiring_cards: Option<serde_json::Value>,
}

#[derive(Serialize)]
struct JsonSource<'a> {
    account_id: &'a str,
    account_name: Option<&'a str>,
    mode: &'a str,
    origin: &'a str,
    read_at_utc: String,
    api_version: &'a str,
}

#[derive(Serialize)]
struct JsonCurrencyTotal {
    currency: String,
    invoices: usize,
    amount_remaining: i64,
    no_retry_left_invoices: usize,
    no_retry_left_amount: i64,
}

#[derive(Serialize)]
struct JsonAmount {
    currency: String,
    amount: i64,
}

#[derive(Serialize)]
struct JsonDeclineTotal {
    decline_code: Option<String>,
    /// Set only when Stripe returned no decline code.
    failure_code: Option<String>,
    label: String,
    invoices: usize,
    amounts: Vec<JsonAmount>,
}

#[derive(Serialize)]
struct JsonAmountCount {
    currency: String,
    count: usize,
    amount: i64,
}

/// `t`'s amounts in the worklist's currency order.
fn amounts(w: &Worklist, t: &Totals) -> Vec<JsonAmount> {
    w.ordered(t)
        .into_iter()
        .map(|m| JsonAmount {
            currency: m.currency.as_str().to_string(),
            amount: m.minor,
        })
        .collect()
}

/// `failed-payments.json`: the rows (amounts in minor units) and the totals.
pub fn json(w: &Worklist, meta: &SnapshotMeta) -> Vec<u8> {
    json_with(w, meta, &Extras::default())
}

/// `failed-payments.json` with the objects `extras` add.
pub fn json_with(w: &Worklist, meta: &SnapshotMeta, extras: &Extras<'_>) -> Vec<u8> {
    let doc = JsonDoc {
        changes: extras.since.map(crate::report::dunning_since::json_value),
        expiring_cards: extras
            .expiring
            .map(|e| crate::report::expiring_cards::json_value(e, &w.order)),
        source: JsonSource {
            account_id: &meta.account_id,
            account_name: meta.account_name.as_deref(),
            mode: meta.mode.as_str(),
            origin: meta.origin.as_str(),
            read_at_utc: iso_utc(meta.fetched_at),
            api_version: &meta.api_version,
        },
        computed_at_utc: iso_utc(w.now),
        rows: w.rows.iter().map(|r| JsonFields::new(FIELDS, r)).collect(),
        totals_by_currency: w
            .totals_by_currency
            .iter()
            .map(|t| JsonCurrencyTotal {
                currency: t.currency.as_str().to_string(),
                invoices: t.count,
                amount_remaining: t.amount_remaining,
                no_retry_left_invoices: t.no_retry_count,
                no_retry_left_amount: t.no_retry_amount,
            })
            .collect(),
        totals_by_decline_code: w
            .totals_by_decline_code
            .iter()
            .map(|t| JsonDeclineTotal {
                decline_code: t.key.decline_code.clone(),
                failure_code: t.key.failure_code.clone(),
                label: t.key.label(),
                invoices: t.count,
                amounts: amounts(w, &t.amounts),
            })
            .collect(),
        uncollectible: w
            .uncollectible
            .iter()
            .map(|u| JsonAmountCount {
                currency: u.currency.as_str().to_string(),
                count: u.count,
                amount: u.amount_remaining,
            })
            .collect(),
    };
    // Serialising plain structs of strings and integers cannot fail.
    let mut bytes = serde_json::to_vec_pretty(&doc).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// Amounts per currency joined for one line, in the worklist's currency order (the
/// account's default first): `1234.00 USD, 56.00 EUR`.
fn join_totals(w: &Worklist, t: &Totals) -> String {
    if t.is_empty() {
        return "none".to_string();
    }
    w.ordered(t)
        .iter()
        .map(Money::display)
        .collect::<Vec<_>>()
        .join(", ")
}

/// How the currencies are ordered, in words for the Markdown.
fn order_words(w: &Worklist) -> String {
    match w.order.default_currency() {
        Some(c) => format!(
            "the account's default currency ({}) first, then the others by number of invoices (ties by code)",
            c.upper()
        ),
        None => "currencies by number of invoices (ties by code)".to_string(),
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The decline as staff read it, with the signal that overrode it when there was one.
pub fn decline_cell(r: &WorkRow) -> String {
    let mut s = r.decline_label();
    let c = &r.classification;
    let extra = match c.basis {
        Basis::OutcomeReason
            if r.outcome_reason.is_some() && r.outcome_reason != r.decline_code =>
        {
            r.outcome_reason.as_ref().map(|o| format!("outcome {o}"))
        }
        Basis::AdviceCode => r.advice_code.as_ref().map(|a| format!("advice {a}")),
        _ => None,
    };
    if let Some(e) = extra {
        if s.is_empty() {
            s = e;
        } else {
            s = format!("{s}; {e}");
        }
    }
    s
}

/// Where the data came from, in one sentence.
pub fn provenance(meta: &SnapshotMeta, now: i64) -> String {
    let name = meta
        .account_name
        .as_deref()
        .map(|n| format!(" ({n})"))
        .unwrap_or_default();
    format!(
        "Computed at {} from account {}{}, {} mode, {} data read at {} (Stripe-Version {}).",
        iso_utc(now),
        meta.account_id,
        name,
        meta.mode.as_str(),
        meta.origin.as_str(),
        iso_utc(meta.fetched_at),
        meta.api_version
    )
}

/// What a run adds to the worklist's own exports (all optional; none changes the fixed
/// columns of `failed-payments.csv`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Extras<'a> {
    /// `--since`: the "Since …" section at the top and the JSON's `changes`.
    pub since: Option<&'a SinceOutcome>,
    /// Cards that will fail: a section after the worklist's own.
    pub expiring: Option<&'a crate::report::expiring_cards::ExpiringSection>,
}

/// `failed-payments.md`.
pub fn markdown(w: &Worklist, meta: &SnapshotMeta) -> Vec<u8> {
    markdown_with(w, meta, &Extras::default())
}

/// `failed-payments.md` with the sections `extras` add.
pub fn markdown_with(w: &Worklist, meta: &SnapshotMeta, extras: &Extras<'_>) -> Vec<u8> {
    let mut o = String::new();
    o.push_str("# Failed payments: dunning worklist\n\n");
    o.push_str(&provenance(meta, w.now));
    o.push_str("\n\n");
    if let Some(since) = extras.since {
        o.push_str(&crate::report::dunning_since::markdown_section(since));
    }
    o.push_str("## Totals\n\n");
    o.push_str(&format!("- Recoverable invoices: {}\n", w.rows.len()));
    o.push_str(&format!(
        "- Outstanding: {}\n",
        join_totals(w, &w.outstanding())
    ));
    o.push_str(&format!(
        "- Outstanding with no automatic retry left: {} ({})\n",
        join_totals(w, &w.no_retry_left()),
        plural(w.no_retry_count(), "invoice", "invoices")
    ));
    let unc_count: usize = w.uncollectible.iter().map(|u| u.count).sum();
    o.push_str(&format!(
        "- Uncollectible (written off, not on the list): {}\n\n",
        plural(unc_count, "invoice", "invoices")
    ));
    if !w.totals_by_currency.is_empty() {
        o.push_str("| Currency | Invoices | Outstanding | No retry left: invoices | No retry left: amount |\n");
        o.push_str("|---|---:|---:|---:|---:|\n");
        for t in &w.totals_by_currency {
            o.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                t.currency.upper(),
                t.count,
                format_major(t.amount_remaining, t.currency),
                t.no_retry_count,
                format_major(t.no_retry_amount, t.currency)
            ));
        }
        o.push('\n');
    }

    o.push_str("## Worklist\n\n");
    if w.rows.is_empty() {
        o.push_str("No open invoice has a failed payment or is past due.\n\n");
    } else {
        o.push_str(&format!("Largest first within each currency; {}. Days past due count from the due date; an invoice charged automatically has none, so its count runs from its first payment attempt.\n\n", order_words(w)));
        o.push_str(&fields::markdown_table(FIELDS, MARKDOWN_TABLE, &w.rows));
        o.push('\n');
    }

    o.push_str("## By decline code\n\n");
    if w.totals_by_decline_code.is_empty() {
        o.push_str("No declines.\n\n");
    } else {
        o.push_str("| Decline | Invoices | Outstanding |\n|---|---:|---|\n");
        for t in &w.totals_by_decline_code {
            o.push_str(&format!(
                "| {} | {} | {} |\n",
                fields::markdown_cell(&t.key.label()),
                t.count,
                join_totals(w, &t.amounts)
            ));
        }
        o.push('\n');
    }

    o.push_str("## Uncollectible\n\n");
    if w.uncollectible.is_empty() {
        o.push_str("No uncollectible invoices.\n");
    } else {
        o.push_str("Already written off; counted here, not worked.\n\n");
        o.push_str("| Currency | Invoices | Amount |\n|---|---:|---:|\n");
        for u in &w.uncollectible {
            o.push_str(&format!(
                "| {} | {} | {} |\n",
                u.currency.upper(),
                u.count,
                format_major(u.amount_remaining, u.currency)
            ));
        }
    }
    if let Some(e) = extras.expiring {
        o.push('\n');
        o.push_str(crate::report::expiring_cards::markdown_section(e, &w.order).trim_end());
        o.push('\n');
    }
    o.into_bytes()
}

/// A few lines fit for a billing channel post.
pub fn summary(w: &Worklist, meta: &SnapshotMeta, top: usize) -> Vec<String> {
    let mut lines = vec![
        format!(
            "Failed payments: {} to work ({} mode, account {}, {} data).",
            plural(w.rows.len(), "invoice", "invoices"),
            meta.mode.as_str(),
            meta.account_id,
            meta.origin.as_str()
        ),
        format!("Outstanding: {}", join_totals(w, &w.outstanding())),
        format!(
            "No automatic retry left: {} ({})",
            join_totals(w, &w.no_retry_left()),
            plural(w.no_retry_count(), "invoice", "invoices")
        ),
    ];
    if !w.totals_by_decline_code.is_empty() {
        let tops: Vec<String> = w
            .totals_by_decline_code
            .iter()
            .take(top)
            .map(|t| format!("{} {}", t.key.label(), t.count))
            .collect();
        lines.push(format!("Top declines: {}", tops.join(", ")));
    }
    let unc: usize = w.uncollectible.iter().map(|u| u.count).sum();
    if unc > 0 {
        let mut t = Totals::new();
        for u in &w.uncollectible {
            let _ = t.add_minor(u.amount_remaining, u.currency);
        }
        lines.push(format!(
            "Uncollectible (written off): {}, {}",
            plural(unc, "invoice", "invoices"),
            join_totals(w, &t)
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::declines::{Action, Classification};
    use crate::domain::dunning::{
        CurrencyOrder, CurrencyTotal, DeclineKey, DeclineTotal, Reason, Uncollectible,
    };
    use crate::model::{Mode, Origin};
    use crate::money::Currency;

    fn meta() -> SnapshotMeta {
        SnapshotMeta {
            account_id: "acct_1".into(),
            account_name: Some("Acme | Co".into()),
            mode: Mode::Test,
            origin: Origin::Demo,
            api_version: "2026-07-29.dahlia".into(),
            fetched_at: 1_796_040_000,
            window_start: 0,
            window_end: 0,
            default_currency: None,
            payment_methods: Default::default(),
            settled_invoices_since: None,
            balance: None,
            lines_complete: false,
            lines_since: None,
            fraud_warnings: Default::default(),
        }
    }

    fn row(id: &str, minor: i64, cur: Currency, retries_left: bool) -> WorkRow {
        WorkRow {
            invoice_id: id.into(),
            invoice_number: None,
            customer_id: Some("cus_1".into()),
            customer_email: Some("=HYPERLINK(\"x\")".into()),
            customer_name: Some("Ada, \"the\" | Countess".into()),
            currency: cur,
            amount_remaining: minor,
            attempt_count: 2,
            next_payment_attempt: retries_left.then_some(1_796_300_000),
            retries_left,
            collection_method: None,
            due_date: None,
            days_past_due: Some(3),
            days_past_due_basis: None,
            subscription_id: None,
            subscription_status: None,
            billing_reason: None,
            hosted_invoice_url: None,
            decline_code: None,
            failure_code: Some("card_declined".into()),
            outcome_reason: None,
            advice_code: None,
            classification: Classification {
                action: Action::ContactCustomer,
                smart_retries: true,
                disclose: true,
                basis: Basis::FailureCode,
                code: Some("card_declined".into()),
                staff: String::new(),
                customer: String::new(),
            },
            reason: Reason::FailedAttempt,
            attempts: vec![],
        }
    }

    fn worklist() -> Worklist {
        let kwd = Currency::parse("kwd").expect("kwd");
        let mut amounts = Totals::new();
        amounts.add_minor(123_450, kwd).expect("add");
        amounts.add_minor(5000, Currency::JPY).expect("add");
        Worklist {
            now: 1_796_040_000,
            rows: vec![
                row("in_1", 123_450, kwd, true),
                row("in_2", 5000, Currency::JPY, false),
            ],
            totals_by_currency: vec![
                CurrencyTotal {
                    currency: kwd,
                    count: 1,
                    amount_remaining: 123_450,
                    no_retry_count: 0,
                    no_retry_amount: 0,
                },
                CurrencyTotal {
                    currency: Currency::JPY,
                    count: 1,
                    amount_remaining: 5000,
                    no_retry_count: 1,
                    no_retry_amount: 5000,
                },
            ],
            totals_by_decline_code: vec![DeclineTotal {
                key: DeclineKey::of(None, Some("card_declined")),
                count: 2,
                amounts,
            }],
            uncollectible: vec![Uncollectible {
                currency: Currency::USD,
                count: 2,
                amount_remaining: 1050,
            }],
            // KWD is the account's default here.
            order: CurrencyOrder::new(Some(kwd), [(kwd, 1), (Currency::JPY, 1)]),
        }
    }

    #[test]
    fn csv_has_the_contract_columns_and_major_units() {
        let text = String::from_utf8(csv(&worklist())).expect("utf8");
        let mut lines = text.split("\r\n");
        assert_eq!(
            lines.next(),
            Some(
                "invoice_id,invoice_number,customer_id,customer_email,customer_name,currency,amount_remaining,attempt_count,next_payment_attempt_utc,retries_left,due_date_utc,days_past_due,subscription_id,decline_code,failure_code,outcome_reason,advice_code,action,hosted_invoice_url"
            )
        );
        assert_eq!(
            lines.next(),
            Some(
                "in_1,,cus_1,\"'=HYPERLINK(\"\"x\"\")\",\"Ada, \"\"the\"\" | Countess\",kwd,123.450,2,2026-12-03T12:13:20Z,yes,,3,,,card_declined,,,contact_customer,"
            )
        );
        assert_eq!(
            lines.next(),
            Some(
                "in_2,,cus_1,\"'=HYPERLINK(\"\"x\"\")\",\"Ada, \"\"the\"\" | Countess\",jpy,5000,2,,no,,3,,,card_declined,,,contact_customer,"
            )
        );
        assert_eq!(lines.next(), Some(""));
    }

    #[test]
    fn json_carries_minor_units_and_nulls() {
        let v: serde_json::Value =
            serde_json::from_slice(&json(&worklist(), &meta())).expect("json");
        assert_eq!(v["rows"][0]["amount_remaining"], 123_450);
        assert_eq!(v["rows"][0]["currency"], "kwd");
        assert_eq!(v["rows"][1]["retries_left"], false);
        assert_eq!(
            v["rows"][1]["next_payment_attempt_utc"],
            serde_json::Value::Null
        );
        assert_eq!(v["rows"][0]["decline_code"], serde_json::Value::Null);
        assert_eq!(v["totals_by_currency"][1]["no_retry_left_amount"], 5000);
        assert_eq!(
            v["totals_by_decline_code"][0]["label"],
            "card_declined (no decline code returned)"
        );
        assert_eq!(
            v["totals_by_decline_code"][0]["amounts"][0]["amount"],
            123_450
        );
        assert_eq!(v["uncollectible"][0]["amount"], 1050);
        assert_eq!(v["source"]["origin"], "demo");
        let fields: Vec<&String> = v["rows"][0].as_object().expect("object").keys().collect();
        let mut want: Vec<&str> = fields::csv_header(FIELDS);
        want.sort_unstable();
        let mut got: Vec<&str> = fields.iter().map(|s| s.as_str()).collect();
        got.sort_unstable();
        assert_eq!(got, want, "rows carry exactly the CSV's fields");
    }

    #[test]
    fn markdown_has_totals_table_codes_uncollectible_and_source() {
        let md = String::from_utf8(markdown(&worklist(), &meta())).expect("utf8");
        assert!(md.contains("- Recoverable invoices: 2\n"), "{md}");
        assert!(
            md.contains("- Outstanding: 123.450 KWD, 5000 JPY\n"),
            "{md}"
        );
        assert!(
            md.contains("no automatic retry left: 5000 JPY (1 invoice)"),
            "{md}"
        );
        assert!(
            md.contains("Ada, \"the\" \\| Countess"),
            "pipes escaped: {md}"
        );
        assert!(
            md.contains("| card_declined (no decline code returned) | 2 |"),
            "{md}"
        );
        assert!(md.contains("| USD | 2 | 10.50 |"), "{md}");
        assert!(
            md.contains(
                "account acct_1 (Acme | Co), test mode, demo data read at 2026-11-30T12:00:00Z"
            ),
            "{md}"
        );
        let table_rows = md.lines().filter(|l| l.starts_with("| in_")).count();
        assert_eq!(table_rows, 2);
    }

    /// RULES.md ("Worklist") lists the due date among a row's fields, and a reader of "Days past due"
    /// must see what it counts from: the due date when there is one, else the first attempt.
    #[test]
    fn markdown_rows_show_the_due_date_and_say_what_days_past_due_count_from() {
        let mut w = worklist();
        w.rows[0].due_date = Some(1_795_000_000);
        let md = String::from_utf8(markdown(&w, &meta())).expect("utf8");
        assert!(
            md.contains("| Retries left | Due (UTC) | Days past due |"),
            "{md}"
        );
        assert!(md.contains("| yes | 2026-11-18T11:06:40Z | 3 |"), "{md}");
        assert!(md.contains("| no |  | 3 |"), "{md}");
        assert!(
            md.contains("an invoice charged automatically has none, so its count runs from its first payment attempt"),
            "{md}"
        );
    }

    #[test]
    fn empty_worklist_says_so() {
        let w = Worklist {
            now: 0,
            rows: vec![],
            totals_by_currency: vec![],
            totals_by_decline_code: vec![],
            uncollectible: vec![],
            order: CurrencyOrder::default(),
        };
        let md = String::from_utf8(markdown(&w, &meta())).expect("utf8");
        assert!(md.contains("No open invoice has a failed payment or is past due."));
        assert!(md.contains("- Outstanding: none"));
        assert!(md.contains("No uncollectible invoices."));
        let lines = summary(&w, &meta(), 3);
        assert_eq!(
            lines[0],
            "Failed payments: 0 invoices to work (test mode, account acct_1, demo data)."
        );
        assert_eq!(lines.len(), 3);
    }

    #[test]
    fn summary_lines_for_the_channel() {
        let lines = summary(&worklist(), &meta(), 3);
        assert_eq!(
            lines,
            [
                "Failed payments: 2 invoices to work (test mode, account acct_1, demo data).",
                "Outstanding: 123.450 KWD, 5000 JPY",
                "No automatic retry left: 5000 JPY (1 invoice)",
                "Top declines: card_declined (no decline code returned) 2",
                "Uncollectible (written off): 2 invoices, 10.50 USD",
            ]
        );
    }
}
