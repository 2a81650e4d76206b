//! The decline-code data table: what each Stripe decline code, advice code and `outcome.reason`
//! means for the next action billing staff take on a failed invoice payment.
//!
//! Source: Stripe's published decline codes (docs.stripe.com/declines/codes) and the
//! Smart Retries list of non-retryable codes (billing/revenue-recovery/smart-retries), as
//! collected in RULES.md ("Stripe facts"). Every row of that table is here.
//!
//! How a failure is classified ([`classify`]), most specific signal first:
//! 1. `outcome.reason` of a Stripe block that hides behind `generic_decline`
//!    (`previously_declined_do_not_retry`, `highest_risk_level`) ⇒ do not retry.
//! 2. `advice_code = do_not_try_again` ⇒ do not retry.
//! 3. A decline code whose own action is "do not retry" stays so (advice never weakens it).
//! 4. `advice_code = confirm_card_data` ⇒ update payment method; `try_again_later` ⇒ retry
//!    later, unless the decline code asks for authentication or a duplicate check (those
//!    are more specific than "try again").
//! 5. A Radar `outcome.reason` (`rule`, `elevated_risk_level`) behind a vague decline code
//!    ⇒ review (the account's own Radar rules blocked it).
//! 6. The decline code; without one, a decline-vocabulary `outcome.reason`; without that,
//!    the charge's failure (error) code.
//! 7. Nothing known ⇒ review, with the raw code shown. Nothing at all ⇒ review.
//!
//! Pure data and functions: no IO.

use serde::Serialize;

/// What billing staff should do next about a failed payment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// The card's data is wrong or the card is expired/unusable: get a new payment method.
    UpdatePaymentMethod,
    /// A temporary condition (funds, limits, issuer down): an automatic or later retry may work.
    RetryLater,
    /// Retrying the same card will not work and may breach card-network rules.
    DoNotRetry,
    /// The issuer wants the customer to authenticate (3D Secure) on-session.
    CustomerMustAuthenticate,
    /// The issuer declined without a usable reason: the customer should call their bank.
    ContactCustomer,
    /// The issuer saw an identical payment moments earlier: check it was not paid already.
    CheckDuplicate,
    /// tieout cannot tell (a code it does not know, a Radar rule, no decline at all).
    Review,
    /// The subscription charges its own default payment method, the card that failed,
    /// while the customer's invoice default is another card (RULES.md, "Recovery"): set
    /// the subscription's default to it. Decided from the data, not from a decline code.
    SubscriptionOldCard,
}

impl Action {
    pub const ALL: [Action; 8] = [
        Action::UpdatePaymentMethod,
        Action::RetryLater,
        Action::DoNotRetry,
        Action::CustomerMustAuthenticate,
        Action::ContactCustomer,
        Action::CheckDuplicate,
        Action::Review,
        Action::SubscriptionOldCard,
    ];

    /// The machine form used in CSV and JSON: `update_payment_method`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            Action::UpdatePaymentMethod => "update_payment_method",
            Action::RetryLater => "retry_later",
            Action::DoNotRetry => "do_not_retry",
            Action::CustomerMustAuthenticate => "customer_must_authenticate",
            Action::ContactCustomer => "contact_customer",
            Action::CheckDuplicate => "check_duplicate",
            Action::Review => "review",
            Action::SubscriptionOldCard => "subscription_old_card",
        }
    }

    /// The words shown to people (Markdown, the pane).
    pub fn label(self) -> &'static str {
        match self {
            Action::UpdatePaymentMethod => "update payment method",
            Action::RetryLater => "retry later",
            Action::DoNotRetry => "do not retry",
            Action::CustomerMustAuthenticate => "customer must authenticate",
            Action::ContactCustomer => "contact customer",
            Action::CheckDuplicate => "check for a duplicate",
            Action::Review => "review",
            Action::SubscriptionOldCard => "subscription still charges the old card",
        }
    }

    /// At most 12 characters, for narrow table columns.
    pub fn short(self) -> &'static str {
        match self {
            Action::UpdatePaymentMethod => "update card",
            Action::RetryLater => "retry later",
            Action::DoNotRetry => "do not retry",
            Action::CustomerMustAuthenticate => "authenticate",
            Action::ContactCustomer => "contact",
            Action::CheckDuplicate => "check dup.",
            Action::Review => "review",
            Action::SubscriptionOldCard => "old card",
        }
    }

    pub fn parse(text: &str) -> Option<Action> {
        Action::ALL.into_iter().find(|a| a.as_str() == text)
    }
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One row of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeclineInfo {
    pub code: &'static str,
    pub action: Action,
    /// Whether Stripe's Smart Retries still executes retries after this code. `false` for
    /// Stripe's non-retryable list: retries stay scheduled (`next_payment_attempt` is set)
    /// but only run once a new payment method is attached.
    pub smart_retries: bool,
    /// Whether the reason may be told to the customer. `false` for fraudulent, lost_card,
    /// stolen_card and merchant_blacklist: staff see it, the customer hears "declined".
    pub disclose: bool,
    /// One line for staff.
    pub staff: &'static str,
    /// Suggested wording for the customer.
    pub customer: &'static str,
}

use Action::{
    CheckDuplicate as Dup, ContactCustomer as Contact, CustomerMustAuthenticate as Auth,
    DoNotRetry as NoRetry, RetryLater as Later, Review, UpdatePaymentMethod as Update,
};

