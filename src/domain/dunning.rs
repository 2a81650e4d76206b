//! The failed-payment worklist (dunning): which invoices are on it and what to do next.
