//! Totals of part of the worklist (the rows a filter shows), per currency in the
//! worklist's own currency order, so a filtered view can show what it covers next to the
//! whole list's totals.

use super::{CurrencyTotal, WorkRow, Worklist};

impl Worklist {
    /// Outstanding per currency over `rows` (part of this worklist), in
    /// [`Worklist::order`]; currencies without a row are left out.
    pub fn totals_of<'a>(&self, rows: impl IntoIterator<Item = &'a WorkRow>) -> Vec<CurrencyTotal> {
        let mut out: Vec<CurrencyTotal> = Vec::new();
        for r in rows {
            let i = match out.iter().position(|t| t.currency == r.currency) {
                Some(i) => i,
                None => {
                    out.push(CurrencyTotal {
                        currency: r.currency,
                        count: 0,
                        amount_remaining: 0,
                        no_retry_count: 0,
                        no_retry_amount: 0,
                    });
                    out.len() - 1
                }
            };
            let t = &mut out[i];
            t.count += 1;
            // The whole list's totals were checked for overflow; a part of it cannot
            // exceed them (amounts on the list are positive).
            t.amount_remaining = t.amount_remaining.saturating_add(r.amount_remaining);
            if !r.retries_left {
                t.no_retry_count += 1;
                t.no_retry_amount = t.no_retry_amount.saturating_add(r.amount_remaining);
            }
        }
        self.order.sort(&mut out, |t| t.currency);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::testdata::*;
    use super::super::*;

    #[test]
    fn a_part_of_the_list_totals_only_its_rows_in_the_lists_order() {
        let mut d = data(vec![]);
        failed(&mut d, "in_u1", 1000, "insufficient_funds");
        failed(&mut d, "in_u2", 2000, "expired_card");
        failed(&mut d, "in_e1", 500, "insufficient_funds");
        d.invoices[2].currency = Currency::EUR;
        let w = build(&d, NOW).expect("build");
        assert_eq!(w.totals_of(&w.rows), w.totals_by_currency);
        let insufficient: Vec<&WorkRow> = w
            .rows
            .iter()
            .filter(|r| r.decline_code.as_deref() == Some("insufficient_funds"))
            .collect();
        let part = w.totals_of(insufficient);
        let got: Vec<(Currency, usize, i64)> = part
            .iter()
            .map(|t| (t.currency, t.count, t.amount_remaining))
            .collect();
        assert_eq!(got, [(Currency::USD, 1, 1000), (Currency::EUR, 1, 500)]);
        assert!(w.totals_of([]).is_empty());
    }
}
