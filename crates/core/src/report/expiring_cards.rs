//! Cards that will fail, as the dunning exports show them: `expiring-cards.csv` (money in
//! major units), the "Cards that will fail before renewal" section of
//! `failed-payments.md` and the `expiring_cards` object of `failed-payments.json` (minor
//! units), or, when the cards could not be read, the section saying why and what to do.

use serde_json::{Value, json};

use crate::domain::dunning::CurrencyOrder;
use crate::domain::dunning::expiring::{ExpiringCard, ExpiringCards, expiring_cards};
use crate::model::{AccountData, MethodsRead};
use crate::money::{Money, MoneyError};
use crate::report::fields::{self, Field, Get, JsonFields};

pub const CSV_NAME: &str = "expiring-cards.csv";

/// The permission the card read needs of a restricted key.
pub const PERMISSION: &str = crate::model::Resource::PaymentMethods.permission();

/// What the run learned about cards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExpiringSection {
    Found(ExpiringCards),
    /// The key may not make the card read (Stripe's 403 named `permission`).
    Unreadable {
        permission: String,
    },
    /// The data at hand has no card read (a cache saved before tieout made it).
    NotRead,
}

impl ExpiringSection {
    /// The section for `data` as of `now`.
    pub fn of(data: &AccountData, now: i64) -> Result<Self, MoneyError> {
        Ok(match &data.meta.payment_methods {
            MethodsRead::Read => Self::Found(expiring_cards(&data.renewal_methods, now)?),
            MethodsRead::Refused { permission } => Self::Unreadable {
                permission: permission.clone(),
            },
            MethodsRead::NotRead => Self::NotRead,
        })
    }

    /// Why the cards were not checked and what to do, when they were not.
    pub fn not_checked(&self) -> Option<String> {
        match self {
            Self::Found(_) => None,
            Self::Unreadable { permission } => Some(refused_text(permission)),
            Self::NotRead => Some(
                "Not checked: this data (a cache saved by an older tieout) has no read of the payment methods subscriptions renew with. Run `tieout sync`, or drop --cached, to check the cards.".to_string(),
            ),
        }
    }
}

fn refused_text(permission: &str) -> String {
    let row = if permission == PERMISSION {
        " (Dashboard row \"PaymentMethods\")"
    } else {
        ""
    };
    format!(
        "Not checked: the key may not read the payment methods of active subscriptions (Stripe answered 403: missing `{permission}`). Add Read on `{permission}`{row} to the restricted key in the Dashboard (`tieout login` lists every permission), run `tieout login` again, then run again. The rest of this report is complete."
    )
}

/// The expiring card row, declared once ([`fields`]): the columns of
/// `expiring-cards.csv` (major units), the rows of `expiring_cards` in the JSON (minor
/// units), and the titles and text of the Markdown table ([`MARKDOWN_TABLE`]) and of the
/// Worklist pane's cards view.
pub const FIELDS: &[Field<ExpiringCard>] = &[
    Field::new(
        "subscription_id",
        "Subscription",
        Get::Str(|r| Some(&r.subscription_id)),
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
        "payment_method_id",
        "Payment method",
        Get::Str(|r| Some(&r.card.payment_method_id)),
    ),
    Field::new(
        "payment_method_source",
        "Method from",
        Get::Str(|r| Some(r.source.as_str())),
    ),
    Field::new("brand", "Brand", Get::Str(|r| r.card.brand.as_deref())),
    Field::new("last4", "Last 4", Get::Str(|r| r.card.last4.as_deref())),
    Field::new(
        "exp_month",
        "Expiry month",
        Get::Int(|r| Some(i64::from(r.card.exp_month))),
    ),
    Field::new(
        "exp_year",
        "Expiry year",
        Get::Int(|r| Some(i64::from(r.card.exp_year))),
    ),
    Field::new("renews_at_utc", "Renews", Get::Time(|r| Some(r.renews_at))),
    Field::new(
        "currency",
        "Currency",
        Get::Str(|r| Some(r.currency.as_str())),
    ),
    Field::new(
        "amount_at_risk",
        "At risk",
        Get::Money(|r| r.amount.map(|a| Money::new(a, r.currency))),
    ),
    // What people read, made of the fields above.
    Field::people(
        "customer",
        "Customer",
        Get::Str(|r| {
            r.customer_name
                .as_deref()
                .or(r.customer_email.as_deref())
                .or(r.customer_id.as_deref())
        }),
    ),
    Field::people("card", "Card", Get::Text(|r| Some(card(r)))),
    Field::people(
        "expires",
        "Expires",
        Get::Text(|r| Some(format!("{:02}/{}", r.card.exp_month, r.card.exp_year))),
    ),
];

/// The Markdown table's columns, in order (names from [`FIELDS`]).
pub const MARKDOWN_TABLE: &[&str] = &[
    "subscription_id",
    "customer",
    "card",
    "expires",
    "renews_at_utc",
    "amount_at_risk",
];

