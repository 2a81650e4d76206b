//! Invoices: subscription renewals, failed payments and the special invoices the dunning
//! scenarios need, each with its payment attempts.

use super::*;

impl Gen {
    pub(super) fn invoice_number(&mut self, customer: usize) -> String {
        if self.in_side_streams() {
            // Numbered apart, so the customer's other invoices keep their numbers.
            self.side_invoices += 1;
            let prefix = &self.customers[customer].invoice_prefix;
            return format!("{prefix}-R{:03}", self.side_invoices);
        }
        let c = &mut self.customers[customer];
        let n = c.next_invoice;
        c.next_invoice += 1;
        format!("{}-{:04}", c.invoice_prefix, n)
    }

    pub(super) fn hosted_url(&mut self) -> (String, String) {
        let token = self.ids.next("", 40);
        (
            format!("https://invoice.stripe.com/i/{ACCOUNT_ID}/test_{token}?s=ap"),
            format!("https://pay.stripe.com/invoice/{ACCOUNT_ID}/test_{token}/pdf?s=ap"),
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn invoice_shell(
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
            amount_paid_off_stripe: None,
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
                payment_record: None,
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

    pub(super) fn count_invoice(&mut self, inv: &o::Invoice) {
        *self
            .stats
            .per_currency
            .entry(("invoices", inv.currency.clone()))
            .or_default() += 1;
        *self.stats.invoice_status.entry(inv.status).or_default() += 1;
    }

    /// A failed charge of an attempt.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn failed_charge(
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
    pub(super) fn failed_charge_with(
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
                payment_method: Some(crate::generator::cards::walk_card(&c)),
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
        if spec.twist.side {
            self.with_side_streams(|g| g.special_invoice_here(spec))
        } else {
            self.special_invoice_here(spec)
        }
    }

    fn special_invoice_here(&mut self, spec: &DunSpec) -> Result<(), GenError> {
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
                _ if spec.twist.cancel_sub => {
                    self.subs[s].canceled_at = Some(spec.created + 2 * DAY);
                    "canceled"
                }
                InvKind::Paid(_) => "active",
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
                inv.status_transitions.voided_at =
                    Some(spec.twist.paid_at.unwrap_or(finalized_at + 2 * DAY));
            }
            InvKind::Draft => {
                inv.status = "draft";
                inv.next_payment_attempt = None;
            }
            InvKind::Paid(how) => {
                inv.status = "paid";
                inv.auto_advance = false;
                inv.next_payment_attempt = None;
                inv.amount_paid = spec.amount;
                inv.amount_remaining = 0;
                inv.status_transitions.paid_at = spec.twist.paid_at;
                if how == PaidHow::OutOfBand {
                    inv.amount_paid_off_stripe = Some(spec.amount);
                } else {
                    inv.attempt_count += 1;
                    inv.attempted = true;
                }
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
        self.special_invoice_payment(spec, inv_id, finalized_at)
    }
}
