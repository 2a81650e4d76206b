//! The bundled demo account: `fixtures/demo/*.json` parsed through the Stripe models into rows.
