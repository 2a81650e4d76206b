//! Cards that will fail: active subscriptions whose payment method is a card that
//! expires before the subscription's next renewal. The payment method is the
//! subscription's `default_payment_method`, else its customer's
//! `invoice_settings.default_payment_method`; the renewal is the item-level
//! `current_period_end` (2025+ API). A card is good through the last day of its expiry
//! month, so it fails a renewal at or after the first instant of the next month (UTC).
//! Pure: the subscriptions and the cards found for them in, the list and the amount at
//! risk per currency out.

use std::collections::HashMap;

use crate::model::rows::{CustomerRow, SubscriptionRow};
use crate::model::status::SubscriptionStatus;
use crate::money::{Currency, MoneyError, Totals};

/// Where a subscription's payment method came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MethodSource {
    /// `subscription.default_payment_method`.
    Subscription,
    /// `customer.invoice_settings.default_payment_method`.
    CustomerDefault,
}

impl MethodSource {
    pub fn as_str(self) -> &'static str {
        match self {
            MethodSource::Subscription => "subscription_default",
            MethodSource::CustomerDefault => "customer_invoice_default",
        }
    }
}

/// A card payment method as the reads found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    pub payment_method_id: String,
    pub brand: Option<String>,
    pub last4: Option<String>,
    pub exp_month: u32,
    pub exp_year: i32,
}

impl Card {
    /// The first instant the card no longer works: the start of the month after its
    /// expiry month, UTC (`None` for a month out of range).
    pub fn fails_from(&self) -> Option<i64> {
        if !(1..=12).contains(&self.exp_month) {
            return None;
        }
        let (y, m) = if self.exp_month == 12 {
            (self.exp_year.checked_add(1)?, 1)
        } else {
            (self.exp_year, self.exp_month + 1)
        };
        let y = i16::try_from(y).ok()?;
        let m = i8::try_from(m).ok()?;
        jiff::civil::date(y, m, 1)
            .to_zoned(jiff::tz::TimeZone::UTC)
            .ok()
            .map(|z| z.timestamp().as_second())
    }
}

/// The payment methods a subscription may be charged with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Methods {
    /// By subscription id: its own default, when it is a card.
    pub subscription_default: HashMap<String, Card>,
    /// By subscription id: the subscription has its own default that is not a card
    /// (a bank debit, say), so the customer's default is not used.
    pub subscription_non_card: std::collections::HashSet<String>,
    /// By customer id: the invoice default, when it is a card.
    pub customer_default: HashMap<String, Card>,
}

/// One subscription whose card expires before its renewal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpiringCard {
    pub subscription_id: String,
    pub customer_id: Option<String>,
    pub customer_email: Option<String>,
    pub customer_name: Option<String>,
    pub card: Card,
    pub source: MethodSource,
    /// The renewal (the current period's end).
    pub renews_at: i64,
    /// What the renewal will charge (the first item's unit amount), when known.
    pub amount: Option<i64>,
    pub currency: Currency,
}

/// The list, soonest renewal first (ties by subscription id), and the amount at risk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpiringCards {
    pub rows: Vec<ExpiringCard>,
    pub at_risk: Totals,
    /// Subscriptions on the list whose renewal amount is unknown (counted, not summed).
    pub unknown_amount: usize,
}

