//! The API key itself: what kind it is, which mode it reads, how it is shown (masked,
//! never in full), and which keys tieout refuses.

use std::fmt;

use tieout_core::model::Mode;

/// Secret (`sk_`) or restricted (`rk_`) key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyRole {
    /// A full secret key: can read and write everything.
    Secret,
    /// A restricted key: can do only what its permissions allow.
    Restricted,
}

/// The kind of a key: its role and its mode, plus whether it is a sandbox-minted key
/// (`rkcs_test_...`-style prefixes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyKind {
    pub role: KeyRole,
    pub mode: Mode,
    pub sandbox: bool,
}

impl fmt::Display for KeyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let role = match self.role {
            KeyRole::Secret => "secret",
            KeyRole::Restricted => "restricted",
        };
        let sandbox = if self.sandbox { " (sandbox)" } else { "" };
        write!(f, "{role} {} key{sandbox}", self.mode.as_str())
    }
}

/// Why a key was refused. Each message says what is wrong and what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error(
        "the key is empty: paste a restricted key (rk_live_... or rk_test_...) from the Stripe Dashboard, Developers > API keys"
    )]
    Empty,
    #[error(
        "{masked} is a publishable key: publishable keys only identify an account to browsers \
         and cannot read any data. Create a restricted key (Dashboard > Developers > API keys > \
         Create restricted key) with read permissions and use that instead"
    )]
    Publishable { masked: String },
    #[error(
        "{masked} is a full secret live key: it can move money and change everything in the \
         account, far more than a read-only workbench needs. Create a restricted key instead \
         (Dashboard > Developers > API keys > Create restricted key, Read on Balance, Payouts, \
         Invoices, PaymentIntents, Charges, Customers, Disputes, Subscriptions, Prices), or pass \
         --allow-secret-key if you really mean to use this one"
    )]
    SecretLive { masked: String },
    #[error(
        "this does not look like a Stripe API key (expected rk_live_..., rk_test_..., \
         sk_test_... or sk_live_...): copy the whole key from the Stripe Dashboard, \
         Developers > API keys"
    )]
    Unrecognised,
}

/// A Stripe API key. It has no `Display`; its `Debug` is masked (`rk_test_...abcd`); the
/// full text is reachable only through [`ApiKey::expose`], for the HTTP header.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey {
    text: String,
    /// Length of the prefix up to and including the mode (`rk_test_`).
    prefix_len: usize,
    kind: KeyKind,
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKey({})", self.masked())
    }
}

/// Splits `text` into (role, mode, sandbox, prefix length), or None when it is not a
/// secret/restricted key. Accepts `sk_`/`rk_` and sandbox-style `rkcs_`/`skcs_` forms.
fn classify(text: &str) -> Option<(KeyRole, Mode, bool, usize)> {
    let (head, rest) = text.split_once('_')?;
    let (mode_text, body) = rest.split_once('_')?;
    let mode = match mode_text {
        "live" => Mode::Live,
        "test" => Mode::Test,
        _ => return None,
    };
    let role = if head.starts_with("rk") {
        KeyRole::Restricted
    } else if head.starts_with("sk") {
        KeyRole::Secret
    } else {
        return None;
    };
    let extra = &head[2..];
    if extra.len() > 4 || !extra.bytes().all(|b| b.is_ascii_lowercase()) {
        return None;
    }
    if body.len() < 4 || !body.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    Some((
        role,
        mode,
        !extra.is_empty(),
        head.len() + mode_text.len() + 2,
    ))
}

/// Masks a key-like text: its prefix, `...`, and (for long enough keys) the last four.
fn mask(text: &str, prefix_len: usize) -> String {
    let prefix = text.get(..prefix_len).unwrap_or("");
    let body_len = text.len().saturating_sub(prefix_len);
    if body_len >= 12 {
        let tail = text.get(text.len() - 4..).unwrap_or("");
        format!("{prefix}...{tail}")
    } else {
        format!("{prefix}...")
    }
}

