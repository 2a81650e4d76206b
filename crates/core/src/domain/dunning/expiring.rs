//! Cards that will fail: active subscriptions whose payment method is a card that
//! expires before the subscription's next renewal. The payment method is the
//! subscription's `default_payment_method`, else its customer's
//! `invoice_settings.default_payment_method` ([`chosen`]); the renewal is the item-level
//! `current_period_end` (2025+ API). A card is good through the last day of its expiry
//! month, so it fails a renewal at or after the first instant of the next month (UTC).
//! Pure: the rows the card read made ([`RenewalMethodRow`]) in, the list and the amount
//! at risk per currency out.

use crate::model::rows::RenewalMethodRow;
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

    /// The source [`Self::as_str`] names.
    pub fn parse(s: &str) -> Option<Self> {
        [MethodSource::Subscription, MethodSource::CustomerDefault]
            .into_iter()
            .find(|m| m.as_str() == s)
    }
}

/// The payment method a renewal is charged to: the subscription's own default, else its
/// customer's invoice default. An own default that is not a card (a bank debit, say)
/// still wins: Stripe charges it, not the customer's card.
pub fn chosen<M>(own: Option<M>, customer_default: Option<M>) -> Option<(M, MethodSource)> {
    own.map(|m| (m, MethodSource::Subscription))
        .or_else(|| customer_default.map(|m| (m, MethodSource::CustomerDefault)))
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

/// The card of a row, when its payment method is a card with a readable expiry (a
/// method of another type, or a card without a month and year, is not a card that
/// expires).
fn card_of(r: &RenewalMethodRow) -> Option<Card> {
    let is_card = match r.method_type.as_deref() {
        Some(t) => t == "card",
        None => r.card_exp_month.is_some(),
    };
    if !is_card {
        return None;
    }
    Some(Card {
        payment_method_id: r.payment_method.clone()?,
        brand: r.card_brand.clone(),
        last4: r.card_last4.clone(),
        exp_month: u32::try_from(r.card_exp_month?).ok()?,
        exp_year: i32::try_from(r.card_exp_year?).ok()?,
    })
}

/// The active subscriptions of `rows` whose card fails before `current_period_end`.
/// Subscriptions set to cancel at the period's end do not renew and are left out, as
/// are renewals already past (`now`).
pub fn expiring_cards(rows: &[RenewalMethodRow], now: i64) -> Result<ExpiringCards, MoneyError> {
    let mut out = Vec::new();
    for r in rows {
        if r.status != SubscriptionStatus::Active || r.cancel_at_period_end {
            continue;
        }
        let Some(renews_at) = r.current_period_end.filter(|t| *t > now) else {
            continue;
        };
        let Some(card) = card_of(r) else {
            continue;
        };
        if card.fails_from().is_none_or(|t| t > renews_at) {
            continue;
        }
        let source = r
            .method_source
            .as_deref()
            .and_then(MethodSource::parse)
            .unwrap_or(MethodSource::Subscription);
        out.push(ExpiringCard {
            subscription_id: r.subscription.clone(),
            customer_id: r.customer.clone(),
            customer_email: r.customer_email.clone(),
            customer_name: r.customer_name.clone(),
            card,
            source,
            renews_at,
            amount: r.amount,
            currency: r.currency,
        });
    }
    out.sort_by(|a, b| {
        a.renews_at
            .cmp(&b.renews_at)
            .then_with(|| a.subscription_id.cmp(&b.subscription_id))
    });
    let mut at_risk = Totals::new();
    let mut unknown_amount = 0;
    for r in &out {
        match r.amount {
            Some(a) => at_risk.add_minor(a, r.currency)?,
            None => unknown_amount += 1,
        }
    }
    Ok(ExpiringCards {
        rows: out,
        at_risk,
        unknown_amount,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::money::Currency;

    fn card(id: &str, month: u32, year: i32) -> Card {
        Card {
            payment_method_id: id.into(),
            brand: Some("visa".into()),
            last4: Some("4242".into()),
            exp_month: month,
            exp_year: year,
        }
    }

    /// An active subscription renewing at `end`, charged to `pm` (a card expiring
    /// `month`/`year`) from `source`.
    fn row(
        id: &str,
        end: i64,
        amount: Option<i64>,
        pm: Option<(&str, u32, i32)>,
    ) -> RenewalMethodRow {
        RenewalMethodRow {
            subscription: id.into(),
            customer: Some("cus_1".into()),
            customer_email: Some("ada@example.com".into()),
            customer_name: None,
            status: SubscriptionStatus::Active,
            cancel_at_period_end: false,
            current_period_end: Some(end),
            currency: Currency::parse("usd").expect("usd"),
            amount,
            method_source: pm.map(|_| "subscription_default".into()),
            payment_method: pm.map(|(id, _, _)| id.into()),
            method_type: pm.map(|_| "card".into()),
            card_brand: pm.map(|_| "visa".into()),
            card_last4: pm.map(|_| "4242".into()),
            card_exp_month: pm.map(|(_, m, _)| i64::from(m)),
            card_exp_year: pm.map(|(_, _, y)| i64::from(y)),
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
        assert_eq!(card("pm", 0, 2027).fails_from(), None);
    }

    #[test]
    fn the_subscription_default_wins_then_the_customer_default() {
        assert_eq!(
            chosen(Some(1), Some(2)),
            Some((1, MethodSource::Subscription))
        );
        assert_eq!(
            chosen(None, Some(2)),
            Some((2, MethodSource::CustomerDefault))
        );
        assert_eq!(chosen::<i32>(None, None), None);
        for m in [MethodSource::Subscription, MethodSource::CustomerDefault] {
            assert_eq!(MethodSource::parse(m.as_str()), Some(m));
        }
        assert_eq!(MethodSource::parse("other"), None);
    }

    #[test]
    fn cards_expiring_before_the_renewal_are_listed_with_the_amount_at_risk() {
        let now = ts("2026-11-30T12:00:00Z");
        let renew = ts("2026-12-15T00:00:00Z");
        let mut from_customer = row(
            "sub_customer_expiring",
            renew + 1,
            Some(500),
            Some(("pm_b", 11, 2026)),
        );
        from_customer.method_source = Some("customer_invoice_default".into());
        let mut bank_debit = row(
            "sub_bank_debit",
            renew,
            Some(100),
            Some(("pm_sepa", 1, 2020)),
        );
        bank_debit.method_type = Some("sepa_debit".into());
        let mut no_expiry = row("sub_no_expiry", renew, Some(100), Some(("pm_x", 1, 2020)));
        no_expiry.card_exp_year = None;
        let rows = vec![
            row(
                "sub_own_expiring",
                renew,
                Some(2000),
                Some(("pm_a", 11, 2026)),
            ),
            from_customer,
            // Good through the end of December: the renewal on the 15th works.
            row("sub_fine", renew, Some(900), Some(("pm_c", 12, 2026))),
            bank_debit,
            no_expiry,
            row("sub_no_method", renew, Some(100), None),
            row("sub_no_amount", renew + 2, None, Some(("pm_d", 10, 2026))),
        ];
        let got = expiring_cards(&rows, now).expect("sum");
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
        assert_eq!(got.rows[0].card, card("pm_a", 11, 2026));
        assert_eq!(got.at_risk.get(Currency::parse("usd").expect("usd")), 2500);
        assert_eq!(got.unknown_amount, 1);
    }

    #[test]
    fn cancelling_past_and_inactive_subscriptions_are_left_out() {
        let now = ts("2026-11-30T12:00:00Z");
        let pm = Some(("pm", 1, 2020));
        let mut cancelling = row("sub_1", ts("2026-12-15T00:00:00Z"), Some(1), pm);
        cancelling.cancel_at_period_end = true;
        let past = row("sub_2", now - 1, Some(1), pm);
        let mut past_due = row("sub_3", ts("2026-12-15T00:00:00Z"), Some(1), pm);
        past_due.status = SubscriptionStatus::PastDue;
        let mut no_period = row("sub_4", 0, Some(1), pm);
        no_period.current_period_end = None;
        let mut odd_month = row("sub_5", ts("2026-12-15T00:00:00Z"), Some(1), pm);
        odd_month.card_exp_month = Some(-3);
        let got =
            expiring_cards(&[cancelling, past, past_due, no_period, odd_month], now).expect("sum");
        assert!(got.rows.is_empty());
    }
}
