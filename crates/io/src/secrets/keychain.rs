//! The OS keychain: one entry per profile (service `tieout`, account = profile name).
//!
//! Each system's own store, through the keyring-core 0.7 family of stores:
//! - Linux: the Secret Service (GNOME Keyring, KeePassXC, ...) through
//!   `zbus-secret-service-keyring-store`; when no Secret Service answers, the kernel keyring
//!   (`linux-keyutils-keyring-store`) is the fallback, which keeps the key in memory only: it
//!   is lost at reboot, and [`Keychain::fallback_note`] says so.
//! - macOS: the login keychain (`apple-native-keyring-store`, its `keychain` module).
//! - Windows: the Credential Manager (`windows-native-keyring-store`; the entry's target
//!   name is `<profile>.tieout`).
//!
//! Only the constructor in [`Keychain::open`] differs per system; naming, error mapping,
//! advice and the fallback note are shared and tested here with keyring-core's mock store.
//!
//! Every keychain call runs on a plain thread of its own, never on an async runtime's
//! thread: the Secret Service client blocks on its own executor, and must not be created
//! inside a tokio runtime.

use std::sync::Arc;

use keyring_core::{CredentialStore, Error as KrError, api::CredentialStoreApi};

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
    /// The macOS login keychain (persistent).
    MacKeychain,
    /// The Windows Credential Manager (persistent).
    WindowsCredentials,
    /// A store handed in by the caller (tests use keyring-core's mock store).
    Custom,
}

impl Backend {
    pub fn describe(self) -> &'static str {
        match self {
            Backend::SecretService => "OS keychain (Secret Service)",
            Backend::KernelKeyring => "kernel keyring (in memory, lost at reboot)",
            Backend::MacKeychain => "OS keychain (macOS Keychain)",
            Backend::WindowsCredentials => "OS keychain (Windows Credential Manager)",
            Backend::Custom => "keychain",
        }
    }

    /// The persistent store this build uses first, if the platform has one.
    pub fn native() -> Option<Backend> {
        if cfg!(target_os = "linux") {
            Some(Backend::SecretService)
        } else if cfg!(target_os = "macos") {
            Some(Backend::MacKeychain)
        } else if cfg!(target_os = "windows") {
            Some(Backend::WindowsCredentials)
        } else {
            None
        }
    }

    /// What to do when no store of this kind can be reached at all.
    fn setup_advice(backend: Option<Backend>) -> &'static str {
        match backend {
            Some(Backend::SecretService | Backend::KernelKeyring) => {
                "start a Secret Service (GNOME Keyring, KeePassXC) and run `tieout login` again, \
                 or set STRIPE_API_KEY for this shell"
            }
            Some(Backend::MacKeychain) => {
                "log in to macOS as yourself (the login keychain belongs to the desktop session) \
                 and run `tieout login` again, or set STRIPE_API_KEY for this shell"
            }
            Some(Backend::WindowsCredentials) => {
                "sign in to Windows as yourself (the Credential Manager belongs to the user's \
                 logon session) and run `tieout login` again, or set STRIPE_API_KEY for this shell"
            }
            Some(Backend::Custom) | None => {
                "this system has no keychain tieout can use: set STRIPE_API_KEY for this shell \
                 (from a file only you can read, mode 0600)"
            }
        }
    }

    /// What to do when the store answers but refuses access (locked, no session).
    fn unlock_advice(self) -> &'static str {
        match self {
            Backend::KernelKeyring => {
                "no Secret Service is running and the kernel keyring is not usable here \
                 (containers often block it): set STRIPE_API_KEY for this shell, or start \
                 a Secret Service (GNOME Keyring, KeePassXC) and run `tieout login` again"
            }
            Backend::MacKeychain => {
                "unlock the login keychain (Keychain Access, or `security unlock-keychain`) and \
                 allow tieout when macOS asks, then try again, or set STRIPE_API_KEY for this shell"
            }
            Backend::WindowsCredentials => {
                "the Credential Manager needs an interactive Windows logon session (not a service \
                 account): sign in as yourself and try again, or set STRIPE_API_KEY for this shell"
            }
            Backend::SecretService | Backend::Custom => {
                "unlock it (log in to the desktop, or `gnome-keyring-daemon --unlock`) \
                 and try again, or set STRIPE_API_KEY for this shell"
            }
        }
    }
}

