//! The close packet's `README.md`: what the folder is, where its figures came from, what
//! did not tie out and why, and what each file holds. Written for a controller who has
//! never seen tieout. Pure and byte-deterministic.

use std::fmt::Write as _;

use crate::domain::dunning::Worklist;
use crate::domain::tieout::{MonthTieOut, Verdict};
use crate::money::format_major;
use crate::report::reconciliation::ReportHeader;
use crate::time::iso_utc;

/// What the README needs beyond the tie-out and the worklist.
pub struct PacketFacts<'a> {
    pub header: &'a ReportHeader,
    pub api_version: &'a str,
    pub tieout_version: &'a str,
    /// The clock the packet was computed at (`--now`), unix seconds.
    pub as_of: i64,
    pub refunds: usize,
    pub disputes: usize,
    /// The bank leg, when the packet was made with a statement.
    pub bank: Option<&'a crate::bank::BankMatch>,
    /// The month's Stripe balance figures (their files are in every packet).
    pub balance: &'a crate::report::balance::BalanceReport,
}

fn origin_words(h: &ReportHeader) -> &'static str {
    match h.origin {
        crate::model::Origin::Demo => {
            "the bundled demo account (generated test data, no Stripe call)"
        }
        crate::model::Origin::Live => "Stripe's API, read fresh for this packet",
        crate::model::Origin::Cache => "tieout's local cache of an earlier read from Stripe's API",
    }
}

