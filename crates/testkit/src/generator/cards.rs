//! The account's payment methods (`payment_methods.json`) and the subscriptions of the
//! expiring-cards check: every customer's card (the one its charges were paid with, so
//! brand, last four digits and expiry agree with `payment_method_details`), and a few
//! customers whose subscriptions renew after their card expires, or just not.
//!
//! The scripted customers, subscriptions and payment methods are added after the walk
//! and take their ids from streams of their own (`Ids::next_in`), so every object the
//! demo had before is unchanged, byte for byte: the new ones join the files in `created`
//! order, the old ones keep theirs. They have no invoices yet (their first renewal is ahead), which
//! keeps payouts, balance transactions and every tie-out as they were.

use super::clock::{DAY, utc};
use super::engine::{Cust, Gen};
use super::objects::{self as o, Metadata};
use tieout_core::money::Currency;

/// A card expiring in `(month, year)`, or another payment method type.
#[derive(Debug, Clone, Copy)]
enum Method {
    Card(&'static str, u32, i32),
    SepaDebit,
}

/// One scripted subscription of the expiring-cards check.
struct Scenario {
    name: &'static str,
    email: &'static str,
    currency: &'static str,
    unit_amount: i64,
    quantity: i64,
    /// Months per period (1 or 12).
    months: i64,
    /// The next renewal (the item's `current_period_end`).
    renews: (i16, i8, i8),
    /// The subscription's own default payment method (`None`: the customer's is used).
    own: Option<Method>,
    /// The customer's invoice default.
    customer: Method,
    cancel_at_period_end: bool,
}

/// The renewals around the demo's "now" (2026-11-30): four cards that fail before their
/// renewal (an own default, a customer default, a zero-decimal currency, an annual plan)
/// and four that do not (a card good through December, a bank debit that wins over an
/// expired card, a subscription that ends at its period's end, a card good for years).
const SCENARIOS: [Scenario; 8] = [
    Scenario {
        name: "Priya Natarajan",
        email: "priya.natarajan@example.com",
        currency: "usd",
        unit_amount: 4900,
        quantity: 2,
        months: 1,
        renews: (2026, 12, 8),
        own: Some(Method::Card("visa", 11, 2026)),
        customer: Method::Card("visa", 11, 2026),
        cancel_at_period_end: false,
    },
    Scenario {
        name: "Tomás Ferreira",
        email: "tomas.ferreira@mail.example.com",
        currency: "eur",
        unit_amount: 2900,
        quantity: 1,
        months: 1,
        renews: (2026, 12, 19),
        own: None,
        customer: Method::Card("mastercard", 10, 2026),
        cancel_at_period_end: false,
    },
    Scenario {
        name: "Hana Kobayashi",
        email: "hana.kobayashi@example.org",
        currency: "jpy",
        unit_amount: 3300,
        quantity: 1,
        months: 1,
        renews: (2027, 1, 4),
        own: Some(Method::Card("jcb", 12, 2026)),
        customer: Method::Card("jcb", 12, 2026),
        cancel_at_period_end: false,
    },
    Scenario {
        name: "Oliver Brandt",
        email: "oliver.brandt@example.com",
        currency: "usd",
        unit_amount: 29900,
        quantity: 1,
        months: 12,
        renews: (2027, 3, 15),
        own: Some(Method::Card("amex", 2, 2027)),
        customer: Method::Card("amex", 2, 2027),
        cancel_at_period_end: false,
    },
    Scenario {
        name: "Amara Okafor",
        email: "amara.okafor@example.org",
        currency: "usd",
        unit_amount: 1900,
        quantity: 1,
        months: 1,
        renews: (2026, 12, 20),
        own: Some(Method::Card("visa", 12, 2026)),
        customer: Method::Card("visa", 12, 2026),
        cancel_at_period_end: false,
    },
    Scenario {
        name: "Lucas Moreau",
        email: "lucas.moreau@mail.example.com",
        currency: "eur",
        unit_amount: 4900,
        quantity: 1,
        months: 1,
        renews: (2026, 12, 11),
        own: Some(Method::SepaDebit),
        customer: Method::Card("visa", 10, 2026),
        cancel_at_period_end: false,
    },
    Scenario {
        name: "Grace Liu",
        email: "grace.liu@example.com",
        currency: "usd",
        unit_amount: 9900,
        quantity: 1,
        months: 1,
        renews: (2026, 12, 5),
        own: Some(Method::Card("mastercard", 11, 2026)),
        customer: Method::Card("mastercard", 11, 2026),
        cancel_at_period_end: true,
    },
    Scenario {
        name: "Noah Schmidt",
        email: "noah.schmidt@example.org",
        currency: "gbp",
        unit_amount: 2500,
        quantity: 1,
        months: 1,
        renews: (2026, 12, 28),
        own: None,
        customer: Method::Card("visa", 9, 2028),
        cancel_at_period_end: false,
    },
];

/// What [`add`] made: the new subscriptions and the payment methods of every customer.
pub struct Cards {
    pub subscriptions: Vec<o::Subscription>,
    pub payment_methods: Vec<o::PaymentMethod>,
}

fn card(brand: &'static str, month: u32, year: i32, last4: String) -> o::PmCard {
    o::PmCard {
        brand,
        country: "US",
        exp_month: month,
        exp_year: year,
        funding: "credit",
        last4,
    }
}

fn method_object(
    id: String,
    m: Method,
    last4: String,
    customer: &Cust,
    created: i64,
) -> o::PaymentMethod {
    let (kind, card, sepa_debit) = match m {
        Method::Card(brand, month, year) => ("card", Some(card(brand, month, year, last4)), None),
        Method::SepaDebit => (
            "sepa_debit",
            None,
            Some(o::SepaDebit {
                bank_code: "37040044",
                country: "DE",
                last4,
            }),
        ),
    };
    o::PaymentMethod {
        id,
        object: "payment_method",
        billing_details: o::BillingDetails {
            address: None,
            email: customer.email.clone(),
            name: customer.name.clone(),
            phone: None,
        },
        card,
        created,
        customer: Some(customer.id.clone()),
        livemode: false,
        metadata: Metadata::new(),
        sepa_debit,
        kind,
    }
}

/// The card each customer of the walk pays with, as its charges show it (see
/// `engine::money::card_details`: the month follows from the last four digits, 2028).
pub(super) fn walk_card(c: &Cust) -> o::PaymentMethod {
    let month = 1 + (c.last4.bytes().map(u32::from).sum::<u32>() % 12);
    let m = Method::Card(c.card_brand, month, 2028);
    method_object(c.pm.clone(), m, c.last4.clone(), c, c.pm_created)
}

/// Four digits from the id stream `stream` (base 62 folded onto 0-9).
fn digits(g: &mut Gen, stream: &'static str) -> String {
    g.ids
        .next_in(stream, "", 4)
        .bytes()
        .map(|b| char::from(b'0' + b % 10))
        .collect()
}

/// Adds the scripted customers (to `g.customers`, after everyone else) and returns their
/// subscriptions and every customer's payment methods, `created` order.
pub fn add(g: &mut Gen) -> Cards {
    let mut subscriptions = Vec::new();
    let mut methods: Vec<o::PaymentMethod> = g.customers.iter().map(walk_card).collect();
    // A subscription that keeps its own, older card (the recovery picture's wrong card).
    for s in &g.subs {
        if let Some(pm) = &s.own_pm {
            let mut old = g.customers[s.customer].clone();
            old.pm = pm.clone();
            old.pm_created = old.created;
            methods.push(walk_card(&old));
        }
    }
    for (i, s) in SCENARIOS.iter().enumerate() {
        let currency = Currency::parse(s.currency).unwrap_or(Currency::USD);
        let (y, m, d) = s.renews;
        let renews = utc(y, m, d, 9, 0);
        let start = super::clock::add_months(renews, -s.months);
        let created = start - 40 * DAY - i as i64 * 3_600;
        let id = g.ids.next_in("cards_cus", "cus_", 14);
        let customer_pm = g.ids.next_in("cards_pm", "pm_", 24);
        let last4 = digits(g, "cards_last4");
        let brand = match s.customer {
            Method::Card(b, _, _) => b,
            Method::SepaDebit => "visa",
        };
        let cust = Cust {
            invoice_prefix: id[4..12].to_uppercase(),
            id,
            name: Some(s.name.to_string()),
            email: Some(s.email.to_string()),
            currency,
            created,
            next_invoice: 1,
            card_brand: brand,
            last4: last4.clone(),
            pm: customer_pm.clone(),
            pm_created: created,
            description: None,
            scenario: true,
        };
        methods.push(method_object(
            customer_pm.clone(),
            s.customer,
            last4.clone(),
            &cust,
            created,
        ));
        let own = match s.own {
            // The same card as the customer's: the subscription names it.
            Some(Method::Card(..)) if matches!(s.customer, Method::Card(..)) => {
                Some(customer_pm.clone())
            }
            Some(m) => {
                let pm = g.ids.next_in("cards_pm", "pm_", 24);
                let digits = digits(g, "cards_last4");
                methods.push(method_object(pm.clone(), m, digits, &cust, start));
                Some(pm)
            }
            None => None,
        };
        subscriptions.push(subscription(g, s, &cust, own, (start, renews), currency));
        g.customers.push(cust);
    }
    methods.sort_by(|a, b| (a.created, &a.id).cmp(&(b.created, &b.id)));
    Cards {
        subscriptions,
        payment_methods: methods,
    }
}

fn subscription(
    g: &mut Gen,
    s: &Scenario,
    cust: &Cust,
    own: Option<String>,
    (start, renews): (i64, i64),
    currency: Currency,
) -> o::Subscription {
    let id = g.ids.next_in("cards_sub", "sub_", 24);
    let item_id = g.ids.next_in("cards_si", "si_", 14);
    let price_id = g.ids.next_in("cards_price", "price_", 24);
    let product = g.ids.next_in("cards_prod", "prod_", 14);
    let annual = s.months == 12;
    let price = o::Price {
        id: price_id,
        object: "price",
        active: true,
        billing_scheme: "per_unit",
        created: start - 30 * DAY,
        currency: currency.as_str().to_string(),
        livemode: false,
        lookup_key: None,
        nickname: Some(
            if annual {
                "Team annual"
            } else {
                "Team monthly"
            }
            .to_string(),
        ),
        product,
        recurring: o::Recurring {
            interval: if annual { "year" } else { "month" },
            interval_count: 1,
            meter: None,
            usage_type: "licensed",
        },
        kind: "recurring",
        unit_amount: s.unit_amount,
    };
    let item = o::SubscriptionItem {
        id: item_id,
        object: "subscription_item",
        created: start,
        current_period_end: renews,
        current_period_start: start,
        metadata: Metadata::new(),
        price,
        quantity: s.quantity,
        subscription: id.clone(),
    };
    let url = format!("/v1/subscription_items?subscription={id}");
    o::Subscription {
        id,
        object: "subscription",
        billing_cycle_anchor: start,
        cancel_at: s.cancel_at_period_end.then_some(renews),
        cancel_at_period_end: s.cancel_at_period_end,
        canceled_at: None,
        collection_method: "charge_automatically",
        created: start,
        currency: currency.as_str().to_string(),
        customer: cust.id.clone(),
        days_until_due: None,
        default_payment_method: own,
        ended_at: None,
        items: o::ListOf::new(vec![item], url),
        latest_invoice: None,
        livemode: false,
        metadata: Metadata::new(),
        start_date: start,
        status: "active",
    }
}
