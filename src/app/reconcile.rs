//! Reconciling a month, for both shells: the payout tie-out of the month, its match to
//! the bank statements when there are any, and the files it is exported as
//! (`reconciliation.csv`/`.md`/`.json`, with `bank-match.csv` and the Bank sections when
//! matched). `tieout reconcile` and the Tie-out tab call the same functions, so what the
//! pane exports is byte for byte what the command writes. Also the summary the command
//! prints and the verdicts that make it exit 5.

use std::fmt::Write as _;

use jiff::tz::TimeZone;

use super::ReadRequest;
use super::load::{Need, load, load_month_with_margin};
use crate::bank::{BankLine, BankMatch};
use crate::domain::tieout::{EMPTY_MONTH, MonthTieOut, tie_out_month};
use crate::failure::Failure;
use crate::model::AccountData;
use crate::model::rows::PayoutRow;
use crate::money::format_major;
use crate::report::Formats;
use crate::report::bank::{BANK_MATCH_FILE, add_bank_section, bank_match_csv};
use crate::report::reconciliation::{ReportHeader, render};
use crate::time::{Month, zone_name};

/// The data reconciling `month` needs: its payouts and their lines, and with bank
/// statements the weeks around it too (a deposit lands days after its payout).
pub fn load_month(
    req: &ReadRequest,
    month: Month,
    with_bank: bool,
) -> Result<AccountData, Failure> {
    if with_bank {
        load_month_with_margin(req, month, crate::bank::month::NEIGHBOURS)
    } else {
        load(req, Need::Month(month))
    }
}

/// The tie-out of the payouts arriving in `month` (in `tz`).
pub fn tie_out<'a>(data: &'a AccountData, month: Month, tz: &TimeZone) -> MonthTieOut<'a> {
    tie_out_month(&data.payouts, &data.balance_transactions, month, tz)
}

/// Matches the month's payouts to the statements' lines, as of `now`
/// ([`crate::bank::match_month`]).
pub fn match_bank(
    tieout: &MonthTieOut,
    all: &[PayoutRow],
    lines: &[BankLine],
    now: i64,
) -> BankMatch {
    crate::bank::match_month(tieout, all, lines, now)
}

/// The month's files as bytes, by name: the chosen formats of the reconciliation, and
/// with a bank match `bank-match.csv` and the Bank sections of the Markdown and JSON.
pub fn files(
    tieout: &MonthTieOut,
    data: &AccountData,
    tz: &TimeZone,
    formats: Formats,
    bank: Option<&BankMatch>,
) -> Vec<(&'static str, Vec<u8>)> {
    let header = ReportHeader::from_meta(&data.meta, &zone_name(tz));
    let mut files = render(tieout, &header, formats);
    if let Some(m) = bank {
        add_bank_section(&mut files, m);
        files.push((BANK_MATCH_FILE, bank_match_csv(m)));
    }
    files
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
pub fn verdict(t: &MonthTieOut) -> Result<(), Failure> {
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

/// Exit 5 when a due payout has no deposit or a match needs review, naming them.
pub fn bank_verdict(m: &BankMatch) -> Result<(), Failure> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::tieout::testdata::sample_month;

    #[test]
    fn a_difference_exits_5_and_names_the_payout() {
        let t = sample_month();
        let f = verdict(&t).expect_err("po_short does not tie out");
        assert_eq!(f.kind, crate::failure::FailKind::Data);
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
