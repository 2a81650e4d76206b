//! A payout's lines as its tie-out holds them: borrowed from the balance transactions at
//! hand while the tie-out is rendered (a tie-out of every payout does not copy a million
//! lines), or owned once a result must outlive the rows it was computed from (a pane's
//! result kept across frames: [`Lines::into_owned`]).

use std::iter::{Chain, Copied};
use std::slice::Iter;

use crate::model::rows::BalanceTxnRow;

/// The balance transactions of one payout, in the tie-out's order.
#[derive(Debug, Clone)]
pub enum Lines<'a> {
    /// Borrowed from the rows the tie-out read.
    Borrowed(Vec<&'a BalanceTxnRow>),
    /// Copied, so the result owns them.
    Owned(Vec<BalanceTxnRow>),
}

/// The lines in order; see [`Lines::iter`].
pub type LinesIter<'s> = Chain<Copied<Iter<'s, &'s BalanceTxnRow>>, Iter<'s, BalanceTxnRow>>;

impl<'a> Lines<'a> {
    /// The lines in order.
    pub fn iter(&self) -> LinesIter<'_> {
        let (borrowed, owned): (&[&BalanceTxnRow], &[BalanceTxnRow]) = match self {
            Lines::Borrowed(v) => (v, &[]),
            Lines::Owned(v) => (&[], v),
        };
        borrowed.iter().copied().chain(owned.iter())
    }

    pub fn len(&self) -> usize {
        match self {
            Lines::Borrowed(v) => v.len(),
            Lines::Owned(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`th line.
    pub fn get(&self, i: usize) -> Option<&BalanceTxnRow> {
        match self {
            Lines::Borrowed(v) => v.get(i).copied(),
            Lines::Owned(v) => v.get(i),
        }
    }

    /// The lines as owned rows.
    pub fn to_vec(&self) -> Vec<BalanceTxnRow> {
        self.iter().cloned().collect()
    }

    /// The same lines, owned (copied once if borrowed).
    pub fn into_owned(self) -> Lines<'static> {
        match self {
            Lines::Borrowed(v) => Lines::Owned(v.into_iter().cloned().collect()),
            Lines::Owned(v) => Lines::Owned(v),
        }
    }
}

impl<'s, 'a> IntoIterator for &'s Lines<'a> {
    type Item = &'s BalanceTxnRow;
    type IntoIter = LinesIter<'s>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Equal when they hold equal lines in the same order, borrowed or owned.
impl PartialEq for Lines<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::tieout::testdata::line;

    #[test]
    fn borrowed_and_owned_lines_are_the_same_lines() {
        let rows = [
            line("txn_1", "po_1", "charge", "charge", 1000, 30),
            line("txn_2", "po_1", "refund", "refund", -200, 0),
        ];
        let borrowed = Lines::Borrowed(rows.iter().collect());
        let owned = borrowed.clone().into_owned();
        assert!(matches!(owned, Lines::Owned(_)));
        assert_eq!(borrowed, owned);
        assert_eq!(owned.len(), 2);
        assert_eq!(owned.get(1).map(|l| l.id.as_str()), Some("txn_2"));
        assert_eq!(owned.get(2), None);
        assert_eq!(borrowed.to_vec(), rows.to_vec());
        let ids: Vec<&str> = (&owned).into_iter().map(|l| l.id.as_str()).collect();
        assert_eq!(ids, ["txn_1", "txn_2"]);
        assert_ne!(borrowed, Lines::Borrowed(vec![&rows[1], &rows[0]]));
        assert!(Lines::Owned(Vec::new()).is_empty());
    }
}
