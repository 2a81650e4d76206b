//! `tieout status`: account, mode, masked key, where the key came from, which of the
//! permissions tieout reads with the key has (a table, one cheap read each), cache age.
//!
//! With `--demo`: the bundled demo account, mode test, no key. Otherwise the key is
//! resolved (env `STRIPE_API_KEY`, then the keychain), verified with a cheap read, and the
//! account it reads is named (when the key may read it).

use std::io::Write;

use super::keys::say;
use super::{CmdResult, Ctx, Failure};
use crate::app::verify_key;
use crate::model::{AccountData, Mode, SnapshotMeta};
use crate::secrets::{self, ApiKey, KeySource};
use crate::stripe::DEFAULT_API_BASE;

pub fn run(ctx: &Ctx) -> CmdResult {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if ctx.global.demo {
        let demo = demo_account()?;
        return write_demo(ctx, &demo, &mut out);
    }
    let (key, source) = secrets::resolve_key(&ctx.global.profile, ctx.global.allow_secret_key)?;
    status_with(ctx, &key, source, cache_meta, &mut out)
}

/// The bundled demo account (`source::demo`).
fn demo_account() -> Result<AccountData, Failure> {
    crate::source::demo::load_demo().map_err(|e| Failure::data(e.to_string()))
}

/// The cache manifest of an account (`source::cache`), if it was ever synced.
fn cache_meta(account_id: &str, mode: Mode) -> Result<Option<SnapshotMeta>, String> {
    crate::source::cache::read_manifest(account_id, mode)
        .map(|m| m.map(|m| m.meta()))
        .map_err(|e| e.to_string())
}

/// How long ago `then` was, seen from `now` (`3 h 12 min`).
fn age(then: i64, now: i64) -> String {
    crate::source::cache::describe_age(now - then)
}

fn line(out: &mut dyn Write, label: &str, value: impl AsRef<str>) -> CmdResult {
    say(out, format!("{label:<8} {}", value.as_ref()))
}

/// `status --demo`: the bundled account, no key, no network.
pub fn write_demo(ctx: &Ctx, demo: &AccountData, out: &mut dyn Write) -> CmdResult {
    let meta = &demo.meta;
    let account = match &meta.account_name {
        Some(name) => format!("{} ({name})", meta.account_id),
        None => meta.account_id.clone(),
    };
    line(out, "account", account)?;
    line(out, "mode", Mode::Test.as_str())?;
    line(out, "key", "none (demo)")?;
    line(out, "source", "bundled demo account (no key, no network)")?;
    line(
        out,
        "data",
        format!(
            "generated for {} ({} ago)",
            crate::time::iso_utc(meta.fetched_at),
            age(meta.fetched_at, ctx.now)
        ),
    )?;
    line(
        out,
        "objects",
        format!(
            "{} payouts, {} balance transactions, {} invoices, {} charges, {} customers",
            demo.payouts.len(),
            demo.balance_transactions.len(),
            demo.invoices.len(),
            demo.charges.len(),
            demo.customers.len()
        ),
    )
}

/// `status` for a resolved key, with the cache lookup and output handed in (tests).
/// Prints what it knows about the key even when the account cannot be read, then fails
/// with the read's error (exit 3 for key problems, 4 for Stripe or the network).
pub fn status_with(
    ctx: &Ctx,
    key: &ApiKey,
    source: KeySource,
    cache: impl FnOnce(&str, Mode) -> Result<Option<SnapshotMeta>, String>,
    out: &mut dyn Write,
) -> CmdResult {
    let verified = verify_key(&ctx.request(), key);
    let account = match &verified {
        Ok(info) => info.describe(),
        Err(_) => "could not be read (see below)".to_string(),
    };
    line(out, "profile", &ctx.global.profile)?;
    line(out, "account", account)?;
    line(out, "mode", key.mode().as_str())?;
    line(out, "key", format!("{}, {}", key.kind(), key.masked()))?;
    line(out, "source", source.describe())?;
    if ctx.global.api_base.trim_end_matches('/') != DEFAULT_API_BASE {
        line(out, "api", &ctx.global.api_base)?;
    }
    if let Some(acct) = &ctx.global.stripe_account {
        // A key pasted into --stripe-account by mistake is still not printed.
        line(out, "acting as", crate::secrets::scrub_keys(acct))?;
    }
    // Every permission tieout reads with, one cheap read each (only when Stripe answered:
    // a refused key or an outage would teach nothing).
    if matches!(
        verified,
        Ok(_) | Err(crate::stripe::StripeError::MissingPermission { .. })
    ) {
        match crate::app::permission_check::check(&ctx.request(), key) {
            Ok(checks) => {
                say(out, "permissions (one read of each, limit=1):")?;
                for l in crate::app::permission_check::table(&checks) {
                    say(out, l)?;
                }
            }
            Err(e) => line(out, "perms", format!("could not be checked: {}", e.message))?,
        }
    }
    let info = verified.map_err(Failure::from)?;
    if let Some(note) = &info.note {
        line(out, "note", note)?;
    }
    let cached = match info.id.as_deref() {
        Some(id) => cache(id, key.mode()),
        None => Ok(None),
    };
    let cache_line = match cached {
        Ok(Some(meta)) => format!(
            "synced {} ago ({}), payouts arriving {} .. {}",
            age(meta.fetched_at, ctx.now),
            crate::time::iso_utc(meta.fetched_at),
            crate::time::iso_utc(meta.window_start),
            crate::time::iso_utc(meta.window_end)
        ),
        Ok(None) => "none (run `tieout sync`)".to_string(),
        Err(e) => format!("unreadable ({e}); `tieout sync` writes a fresh one"),
    };
    line(out, "cache", cache_line)
}
