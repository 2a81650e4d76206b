//! The Tie-out's payouts as a saved view shows them, without a terminal: the same rows,
//! filter, sort and columns (with the Bank column when statements were matched), built
//! by the same table. `tieout reconcile --view NAME` writes these.

use super::*;
use crate::app::views::SavedView;
use crate::bank::BankMatch;
use crate::tui::widgets::table::{Headless, TableView};

/// The payouts table of the month's tie-out `t` with `view` applied, as the pane shows
/// it for that month; refused when the view names a column the payouts do not have.
pub fn view_table(
    t: &MonthTieOut<'static>,
    bank: Option<&BankMatch>,
    view: &SavedView,
    tz: &TimeZone,
    now: i64,
) -> Result<DataTable, String> {
    let mut cx = Headless::new(tz.clone(), now);
    let title = format!("Payouts arriving in {}", t.month.title());
    DataTable::headless(
        &title,
        rows_source(t, bank),
        &TableView::of_saved(view),
        &mut cx,
    )
}
