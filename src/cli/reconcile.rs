//! `tieout reconcile --month`: the payout tie-out of a month as CSV, Markdown and JSON.
//!
//! Loads what the month needs, ties every payout out, writes the chosen files atomically
//! (never replacing a different earlier file without `--force`), prints a short summary
//! and the paths written, and exits 5 when any payout does not tie out (the files are
//! still written, so the difference can be looked at).
//!
//! With `--bank FILE…` the month's payouts are also matched to the statements' lines:
//! `bank-match.csv` is written, the Markdown and JSON gain a Bank section, and a payout
//! that should have arrived but has no deposit, or a match to review, also exits 5.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::{BankArgs, CmdResult, Ctx, Failure, Formats, OutArgs};
use crate::bank::csv::CsvProfile;
use crate::bank::{BankLine, BankMatch, read_statement};
use crate::domain::tieout::{EMPTY_MONTH, MonthTieOut, tie_out_month};
use crate::money::format_major;
use crate::report::reconciliation::{ReportHeader, render};
use crate::source::AccountData;
use crate::time::{Month, zone_name};

pub fn run(ctx: &Ctx, month: Month, out: &OutArgs, bank: &BankArgs) -> CmdResult {
    let formats = Formats::parse(&out.format)?;
    // The statements are read first, so a malformed one stops the run before Stripe is asked.
    let statements = read_statements(bank)?;
    let data = match statements {
        // The bank leg matches the weeks around the month too.
        Some(_) => crate::app::load::load_month_with_margin(
            &ctx.request(),
            month,
            crate::bank::month::NEIGHBOURS,
        )?,
        None => load(ctx, month)?,
    };
    let dir = out.out.clone().unwrap_or_else(|| PathBuf::from("."));
    run_on(
        ctx,
        month,
        &data,
        &dir,
        formats,
        out.force,
        statements.as_deref(),
    )
}

/// The user's bank CSV profiles: `[profiles.NAME]` tables in `bank.toml` in the config
/// folder, if the file exists.
fn user_profiles() -> Result<std::collections::BTreeMap<String, CsvProfile>, Failure> {
    #[derive(serde::Deserialize)]
    struct BankConfig {
        #[serde(default)]
        profiles: std::collections::BTreeMap<String, CsvProfile>,
    }
    let Some(path) = crate::app::config_dir().map(|d| d.join("bank.toml")) else {
        return Ok(Default::default());
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Default::default()),
        Err(e) => return Err(Failure::usage(format!("{}: {e}", path.display()))),
    };
    let config: BankConfig =
        toml::from_str(&text).map_err(|e| Failure::usage(format!("{}: {e}", path.display())))?;
    Ok(config.profiles)
}

/// Reads every `--bank` file into lines; `None` when no statement was given.
pub fn read_statements(bank: &BankArgs) -> Result<Option<Vec<BankLine>>, Failure> {
    if bank.files.is_empty() {
        return Ok(None);
    }
    let profile = CsvProfile::named(&bank.bank_profile, &user_profiles()?)
        .map_err(|e| Failure::usage(format!("--bank-profile: {e}")))?;
    let mut lines = Vec::new();
    for path in &bank.files {
        let bytes = std::fs::read(path)
            .map_err(|e| Failure::usage(format!("--bank {}: {e}", path.display())))?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        lines.extend(read_statement(&name, &bytes, &profile)?);
    }
    Ok(Some(lines))
}

/// Matches the month's payouts to the statements' lines, as of the run's clock
/// ([`crate::bank::match_month`]).
pub fn match_bank(
    ctx: &Ctx,
    tieout: &MonthTieOut,
    all: &[crate::model::rows::PayoutRow],
    lines: &[BankLine],
) -> BankMatch {
    crate::bank::match_month(tieout, all, lines, ctx.now)
}

