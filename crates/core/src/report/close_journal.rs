//! The month's journal in the close packet: the files in the formats the account map's
//! `[close]` section names (default beancount and the QuickBooks Online journal CSV),
//! the README's section that explains them, and a line for the summary. A month that does
//! not tie out still gets its journal, with the difference booked to the suspense
//! account, and the section says so. Pure: the same tie-out and map give the same bytes.

use std::fmt::Write as _;

use jiff::tz::TimeZone;

use super::packet::PacketError;
use crate::domain::tieout::{MonthTieOut, PayoutTieOut};
use crate::journal::{AccountMap, Format, Journal, build, render};
use crate::money::format_major;

/// What the packet holds of the journal.
pub struct PacketJournal {
    /// File name and bytes, as many as the formats (and currencies) make.
    pub files: Vec<(String, Vec<u8>)>,
    /// The README's "Journal for the books" section (Markdown, ends with a blank line).
    pub readme: String,
    /// One line for the command's summary.
    pub summary: String,
}

/// Builds the journal files of the month's tie-out for the packet.
pub fn packet_journal(
    tieout: &MonthTieOut,
    later: &[PayoutTieOut],
    map: &AccountMap,
    tie: Option<&crate::journal::balance_tie::BalanceTieInput<'_>>,
    tz: &TimeZone,
) -> Result<PacketJournal, PacketError> {
    let refuse = |e: String| {
        PacketError::Journal(format!(
            "the close packet's journal cannot be made: {e}. Fix the account map, or leave the journal out of the packet with `journal = []` under [close] in accounts.toml"
        ))
    };
    let formats = map.close_formats().map_err(|e| refuse(e.to_string()))?;
    let style = map.close_style().map_err(|e| refuse(e.to_string()))?;
    let mut readme = String::from("## Journal for the books\n\n");
    if formats.is_empty() {
        readme.push_str(
            "The journal is left out of this packet: the account map (`accounts.toml` in \
             tieout's config folder) says `journal = []` under `[close]`. `tieout journal \
             --month M` writes it on its own.\n\n",
        );
        return Ok(PacketJournal {
            files: Vec::new(),
            readme,
            summary: "journal: left out ([close] journal = [] in the account map)".to_string(),
        });
    }
    let mut journal = build(tieout, later, map, style, tz).map_err(|e| refuse(e.to_string()))?;
    if let Some(tie) = tie {
        crate::journal::balance_tie::attach(&mut journal, tie, tieout.month, tz);
    }
    let mut files = Vec::new();
    for f in &formats {
        files.extend(render(&journal, map, *f).map_err(|e| refuse(e.to_string()))?);
    }
    let _ = writeln!(
        readme,
        "The month's payouts as journal entries for the bookkeeper's tool, {} style, booked \
         through the Stripe clearing account with the accounts of the account map in use \
         (`accounts.toml` in tieout's config folder, or tieout's built-in default when there \
         is none). The formats are set by `journal = [...]` under `[close]` in that file \
         (default: beancount and the QuickBooks Online journal CSV); `tieout journal --month \
         {}` writes the other formats.",
        journal.style.as_str(),
        journal.month
    );
    let _ = writeln!(readme);
    let _ = writeln!(readme, "| File | What it holds |");
    let _ = writeln!(readme, "|---|---|");
    for (name, _) in &files {
        let _ = writeln!(readme, "| `{name}` | {} |", what(name, &formats));
    }
    let _ = writeln!(readme);
    let _ = writeln!(readme, "{}", rules(&journal));
    let _ = writeln!(readme);
    let flagged = journal
        .entries
        .iter()
        .filter(|e| e.review.is_some())
        .count();
    if journal.ties_out() {
        let _ = writeln!(
            readme,
            "The month ties out: nothing is booked to the suspense account. {flagged} entr{} \
             flagged for a person before it is final (`!` in beancount, `[review: ...]` in the \
             CSV Description), e.g. Stripe fees that may carry tax.",
            if flagged == 1 { "y is" } else { "ies are" }
        );
    } else {
        let _ = writeln!(
            readme,
            "**The month does not tie out.** The journal is written all the same, with each \
             difference booked to the suspense account, so it balances; resolve these before \
             booking it:"
        );
        let _ = writeln!(readme);
        for item in &journal.suspense {
            let _ = writeln!(
                readme,
                "- `{}`: {} {} to suspense ({})",
                item.payout,
                format_major(item.amount, item.currency),
                item.currency,
                item.reason
            );
        }
    }
    let _ = writeln!(readme);
    let summary = format!(
        "journal: {} entr{} in {} file{} ({}){}",
        journal.entries.len(),
        if journal.entries.len() == 1 {
            "y"
        } else {
            "ies"
        },
        files.len(),
        if files.len() == 1 { "" } else { "s" },
        formats
            .iter()
            .map(Format::as_str)
            .collect::<Vec<_>>()
            .join(", "),
        if journal.ties_out() {
            String::new()
        } else {
            format!(
                "; does NOT tie out: {} amount{} booked to suspense",
                journal.suspense.len(),
                if journal.suspense.len() == 1 { "" } else { "s" }
            )
        }
    );
    Ok(PacketJournal {
        files,
        readme,
        summary,
    })
}

