//! The `[fraud_warnings]` section of the refund policy (RULES.md, "Fraud warnings"): the
//! most a warning's charge may be for, per currency, to be refunded at once; Stripe's
//! dispute fee per currency, what waiting would add; and the two rule ids the queue's
//! rows name. Amounts are integer minor units; a currency left out has no limit (every
//! warning in it goes to a person) and no known dispute fee.

use std::collections::BTreeMap;
use std::ops::Range;

use serde::Deserialize;
use toml::Spanned;

use crate::money::Currency;

/// The validated `[fraud_warnings]` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FraudPolicy {
    /// Refund at once when actionable and the amount is at most this, per currency.
    pub refund_up_to: BTreeMap<Currency, i64>,
    /// Stripe's dispute fee per currency.
    pub dispute_fee: BTreeMap<Currency, i64>,
    /// The rule id of a "refund now" row.
    pub refund_rule: String,
    /// The rule id of a "review" row.
    pub review_rule: String,
}

/// The section as written: every key optional (a user's file overlays the default).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFraud {
    refund_up_to: Option<BTreeMap<String, Spanned<i64>>>,
    dispute_fee: Option<BTreeMap<String, Spanned<i64>>>,
    refund_rule: Option<Spanned<String>>,
    review_rule: Option<Spanned<String>>,
}

type Span = Option<Range<usize>>;

/// The section being assembled, with where each value came from (None: the default's).
#[derive(Debug, Default)]
pub(super) struct FraudDraft {
    refund_up_to: BTreeMap<String, (i64, Span)>,
    dispute_fee: BTreeMap<String, (i64, Span)>,
    refund_rule: (String, Span),
    review_rule: (String, Span),
}

/// The most an amount in the section may be (ten billion major units of a 2-decimal
/// currency): more is a typo.
const MAX_AMOUNT: i64 = 1_000_000_000_000;

impl FraudDraft {
    /// Lays `raw` over the draft, currency by currency.
    pub(super) fn overlay(&mut self, raw: RawFraud) {
        for (map, from) in [
            (&mut self.refund_up_to, raw.refund_up_to),
            (&mut self.dispute_fee, raw.dispute_fee),
        ] {
            for (code, v) in from.unwrap_or_default() {
                map.insert(code, (*v.get_ref(), Some(v.span())));
            }
        }
        if let Some(r) = raw.refund_rule {
            let span = r.span();
            self.refund_rule = (r.into_inner(), Some(span));
        }
        if let Some(r) = raw.review_rule {
            let span = r.span();
            self.review_rule = (r.into_inner(), Some(span));
        }
    }

    /// Forgets where the values came from (they are the default's, not the user's file).
    pub(super) fn forget_spans(&mut self) {
        for v in self
            .refund_up_to
            .values_mut()
            .chain(self.dispute_fee.values_mut())
        {
            v.1 = None;
        }
        self.refund_rule.1 = None;
        self.review_rule.1 = None;
    }

    /// The checked section, or the message and span of the first wrong value.
    pub(super) fn validate(self) -> Result<FraudPolicy, (String, Span)> {
        let mut maps = Vec::with_capacity(2);
        for (key, map) in [
            ("refund_up_to", self.refund_up_to),
            ("dispute_fee", self.dispute_fee),
        ] {
            let mut out = BTreeMap::new();
            for (code, (amount, span)) in map {
                let currency = Currency::parse(&code).map_err(|_| {
                    (
                        format!(
                            "fraud_warnings.{key}.{code}: '{code}' is not a currency code (three letters, e.g. usd)"
                        ),
                        span.clone(),
                    )
                })?;
                if !(0..=MAX_AMOUNT).contains(&amount) {
                    return Err((
                        format!(
                            "fraud_warnings.{key}.{code} is {amount}; it must be an amount in minor units from 0 to {MAX_AMOUNT}"
                        ),
                        span,
                    ));
                }
                out.insert(currency, amount);
            }
            maps.push(out);
        }
        for (key, (id, span)) in [
            ("refund_rule", &self.refund_rule),
            ("review_rule", &self.review_rule),
        ] {
            if !valid_id(id) {
                return Err((
                    format!(
                        "fraud_warnings.{key} is '{id}'; an id is 1 to 40 characters of a-z, 0-9, '-' or '_'"
                    ),
                    span.clone(),
                ));
            }
        }
        if self.refund_rule.0 == self.review_rule.0 {
            return Err((
                "fraud_warnings.review_rule is the same id as refund_rule; each needs its own"
                    .to_string(),
                self.review_rule.1,
            ));
        }
        let dispute_fee = maps.pop().unwrap_or_default();
        let refund_up_to = maps.pop().unwrap_or_default();
        Ok(FraudPolicy {
            refund_up_to,
            dispute_fee,
            refund_rule: self.refund_rule.0,
            review_rule: self.review_rule.0,
        })
    }
}

/// A rule id: 1 to 40 characters of a-z, 0-9, `-` or `_`.
pub(super) fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 40
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}
