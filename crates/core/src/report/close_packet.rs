//! What goes into the month-end close packet, and exporting it: the one code path behind
//! `tieout close` and the TUI's "export close packet". [`build`] computes every file from
//! the account's rows (the month's tie-out, the dunning list as of `now`, the month's
//! refunds and disputes, the Stripe balance's roll-forward, activity, fees and
//! conversions, the README) and the manifest; exporting builds and writes the
//! folder atomically through [`packet::write_packet_with`], reporting each step.
//!
//! Deterministic: the same data, month, `now` and time zone give byte-identical files.

use std::collections::BTreeMap;
use std::path::PathBuf;

use jiff::tz::TimeZone;

use super::close_journal::packet_journal;
use super::close_readme::{PacketFacts, readme};
use super::packet::{self, Manifest, PacketError, Step};
use super::reconciliation::{self, ReportHeader};
use super::{dunning as dunning_report, month_lines};
use crate::domain::dunning;
use crate::domain::tieout::{tie_out_after, tie_out_month};
use crate::journal::AccountMap;
use crate::model::AccountData;
use crate::report::Formats;
use crate::time::{Month, date_in, iso_utc};

/// What a packet is made of: the month, the data, the clock and the time zone (its name
/// as the reports show it), and the account map its journal is booked with (whose
/// `[close]` section names the journal's formats).
#[derive(Debug, Clone, Copy)]
pub struct PacketSpec<'a> {
    pub month: Month,
    pub data: &'a AccountData,
    pub now: i64,
    pub tz: &'a TimeZone,
    pub zone: &'a str,
    pub accounts: &'a AccountMap,
    /// The bank statements' lines, when the packet includes the bank leg.
    pub bank: Option<&'a [crate::bank::BankLine]>,
}

/// A packet ready to write: every file but the manifest, the manifest, and a summary.
pub struct BuiltPacket {
    pub files: BTreeMap<String, Vec<u8>>,
    pub manifest: Manifest,
    pub summary: Vec<String>,
}

/// A packet written to disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exported {
    pub dir: PathBuf,
    pub manifest: Manifest,
    pub summary: Vec<String>,
}

/// Every file of the packet (without the manifest), the manifest, and a short summary.
pub fn build(spec: &PacketSpec<'_>) -> Result<BuiltPacket, PacketError> {
    build_with(spec, &mut |_| {})
}

