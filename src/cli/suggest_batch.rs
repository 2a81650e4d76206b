//! `tieout suggest --tickets FILE --approve T-1,T-2 [--approver NAME]` and
//! `tieout suggest --fraud-warnings --approve issfr_1,issfr_2 [--approver NAME]` and
//! `tieout suggest --confirm HASH`: a batch of refunds previewed, then carried out (README,
//! "Approving several refunds at once"). The preview decides the tickets, lists each
//! refund with its checks, the total per currency, the hash and the expiry, records the
//! proposal in the audit log and keeps the batch in `<data dir>/batches/<hash>.json`; the
//! confirmation names that hash and runs the batch through the gate, test mode only.

use std::path::PathBuf;

use crate::app::refund_batch::items_for;
use crate::app::refund_exec::{GateSession, session};
use crate::app::suggest::assess_all;
use crate::domain::refund_batch::{Batch, BatchItem};
use crate::domain::refunds::{Policy, Ticket};
use crate::failure::FailKind;
use crate::model::AccountData;
use crate::money::format_major;

use super::{CmdResult, Ctx, Failure, SuggestArgs};

fn gate(ctx: &Ctx) -> Result<GateSession, Failure> {
    session(&ctx.request(), ctx.global.now.is_some().then_some(ctx.now)).map_err(|e| {
        Failure::new(
            FailKind::Key,
            format!("refunds need a test-mode key (sk_test_/rk_test_): {e}"),
        )
    })
}

fn batch_path(hash: &str) -> Result<PathBuf, Failure> {
    let short: String = hash.trim().to_ascii_lowercase().chars().take(16).collect();
    if short.len() < 16 || !short.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(Failure::usage(format!(
            "--confirm needs the batch's hash as the preview printed it (16 or more hex digits), not '{hash}'"
        )));
    }
    let root = crate::source::cache::data_root().map_err(|e| Failure::data(e.to_string()))?;
    Ok(root.join("batches").join(format!("{short}.json")))
}

/// The ids `--approve` names, trimmed.
pub fn approve_keys(keys: &[String]) -> Vec<String> {
    keys.iter().map(|k| k.trim().to_string()).collect()
}

/// The preview of the tickets `keys` names: decides them, then [`preview`].
pub fn preview_tickets(
    ctx: &Ctx,
    args: &SuggestArgs,
    data: &AccountData,
    tickets: &[Ticket],
    policy: &Policy,
    keys: &[String],
) -> CmdResult {
    let keys = approve_keys(keys);
    if let Some(w) = keys.iter().find(|k| k.starts_with("issfr_")) {
        return Err(Failure::usage(format!(
            "{w} is an early fraud warning: approve warnings with --fraud-warnings --approve {w} (a batch holds tickets or warnings)"
        )));
    }
    let assessed = assess_all(
        data,
        ctx.global.stripe_account.as_deref(),
        tickets,
        policy,
        ctx.now,
        &ctx.tz,
    );
    let items = items_for(&assessed, &keys).map_err(Failure::usage)?;
    preview(ctx, args, items)
}

