//! The account's everyday life: regular customers, their subscriptions, the random
//! one-off charges of each day (with the refunds and disputes some of them meet), Stripe's
//! own fee lines, a few adjustments, and the special payouts (manual, instant, failed,
//! minimum-balance hold, a flash-sale day of hundreds of lines).

use std::collections::{BTreeMap, BTreeSet};

use rand::Rng;

use super::clock::{DAY, HOUR, add_months, utc};
use super::engine::{ChargeSpec, Cust, DisputeSpec, Gen, PayoutTwist, RefundSpec, Sub};
use super::objects::{self as o, Metadata};
use super::people::{DOMAINS, FIRST, LAST, PRODUCTS};
use super::writer::GenError;
use super::{ACCOUNT_ID, ACCOUNT_NAME};
use tieout_core::money::Currency;

/// The day of the usd flash sale whose payout has hundreds of lines.
pub fn flash_sale_day() -> i64 {
    utc(2026, 10, 16, 0, 0)
}

/// Regular customers, with unique emails that differ from the scenario customers'.
pub fn add_regular_customers(g: &mut Gen) {
    let mut used: BTreeSet<String> = g
        .customers
        .iter()
        .filter_map(|c| c.email.clone().map(|e| e.to_lowercase()))
        .collect();
    let plan = g.p.regular_customers.clone();
    let newest = g.p.flow_start.min(g.p.now - 30 * DAY);
    for (currency, n) in plan {
        for _ in 0..n {
            let (name, email) = loop {
                let first = FIRST[g.rng.random_range(0..FIRST.len())];
                let last = LAST[g.rng.random_range(0..LAST.len())];
                let domain = DOMAINS[g.rng.random_range(0..DOMAINS.len())];
                let mut email = format!("{}.{}@{}", first, last, domain).to_lowercase();
                if used.contains(&email) {
                    let k = g.rng.random_range(2..10_000);
                    email = format!("{}.{}{}@{}", first, last, k, domain).to_lowercase();
                }
                if used.insert(email.clone()) {
                    break (format!("{first} {last}"), email);
                }
            };
            let created = newest - g.rng.random_range(0..500) * DAY - g.rng.random_range(0..DAY);
            let i = g.add_customer(Some(&name), Some(&email), currency, created, false);
            let (settle, _) = g.settlement(currency);
            g.pools.entry(settle).or_default().push(i);
            g.by_currency.entry(currency).or_default().push(i);
        }
    }
}

/// A plan price in a currency (monthly or annual).
fn plan_price(g: &mut Gen, c: Currency, annual: bool) -> i64 {
    let base = match c.as_str() {
        "jpy" => [980, 1980, 4980][g.rng.random_range(0..3)],
        "kwd" => [3_500, 7_250, 14_900][g.rng.random_range(0..3)],
        _ => [900, 2_400, 4_900][g.rng.random_range(0..3)],
    };
    if annual { base * 10 } else { base }
}

/// Monthly and annual subscriptions of regular customers.
pub fn add_subscriptions(g: &mut Gen) {
    let monthly = g.p.monthly_subs.clone();
    let annual = g.p.annual_subs.clone();
    let now = g.p.now;
    let flow_start = g.p.flow_start;
    for (list, months) in [(monthly, 1), (annual, 12)] {
        for (c, n) in list {
            let Some(pool) = g.by_currency.get(&c).cloned() else {
                continue;
            };
            for _ in 0..n {
                let customer = pool[g.rng.random_range(0..pool.len())];
                let start = if months == 12 {
                    now - g.rng.random_range(20..360) * DAY
                } else if g.p.scale > 1 {
                    // Large accounts: an established subscriber base, renewing all along.
                    flow_start - g.rng.random_range(1..31) * DAY
                } else {
                    // Started within three months before the traffic begins, or since.
                    flow_start - 90 * DAY
                        + g.rng.random_range(0..((now - flow_start) / DAY + 60)) * DAY
                };
                let start = super::clock::day_start(start) + g.rng.random_range(6..20) * HOUR;
                let start = start.min(now - 2 * DAY);
                let amount = plan_price(g, c, months == 12);
                g.add_sub(customer, months, amount, start, None);
            }
        }
    }
}