/// [`build`], reporting each part as it is computed.
pub fn build_with(
    spec: &PacketSpec<'_>,
    progress: &mut dyn FnMut(Step),
) -> Result<BuiltPacket, PacketError> {
    let PacketSpec {
        month,
        data,
        now,
        tz,
        zone,
        accounts,
        bank,
    } = *spec;
    covers(data, month, tz)?;
    let header = ReportHeader::from_meta(&data.meta, zone);
    progress(Step::Building(format!("the tie-out of {month}")));
    let tieout = tie_out_month(&data.payouts, &data.balance_transactions, month, tz);
    progress(Step::Building(format!(
        "the dunning list as of {}",
        iso_utc(now)
    )));
    let worklist = dunning::build(data, now).map_err(|e| PacketError::Data(e.to_string()))?;
    let range = (tieout.start, tieout.end);

    progress(Step::Building("the reports".to_string()));
    let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let all = Formats {
        md: true,
        csv: true,
        json: true,
    };
    let mut recon = reconciliation::render(&tieout, &header, all);
    let bank = bank.map(|lines| {
        progress(Step::Building("the bank match".to_string()));
        crate::bank::match_month(&tieout, &data.payouts, lines, now)
    });
    if let Some(m) = &bank {
        crate::report::bank::add_bank_section(&mut recon, m);
        recon.push((
            crate::report::bank::BANK_MATCH_FILE,
            crate::report::bank::bank_match_csv(m),
        ));
    }
    for (name, bytes) in recon {
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
    progress(Step::Building(format!(
        "the balance roll-forward of {month}"
    )));
    let balance = super::balance::build(data, month, tz);
    for (name, bytes) in super::balance::files(&balance, all) {
        files.insert(name.to_string(), bytes);
    }
    let facts = PacketFacts {
        header: &header,
        api_version: &data.meta.api_version,
        tieout_version: env!("CARGO_PKG_VERSION"),
        as_of: now,
        refunds: refunds_in_month,
        disputes: disputes_in_month,
        bank: bank.as_ref(),
        balance: &balance,
    };
    progress(Step::Building(format!("the journal of {month}")));
    let later = tie_out_after(&data.payouts, &data.balance_transactions, month, tz);
    let tie = crate::journal::balance_tie::BalanceTieInput::of(data, &balance.rollforward);
    let journal = packet_journal(&tieout, &later, accounts, Some(&tie), tz)?;
    for (name, bytes) in journal.files {
        files.insert(name, bytes);
    }
    let mut text = readme(&facts, &tieout, &worklist);
    text.push('\n');
    text.push_str(journal.readme.trim_end());
    text.push('\n');
    files.insert("README.md".to_string(), text.into_bytes());

    let manifest = Manifest {
        packet: "tieout close packet".to_string(),
        month: month.to_string(),
        time_zone: zone.to_string(),
        account_id: data.meta.account_id.clone(),
        mode: data.meta.mode.as_str().to_string(),
        origin: data.meta.origin.as_str().to_string(),
        api_version: data.meta.api_version.clone(),
        tieout_version: env!("CARGO_PKG_VERSION").to_string(),
        data_read_at_utc: iso_utc(data.meta.fetched_at),
        files: packet::entries(&files),
        seal: String::new(),
    }
    .sealed();
    let c = tieout.counts;
    let mut summary = vec![
        format!(
            "{month}: {} payouts, {} tied, {} differences, {} not itemisable, {} in progress, {} failed or canceled{}",
            c.payouts,
            c.tied,
            c.differences,
            c.not_itemisable,
            c.in_progress,
            c.failed_or_canceled,
            if c.reversed > 0 {
                format!(", {} reversed", c.reversed)
            } else {
                String::new()
            }
        ),
        format!(
            "worklist as of {}: {} invoices; {refunds_in_month} refunds and {disputes_in_month} disputes in the month",
            iso_utc(now),
            worklist.rows.len()
        ),
        journal.summary,
    ];
    if let Some(m) = &bank {
        summary.push(format!("bank: {}", crate::report::bank::counts_line(m)));
    }
    summary.push(super::balance::packet_line(&balance));
    Ok(BuiltPacket {
        files,
        manifest,
        summary,
    })
}

/// Refuses a month the data was not read for: its packet would silently miss payouts
/// (e.g. a month before the three a fresh read covers, chosen in the TUI's selector).
fn covers(data: &AccountData, month: Month, tz: &TimeZone) -> Result<(), PacketError> {
    let (have_start, have_end) = (data.meta.window_start, data.meta.window_end);
    let (start, end) = month.range(tz);
    if have_end <= have_start || (start >= have_start && end <= have_end) {
        return Ok(());
    }
    Err(PacketError::Data(format!(
        "the data on hand holds the payouts arriving {} to {}, which does not cover {month}, so its close packet would be incomplete; choose a month inside it, or close it from Stripe (`tieout close --month {month}` without `--demo` or `--cached` reads the month it needs)",
        date_in(have_start, tz),
        date_in((have_end - 1).max(have_start), tz),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AccountData, Origin};

    #[test]
    fn a_month_outside_the_data_read_is_refused_with_the_window() {
        let mut data = AccountData::empty(crate::model::SnapshotMeta {
            account_id: "acct_1SampleTieout".into(),
            account_name: Some("Sample Roasters Ltd".into()),
            mode: crate::model::Mode::Test,
            origin: Origin::Demo,
            api_version: "2026-07-29.dahlia".into(),
            fetched_at: 1_796_040_000 - 3 * 3600,
            window_start: 0,
            window_end: 0,
            default_currency: None,
            payment_methods: Default::default(),
            settled_invoices_since: None,
            balance: None,
            lines_complete: false,
            lines_since: None,
            fraud_warnings: Default::default(),
        });
        let (s, _) = "2026-09"
            .parse::<Month>()
            .expect("month")
            .range(&TimeZone::UTC);
        let (_, e) = "2026-11"
            .parse::<Month>()
            .expect("month")
            .range(&TimeZone::UTC);
        data.meta.window_start = s;
        data.meta.window_end = e;
        let accounts = AccountMap::default_map().expect("map");
        let spec = |m: &str| {
            let month: Month = m.parse().expect("month");
            build(&PacketSpec {
                month,
                data: &data,
                now: data.meta.fetched_at,
                tz: &TimeZone::UTC,
                zone: "UTC",
                accounts: &accounts,
                bank: None,
            })
        };
        assert!(spec("2026-09").is_ok());
        assert!(spec("2026-11").is_ok());
        let err = spec("2026-06").err().expect("refused").to_string();
        assert!(
            err.starts_with("the data on hand holds the payouts arriving 2026-09-01 to 2026-11-30, which does not cover 2026-06"),
            "{err}"
        );
        assert!(spec("2026-12").is_err());
    }
}
