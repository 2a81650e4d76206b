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
//!
//! The rooms: `money` (settlement, fees, balance transactions), `charges`, `invoices`
//! (renewals, failed payments, dunning invoices) and `payouts`; this file holds the
//! generator's state and the walk.

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

mod charges;
mod invoices;
mod money;
mod payouts;
mod special;

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
    /// When `pm` was made: with the customer, or later for a card put on it afterwards.
    pub pm_created: i64,
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
    /// The subscription's own default payment method when it is not the customer's (the
    /// wrong card); `None`: the customer's.
    pub own_pm: Option<String>,
    /// Renewed from the side streams ([`Gen::with_side_streams`]).
    pub side: bool,
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
    /// Paid at `DunTwist::paid_at`, after the failed attempts (if any): the recovery
    /// picture's recovered invoices.
    Paid(PaidHow),
}

/// How a [`InvKind::Paid`] invoice was paid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaidHow {
    /// A charge on the card that failed.
    SameCard,
    /// A charge on another card.
    NewCard,
    /// Outside Stripe: a `payment_record` invoice payment and `amount_paid_off_stripe`.
    OutOfBand,
}

/// What the recovery cases add to a [`DunSpec`]; the default changes nothing.
#[derive(Debug, Clone, Default)]
pub struct DunTwist {
    /// Made from the side streams ([`Gen::with_side_streams`]): the rest of the account
    /// keeps its ids and random draws.
    pub side: bool,
    /// When a [`InvKind::Paid`] invoice was paid, or a [`InvKind::Void`] one voided.
    pub paid_at: Option<i64>,
    /// Its subscription is canceled (and Stripe still retries the invoice: a leak).
    pub cancel_sub: bool,
    /// The customer puts a new card on the customer after the failures while the
    /// subscription keeps its own default, the failing card (the wrong card).
    pub wrong_card: bool,
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
    pub twist: DunTwist,
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
    /// Per currency, the net of every line written: (available, pending) by
    /// `available_on` against now. Stripe's balance is this sum, paid out or not.
    ledger: BTreeMap<Currency, (i64, i64)>,
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
    /// The side streams ([`Gen::with_side_streams`]); `None` while they are in use.
    side: Option<(ChaCha8Rng, Ids)>,
    /// Invoices numbered from the side streams.
    side_invoices: u32,
}

/// Mixed into the seed for the side streams.
const SIDE_SEED: u64 = 0x5EC0_7E57_0036;

fn cur_s(c: Currency) -> String {
    c.as_str().to_string()
}

impl Gen {
    /// Writes a balance transaction and counts it in the account's balance.
    pub(super) fn write_bt(&mut self, bt: &o::BalanceTransaction) -> Result<(), GenError> {
        let currency = Currency::parse(&bt.currency).unwrap_or(Currency::USD);
        let e = self.ledger.entry(currency).or_default();
        if bt.available_on <= self.p.now {
            e.0 += bt.net;
        } else {
            e.1 += bt.net;
        }
        self.w.balance_transactions.push(bt)
    }

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
            ledger: BTreeMap::new(),
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
            side: Some((
                ChaCha8Rng::seed_from_u64(seed ^ SIDE_SEED),
                Ids::new(seed ^ SIDE_SEED),
            )),
            side_invoices: 0,
        }
    }

    /// Whether the side streams are in use.
    pub fn in_side_streams(&self) -> bool {
        self.side.is_none()
    }

    /// Runs `f` with the random draws and ids of a stream of their own: what it makes
    /// (the recovery cases) leaves every other object of the account as it was.
    pub fn with_side_streams<T>(&mut self, f: impl FnOnce(&mut Gen) -> T) -> T {
        let Some((rng, ids)) = self.side.take() else {
            return f(self);
        };
        let main_rng = std::mem::replace(&mut self.rng, rng);
        let main_ids = std::mem::replace(&mut self.ids, ids);
        let out = f(self);
        let rng = std::mem::replace(&mut self.rng, main_rng);
        let ids = std::mem::replace(&mut self.ids, main_ids);
        self.side = Some((rng, ids));
        out
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
            pm_created: created,
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
            own_pm: None,
            side: false,
            order_base,
        };
        self.subs.push(sub);
        self.subs.len() - 1
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
                    if self.subs[s].side {
                        self.with_side_streams(|g| g.renewal(s, next))?;
                    } else {
                        self.renewal(s, next)?;
                    }
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
                self.write_bt(&bt)
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
}
