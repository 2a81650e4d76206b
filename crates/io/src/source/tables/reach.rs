//! The charges and payment intents the worklist can reach, read from their frames
//! without building the rows of the rest: a large account's first frame needs the few
//! thousand an open invoice names, not the hundreds of thousands already settled. What is
//! reached is the domain's rule (`dunning::reach`), walked here over the frames' id
//! columns; only the reached rows are then built.

use polars::prelude::{BooleanChunked, DataFrame, NewChunkedArray};

use super::TableError;
use super::cols::Cols;
use super::read::read_frame;
use crate::source::{AccountData, Table};
use tieout_core::domain::dunning::reach::Reach;

/// Reads into `data` the rows of `charges` and `intents` (the two tables' frames; an
/// empty frame reads as no rows) that `data`'s invoices and invoice payments reach.
pub fn read_reached(
    charges: &DataFrame,
    intents: &DataFrame,
    data: &mut AccountData,
) -> Result<(), TableError> {
    let (keep_charges, keep_intents) = {
        let mut reach = Reach::seeds(&data.invoices, &data.invoice_payments);
        let intents_cols = Cols::new("payment_intents", intents);
        let (intent_ids, latest, error) = if intents.width() == 0 {
            (Vec::new(), Vec::new(), Vec::new())
        } else {
            (
                intents_cols.str("id")?,
                intents_cols.opt_str("latest_charge")?,
                intents_cols.opt_str("error_charge")?,
            )
        };
        for ((id, latest), error) in intent_ids.iter().zip(&latest).zip(&error) {
            reach.intent_names(id, [*latest, *error]);
        }
        let charges_cols = Cols::new("charges", charges);
        let (charge_ids, charge_intents) = if charges.width() == 0 {
            (Vec::new(), Vec::new())
        } else {
            (
                charges_cols.str("id")?,
                charges_cols.opt_str("payment_intent")?,
            )
        };
        let keep_charges: Vec<bool> = charge_ids
            .iter()
            .zip(&charge_intents)
            .map(|(id, pi)| reach.take_charge(id, *pi))
            .collect();
        let keep_intents: Vec<bool> = intent_ids.iter().map(|id| reach.wants_intent(id)).collect();
        (keep_charges, keep_intents)
    };
    for (table, df, keep) in [
        (Table::Charges, charges, keep_charges),
        (Table::PaymentIntents, intents, keep_intents),
    ] {
        if df.width() == 0 {
            continue;
        }
        let mask = BooleanChunked::from_slice("reached".into(), &keep);
        let reached = df.filter(&mask).map_err(|source| TableError::Polars {
            table: table.name(),
            source,
        })?;
        read_frame(&reached, table, data)?;
    }
    Ok(())
}
