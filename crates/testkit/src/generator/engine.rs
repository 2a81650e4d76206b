//! The simulation: a day-by-day walk from the start of the account's history to "now".
//!
//! Every object is decided when its story starts (a charge knows at birth whether it will
//! be refunded or disputed, so its final `amount_refunded`/`disputed` can be written) and
//! then *scheduled* at its own `created` time in one time-ordered queue. The walk pops the
//! queue day by day and writes each object to its file, so every file comes out sorted by
//! `created` (oldest first) and memory holds only what is still in the future (a few weeks
//! of refunds and disputes) plus the balance not yet paid out.
//!
//! Automatic payouts are queue events too: when one fires it takes every balance
//! transaction of its currency that became available before it and is not paid out yet,
//! so the tie-out (sum of its lines' net == amount) holds by construction.

use std::collections::BTreeMap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::clock::{DAY, HOUR, add_months, day_start, weekday};
use super::declines::Decline;
use super::ids::Ids;
use super::objects::{self as o, Metadata};
use super::writer::{ArrayWriter, GenError, MapWriter};
use super::{ACCOUNT_ID, ACCOUNT_NAME, Params, Schedule, Stats};
use tieout_core::money::Currency;

/// A customer as the generator keeps it.
#[derive(Debug, Clone)]
pub struct Cust {
    pub id: String,
    pub name: Option<String>,
    pub email: Option<String>,
    pub currency: Currency,
    pub created: i64,
    pub invoice_prefix: String,
    pub next_invoice: u32,
    pub card_brand: &'static str,
    pub last4: String,
    pub pm: String,
    pub description: Option<String>,
    /// Scenario customers (refund tickets) get no random traffic.
    pub scenario: bool,
}

/// A subscription as the generator keeps it (one item).
#[derive(Debug, Clone)]
pub struct Sub {
    pub id: String,
    pub item_id: String,
    pub price_id: String,
    pub product: String,
    pub plan_name: &'static str,
    pub customer: usize,
    pub currency: Currency,
    pub unit_amount: i64,
    /// Months per period (1 or 12).
    pub months: i64,
    pub start: i64,
    /// Renewals at or after this instant are not paid (a failed invoice takes over).
    pub stop_at: Option<i64>,
    pub renewals: i64,
    /// When the next renewal is due (cached: the walk asks every day).
    pub next: i64,
    pub status: &'static str,
    pub period: (i64, i64),
    pub latest_invoice: Option<String>,
    pub canceled_at: Option<i64>,
    /// Renewal k carries `{"order_id": "ORD-(base+k)"}` when set.
    pub order_base: Option<u64>,
}

impl Sub {
    pub fn next_renewal(&self) -> i64 {
        self.next
    }
}

#[derive(Debug, Clone)]
pub struct RefundSpec {
    pub at: i64,
    pub amount: i64,
    pub reason: Option<&'static str>,
}

#[derive(Debug, Clone)]
pub struct DisputeSpec {
    pub at: i64,
    pub reason: &'static str,
    pub status: &'static str,
    /// A won dispute gives the money back at this instant.
    pub reversal_at: Option<i64>,
    /// `dp_` or `du_`.
    pub prefix: &'static str,
}

/// A succeeded charge to make.
#[derive(Debug, Clone)]
pub struct ChargeSpec {
    pub at: i64,
    pub customer: Option<usize>,
    pub currency: Currency,
    pub amount: i64,
    pub description: Option<String>,
    pub metadata: Metadata,
    pub refunds: Vec<RefundSpec>,
    pub dispute: Option<DisputeSpec>,
    /// Guest checkout email when there is no customer.
    pub guest_email: Option<String>,
}

/// A declined one-off payment (no invoice) to make.
#[derive(Debug, Clone)]
pub struct FailedSpec {
    pub at: i64,
    pub customer: usize,
    pub currency: Currency,
    pub amount: i64,
    pub description: String,
    pub metadata: Metadata,
    pub decline: Decline,
}

/// What kind of non-paid invoice to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvKind {
    /// Open, failed attempts or past due: on the worklist.
    Worklist,
    Uncollectible,
    Void,
    Draft,
    /// Open, charge_automatically, finalized less than an hour ago: not attempted yet.
    OpenNotAttempted,
    /// Open, send_invoice, due in the future.
    OpenNotDue,
}

/// An invoice that is not simply paid: the worklist and its neighbours.
#[derive(Debug, Clone)]
pub struct DunSpec {
    pub kind: InvKind,
    pub customer: usize,
    pub currency: Currency,
    pub amount: i64,
    /// The subscription it renews (created for it), if any.
    pub sub: Option<usize>,
    pub send_invoice: bool,
    pub created: i64,
    /// Failed attempts, oldest first: time and decline.
    pub attempts: Vec<(i64, Decline)>,
    pub next_payment_attempt: Option<i64>,
    pub due_date: Option<i64>,
    pub description: Option<String>,
}

/// Objects waiting in the queue for their `created` time.
#[derive(Debug)]
enum Obj {
    /// A balance transaction; `payable` ones join the next automatic payout.
    Bt(Box<o::BalanceTransaction>, bool),
    Charge(Box<o::Charge>),
    Pi(Box<o::PaymentIntent>),
    Refund(Box<o::Refund>),
    Dispute(Box<o::Dispute>),
    Invoice(Box<o::Invoice>),
    InvoicePayment(Box<o::InvoicePayment>),
    Payout(Box<o::Payout>),
}

/// Special handling for one automatic payout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PayoutTwist {
    Normal,
    /// Fails at the bank: `payout_failure` credit later, which the next payout pays.
    Failed,
    /// Keeps a minimum balance: `payout_minimum_balance_hold` line, release after.
    MinimumBalanceHold(i64),
}

#[derive(Debug)]
enum Ev {
    Obj(Obj),
    AutoPayout {
        currency: Currency,
        arrival: i64,
        twist: PayoutTwist,
    },
    ManualPayout {
        currency: Currency,
        amount: i64,
        arrival: i64,
        instant: bool,
    },
}

#[derive(Debug, Clone)]
struct PendingLine {
    id: String,
    available_on: i64,
    net: i64,
}

/// The output files, one writer each.
pub struct Writers {
    pub balance_transactions: ArrayWriter,
    pub charges: ArrayWriter,
    pub payment_intents: ArrayWriter,
    pub refunds: ArrayWriter,
    pub disputes: ArrayWriter,
    pub invoices: ArrayWriter,
    pub invoice_payments: ArrayWriter,
    pub payouts: ArrayWriter,
    pub payout_lines: MapWriter,
}

