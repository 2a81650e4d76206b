//! What can go wrong talking to Stripe, typed, with messages that say what happened and
//! what to do, and the `Request-Id` Stripe gave the request (quote it to Stripe support).
//! No error ever contains the key: Stripe's own messages are scrubbed of key-like text.

use std::fmt;

use crate::secrets::scrub_keys;
use tieout_core::failure::{FailKind, Failure};

/// A failed read from Stripe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StripeError {
    /// 401: the key is wrong, revoked or expired.
    InvalidKey {
        path: String,
        expired: bool,
        message: Option<String>,
        request_id: Option<String>,
    },
    /// 403: the (restricted) key lacks a permission; `permission` is the `rak_..._read`
    /// slug Stripe named, when it named one.
    MissingPermission {
        path: String,
        permission: Option<String>,
        message: Option<String>,
        request_id: Option<String>,
    },
    /// 404: no such object (or it lives in the other mode).
    NotFound {
        path: String,
        message: Option<String>,
        request_id: Option<String>,
    },
    /// 429 on every attempt.
    RateLimited {
        path: String,
        attempts: u32,
        request_id: Option<String>,
    },
    /// Any other error answer (400, 409/5xx after retries, ...).
    Api {
        path: String,
        status: u16,
        kind: Option<String>,
        code: Option<String>,
        message: Option<String>,
        attempts: u32,
        request_id: Option<String>,
    },
    /// No answer: connection refused or reset, timeout, a body cut short.
    Network {
        path: String,
        attempts: u32,
        detail: String,
        request_id: Option<String>,
    },
    /// A 2xx answer whose JSON did not have the expected shape; `at` is where in the
    /// document (e.g. `data[3].amount`).
    Decode {
        path: String,
        at: String,
        detail: String,
        request_id: Option<String>,
    },
    /// The client could not be set up (bad `--api-base`, bad `--stripe-account`, ...).
    Config { detail: String },
}

/// The Dashboard's name for the resource a `rak_*` permission covers.
pub fn permission_resource(slug: &str) -> Option<&'static str> {
    super::permissions::resource_of(slug).or(match slug {
        "rak_accounts_kyc_id_numbers_read" => Some("Account KYC ID numbers"),
        _ => None,
    })
}

/// Finds the account id in a 403 message ("... on account 'acct_1PJB...'").
pub fn parse_account(message: &str) -> Option<String> {
    let start = message.find("acct_")?;
    let id: String = message[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (id.len() > 5).then_some(id)
}

/// Finds the `rak_...` permission slug in a 403 message
/// ("Having the 'rak_subscription_read' permission would allow this request to continue.").
pub fn parse_permission(message: &str) -> Option<String> {
    let start = message.find("rak_")?;
    let slug: String = message[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (slug.len() > 4).then_some(slug)
}

impl StripeError {
    /// The `Request-Id` Stripe sent with the failed answer, if any.
    pub fn request_id(&self) -> Option<&str> {
        match self {
            Self::InvalidKey { request_id, .. }
            | Self::MissingPermission { request_id, .. }
            | Self::NotFound { request_id, .. }
            | Self::RateLimited { request_id, .. }
            | Self::Api { request_id, .. }
            | Self::Network { request_id, .. }
            | Self::Decode { request_id, .. } => request_id.as_deref(),
            Self::Config { .. } => None,
        }
    }

    /// Key problems (401, 403) exit with 3; bad configuration with 2; everything else 4.
    pub fn fail_kind(&self) -> FailKind {
        match self {
            Self::InvalidKey { .. } | Self::MissingPermission { .. } => FailKind::Key,
            Self::Config { .. } => FailKind::Usage,
            _ => FailKind::Stripe,
        }
    }

    /// The missing permission a 403 named.
    pub fn missing_permission(&self) -> Option<&str> {
        match self {
            Self::MissingPermission { permission, .. } => permission.as_deref(),
            _ => None,
        }
    }

    /// The account id a 403 message revealed, if any.
    pub fn account_hint(&self) -> Option<String> {
        match self {
            Self::MissingPermission { message, .. } => message.as_deref().and_then(parse_account),
            _ => None,
        }
    }

    /// The HTTP status Stripe answered with, when there was an answer.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::InvalidKey { .. } => Some(401),
            Self::MissingPermission { .. } => Some(403),
            Self::NotFound { .. } => Some(404),
            Self::RateLimited { .. } => Some(429),
            Self::Api { status, .. } => Some(*status),
            _ => None,
        }
    }

    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::NotFound { .. })
    }
}