/// The card as people name it: brand and last four, what is known of them.
fn card(r: &ExpiringCard) -> String {
    [r.card.brand.as_deref(), r.card.last4.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ")
}

/// `expiring-cards.csv` (the header alone when the cards could not be read).
pub fn csv(section: &ExpiringSection) -> Vec<u8> {
    let rows: &[ExpiringCard] = match section {
        ExpiringSection::Found(f) => &f.rows,
        _ => &[],
    };
    fields::csv(FIELDS, rows)
}

/// The `expiring_cards` object of `failed-payments.json`: whether the cards were
/// checked (and why not), the rows (minor units) and the amount at risk per currency.
pub fn json_value(section: &ExpiringSection, order: &CurrencyOrder) -> Value {
    match section {
        ExpiringSection::Found(f) => json!({
            "checked": true,
            "message": null,
            "rows": f.rows.iter().map(|r| JsonFields::new(FIELDS, r)).collect::<Vec<_>>(),
            "at_risk_by_currency": order
                .amounts(&f.at_risk)
                .iter()
                .map(|m| json!({"currency": m.currency.as_str(), "amount": m.minor}))
                .collect::<Vec<_>>(),
            "unknown_amount": f.unknown_amount,
        }),
        other => json!({
            "checked": false,
            "missing_permission": match other {
                ExpiringSection::Unreadable { permission } => Some(permission.as_str()),
                _ => None,
            },
            "message": other.not_checked(),
            "rows": [],
            "at_risk_by_currency": [],
            "unknown_amount": 0,
        }),
    }
}

/// The amount at risk per currency in `order`, for one line: `20.00 USD, 9 JPY`.
pub fn at_risk_line(f: &ExpiringCards, order: &CurrencyOrder) -> String {
    order
        .amounts(&f.at_risk)
        .iter()
        .map(Money::display)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The Markdown section; currencies in `order` (the worklist's).
pub fn markdown_section(section: &ExpiringSection, order: &CurrencyOrder) -> String {
    let mut o = String::from("## Cards that will fail before renewal\n\n");
    let f = match section {
        ExpiringSection::Found(f) => f,
        other => {
            o.push_str(&other.not_checked().unwrap_or_default());
            o.push_str("\n\n");
            return o;
        }
    };
    if f.rows.is_empty() {
        o.push_str("No active subscription's card expires before its next renewal.\n\n");
        return o;
    }
    let total = at_risk_line(f, order);
    o.push_str(&format!(
        "{} active {} renew after their card expires; at risk: {}{}. The card is the subscription's default payment method, else the customer's invoice default; a card works through the last day of its expiry month; the amount is the renewal's items at their unit prices, before tax and discounts.\n\n",
        f.rows.len(),
        if f.rows.len() == 1 { "subscription" } else { "subscriptions" },
        if total.is_empty() { "nothing known".to_string() } else { total },
        if f.unknown_amount > 0 {
            format!(" ({} with an amount tieout cannot tell)", f.unknown_amount)
        } else {
            String::new()
        }
    ));
    o.push_str(&fields::markdown_table(FIELDS, MARKDOWN_TABLE, &f.rows));
    o.push('\n');
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::dunning::expiring::{Card, MethodSource};
    use crate::money::{Currency, Totals};

    fn found() -> ExpiringSection {
        let usd = Currency::parse("usd").expect("usd");
        let mut at_risk = Totals::new();
        at_risk.add_minor(2000, usd).expect("sum");
        ExpiringSection::Found(ExpiringCards {
            rows: vec![ExpiringCard {
                subscription_id: "sub_1".into(),
                customer_id: Some("cus_1".into()),
                customer_email: Some("ada@example.com".into()),
                customer_name: Some("Ada | Co".into()),
                card: Card {
                    payment_method_id: "pm_1".into(),
                    brand: Some("visa".into()),
                    last4: Some("4242".into()),
                    exp_month: 11,
                    exp_year: 2026,
                },
                source: MethodSource::CustomerDefault,
                renews_at: 1_796_040_000 + 86_400,
                amount: Some(2000),
                currency: usd,
            }],
            at_risk,
            unknown_amount: 0,
        })
    }

    #[test]
    fn the_csv_and_the_section() {
        let text = String::from_utf8(csv(&found())).expect("utf8");
        assert_eq!(
            text,
            "subscription_id,customer_id,customer_email,customer_name,payment_method_id,payment_method_source,brand,last4,exp_month,exp_year,renews_at_utc,currency,amount_at_risk\r\nsub_1,cus_1,ada@example.com,Ada | Co,pm_1,customer_invoice_default,visa,4242,11,2026,2026-12-01T12:00:00Z,usd,20.00\r\n"
        );
        let order = CurrencyOrder::default();
        let md = markdown_section(&found(), &order);
        assert!(md.contains("1 active subscription renew"), "{md}");
        assert!(md.contains("at risk: 20.00 USD."), "{md}");
        assert!(
            md.contains(
                "| sub_1 | Ada \\| Co | visa 4242 | 11/2026 | 2026-12-01T12:00:00Z | 20.00 USD |"
            ),
            "{md}"
        );
        let denied = ExpiringSection::Unreadable {
            permission: "rak_payment_method_read".into(),
        };
        let text = markdown_section(&denied, &order);
        assert!(text.contains("missing `rak_payment_method_read`"), "{text}");
        assert!(text.contains("\"PaymentMethods\""), "{text}");
        assert!(
            text.contains("The rest of this report is complete."),
            "{text}"
        );
        let json = json_value(&denied, &order);
        assert_eq!(json["checked"], false);
        assert_eq!(json["missing_permission"], "rak_payment_method_read");
        let found_json = json_value(&found(), &order);
        assert_eq!(found_json["rows"][0]["amount_at_risk"], 2000);
        assert_eq!(found_json["rows"][0]["subscription_id"], "sub_1");
        assert_eq!(found_json["rows"][0]["exp_month"], 11);
        assert_eq!(
            found_json["rows"][0]["renews_at_utc"],
            "2026-12-01T12:00:00Z"
        );
        assert_eq!(found_json["at_risk_by_currency"][0]["amount"], 2000);
        let old = markdown_section(&ExpiringSection::NotRead, &order);
        assert!(old.contains("Run `tieout sync`"), "{old}");
        assert_eq!(
            String::from_utf8(csv(&denied))
                .expect("utf8")
                .lines()
                .count(),
            1
        );
    }
}
