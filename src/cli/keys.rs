//! `tieout login` and `tieout logout`: store, verify and delete the key in the OS keychain.
//!
//! `login` reads the key from a hidden prompt on the terminal, or from stdin when stdin
//! is not a terminal (`printf %s "$KEY" | tieout login`); never from an argument (it would
//! show in the process list). It refuses what tieout must not use (publishable keys, full
//! secret live keys without `--allow-secret-key`), verifies the key with a cheap read,
//! reports the account and mode, and stores the key only after that.

use std::io::{IsTerminal, Read, Write};

use super::{CmdResult, Ctx, FailKind, Failure};
use crate::app::verify_key;
use crate::secrets::{ApiKey, ENV_KEY, Keychain, KeychainError};
use crate::stripe::permissions;

/// Writes a line of output; a closed stdout is a failure of its own.
pub(crate) fn say(out: &mut dyn Write, line: impl AsRef<str>) -> Result<(), Failure> {
    writeln!(out, "{}", line.as_ref())
        .map_err(|e| Failure::other(format!("could not write the output: {e}")))
}

/// Reads the key: hidden prompt on a terminal, else the first non-empty line of stdin.
fn read_key_text() -> Result<String, Failure> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        eprintln!(
            "Paste a restricted key (rk_live_... or rk_test_...) from the Stripe Dashboard, \
             Developers > API keys. The input is hidden."
        );
        rpassword::prompt_password("Stripe key: ").map_err(|e| {
            Failure::other(format!(
                "could not read the key from the terminal ({e}); pipe it on stdin instead: \
                 printf %s \"$KEY\" | tieout login"
            ))
        })
    } else {
        let mut text = String::new();
        stdin
            .lock()
            .take(64 * 1024)
            .read_to_string(&mut text)
            .map_err(|e| Failure::other(format!("could not read the key from stdin ({e})")))?;
        Ok(text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("")
            .to_string())
    }
}

pub fn login(ctx: &Ctx) -> CmdResult {
    if ctx.global.demo {
        return Err(Failure::usage(
            "the demo account needs no key: run `tieout demo`, or `tieout login` without --demo \
             to store a key for your own account",
        ));
    }
    let text = read_key_text()?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    login_with(ctx, &text, Keychain::open, &mut out)
}

/// `login` with the key text, the keychain and the output handed in (tests).
pub fn login_with(
    ctx: &Ctx,
    key_text: &str,
    open_keychain: impl FnOnce() -> Result<Keychain, KeychainError>,
    out: &mut dyn Write,
) -> CmdResult {
    let key = ApiKey::validate(key_text, ctx.global.allow_secret_key)?;
    let profile = &ctx.global.profile;
    let info = verify_key(&ctx.request(), &key).map_err(|e| {
        let mut failure = Failure::from(e);
        failure.message = format!("the key was not stored: {}", failure.message);
        failure
    })?;
    if let Some(reported) = info.reported_mode
        && reported != key.mode()
    {
        return Err(Failure::new(
            FailKind::Key,
            format!(
                "the key was not stored: it looks like a {} key but Stripe answered in {} mode; \
                 copy the key again from the Dashboard",
                key.mode().as_str(),
                reported.as_str()
            ),
        ));
    }
    let not_stored = |e: KeychainError| {
        Failure::new(
            FailKind::Key,
            format!(
                "the key works (account {}, {} mode) but was not stored: {e}",
                info.describe(),
                key.mode().as_str()
            ),
        )
    };
    let keychain = open_keychain().map_err(not_stored)?;
    keychain.save(profile, &key).map_err(not_stored)?;

    say(
        out,
        format!(
            "Stored the {} {} for profile '{profile}' in the {}.",
            key.kind(),
            key.masked(),
            keychain.backend().describe()
        ),
    )?;
    if let Some(note) = keychain.fallback_note() {
        say(out, format!("Note: {note}."))?;
    }
    say(out, format!("Account: {}", info.describe()))?;
    say(out, format!("Mode:    {}", key.mode().as_str()))?;
    if let Some(note) = &info.note {
        say(out, format!("Note: {note}."))?;
    }
    if key.kind().role == crate::secrets::KeyRole::Secret {
        say(
            out,
            "Note: this is a full secret key; a restricted key with only the read permissions \
             below is safer.",
        )?;
    }
    say(out, "")?;
    say(
        out,
        "tieout reads with these permissions (Dashboard > Developers > API keys > your \
         restricted key, each set to Read):",
    )?;
    for line in permissions::needed_lines() {
        say(out, line)?;
    }
    if std::env::var_os(ENV_KEY).is_some_and(|v| !v.is_empty()) {
        say(
            out,
            format!(
                "\nNote: {ENV_KEY} is set in this shell and takes precedence over the stored key."
            ),
        )?;
    }
    Ok(())
}

pub fn logout(ctx: &Ctx) -> CmdResult {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    logout_with(ctx, Keychain::open, &mut out)
}

/// `logout` with the keychain and output handed in (tests).
pub fn logout_with(
    ctx: &Ctx,
    open_keychain: impl FnOnce() -> Result<Keychain, KeychainError>,
    out: &mut dyn Write,
) -> CmdResult {
    let profile = &ctx.global.profile;
    let keychain = open_keychain()?;
    if keychain.delete(profile)? {
        say(
            out,
            format!(
                "Deleted the stored key of profile '{profile}' from the {}.",
                keychain.backend().describe()
            ),
        )?;
    } else {
        say(
            out,
            format!("No key was stored for profile '{profile}'; nothing to delete."),
        )?;
    }
    if std::env::var_os(ENV_KEY).is_some_and(|v| !v.is_empty()) {
        say(
            out,
            format!("Note: {ENV_KEY} is still set in this shell and still provides a key."),
        )?;
    }
    Ok(())
}
