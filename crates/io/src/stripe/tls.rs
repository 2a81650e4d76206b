//! The one TLS setup behind every HTTP client tieout builds: rustls on the `ring` crypto
//! provider (the provider polars' object store already links), so the binary carries a
//! single TLS backend. Certificates are checked by the platform verifier, as reqwest does.

use std::sync::Once;

/// A `reqwest` client builder with the crypto provider installed. Every client (the Stripe
/// reader, the refund writer, the tests' clients) starts here: reqwest is built without a
/// provider of its own and would refuse to build a client before one is installed.
pub fn client_builder() -> reqwest::ClientBuilder {
    install_provider();
    reqwest::Client::builder()
}

/// Installs `ring` as the process's rustls provider, once. An error means another part of
/// the process installed one first, which serves as well.
fn install_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_client_builds_with_the_ring_provider() {
        super::client_builder().build().expect("a client");
        assert!(rustls::crypto::CryptoProvider::get_default().is_some());
    }
}