const fn row(
    code: &'static str,
    action: Action,
    smart_retries: bool,
    disclose: bool,
    staff: &'static str,
    customer: &'static str,
) -> DeclineInfo {
    DeclineInfo {
        code,
        action,
        smart_retries,
        disclose,
        staff,
        customer,
    }
}

/// What the customer is told when the reason must not be disclosed.
pub const GENERIC_CUSTOMER_WORDING: &str =
    "Your card was declined. Please use a different card or payment method.";

const CALL_BANK: &str =
    "Your bank declined the payment. Please contact your bank, or use a different card.";
const RETRY_SOON: &str = "The payment could not go through this time. We will try again; you can also pay now with another card.";
const WRONG_DATA: &str =
    "Some of your card details were not accepted. Please update your card details.";
const NEW_CARD: &str = "Please update your payment method: the card on file can no longer be used.";
const AUTH: &str = "Your bank asks you to confirm this payment. Please open the invoice link and authenticate the payment.";

/// Every card decline code in Stripe's published list (§10), plus the local-payment-method
/// codes on the same page. Sorted by code.
pub static DECLINE_CODES: &[DeclineInfo] = &[
    row(
        "approve_with_id",
        Later,
        true,
        true,
        "The payment could not be authorised; retrying may work, else the customer calls the issuer.",
        RETRY_SOON,
    ),
    row(
        "authentication_not_handled",
        Auth,
        true,
        true,
        "Authentication was required but not completed; the customer must authenticate on-session.",
        AUTH,
    ),
    row(
        "authentication_required",
        Auth,
        false,
        true,
        "The issuer requires 3D Secure; off-session retries will not run until the customer authenticates.",
        AUTH,
    ),
    row(
        "call_issuer",
        Contact,
        true,
        true,
        "Declined for an unknown reason; the customer must contact the issuer.",
        CALL_BANK,
    ),
    row(
        "card_not_supported",
        Contact,
        true,
        true,
        "The card does not support this kind of purchase; the customer should check with the issuer or use another card.",
        CALL_BANK,
    ),
    row(
        "card_velocity_exceeded",
        Later,
        true,
        true,
        "The card's balance, credit or amount limit was exceeded; retry later or the customer contacts the issuer.",
        RETRY_SOON,
    ),
    row(
        "compliance_violation",
        NoRetry,
        true,
        true,
        "Local payment method: compliance violation; retries will not succeed.",
        NEW_CARD,
    ),
    row(
        "currency_not_supported",
        Contact,
        true,
        true,
        "The card does not support this currency; the customer should check with the issuer or use another card.",
        CALL_BANK,
    ),
    row(
        "do_not_honor",
        Contact,
        true,
        true,
        "Declined for an unknown reason; the customer must contact the issuer.",
        CALL_BANK,
    ),
    row(
        "do_not_try_again",
        NoRetry,
        true,
        true,
        "The issuer says not to try again (deprecated code); the customer must contact the issuer.",
        CALL_BANK,
    ),
    row(
        "duplicate_transaction",
        Dup,
        true,
        true,
        "An identical payment was submitted very recently; check whether the invoice is already paid.",
        "It looks like this payment was just made. We are checking; no action needed yet.",
    ),
    row(
        "expired_card",
        Update,
        true,
        true,
        "The card has expired; the customer must use another card.",
        "The card on file has expired. Please update your payment method.",
    ),
    row(
        "expired_payment_information",
        Update,
        true,
        true,
        "Local payment method: payment information expired; the customer must update it.",
        NEW_CARD,
    ),
    row(
        "fraudulent",
        NoRetry,
        true,
        false,
        "Stripe suspects fraud. Do not retry and do not tell the customer the reason (present as a generic decline).",
        GENERIC_CUSTOMER_WORDING,
    ),
    row(
        "generic_decline",
        Contact,
        true,
        true,
        "Declined for an unknown reason (or blocked by Radar); the customer must contact the issuer.",
        CALL_BANK,
    ),
    row(
        "incorrect_address",
        Update,
        true,
        true,
        "The billing address is incorrect; the customer must correct it.",
        WRONG_DATA,
    ),
    row(
        "incorrect_cvc",
        Update,
        true,
        true,
        "The CVC is incorrect; the customer must re-enter the card details.",
        WRONG_DATA,
    ),
    row(
        "incorrect_number",
        Update,
        false,
        true,
        "The card number is incorrect; retries will not run until a new payment method is attached.",
        WRONG_DATA,
    ),
    row(
        "incorrect_pin",
        Update,
        true,
        true,
        "The PIN is incorrect (card readers only).",
        WRONG_DATA,
    ),
    row(
        "incorrect_zip",
        Update,
        true,
        true,
        "The postal code is incorrect; the customer must correct the billing postal code.",
        WRONG_DATA,
    ),
    row(
        "insufficient_funds",
        Later,
        true,
        true,
        "Insufficient funds; a later retry (e.g. after payday) may work, or the customer uses another method.",
        "The payment was declined for insufficient funds. We will retry; you can also pay now with another card.",
    ),
    row(
        "invalid_account",
        Contact,
        true,
        true,
        "The card or its linked account is invalid; the customer must check with the issuer.",
        CALL_BANK,
    ),
    row(
        "invalid_amount",
        Contact,
        true,
        true,
        "The amount is invalid or above the card's limit; check the amount, then the customer checks with the issuer.",
        CALL_BANK,
    ),
    row(
        "invalid_authorization",
        NoRetry,
        true,
        true,
        "Local payment method: authorisation invalid; retries will not succeed.",
        NEW_CARD,
    ),
    row(
        "invalid_billing_agreement",
        Update,
        true,
        true,
        "Local payment method: billing agreement invalid; retries will not succeed until it is replaced.",
        NEW_CARD,
    ),
    row(
        "invalid_business_account",
        Update,
        true,
        true,
        "Local payment method: business account invalid.",
        NEW_CARD,
    ),
    row(
        "invalid_customer_account",
        Update,
        true,
        true,
        "Local payment method: customer account invalid; retry after the customer fixes it.",
        NEW_CARD,
    ),
    row(
        "invalid_cvc",
        Update,
        true,
        true,
        "The CVC is incorrect; the customer must re-enter the card details.",
        WRONG_DATA,
    ),
    row(
        "invalid_expiry_month",
        Update,
        true,
        true,
        "The expiry month is invalid; the customer must re-enter the card details.",
        WRONG_DATA,
    ),
    row(
        "invalid_expiry_year",
        Update,
        true,
        true,
        "The expiry year is invalid; the customer must re-enter the card details.",
        WRONG_DATA,
    ),
    row(
        "invalid_number",
        Update,
        true,
        true,
        "The card number is incorrect; the customer must re-enter the card details.",
        WRONG_DATA,
    ),
    row(
        "invalid_payment_information",
        Update,
        true,
        true,
        "Local payment method: payment information invalid; retries will not succeed.",
        NEW_CARD,
    ),
    row(
        "invalid_pin",
        Update,
        true,
        true,
        "The PIN is incorrect.",
        WRONG_DATA,
    ),
    row(
        "issuer_not_available",
        Later,
        true,
        true,
        "The issuer could not be reached; retry later.",
        RETRY_SOON,
    ),
    row(
        "lost_card",
        NoRetry,
        false,
        false,
        "The card was reported lost. Do not retry; do not tell the customer the reason (present as a generic decline).",
        GENERIC_CUSTOMER_WORDING,
    ),
    row(
        "merchant_blacklist",
        NoRetry,
        true,
        false,
        "The payment matches your Stripe block list. Do not retry; present as a generic decline.",
        GENERIC_CUSTOMER_WORDING,
    ),
    row(
        "mobile_device_authentication_required",
        Auth,
        true,
        true,
        "The mobile wallet needs the customer to authenticate again.",
        AUTH,
    ),
    row(
        "new_account_information_available",
        Update,
        true,
        true,
        "The issuer has new card details; the customer must update the payment method.",
        NEW_CARD,
    ),
    row(
        "no_action_taken",
        Contact,
        true,
        true,
        "Declined for an unknown reason; the customer must contact the issuer.",
        CALL_BANK,
    ),
    row(
        "not_permitted",
        Contact,
        true,
        true,
        "The payment is not permitted; the customer must contact the issuer.",
        CALL_BANK,
    ),
    row(
        "offline_pin_required",
        Update,
        true,
        true,
        "The card needs a PIN, which an online invoice cannot collect; ask for another payment method.",
        NEW_CARD,
    ),
    row(
        "online_or_offline_pin_required",
        Update,
        true,
        true,
        "The card needs a PIN, which an online invoice cannot collect; ask for another payment method.",
        NEW_CARD,
    ),
    row(
        "partner_generic_decline",
        Contact,
        true,
        true,
        "Local payment method: declined by the partner for an unknown reason.",
        CALL_BANK,
    ),
    row(
        "partner_high_risk_customer",
        NoRetry,
        true,
        true,
        "Local payment method: the partner rates the customer high risk.",
        NEW_CARD,
    ),
    row(
        "partner_payment_not_found",
        Review,
        true,
        true,
        "Local payment method: the partner cannot find the payment.",
        CALL_BANK,
    ),
    row(
        "payment_disputed",
        NoRetry,
        true,
        true,
        "Local payment method: the customer disputed the payment.",
        CALL_BANK,
    ),
    row(
        "payment_limit_exceeded",
        Later,
        true,
        true,
        "Local payment method: payment limit exceeded; retry later.",
        RETRY_SOON,
    ),
    row(
        "pickup_card",
        NoRetry,
        false,
        true,
        "The issuer says to pick up the card (possibly lost or stolen); do not retry it.",
        NEW_CARD,
    ),
    row(
        "pin_try_exceeded",
        Update,
        true,
        true,
        "Too many PIN attempts; the customer must use another card or method.",
        NEW_CARD,
    ),
    row(
        "processing_error",
        Later,
        true,
        true,
        "An error occurred processing the card; retry later.",
        RETRY_SOON,
    ),
    row(
        "reenter_transaction",
        Later,
        true,
        true,
        "The issuer could not process the payment; retry, else the customer contacts the issuer.",
        RETRY_SOON,
    ),
    row(
        "restricted_card",
        NoRetry,
        true,
        true,
        "The card cannot be used (possibly lost or stolen); do not retry it, ask for another card.",
        NEW_CARD,
    ),
    row(
        "revocation_of_all_authorizations",
        NoRetry,
        false,
        true,
        "The cardholder revoked all recurring payments; do not retry, talk to the customer.",
        CALL_BANK,
    ),
    row(
        "revocation_of_authorization",
        NoRetry,
        false,
        true,
        "The cardholder revoked recurring payments to you; do not retry, talk to the customer.",
        CALL_BANK,
    ),
    row(
        "security_violation",
        Contact,
        true,
        true,
        "Declined for an unknown reason; the customer must contact the issuer.",
        CALL_BANK,
    ),
    row(
        "service_not_allowed",
        Contact,
        true,
        true,
        "Declined for an unknown reason; the customer must contact the issuer.",
        CALL_BANK,
    ),
    row(
        "stolen_card",
        NoRetry,
        false,
        false,
        "The card was reported stolen. Do not retry; do not tell the customer the reason (present as a generic decline).",
        GENERIC_CUSTOMER_WORDING,
    ),
    row(
        "stop_payment_order",
        NoRetry,
        true,
        true,
        "The customer ordered their bank to stop this payment; do not retry, talk to the customer.",
        CALL_BANK,
    ),
    row(
        "testmode_decline",
        Update,
        true,
        true,
        "A Stripe test card was used; a genuine card is needed.",
        NEW_CARD,
    ),
    row(
        "transaction_not_allowed",
        Contact,
        false,
        true,
        "Declined for an unknown reason; the customer must contact the issuer. Smart Retries treats it as non-retryable.",
        CALL_BANK,
    ),
    row(
        "try_again_later",
        Later,
        true,
        true,
        "Temporary decline (deprecated code); retry later, and the customer contacts the issuer if it repeats.",
        RETRY_SOON,
    ),
    row(
        "withdrawal_count_limit_exceeded",
        Later,
        true,
        true,
        "The card's balance or credit limit was exceeded; retry later or use another method.",
        RETRY_SOON,
    ),
];