/// Twists on payouts, manual and instant payouts (every scale: the dates are fixed
/// relative to the demo's now).
pub fn add_fixed_events(g: &mut Gen) {
    let has = |g: &Gen, c: Currency| g.p.payout_currencies.iter().any(|p| p.currency == c);
    if has(g, Currency::USD) {
        g.twists
            .push((Currency::USD, utc(2026, 10, 14, 0, 0), PayoutTwist::Failed));
        g.manual_payouts.push((
            Currency::USD,
            utc(2026, 10, 21, 15, 0),
            utc(2026, 10, 23, 0, 0),
            50_000,
            false,
        ));
        g.manual_payouts.push((
            Currency::USD,
            utc(2026, 11, 12, 18, 20),
            utc(2026, 11, 12, 18, 50),
            25_000,
            true,
        ));
    }
    if has(g, Currency::EUR) {
        g.twists.push((
            Currency::EUR,
            utc(2026, 10, 6, 0, 0),
            PayoutTwist::MinimumBalanceHold(10_000),
        ));
    }
    // Only payouts inside the walk matter; drop the rest so nothing is scheduled early.
    let start = g.p.flow_start;
    g.manual_payouts.retain(|m| m.1 >= start);

    // Disputes in every state, on regular customers' charges.
    #[allow(clippy::type_complexity)]
    let fixed: [(
        &str,
        i64,
        i64,
        i64,
        &'static str,
        &'static str,
        Option<i64>,
        &'static str,
    ); 6] = [
        (
            "usd",
            utc(2026, 8, 26, 10, 0),
            24_000,
            utc(2026, 9, 8, 9, 0),
            "product_not_received",
            "won",
            Some(utc(2026, 10, 2, 14, 0)),
            "dp_",
        ),
        (
            "usd",
            utc(2026, 9, 14, 16, 30),
            8_999,
            utc(2026, 10, 1, 11, 0),
            "fraudulent",
            "lost",
            None,
            "dp_",
        ),
        (
            "eur",
            utc(2026, 9, 3, 12, 0),
            12_000,
            utc(2026, 9, 29, 10, 0),
            "duplicate",
            "won",
            Some(utc(2026, 10, 27, 10, 0)),
            "du_",
        ),
        (
            "jpy",
            utc(2026, 10, 5, 8, 0),
            18_400,
            utc(2026, 11, 2, 7, 0),
            "product_unacceptable",
            "under_review",
            None,
            "dp_",
        ),
        (
            "usd",
            utc(2026, 11, 2, 13, 0),
            5_900,
            utc(2026, 11, 20, 9, 0),
            "fraudulent",
            "warning_needs_response",
            None,
            "dp_",
        ),
        (
            "eur",
            utc(2026, 10, 20, 18, 0),
            7_450,
            utc(2026, 11, 23, 15, 0),
            "subscription_canceled",
            "needs_response",
            None,
            "du_",
        ),
    ];
    for (k, (c, at, amount, d_at, reason, status, reversal_at, prefix)) in
        fixed.into_iter().enumerate()
    {
        let currency = Currency::parse(c).unwrap_or(Currency::USD);
        if at < start || !has(g, currency) {
            continue;
        }
        let Some(pool) = g.by_currency.get(&currency) else {
            continue;
        };
        if pool.is_empty() {
            continue;
        }
        let customer = pool[k % pool.len()];
        let order = g.next_order();
        g.charge_specs.push(ChargeSpec {
            at,
            customer: Some(customer),
            currency,
            amount,
            description: Some("1 × Wool throw".into()),
            metadata: BTreeMap::from([("order_id".to_string(), order)]),
            refunds: Vec::new(),
            dispute: Some(DisputeSpec {
                at: d_at,
                reason,
                status,
                reversal_at,
                prefix,
            }),
            guest_email: None,
        });
    }
}

