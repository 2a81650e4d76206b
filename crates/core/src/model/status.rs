//! The status vocabulary of the Stripe objects the rules read, as open enums: a value this
//! version of tieout does not know is kept verbatim (`Unknown`), never rejected, so a new
//! Stripe status never stops a run.

use serde::{Deserialize, Deserializer, Serialize};

/// Declares a string enum whose unknown values are kept, not rejected.
macro_rules! open_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $($variant,)+
            /// A value this version of tieout does not know; kept verbatim.
            Unknown(String),
        }

        impl $name {
            pub fn as_str(&self) -> &str {
                match self {
                    $(Self::$variant => $text,)+
                    Self::Unknown(s) => s.as_str(),
                }
            }

            pub fn parse(text: &str) -> Self {
                match text {
                    $($text => Self::$variant,)+
                    other => Self::Unknown(other.to_string()),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = String::deserialize(d)?;
                Ok(Self::parse(&text))
            }
        }
    };
}

open_enum!(
    /// `payout.status`.
    PayoutStatus { Paid = "paid", Pending = "pending", InTransit = "in_transit", Canceled = "canceled", Failed = "failed" }
);
open_enum!(
    /// `payout.reconciliation_status`.
    ReconciliationStatus { Completed = "completed", InProgress = "in_progress", NotApplicable = "not_applicable" }
);
open_enum!(
    /// `payout.trace_id.status`: whether the partner bank gives a trace id (Stripe fills it
    /// up to ten days after the payout is paid, with no event).
    TraceIdStatus { Pending = "pending", Supported = "supported", Unsupported = "unsupported" }
);
open_enum!(
    /// `invoice.status` (there is no `past_due` invoice status).
    InvoiceStatus { Draft = "draft", Open = "open", Paid = "paid", Uncollectible = "uncollectible", Void = "void" }
);
open_enum!(
    /// `charge.status`.
    ChargeStatus { Succeeded = "succeeded", Pending = "pending", Failed = "failed" }
);
open_enum!(
    /// `refund.status`.
    RefundStatus { Pending = "pending", RequiresAction = "requires_action", Succeeded = "succeeded", Failed = "failed", Canceled = "canceled" }
);
open_enum!(
    /// `dispute.status`.
    DisputeStatus {
        WarningNeedsResponse = "warning_needs_response",
        WarningUnderReview = "warning_under_review",
        WarningClosed = "warning_closed",
        NeedsResponse = "needs_response",
        UnderReview = "under_review",
        Won = "won",
        Lost = "lost",
        Prevented = "prevented",
    }
);
open_enum!(
    /// `radar.early_fraud_warning.fraud_type`: what the card network says happened.
    FraudType {
        CardNeverReceived = "card_never_received",
        FraudulentCardApplication = "fraudulent_card_application",
        MadeWithCounterfeitCard = "made_with_counterfeit_card",
        MadeWithLostCard = "made_with_lost_card",
        MadeWithStolenCard = "made_with_stolen_card",
        Misc = "misc",
        UnauthorizedUseOfCard = "unauthorized_use_of_card",
    }
);
open_enum!(
    /// `subscription.status`.
    SubscriptionStatus {
        Incomplete = "incomplete",
        IncompleteExpired = "incomplete_expired",
        Trialing = "trialing",
        Active = "active",
        PastDue = "past_due",
        Canceled = "canceled",
        Unpaid = "unpaid",
        Paused = "paused",
    }
);
open_enum!(
    /// `invoice_payment.status`.
    InvoicePaymentStatus { Open = "open", Paid = "paid", Canceled = "canceled" }
);