/// `outcome.reason` values that are not issuer decline codes (Stripe blocks and Radar).
pub static OUTCOME_REASONS: &[DeclineInfo] = &[
    row(
        "elevated_risk_level",
        Review,
        true,
        true,
        "Radar rated the payment elevated risk and your rules blocked it; review in Radar.",
        CALL_BANK,
    ),
    row(
        "highest_risk_level",
        NoRetry,
        false,
        false,
        "Radar blocked the payment as highest risk; Smart Retries will not retry it.",
        GENERIC_CUSTOMER_WORDING,
    ),
    row(
        "low_probability_of_authorization",
        Later,
        true,
        true,
        "Adaptive Acceptance expected a decline and did not send it; a later retry may work.",
        RETRY_SOON,
    ),
    row(
        "partner_duplicate_transaction",
        Dup,
        true,
        true,
        "Local payment method: duplicate payment; check whether the invoice is already paid.",
        "It looks like this payment was just made. We are checking; no action needed yet.",
    ),
    row(
        "partner_expired_card",
        Update,
        true,
        true,
        "Local payment method: the card has expired.",
        NEW_CARD,
    ),
    row(
        "partner_insufficient_funds",
        Later,
        true,
        true,
        "Local payment method: insufficient funds; retry later.",
        RETRY_SOON,
    ),
    row(
        "partner_invalid_amount",
        NoRetry,
        true,
        true,
        "Local payment method: invalid amount; retries will not succeed.",
        CALL_BANK,
    ),
    row(
        "partner_invalid_currency",
        NoRetry,
        true,
        true,
        "Local payment method: currency not supported; retries will not succeed.",
        NEW_CARD,
    ),
    row(
        "partner_processing_error",
        Later,
        true,
        true,
        "Local payment method: processing error; retry later.",
        RETRY_SOON,
    ),
    row(
        "previously_declined_do_not_retry",
        NoRetry,
        false,
        true,
        "Stripe blocked the payment after too many retries of a declined card (Visa's 15-in-30-days rule); do not retry this card.",
        NEW_CARD,
    ),
    row(
        "rule",
        Review,
        true,
        true,
        "A Radar rule on your account blocked the payment; review the rule in Radar.",
        CALL_BANK,
    ),
];

