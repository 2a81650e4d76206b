//! Refund suggestions: the policy, matching a ticket to a charge, and the decision.
