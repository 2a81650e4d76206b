//! The decline-code table: what each Stripe decline, advice code and outcome reason means for the next action.