/// `advice_code` values (on `last_payment_error` and `outcome`).
pub static ADVICE_CODES: &[DeclineInfo] = &[
    row(
        "confirm_card_data",
        Update,
        true,
        true,
        "The issuer advises the customer to confirm or update the card data before another attempt.",
        WRONG_DATA,
    ),
    row(
        "do_not_try_again",
        NoRetry,
        false,
        true,
        "The issuer advises never to retry this card (card-network rules).",
        NEW_CARD,
    ),
    row(
        "try_again_later",
        Later,
        true,
        true,
        "The issuer advises a retry later.",
        RETRY_SOON,
    ),
];

/// Error codes (`last_payment_error.code`, `charge.failure_code`) that say something by
/// themselves when no decline code came back. Codes that are also decline codes (e.g.
/// `expired_card`, `incorrect_cvc`) are found in [`DECLINE_CODES`].
pub static FAILURE_CODES: &[DeclineInfo] = &[
    row(
        "card_decline_rate_limit_exceeded",
        Later,
        true,
        true,
        "Too many declines on this card in a short time; wait before retrying.",
        RETRY_SOON,
    ),
    row(
        "card_declined",
        Contact,
        true,
        true,
        "The card was declined and the issuer gave no reason; the customer must contact the issuer.",
        CALL_BANK,
    ),
    row(
        "payment_intent_authentication_failure",
        Auth,
        true,
        true,
        "The customer did not complete authentication; they must authenticate on-session.",
        AUTH,
    ),
];

/// Codes Stripe's Smart Retries will not retry until a new payment method is attached
/// (decline codes and `outcome.reason` values), and the advice code that forbids retries.
/// The code may be a decline code, an `outcome.reason` or an advice code.
pub fn is_non_retryable(code: &str) -> bool {
    [DECLINE_CODES, OUTCOME_REASONS, ADVICE_CODES]
        .into_iter()
        .filter_map(|t| lookup(t, code))
        .any(|i| !i.smart_retries)
}