pub struct Gen {
    pub p: Params,
    pub ids: Ids,
    /// Random traffic.
    pub rng: ChaCha8Rng,
    pub w: Writers,
    queue: BTreeMap<(i64, u64), Ev>,
    seq: u64,
    cursor: i64,
    pending: BTreeMap<Currency, Vec<PendingLine>>,
    pub customers: Vec<Cust>,
    pub subs: Vec<Sub>,
    pub stats: Stats,
    pub order_no: u64,
    pub charge_specs: Vec<ChargeSpec>,
    pub failed_specs: Vec<FailedSpec>,
    pub dun_specs: Vec<DunSpec>,
    /// Twists still to apply: the first automatic payout of the currency arriving at or
    /// after the instant gets it.
    pub twists: Vec<(Currency, i64, PayoutTwist)>,
    /// (currency, created, arrival, amount, instant).
    pub manual_payouts: Vec<(Currency, i64, i64, i64, bool)>,
    /// Regular customers by the currency their charges settle in (random traffic).
    pub pools: BTreeMap<Currency, Vec<usize>>,
    /// Regular customers by their own currency (worklist invoices).
    pub by_currency: BTreeMap<Currency, Vec<usize>>,
}

fn cur_s(c: Currency) -> String {
    c.as_str().to_string()
}

