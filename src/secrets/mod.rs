//! API keys: their kinds (live/test, restricted/secret), masking, and the OS keychain.
