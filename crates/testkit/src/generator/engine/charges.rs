//! A succeeded charge and the story its spec decided: the PaymentIntent, the balance
//! transaction, its refunds and its dispute.

use super::*;

impl Gen {
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

        let refs = ChargeRefs {
            ch_id: &ch_id,
            pi_id: &pi_id,
            currency: spec.currency,
            amount: spec.amount,
            settled_amount: samt,
            settle,
            conv,
        };
        let refunded = self.charge_refunds(&refs, &refunds)?;
        self.charge_dispute(&refs, dispute.as_ref())?;

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

    /// Writes each refund of a charge with its balance transaction; returns the amount
    /// refunded (presentment currency).
    fn charge_refunds(
        &mut self,
        c: &ChargeRefs<'_>,
        refunds: &[RefundSpec],
    ) -> Result<i64, GenError> {
        let ChargeRefs {
            ch_id,
            pi_id,
            currency,
            settle,
            conv,
            ..
        } = *c;
        let rate = conv.map(|c| c.2);
        let mut refunded = 0;
        for r in refunds {
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
                charge: ch_id.to_string(),
                created: r.at,
                currency: cur_s(currency),
                destination_details: None,
                metadata: Metadata::new(),
                payment_intent: Some(pi_id.to_string()),
                reason: r.reason,
                receipt_number: None,
                status: "succeeded",
            };
            refunded += r.amount;
            let payable = r.at >= self.p.flow_start;
            self.obj(r.at, Obj::Bt(Box::new(rbt), payable))?;
            self.obj(r.at, Obj::Refund(Box::new(refund)))?;
        }

        Ok(refunded)
    }

    /// Writes a charge's dispute: an inquiry moves no funds; a chargeback withdraws the
    /// settled amount plus the fee, and a reversal (when it happened by now) returns it.
    fn charge_dispute(
        &mut self,
        c: &ChargeRefs<'_>,
        dispute: Option<&DisputeSpec>,
    ) -> Result<(), GenError> {
        let ChargeRefs {
            ch_id,
            pi_id,
            currency,
            amount,
            settled_amount: samt,
            settle,
            conv,
        } = *c;
        let rate = conv.map(|c| c.2);
        let now = self.p.now;
        if let Some(d) = dispute.filter(|d| d.status.starts_with("warning_")) {
            // An inquiry (early warning): no funds move, so no balance transaction.
            let dp_id = self.ids.next(d.prefix, 24);
            let inquiry = o::Dispute {
                id: dp_id,
                object: "dispute",
                amount,
                balance_transactions: Vec::new(),
                charge: ch_id.to_string(),
                created: d.at,
                currency: cur_s(currency),
                evidence_details: o::EvidenceDetails {
                    due_by: Some(day_start(d.at) + 21 * DAY - 1),
                    has_evidence: false,
                    past_due: false,
                    submission_count: 0,
                },
                is_charge_refundable: true,
                livemode: false,
                metadata: Metadata::new(),
                payment_intent: Some(pi_id.to_string()),
                reason: d.reason,
                status: d.status,
            };
            self.obj(d.at, Obj::Dispute(Box::new(inquiry)))?;
        } else if let Some(d) = dispute {
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
                amount,
                balance_transactions: inline,
                charge: ch_id.to_string(),
                created: d.at,
                currency: cur_s(currency),
                evidence_details: o::EvidenceDetails {
                    due_by: Some(day_start(d.at) + 21 * DAY - 1),
                    has_evidence: closed,
                    past_due: false,
                    submission_count: u32::from(closed),
                },
                is_charge_refundable: false,
                livemode: false,
                metadata: Metadata::new(),
                payment_intent: Some(pi_id.to_string()),
                reason: d.reason,
                status: d.status,
            };
            self.obj(d.at, Obj::Dispute(Box::new(dispute)))?;
        }

        Ok(())
    }
}

/// What a charge's refunds and dispute need to know of it.
#[derive(Clone, Copy)]
struct ChargeRefs<'a> {
    ch_id: &'a str,
    pi_id: &'a str,
    currency: Currency,
    /// In the presentment currency.
    amount: i64,
    /// In the settlement currency.
    settled_amount: i64,
    settle: Currency,
    conv: Option<(i64, i64, f64)>,
}
