//! API keys: their kinds (live/test, restricted/secret), masking, and the OS keychain.
//!
//! The key is never printed, logged, cached or exported: [`ApiKey`] has no `Display`, its
//! `Debug` is masked, and only [`ApiKey::expose`] (for the HTTP header and the keychain)
//! gives the full text. [`resolve_key`] finds the key for a command: env `STRIPE_API_KEY`
//! first (cron, CI), then the keychain entry of the profile.

pub mod key;
pub mod keychain;

pub use key::{ApiKey, KeyError, KeyKind, KeyRole, scrub_keys};
pub use keychain::{Backend, Keychain, KeychainError, SERVICE};

use tieout_core::failure::{FailKind, Failure};

/// The environment variable that overrides the keychain.
pub const ENV_KEY: &str = "STRIPE_API_KEY";

/// Where the key of a run came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeySource {
    /// The `STRIPE_API_KEY` environment variable.
    Env,
    /// The keychain entry of the profile.
    Keychain(Backend),
}

impl KeySource {
    pub fn describe(&self) -> String {
        match self {
            KeySource::Env => format!("environment ({ENV_KEY})"),
            KeySource::Keychain(b) => b.describe().to_string(),
        }
    }
}

/// Why no usable key was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    #[error(
        "no Stripe key for profile '{profile}': run `tieout login` to store a restricted \
         read-only key, or `tieout demo` to look around the demo account without one"
    )]
    NoKey { profile: String },
    #[error("the key in {ENV_KEY} was refused: {0}")]
    Env(KeyError),
    #[error("the key stored for profile '{profile}' was refused: {error}")]
    Stored { profile: String, error: KeyError },
    #[error(transparent)]
    Keychain(KeychainError),
}

impl From<ResolveError> for Failure {
    fn from(e: ResolveError) -> Self {
        Failure::new(FailKind::Key, e.to_string())
    }
}

impl From<KeychainError> for Failure {
    fn from(e: KeychainError) -> Self {
        Failure::new(FailKind::Key, e.to_string())
    }
}

impl From<KeyError> for Failure {
    fn from(e: KeyError) -> Self {
        Failure::new(FailKind::Key, e.to_string())
    }
}

/// The key for `profile`: env `STRIPE_API_KEY` when set (and not empty), else the
/// keychain. Call it outside async code or from `spawn_blocking` (it may block on the
/// keychain; the keychain work itself runs on a plain thread).
pub fn resolve_key(
    profile: &str,
    allow_secret_key: bool,
) -> Result<(ApiKey, KeySource), ResolveError> {
    let env = std::env::var(ENV_KEY).ok();
    resolve_key_with(env.as_deref(), Keychain::open, profile, allow_secret_key)
}

