//! Which subtotal a line of a payout falls in, and the order subtotals are shown in.
//!
//! Lines are grouped by Stripe's `reporting_category` (what Stripe recommends for
//! accounting), except minimum-balance holds and releases, which are always their own
//! group so a withheld amount is never hidden among adjustments.

use std::cmp::Ordering;

use crate::model::rows::BalanceTxnRow;

/// The bookkeeper's reading order: money in, money back out, disputes, fees, then
/// adjustments and balance movements. Anything else follows alphabetically.
const ORDER: &[&str] = &[
    "charge",
    "payment",
    "refund",
    "refund_failure",
    "partial_capture_reversal",
    "dispute",
    "dispute_reversal",
    "fee",
    "tax",
    "other_adjustment",
    "payout_reversal",
    "payout_minimum_balance_hold",
    "payout_minimum_balance_release",
    "transfer",
    "transfer_reversal",
    "topup",
    "topup_reversal",
    "connect_reserved_funds",
];

/// The subtotal group of a line: `payout_minimum_balance_hold`/`_release` by their type,
/// otherwise the `reporting_category`, falling back to the type when Stripe sent none.
pub fn category_str(txn: &BalanceTxnRow) -> &str {
    if txn.kind.starts_with("payout_minimum_balance_") {
        return &txn.kind;
    }
    if txn.reporting_category.trim().is_empty() {
        if txn.kind.trim().is_empty() {
            return "uncategorised";
        }
        return &txn.kind;
    }
    &txn.reporting_category
}

/// Orders two categories: the known ones in [`ORDER`], then the rest alphabetically.
pub fn compare(a: &str, b: &str) -> Ordering {
    let rank = |c: &str| ORDER.iter().position(|k| *k == c).unwrap_or(ORDER.len());
    rank(a).cmp(&rank(b)).then_with(|| a.cmp(b))
}

/// A short description of a category for people who do not know Stripe's names.
pub fn describe(category: &str) -> Option<&'static str> {
    Some(match category {
        "charge" => "payments received",
        "payment" => "payments received",
        "refund" => "refunds sent back to customers",
        "refund_failure" => "refunds that failed and came back",
        "partial_capture_reversal" => "uncaptured parts of payments released",
        "dispute" => "chargebacks and their fees",
        "dispute_reversal" => "disputes won, funds returned",
        "fee" => "Stripe fees billed separately",
        "tax" => "tax on Stripe fees",
        "other_adjustment" => "other adjustments",
        "payout_reversal" => "earlier payouts that failed or were reversed, funds back",
        "payout_minimum_balance_hold" => "withheld to keep the minimum balance",
        "payout_minimum_balance_release" => "minimum balance released",
        "transfer" => "transfers to connected accounts",
        "transfer_reversal" => "transfers reversed",
        "topup" => "top-ups",
        "topup_reversal" => "top-ups reversed",
        "connect_reserved_funds" => "Connect reserved funds",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::money::Currency;

    fn txn(kind: &str, cat: &str) -> BalanceTxnRow {
        BalanceTxnRow {
            id: "txn_1".into(),
            payout: None,
            kind: kind.into(),
            reporting_category: cat.into(),
            source: None,
            created: 0,
            available_on: 0,
            currency: Currency::USD,
            amount: 0,
            fee: 0,
            net: 0,
            description: None,
            status: "available".into(),
            fee_details: crate::model::rows::FeeParts::NONE,
            exchange_rate: Default::default(),
        }
    }

    #[test]
    fn holds_and_releases_are_their_own_group() {
        assert_eq!(
            category_str(&txn("payout_minimum_balance_hold", "other_adjustment")),
            "payout_minimum_balance_hold"
        );
        assert_eq!(
            category_str(&txn("payout_minimum_balance_release", "")),
            "payout_minimum_balance_release"
        );
        assert_eq!(category_str(&txn("adjustment", "dispute")), "dispute");
        assert_eq!(category_str(&txn("charge", "")), "charge");
        assert_eq!(category_str(&txn("", "")), "uncategorised");
    }

    #[test]
    fn known_categories_come_first_then_alphabetical() {
        let mut cats = vec!["zeta", "fee", "alpha", "refund", "charge", "dispute"];
        cats.sort_by(|a, b| compare(a, b));
        assert_eq!(
            cats,
            ["charge", "refund", "dispute", "fee", "alpha", "zeta"]
        );
    }
}