/// A one-off amount in a currency's minor units (jpy whole yen, kwd multiples of 10).
pub fn one_off_amount(g: &mut Gen, c: Currency, small: bool) -> i64 {
    match c.as_str() {
        "jpy" => {
            if g.rng.random_range(0..3) == 0 {
                g.rng.random_range(800..30_000)
            } else {
                g.rng.random_range(8..300) * 100
            }
        }
        "kwd" => g.rng.random_range(3..60) * 1000 + g.rng.random_range(0..100) * 10,
        _ if small => g.rng.random_range(5..40) * 100 - 1,
        _ => g.rng.random_range(9..250) * 100 - 1,
    }
}

/// One random one-off charge on `day`, settling in `settle`.
fn one_off(g: &mut Gen, day: i64, settle: Currency, small: bool) -> Result<(), GenError> {
    let at = day + g.rng.random_range(0..DAY);
    if at > g.p.now - 60 {
        return Ok(());
    }
    let customer = if g.rng.random_range(0..10) < 6 {
        g.pools
            .get(&settle)
            .filter(|p| !p.is_empty())
            .map(|p| p[g.rng.random_range(0..p.len())])
    } else {
        None
    };
    let currency = customer.map(|c| g.customers[c].currency).unwrap_or(settle);
    let amount = one_off_amount(g, currency, small);
    let order = g.next_order();
    let product = PRODUCTS[g.rng.random_range(0..PRODUCTS.len())];
    let qty = g.rng.random_range(1..4);
    let mut metadata = Metadata::new();
    let style = g.rng.random_range(0..100);
    let description = if style < 80 {
        metadata.insert("order_id".into(), order);
        format!("{qty} × {product}")
    } else if style < 90 {
        metadata.insert("order".into(), order);
        format!("{qty} × {product}")
    } else if style < 95 {
        format!("Order {order} — {qty} × {product}")
    } else {
        metadata.insert("order_id".into(), order);
        metadata.insert("channel".into(), "pos".into());
        format!("{qty} × {product} (in store)")
    };
    let mut refunds = Vec::new();
    let mut dispute = None;
    let roll = g.rng.random_range(0..1000);
    if roll < g.p.refund_per_mille {
        let r_at = at + g.rng.random_range(1..25) * DAY + g.rng.random_range(0..DAY / 2);
        let full = g.rng.random_range(0..10) < 7;
        let r_amount = if full {
            amount
        } else {
            currency
                .floor_to_step(amount * g.rng.random_range(20..80) / 100)
                .max(currency.amount_step())
        };
        let reasons = [
            Some("requested_by_customer"),
            Some("requested_by_customer"),
            Some("duplicate"),
            None,
        ];
        refunds.push(RefundSpec {
            at: r_at,
            amount: r_amount,
            reason: reasons[g.rng.random_range(0..reasons.len())],
        });
    } else if roll < g.p.refund_per_mille + g.p.dispute_per_mille {
        let d_at = at + g.rng.random_range(7..45) * DAY + g.rng.random_range(0..DAY / 2);
        let reasons = [
            "fraudulent",
            "product_not_received",
            "duplicate",
            "subscription_canceled",
            "general",
        ];
        let reason = reasons[g.rng.random_range(0..reasons.len())];
        let (status, reversal_at) = if d_at + 45 * DAY < g.p.now {
            if g.rng.random_range(0..2) == 0 {
                ("won", Some(d_at + g.rng.random_range(20..45) * DAY))
            } else {
                ("lost", None)
            }
        } else if d_at + 14 * DAY < g.p.now {
            ("under_review", None)
        } else {
            ("needs_response", None)
        };
        let prefix = if g.rng.random_range(0..4) == 0 {
            "du_"
        } else {
            "dp_"
        };
        dispute = Some(DisputeSpec {
            at: d_at,
            reason,
            status,
            reversal_at,
            prefix,
        });
    }
    let guest_email = if customer.is_none() {
        let first = FIRST[g.rng.random_range(0..FIRST.len())];
        let k = g.rng.random_range(10..999);
        Some(format!("{}{}@guest.example.net", first.to_lowercase(), k))
    } else {
        None
    };
    g.charge(ChargeSpec {
        at,
        customer,
        currency,
        amount,
        description: Some(description),
        metadata,
        refunds,
        dispute,
        guest_email,
    })?;
    Ok(())
}