/// [`resolve_key`] with the environment value and the keychain handed in (for tests).
/// The keychain is opened only when the environment has no key.
pub fn resolve_key_with(
    env_value: Option<&str>,
    open_keychain: impl FnOnce() -> Result<Keychain, KeychainError>,
    profile: &str,
    allow_secret_key: bool,
) -> Result<(ApiKey, KeySource), ResolveError> {
    if let Some(text) = env_value.filter(|t| !t.trim().is_empty()) {
        let key = ApiKey::validate(text, allow_secret_key).map_err(ResolveError::Env)?;
        return Ok((key, KeySource::Env));
    }
    let keychain = open_keychain().map_err(ResolveError::Keychain)?;
    match keychain.load(profile).map_err(ResolveError::Keychain)? {
        Some(text) => {
            let key = ApiKey::validate(&text, allow_secret_key).map_err(|error| {
                ResolveError::Stored {
                    profile: profile.to_string(),
                    error,
                }
            })?;
            Ok((key, KeySource::Keychain(keychain.backend())))
        }
        None => Err(ResolveError::NoKey {
            profile: profile.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "rk_test_0123456789abcdefWXYZ";

    fn mock_with(profile: &str, text: Option<&str>) -> Keychain {
        let kc = Keychain::with_store(keyring_core::mock::Store::new().expect("mock"));
        if let Some(text) = text {
            let key = ApiKey::parse(text).expect("test key");
            kc.save(profile, &key).expect("save");
        }
        kc
    }

    #[test]
    fn env_wins_and_the_keychain_is_not_opened() {
        let (key, source) = resolve_key_with(
            Some(KEY),
            || panic!("the keychain must not be opened"),
            "default",
            false,
        )
        .expect("env key");
        assert_eq!(source, KeySource::Env);
        assert_eq!(key.expose(), KEY);
        assert!(source.describe().contains("STRIPE_API_KEY"));
    }

    #[test]
    fn empty_env_falls_through_to_the_keychain() {
        let (key, source) = resolve_key_with(
            Some("  "),
            || Ok(mock_with("work", Some(KEY))),
            "work",
            false,
        )
        .expect("keychain key");
        assert_eq!(key.masked(), "rk_test_...WXYZ");
        assert_eq!(source, KeySource::Keychain(Backend::Custom));
    }

    #[test]
    fn no_key_anywhere_tells_what_to_run() {
        let err = resolve_key_with(None, || Ok(mock_with("x", None)), "default", false)
            .expect_err("none");
        let msg = err.to_string();
        assert!(msg.contains("tieout login"), "{msg}");
        assert!(msg.contains("tieout demo"), "{msg}");
        assert_eq!(Failure::from(err).kind, FailKind::Key);
    }

    #[test]
    fn refused_env_key_names_the_variable_and_hides_the_key() {
        let err = resolve_key_with(
            Some(concat!("sk_live", "_0123456789abcdefWXYZ")),
            || panic!("not opened"),
            "default",
            false,
        )
        .expect_err("refused");
        let msg = err.to_string();
        assert!(msg.contains("STRIPE_API_KEY"), "{msg}");
        assert!(msg.contains("--allow-secret-key"), "{msg}");
        assert!(!msg.contains("0123456789"), "{msg}");
        resolve_key_with(
            Some(concat!("sk_live", "_0123456789abcdefWXYZ")),
            || panic!("not opened"),
            "default",
            true,
        )
        .expect("allowed with the flag");
    }

    #[test]
    fn keychain_failure_is_a_key_failure() {
        let err = resolve_key_with(
            None,
            || {
                Err(KeychainError::Unavailable {
                    detail: "no dbus".into(),
                })
            },
            "default",
            false,
        )
        .expect_err("unavailable");
        assert!(err.to_string().contains("STRIPE_API_KEY"));
        assert_eq!(Failure::from(err).kind, FailKind::Key);
    }

    /// Runs against the real OS keychain when `TIEOUT_REAL_KEYCHAIN=1` (CI starts
    /// gnome-keyring under dbus-run-session and sets it); otherwise says it was skipped.
    #[test]
    fn real_keychain_round_trip() {
        if std::env::var("TIEOUT_REAL_KEYCHAIN").as_deref() != Ok("1") {
            eprintln!("skipped: real keychain test (set TIEOUT_REAL_KEYCHAIN=1 to run it)");
            return;
        }
        let kc = Keychain::open().expect("the real keychain opens");
        assert_eq!(
            kc.backend(),
            Backend::SecretService,
            "TIEOUT_REAL_KEYCHAIN=1 promises a running Secret Service"
        );
        let profile = format!("tieout-test-{}", std::process::id());
        let key = ApiKey::parse("rk_test_realKeychainTest0000WXYZ").expect("key");
        kc.save(&profile, &key).expect("save");
        let (found, source) =
            resolve_key_with(None, Keychain::open, &profile, false).expect("resolve");
        assert_eq!(found.expose(), key.expose());
        assert_eq!(source, KeySource::Keychain(kc.backend()));
        assert!(kc.delete(&profile).expect("delete"));
        assert!(!kc.delete(&profile).expect("nothing left"));
        assert_eq!(kc.load(&profile).expect("load"), None);
    }
}
