//! Reading the account from Stripe into `AccountData`: what a sync or a fresh headless command fetches.