impl ApiKey {
    /// Recognises a secret or restricted key (surrounding whitespace is ignored). Does not
    /// apply the `sk_live_` policy; see [`ApiKey::validate`].
    pub fn parse(text: &str) -> Result<Self, KeyError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(KeyError::Empty);
        }
        if text.starts_with("pk_") {
            let prefix_len = if text.starts_with("pk_live_") || text.starts_with("pk_test_") {
                8
            } else {
                3
            };
            return Err(KeyError::Publishable {
                masked: mask(text, prefix_len),
            });
        }
        let (role, mode, sandbox, prefix_len) = classify(text).ok_or(KeyError::Unrecognised)?;
        Ok(Self {
            text: text.to_string(),
            prefix_len,
            kind: KeyKind {
                role,
                mode,
                sandbox,
            },
        })
    }

    /// [`ApiKey::parse`] plus tieout's policy: a full secret live key is refused unless
    /// the user passed `--allow-secret-key`.
    pub fn validate(text: &str, allow_secret_key: bool) -> Result<Self, KeyError> {
        let key = Self::parse(text)?;
        if key.kind.role == KeyRole::Secret && key.kind.mode == Mode::Live && !allow_secret_key {
            return Err(KeyError::SecretLive {
                masked: key.masked(),
            });
        }
        Ok(key)
    }

    /// The key as it may be shown: `rk_test_...abcd`.
    pub fn masked(&self) -> String {
        mask(&self.text, self.prefix_len)
    }

    pub fn kind(&self) -> KeyKind {
        self.kind
    }

    /// Live or test, from the prefix.
    pub fn mode(&self) -> Mode {
        self.kind.mode
    }

    /// The full key. Only for the `Authorization` header and the keychain; never print,
    /// log or store it anywhere else.
    pub fn expose(&self) -> &str {
        &self.text
    }

    /// Replaces every occurrence of this key in `text` with its masked form.
    pub fn scrub(&self, text: &str) -> String {
        if text.contains(&self.text) {
            text.replace(&self.text, &self.masked())
        } else {
            text.to_string()
        }
    }
}