fn stripe_said(f: &mut fmt::Formatter<'_>, message: &Option<String>) -> fmt::Result {
    if let Some(m) = message.as_deref().filter(|m| !m.is_empty()) {
        write!(f, " Stripe said: \"{}\"", scrub_keys(m))?;
    }
    Ok(())
}

fn tries(attempts: u32) -> String {
    if attempts == 1 {
        "1 attempt".to_string()
    } else {
        format!("{attempts} attempts")
    }
}

impl fmt::Display for StripeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidKey {
                path,
                expired,
                message,
                ..
            } => {
                if *expired {
                    write!(
                        f,
                        "Stripe refused the key as expired (401 on GET {path}): create a new \
                         restricted key in the Dashboard (Developers > API keys) and run \
                         `tieout login` again."
                    )?;
                } else {
                    write!(
                        f,
                        "Stripe refused the key (401 on GET {path}): it is wrong, revoked or \
                         expired. Check it in the Dashboard (Developers > API keys) and run \
                         `tieout login` again (or fix STRIPE_API_KEY)."
                    )?;
                }
                stripe_said(f, message)?;
            }
            Self::MissingPermission {
                path,
                permission,
                message,
                ..
            } => match permission.as_deref() {
                Some(slug) => {
                    let resource = permission_resource(slug)
                        .map(|r| format!(" (the \"{r}\" row, set to Read)"))
                        .unwrap_or_default();
                    write!(
                        f,
                        "the key lacks the '{slug}' permission needed for GET {path} (403). \
                         Add '{slug}'{resource} to the restricted key in the Stripe Dashboard \
                         (Developers > API keys > your key > Edit), then run the command again."
                    )?;
                }
                None => {
                    write!(
                        f,
                        "the key is not allowed to call GET {path} (403), and Stripe named no \
                         permission that would allow it."
                    )?;
                    stripe_said(f, message)?;
                    write!(
                        f,
                        " Check the restricted key's permissions in the Dashboard (Developers > \
                         API keys)."
                    )?;
                }
            },
            Self::NotFound { path, message, .. } => {
                write!(
                    f,
                    "Stripe has no such object (404 on GET {path}). Check the id, and that the \
                     key's mode (live/test) matches the object's."
                )?;
                stripe_said(f, message)?;
            }
            Self::RateLimited { path, attempts, .. } => {
                write!(
                    f,
                    "Stripe kept answering 429 Too Many Requests for GET {path} after {}, \
                     with no request succeeding meanwhile although tieout slowed down: \
                     another integration may be using the account's rate limit. Wait a few \
                     minutes and run the command again (`tieout sync` continues from where \
                     it stopped), or give a lower --rate.",
                    tries(*attempts)
                )?;
            }
            Self::Api {
                path,
                status,
                kind,
                code,
                message,
                attempts,
                ..
            } => {
                write!(f, "Stripe answered {status} for GET {path}")?;
                let labels: Vec<&str> = [kind.as_deref(), code.as_deref()]
                    .into_iter()
                    .flatten()
                    .collect();
                if !labels.is_empty() {
                    write!(f, " ({})", labels.join(", "))?;
                }
                if *attempts > 1 {
                    write!(f, " after {}", tries(*attempts))?;
                }
                write!(f, ".")?;
                stripe_said(f, message)?;
                if *status >= 500 {
                    write!(
                        f,
                        " Stripe is having trouble; check status.stripe.com and try again later."
                    )?;
                } else {
                    write!(
                        f,
                        " This is likely a bug in tieout: please report it with the request id."
                    )?;
                }
            }
            Self::Network {
                path,
                attempts,
                detail,
                ..
            } => {
                write!(
                    f,
                    "could not read GET {path} from Stripe after {} ({}). Check the network \
                     connection (and --api-base / TIEOUT_API_BASE), then try again.",
                    tries(*attempts),
                    scrub_keys(detail)
                )?;
            }
            Self::Decode {
                path, at, detail, ..
            } => {
                write!(
                    f,
                    "Stripe's answer to GET {path} could not be understood at '{at}' ({}). \
                     This tieout may be too old for the account's data: please report it with \
                     the request id.",
                    scrub_keys(detail)
                )?;
            }
            Self::Config { detail } => write!(f, "{}", scrub_keys(detail))?,
        }
        if let Some(id) = self.request_id() {
            write!(f, " [Request-Id: {id}]")?;
        }
        Ok(())
    }
}