/// One day of random traffic (only from `flow_start` on).
pub fn day(g: &mut Gen, day: i64) -> Result<(), GenError> {
    let plans = g.p.payout_currencies.clone();
    let now = g.p.now;
    for pc in &plans {
        let n = g
            .rng
            .random_range(pc.charges_per_day.0..=pc.charges_per_day.1);
        for _ in 0..n {
            one_off(g, day, pc.currency, false)?;
        }
        for _ in 0..g.p.app_fees_per_day {
            let at = day + g.rng.random_range(0..DAY);
            if at > now - 60 {
                continue;
            }
            let amount = g.rng.random_range(50..900);
            let src = g.ids.next("fee_", 24);
            let acct = format!("acct_1Conn{:011}", g.rng.random_range(0..5000));
            g.standalone_bt(
                at,
                pc.currency,
                amount,
                "application_fee",
                "platform_earning",
                Some(src),
                &format!("Application fee from {acct}"),
            )?;
        }
    }
    if day == flash_sale_day() && plans.iter().any(|p| p.currency == Currency::USD) {
        for _ in 0..320 {
            one_off(g, day, Currency::USD, true)?;
        }
    }
    // Stripe's monthly fee lines, on the 2nd.
    if super::clock::ymd(day).ends_with("-02") {
        let month = super::clock::ymd(add_months(day, -1));
        let month = month.get(..7).unwrap_or("");
        if plans.iter().any(|p| p.currency == Currency::USD) {
            let amount = g.rng.random_range(1500..4500);
            g.standalone_bt(
                day + 6 * HOUR,
                Currency::USD,
                -amount,
                "stripe_fee",
                "fee",
                None,
                &format!("Billing - Usage Fee ({month})"),
            )?;
        }
        if plans.iter().any(|p| p.currency == Currency::EUR) {
            let amount = g.rng.random_range(400..1600);
            g.standalone_bt(
                day + 6 * HOUR + 60,
                Currency::EUR,
                -amount,
                "stripe_fee",
                "fee",
                None,
                &format!("Radar - Screening fees ({month})"),
            )?;
        }
    }
    if day == utc(2026, 11, 4, 0, 0) && plans.iter().any(|p| p.currency == Currency::USD) {
        g.standalone_bt(
            day + 9 * HOUR + 30 * 60,
            Currency::USD,
            2_500,
            "adjustment",
            "other_adjustment",
            None,
            "Fee credit: support case 4417",
        )?;
    }
    if day == utc(2026, 10, 8, 0, 0) && plans.iter().any(|p| p.currency == Currency::JPY) {
        g.standalone_bt(
            day + 11 * HOUR,
            Currency::JPY,
            -500,
            "adjustment",
            "other_adjustment",
            None,
            "Correction of a network cost",
        )?;
    }
    Ok(())
}