/// Renders `README.md`.
pub fn readme(facts: &PacketFacts<'_>, tieout: &MonthTieOut, worklist: &Worklist) -> String {
    let h = facts.header;
    let account = match &h.account_name {
        Some(name) => format!("{name} (`{}`)", h.account_id),
        None => format!("`{}`", h.account_id),
    };
    let mut s = String::new();
    let _ = writeln!(s, "# Close packet: {account}, {}", tieout.month);
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "This folder is the month-end close packet for the Stripe account {account} in {} mode, \
         for the payouts that arrived in {} ({} time). It was made by tieout, a read-only \
         workbench over Stripe: every figure below comes from Stripe's own objects, in each \
         currency's smallest unit converted to decimals, and no currency is ever converted \
         into another.",
        h.mode.as_str(),
        tieout.month,
        h.time_zone
    );
    let _ = writeln!(s);
    let _ = writeln!(s, "| | |");
    let _ = writeln!(s, "|---|---|");
    let _ = writeln!(s, "| Account | {account} |");
    let _ = writeln!(s, "| Mode | {} |", h.mode.as_str());
    let _ = writeln!(
        s,
        "| Period | {}: payouts arriving from {} up to (not including) {} |",
        tieout.month,
        iso_utc(tieout.start),
        iso_utc(tieout.end)
    );
    let _ = writeln!(s, "| Time zone | {} |", h.time_zone);
    let _ = writeln!(s, "| Data read from | {} |", origin_words(h));
    let _ = writeln!(s, "| Data read at | {} |", iso_utc(h.read_at));
    let _ = writeln!(s, "| Packet computed as of | {} |", iso_utc(facts.as_of));
    let _ = writeln!(s, "| Stripe API version | {} |", facts.api_version);
    let _ = writeln!(s, "| tieout version | {} |", facts.tieout_version);
    let _ = writeln!(s);

    let _ = writeln!(s, "## Does the month tie out?");
    let _ = writeln!(s);
    let c = tieout.counts;
    if tieout.is_empty() {
        let _ = writeln!(
            s,
            "No payouts arrived in this month, so there is nothing to tie out."
        );
    } else {
        let _ = writeln!(
            s,
            "{} payouts arrived: {} tie out to the cent, {} show a difference, {} cannot be \
             itemised by Stripe, {} are still being reconciled by Stripe, {} failed or \
             canceled (their funds went back to the Stripe balance){}.",
            c.payouts,
            c.tied,
            c.differences,
            c.not_itemisable,
            c.in_progress,
            c.failed_or_canceled,
            if c.reversed > 0 {
                format!(
                    ", {} reached the bank and {} reversed (debited back)",
                    c.reversed,
                    if c.reversed == 1 { "was" } else { "were" }
                )
            } else {
                String::new()
            }
        );
    }
    let _ = writeln!(s);
    let mut any = false;
    for p in &tieout.payouts {
        let cur = p.currency();
        let amount = format_major(p.payout.amount, cur);
        let line = match p.verdict {
            Verdict::Tied => continue,
            Verdict::Difference => format!(
                "- **Difference** `{}` ({} {}): the balance transactions it paid out sum to {}, \
                 the payout is {}, a difference of {}. {}",
                p.payout.id,
                amount,
                cur,
                p.lines_net()
                    .map(|n| format_major(n, cur))
                    .unwrap_or_default(),
                amount,
                p.difference()
                    .map(|d| format_major(d, cur))
                    .unwrap_or_default(),
                p.note()
            ),
            Verdict::NotItemisable => format!(
                "- **Not itemisable** `{}` ({} {}): {}",
                p.payout.id,
                amount,
                cur,
                p.note()
            ),
            Verdict::InProgress => format!(
                "- **In progress** `{}` ({} {}): {}",
                p.payout.id,
                amount,
                cur,
                p.note()
            ),
            Verdict::Failed | Verdict::Canceled => format!(
                "- **{}** `{}` ({} {}): {}",
                if p.verdict == Verdict::Failed {
                    "Failed"
                } else {
                    "Canceled"
                },
                p.payout.id,
                amount,
                cur,
                p.note()
            ),
            Verdict::Reversed => format!(
                "- **Reversed** `{}` ({} {}): {}",
                p.payout.id,
                amount,
                cur,
                p.note()
            ),
        };
        any = true;
        let _ = writeln!(s, "{}", line.trim_end());
    }
    if !any && !tieout.is_empty() {
        let _ = writeln!(
            s,
            "Every payout ties out: for each one, the balance transactions it paid out sum to \
             its amount, and every line's net equals its gross less its fee."
        );
    }
    let _ = writeln!(s);

    if let Some(m) = facts.bank {
        s.push_str(&crate::report::bank::readme_section(m));
    }
    let _ = writeln!(s, "## Files");
    let _ = writeln!(s);
    let _ = writeln!(s, "| File | What it holds |");
    let _ = writeln!(s, "|---|---|");
    let mut rows = vec![
        (
            "reconciliation.md",
            "The tie-out for people: totals per currency, then one section per payout with its \
             amount, the sum of its lines, subtotals by reporting category (charges, fees, \
             refunds, disputes, ...) and a difference line only where they disagree."
                .to_string(),
        ),
        (
            "payout-reconciliation.csv",
            "One row per balance transaction paid out by the month's payouts (the payout's own \
             transaction is not a row). Sum the `net` column for one `payout_id` to get that \
             payout's amount; `gross - fee = net` on every row. Amounts in major units."
                .to_string(),
        ),
        (
            "reconciliation.json",
            "The same tie-out for scripts, amounts in minor units (cents).".to_string(),
        ),
        (
            "failed-payments.md",
            format!(
                "The dunning worklist as of {}: {} open invoices whose payment failed or that \
                 are past due, with the decline, retries left and next action.",
                iso_utc(facts.as_of),
                worklist.rows.len()
            ),
        ),
        (
            "failed-payments.csv",
            "The worklist, one row per invoice, amounts in major units.".to_string(),
        ),
        (
            "failed-payments.json",
            "The worklist for scripts, amounts in minor units, with totals by currency and by \
             decline code and the invoices already written off as uncollectible."
                .to_string(),
        ),
        (
            "refunds.csv",
            format!(
                "The {} refunds created in the month: id, charge, customer, created, amount, \
                 currency, status, reason.",
                facts.refunds
            ),
        ),
        (
            "disputes.csv",
            format!(
                "The {} disputes opened in the month: id, charge, customer, created, amount, \
                 currency, status, reason.",
                facts.disputes
            ),
        ),
        (
            "balance-rollforward.csv",
            "The Stripe balance as an asset account, per currency: opening + activity + \
             payouts = closing, the closing split into available and pending, against Stripe's \
             balance (GET /v1/balance) for the month that holds the instant it was read, and \
             how the opening was made (summed from the lines, derived back from the balance, \
             or both)."
                .to_string(),
        ),
        (
            "balance-activity.csv",
            "The month's lines by currency and reporting category: count, gross, fee, net \
             (Stripe's \"balance change from activity\")."
                .to_string(),
        ),
        (
            "fees.csv",
            "What Stripe took in the month, per currency: the fees inside the lines by fee \
             type, and the lines Stripe bills as fees of their own."
                .to_string(),
        ),
        (
            "conversions.csv",
            format!(
                "The {} lines of the month settled in another currency than the customer paid \
                 in: presented and settled amount and currency, and Stripe's exchange rate.",
                facts.balance.conversions.len()
            ),
        ),
        (
            "balance.md",
            "The roll-forward, activity, fees and conversions for people, with how each \
             figure is made and the sum per currency pair."
                .to_string(),
        ),
        (
            "balance.json",
            "The same for scripts, amounts in minor units.".to_string(),
        ),
        (
            "MANIFEST.json",
            "The size and SHA-256 of every other file. `tieout close --verify <this folder>` \
             recomputes them and names any file that changed; `sha256sum` gives the same \
             digests."
                .to_string(),
        ),
    ];
    if facts.bank.is_some() {
        rows.insert(3, crate::report::bank::readme_file_row());
    }
    for (name, what) in rows {
        let _ = writeln!(s, "| `{name}` | {what} |");
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "## Conventions");
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "- CSV files follow RFC 4180 with a header row. Money columns are decimal major units \
         with the currency's own number of decimals (`12.34` USD, `1234` JPY, `5.120` KWD); \
         JSON files carry integer minor units."
    );
    let _ = writeln!(
        s,
        "- Times are ISO 8601 in UTC (`_utc` columns). Months are cut in the time zone above."
    );
    let _ = writeln!(
        s,
        "- Totals are per currency. Text cells that a spreadsheet could run as a formula are \
         prefixed with `'`."
    );
    s
}
