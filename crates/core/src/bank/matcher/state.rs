//! The matcher's working state, shared by its passes: which payouts are settled, which
//! bank lines are used, and the reasons already gathered for a review.

use super::{BankStatus, MatchRule, PayoutKey, PayoutMatch};
use crate::bank::BankLine;
use crate::model::status::PayoutStatus;

/// Whether a payout is expected to reach the statement as a deposit.
pub(super) fn expected(p: &PayoutKey) -> bool {
    !matches!(p.status, PayoutStatus::Failed | PayoutStatus::Canceled)
}

/// The matcher's working state: what each pass has decided so far.
pub(super) struct State<'a> {
    pub(super) payouts: Vec<&'a PayoutKey>,
    /// The statements' lines, borrowed from the caller and sorted.
    pub(super) lines: Vec<&'a BankLine>,
    pub(super) used: Vec<bool>,
    pub(super) result: Vec<Option<PayoutMatch>>,
    /// Reasons a payout already has for review (reference mismatch, failed oddities), with
    /// the lines they point at.
    pub(super) review: Vec<Vec<(usize, String)>>,
}

impl State<'_> {
    pub(super) fn open(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.payouts.len()).filter(|&i| self.result[i].is_none() && self.review[i].is_empty())
    }

    pub(super) fn matched(&mut self, i: usize, rule: MatchRule, lines: &[usize], note: String) {
        for &l in lines {
            self.used[l] = true;
        }
        self.result[i] = Some(PayoutMatch {
            payout: self.payouts[i].clone(),
            status: if rule == MatchRule::Return {
                BankStatus::DebitedBack
            } else {
                BankStatus::Matched
            },
            rule: Some(rule),
            lines: lines.iter().map(|&l| self.lines[l].clone()).collect(),
            candidates: Vec::new(),
            note,
        });
    }

    pub(super) fn settle(&mut self, i: usize, status: BankStatus, note: String) {
        self.result[i] = Some(PayoutMatch {
            payout: self.payouts[i].clone(),
            status,
            rule: None,
            lines: Vec::new(),
            candidates: Vec::new(),
            note,
        });
    }
}