impl Gen {
    pub fn new(p: Params, seed: u64, w: Writers) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(1);
        Self {
            cursor: p.loop_start,
            order_no: p.first_order_no,
            p,
            ids: Ids::new(seed),
            rng,
            w,
            queue: BTreeMap::new(),
            seq: 0,
            pending: BTreeMap::new(),
            customers: Vec::new(),
            subs: Vec::new(),
            stats: Stats::default(),
            charge_specs: Vec::new(),
            failed_specs: Vec::new(),
            dun_specs: Vec::new(),
            twists: Vec::new(),
            manual_payouts: Vec::new(),
            pools: BTreeMap::new(),
            by_currency: BTreeMap::new(),
        }
    }

    fn schedule(&mut self, at: i64, ev: Ev) -> Result<(), GenError> {
        if at < self.cursor {
            return Err(GenError::Invalid(format!(
                "generator bug: an object at {at} was scheduled after the walk passed {}",
                self.cursor
            )));
        }
        self.seq += 1;
        self.queue.insert((at, self.seq), ev);
        Ok(())
    }

    fn obj(&mut self, at: i64, obj: Obj) -> Result<(), GenError> {
        self.schedule(at, Ev::Obj(obj))
    }

    pub fn chance(&mut self, per_mille: u32) -> bool {
        self.rng.random_range(0..1000) < per_mille
    }

    pub fn next_order(&mut self) -> String {
        self.order_no += 1;
        format!("ORD-{}", self.order_no)
    }

    // ---------------------------------------------------------------- customers, subs

    /// Adds a customer; `created` as given.
    pub fn add_customer(
        &mut self,
        name: Option<&str>,
        email: Option<&str>,
        currency: Currency,
        created: i64,
        scenario: bool,
    ) -> usize {
        let id = self.ids.next("cus_", 14);
        let prefix: String = self.ids.next("", 8).to_uppercase();
        let brands = ["visa", "visa", "mastercard", "amex"];
        let brand = brands[self.rng.random_range(0..brands.len())];
        let last4 = format!("{:04}", self.rng.random_range(0..10_000));
        let pm = self.ids.next("pm_", 24);
        self.customers.push(Cust {
            id,
            name: name.map(str::to_string),
            email: email.map(str::to_string),
            currency,
            created,
            invoice_prefix: prefix,
            next_invoice: 1,
            card_brand: brand,
            last4,
            pm,
            description: None,
            scenario,
        });
        self.customers.len() - 1
    }

    /// Adds a subscription of one item; renewals happen in the walk from `start`.
    pub fn add_sub(
        &mut self,
        customer: usize,
        months: i64,
        unit_amount: i64,
        start: i64,
        order_base: Option<u64>,
    ) -> usize {
        let currency = self.customers[customer].currency;
        let plans = if months == 12 {
            super::people::ANNUAL_PLANS
        } else {
            super::people::MONTHLY_PLANS
        };
        let plan_name = plans[self.rng.random_range(0..plans.len())];
        let sub = Sub {
            id: self.ids.next("sub_", 24),
            item_id: self.ids.next("si_", 14),
            price_id: self.ids.next("price_", 24),
            product: self.ids.next("prod_", 14),
            plan_name,
            customer,
            currency,
            unit_amount,
            months,
            start,
            stop_at: None,
            renewals: 0,
            next: start,
            status: "active",
            period: (start, add_months(start, months)),
            latest_invoice: None,
            canceled_at: None,
            order_base,
        };
        self.subs.push(sub);
        self.subs.len() - 1
    }

    // ---------------------------------------------------------------- money helpers

    /// The currency a presentment currency settles in, and the conversion
    /// (numerator, denominator, Stripe's decimal rate) when it is converted.
    pub fn settlement(&self, c: Currency) -> (Currency, Option<(i64, i64, f64)>) {
        if self.p.payout_currencies.iter().any(|pc| pc.currency == c) {
            return (c, None);
        }
        // Settled in usd at a fixed demo rate (minor -> cents).
        let conv = match c.as_str() {
            "gbp" => (127, 100, 1.27),
            "kwd" => (326, 1000, 3.26),
            "eur" => (108, 100, 1.08),
            "jpy" => (67, 100, 0.0067),
            _ => (100, 100, 1.0),
        };
        (Currency::USD, Some(conv))
    }

    fn convert(amount: i64, conv: Option<(i64, i64, f64)>) -> i64 {
        match conv {
            None => amount,
            Some((n, d, _)) => {
                let mag = (amount.abs() * n + d / 2) / d;
                if amount < 0 { -mag } else { mag }
            }
        }
    }

    fn processing_fee(settle: Currency, amount: i64, converted: bool) -> i64 {
        let base = match settle.as_str() {
            "jpy" => amount * 36 / 1000,
            "eur" => amount * 15 / 1000 + 25,
            _ => amount * 29 / 1000 + 30,
        };
        if converted {
            base + amount * 15 / 1000
        } else {
            base
        }
    }

    fn dispute_fee(settle: Currency) -> i64 {
        match settle.as_str() {
            "jpy" => 1500,
            "eur" => 2000,
            _ => 1500,
        }
    }

    fn available_delay(&self, settle: Currency) -> i64 {
        self.p
            .payout_currencies
            .iter()
            .find(|pc| pc.currency == settle)
            .map(|pc| pc.available_delay_days)
            .unwrap_or(2)
    }

    fn bt_status(&self, available_on: i64) -> &'static str {
        if available_on <= self.p.now {
            "available"
        } else {
            "pending"
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn make_bt(
        &mut self,
        created: i64,
        available_on: i64,
        currency: Currency,
        amount: i64,
        fee: i64,
        fee_desc: &'static str,
        kind: &'static str,
        category: &'static str,
        source: Option<String>,
        description: Option<String>,
        rate: Option<f64>,
    ) -> o::BalanceTransaction {
        let fee_details = if fee == 0 {
            Vec::new()
        } else {
            vec![o::FeeDetail {
                amount: fee,
                application: None,
                currency: cur_s(currency),
                description: fee_desc,
                kind: "stripe_fee",
            }]
        };
        o::BalanceTransaction {
            id: self.ids.next("txn_", 24),
            object: "balance_transaction",
            amount,
            available_on,
            balance_type: "payments",
            created,
            currency: cur_s(currency),
            description,
            exchange_rate: rate,
            fee,
            fee_details,
            net: amount - fee,
            reporting_category: category,
            source,
            status: self.bt_status(available_on),
            kind,
        }
    }

    /// Schedules a balance transaction on its own (fees, adjustments, application fees).
    #[allow(clippy::too_many_arguments)]
    pub fn standalone_bt(
        &mut self,
        at: i64,
        currency: Currency,
        amount: i64,
        kind: &'static str,
        category: &'static str,
        source: Option<String>,
        description: &str,
    ) -> Result<(), GenError> {
        let bt = self.make_bt(
            at,
            at,
            currency,
            amount,
            0,
            "",
            kind,
            category,
            source,
            Some(description.to_string()),
            None,
        );
        let payable = at >= self.p.flow_start;
        self.obj(at, Obj::Bt(Box::new(bt), payable))
    }

    // ---------------------------------------------------------------- charges

    fn card_details(
        &self,
        customer: Option<usize>,
        fallback_last4: &str,
    ) -> o::PaymentMethodDetails {
        let (brand, last4) = match customer {
            Some(c) => (
                self.customers[c].card_brand,
                self.customers[c].last4.clone(),
            ),
            None => ("visa", fallback_last4.to_string()),
        };
        o::PaymentMethodDetails {
            card: o::Card {
                brand,
                country: "US",
                exp_month: 1 + (last4.bytes().map(u32::from).sum::<u32>() % 12),
                exp_year: 2028,
                funding: "credit",
                last4,
            },
            kind: "card",
        }
    }

    fn receipt_url(&mut self) -> String {
        let token = self.ids.next("", 30);
        format!(
            "https://pay.stripe.com/receipts/payment/CAcaFwoVYWNjdF8xRGVtb1RpZW91dDAwMDAx{token}"
        )
    }

    /// Makes a succeeded charge with its PaymentIntent, balance transaction and whatever
    /// refunds and dispute its spec decided. Returns (charge id, payment intent id).
    pub fn charge(&mut self, spec: ChargeSpec) -> Result<(String, String), GenError> {
        let at = spec.at;
        let now = self.p.now;
        let refunds: Vec<RefundSpec> = spec.refunds.into_iter().filter(|r| r.at <= now).collect();
        let dispute = spec.dispute.filter(|d| d.at <= now);
        let (settle, conv) = self.settlement(spec.currency);
        let rate = conv.map(|c| c.2);
        let ch_id = self.ids.next("ch_", 24);
        let pi_id = self.ids.next("pi_", 24);
        let cust = spec.customer.map(|c| self.customers[c].clone());
        let pm = match &cust {
            Some(c) => c.pm.clone(),
            None => self.ids.next("pm_", 24),
        };
        let fallback_last4 = format!("{:04}", self.rng.random_range(0..10_000));

        // The charge's own balance transaction.
        let samt = Self::convert(spec.amount, conv);
        let fee = Self::processing_fee(settle, samt, conv.is_some());
        let avail = day_start(at) + self.available_delay(settle) * DAY;
        let bt = self.make_bt(
            at,
            avail,
            settle,
            samt,
            fee,
            "Stripe processing fees",
            "charge",
            "charge",
            Some(ch_id.clone()),
            spec.description.clone(),
            rate,
        );
        let bt_id = bt.id.clone();
        let payable = at >= self.p.flow_start;
        self.obj(at, Obj::Bt(Box::new(bt), payable))?;
        *self
            .stats
            .per_currency
            .entry(("charges", cur_s(spec.currency)))
            .or_default() += 1;

        // Refunds.
        let mut refunded = 0;
        for r in &refunds {
            let re_id = self.ids.next("re_", 24);
            let ramt = Self::convert(r.amount, conv);
            let rbt = self.make_bt(
                r.at,
                r.at,
                settle,
                -ramt,
                0,
                "",
                "refund",
                "refund",
                Some(re_id.clone()),
                Some("REFUND FOR CHARGE".to_string()),
                rate,
            );
            let refund = o::Refund {
                id: re_id,
                object: "refund",
                amount: r.amount,
                balance_transaction: Some(rbt.id.clone()),
                charge: ch_id.clone(),
                created: r.at,
                currency: cur_s(spec.currency),
                destination_details: None,
                metadata: Metadata::new(),
                payment_intent: Some(pi_id.clone()),
                reason: r.reason,
                receipt_number: None,
                status: "succeeded",
            };
            refunded += r.amount;
            let payable = r.at >= self.p.flow_start;
            self.obj(r.at, Obj::Bt(Box::new(rbt), payable))?;
            self.obj(r.at, Obj::Refund(Box::new(refund)))?;
        }

        // Dispute.
        if let Some(d) = dispute
            .as_ref()
            .filter(|d| d.status.starts_with("warning_"))
        {
            // An inquiry (early warning): no funds move, so no balance transaction.
            let dp_id = self.ids.next(d.prefix, 24);
            let inquiry = o::Dispute {
                id: dp_id,
                object: "dispute",
                amount: spec.amount,
                balance_transactions: Vec::new(),
                charge: ch_id.clone(),
                created: d.at,
                currency: cur_s(spec.currency),
                evidence_details: o::EvidenceDetails {
                    due_by: Some(day_start(d.at) + 21 * DAY - 1),
                    has_evidence: false,
                    past_due: false,
                    submission_count: 0,
                },
                is_charge_refundable: true,
                livemode: false,
                metadata: Metadata::new(),
                payment_intent: Some(pi_id.clone()),
                reason: d.reason,
                status: d.status,
            };
            self.obj(d.at, Obj::Dispute(Box::new(inquiry)))?;
        } else if let Some(d) = &dispute {
            let dp_id = self.ids.next(d.prefix, 24);
            let dfee = Self::dispute_fee(settle);
            let dbt = self.make_bt(
                d.at,
                d.at,
                settle,
                -samt,
                dfee,
                "Dispute fee",
                "adjustment",
                "dispute",
                Some(dp_id.clone()),
                Some(format!("Chargeback withdrawal for {ch_id}")),
                rate,
            );
            let mut inline = vec![dbt.clone()];
            let payable = d.at >= self.p.flow_start;
            self.obj(d.at, Obj::Bt(Box::new(dbt), payable))?;
            if let Some(rev_at) = d.reversal_at.filter(|t| *t <= now) {
                let rbt = self.make_bt(
                    rev_at,
                    rev_at,
                    settle,
                    samt,
                    0,
                    "",
                    "adjustment",
                    "dispute_reversal",
                    Some(dp_id.clone()),
                    Some(format!("Chargeback reversal for {ch_id}")),
                    rate,
                );
                inline.push(rbt.clone());
                let payable = rev_at >= self.p.flow_start;
                self.obj(rev_at, Obj::Bt(Box::new(rbt), payable))?;
            }
            let closed = matches!(d.status, "won" | "lost");
            let dispute = o::Dispute {
                id: dp_id,
                object: "dispute",
                amount: spec.amount,
                balance_transactions: inline,
                charge: ch_id.clone(),
                created: d.at,
                currency: cur_s(spec.currency),
                evidence_details: o::EvidenceDetails {
                    due_by: Some(day_start(d.at) + 21 * DAY - 1),
                    has_evidence: closed,
                    past_due: false,
                    submission_count: u32::from(closed),
                },
                is_charge_refundable: false,
                livemode: false,
                metadata: Metadata::new(),
                payment_intent: Some(pi_id.clone()),
                reason: d.reason,
                status: d.status,
            };
            self.obj(d.at, Obj::Dispute(Box::new(dispute)))?;
        }

        let email = cust
            .as_ref()
            .and_then(|c| c.email.clone())
            .or(spec.guest_email);
        let name = cust.as_ref().and_then(|c| c.name.clone());
        let receipt_url = self.receipt_url();
        let risk = self.rng.random_range(4..62);
        let charge = o::Charge {
            id: ch_id.clone(),
            object: "charge",
            amount: spec.amount,
            amount_captured: spec.amount,
            amount_refunded: refunded,
            balance_transaction: Some(bt_id),
            billing_details: o::BillingDetails {
                address: None,
                email: email.clone(),
                name,
                phone: None,
            },
            calculated_statement_descriptor: "TIEOUT DEMO",
            captured: true,
            created: at,
            currency: cur_s(spec.currency),
            customer: cust.as_ref().map(|c| c.id.clone()),
            description: spec.description.clone(),
            disputed: dispute.is_some(),
            failure_balance_transaction: None,
            failure_code: None,
            failure_message: None,
            livemode: false,
            metadata: spec.metadata.clone(),
            outcome: o::Outcome {
                advice_code: None,
                network_advice_code: None,
                network_decline_code: None,
                network_status: "approved_by_network",
                reason: None,
                risk_level: "normal",
                risk_score: risk,
                seller_message: "Payment complete.",
                kind: "authorized",
            },
            paid: true,
            payment_intent: Some(pi_id.clone()),
            payment_method: pm.clone(),
            payment_method_details: self.card_details(spec.customer, &fallback_last4),
            receipt_email: email,
            receipt_url: Some(receipt_url),
            refunded: refunded >= spec.amount,
            status: "succeeded",
        };
        let pi = o::PaymentIntent {
            id: pi_id.clone(),
            object: "payment_intent",
            amount: spec.amount,
            amount_capturable: 0,
            amount_received: spec.amount,
            capture_method: "automatic_async",
            confirmation_method: "automatic",
            created: at,
            currency: cur_s(spec.currency),
            customer: cust.as_ref().map(|c| c.id.clone()),
            description: spec.description,
            last_payment_error: None,
            latest_charge: Some(ch_id.clone()),
            livemode: false,
            metadata: spec.metadata,
            payment_method: Some(pm),
            payment_method_types: vec!["card"],
            status: "succeeded",
        };
        self.obj(at, Obj::Pi(Box::new(pi)))?;
        self.obj(at, Obj::Charge(Box::new(charge)))?;
        Ok((ch_id, pi_id))
    }

    // ---------------------------------------------------------------- invoices

    fn invoice_number(&mut self, customer: usize) -> String {
        let c = &mut self.customers[customer];
        let n = c.next_invoice;
        c.next_invoice += 1;
        format!("{}-{:04}", c.invoice_prefix, n)
    }

    fn hosted_url(&mut self) -> (String, String) {
        let token = self.ids.next("", 40);
        (
            format!("https://invoice.stripe.com/i/{ACCOUNT_ID}/test_{token}?s=ap"),
            format!("https://pay.stripe.com/invoice/{ACCOUNT_ID}/test_{token}/pdf?s=ap"),
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn invoice_shell(
        &mut self,
        inv_id: &str,
        customer: usize,
        currency: Currency,
        amount: i64,
        created: i64,
        sub: Option<usize>,
        billing_reason: &'static str,
        description: Option<String>,
        finalized: bool,
    ) -> o::Invoice {
        let c = self.customers[customer].clone();
        let (number, hosted, pdf) = if finalized {
            let (h, p) = self.hosted_url();
            (Some(self.invoice_number(customer)), Some(h), Some(p))
        } else {
            (None, None, None)
        };
        let line_id = self.ids.next("il_", 24);
        let (line, parent, period) = match sub {
            Some(s) => {
                let sb = &self.subs[s];
                let (ps, pe) = sb.period;
                let line = o::LineItem {
                    id: line_id,
                    object: "line_item",
                    amount,
                    currency: cur_s(currency),
                    description: format!(
                        "1 × {} (at {} / {})",
                        sb.plan_name,
                        tieout_core::money::format_major(sb.unit_amount, currency),
                        if sb.months == 12 { "year" } else { "month" }
                    ),
                    invoice: inv_id.to_string(),
                    livemode: false,
                    metadata: Metadata::new(),
                    parent: Some(o::LineParent {
                        invoice_item_details: None,
                        subscription_item_details: Some(o::SubscriptionItemDetails {
                            invoice_item: None,
                            proration: false,
                            subscription: sb.id.clone(),
                            subscription_item: sb.item_id.clone(),
                        }),
                        kind: "subscription_item_details",
                    }),
                    period: o::Period { end: pe, start: ps },
                    quantity: 1,
                };
                let parent = o::InvoiceParent {
                    quote_details: None,
                    subscription_details: Some(o::SubscriptionDetails {
                        metadata: Metadata::new(),
                        subscription: sb.id.clone(),
                    }),
                    kind: "subscription_details",
                };
                (line, Some(parent), (created, created))
            }
            None => {
                let line = o::LineItem {
                    id: line_id,
                    object: "line_item",
                    amount,
                    currency: cur_s(currency),
                    description: description.clone().unwrap_or_else(|| "Services".into()),
                    invoice: inv_id.to_string(),
                    livemode: false,
                    metadata: Metadata::new(),
                    parent: None,
                    period: o::Period {
                        end: created,
                        start: created,
                    },
                    quantity: 1,
                };
                (line, None, (created, created))
            }
        };
        o::Invoice {
            id: inv_id.to_string(),
            object: "invoice",
            account_country: "US",
            account_name: ACCOUNT_NAME,
            amount_due: amount,
            amount_overpaid: 0,
            amount_paid: 0,
            amount_remaining: amount,
            attempt_count: 0,
            attempted: false,
            auto_advance: true,
            billing_reason,
            collection_method: "charge_automatically",
            created,
            currency: cur_s(currency),
            customer: c.id.clone(),
            customer_email: c.email.clone(),
            customer_name: c.name.clone(),
            description,
            due_date: None,
            hosted_invoice_url: hosted,
            invoice_pdf: pdf,
            lines: o::ListOf::new(vec![line], format!("/v1/invoices/{inv_id}/lines")),
            livemode: false,
            metadata: Metadata::new(),
            next_payment_attempt: None,
            number,
            parent,
            period_end: period.1,
            period_start: period.0,
            status: "open",
            status_transitions: o::StatusTransitions {
                finalized_at: if finalized {
                    Some(created + HOUR)
                } else {
                    None
                },
                marked_uncollectible_at: None,
                paid_at: None,
                voided_at: None,
            },
            subtotal: amount,
            total: amount,
        }
    }

    /// A paid subscription renewal at `at`: invoice, PaymentIntent, charge, balance
    /// transaction and a paid invoice payment.
    pub fn renewal(&mut self, s: usize, at: i64) -> Result<(), GenError> {
        let (customer, currency, amount, months, k, order_base) = {
            let sb = &self.subs[s];
            (
                sb.customer,
                sb.currency,
                sb.unit_amount,
                sb.months,
                sb.renewals,
                sb.order_base,
            )
        };
        self.subs[s].period = (at, add_months(at, months));
        let inv_id = self.ids.next("in_", 24);
        let reason = if k == 0 {
            "subscription_create"
        } else {
            "subscription_cycle"
        };
        let mut inv = self.invoice_shell(
            &inv_id,
            customer,
            currency,
            amount,
            at,
            Some(s),
            reason,
            None,
            true,
        );
        let paid_at = at + HOUR;
        let mut metadata = Metadata::new();
        if let Some(base) = order_base {
            metadata.insert("order_id".into(), format!("ORD-{}", base + k as u64));
        }
        let desc = if k == 0 {
            "Subscription creation"
        } else {
            "Subscription update"
        };
        let (_, pi_id) = self.charge(ChargeSpec {
            at: paid_at,
            customer: Some(customer),
            currency,
            amount,
            description: Some(desc.into()),
            metadata,
            refunds: Vec::new(),
            dispute: None,
            guest_email: None,
        })?;
        inv.amount_paid = amount;
        inv.amount_remaining = 0;
        inv.attempt_count = 1;
        inv.attempted = true;
        inv.auto_advance = false;
        inv.status = "paid";
        inv.status_transitions.paid_at = Some(paid_at);
        let pay = o::InvoicePayment {
            id: self.ids.next("inpay_", 24),
            object: "invoice_payment",
            amount_paid: Some(amount),
            amount_requested: amount,
            created: paid_at,
            currency: cur_s(currency),
            invoice: inv_id.clone(),
            is_default: true,
            livemode: false,
            payment: o::InvoicePaymentTarget {
                payment_intent: pi_id,
                kind: "payment_intent",
            },
            status: "paid",
            status_transitions: o::InvoicePaymentTransitions {
                canceled_at: None,
                paid_at: Some(paid_at),
            },
        };
        self.subs[s].latest_invoice = Some(inv_id);
        self.subs[s].renewals += 1;
        let sb = &self.subs[s];
        self.subs[s].next = add_months(sb.start, sb.renewals * sb.months);
        self.count_invoice(&inv);
        self.obj(at, Obj::Invoice(Box::new(inv)))?;
        self.obj(paid_at, Obj::InvoicePayment(Box::new(pay)))?;
        Ok(())
    }

    fn count_invoice(&mut self, inv: &o::Invoice) {
        *self
            .stats
            .per_currency
            .entry(("invoices", inv.currency.clone()))
            .or_default() += 1;
        *self.stats.invoice_status.entry(inv.status).or_default() += 1;
    }

    /// A failed charge of an attempt.
    #[allow(clippy::too_many_arguments)]
    fn failed_charge(
        &mut self,
        at: i64,
        customer: usize,
        currency: Currency,
        amount: i64,
        pi_id: &str,
        d: &Decline,
        description: Option<String>,
    ) -> o::Charge {
        let risk = self.rng.random_range(10..80);
        let id = self.ids.next("ch_", 24);
        self.failed_charge_with(
            id,
            risk,
            at,
            customer,
            currency,
            amount,
            pi_id,
            d,
            description,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn failed_charge_with(
        &mut self,
        id: String,
        risk: i64,
        at: i64,
        customer: usize,
        currency: Currency,
        amount: i64,
        pi_id: &str,
        d: &Decline,
        description: Option<String>,
    ) -> o::Charge {
        let c = self.customers[customer].clone();
        let receipt_url = None;
        o::Charge {
            id,
            object: "charge",
            amount,
            amount_captured: 0,
            amount_refunded: 0,
            balance_transaction: None,
            billing_details: o::BillingDetails {
                address: None,
                email: c.email.clone(),
                name: c.name.clone(),
                phone: None,
            },
            calculated_statement_descriptor: "TIEOUT DEMO",
            captured: false,
            created: at,
            currency: cur_s(currency),
            customer: Some(c.id.clone()),
            description,
            disputed: false,
            failure_balance_transaction: None,
            failure_code: Some(d.code),
            failure_message: Some(d.message()),
            livemode: false,
            metadata: Metadata::new(),
            outcome: o::Outcome {
                advice_code: d.advice_code,
                network_advice_code: None,
                network_decline_code: d.network_code(),
                network_status: d.network_status,
                reason: d.outcome_reason,
                risk_level: if d.decline_code == Some("fraudulent") {
                    "elevated"
                } else {
                    "normal"
                },
                risk_score: risk,
                seller_message: d.seller_message(),
                kind: d.outcome_type,
            },
            paid: false,
            payment_intent: Some(pi_id.to_string()),
            payment_method: c.pm.clone(),
            payment_method_details: self.card_details(Some(customer), "0000"),
            receipt_email: c.email.clone(),
            receipt_url,
            refunded: false,
            status: "failed",
        }
    }

    /// A declined one-off payment with no invoice: a PaymentIntent left in
    /// `requires_payment_method` and its failed charge (ids from their own streams).
    pub fn failed_payment(&mut self, spec: &FailedSpec) -> Result<(), GenError> {
        let pi_id = self.ids.next_in("pi_/failed", "pi_", 24);
        let ch_id = self.ids.next_in("ch_/failed", "ch_", 24);
        let d = spec.decline;
        let mut ch = self.failed_charge_with(
            ch_id.clone(),
            35,
            spec.at,
            spec.customer,
            spec.currency,
            spec.amount,
            &pi_id,
            &d,
            Some(spec.description.clone()),
        );
        ch.metadata = spec.metadata.clone();
        let c = self.customers[spec.customer].clone();
        let pi = o::PaymentIntent {
            id: pi_id,
            object: "payment_intent",
            amount: spec.amount,
            amount_capturable: 0,
            amount_received: 0,
            capture_method: "automatic_async",
            confirmation_method: "automatic",
            created: spec.at,
            currency: cur_s(spec.currency),
            customer: Some(c.id.clone()),
            description: Some(spec.description.clone()),
            last_payment_error: Some(o::LastPaymentError {
                advice_code: d.advice_code,
                charge: ch_id.clone(),
                code: d.code,
                decline_code: d.decline_code,
                doc_url: d.doc_url(),
                message: d.message(),
                network_decline_code: d.network_code(),
                payment_method_type: "card",
                kind: "card_error",
            }),
            latest_charge: Some(ch_id),
            livemode: false,
            metadata: spec.metadata.clone(),
            payment_method: Some(c.pm.clone()),
            payment_method_types: vec!["card"],
            status: "requires_payment_method",
        };
        *self
            .stats
            .per_currency
            .entry(("failed_charges", cur_s(spec.currency)))
            .or_default() += 1;
        self.obj(spec.at, Obj::Pi(Box::new(pi)))?;
        self.obj(spec.at, Obj::Charge(Box::new(ch)))
    }

    /// An invoice that is not simply paid (the worklist and its neighbours), with its
    /// PaymentIntent, failed charges and invoice payment.
    pub fn special_invoice(&mut self, spec: &DunSpec) -> Result<(), GenError> {
        let inv_id = self.ids.next("in_", 24);
        let finalized = spec.kind != InvKind::Draft;
        let reason = if spec.sub.is_some() {
            "subscription_cycle"
        } else {
            "manual"
        };
        if let Some(s) = spec.sub {
            self.subs[s].period = (spec.created, add_months(spec.created, self.subs[s].months));
            self.subs[s].latest_invoice = Some(inv_id.clone());
            self.subs[s].status = match spec.kind {
                InvKind::Uncollectible => "unpaid",
                _ if spec.next_payment_attempt.is_none() && !spec.attempts.is_empty() => "unpaid",
                _ => "past_due",
            };
        }
        let mut inv = self.invoice_shell(
            &inv_id,
            spec.customer,
            spec.currency,
            spec.amount,
            spec.created,
            spec.sub,
            reason,
            spec.description.clone(),
            finalized,
        );
        if spec.send_invoice {
            inv.collection_method = "send_invoice";
            inv.due_date = spec.due_date;
            inv.auto_advance = true;
        }
        inv.attempt_count = spec.attempts.len() as i64;
        inv.attempted = !spec.attempts.is_empty();
        inv.next_payment_attempt = spec.next_payment_attempt;
        let finalized_at = spec.created + HOUR;
        match spec.kind {
            InvKind::Uncollectible => {
                inv.status = "uncollectible";
                inv.auto_advance = false;
                inv.next_payment_attempt = None;
                inv.status_transitions.marked_uncollectible_at =
                    spec.attempts.last().map(|a| a.0 + 2 * DAY);
            }
            InvKind::Void => {
                inv.status = "void";
                inv.auto_advance = false;
                inv.next_payment_attempt = None;
                inv.status_transitions.voided_at = Some(finalized_at + 2 * DAY);
            }
            InvKind::Draft => {
                inv.status = "draft";
                inv.next_payment_attempt = None;
            }
            InvKind::Worklist | InvKind::OpenNotAttempted | InvKind::OpenNotDue => {}
        }
        self.count_invoice(&inv);
        if spec.kind == InvKind::Worklist {
            *self
                .stats
                .per_currency
                .entry(("worklist", cur_s(spec.currency)))
                .or_default() += 1;
        }
        let created = spec.created;
        self.obj(created, Obj::Invoice(Box::new(inv)))?;
        if !finalized {
            return Ok(());
        }
        // The PaymentIntent made at finalization, its failed charges, the default
        // invoice payment.
        let pi_id = self.ids.next("pi_", 24);
        let mut last: Option<(o::Charge, Decline)> = None;
        for (at, d) in &spec.attempts {
            let ch = self.failed_charge(
                *at,
                spec.customer,
                spec.currency,
                spec.amount,
                &pi_id,
                d,
                Some(format!("Invoice {}", inv_id)),
            );
            *self
                .stats
                .per_currency
                .entry(("failed_charges", cur_s(spec.currency)))
                .or_default() += 1;
            last = Some((ch.clone(), *d));
            self.obj(*at, Obj::Charge(Box::new(ch)))?;
        }
        let c = self.customers[spec.customer].clone();
        let status = match spec.kind {
            InvKind::Void => "canceled",
            _ => "requires_payment_method",
        };
        let pi = o::PaymentIntent {
            id: pi_id.clone(),
            object: "payment_intent",
            amount: spec.amount,
            amount_capturable: 0,
            amount_received: 0,
            capture_method: "automatic_async",
            confirmation_method: "automatic",
            created: finalized_at,
            currency: cur_s(spec.currency),
            customer: Some(c.id.clone()),
            description: Some(format!("Invoice {}", inv_id)),
            last_payment_error: last.as_ref().map(|(ch, d)| o::LastPaymentError {
                advice_code: d.advice_code,
                charge: ch.id.clone(),
                code: d.code,
                decline_code: d.decline_code,
                doc_url: d.doc_url(),
                message: d.message(),
                network_decline_code: d.network_code(),
                payment_method_type: "card",
                kind: "card_error",
            }),
            latest_charge: last.as_ref().map(|(ch, _)| ch.id.clone()),
            livemode: false,
            metadata: Metadata::new(),
            payment_method: last.as_ref().map(|_| c.pm.clone()),
            payment_method_types: vec!["card"],
            status,
        };
        let pay_status = match spec.kind {
            InvKind::Void => "canceled",
            _ => "open",
        };
        let pay = o::InvoicePayment {
            id: self.ids.next("inpay_", 24),
            object: "invoice_payment",
            amount_paid: None,
            amount_requested: spec.amount,
            created: finalized_at,
            currency: cur_s(spec.currency),
            invoice: inv_id,
            is_default: true,
            livemode: false,
            payment: o::InvoicePaymentTarget {
                payment_intent: pi_id,
                kind: "payment_intent",
            },
            status: pay_status,
            status_transitions: o::InvoicePaymentTransitions {
                canceled_at: (pay_status == "canceled").then_some(finalized_at + 2 * DAY),
                paid_at: None,
            },
        };
        self.obj(finalized_at, Obj::Pi(Box::new(pi)))?;
        self.obj(finalized_at, Obj::InvoicePayment(Box::new(pay)))?;
        Ok(())
    }

    // ---------------------------------------------------------------- the walk

    /// Walks from `loop_start` to `now`, one day at a time.
    pub fn run(
        &mut self,
        traffic: &mut dyn FnMut(&mut Gen, i64) -> Result<(), GenError>,
    ) -> Result<(), GenError> {
        let now = self.p.now;
        self.charge_specs.sort_by_key(|c| c.at);
        self.dun_specs.sort_by_key(|d| d.created);
        let charge_specs = std::mem::take(&mut self.charge_specs);
        self.failed_specs.sort_by_key(|f| f.at);
        let failed_specs = std::mem::take(&mut self.failed_specs);
        let mut fi = 0;
        let dun_specs = std::mem::take(&mut self.dun_specs);
        let mut ci = 0;
        let mut di = 0;
        let mut day = day_start(self.p.loop_start);
        while day <= now {
            self.cursor = day;
            let end = day + DAY;
            if day >= day_start(self.p.flow_start) {
                traffic(self, day)?;
            }
            // Subscription renewals due today.
            for s in 0..self.subs.len() {
                loop {
                    let next = self.subs[s].next_renewal();
                    if next >= end || next > now - HOUR || next < day {
                        break;
                    }
                    if self.subs[s].stop_at.is_some_and(|t| next >= t) {
                        break;
                    }
                    self.renewal(s, next)?;
                }
            }
            while ci < charge_specs.len() && charge_specs[ci].at < end {
                let spec = charge_specs[ci].clone();
                ci += 1;
                self.charge(spec)?;
            }
            while fi < failed_specs.len() && failed_specs[fi].at < end {
                let spec = failed_specs[fi].clone();
                fi += 1;
                self.failed_payment(&spec)?;
            }
            while di < dun_specs.len() && dun_specs[di].created < end {
                let spec = dun_specs[di].clone();
                di += 1;
                self.special_invoice(&spec)?;
            }
            self.plan_payouts(day)?;
            self.pop_until(end.min(now + 1))?;
            day = end;
        }
        if let Some(((at, _), _)) = self.queue.iter().next() {
            return Err(GenError::Invalid(format!(
                "generator bug: an object was scheduled after now (at {at})"
            )));
        }
        Ok(())
    }

    /// Schedules the automatic payouts created today and any manual ones.
    fn plan_payouts(&mut self, day: i64) -> Result<(), GenError> {
        let now = self.p.now;
        let plans = self.p.payout_currencies.clone();
        for (i, pc) in plans.iter().enumerate() {
            let arrival = day + pc.lead_days * DAY;
            let wd = weekday(arrival);
            let on = match pc.schedule {
                Schedule::Daily => true,
                Schedule::Weekdays => (1..=5).contains(&wd),
                Schedule::Weekly(w) => wd == w,
            };
            if !on || arrival < self.p.first_arrival || arrival > now {
                continue;
            }
            let created = day + 3 * HOUR + (i as i64) * 7 * 60;
            if created > now {
                continue;
            }
            let twist = match self
                .twists
                .iter()
                .position(|(c, after, _)| *c == pc.currency && arrival >= *after)
            {
                Some(k) => self.twists.remove(k).2,
                None => PayoutTwist::Normal,
            };
            self.schedule(
                created,
                Ev::AutoPayout {
                    currency: pc.currency,
                    arrival,
                    twist,
                },
            )?;
        }
        let manual: Vec<_> = self
            .manual_payouts
            .iter()
            .filter(|m| day_start(m.1) == day)
            .cloned()
            .collect();
        for (currency, created, arrival, amount, instant) in manual {
            self.schedule(
                created,
                Ev::ManualPayout {
                    currency,
                    amount,
                    arrival,
                    instant,
                },
            )?;
        }
        Ok(())
    }

    fn pop_until(&mut self, end: i64) -> Result<(), GenError> {
        while let Some(entry) = self.queue.first_entry() {
            let (at, _) = *entry.key();
            if at >= end {
                break;
            }
            let ev = entry.remove();
            self.cursor = at;
            match ev {
                Ev::Obj(obj) => self.write(obj)?,
                Ev::AutoPayout {
                    currency,
                    arrival,
                    twist,
                } => self.auto_payout(at, currency, arrival, twist)?,
                Ev::ManualPayout {
                    currency,
                    amount,
                    arrival,
                    instant,
                } => self.manual_payout(at, currency, amount, arrival, instant)?,
            }
        }
        Ok(())
    }

    fn write(&mut self, obj: Obj) -> Result<(), GenError> {
        match obj {
            Obj::Bt(bt, payable) => {
                if payable {
                    let currency = Currency::parse(&bt.currency).unwrap_or(Currency::USD);
                    self.pending.entry(currency).or_default().push(PendingLine {
                        id: bt.id.clone(),
                        available_on: bt.available_on,
                        net: bt.net,
                    });
                }
                *self.stats.bt_types.entry(bt.kind).or_default() += 1;
                self.w.balance_transactions.push(&bt)
            }
            Obj::Charge(c) => self.w.charges.push(&c),
            Obj::Pi(p) => self.w.payment_intents.push(&p),
            Obj::Refund(r) => self.w.refunds.push(&r),
            Obj::Dispute(d) => self.w.disputes.push(&d),
            Obj::Invoice(i) => self.w.invoices.push(&i),
            Obj::InvoicePayment(p) => self.w.invoice_payments.push(&p),
            Obj::Payout(p) => {
                *self
                    .stats
                    .per_currency
                    .entry(("payouts", p.currency.clone()))
                    .or_default() += 1;
                self.w.payouts.push(&p)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn payout_object(
        &mut self,
        id: String,
        bt_id: String,
        created: i64,
        currency: Currency,
        amount: i64,
        arrival: i64,
        automatic: bool,
        method: &'static str,
    ) -> o::Payout {
        let in_transit = arrival >= day_start(self.p.now) && arrival > created;
        let trace = self.ids.next("", 12).to_uppercase();
        o::Payout {
            id,
            object: "payout",
            amount,
            application_fee: None,
            application_fee_amount: None,
            arrival_date: arrival,
            automatic,
            balance_transaction: bt_id,
            created,
            currency: cur_s(currency),
            description: Some(if automatic {
                "STRIPE PAYOUT".into()
            } else {
                "Manual payout".into()
            }),
            destination: self.p.bank_for(currency),
            failure_balance_transaction: None,
            failure_code: None,
            failure_message: None,
            livemode: false,
            metadata: Metadata::new(),
            method,
            original_payout: None,
            reconciliation_status: if !automatic {
                "not_applicable"
            } else if in_transit {
                "in_progress"
            } else {
                "completed"
            },
            reversed_by: None,
            source_type: "card",
            statement_descriptor: None,
            status: if in_transit { "in_transit" } else { "paid" },
            trace_id: Some(if in_transit {
                o::TraceId {
                    status: "pending",
                    value: None,
                }
            } else {
                o::TraceId {
                    status: "supported",
                    value: Some(format!("DEMO{trace}")),
                }
            }),
            kind: "bank_account",
        }
    }

    fn auto_payout(
        &mut self,
        at: i64,
        currency: Currency,
        arrival: i64,
        twist: PayoutTwist,
    ) -> Result<(), GenError> {
        let pending = self.pending.remove(&currency).unwrap_or_default();
        let (mut lines, rest): (Vec<_>, Vec<_>) =
            pending.into_iter().partition(|l| l.available_on <= at);
        let sum: i64 = lines.iter().map(|l| l.net).sum();
        let hold = match twist {
            PayoutTwist::MinimumBalanceHold(h) if sum > 2 * h => h,
            _ => 0,
        };
        if sum - hold <= 0 || lines.is_empty() {
            // Nothing to pay out: keep everything for the next payout.
            lines.extend(rest);
            self.pending.insert(currency, lines);
            if twist != PayoutTwist::Normal {
                self.twists.push((currency, arrival + 1, twist));
            }
            return Ok(());
        }
        self.pending.insert(currency, rest);
        let po_id = self.ids.next("po_", 24);
        if hold > 0 {
            let bt = self.make_bt(
                at,
                at,
                currency,
                -hold,
                0,
                "",
                "payout_minimum_balance_hold",
                "payout_minimum_balance_hold",
                Some(po_id.clone()),
                Some("Minimum balance hold".into()),
                None,
            );
            lines.push(PendingLine {
                id: bt.id.clone(),
                available_on: at,
                net: bt.net,
            });
            *self.stats.bt_types.entry(bt.kind).or_default() += 1;
            self.w.balance_transactions.push(&bt)?;
            let release = self.make_bt(
                at + 60,
                at + 60,
                currency,
                hold,
                0,
                "",
                "payout_minimum_balance_release",
                "payout_minimum_balance_release",
                Some(po_id.clone()),
                Some("Minimum balance release".into()),
                None,
            );
            self.obj(at + 60, Obj::Bt(Box::new(release), true))?;
        }
        let amount = sum - hold;
        let own = self.make_bt(
            at,
            at,
            currency,
            -amount,
            0,
            "",
            "payout",
            "payout",
            Some(po_id.clone()),
            Some("STRIPE PAYOUT".into()),
            None,
        );
        let mut payout = self.payout_object(
            po_id.clone(),
            own.id.clone(),
            at,
            currency,
            amount,
            arrival,
            true,
            "standard",
        );
        if twist == PayoutTwist::Failed {
            let fail_at = arrival + DAY + 10 * HOUR;
            let fbt = self.make_bt(
                fail_at,
                fail_at,
                currency,
                amount,
                0,
                "",
                "payout_failure",
                "payout_reversal",
                Some(po_id.clone()),
                Some("Payout failure: account closed".into()),
                None,
            );
            payout.status = "failed";
            payout.failure_code = Some("account_closed");
            payout.failure_message = Some("The bank account has been closed.");
            payout.failure_balance_transaction = Some(fbt.id.clone());
            payout.trace_id = Some(o::TraceId {
                status: "unsupported",
                value: None,
            });
            if fail_at <= self.p.now {
                self.obj(fail_at, Obj::Bt(Box::new(fbt), true))?;
            }
        }
        let mut ids: Vec<&str> = lines.iter().map(|l| l.id.as_str()).collect();
        ids.push(&own.id);
        self.w.payout_lines.entry(&po_id, &ids)?;
        self.stats.max_lines = self.stats.max_lines.max(lines.len() as u64);
        *self.stats.bt_types.entry(own.kind).or_default() += 1;
        self.w.balance_transactions.push(&own)?;
        self.write(Obj::Payout(Box::new(payout)))
    }

    fn manual_payout(
        &mut self,
        at: i64,
        currency: Currency,
        amount: i64,
        arrival: i64,
        instant: bool,
    ) -> Result<(), GenError> {
        let po_id = self.ids.next("po_", 24);
        let own = self.make_bt(
            at,
            at,
            currency,
            -amount,
            0,
            "",
            "payout",
            "payout",
            Some(po_id.clone()),
            Some(if instant {
                "INSTANT PAYOUT".into()
            } else {
                "Manual payout".into()
            }),
            None,
        );
        let method = if instant { "instant" } else { "standard" };
        let mut payout = self.payout_object(
            po_id,
            own.id.clone(),
            at,
            currency,
            amount,
            arrival,
            false,
            method,
        );
        if instant {
            payout.description = Some("Instant payout".into());
            payout.kind = "card";
            payout.destination = format!("card_1DemoDebit{}00000000", currency.upper());
            payout.source_type = "card";
        }
        *self.stats.bt_types.entry(own.kind).or_default() += 1;
        self.w.balance_transactions.push(&own)?;
        self.write(Obj::Payout(Box::new(payout)))
    }

    /// What is left unpaid per currency: (available, pending) by `available_on` vs now.
    pub fn balance(&self) -> Vec<(Currency, i64, i64)> {
        self.p
            .payout_currencies
            .iter()
            .map(|pc| {
                let lines = self
                    .pending
                    .get(&pc.currency)
                    .map(Vec::as_slice)
                    .unwrap_or(&[]);
                let avail = lines
                    .iter()
                    .filter(|l| l.available_on <= self.p.now)
                    .map(|l| l.net)
                    .sum();
                let pend = lines
                    .iter()
                    .filter(|l| l.available_on > self.p.now)
                    .map(|l| l.net)
                    .sum();
                (pc.currency, avail, pend)
            })
            .collect()
    }
}
