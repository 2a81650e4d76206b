//! The payments of the special invoices (the worklist and its neighbours, and the
//! recovery picture's cases): the PaymentIntent made at finalization with its failed
//! charges, the default invoice payment, and what paid a recovered invoice.

use super::*;

impl Gen {
    /// The PaymentIntent a special invoice gets at finalization, its failed charges and
    /// the default invoice payment.
    pub(super) fn special_invoice_payment(
        &mut self,
        spec: &DunSpec,
        inv_id: String,
        finalized_at: i64,
    ) -> Result<(), GenError> {
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
        if spec.twist.wrong_card
            && let Some(s) = spec.sub
        {
            // The customer puts a new card on the customer; the subscription keeps its own.
            self.subs[s].own_pm = Some(c.pm.clone());
            // The new card is made after the last failure: the newer card.
            self.customers[spec.customer].pm = self.ids.next("pm_", 24);
            self.customers[spec.customer].pm_created =
                last.as_ref().map_or(finalized_at, |(ch, _)| ch.created) + 3_600;
        }
        let status = match spec.kind {
            InvKind::Void | InvKind::Paid(_) => "canceled",
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
                payment_method: Some(crate::generator::cards::walk_card(&c)),
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
            InvKind::Void | InvKind::Paid(_) => "canceled",
            _ => "open",
        };
        let canceled_at = Some(spec.twist.paid_at.unwrap_or(finalized_at + 2 * DAY));
        let paid_inv = inv_id.clone();
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
                payment_record: None,
                kind: "payment_intent",
            },
            status: pay_status,
            status_transitions: o::InvoicePaymentTransitions {
                canceled_at: canceled_at.filter(|_| pay_status == "canceled"),
                paid_at: None,
            },
        };
        self.obj(finalized_at, Obj::Pi(Box::new(pi)))?;
        self.obj(finalized_at, Obj::InvoicePayment(Box::new(pay)))?;
        if let (InvKind::Paid(how), Some(paid_at)) = (spec.kind, spec.twist.paid_at) {
            self.recovered_payment(spec, how, paid_inv, paid_at)?;
        }
        Ok(())
    }

    /// The payment that paid a recovered invoice: a charge on the failing card or another
    /// one (its own PaymentIntent, attached as a second invoice payment), or a payment
    /// recorded outside Stripe.
    fn recovered_payment(
        &mut self,
        spec: &DunSpec,
        how: PaidHow,
        inv_id: String,
        paid_at: i64,
    ) -> Result<(), GenError> {
        let (payment_intent, payment_record, kind) = match how {
            PaidHow::SameCard | PaidHow::NewCard => {
                let card = self.customers[spec.customer].pm.clone();
                if how == PaidHow::NewCard {
                    // Paid on the hosted invoice page with another card; the customer's
                    // default stays as it was.
                    self.customers[spec.customer].pm = self.ids.next("pm_", 24);
                }
                let (_, pi_id) = self.charge(ChargeSpec {
                    at: paid_at,
                    customer: Some(spec.customer),
                    currency: spec.currency,
                    amount: spec.amount,
                    description: Some(format!("Invoice {inv_id}")),
                    metadata: Metadata::new(),
                    refunds: Vec::new(),
                    dispute: None,
                    guest_email: None,
                })?;
                self.customers[spec.customer].pm = card;
                (pi_id, None, "payment_intent")
            }
            PaidHow::OutOfBand => (
                String::new(),
                Some(self.ids.next("pr_", 24)),
                "payment_record",
            ),
        };
        let pay = o::InvoicePayment {
            id: self.ids.next("inpay_", 24),
            object: "invoice_payment",
            amount_paid: Some(spec.amount),
            amount_requested: spec.amount,
            created: paid_at,
            currency: cur_s(spec.currency),
            invoice: inv_id,
            is_default: false,
            livemode: false,
            payment: o::InvoicePaymentTarget {
                payment_intent,
                payment_record,
                kind,
            },
            status: "paid",
            status_transitions: o::InvoicePaymentTransitions {
                canceled_at: None,
                paid_at: Some(paid_at),
            },
        };
        self.obj(paid_at, Obj::InvoicePayment(Box::new(pay)))
    }
}