impl std::error::Error for StripeError {}

impl From<StripeError> for Failure {
    fn from(e: StripeError) -> Self {
        Failure::new(e.fail_kind(), e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permission_slug_is_parsed_from_stripes_wording() {
        let msg = "The provided key 'rk_test_***...qs8Kgd' does not have the required \
                   permissions for this endpoint on account 'acct_1PJB'. Having the \
                   'rak_subscription_read' permission would allow this request to continue.";
        assert_eq!(
            parse_permission(msg).as_deref(),
            Some("rak_subscription_read")
        );
        assert_eq!(parse_permission("no permission named here"), None);
        assert_eq!(parse_account(msg).as_deref(), Some("acct_1PJB"));
        assert_eq!(parse_account("no account"), None);
    }

    #[test]
    fn permission_message_names_the_slug_and_the_dashboard_row() {
        let e = StripeError::MissingPermission {
            path: "/v1/payouts".into(),
            permission: Some("rak_payout_read".into()),
            message: None,
            request_id: Some("req_123".into()),
        };
        let text = e.to_string();
        assert!(text.contains("'rak_payout_read'"), "{text}");
        assert!(text.contains("Payouts"), "{text}");
        assert!(text.contains("Dashboard"), "{text}");
        assert!(text.contains("req_123"), "{text}");
        assert_eq!(e.fail_kind(), FailKind::Key);
        assert_eq!(e.request_id(), Some("req_123"));
    }

    #[test]
    fn stripe_messages_are_scrubbed_of_keys() {
        let e = StripeError::InvalidKey {
            path: "/v1/balance".into(),
            expired: false,
            message: Some("Invalid API Key provided: rk_test_0123456789abcdefghWXYZ".into()),
            request_id: None,
        };
        let text = e.to_string();
        assert!(!text.contains("0123456789"), "{text}");
        assert!(text.contains("rk_test_...WXYZ"), "{text}");
        assert!(text.contains("tieout login"), "{text}");
    }

    #[test]
    fn fail_kinds() {
        let nf = StripeError::NotFound {
            path: "/v1/charges/ch_1".into(),
            message: None,
            request_id: None,
        };
        assert_eq!(nf.fail_kind(), FailKind::Stripe);
        let net = StripeError::Network {
            path: "/v1/payouts".into(),
            attempts: 4,
            detail: "connection refused".into(),
            request_id: None,
        };
        assert_eq!(net.fail_kind(), FailKind::Stripe);
        assert!(net.to_string().contains("after 4 attempts"));
        let cfg = StripeError::Config {
            detail: "bad base".into(),
        };
        assert_eq!(Failure::from(cfg).kind, FailKind::Usage);
    }
}