/// The data the month needs, from wherever `--demo`/`--cached`/the key say.
fn load(ctx: &Ctx, month: Month) -> Result<AccountData, Failure> {
    crate::app::load::load(&ctx.request(), crate::app::load::Need::Month(month))
}

/// Ties the month out on `data`, writes the files into `dir`, prints the summary.
pub fn run_on(
    ctx: &Ctx,
    month: Month,
    data: &AccountData,
    dir: &Path,
    formats: Formats,
    force: bool,
    statements: Option<&[BankLine]>,
) -> CmdResult {
    let tieout = tie_out_month(&data.payouts, &data.balance_transactions, month, &ctx.tz);
    let header = ReportHeader::from_meta(&data.meta, &zone_name(&ctx.tz));
    let bank = statements.map(|lines| match_bank(ctx, &tieout, &data.payouts, lines));
    let written = write_files(&tieout, &header, dir, formats, force, bank.as_ref())?;
    println!("{}", summary(&tieout, &zone_name(&ctx.tz)));
    if let Some(m) = &bank {
        println!("bank: {}", crate::report::bank::counts_line(m));
    }
    for (path, changed) in &written {
        if *changed {
            println!("wrote {}", path.display());
        } else {
            println!("unchanged {} (same content)", path.display());
        }
    }
    match (verdict(&tieout), bank.as_ref().map(bank_verdict)) {
        (Err(a), Some(Err(b))) => Err(Failure::data(format!("{} {}", a.message, b.message))),
        (Err(a), _) => Err(a),
        (Ok(()), Some(b)) => b,
        (Ok(()), None) => Ok(()),
    }
}

/// Exit 5 when a due payout has no deposit or a match needs review, naming them.
pub fn bank_verdict(m: &BankMatch) -> CmdResult {
    let bad: Vec<String> = m
        .attention()
        .map(|p| format!("{} ({})", p.payout.id, p.status.as_str()))
        .collect();
    if bad.is_empty() {
        return Ok(());
    }
    Err(Failure::data(format!(
        "{} payout{} need{} a look on the bank side: {}. See bank-match.csv.",
        bad.len(),
        if bad.len() == 1 { "" } else { "s" },
        if bad.len() == 1 { "s" } else { "" },
        bad.join(", ")
    )))
}

/// Renders and writes the files; refuses before writing anything if one would replace a
/// different file without `force`. Returns each path and whether it changed. With a bank
/// match, `bank-match.csv` is added and the Markdown and JSON gain their Bank section.
pub fn write_files(
    tieout: &MonthTieOut,
    header: &ReportHeader,
    dir: &Path,
    formats: Formats,
    force: bool,
    bank: Option<&BankMatch>,
) -> Result<Vec<(PathBuf, bool)>, Failure> {
    use crate::report::bank::{BANK_MATCH_FILE, add_bank_section, bank_match_csv};
    let mut files = render(tieout, header, formats);
    if let Some(m) = bank {
        add_bank_section(&mut files, m);
        files.push((BANK_MATCH_FILE, bank_match_csv(m)));
    }
    super::write_exports(dir, &files, force)
}

