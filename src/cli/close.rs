//! `tieout close`: writes the month-end close packet (every export of the month, a README
//! for its reader and a manifest of checksums) or verifies one.
//!
//! The packet is deterministic: the same data and `--now` give byte-identical files (no
//! wall-clock time or unordered maps inside). It is staged in a temporary folder and moved
//! into place, so a failure leaves no half packet; an existing packet is replaced only with
//! `--force`.

use std::collections::BTreeMap;
use std::path::Path;

use super::reconcile::zone_name;
use super::{CmdResult, Ctx, Failure, Formats};
use crate::domain::dunning;
use crate::domain::tieout::tie_out_month;
use crate::report::close_readme::{PacketFacts, readme};
use crate::report::packet::{self, Manifest};
use crate::report::reconciliation::{self, ReportHeader};
use crate::report::{dunning as dunning_report, month_lines};
use crate::source::AccountData;
use crate::source::load::{Need, load};
use crate::time::{Month, iso_utc};

pub fn run(
    ctx: &Ctx,
    month: Option<&str>,
    out: Option<&Path>,
    verify: Option<&Path>,
    force: bool,
) -> CmdResult {
    if let Some(dir) = verify {
        return verify_packet(dir);
    }
    let month: Month = month
        .ok_or_else(|| Failure::usage("--month YYYY-MM is required"))?
        .parse()
        .map_err(|e: crate::time::TimeError| Failure::usage(format!("--month: {e}")))?;
    let out = out.ok_or_else(|| Failure::usage("--out DIR is required"))?;
    let data = load(ctx, Need::All)?;
    let built = build(ctx, month, &data)?;
    packet::write_packet(out, &built.files, &built.manifest, force)
        .map_err(|e| Failure::other(e.to_string()))?;
    for line in built.summary {
        println!("{line}");
    }
    println!("wrote close packet {}", out.display());
    Ok(())
}

/// A packet ready to write: every file but the manifest, the manifest, and a summary.
pub struct BuiltPacket {
    pub files: BTreeMap<String, Vec<u8>>,
    pub manifest: Manifest,
    pub summary: Vec<String>,
}

/// Every file of the packet (without the manifest), the manifest, and a short summary.
pub fn build(ctx: &Ctx, month: Month, data: &AccountData) -> Result<BuiltPacket, Failure> {
    let zone = zone_name(ctx);
    let header = ReportHeader::from_meta(&data.meta, &zone);
    let tieout = tie_out_month(&data.payouts, &data.balance_transactions, month, &ctx.tz);
    let worklist = dunning::build(data, ctx.now).map_err(|e| Failure::data(e.to_string()))?;
    let range = (tieout.start, tieout.end);

    let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let all = Formats {
        md: true,
        csv: true,
        json: true,
    };
    for (name, bytes) in reconciliation::render(&tieout, &header, all) {
        files.insert(name.to_string(), bytes);
    }
    files.insert(
        dunning_report::CSV_NAME.to_string(),
        dunning_report::csv(&worklist),
    );
    files.insert(
        dunning_report::MD_NAME.to_string(),
        dunning_report::markdown(&worklist, &data.meta),
    );
    files.insert(
        dunning_report::JSON_NAME.to_string(),
        dunning_report::json(&worklist, &data.meta),
    );
    let refunds_in_month = data
        .refunds
        .iter()
        .filter(|r| r.created >= range.0 && r.created < range.1)
        .count();
    let disputes_in_month = data
        .disputes
        .iter()
        .filter(|d| d.created >= range.0 && d.created < range.1)
        .count();
    files.insert(
        "refunds.csv".to_string(),
        month_lines::refunds_csv(&data.refunds, &data.charges, range),
    );
    files.insert(
        "disputes.csv".to_string(),
        month_lines::disputes_csv(&data.disputes, &data.charges, range),
    );
    let facts = PacketFacts {
        header: &header,
        api_version: &data.meta.api_version,
        tieout_version: env!("CARGO_PKG_VERSION"),
        as_of: ctx.now,
        refunds: refunds_in_month,
        disputes: disputes_in_month,
    };
    files.insert(
        "README.md".to_string(),
        readme(&facts, &tieout, &worklist).into_bytes(),
    );

    let manifest = Manifest {
        packet: "tieout close packet".to_string(),
        month: month.to_string(),
        time_zone: zone,
        account_id: data.meta.account_id.clone(),
        mode: data.meta.mode.as_str().to_string(),
        origin: data.meta.origin.as_str().to_string(),
        api_version: data.meta.api_version.clone(),
        tieout_version: env!("CARGO_PKG_VERSION").to_string(),
        data_read_at_utc: iso_utc(data.meta.fetched_at),
        files: packet::entries(&files),
    };
    let c = tieout.counts;
    let summary = vec![
        format!(
            "{month}: {} payouts, {} tied, {} differences, {} not itemisable, {} in progress",
            c.payouts, c.tied, c.differences, c.not_itemisable, c.in_progress
        ),
        format!(
            "worklist as of {}: {} invoices; {refunds_in_month} refunds and {disputes_in_month} disputes in the month",
            iso_utc(ctx.now),
            worklist.rows.len()
        ),
    ];
    Ok(BuiltPacket {
        files,
        manifest,
        summary,
    })
}

fn verify_packet(dir: &Path) -> CmdResult {
    let (manifest, v) = packet::verify(dir).map_err(|e| Failure::usage(e.to_string()))?;
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
    if v.is_intact() {
        println!("intact: every file matches its size and SHA-256 in MANIFEST.json");
        Ok(())
    } else {
        Err(Failure::data(format!(
            "the packet at {} does not match its manifest: {} changed, {} missing, {} not listed",
            dir.display(),
            v.changed.len(),
            v.missing.len(),
            v.unlisted.len()
        )))
    }
}