fn reason_info(code: &str) -> Option<&'static DeclineInfo> {
    lookup(OUTCOME_REASONS, code).or_else(|| lookup(DECLINE_CODES, code))
}

fn lookup(table: &'static [DeclineInfo], code: &str) -> Option<&'static DeclineInfo> {
    table.iter().find(|i| i.code == code)
}

/// A decline code's row, if tieout knows it.
pub fn decline_info(code: &str) -> Option<&'static DeclineInfo> {
    lookup(DECLINE_CODES, code)
}

/// What Stripe said about one failed payment attempt.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeclineSignals<'a> {
    /// `last_payment_error.decline_code`: the issuer's reason.
    pub decline_code: Option<&'a str>,
    /// `last_payment_error.code` or `charge.failure_code` (usually `card_declined`).
    pub failure_code: Option<&'a str>,
    /// `last_payment_error.advice_code` or `outcome.advice_code`.
    pub advice_code: Option<&'a str>,
    /// The failed charge's `outcome.reason`.
    pub outcome_reason: Option<&'a str>,
}

/// Which signal decided the action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    OutcomeReason,
    AdviceCode,
    DeclineCode,
    FailureCode,
    /// A code tieout does not know.
    UnknownCode,
    /// No code at all.
    Nothing,
}

/// The verdict on one failed attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classification {
    pub action: Action,
    /// Whether Stripe's automatic retries would still run on this card (`false` when any
    /// signal is on the non-retryable list or the advice is `do_not_try_again`).
    pub smart_retries: bool,
    /// Whether the reason may be told to the customer.
    pub disclose: bool,
    /// Which signal decided the action.
    pub basis: Basis,
    /// The code that decided it, verbatim (for an unknown code: the raw code).
    pub code: Option<String>,
    /// One line for staff.
    pub staff: String,
    /// Suggested wording for the customer (generic when the reason must not be disclosed).
    pub customer: String,
}

impl Classification {
    fn from_info(info: &DeclineInfo, basis: Basis) -> Self {
        Self {
            action: info.action,
            smart_retries: info.smart_retries,
            disclose: info.disclose,
            basis,
            code: Some(info.code.to_string()),
            staff: info.staff.to_string(),
            customer: if info.disclose {
                info.customer.to_string()
            } else {
                GENERIC_CUSTOMER_WORDING.to_string()
            },
        }
    }
}

/// Decline codes too vague to outrank a Radar `outcome.reason`.
const VAGUE: &[&str] = &[
    "generic_decline",
    "do_not_honor",
    "call_issuer",
    "no_action_taken",
];