pub fn customer_object(c: &Cust) -> o::Customer {
    o::Customer {
        id: c.id.clone(),
        object: "customer",
        address: None,
        balance: 0,
        created: c.created,
        currency: Some(c.currency.as_str().to_string()),
        default_source: None,
        delinquent: false,
        description: c.description.clone(),
        email: c.email.clone(),
        invoice_prefix: c.invoice_prefix.clone(),
        invoice_settings: o::InvoiceSettings {
            custom_fields: None,
            default_payment_method: Some(c.pm.clone()),
            footer: None,
        },
        livemode: false,
        metadata: BTreeMap::new(),
        name: c.name.clone(),
        phone: None,
        preferred_locales: Vec::new(),
        shipping: None,
        tax_exempt: "none",
    }
}

pub fn subscription_object(s: &Sub, customers: &[Cust]) -> o::Subscription {
    let created = s.start;
    let price = o::Price {
        id: s.price_id.clone(),
        object: "price",
        active: true,
        billing_scheme: "per_unit",
        created: created - 30 * DAY,
        currency: s.currency.as_str().to_string(),
        livemode: false,
        lookup_key: None,
        nickname: Some(s.plan_name.to_string()),
        product: s.product.clone(),
        recurring: o::Recurring {
            interval: if s.months == 12 { "year" } else { "month" },
            interval_count: 1,
            meter: None,
            usage_type: "licensed",
        },
        kind: "recurring",
        unit_amount: s.unit_amount,
    };
    let item = o::SubscriptionItem {
        id: s.item_id.clone(),
        object: "subscription_item",
        created,
        current_period_end: s.period.1,
        current_period_start: s.period.0,
        metadata: Metadata::new(),
        price,
        quantity: 1,
        subscription: s.id.clone(),
    };
    o::Subscription {
        id: s.id.clone(),
        object: "subscription",
        billing_cycle_anchor: s.start,
        cancel_at: None,
        cancel_at_period_end: false,
        canceled_at: s.canceled_at,
        collection_method: "charge_automatically",
        created,
        currency: s.currency.as_str().to_string(),
        customer: customers[s.customer].id.clone(),
        days_until_due: None,
        default_payment_method: Some(
            s.own_pm
                .clone()
                .unwrap_or_else(|| customers[s.customer].pm.clone()),
        ),
        ended_at: None,
        items: o::ListOf::new(
            vec![item],
            format!("/v1/subscription_items?subscription={}", s.id),
        ),
        latest_invoice: s.latest_invoice.clone(),
        livemode: false,
        metadata: Metadata::new(),
        start_date: s.start,
        status: s.status,
    }
}

pub fn account_object() -> o::Account {
    o::Account {
        id: ACCOUNT_ID.to_string(),
        object: "account",
        business_profile: o::BusinessProfile {
            mcc: "5719",
            name: ACCOUNT_NAME,
            support_email: "support@harbourpine.example.com",
            url: "https://harbourpine.example.com",
        },
        business_type: "company",
        charges_enabled: true,
        country: "US",
        created: utc(2024, 3, 4, 10, 0),
        default_currency: "usd",
        details_submitted: true,
        email: "finance@harbourpine.example.com",
        payouts_enabled: true,
        settings: o::AccountSettings {
            dashboard: o::Dashboard {
                display_name: ACCOUNT_NAME,
                timezone: "Etc/UTC",
            },
            payouts: o::PayoutSettings {
                debit_negative_balances: true,
                schedule: o::PayoutSchedule {
                    delay_days: 2,
                    interval: "daily",
                },
                statement_descriptor: None,
            },
        },
        kind: "standard",
    }
}

pub fn balance_object(balance: &[(Currency, i64, i64)]) -> o::Balance {
    let entry = |c: Currency, amount: i64| o::BalanceAmount {
        amount,
        currency: c.as_str().to_string(),
        source_types: BTreeMap::from([("card", amount)]),
    };
    o::Balance {
        object: "balance",
        available: balance.iter().map(|(c, a, _)| entry(*c, *a)).collect(),
        livemode: false,
        pending: balance.iter().map(|(c, _, p)| entry(*c, *p)).collect(),
    }
}