/// The short summary printed before the paths: counts, then one line per currency.
pub fn summary(t: &MonthTieOut, zone: &str) -> String {
    let mut s = String::new();
    if t.is_empty() {
        let _ = write!(s, "{} ({zone}): {EMPTY_MONTH}", t.month);
        return s;
    }
    let c = &t.counts;
    let _ = write!(
        s,
        "{} ({zone}): {} payout{}: {} tied out, {} with a difference, {} not itemisable, {} in progress, {} failed or canceled",
        t.month,
        c.payouts,
        if c.payouts == 1 { "" } else { "s" },
        c.tied,
        c.differences,
        c.not_itemisable,
        c.in_progress,
        c.failed_or_canceled
    );
    if c.reversed > 0 {
        let _ = write!(s, ", {} reversed", c.reversed);
    }
    for x in &t.totals {
        let n = &x.counts;
        let mut parts = Vec::new();
        for (count, label) in [
            (n.tied, "tied out"),
            (n.differences, "with a difference"),
            (n.not_itemisable, "not itemisable"),
            (n.in_progress, "in progress"),
            (n.failed_or_canceled, "failed or canceled"),
            (n.reversed, "reversed"),
        ] {
            if count > 0 {
                parts.push(format!("{count} {label}"));
            }
        }
        let _ = write!(
            s,
            "\n  {}: {} payout{}, {} in all: {}; itemised {}, lines' net {}",
            x.currency,
            n.payouts,
            if n.payouts == 1 { "" } else { "s" },
            format_major(x.payouts_amount, x.currency),
            parts.join(", "),
            format_major(x.itemised_amount, x.currency),
            format_major(x.lines_net, x.currency),
        );
        if x.difference != 0 {
            let _ = write!(s, ", difference {}", format_major(x.difference, x.currency));
        }
    }
    s
}

/// Exit 5 when any payout does not tie out, naming them.
pub fn verdict(t: &MonthTieOut) -> CmdResult {
    let bad: Vec<String> = t
        .differences()
        .map(|p| {
            let d = p.difference().unwrap_or(0);
            if d == 0 {
                format!("{} (a line failed a check)", p.payout.id)
            } else {
                format!(
                    "{} (difference {} {})",
                    p.payout.id,
                    format_major(d, p.currency()),
                    p.currency()
                )
            }
        })
        .collect();
    if bad.is_empty() {
        return Ok(());
    }
    Err(Failure::data(format!(
        "{} payout{} of {} do{} not tie out: {}. The files were written; see the notes in reconciliation.md.",
        bad.len(),
        if bad.len() == 1 { "" } else { "s" },
        t.month,
        if bad.len() == 1 { "es" } else { "" },
        bad.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::ExitStatus;
    use crate::domain::tieout::testdata::sample_month;

    #[test]
    fn a_difference_exits_5_and_names_the_payout() {
        let t = sample_month();
        let f = verdict(&t).expect_err("po_short does not tie out");
        assert_eq!(f.kind.code(), 5);
        assert_eq!(
            f.message,
            "1 payout of 2026-10 does not tie out: po_short (difference -54.65 USD). The files were written; see the notes in reconciliation.md."
        );
    }

    #[test]
    fn the_summary_counts_per_currency() {
        let s = summary(&sample_month(), "UTC");
        assert_eq!(
            s,
            "2026-10 (UTC): 6 payouts: 2 tied out, 1 with a difference, 1 not itemisable, 1 in progress, 1 failed or canceled\n  JPY: 1 payout, 4860 in all: 1 tied out; itemised 4860, lines' net 4860\n  USD: 5 payouts, 1272.44 in all: 1 tied out, 1 with a difference, 1 not itemisable, 1 in progress, 1 failed or canceled; itemised 1078.99, lines' net 1024.34, difference -54.65"
        );
    }

    #[test]
    fn the_summary_names_a_reversed_payout_only_when_there_is_one() {
        use crate::domain::tieout::testdata::{month, reversal_rows};
        let (payouts, txns) = reversal_rows();
        let t = crate::domain::tieout::tie_out_month(
            &payouts,
            &txns,
            month("2026-10"),
            &jiff::tz::TimeZone::UTC,
        );
        let s = summary(&t, "UTC");
        assert_eq!(
            s,
            "2026-10 (UTC): 2 payouts: 0 tied out, 0 with a difference, 1 not itemisable, 0 in progress, 0 failed or canceled, 1 reversed\n  USD: 2 payouts, 0.00 in all: 1 not itemisable, 1 reversed; itemised 90.00, lines' net 90.00"
        );
        assert!(verdict(&t).is_ok(), "a reversal is not a difference");
        assert!(!summary(&sample_month(), "UTC").contains("reversed"));
    }
}