/// Masks anything in `text` that looks like a Stripe secret, restricted or publishable
/// key, so a message quoted from elsewhere can be shown safely.
pub fn scrub_keys(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if !word.is_empty() {
            let masked = classify(word)
                .map(|(_, _, _, p)| mask(word, p))
                .or_else(|| {
                    (word.starts_with("pk_live_") || word.starts_with("pk_test_"))
                        .then(|| mask(word, 8))
                });
            out.push_str(masked.as_deref().unwrap_or(word));
            word.clear();
        }
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const RK_TEST: &str = "rk_test_51AbCdEfGhIjKlMnOpQrStUvWxYz0123abcd";

    #[test]
    fn restricted_test_key_is_recognised_and_masked() {
        let key = ApiKey::validate(RK_TEST, false).expect("valid");
        assert_eq!(key.masked(), "rk_test_...abcd");
        assert_eq!(key.mode(), Mode::Test);
        assert_eq!(key.kind().role, KeyRole::Restricted);
        assert!(!key.kind().sandbox);
        assert_eq!(key.kind().to_string(), "restricted test key");
        assert_eq!(key.expose(), RK_TEST);
    }

    #[test]
    fn debug_never_shows_the_key() {
        let key = ApiKey::parse(RK_TEST).expect("valid");
        let debug = format!("{key:?}");
        assert_eq!(debug, "ApiKey(rk_test_...abcd)");
        assert!(!debug.contains("51AbCdEf"));
        let nested = format!("{:?}", Some(vec![key]));
        assert!(!nested.contains("51AbCdEf"));
    }

    #[test]
    fn kinds_and_modes_from_prefixes() {
        let cases = [
            (
                concat!("rk_live", "_0123456789abcdef"),
                KeyRole::Restricted,
                Mode::Live,
                false,
            ),
            (
                "sk_test_0123456789abcdef",
                KeyRole::Secret,
                Mode::Test,
                false,
            ),
            (
                concat!("sk_live", "_0123456789abcdef"),
                KeyRole::Secret,
                Mode::Live,
                false,
            ),
            (
                "rkcs_test_0123456789abcdef",
                KeyRole::Restricted,
                Mode::Test,
                true,
            ),
            (
                "skcs_test_0123456789abcdef",
                KeyRole::Secret,
                Mode::Test,
                true,
            ),
        ];
        for (text, role, mode, sandbox) in cases {
            let key = ApiKey::parse(text).expect(text);
            assert_eq!(key.kind().role, role, "{text}");
            assert_eq!(key.mode(), mode, "{text}");
            assert_eq!(key.kind().sandbox, sandbox, "{text}");
        }
        let sandbox = ApiKey::parse("rkcs_test_0123456789abcdef").expect("sandbox");
        assert_eq!(sandbox.masked(), "rkcs_test_...cdef");
    }

    #[test]
    fn whitespace_around_a_pasted_key_is_ignored() {
        let key = ApiKey::parse(&format!("  {RK_TEST}\n")).expect("valid");
        assert_eq!(key.expose(), RK_TEST);
    }

    #[test]
    fn publishable_keys_are_refused_with_the_reason() {
        let err = ApiKey::validate("pk_test_0123456789abcdefgh", true).expect_err("refused");
        assert!(matches!(err, KeyError::Publishable { .. }));
        let msg = err.to_string();
        assert!(msg.contains("publishable"), "{msg}");
        assert!(msg.contains("cannot read"), "{msg}");
        assert!(msg.contains("pk_test_...efgh"), "{msg}");
        assert!(!msg.contains("0123456789"), "{msg}");
    }

    #[test]
    fn secret_live_keys_need_the_flag() {
        let text = concat!("sk_live", "_0123456789abcdefWXYZ");
        let err = ApiKey::validate(text, false).expect_err("refused");
        let msg = err.to_string();
        assert!(msg.contains("--allow-secret-key"), "{msg}");
        assert!(msg.contains("restricted key"), "{msg}");
        assert!(!msg.contains("0123456789"), "{msg}");
        let key = ApiKey::validate(text, true).expect("allowed with the flag");
        assert_eq!(key.kind().role, KeyRole::Secret);
        // A secret test key is fine without the flag.
        ApiKey::validate("sk_test_0123456789abcdef", false).expect("test secret ok");
    }

    #[test]
    fn unrecognised_texts_are_refused() {
        for text in [
            "",
            "   ",
            "hello",
            "rk_prod_0123456789",
            "xk_test_0123456789",
            "rk_test_",
            "rk_test_ab",
            "rk_test_abc def123",
            "rk_test_abc-def123",
            "rkabcdef_test_0123456789",
        ] {
            assert!(ApiKey::parse(text).is_err(), "{text:?} should be refused");
        }
        assert_eq!(ApiKey::parse(""), Err(KeyError::Empty));
        assert_eq!(ApiKey::parse("hello"), Err(KeyError::Unrecognised));
    }

    #[test]
    fn short_keys_do_not_reveal_their_tail() {
        let key = ApiKey::parse("rk_test_abcdef").expect("short but valid");
        assert_eq!(key.masked(), "rk_test_...");
    }

    #[test]
    fn scrub_masks_keys_in_free_text() {
        let msg = format!(
            "Invalid API Key provided: {RK_TEST}. Also {}.",
            concat!("sk_live", "_0123456789abcdefgh")
        );
        let out = scrub_keys(&msg);
        assert!(!out.contains("51AbCdEf"), "{out}");
        assert!(out.contains("rk_test_...abcd"), "{out}");
        assert!(out.contains("sk_live_...efgh"), "{out}");
        assert!(out.contains("Invalid API Key provided"), "{out}");
        // Stripe's own masked form and ordinary words are left alone.
        let stripe = "The provided key 'rk_test_***...qs8Kgd' lacks rak_payout_read";
        assert_eq!(scrub_keys(stripe), stripe);
        let key = ApiKey::parse(RK_TEST).expect("valid");
        assert_eq!(key.scrub(&format!("x{RK_TEST}x")), "xrk_test_...abcdx");
    }
}
