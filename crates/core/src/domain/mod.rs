//! The three jobs, pure: no IO, no async, no terminal. Each takes rows of the snapshot
//! (and the clock as a value) and returns what the panes and reports show.

pub mod balance;
pub mod declines;
pub mod dunning;
pub mod fraud_warnings;
pub mod locate;
pub mod recovery;
pub mod refund_approval;
pub mod refund_batch;
pub mod refund_gate;
pub mod refunds;
pub mod tieout;
