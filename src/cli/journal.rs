//! `tieout journal --month`: the month's payouts as journal entries for the bookkeeper's
//! tool (beancount, hledger, ledger, QuickBooks Online, Xero), booked through a Stripe
//! clearing account with the accounts of the account map; and `tieout init-accounts`,
//! which writes the commented default map into the config folder.
//!
//! Exits 5 when the month does not tie out: the files are still written, with the
//! difference booked to the map's suspense account, and the difference is printed.

use std::path::{Path, PathBuf};

use super::{CmdResult, Ctx, Failure, JournalArgs};
use crate::app::accounts::MapSource;
use crate::app::load::load_month_and_next;
use crate::model::AccountData;
use crate::money::format_major;
use crate::time::Month;
use crate::time::zone_name;
use tieout_core::journal::{AccountMap, DEFAULT_MAP, Format, Journal, Style};

/// Reads the account map (see [`crate::app::accounts::read_map`]); says on stderr when
/// the built-in default is used.
pub fn read_map(explicit: Option<&Path>) -> Result<AccountMap, Failure> {
    let (map, source) = crate::app::accounts::read_map(explicit)?;
    if source == MapSource::Default {
        eprintln!(
            "tieout: no account map in the config folder; using the built-in default (write it with `tieout init-accounts` to change it)"
        );
    }
    Ok(map)
}

pub fn run(ctx: &Ctx, args: &JournalArgs) -> CmdResult {
    let month = args.month;
    let formats = Format::parse_list(&args.format).map_err(Failure::usage)?;
    let style = Style::parse(&args.style).ok_or_else(|| {
        Failure::usage(format!("--style '{}': use daily or per-payout", args.style))
    })?;
    let map = read_map(args.accounts.as_deref())?;
    let data = load_month_and_next(&ctx.request(), month)?;
    let dir = args.out.clone().unwrap_or_else(|| PathBuf::from("."));
    run_on(ctx, month, &data, &map, style, &formats, &dir, args.force)
}

/// Builds and writes the journal of `month` on `data`; prints a summary and the paths.
#[allow(clippy::too_many_arguments)]
pub fn run_on(
    ctx: &Ctx,
    month: Month,
    data: &AccountData,
    map: &AccountMap,
    style: Style,
    formats: &[Format],
    dir: &Path,
    force: bool,
) -> CmdResult {
    let (journal, files) =
        crate::app::journal::month_files(data, month, &ctx.tz, map, style, formats)?;
    let named: Vec<(&str, Vec<u8>)> = files.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
    let written = super::write_exports(dir, &named, force)?;
    println!("{}", summary(&journal, &zone_name(&ctx.tz)));
    for (path, changed) in &written {
        if *changed {
            println!("wrote {}", path.display());
        } else {
            println!("unchanged {} (same content)", path.display());
        }
    }
    verdict(&journal)
}

/// The summary printed before the paths.
pub fn summary(j: &Journal, zone: &str) -> String {
    let payouts = {
        let mut v: Vec<&str> = j.entries.iter().map(|e| e.payout.as_str()).collect();
        v.sort_unstable();
        v.dedup();
        v.len()
    };
    let review = j.entries.iter().filter(|e| e.review.is_some()).count();
    let mut s = format!(
        "{} ({zone}): {} entr{} for {payouts} payout{}, {} style; {review} flagged for review",
        j.month,
        j.entries.len(),
        if j.entries.len() == 1 { "y" } else { "ies" },
        if payouts == 1 { "" } else { "s" },
        j.style.as_str(),
    );
    for (c, v) in &j.clearing_at_end {
        let unpaid = j.not_paid_out.get(c).copied().unwrap_or(0);
        let out = j.unitemised_out.get(c).copied().unwrap_or(0);
        s.push_str(&format!(
            "\n  {c}: clearing at the end of the month {} = {} not yet paid out{}",
            format_major(*v, *c),
            format_major(unpaid, *c),
            if out == 0 {
                String::new()
            } else {
                format!(
                    " less {} of payouts whose lines are not booked",
                    format_major(out, *c)
                )
            }
        ));
    }
    for item in &j.suspense {
        s.push_str(&format!(
            "\n  suspense: {} {} of {} ({})",
            format_major(item.amount, item.currency),
            item.currency,
            item.payout,
            item.reason
        ));
    }
    s
}

/// Exit 5 when anything went to suspense.
pub fn verdict(j: &Journal) -> CmdResult {
    if j.ties_out() {
        return Ok(());
    }
    let items: Vec<String> = j
        .suspense
        .iter()
        .map(|i| {
            format!(
                "{} {} {}",
                i.payout,
                format_major(i.amount, i.currency),
                i.currency
            )
        })
        .collect();
    Err(Failure::data(format!(
        "{} does not tie out: {} booked to the suspense account. The journal was written; resolve the suspense entries before booking it.",
        j.month,
        items.join(", ")
    )))
}

/// `tieout init-accounts`: writes the default map, never over a different file without
/// `--force`.
pub fn init_accounts(path: Option<&Path>, force: bool) -> CmdResult {
    let path = crate::app::accounts::map_path(path).ok_or_else(|| {
        Failure::other("no config folder is known on this system; pass --path FILE")
    })?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| Failure::other(format!("could not create {}: {e}", parent.display())))?;
    }
    let changed = crate::files::write_atomic(&path, DEFAULT_MAP.as_bytes(), force)
        .map_err(crate::app::exports::write_failure)?;
    if changed {
        println!("wrote {}", path.display());
    } else {
        println!("unchanged {} (same content)", path.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::ExitStatus;
    use crate::domain::tieout::testdata::sample_month;
    use tieout_core::journal::build;

    #[test]
    fn a_month_that_does_not_tie_out_exits_5_naming_the_suspense() {
        let map = AccountMap::default_map().expect("map");
        let j = build(
            &sample_month(),
            &[],
            &map,
            Style::Daily,
            &jiff::tz::TimeZone::UTC,
        )
        .expect("journal");
        let f = verdict(&j).expect_err("po_short does not tie out");
        assert_eq!(f.kind.code(), 5);
        assert!(f.message.contains("po_short -54.65 USD"), "{}", f.message);
        assert!(summary(&j, "UTC").contains("suspense: -54.65 USD of po_short"));
    }
}