/// What one journal file is, from its name.
fn what(name: &str, formats: &[Format]) -> String {
    let currency = |kind: &str| {
        name.rsplit_once(&format!("{kind}-"))
            .and_then(|(_, rest)| rest.split(['-', '.']).next())
            .unwrap_or_default()
            .to_string()
    };
    if name.ends_with(".beancount") {
        "The beancount journal: every currency, each entry linked to its payout (`^po_...`), \
         the clearing account's balance (what Stripe had not yet paid out) asserted the day \
         after the month. `bean-check` reads it."
            .to_string()
    } else if name.ends_with(".hledger.journal") {
        "The hledger journal (payout as the code and a `payout:` tag), with the clearing \
         account's balance assertion (what Stripe had not yet paid out) at the month's end. \
         `hledger check` reads it."
            .to_string()
    } else if name.ends_with(".ledger") {
        "The ledger-cli journal, the payout as each entry's code and a `Payout:` note.".to_string()
    } else if name.contains("-qbo-journal-") {
        format!(
            "QuickBooks Online journal import for {}: one Journal No per entry, Debits and \
             Credits in major units, the payout id in each Description.",
            currency("qbo-journal")
        )
    } else if name.contains("-xero-journal-") {
        format!(
            "Xero manual journal import for {}: signed amounts, an account code and a tax rate \
             on every line, at most 300 lines per file.",
            currency("xero-journal")
        )
    } else if name.contains("-qbo-bank-") {
        format!(
            "The clearing account as a QuickBooks bank statement for {} (Date, Description, \
             signed Amount).",
            currency("qbo-bank")
        )
    } else if name.contains("-xero-bank-") {
        format!(
            "The clearing account as a Xero bank statement for {} (Date, Amount, Payee, \
             Description, Reference = payout id).",
            currency("xero-bank")
        )
    } else {
        format!(
            "A journal file ({}).",
            formats
                .iter()
                .map(Format::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// How the entries are cut, in words.
fn rules(j: &Journal) -> String {
    let clearing: Vec<String> = j
        .clearing
        .iter()
        .map(|(c, a)| format!("`{a}` ({c})"))
        .collect();
    let cut = match j.style {
        crate::journal::Style::Daily => {
            "each payout's balance transactions grouped per day and reporting category into the \
             clearing account (amounts to the category's account, each part of Stripe's fee to \
             its fee account), then the payout, dated its arrival, from clearing to the bank"
        }
        crate::journal::Style::PerPayout => {
            "one entry per payout, dated its arrival, equal to the deposit"
        }
    };
    let at_end: Vec<String> = j
        .clearing
        .iter()
        .map(|(c, a)| {
            let v = |m: &std::collections::BTreeMap<crate::money::Currency, i64>| {
                format_major(m.get(c).copied().unwrap_or(0), *c)
            };
            let out = j.unitemised_out.get(c).copied().unwrap_or(0);
            format!(
                "`{a}` {} {c} ({} {c} not yet paid out{})",
                v(&j.clearing_at_end),
                v(&j.not_paid_out),
                if out == 0 {
                    String::new()
                } else {
                    format!(
                        ", less {} {c} of the month's payouts whose lines Stripe could not \
                         itemise",
                        format_major(out, *c)
                    )
                }
            )
        })
        .collect();
    format!(
        "Entries: {cut}. The lines created by the month's end that a later payout pays out \
         are accrued the same way, and each payout's accrual is reversed on {}: the journal \
         of the month the payout arrives in books them with it (a line created before this \
         month is booked on its first day), so consecutive months' journals book every line \
         once. Clearing account: {}. Every entry balances in each currency to the cent, no \
         amount is converted, and over each itemised payout's entries the clearing account \
         nets to zero; a payout Stripe cannot itemise stays in clearing, flagged, for its \
         activity to be booked by hand.\n\nAt the month's end the clearing account holds \
         what Stripe had not yet paid out to the bank, asserted in the beancount and hledger \
         files: {}. {}",
        j.next_day,
        if clearing.is_empty() {
            "none used this month".to_string()
        } else {
            clearing.join(", ")
        },
        if at_end.is_empty() {
            "nothing".to_string()
        } else {
            at_end.join(", ")
        },
        crate::journal::render::not_paid_out_note(j),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::tieout::testdata::sample_month;
    use crate::journal::DEFAULT_MAP;

    #[test]
    fn a_month_that_does_not_tie_out_gets_its_journal_and_the_readme_says_so() {
        let map = AccountMap::default_map().expect("map");
        let j = packet_journal(&sample_month(), &[], &map, None, &TimeZone::UTC).expect("journal");
        let names: Vec<&str> = j.files.iter().map(|(n, _)| n.as_str()).collect();
        assert!(names.contains(&"journal-2026-10.beancount"), "{names:?}");
        assert!(
            names
                .iter()
                .any(|n| n.starts_with("journal-2026-10-qbo-journal-")),
            "{names:?}"
        );
        let beancount = String::from_utf8(j.files[0].1.clone()).expect("utf8");
        assert!(beancount.contains("Assets:Stripe:Suspense"), "{beancount}");
        assert!(
            j.readme.contains("**The month does not tie out.**"),
            "{}",
            j.readme
        );
        assert!(
            j.readme.contains("- `po_short`: -54.65 USD to suspense"),
            "{}",
            j.readme
        );
        assert!(j.summary.contains("does NOT tie out"), "{}", j.summary);
    }

    #[test]
    fn an_empty_close_list_leaves_the_journal_out_and_a_map_problem_says_what_to_change() {
        let none = AccountMap::parse(
            &DEFAULT_MAP.replace("journal = [\"beancount\", \"qbo-journal\"]", "journal = []"),
        )
        .expect("map");
        let j = packet_journal(&sample_month(), &[], &none, None, &TimeZone::UTC).expect("journal");
        assert!(j.files.is_empty());
        assert!(j.readme.contains("left out of this packet"), "{}", j.readme);

        let bad = AccountMap::parse(
            &DEFAULT_MAP.replace("charge = \"Income:Sales\"", "charge = \"Sales income\""),
        )
        .expect("map");
        let e = packet_journal(&sample_month(), &[], &bad, None, &TimeZone::UTC)
            .err()
            .expect("beancount refuses the name")
            .to_string();
        assert!(e.contains("'Sales income'"), "{e}");
        assert!(e.contains("`journal = []` under [close]"), "{e}");
    }
}