/// The active subscriptions of `subs` whose card fails before `current_period_end`.
/// Subscriptions set to cancel at the period's end do not renew and are left out, as
/// are renewals already past (`now`).
pub fn expiring_cards(
    subs: &[SubscriptionRow],
    customers: &[CustomerRow],
    methods: &Methods,
    now: i64,
) -> Result<ExpiringCards, MoneyError> {
    let people: HashMap<&str, &CustomerRow> =
        customers.iter().map(|c| (c.id.as_str(), c)).collect();
    let mut rows = Vec::new();
    for s in subs {
        if s.status != SubscriptionStatus::Active || s.cancel_at_period_end {
            continue;
        }
        let Some(renews_at) = s.current_period_end.filter(|t| *t > now) else {
            continue;
        };
        let found = match methods.subscription_default.get(&s.id) {
            Some(c) => Some((c, MethodSource::Subscription)),
            None if methods.subscription_non_card.contains(&s.id) => None,
            None => s
                .customer
                .as_deref()
                .and_then(|c| methods.customer_default.get(c))
                .map(|c| (c, MethodSource::CustomerDefault)),
        };
        let Some((card, source)) = found else {
            continue;
        };
        if card.fails_from().is_none_or(|t| t > renews_at) {
            continue;
        }
        let who = s.customer.as_deref().and_then(|c| people.get(c).copied());
        rows.push(ExpiringCard {
            subscription_id: s.id.clone(),
            customer_id: s.customer.clone(),
            customer_email: who.and_then(|c| c.email.clone()),
            customer_name: who.and_then(|c| c.name.clone()),
            card: card.clone(),
            source,
            renews_at,
            amount: s.unit_amount,
            currency: s.currency,
        });
    }
    rows.sort_by(|a, b| {
        a.renews_at
            .cmp(&b.renews_at)
            .then_with(|| a.subscription_id.cmp(&b.subscription_id))
    });
    let mut at_risk = Totals::new();
    let mut unknown_amount = 0;
    for r in &rows {
        match r.amount {
            Some(a) => at_risk.add_minor(a, r.currency)?,
            None => unknown_amount += 1,
        }
    }
    Ok(ExpiringCards {
        rows,
        at_risk,
        unknown_amount,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(id: &str, month: u32, year: i32) -> Card {
        Card {
            payment_method_id: id.into(),
            brand: Some("visa".into()),
            last4: Some("4242".into()),
            exp_month: month,
            exp_year: year,
        }
    }

    fn sub(id: &str, customer: &str, end: i64, amount: Option<i64>) -> SubscriptionRow {
        SubscriptionRow {
            id: id.into(),
            customer: Some(customer.into()),
            status: SubscriptionStatus::Active,
            current_period_start: Some(end - 30 * 86_400),
            current_period_end: Some(end),
            interval: Some("month".into()),
            interval_count: 1,
            latest_invoice: None,
            created: 0,
            cancel_at_period_end: false,
            currency: Currency::parse("usd").expect("usd"),
            unit_amount: amount,
        }
    }

    fn ts(s: &str) -> i64 {
        crate::time::parse_instant(s).expect("instant")
    }

    #[test]
    fn a_card_works_through_the_end_of_its_expiry_month() {
        assert_eq!(
            card("pm", 12, 2026).fails_from(),
            Some(ts("2027-01-01T00:00:00Z"))
        );
        assert_eq!(
            card("pm", 2, 2027).fails_from(),
            Some(ts("2027-03-01T00:00:00Z"))
        );
        assert_eq!(card("pm", 13, 2027).fails_from(), None);
    }

    #[test]
    fn the_subscription_default_wins_then_the_customer_default() {
        let now = ts("2026-11-30T12:00:00Z");
        let renew = ts("2026-12-15T00:00:00Z");
        let subs = vec![
            sub("sub_own_expiring", "cus_a", renew, Some(2000)),
            sub("sub_customer_expiring", "cus_b", renew + 1, Some(500)),
            sub("sub_fine", "cus_c", renew, Some(900)),
            sub("sub_own_fine_customer_expiring", "cus_b", renew, Some(100)),
            sub("sub_bank_debit", "cus_b", renew, Some(100)),
            sub("sub_no_amount", "cus_b", renew + 2, None),
        ];
        let mut m = Methods::default();
        m.subscription_default
            .insert("sub_own_expiring".into(), card("pm_a", 11, 2026));
        m.subscription_default.insert(
            "sub_own_fine_customer_expiring".into(),
            card("pm_ok", 1, 2030),
        );
        m.subscription_non_card.insert("sub_bank_debit".into());
        m.customer_default
            .insert("cus_b".into(), card("pm_b", 11, 2026));
        m.customer_default
            .insert("cus_c".into(), card("pm_c", 12, 2026));
        let got = expiring_cards(&subs, &[], &m, now).expect("sum");
        let ids: Vec<&str> = got
            .rows
            .iter()
            .map(|r| r.subscription_id.as_str())
            .collect();
        assert_eq!(
            ids,
            ["sub_own_expiring", "sub_customer_expiring", "sub_no_amount"]
        );
        assert_eq!(got.rows[0].source, MethodSource::Subscription);
        assert_eq!(got.rows[1].source, MethodSource::CustomerDefault);
        assert_eq!(got.at_risk.get(Currency::parse("usd").expect("usd")), 2500);
        assert_eq!(got.unknown_amount, 1);
    }

    #[test]
    fn cancelling_past_and_inactive_subscriptions_are_left_out() {
        let now = ts("2026-11-30T12:00:00Z");
        let mut cancelling = sub("sub_1", "cus", ts("2026-12-15T00:00:00Z"), Some(1));
        cancelling.cancel_at_period_end = true;
        let past = sub("sub_2", "cus", now - 1, Some(1));
        let mut past_due = sub("sub_3", "cus", ts("2026-12-15T00:00:00Z"), Some(1));
        past_due.status = SubscriptionStatus::PastDue;
        let mut m = Methods::default();
        m.customer_default.insert("cus".into(), card("pm", 1, 2020));
        let got = expiring_cards(&[cancelling, past, past_due], &[], &m, now).expect("sum");
        assert!(got.rows.is_empty());
    }
}
