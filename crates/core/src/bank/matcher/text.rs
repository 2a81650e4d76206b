//! How the matcher reads bank text: references compared without case, spaces or
//! punctuation, whether a line looks like a Stripe payout, and the counted words of its
//! notes.

use super::PayoutKey;
use crate::bank::BankLine;

/// Whether a line's text looks like a Stripe payout: STRIPE or one of the descriptors.
pub(super) fn looks_like_stripe(line: &BankLine, descriptors: &[String]) -> bool {
    let text = normalise(&line.text());
    text.contains("STRIPE") || descriptors.iter().any(|d| text.contains(d.as_str()))
}

/// The payouts' statement descriptors as references are compared, three characters or
/// more, sorted and without repeats.
pub(super) fn descriptors(payouts: &[&PayoutKey]) -> Vec<String> {
    let mut d: Vec<String> = payouts
        .iter()
        .filter_map(|p| p.statement_descriptor.as_deref())
        .map(normalise)
        .filter(|d| d.len() >= 3)
        .collect();
    d.sort();
    d.dedup();
    d
}

/// Upper-case letters and digits only: how references are compared.
pub(super) fn normalise(text: &str) -> String {
    text.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// `n` with the word for that many: `1 day`, `3 days`.
pub(super) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
