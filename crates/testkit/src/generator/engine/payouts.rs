//! Payouts: the automatic ones that sweep each currency's available balance (so a payout
//! ties out by construction), the manual ones, and what is left unpaid.

use super::*;

impl Gen {
    /// Schedules the automatic payouts created today and any manual ones.
    pub(super) fn plan_payouts(&mut self, day: i64) -> Result<(), GenError> {
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

    #[allow(clippy::too_many_arguments)]
    pub(super) fn payout_object(
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

    pub(super) fn auto_payout(
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
            self.write_bt(&bt)?;
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
        self.write_bt(&own)?;
        self.write(Obj::Payout(Box::new(payout)))
    }

    pub(super) fn manual_payout(
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
        self.write_bt(&own)?;
        self.write(Obj::Payout(Box::new(payout)))
    }

    /// Stripe's balance per currency: (available, pending), the net of every line written
    /// by whether it is available at now, in every currency payouts are made in or a line
    /// was written in.
    pub fn balance(&self) -> Vec<(Currency, i64, i64)> {
        let mut out: Vec<(Currency, i64, i64)> = self
            .p
            .payout_currencies
            .iter()
            .map(|pc| {
                let (a, p) = self.ledger.get(&pc.currency).copied().unwrap_or_default();
                (pc.currency, a, p)
            })
            .collect();
        for (c, (a, p)) in &self.ledger {
            if !out.iter().any(|(k, _, _)| k == c) {
                out.push((*c, *a, *p));
            }
        }
        out
    }
}
