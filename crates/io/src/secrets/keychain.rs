//! The OS keychain: one entry per profile (service `tieout`, account = profile name).
//!
//! On Linux the Secret Service (GNOME Keyring, KeePassXC, ...) is used through
//! `zbus-secret-service-keyring-store`; when no Secret Service answers, the kernel keyring
//! (`linux-keyutils-keyring-store`) is the fallback, which keeps the key in memory only: it
//! is lost at reboot, and [`Keychain::fallback_note`] says so.
//!
//! Every keychain call runs on a plain thread of its own, never on an async runtime's
//! thread: the Secret Service client blocks on its own executor, and must not be created
//! inside a tokio runtime.

use std::sync::Arc;

use keyring_core::{CredentialStore, Error as KrError};

use super::key::ApiKey;

/// The keychain service name every entry is stored under.
pub const SERVICE: &str = "tieout";

/// Which store holds the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// The desktop Secret Service (persistent).
    SecretService,
    /// The Linux kernel keyring: in memory only, lost at reboot.
    KernelKeyring,
    /// A store handed in by the caller (tests use keyring-core's mock store).
    Custom,
}

impl Backend {
    pub fn describe(self) -> &'static str {
        match self {
            Backend::SecretService => "OS keychain (Secret Service)",
            Backend::KernelKeyring => "kernel keyring (in memory, lost at reboot)",
            Backend::Custom => "keychain",
        }
    }
}

/// A keychain operation failed. Messages say what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeychainError {
    #[error(
        "no OS keychain is available ({detail}): start a Secret Service (GNOME Keyring, \
         KeePassXC) and run `tieout login` again, or set STRIPE_API_KEY for this shell"
    )]
    Unavailable { detail: String },
    #[error("the {store} refused access ({detail}): {advice}")]
    Locked {
        store: &'static str,
        detail: String,
        advice: &'static str,
    },
    #[error(
        "the keychain entry for profile '{profile}' could not be used ({detail}): run `tieout logout --profile {profile}` and `tieout login --profile {profile}` to store it again"
    )]
    Entry { profile: String, detail: String },
}

/// The key store, opened once per command.
pub struct Keychain {
    store: Arc<CredentialStore>,
    backend: Backend,
}

impl std::fmt::Debug for Keychain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keychain")
            .field("backend", &self.backend)
            .finish()
    }
}

/// Runs `f` on a plain thread (not an async runtime's) and waits for it.
fn on_plain_thread<T: Send>(f: impl FnOnce() -> T + Send) -> Option<T> {
    std::thread::scope(|s| s.spawn(f).join().ok())
}

fn detail(err: &KrError) -> String {
    // keyring errors never carry the secret itself except BadEncoding/BadDataFormat,
    // whose bytes we must not show.
    match err {
        KrError::BadEncoding(_) => "the stored value is not text".to_string(),
        KrError::BadDataFormat(_, _) => "the stored value is not in the expected format".into(),
        other => other.to_string(),
    }
}

impl Keychain {
    /// Opens the platform keychain: the Secret Service, else (Linux) the kernel keyring.
    pub fn open() -> Result<Self, KeychainError> {
        on_plain_thread(Self::open_here).unwrap_or_else(|| {
            Err(KeychainError::Unavailable {
                detail: "the keychain client crashed".into(),
            })
        })
    }

