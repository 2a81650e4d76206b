//! The one writer: `POST /v1/refunds` and nothing else (SECURITY.md).
//!
//! [`RefundWriter`] is separate from the read-only [`Client`] (which it uses for the GETs
//! it needs: the charge, its disputes, the refund read back). It is built only with a
//! test-mode key (`sk_test_`/`rk_test_`); any other key is refused before a request is
//! made. If any answer carries `livemode: true` the writer disables itself for good (and
//! all its clones) and says so; every later call is refused without a request.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use reqwest::header::{HeaderMap, HeaderValue};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::client::{Client, ClientConfig};
use super::error::StripeError;
use super::models::{Charge, Dispute, ErrorBody, List, Refund};
use super::query;
use crate::secrets::{ApiKey, scrub_keys};
use tieout_core::model::Mode;

/// Why the writer refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum WriterError {
    #[error(
        "refund execution needs a test-mode key (sk_test_... or rk_test_...), and {masked} is a \
         {kind}: tieout never creates refunds in live mode. Use a Stripe test-mode key against \
         Stripe test mode or the fake server"
    )]
    NotTestKey { masked: String, kind: String },
    #[error(
        "Stripe answered {path} with livemode: true although the key is a test key; the refund \
         writer is now disabled for this session and sends nothing more{}. Check which account \
         and API base you are pointing at",
        live_refund_note(.refund_id.as_deref())
    )]
    LiveModeSeen {
        path: String,
        /// The refund Stripe returned when the live answer was to `POST /v1/refunds` (it
        /// exists: it must be audited and checked in the Dashboard).
        refund_id: Option<String>,
        /// Its status in that answer.
        status: Option<String>,
    },
    #[error(
        "the refund writer is disabled because a Stripe answer said livemode: true; restart \
         tieout against a test-mode account to create refunds"
    )]
    Disabled,
    #[error("{0}")]
    Stripe(Box<StripeError>),
}

fn live_refund_note(refund_id: Option<&str>) -> String {
    refund_id.map_or_else(String::new, |id| {
        format!(" (Stripe did return refund {id}: look it up in the Dashboard)")
    })
}

impl From<StripeError> for WriterError {
    fn from(e: StripeError) -> Self {
        WriterError::Stripe(Box::new(e))
    }
}

/// What to refund. The amount is always explicit (never "the rest of the charge").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundRequest {
    pub charge: String,
    pub amount: i64,
    pub reason: String,
    pub metadata: Vec<(String, String)>,
}

/// A refund as created (or replayed for the same idempotency key).
#[derive(Debug, Clone)]
pub struct Created {
    pub refund: Refund,
    pub replayed: bool,
    pub request_id: Option<String>,
}

/// The test-mode refund writer. Cheap to clone; clones share the disabled flag.
#[derive(Clone)]
pub struct RefundWriter {
    read: Client,
    http: reqwest::Client,
    headers: HeaderMap,
    base: String,
    disabled: Arc<AtomicBool>,
}

impl std::fmt::Debug for RefundWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RefundWriter")
            .field("base", &self.base)
            .field("key", self.read.key())
            .field("disabled", &self.is_disabled())
            .finish()
    }
}

/// True when any object anywhere in `v` says `livemode: true`.
pub fn says_livemode(v: &Value) -> bool {
    match v {
        Value::Object(map) => map.iter().any(|(k, child)| {
            (k == "livemode" && child.as_bool() == Some(true)) || says_livemode(child)
        }),
        Value::Array(items) => items.iter().any(says_livemode),
        _ => false,
    }
}

impl RefundWriter {
    /// Refuses any key that is not test-mode before anything else happens.
    pub fn check_key(key: &ApiKey) -> Result<(), WriterError> {
        if key.mode() == Mode::Test {
            Ok(())
        } else {
            Err(WriterError::NotTestKey {
                masked: key.masked(),
                kind: key.kind().to_string(),
            })
        }
    }