/// A keychain operation failed. Messages say what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeychainError {
    #[error(
        "no OS keychain is available ({detail}): {advice}",
        advice = Backend::setup_advice(Backend::native())
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

    /// The keychain over a store a platform constructor made (or could not make).
    fn opened<S>(made: Result<Arc<S>, KrError>, backend: Backend) -> Result<Self, KeychainError>
    where
        S: CredentialStoreApi + Send + Sync + 'static,
    {
        match made {
            Ok(store) => Ok(Self { store, backend }),
            Err(e) => Err(KeychainError::Unavailable {
                detail: format!("{}: {}", backend.describe(), detail(&e)),
            }),
        }
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
                Self::opened(
                    linux_keyutils_keyring_store::Store::new(),
                    Backend::KernelKeyring,
                )
                .map_err(|e| match e {
                    KeychainError::Unavailable { detail } => KeychainError::Unavailable {
                        detail: format!("Secret Service: {why}; {detail}"),
                    },
                    other => other,
                })
            }
        }
    }

    /// The login keychain, as in apple-native-keyring-store's `instantiation` example.
    #[cfg(target_os = "macos")]
    fn open_here() -> Result<Self, KeychainError> {
        Self::opened(
            apple_native_keyring_store::keychain::Store::new(),
            Backend::MacKeychain,
        )
    }

    /// The Credential Manager, as in windows-native-keyring-store's examples.
    #[cfg(target_os = "windows")]
    fn open_here() -> Result<Self, KeychainError> {
        Self::opened(
            windows_native_keyring_store::Store::new(),
            Backend::WindowsCredentials,
        )
    }

    #[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "windows")))]
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
                advice: self.backend.unlock_advice(),
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

    const ALL: [Backend; 5] = [
        Backend::SecretService,
        Backend::KernelKeyring,
        Backend::MacKeychain,
        Backend::WindowsCredentials,
        Backend::Custom,
    ];

    fn on(backend: Backend) -> Keychain {
        Keychain {
            store: keyring_core::mock::Store::new().expect("mock"),
            backend,
        }
    }

    /// The naming every platform's store gets: service `tieout`, account = the profile.
    #[test]
    fn the_entry_is_service_tieout_and_account_profile() {
        let kc = mock();
        let key = ApiKey::parse("rk_test_0123456789abcdefWXYZ").expect("key");
        kc.save("Büro Köln", &key).expect("save");
        let found = kc
            .store
            .search(&std::collections::HashMap::from([("service", SERVICE)]))
            .expect("search");
        let names: Vec<_> = found.iter().filter_map(|e| e.get_specifiers()).collect();
        assert_eq!(names, [("tieout".to_string(), "Büro Köln".to_string())]);
        assert_eq!(
            kc.load("Büro Köln").expect("load").as_deref(),
            Some(key.expose())
        );
    }

    /// A store error never shows a stored value (it may be a key).
    #[test]
    fn errors_mask_what_the_store_held() {
        let kc = mock();
        let entry = kc.store.build(SERVICE, "p", None).expect("entry");
        let cred: &keyring_core::mock::Cred = entry.as_any().downcast_ref().expect("mock cred");
        cred.set_error(KrError::BadEncoding(
            concat!("rk_live", "_secretBytes0000WXYZ")
                .as_bytes()
                .to_vec(),
        ));
        let err = kc.load("p").expect_err("bad encoding");
        let msg = err.to_string();
        assert!(matches!(err, KeychainError::Entry { .. }), "{err:?}");
        assert!(!msg.contains("secretBytes"), "{msg}");
        assert!(msg.contains("tieout logout --profile p"), "{msg}");
    }

    /// Each store says in its own words how to get at it, and always offers the override.
    #[test]
    fn a_refused_store_is_reported_with_that_systems_remedy() {
        let words = [
            (Backend::SecretService, "gnome-keyring-daemon"),
            (Backend::KernelKeyring, "containers"),
            (Backend::MacKeychain, "security unlock-keychain"),
            (Backend::WindowsCredentials, "logon session"),
            (Backend::Custom, "unlock it"),
        ];
        for (backend, word) in words {
            let kc = on(backend);
            let entry = kc.store.build(SERVICE, "p", None).expect("entry");
            let cred: &keyring_core::mock::Cred = entry.as_any().downcast_ref().expect("mock cred");
            cred.set_error(KrError::NoStorageAccess("denied".into()));
            let err = kc.load("p").expect_err("refused");
            let msg = err.to_string();
            assert!(matches!(err, KeychainError::Locked { .. }), "{err:?}");
            assert!(msg.contains(backend.describe()), "{msg}");
            assert!(msg.contains(word), "{backend:?}: {msg}");
            assert!(msg.contains("STRIPE_API_KEY"), "{backend:?}: {msg}");
        }
    }

    #[test]
    fn every_platform_has_setup_advice_with_the_override() {
        for backend in ALL.map(Some).into_iter().chain([None]) {
            let advice = Backend::setup_advice(backend);
            assert!(advice.contains("STRIPE_API_KEY"), "{backend:?}: {advice}");
        }
        assert!(Backend::setup_advice(None).contains("0600"));
        assert!(Backend::setup_advice(Some(Backend::MacKeychain)).contains("macOS"));
        assert!(Backend::setup_advice(Some(Backend::WindowsCredentials)).contains("Windows"));
        // This build's message names this build's store.
        let err = KeychainError::Unavailable {
            detail: "no session".into(),
        };
        assert!(
            err.to_string()
                .ends_with(Backend::setup_advice(Backend::native())),
            "{err}"
        );
    }

    /// What every platform constructor goes through: a store that could not be made is
    /// "unavailable", named, with what to do; a made store is used as it is.
    #[test]
    fn a_store_that_cannot_be_made_is_unavailable() {
        for backend in ALL {
            let made: Result<Arc<keyring_core::mock::Store>, KrError> =
                Err(KrError::PlatformFailure("no session bus".into()));
            let err = Keychain::opened(made, backend).expect_err("not made");
            let msg = err.to_string();
            assert!(matches!(err, KeychainError::Unavailable { .. }), "{err:?}");
            assert!(msg.contains(backend.describe()), "{msg}");
            assert!(msg.contains("no session bus"), "{msg}");
            assert!(msg.contains("STRIPE_API_KEY"), "{msg}");
            let kc = Keychain::opened(keyring_core::mock::Store::new(), backend).expect("made");
            assert_eq!(kc.backend(), backend);
            assert_eq!(kc.load("p").expect("empty"), None);
        }
    }

    #[test]
    fn only_the_kernel_keyring_needs_a_fallback_note() {
        for backend in ALL {
            assert_eq!(
                on(backend).fallback_note().is_some(),
                backend == Backend::KernelKeyring,
                "{backend:?}"
            );
        }
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