    #[cfg(target_os = "linux")]
    fn open_here() -> Result<Self, KeychainError> {
        let secret_service = match zbus_secret_service_keyring_store::Store::new() {
            Ok(store) => {
                let store: Arc<CredentialStore> = store;
                // Probe: a lookup that finds nothing proves the service answers.
                match store
                    .build(SERVICE, "__tieout_probe__", None)
                    .and_then(|e| e.get_password())
                {
                    Ok(_) | Err(KrError::NoEntry) => Ok(store),
                    Err(e) => Err(detail(&e)),
                }
            }
            Err(e) => Err(detail(&e)),
        };
        match secret_service {
            Ok(store) => Ok(Self {
                store,
                backend: Backend::SecretService,
            }),
            Err(why) => {
                tracing::info!("Secret Service unavailable ({why}); using the kernel keyring");
                match linux_keyutils_keyring_store::Store::new() {
                    Ok(store) => Ok(Self {
                        store,
                        backend: Backend::KernelKeyring,
                    }),
                    Err(e) => Err(KeychainError::Unavailable {
                        detail: format!("Secret Service: {why}; kernel keyring: {}", detail(&e)),
                    }),
                }
            }
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn open_here() -> Result<Self, KeychainError> {
        Err(KeychainError::Unavailable {
            detail: "this build has no keychain support for this platform".into(),
        })
    }

    /// Wraps a given store (tests: `keyring_core::mock::Store::new()`).
    pub fn with_store(store: Arc<CredentialStore>) -> Self {
        Self {
            store,
            backend: Backend::Custom,
        }
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Set when the key can only be kept until the next reboot; show it to the user.
    pub fn fallback_note(&self) -> Option<&'static str> {
        match self.backend {
            Backend::KernelKeyring => Some(
                "no Secret Service (GNOME Keyring, KeePassXC) is running, so the key is kept \
                 in the kernel keyring: in memory only, lost at the next reboot (run `tieout \
                 login` again then, or set STRIPE_API_KEY)",
            ),
            _ => None,
        }
    }

    fn map_err(&self, profile: &str, err: KrError) -> KeychainError {
        match err {
            KrError::NoStorageAccess(_) => KeychainError::Locked {
                store: self.backend.describe(),
                detail: detail(&err),
                advice: match self.backend {
                    Backend::KernelKeyring => {
                        "no Secret Service is running and the kernel keyring is not usable here \
                         (containers often block it): set STRIPE_API_KEY for this shell, or start \
                         a Secret Service (GNOME Keyring, KeePassXC) and run `tieout login` again"
                    }
                    _ => {
                        "unlock it (log in to the desktop, or `gnome-keyring-daemon --unlock`) \
                         and try again, or set STRIPE_API_KEY for this shell"
                    }
                },
            },
            KrError::PlatformFailure(_) | KrError::NoDefaultStore => KeychainError::Unavailable {
                detail: detail(&err),
            },
            other => KeychainError::Entry {
                profile: profile.to_string(),
                detail: detail(&other),
            },
        }
    }

    fn crashed() -> KeychainError {
        KeychainError::Unavailable {
            detail: "the keychain client crashed".into(),
        }
    }

    /// The stored key text of `profile`, or None when there is no entry.
    pub fn load(&self, profile: &str) -> Result<Option<String>, KeychainError> {
        let store = &self.store;
        on_plain_thread(|| {
            match store
                .build(SERVICE, profile, None)
                .and_then(|e| e.get_password())
            {
                Ok(text) => Ok(Some(text)),
                Err(KrError::NoEntry) => Ok(None),
                Err(e) => Err(self.map_err(profile, e)),
            }
        })
        .unwrap_or_else(|| Err(Self::crashed()))
    }

    /// Stores (or replaces) the key of `profile`.
    pub fn save(&self, profile: &str, key: &ApiKey) -> Result<(), KeychainError> {
        let store = &self.store;
        on_plain_thread(|| {
            store
                .build(SERVICE, profile, None)
                .and_then(|e| e.set_password(key.expose()))
                .map_err(|e| self.map_err(profile, e))
        })
        .unwrap_or_else(|| Err(Self::crashed()))
    }

    /// Deletes the key of `profile`; false when there was none.
    pub fn delete(&self, profile: &str) -> Result<bool, KeychainError> {
        let store = &self.store;
        on_plain_thread(|| {
            match store
                .build(SERVICE, profile, None)
                .and_then(|e| e.delete_credential())
            {
                Ok(()) => Ok(true),
                Err(KrError::NoEntry) => Ok(false),
                Err(e) => Err(self.map_err(profile, e)),
            }
        })
        .unwrap_or_else(|| Err(Self::crashed()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mock() -> Keychain {
        let store = keyring_core::mock::Store::new().expect("mock store");
        Keychain::with_store(store)
    }

    #[test]
    fn save_load_delete_round_trip() {
        let kc = mock();
        let key = ApiKey::parse("rk_test_0123456789abcdefWXYZ").expect("key");
        assert_eq!(kc.load("default").expect("load"), None);
        kc.save("default", &key).expect("save");
        assert_eq!(
            kc.load("default").expect("load").as_deref(),
            Some(key.expose())
        );
        // Profiles are separate entries.
        assert_eq!(kc.load("other").expect("load"), None);
        assert!(kc.delete("default").expect("delete"));
        assert!(!kc.delete("default").expect("second delete finds nothing"));
        assert_eq!(kc.load("default").expect("load"), None);
    }

    #[test]
    fn saving_again_replaces_the_key() {
        let kc = mock();
        let a = ApiKey::parse("rk_test_aaaaaaaaaaaaaaaa").expect("key");
        let b = ApiKey::parse("rk_test_bbbbbbbbbbbbbbbb").expect("key");
        kc.save("p", &a).expect("save a");
        kc.save("p", &b).expect("save b");
        assert_eq!(kc.load("p").expect("load").as_deref(), Some(b.expose()));
    }

    #[test]
    fn a_locked_store_is_reported_with_what_to_do() {
        let kc = mock();
        let entry = kc.store.build(SERVICE, "default", None).expect("entry");
        let cred: &keyring_core::mock::Cred = entry.as_any().downcast_ref().expect("mock cred");
        cred.set_error(KrError::NoStorageAccess("collection is locked".into()));
        let err = kc.load("default").expect_err("locked");
        assert!(matches!(err, KeychainError::Locked { .. }), "{err:?}");
        assert!(err.to_string().contains("STRIPE_API_KEY"), "{err}");
    }

    #[test]
    fn the_kernel_keyring_fallback_says_it_is_lost_at_reboot() {
        let kc = Keychain {
            store: keyring_core::mock::Store::new().expect("mock"),
            backend: Backend::KernelKeyring,
        };
        let note = kc.fallback_note().expect("a note");
        assert!(note.contains("reboot"), "{note}");
        assert!(mock().fallback_note().is_none());
    }
}