/// Classifies one failed attempt (see the module comment for the order of the rules).
pub fn classify(s: &DeclineSignals<'_>) -> Classification {
    let decline = s.decline_code.filter(|c| !c.is_empty());
    let failure = s.failure_code.filter(|c| !c.is_empty());
    let advice = s.advice_code.filter(|c| !c.is_empty());
    let reason = s.outcome_reason.filter(|c| !c.is_empty());

    let decline_row = decline.and_then(decline_info);
    let reason_special = reason.and_then(|r| lookup(OUTCOME_REASONS, r));
    let advice_row = advice.and_then(|a| lookup(ADVICE_CODES, a));

    // Any non-retryable signal makes the whole attempt non-retryable and undisclosable
    // reasons stay undisclosed, whichever signal decides the action.
    let reason_row = reason.and_then(reason_info);
    let any_non_retryable = [decline_row, reason_row, advice_row]
        .into_iter()
        .flatten()
        .any(|i| !i.smart_retries);
    let any_undisclosable = [decline_row, reason_row]
        .into_iter()
        .flatten()
        .any(|i| !i.disclose);
    let finish = |mut c: Classification| {
        // Decided by advice or the outcome: keep what the decline code itself says too.
        if let Some(d) = decline_row.filter(|d| c.code.as_deref() != Some(d.code)) {
            c.staff = format!("{} Decline code {}: {}", c.staff, d.code, d.staff);
        }
        if any_non_retryable {
            c.smart_retries = false;
        }
        if any_undisclosable {
            c.disclose = false;
            c.customer = GENERIC_CUSTOMER_WORDING.to_string();
        }
        c
    };

    // 1. Stripe blocks hiding behind generic_decline.
    if let Some(info) = reason_special.filter(|i| i.action == Action::DoNotRetry) {
        return finish(Classification::from_info(info, Basis::OutcomeReason));
    }
    // 2. The issuer's advice never to retry.
    if let Some(info) = advice_row.filter(|i| i.action == Action::DoNotRetry) {
        return finish(Classification::from_info(info, Basis::AdviceCode));
    }
    // 3. A do-not-retry decline code is never weakened.
    if let Some(info) = decline_row.filter(|i| i.action == Action::DoNotRetry) {
        return finish(Classification::from_info(info, Basis::DeclineCode));
    }
    // 4. Other advice, unless the decline code is more specific.
    let specific_decline = decline_row.is_some_and(|i| {
        matches!(
            i.action,
            Action::CustomerMustAuthenticate | Action::CheckDuplicate
        )
    });
    if let Some(info) = advice_row.filter(|_| !specific_decline) {
        return finish(Classification::from_info(info, Basis::AdviceCode));
    }
    // 5. A Radar reason behind a vague (or missing) decline code.
    if let Some(info) = reason_special.filter(|_| decline.is_none_or(|d| VAGUE.contains(&d))) {
        return finish(Classification::from_info(info, Basis::OutcomeReason));
    }
    // 6. The decline code, else a decline-vocabulary outcome reason, else the failure code.
    if let Some(info) = decline_row {
        return finish(Classification::from_info(info, Basis::DeclineCode));
    }
    if decline.is_none() {
        if let Some(info) = reason.and_then(decline_info) {
            return finish(Classification::from_info(info, Basis::OutcomeReason));
        }
        if let Some(info) =
            failure.and_then(|f| lookup(FAILURE_CODES, f).or_else(|| decline_info(f)))
        {
            return finish(Classification::from_info(info, Basis::FailureCode));
        }
    }
    // 7. Unknown or nothing.
    let raw = decline.or(reason).or(failure).or(advice);
    finish(match raw {
        Some(code) => Classification {
            action: Action::Review,
            smart_retries: true,
            disclose: true,
            basis: Basis::UnknownCode,
            code: Some(code.to_string()),
            staff: format!("tieout does not know the code '{code}'; look it up before acting."),
            customer: CALL_BANK.to_string(),
        },
        None => Classification {
            action: Action::Review,
            smart_retries: true,
            disclose: true,
            basis: Basis::Nothing,
            code: None,
            staff: "Stripe returned no decline or failure code for this attempt.".to_string(),
            customer: CALL_BANK.to_string(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decline(code: &str) -> Classification {
        classify(&DeclineSignals {
            decline_code: Some(code),
            failure_code: Some("card_declined"),
            ..Default::default()
        })
    }

    /// Stripe's non-retryable list (Smart Retries), plus transaction_not_allowed (2026).
    const STRIPE_NON_RETRYABLE: &[&str] = &[
        "incorrect_number",
        "lost_card",
        "pickup_card",
        "stolen_card",
        "revocation_of_authorization",
        "revocation_of_all_authorizations",
        "authentication_required",
        "highest_risk_level",
        "transaction_not_allowed",
    ];

    /// Every row of the decline table (RULES.md, "Stripe facts") with the action tieout gives it.
    const EXPECTED: &[(&str, Action)] = &[
        ("authentication_required", Action::CustomerMustAuthenticate),
        (
            "authentication_not_handled",
            Action::CustomerMustAuthenticate,
        ),
        ("approve_with_id", Action::RetryLater),
        ("call_issuer", Action::ContactCustomer),
        ("card_not_supported", Action::ContactCustomer),
        ("card_velocity_exceeded", Action::RetryLater),
        ("currency_not_supported", Action::ContactCustomer),
        ("do_not_honor", Action::ContactCustomer),
        ("do_not_try_again", Action::DoNotRetry),
        ("duplicate_transaction", Action::CheckDuplicate),
        ("expired_card", Action::UpdatePaymentMethod),
        ("fraudulent", Action::DoNotRetry),
        ("generic_decline", Action::ContactCustomer),
        ("incorrect_address", Action::UpdatePaymentMethod),
        ("incorrect_cvc", Action::UpdatePaymentMethod),
        ("incorrect_number", Action::UpdatePaymentMethod),
        ("incorrect_pin", Action::UpdatePaymentMethod),
        ("incorrect_zip", Action::UpdatePaymentMethod),
        ("insufficient_funds", Action::RetryLater),
        ("invalid_account", Action::ContactCustomer),
        ("invalid_amount", Action::ContactCustomer),
        ("invalid_cvc", Action::UpdatePaymentMethod),
        ("invalid_expiry_month", Action::UpdatePaymentMethod),
        ("invalid_expiry_year", Action::UpdatePaymentMethod),
        ("invalid_number", Action::UpdatePaymentMethod),
        ("invalid_pin", Action::UpdatePaymentMethod),
        ("issuer_not_available", Action::RetryLater),
        ("lost_card", Action::DoNotRetry),
        ("merchant_blacklist", Action::DoNotRetry),
        (
            "new_account_information_available",
            Action::UpdatePaymentMethod,
        ),
        ("no_action_taken", Action::ContactCustomer),
        ("not_permitted", Action::ContactCustomer),
        ("offline_pin_required", Action::UpdatePaymentMethod),
        (
            "online_or_offline_pin_required",
            Action::UpdatePaymentMethod,
        ),
        ("pickup_card", Action::DoNotRetry),
        ("pin_try_exceeded", Action::UpdatePaymentMethod),
        ("processing_error", Action::RetryLater),
        ("reenter_transaction", Action::RetryLater),
        ("restricted_card", Action::DoNotRetry),
        ("revocation_of_all_authorizations", Action::DoNotRetry),
        ("revocation_of_authorization", Action::DoNotRetry),
        ("security_violation", Action::ContactCustomer),
        ("service_not_allowed", Action::ContactCustomer),
        ("stolen_card", Action::DoNotRetry),
        ("stop_payment_order", Action::DoNotRetry),
        ("testmode_decline", Action::UpdatePaymentMethod),
        ("transaction_not_allowed", Action::ContactCustomer),
        ("try_again_later", Action::RetryLater),
        ("withdrawal_count_limit_exceeded", Action::RetryLater),
        (
            "mobile_device_authentication_required",
            Action::CustomerMustAuthenticate,
        ),
        // Local payment methods.
        ("partner_generic_decline", Action::ContactCustomer),
        ("invalid_customer_account", Action::UpdatePaymentMethod),
        ("payment_limit_exceeded", Action::RetryLater),
        ("invalid_billing_agreement", Action::UpdatePaymentMethod),
        ("invalid_business_account", Action::UpdatePaymentMethod),
        ("partner_high_risk_customer", Action::DoNotRetry),
        ("compliance_violation", Action::DoNotRetry),
        ("payment_disputed", Action::DoNotRetry),
        ("invalid_authorization", Action::DoNotRetry),
        ("invalid_payment_information", Action::UpdatePaymentMethod),
        ("partner_payment_not_found", Action::Review),
        ("expired_payment_information", Action::UpdatePaymentMethod),
    ];

    #[test]
    fn every_table_row_maps_to_stripe_guidance() {
        for (code, action) in EXPECTED {
            let c = decline(code);
            assert_eq!(c.action, *action, "{code}");
            assert_eq!(c.basis, Basis::DeclineCode, "{code}");
            assert_eq!(c.code.as_deref(), Some(*code));
            assert!(!c.staff.is_empty() && !c.customer.is_empty(), "{code}");
        }
        // And the table holds nothing the expectations do not cover.
        assert_eq!(DECLINE_CODES.len(), EXPECTED.len());
    }

    #[test]
    fn the_table_is_sorted_and_unique() {
        for t in [DECLINE_CODES, OUTCOME_REASONS, ADVICE_CODES, FAILURE_CODES] {
            for w in t.windows(2) {
                assert!(w[0].code < w[1].code, "{} then {}", w[0].code, w[1].code);
            }
        }
    }

    #[test]
    fn non_retryable_codes_follow_smart_retries() {
        for code in STRIPE_NON_RETRYABLE {
            assert!(is_non_retryable(code), "{code}");
        }
        assert!(is_non_retryable("do_not_try_again"), "advice code");
        assert!(is_non_retryable("previously_declined_do_not_retry"));
        for info in DECLINE_CODES {
            assert_eq!(
                !info.smart_retries,
                STRIPE_NON_RETRYABLE.contains(&info.code),
                "{}",
                info.code
            );
        }
        for code in [
            "insufficient_funds",
            "generic_decline",
            "expired_card",
            "nope",
        ] {
            assert!(!is_non_retryable(code), "{code}");
        }
        for code in STRIPE_NON_RETRYABLE {
            let c = classify(&DeclineSignals {
                decline_code: Some("generic_decline"),
                outcome_reason: Some(code),
                ..Default::default()
            });
            assert!(!c.smart_retries, "{code} behind generic_decline");
        }
    }

    #[test]
    fn card_reason_privacy() {
        for code in [
            "fraudulent",
            "lost_card",
            "stolen_card",
            "merchant_blacklist",
        ] {
            let c = decline(code);
            assert!(!c.disclose, "{code}");
            assert_eq!(c.customer, GENERIC_CUSTOMER_WORDING, "{code}");
            assert!(c.staff.contains("generic decline"), "{code}");
            assert_eq!(c.code.as_deref(), Some(code), "staff still see the code");
        }
        // Hidden behind generic_decline in the decline code but named in the outcome.
        let c = classify(&DeclineSignals {
            decline_code: Some("generic_decline"),
            outcome_reason: Some("stolen_card"),
            ..Default::default()
        });
        assert!(!c.disclose);
        assert_eq!(c.customer, GENERIC_CUSTOMER_WORDING);
        // Even when advice decides the action, the reason stays undisclosed.
        let c = classify(&DeclineSignals {
            decline_code: Some("fraudulent"),
            advice_code: Some("do_not_try_again"),
            ..Default::default()
        });
        assert_eq!(c.action, Action::DoNotRetry);
        assert!(!c.disclose);
        assert!(decline("insufficient_funds").disclose);
    }

    #[test]
    fn advice_do_not_try_again_overrides_a_soft_decline() {
        let c = classify(&DeclineSignals {
            decline_code: Some("insufficient_funds"),
            advice_code: Some("do_not_try_again"),
            ..Default::default()
        });
        assert_eq!(c.action, Action::DoNotRetry);
        assert_eq!(c.basis, Basis::AdviceCode);
        assert!(!c.smart_retries);
        assert!(
            c.staff
                .contains("Decline code insufficient_funds: Insufficient funds"),
            "{}",
            c.staff
        );
    }

    #[test]
    fn advice_confirm_card_data_means_update_payment_method() {
        let c = classify(&DeclineSignals {
            decline_code: Some("generic_decline"),
            advice_code: Some("confirm_card_data"),
            ..Default::default()
        });
        assert_eq!(c.action, Action::UpdatePaymentMethod);
        assert_eq!(c.basis, Basis::AdviceCode);
    }

    #[test]
    fn advice_try_again_later_means_retry_later() {
        let c = classify(&DeclineSignals {
            decline_code: Some("do_not_honor"),
            advice_code: Some("try_again_later"),
            ..Default::default()
        });
        assert_eq!(c.action, Action::RetryLater);
        assert_eq!(c.basis, Basis::AdviceCode);
    }

    #[test]
    fn advice_never_weakens_a_do_not_retry_code() {
        let c = classify(&DeclineSignals {
            decline_code: Some("stolen_card"),
            advice_code: Some("try_again_later"),
            ..Default::default()
        });
        assert_eq!(c.action, Action::DoNotRetry);
        assert_eq!(c.basis, Basis::DeclineCode);
        assert!(!c.smart_retries);
    }

    #[test]
    fn advice_does_not_hide_an_authentication_request() {
        let c = classify(&DeclineSignals {
            decline_code: Some("authentication_required"),
            advice_code: Some("try_again_later"),
            ..Default::default()
        });
        assert_eq!(c.action, Action::CustomerMustAuthenticate);
        assert!(!c.smart_retries);
    }

    #[test]
    fn previously_declined_do_not_retry_behind_generic_decline() {
        let c = classify(&DeclineSignals {
            decline_code: Some("generic_decline"),
            failure_code: Some("card_declined"),
            outcome_reason: Some("previously_declined_do_not_retry"),
            advice_code: None,
        });
        assert_eq!(c.action, Action::DoNotRetry);
        assert_eq!(c.basis, Basis::OutcomeReason);
        assert_eq!(c.code.as_deref(), Some("previously_declined_do_not_retry"));
        assert!(!c.smart_retries);
    }

    #[test]
    fn highest_risk_level_means_do_not_retry() {
        let c = classify(&DeclineSignals {
            decline_code: Some("generic_decline"),
            outcome_reason: Some("highest_risk_level"),
            ..Default::default()
        });
        assert_eq!(c.action, Action::DoNotRetry);
        assert!(!c.smart_retries);
        // Even with advice saying try later.
        let c = classify(&DeclineSignals {
            decline_code: Some("generic_decline"),
            outcome_reason: Some("highest_risk_level"),
            advice_code: Some("try_again_later"),
            ..Default::default()
        });
        assert_eq!(c.action, Action::DoNotRetry);
    }

    #[test]
    fn radar_rule_behind_generic_decline_needs_review() {
        let c = classify(&DeclineSignals {
            decline_code: Some("generic_decline"),
            outcome_reason: Some("rule"),
            ..Default::default()
        });
        assert_eq!(c.action, Action::Review);
        assert_eq!(c.basis, Basis::OutcomeReason);
        // A specific decline code still wins over an elevated-risk note.
        let c = classify(&DeclineSignals {
            decline_code: Some("expired_card"),
            outcome_reason: Some("elevated_risk_level"),
            ..Default::default()
        });
        assert_eq!(c.action, Action::UpdatePaymentMethod);
    }

    #[test]
    fn outcome_reason_stands_in_for_a_missing_decline_code() {
        let c = classify(&DeclineSignals {
            decline_code: None,
            failure_code: Some("card_declined"),
            outcome_reason: Some("insufficient_funds"),
            advice_code: None,
        });
        assert_eq!(c.action, Action::RetryLater);
        assert_eq!(c.basis, Basis::OutcomeReason);
    }

    #[test]
    fn failure_code_alone() {
        let c = classify(&DeclineSignals {
            failure_code: Some("card_declined"),
            ..Default::default()
        });
        assert_eq!(c.action, Action::ContactCustomer);
        assert_eq!(c.basis, Basis::FailureCode);
        assert_eq!(c.code.as_deref(), Some("card_declined"));
        // An error code that is also a decline code.
        let c = classify(&DeclineSignals {
            failure_code: Some("expired_card"),
            ..Default::default()
        });
        assert_eq!(c.action, Action::UpdatePaymentMethod);
        assert_eq!(c.basis, Basis::FailureCode);
        let c = classify(&DeclineSignals {
            failure_code: Some("payment_intent_authentication_failure"),
            ..Default::default()
        });
        assert_eq!(c.action, Action::CustomerMustAuthenticate);
    }

    #[test]
    fn a_never_seen_code_is_review_with_the_raw_code() {
        let c = classify(&DeclineSignals {
            decline_code: Some("card_melted_in_dryer"),
            failure_code: Some("card_declined"),
            ..Default::default()
        });
        assert_eq!(c.action, Action::Review);
        assert_eq!(c.basis, Basis::UnknownCode);
        assert_eq!(c.code.as_deref(), Some("card_melted_in_dryer"));
        assert!(c.staff.contains("card_melted_in_dryer"));
        assert!(
            c.smart_retries,
            "unknown codes are not assumed non-retryable"
        );
        // An unknown failure code alone is shown too.
        let c = classify(&DeclineSignals {
            failure_code: Some("brand_new_error"),
            ..Default::default()
        });
        assert_eq!(c.action, Action::Review);
        assert_eq!(c.code.as_deref(), Some("brand_new_error"));
        // An unknown advice code does not override a known decline code.
        let c = classify(&DeclineSignals {
            decline_code: Some("insufficient_funds"),
            advice_code: Some("call_the_moon"),
            ..Default::default()
        });
        assert_eq!(c.action, Action::RetryLater);
    }

    #[test]
    fn nothing_at_all_is_review() {
        let c = classify(&DeclineSignals::default());
        assert_eq!(c.action, Action::Review);
        assert_eq!(c.basis, Basis::Nothing);
        assert_eq!(c.code, None);
        let c = classify(&DeclineSignals {
            decline_code: Some(""),
            ..Default::default()
        });
        assert_eq!(c.basis, Basis::Nothing);
    }

    #[test]
    fn action_names_round_trip() {
        for a in Action::ALL {
            assert_eq!(Action::parse(a.as_str()), Some(a));
            assert!(!a.label().is_empty());
            assert!(a.short().len() <= 12, "{a}");
        }
        assert_eq!(Action::parse("shrug"), None);
    }
}
