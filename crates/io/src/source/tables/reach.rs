//! The invoices the worklist reads and the charges and payment intents it can reach, read
//! from their frames without building the rows of the rest: a large account's first frame
//! needs the few thousand open invoices and what they name, not the hundreds of thousands
//! already settled. What is read and reached is the domain's rule (`dunning::reach`),
//! walked here over the frames' columns; only the kept rows are then built.

use foldhash::HashSet;
use polars::prelude::{BooleanChunked, DataFrame, NewChunkedArray};

use super::TableError;
use super::cols::Cols;
use super::read::read_frame;
use crate::stripe::models::InvoiceStatus;
use tieout_core::domain::dunning::reach::{Reach, worklist_reads};
use tieout_core::model::{AccountData, Table};

/// The four tables' frames a staged open's first part reads in part (an empty frame
/// reads as no rows).
pub struct ReachFrames {
    pub invoices: DataFrame,
    pub invoice_payments: DataFrame,
    pub charges: DataFrame,
    pub intents: DataFrame,
}

/// Reads into `data` the invoices the worklist reads ([`worklist_reads`]) and their
/// invoice payments, then the rows of the charges and intents those reach.
pub fn read_reached(frames: &ReachFrames, data: &mut AccountData) -> Result<(), TableError> {
    read_worklist_invoices(&frames.invoices, &frames.invoice_payments, data)?;
    read_reached_payments(&frames.charges, &frames.intents, data)
}

/// The invoices of `invoices` the worklist reads, and the rows of `payments` that pay
/// them.
fn read_worklist_invoices(
    invoices: &DataFrame,
    payments: &DataFrame,
    data: &mut AccountData,
) -> Result<(), TableError> {
    if invoices.width() == 0 {
        return Ok(());
    }
    let cols = Cols::new("invoices", invoices);
    let (ids, status, remaining) = (
        cols.str("id")?,
        cols.str("status")?,
        cols.i64("amount_remaining")?,
    );
    let keep: Vec<bool> = status
        .iter()
        .zip(&remaining)
        .map(|(s, r)| worklist_reads(&InvoiceStatus::parse(s), *r))
        .collect();
    let kept: HashSet<&str> = ids
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(id, _)| *id)
        .collect();
    read_kept(Table::Invoices, invoices, &keep, data)?;
    if payments.width() == 0 {
        return Ok(());
    }
    let paid = Cols::new("invoice_payments", payments).str("invoice")?;
    let keep: Vec<bool> = paid.iter().map(|inv| kept.contains(inv)).collect();
    read_kept(Table::InvoicePayments, payments, &keep, data)
}

/// Reads into `data` the rows of `charges` and `intents` that `data`'s invoices and
/// invoice payments reach.
fn read_reached_payments(
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
    read_kept(Table::Charges, charges, &keep_charges, data)?;
    read_kept(Table::PaymentIntents, intents, &keep_intents, data)
}

/// Reads into `data` the rows of `table`'s frame `df` that `keep` marks (none of an empty
/// frame).
fn read_kept(
    table: Table,
    df: &DataFrame,
    keep: &[bool],
    data: &mut AccountData,
) -> Result<(), TableError> {
    if df.width() == 0 {
        return Ok(());
    }
    let mask = BooleanChunked::from_slice("kept".into(), keep);
    let kept = df.filter(&mask).map_err(|source| TableError::Polars {
        table: table.name(),
        source,
    })?;
    read_frame(&kept, table, data)
}

/// The `(id, status)` of the invoices in `invoices` (a frame with at least those two
/// columns) whose ids are in `wanted`, in the frame's order.
pub fn invoice_statuses_of(
    invoices: &DataFrame,
    wanted: &foldhash::HashSet<&str>,
) -> Result<Vec<(String, String)>, TableError> {
    if invoices.width() == 0 {
        return Ok(Vec::new());
    }
    let cols = Cols::new("invoices", invoices);
    let (ids, status) = (cols.str("id")?, cols.str("status")?);
    Ok(ids
        .iter()
        .zip(&status)
        .filter(|(id, _)| wanted.contains(**id))
        .map(|(id, s)| (id.to_string(), s.to_string()))
        .collect())
}