    pub fn new(config: ClientConfig) -> Result<Self, WriterError> {
        Self::check_key(&config.key)?;
        let mut headers = HeaderMap::new();
        let bad_key = || StripeError::Config {
            detail: "the key contains characters a header cannot carry".into(),
        };
        let mut auth = HeaderValue::from_str(&format!("Bearer {}", config.key.expose()))
            .map_err(|_| bad_key())?;
        auth.set_sensitive(true);
        headers.insert(reqwest::header::AUTHORIZATION, auth);
        headers.insert(
            "Stripe-Version",
            HeaderValue::from_static(super::API_VERSION),
        );
        let timeout = config.rate.request_timeout;
        let account = config
            .stripe_account
            .as_deref()
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(str::to_string);
        let read = Client::new(config)?;
        if let Some(acct) = account {
            let value = HeaderValue::from_str(&acct).map_err(|_| StripeError::Config {
                detail: format!("--stripe-account '{acct}' is not an account id"),
            })?;
            headers.insert("Stripe-Account", value);
        }
        let http = super::tls::client_builder()
            .user_agent(format!("tieout/{}", env!("CARGO_PKG_VERSION")))
            .timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| StripeError::Config {
                detail: format!("the HTTP client could not start: {e}"),
            })?;
        Ok(Self {
            base: read.api_base().to_string(),
            read,
            http,
            headers,
            disabled: Arc::new(AtomicBool::new(false)),
        })
    }

    pub fn is_disabled(&self) -> bool {
        self.disabled.load(Ordering::SeqCst)
    }

    /// The key, masked, for messages.
    pub fn key_masked(&self) -> String {
        self.read.key().masked()
    }

    fn ready(&self) -> Result<(), WriterError> {
        if self.is_disabled() {
            Err(WriterError::Disabled)
        } else {
            Ok(())
        }
    }

    /// Checks an answer for `livemode: true` (disabling the writer), then decodes it.
    fn accept<T: DeserializeOwned>(&self, path: &str, v: Value) -> Result<T, WriterError> {
        if says_livemode(&v) {
            self.disabled.store(true, Ordering::SeqCst);
            tracing::error!(
                path,
                "Stripe answered livemode: true; refund writer disabled"
            );
            let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
            return Err(WriterError::LiveModeSeen {
                path: path.to_string(),
                refund_id: (path == "/v1/refunds").then(|| text("id")).flatten(),
                status: text("status"),
            });
        }
        serde_json::from_value(v).map_err(|e| {
            WriterError::from(StripeError::Decode {
                path: path.to_string(),
                at: String::new(),
                detail: e.to_string(),
                request_id: None,
            })
        })
    }

    async fn get<T: DeserializeOwned>(
        &self,
        path: &str,
        q: &[(String, String)],
    ) -> Result<T, WriterError> {
        self.ready()?;
        let v: Value = self.read.get(path, q).await?;
        self.accept(path, v)
    }

    /// Re-reads a charge.
    pub async fn charge(&self, id: &str) -> Result<Charge, WriterError> {
        self.get(&format!("/v1/charges/{id}"), &[]).await
    }

    /// The disputes on a charge (every status).
    pub async fn disputes(&self, charge: &str) -> Result<Vec<Dispute>, WriterError> {
        let list: List<Dispute> = self
            .get(
                "/v1/disputes",
                &query::params([("charge", charge), ("limit", "100")]),
            )
            .await?;
        Ok(list.data)
    }

    /// Reads a refund back.
    pub async fn refund(&self, id: &str) -> Result<Refund, WriterError> {
        self.get(&format!("/v1/refunds/{id}"), &[]).await
    }

    /// `POST /v1/refunds` with `Idempotency-Key: idempotency_key`. Retried (same key, so
    /// at most one refund) on a lost connection, 409, 429 and 5xx, up to three attempts.
    pub async fn create(
        &self,
        req: &RefundRequest,
        idempotency_key: &str,
    ) -> Result<Created, WriterError> {
        const PATH: &str = "/v1/refunds";
        self.ready()?;
        let mut form: Vec<(String, String)> = vec![
            ("charge".into(), req.charge.clone()),
            ("amount".into(), req.amount.to_string()),
            ("reason".into(), req.reason.clone()),
        ];
        for (k, v) in &req.metadata {
            form.push((format!("metadata[{k}]"), v.clone()));
        }
        let body = query::encode(&form);
        let idem = HeaderValue::from_str(idempotency_key).map_err(|_| StripeError::Config {
            detail: "the idempotency key is not a valid header value".into(),
        })?;
        let url = format!("{}{PATH}", self.base);
        let max = 3;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let sent = self
                .http
                .post(&url)
                .headers(self.headers.clone())
                .header("Idempotency-Key", idem.clone())
                .header(
                    reqwest::header::CONTENT_TYPE,
                    "application/x-www-form-urlencoded",
                )
                .body(body.clone())
                .send()
                .await;
            let response = match sent {
                Ok(r) => r,
                Err(e) if attempt < max && !e.is_builder() => {
                    tracing::debug!(attempt, "refund POST failed to connect; retrying");
                    tokio::time::sleep(std::time::Duration::from_millis(200 * attempt)).await;
                    continue;
                }
                Err(e) => {
                    return Err(StripeError::Network {
                        path: PATH.into(),
                        attempts: attempt as u32,
                        detail: scrub_keys(&e.to_string()),
                        request_id: None,
                    }
                    .into());
                }
            };
            let status = response.status().as_u16();
            let header = |name: &str| {
                response
                    .headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string)
            };
            let request_id = header("request-id");
            let replayed = header("idempotent-replayed").as_deref() == Some("true");
            let bytes = response.bytes().await.map_err(|e| StripeError::Network {
                path: PATH.into(),
                attempts: attempt as u32,
                detail: scrub_keys(&e.to_string()),
                request_id: request_id.clone(),
            })?;
            if (200..300).contains(&status) {
                let v: Value = serde_json::from_slice(&bytes).map_err(|e| StripeError::Decode {
                    path: PATH.into(),
                    at: String::new(),
                    detail: e.to_string(),
                    request_id: request_id.clone(),
                })?;
                let refund: Refund = self.accept(PATH, v)?;
                return Ok(Created {
                    refund,
                    replayed,
                    request_id,
                });
            }
            if (status == 409 || status == 429 || status >= 500) && attempt < max {
                tokio::time::sleep(std::time::Duration::from_millis(300 * attempt)).await;
                continue;
            }
            let api = serde_json::from_slice::<ErrorBody>(&bytes)
                .map(|b| b.error)
                .unwrap_or_default();
            return Err(StripeError::Api {
                path: PATH.into(),
                status,
                kind: api.kind,
                code: api.code,
                message: api.message.map(|m| scrub_keys(&m)),
                attempts: attempt as u32,
                request_id,
            }
            .into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_keys_are_refused_with_a_clear_message() {
        for text in [
            concat!("rk_live", "_0123456789abcdefWXYZ"),
            concat!("sk_live", "_0123456789abcdefWXYZ"),
        ] {
            let key = ApiKey::parse(text).expect("key");
            let err = RefundWriter::new(ClientConfig::new("http://127.0.0.1:9", key))
                .expect_err("live key refused");
            let msg = err.to_string();
            assert!(msg.contains("test-mode key"), "{msg}");
            assert!(!msg.contains("0123456789"), "key leaked: {msg}");
        }
        let key = ApiKey::parse("rk_test_0123456789abcdefWXYZ").expect("key");
        RefundWriter::new(ClientConfig::new("http://127.0.0.1:9", key)).expect("test key");
    }

    #[test]
    fn livemode_is_found_anywhere() {
        assert!(says_livemode(
            &serde_json::json!({"data": [{"livemode": false}, {"x": {"livemode": true}}]})
        ));
        assert!(!says_livemode(
            &serde_json::json!({"livemode": false, "data": []})
        ));
    }
}
