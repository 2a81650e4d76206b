//! `payout-reconciliation.csv`: one row per balance transaction paid out (the payout's own
//! `type=payout` transaction is not a row), in the columns README.md ("Exports") fixes, money in
//! major units of the line's currency.

use std::borrow::Cow;

use crate::domain::tieout::MonthTieOut;
use crate::model::rows::BalanceTxnRow;
use crate::money::format_major_inline;
use crate::report::columns::{self, CellText, Column, Json};
use crate::time::{iso_utc, iso_utc_inline};

/// One line paid out: a balance transaction and the payout that paid it.
pub struct PaidLine<'a> {
    pub payout_id: &'a str,
    pub line: &'a BalanceTxnRow,
}

/// The lines' columns, in order (a contract with bookkeepers' spreadsheets): the CSV's
/// (major units) and, but for `payout_id`, the JSON lines' (minor units).
pub fn columns<'a>() -> [Column<PaidLine<'a>>; 12] {
    [
        Column::csv("payout_id", |p| p.payout_id.into()),
        Column::both(
            "balance_transaction_id",
            |p| (&p.line.id).into(),
            |p| Json::Str(&p.line.id),
        ),
        Column::both(
            "type",
            |p| p.line.kind.as_str().into(),
            |p| Json::Str(&p.line.kind),
        ),
        Column::both(
            "reporting_category",
            |p| p.line.reporting_category.as_str().into(),
            |p| Json::Str(&p.line.reporting_category),
        ),
        Column::both(
            "source_id",
            |p| p.line.source.as_ref().map_or("".into(), CellText::from),
            |p| Json::opt_str(p.line.source.as_deref()),
        ),
        Column::both(
            "created_utc",
            |p| iso_utc_inline(p.line.created).into(),
            |p| Json::Text(iso_utc(p.line.created)),
        ),
        Column::both(
            "available_on_utc",
            |p| iso_utc_inline(p.line.available_on).into(),
            |p| Json::Text(iso_utc(p.line.available_on)),
        ),
        Column::both(
            "currency",
            |p| p.line.currency.as_str().into(),
            |p| Json::Str(p.line.currency.as_str()),
        ),
        Column::both(
            "gross",
            |p| format_major_inline(p.line.amount, p.line.currency).into(),
            |p| Json::Int(p.line.amount),
        ),
        Column::both(
            "fee",
            |p| format_major_inline(p.line.fee, p.line.currency).into(),
            |p| Json::Int(p.line.fee),
        ),
        Column::both(
            "net",
            |p| format_major_inline(p.line.net, p.line.currency).into(),
            |p| Json::Int(p.line.net),
        ),
        Column::both(
            "description",
            |p| one_line(p.line.description.as_deref().unwrap_or("")).into(),
            |p| Json::opt_str(p.line.description.as_deref()),
        ),
    ]
}

/// The lines of `tieout`'s payouts: payouts in arrival order, each payout's lines
/// oldest first.
fn paid_lines<'s>(tieout: &'s MonthTieOut<'_>) -> impl Iterator<Item = PaidLine<'s>> {
    tieout.payouts.iter().flat_map(|p| {
        p.itemisation.iter().flat_map(move |it| {
            it.lines.iter().map(move |line| PaidLine {
                payout_id: &p.payout.id,
                line,
            })
        })
    })
}

/// The CSV bytes: payouts in arrival order, each payout's lines oldest first.
pub fn csv(tieout: &MonthTieOut) -> Vec<u8> {
    columns::csv(&columns(), paid_lines(tieout))
}

/// The same bytes as [`csv`], written into `w` as they are made (a file: every month's
/// reconciliation is hundreds of megabytes); `w` comes back flushed.
pub fn csv_to<W: std::io::Write>(tieout: &MonthTieOut, w: W) -> Result<W, ::csv::Error> {
    columns::csv_to(&columns(), paid_lines(tieout), w)
}

/// Descriptions stay on one row: line breaks become spaces (a description without one,
/// nearly all, is borrowed as it is).
fn one_line(text: &str) -> Cow<'_, str> {
    if memchr::memchr2(b'\r', b'\n', text.as_bytes()).is_none() {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.split(['\r', '\n'])
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" "),
    )
}
