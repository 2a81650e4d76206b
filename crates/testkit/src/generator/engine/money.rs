//! The money of one charge: the settlement currency and conversion, the fees, the balance
//! transactions, the card details and receipt link.

use super::*;

impl Gen {
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

    pub(super) fn convert(amount: i64, conv: Option<(i64, i64, f64)>) -> i64 {
        match conv {
            None => amount,
            Some((n, d, _)) => {
                let mag = (amount.abs() * n + d / 2) / d;
                if amount < 0 { -mag } else { mag }
            }
        }
    }

    pub(super) fn processing_fee(settle: Currency, amount: i64, converted: bool) -> i64 {
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

    pub(super) fn dispute_fee(settle: Currency) -> i64 {
        match settle.as_str() {
            "jpy" => 1500,
            "eur" => 2000,
            _ => 1500,
        }
    }

    pub(super) fn available_delay(&self, settle: Currency) -> i64 {
        self.p
            .payout_currencies
            .iter()
            .find(|pc| pc.currency == settle)
            .map(|pc| pc.available_delay_days)
            .unwrap_or(2)
    }

    pub(super) fn bt_status(&self, available_on: i64) -> &'static str {
        if available_on <= self.p.now {
            "available"
        } else {
            "pending"
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn make_bt(
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

    pub(super) fn card_details(
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

    pub(super) fn receipt_url(&mut self) -> String {
        let token = self.ids.next("", 30);
        format!(
            "https://pay.stripe.com/receipts/payment/CAcaFwoVYWNjdF8xRGVtb1RpZW91dDAwMDAx{token}"
        )
    }
}
