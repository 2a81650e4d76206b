//! `tieout close`: writes the month-end close packet (every export of the month, a README
//! for its reader and a manifest of checksums) or verifies one.
//!
//! The packet is deterministic: the same data and `--now` give byte-identical files (no
//! wall-clock time or unordered maps inside). It is staged in a temporary folder and moved
//! into place, so a failure leaves no half packet; an existing packet is replaced only with
//! `--force`. With `--bank FILE…` the packet also holds `bank-match.csv` and the Bank
//! sections of the reconciliation files and the README.

use std::path::Path;

use super::{BankArgs, CmdResult, Ctx, Failure};
use crate::app::close::{self, CloseRequest};
use crate::app::load::{Need, load};
use crate::time::Month;

pub fn run(
    ctx: &Ctx,
    month: Option<Month>,
    out: Option<&Path>,
    verify: Option<&Path>,
    force: bool,
    bank: &BankArgs,
) -> CmdResult {
    if let Some(dir) = verify {
        if !bank.files.is_empty() {
            return Err(Failure::usage(
                "--bank goes with --month and --out (the packet records the match); --verify only checks a packet",
            ));
        }
        return verify_packet(dir);
    }
    let month = month.ok_or_else(|| Failure::usage("--month YYYY-MM is required"))?;
    let out = out.ok_or_else(|| Failure::usage("--out DIR is required"))?;
    // A malformed statement stops the run before Stripe is asked.
    let statements = crate::app::bank::read_statements(&bank.statements())?;
    let accounts = super::journal::read_map(None)?;
    let data = load(&ctx.request(), Need::Close(month))?;
    let req = CloseRequest {
        month,
        data: &data,
        now: ctx.now,
        tz: &ctx.tz,
        accounts: &accounts,
        bank: statements.as_deref(),
    };
    let written = close::write(&req, out, force, &mut |_| {}).map_err(close::failure)?;
    for line in written.summary {
        println!("{line}");
    }
    println!("wrote close packet {}", out.display());
    Ok(())
}

/// `--verify DIR --against-stripe`: the packet must be intact, then its month is read
/// again and every late change listed; exit 5 when anything changed, 0 when nothing did.
pub fn against_stripe(ctx: &Ctx, dir: &Path) -> CmdResult {
    verify_packet(dir)?;
    let accounts = super::journal::read_map(None)?;
    let d = crate::app::drift::against_stripe(&ctx.request(), dir, &accounts)?;
    if d.rows.is_empty() {
        println!(
            "no change since the packet was sealed: {} reads the same now",
            d.sealed.month
        );
        return Ok(());
    }
    for r in &d.rows {
        let amount = r
            .amount
            .map(|a| {
                format!(
                    " ({} {})",
                    tieout_core::money::format_major_i128(a, r.currency),
                    r.currency.upper()
                )
            })
            .unwrap_or_default();
        let was = if r.sealed_value.is_empty() {
            "none"
        } else {
            r.sealed_value.as_str()
        };
        println!(
            "{:<11} {} {}: {was} -> {}{amount}",
            r.kind, r.object_id, r.what_changed, r.now_value
        );
    }
    for path in &d.written {
        println!("wrote {}", path.display());
    }
    let entries = d.rows.iter().filter(|r| r.entry.is_some()).count();
    Err(Failure::data(format!(
        "{} changed since its close packet was sealed: {} change{}, {entries} adjusting entr{} proposed for the open month (review them before booking)",
        d.sealed.month,
        d.rows.len(),
        if d.rows.len() == 1 { "" } else { "s" },
        if entries == 1 { "y" } else { "ies" },
    )))
}

fn verify_packet(dir: &Path) -> CmdResult {
    let v = close::verify(dir)?;
    let manifest = &v.manifest;
    println!(
        "close packet {} ({} {}, {} files listed)",
        dir.display(),
        manifest.account_id,
        manifest.month,
        manifest.files.len()
    );
    for name in &v.changed {
        println!("changed   {name}");
    }
    for name in &v.missing {
        println!("missing   {name}");
    }
    for name in &v.unlisted {
        println!("unlisted  {name}");
    }
    for (name, why) in &v.refused {
        println!("refused   {name}: {why}");
    }
    if v.is_intact() {
        println!("intact: every file matches its size and SHA-256 in MANIFEST.json");
        Ok(())
    } else {
        Err(Failure::data(format!(
            "the packet at {} does not match its manifest: {} changed, {} missing, {} not listed, {} refused",
            dir.display(),
            v.changed.len(),
            v.missing.len(),
            v.unlisted.len(),
            v.refused.len()
        )))
    }
}
