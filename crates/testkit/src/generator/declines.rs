//! The declines the generator puts on failed payments: error code, issuer decline code,
//! advice code, Stripe's customer-facing message and the charge `outcome` they come with
//! (RULES.md, "Stripe facts").

/// How a failed attempt looks on the PaymentIntent's `last_payment_error` and on the
/// failed charge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decline {
    /// `last_payment_error.code` and `charge.failure_code`.
    pub code: &'static str,
    /// `last_payment_error.decline_code`; `None` when the issuer gave none.
    pub decline_code: Option<&'static str>,
    pub advice_code: Option<&'static str>,
    /// `charge.outcome.type`: `issuer_declined` or `blocked`.
    pub outcome_type: &'static str,
    /// `charge.outcome.reason`.
    pub outcome_reason: Option<&'static str>,
    pub network_status: &'static str,
    pub network_decline_code: Option<&'static str>,
}

impl Decline {
    /// An issuer decline: `card_declined` with a decline code.
    pub const fn issuer(decline: &'static str, advice: Option<&'static str>) -> Self {
        Self {
            code: "card_declined",
            decline_code: Some(decline),
            advice_code: advice,
            outcome_type: "issuer_declined",
            outcome_reason: Some(decline),
            network_status: "declined_by_network",
            network_decline_code: None,
        }
    }

    /// An error whose code is the decline itself (`expired_card`, `incorrect_number`, ...).
    pub const fn coded(code: &'static str, advice: Option<&'static str>) -> Self {
        Self {
            code,
            decline_code: Some(code),
            advice_code: advice,
            outcome_type: "issuer_declined",
            outcome_reason: Some(code),
            network_status: "declined_by_network",
            network_decline_code: None,
        }
    }

    /// A failure with no decline code at all: only `code`.
    pub const fn bare(code: &'static str) -> Self {
        Self {
            code,
            decline_code: None,
            advice_code: None,
            outcome_type: "issuer_declined",
            outcome_reason: None,
            network_status: "declined_by_network",
            network_decline_code: None,
        }
    }

    /// Blocked by Stripe before reaching the network (`merchant_blacklist`,
    /// `previously_declined_do_not_retry` behind `generic_decline`).
    pub const fn blocked(decline: &'static str, reason: &'static str) -> Self {
        Self {
            code: "card_declined",
            decline_code: Some(decline),
            advice_code: Some("do_not_try_again"),
            outcome_type: "blocked",
            outcome_reason: Some(reason),
            network_status: "not_sent_to_network",
            network_decline_code: None,
        }
    }

    /// The two-digit network code card schemes typically send with this decline.
    pub fn network_code(&self) -> Option<&'static str> {
        if self.network_decline_code.is_some() || self.outcome_type == "blocked" {
            return self.network_decline_code;
        }
        Some(match self.decline_code? {
            "insufficient_funds" => "51",
            "expired_card" => "54",
            "do_not_honor" | "generic_decline" => "05",
            "lost_card" => "41",
            "stolen_card" => "43",
            "pickup_card" => "04",
            "incorrect_number" | "invalid_account" => "14",
            "transaction_not_allowed" => "57",
            "card_velocity_exceeded" => "61",
            "fraudulent" => "59",
            "revocation_of_authorization" => "R0",
            "authentication_required" => "1A",
            _ => return None,
        })
    }

    /// Stripe's customer-facing message (generic for the reasons not to disclose).
    pub fn message(&self) -> &'static str {
        match (self.code, self.decline_code) {
            (_, Some("insufficient_funds")) => "Your card has insufficient funds.",
            ("expired_card", _) => "Your card has expired.",
            ("incorrect_number", _) => "Your card number is incorrect.",
            ("processing_error", _) => {
                "An error occurred while processing your card. Try again in a little bit."
            }
            (_, Some("authentication_required")) => {
                "Your card was declined. This transaction requires authentication."
            }
            (_, Some("card_velocity_exceeded")) => {
                "Your card was declined for making repeated attempts too frequently or exceeding its amount limit."
            }
            _ => "Your card was declined.",
        }
    }

    /// `charge.outcome.seller_message`.
    pub fn seller_message(&self) -> &'static str {
        match (self.outcome_type, self.outcome_reason) {
            ("blocked", _) => "Stripe blocked this payment.",
            (_, None) => "The bank did not return any further details with this decline.",
            (_, Some("generic_decline")) | (_, Some("do_not_honor")) => {
                "The bank did not return any further details with this decline."
            }
            (_, Some("lost_card"))
            | (_, Some("stolen_card"))
            | (_, Some("fraudulent"))
            | (_, Some("pickup_card")) => {
                "The bank returned the decline code and asked to keep the card."
            }
            _ => "The bank declined the payment.",
        }
    }

    pub fn doc_url(&self) -> String {
        format!(
            "https://stripe.com/docs/error-codes/{}",
            self.code.replace('_', "-")
        )
    }
}
