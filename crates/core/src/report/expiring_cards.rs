//! Cards that will fail, as the dunning exports show them: `expiring-cards.csv` (money in
//! major units) and the "Cards that will fail before renewal" section of
//! `failed-payments.md`, or, when the key may not read payment methods, the section
//! naming the permission that is missing.

use crate::domain::dunning::expiring::{ExpiringCard, ExpiringCards};
use crate::money::{Money, format_major};
use crate::report::columns::{self, Column, Json};
use crate::time::iso_utc;

pub const CSV_NAME: &str = "expiring-cards.csv";

/// What the run learned about cards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExpiringSection {
    Found(ExpiringCards),
    /// The key may not read payment methods (Stripe's 403 named `permission`).
    Unreadable {
        permission: String,
    },
}

fn opt(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or("")
}

/// The columns of `expiring-cards.csv`.
pub const COLUMNS: &[Column<ExpiringCard>] = &[
    Column::csv("subscription_id", |r| r.subscription_id.as_str().into()),
    Column::csv("customer_id", |r| opt(&r.customer_id).into()),
    Column::csv("customer_email", |r| opt(&r.customer_email).into()),
    Column::csv("customer_name", |r| opt(&r.customer_name).into()),
    Column::csv("payment_method_id", |r| {
        r.card.payment_method_id.as_str().into()
    }),
    Column::csv("payment_method_source", |r| r.source.as_str().into()),
    Column::csv("brand", |r| opt(&r.card.brand).into()),
    Column::csv("last4", |r| opt(&r.card.last4).into()),
    Column::csv("exp_month", |r| r.card.exp_month.to_string().into()),
    Column::csv("exp_year", |r| r.card.exp_year.to_string().into()),
    Column::csv("renews_at_utc", |r| iso_utc(r.renews_at).into()),
    Column::csv("currency", |r| r.currency.as_str().into()),
    Column::both(
        "amount_at_risk",
        |r| {
            r.amount
                .map(|a| format_major(a, r.currency))
                .unwrap_or_default()
                .into()
        },
        |r| Json::opt_int(r.amount),
    ),
];

/// `expiring-cards.csv` (the header alone when the cards could not be read).
pub fn csv(section: &ExpiringSection) -> Vec<u8> {
    let rows: &[ExpiringCard] = match section {
        ExpiringSection::Found(f) => &f.rows,
        ExpiringSection::Unreadable { .. } => &[],
    };
    columns::csv(COLUMNS, rows)
}

/// The Markdown section.
pub fn markdown_section(section: &ExpiringSection) -> String {
    let mut o = String::from("## Cards that will fail before renewal\n\n");
    let f = match section {
        ExpiringSection::Unreadable { permission } => {
            o.push_str(&format!(
                "Not checked: the key may not read payment methods (Stripe answered 403 for `{permission}`). Add the Read permission \"Payment methods\" (`{permission}`) to the restricted key (`tieout login` lists every permission), then run again. The rest of this report is complete.\n\n"
            ));
            return o;
        }
        ExpiringSection::Found(f) => f,
    };
    if f.rows.is_empty() {
        o.push_str("No active subscription's card expires before its next renewal.\n\n");
        return o;
    }
    let total = f
        .at_risk
        .by_size_desc()
        .iter()
        .map(Money::display)
        .collect::<Vec<_>>()
        .join(", ");
    o.push_str(&format!(
        "{} active subscriptions renew after their card expires; at risk: {}{}. The card is the subscription's default payment method, else the customer's invoice default; the amount is the renewal's first item.\n\n",
        f.rows.len(),
        if total.is_empty() { "nothing known".to_string() } else { total },
        if f.unknown_amount > 0 {
            format!(" ({} with an amount tieout cannot tell)", f.unknown_amount)
        } else {
            String::new()
        }
    ));
    o.push_str("| Subscription | Customer | Card | Expires | Renews (UTC) | Amount |\n");
    o.push_str("|---|---|---|---|---|---:|\n");
    for r in &f.rows {
        let who = r
            .customer_name
            .as_deref()
            .or(r.customer_email.as_deref())
            .or(r.customer_id.as_deref())
            .unwrap_or("");
        o.push_str(&format!(
            "| {} | {} | {} {} | {:02}/{} | {} | {} |\n",
            r.subscription_id,
            who.replace('|', "\\|"),
            opt(&r.card.brand),
            opt(&r.card.last4),
            r.card.exp_month,
            r.card.exp_year,
            iso_utc(r.renews_at),
            r.amount
                .map(|a| Money::new(a, r.currency).display())
                .unwrap_or_default(),
        ));
    }
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
        let md = markdown_section(&found());
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
        assert!(markdown_section(&denied).contains("`rak_payment_method_read`"));
        assert_eq!(
            String::from_utf8(csv(&denied))
                .expect("utf8")
                .lines()
                .count(),
            1
        );
    }
}