/// The preview of `items`: prints it, records it, keeps it for `--confirm`.
pub fn preview(ctx: &Ctx, args: &SuggestArgs, items: Vec<BatchItem>) -> CmdResult {
    let g = gate(ctx)?;
    let approval = &g.gate.policy.approval;
    let signoff = approval
        .signoff(args.approver.as_deref(), &g.gate.user)
        .map_err(|r| Failure::usage(format!("--approver: {}", r.reason)))?;
    let now = g.clock();
    let b = Batch::new(items, signoff, now, approval.batch_expiry_minutes);
    let mut spent = std::collections::BTreeMap::new();
    for c in b.totals().keys() {
        let s = g
            .gate
            .spent_today(*c, now)
            .map_err(|e| Failure::data(e.to_string()))?;
        spent.insert(*c, s);
    }
    let checks = b.checks(&g.gate.policy, &spent);
    println!(
        "Batch {}: {} refund(s), approved by {}, expires {} ({} min)",
        b.short_digest(),
        b.items.len(),
        b.signoff.label(),
        crate::time::iso_utc(b.expires_at),
        (b.expires_at - b.created_at) / 60
    );
    let mut failing = Vec::new();
    for (item, checks) in b.items.iter().zip(&checks) {
        let p = &item.proposal;
        let marks: Vec<String> = checks
            .iter()
            .map(|c| {
                if c.passed {
                    format!("ok {}", c.name)
                } else {
                    format!("REFUSED {}: {}", c.name, c.says)
                }
            })
            .collect();
        if checks.iter().any(|c| !c.passed) {
            failing.push(item.source.id().to_string());
        }
        println!(
            "  {:<10} {} on {} rule {}  [{}]",
            item.source.id(),
            p.amount_display(),
            p.charge,
            p.rule,
            marks.join(", ")
        );
    }
    let totals: Vec<String> = b
        .totals()
        .into_iter()
        .map(|(c, m)| format!("{} {}", format_major(m, c), c.upper()))
        .collect();
    println!("Total: {}", totals.join(", "));
    if !failing.is_empty() {
        return Err(Failure::usage(format!(
            "not sendable: {} fail(s) a check; leave it out of --approve (or ask a higher tier) and preview again",
            failing.join(", ")
        )));
    }
    g.batch_opened(&b).map_err(Failure::data)?;
    let path = batch_path(&b.digest())?;
    let bytes = serde_json::to_vec_pretty(&b).map_err(|e| Failure::data(e.to_string()))?;
    crate::files::write_atomic(&path, &bytes, true)
        .map_err(|e| Failure::data(format!("could not keep the batch preview: {e}")))?;
    println!(
        "Kept in {}. To carry it out (test mode only) before it expires: tieout suggest --confirm {}",
        path.display(),
        b.short_digest()
    );
    Ok(())
}

/// The confirmation: runs the kept batch through the gate and prints the report.
pub fn confirm(ctx: &Ctx, args: &SuggestArgs, hash: &str) -> CmdResult {
    let path = batch_path(hash)?;
    let text = std::fs::read(&path).map_err(|e| {
        Failure::usage(format!(
            "no batch preview {} ({e}): preview it with --tickets FILE --approve … (or --fraud-warnings --approve …)",
            path.display()
        ))
    })?;
    let b: Batch = serde_json::from_slice(&text)
        .map_err(|e| Failure::data(format!("{} is not a batch preview: {e}", path.display())))?;
    if let Some(name) = args.approver.as_deref()
        && !name.trim().eq_ignore_ascii_case(&b.signoff.approver)
    {
        return Err(Failure::usage(format!(
            "the batch was previewed for {} to approve, not {name}: preview it again as {name}",
            b.signoff.label()
        )));
    }
    let g = gate(ctx)?;
    let report = g.execute_batch_blocking(&b, hash).map_err(Failure::data)?;
    for line in report.lines() {
        println!("{line}");
    }
    if let Some(r) = &report.refused {
        return Err(Failure::usage(format!("batch refused: {r}")));
    }
    if !report.complete() {
        return Err(Failure::new(
            FailKind::Stripe,
            format!(
                "the batch stopped part-way: {} of {} done (listed above)",
                report.done(),
                report.items.len()
            ),
        ));
    }
    Ok(())
}

/// With `--explain`: the note of every refund the audit log shows for these tickets.
pub fn print_notes(tickets: &[Ticket]) {
    let Ok(log) = crate::app::audit::AuditLog::default_location() else {
        return;
    };
    let Ok(entries) = log.read() else {
        return;
    };
    for t in tickets {
        let Some(id) = t.ticket_id.as_deref() else {
            continue;
        };
        for note in crate::app::refund_batch::notes_for(&entries, id) {
            eprintln!("tieout: {id}: {note}");
        }
    }
}
