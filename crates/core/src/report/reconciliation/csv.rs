//! `payout-reconciliation.csv`: one row per balance transaction paid out (the payout's own
//! `type=payout` transaction is not a row), in the columns README.md ("Exports") fixes, money in
//! major units of the line's currency.

use crate::domain::tieout::MonthTieOut;
use crate::money::format_major;
use crate::report::csv_out::CsvDoc;
use crate::time::iso_utc;

/// The columns, in order (a contract with bookkeepers' spreadsheets).
pub const CSV_HEADER: [&str; 12] = [
    "payout_id",
    "balance_transaction_id",
    "type",
    "reporting_category",
    "source_id",
    "created_utc",
    "available_on_utc",
    "currency",
    "gross",
    "fee",
    "net",
    "description",
];

/// The CSV bytes: payouts in arrival order, each payout's lines oldest first.
pub fn csv(tieout: &MonthTieOut) -> Vec<u8> {
    let mut doc = CsvDoc::new(&CSV_HEADER);
    for p in &tieout.payouts {
        let Some(it) = &p.itemisation else { continue };
        for l in &it.lines {
            doc.row([
                p.payout.id.as_str(),
                l.id.as_str(),
                l.kind.as_str(),
                l.reporting_category.as_str(),
                l.source.as_deref().unwrap_or(""),
                &iso_utc(l.created),
                &iso_utc(l.available_on),
                l.currency.as_str(),
                &format_major(l.amount, l.currency),
                &format_major(l.fee, l.currency),
                &format_major(l.net, l.currency),
                &one_line(l.description.as_deref().unwrap_or("")),
            ]);
        }
    }
    doc.into_bytes()
}

/// Descriptions stay on one row: line breaks become spaces.
fn one_line(text: &str) -> String {
    text.split(['\r', '\n'])
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}
