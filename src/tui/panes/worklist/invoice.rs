//! The invoice screen: one worklist invoice with every fact billing staff need, one per
//! line, each copyable.

use super::*;

/// One invoice of the worklist: every fact billing staff need, one per line; Enter or `y`
/// copies the selected line's value (the hosted invoice URL, an id, the wording).
pub struct InvoiceScreen {
    title: String,
    table: DataTable,
}

pub(super) fn when(ts: Option<i64>) -> String {
    ts.map(|t| {
        jiff::Timestamp::from_second(t)
            .map(|x| x.strftime("%Y-%m-%d %H:%M UTC").to_string())
            .unwrap_or_default()
    })
    .unwrap_or_default()
}

/// The facts of a worklist row, as (label, value) lines.
pub fn invoice_fields(r: &WorkRow) -> Vec<(String, String)> {
    let mut f: Vec<(String, String)> = Vec::new();
    let mut add = |k: &str, v: String| f.push((k.to_string(), v));
    add(
        "Invoice",
        match &r.invoice_number {
            Some(n) => format!("{} ({n})", r.invoice_id),
            None => r.invoice_id.clone(),
        },
    );
    add(
        "Customer",
        [
            r.customer_name.clone(),
            r.customer_email.as_ref().map(|e| format!("<{e}>")),
            r.customer_id.clone(),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" "),
    );
    add("Amount remaining", money(r.money()));
    add(
        "Collection",
        [r.collection_method.clone(), r.billing_reason.clone()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(", "),
    );
    add(
        "Subscription",
        match (&r.subscription_id, &r.subscription_status) {
            (Some(s), Some(st)) => format!("renews {s} (status {st})"),
            (Some(s), None) => format!("renews {s}"),
            (None, _) => "none: a one-off invoice".to_string(),
        },
    );
    add("Due date", when(r.due_date));
    add(
        "Days past due",
        match (r.days_past_due, r.days_past_due_basis) {
            (Some(d), Some(DueBasis::DueDate)) => format!("{d} (since the due date)"),
            (Some(d), Some(DueBasis::FirstAttempt)) => {
                format!("{d} (since the first payment attempt)")
            }
            (Some(d), None) => d.to_string(),
            (None, _) => String::new(),
        },
    );
    add("Attempts", r.attempt_count.to_string());
    add(
        "Next retry",
        match (r.retries_left, r.next_payment_attempt) {
            (true, Some(t)) => when(Some(t)),
            (false, Some(_)) => {
                "none: not retried until a new payment method is attached".to_string()
            }
            _ => "none: Stripe will not retry automatically".to_string(),
        },
    );
    add("Decline", r.decline_label());
    if let Some(o) = &r.outcome_reason {
        add("Outcome reason", o.clone());
    }
    if let Some(a) = &r.advice_code {
        add("Advice code", a.clone());
    }
    add("Action", r.action().label().to_string());
    add("Why", r.classification.staff.clone());
    add("Tell the customer", r.classification.customer.clone());
    if !r.classification.disclose {
        add(
            "Reason disclosed",
            "no: staff only; the customer hears a generic decline".to_string(),
        );
    }
    add(
        "Hosted invoice URL",
        r.hosted_invoice_url.clone().unwrap_or_default(),
    );
    for (i, a) in r.attempts.iter().enumerate() {
        let mut parts = vec![
            when(a.created),
            a.charge.clone().unwrap_or_default(),
            a.status.clone(),
        ];
        let d = a.decline_label();
        if !d.is_empty() {
            parts.push(d);
        }
        if let Some(o) = a
            .outcome_reason
            .as_ref()
            .filter(|o| Some(*o) != a.decline_code.as_ref())
        {
            parts.push(format!("outcome {o}"));
        }
        if let Some(adv) = &a.advice_code {
            parts.push(format!("advice {adv}"));
        }
        if let Some(act) = a.action {
            parts.push(format!("→ {}", act.label()));
        }
        add(
            &format!("Attempt {}", i + 1),
            parts
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join(" · "),
        );
    }
    if r.attempts.is_empty() {
        add("Attempts found", "none in the data".to_string());
    }
    f
}

impl InvoiceScreen {
    pub fn new(r: &WorkRow, _now: i64) -> Self {
        let title = format!("Worklist › {}", r.invoice_id);
        let source = Arc::new(RowsSource::new(
            invoice_fields(r),
            vec![
                col("Field", 20, |x: &(String, String)| Cell::text(&x.0)),
                col("Value", 200, |x| Cell::text(&x.1)),
            ],
        ));
        let table = DataTable::new(title.clone(), "Nothing to show.", source);
        InvoiceScreen { title, table }
    }
}

impl Pane for InvoiceScreen {
    fn title(&self) -> String {
        self.title.clone()
    }

    fn on_data(&mut self, _ws: &Workspace, _cx: &mut Cx<'_>) -> bool {
        // A snapshot of one invoice: it may be paid after a refresh, so close.
        false
    }

    fn handle(&mut self, action: Action, cx: &mut Cx<'_>) -> Handled {
        // Enter and `y` copy the value, whichever column is selected: it is what staff need.
        if matches!(action, Action::Open | Action::CopyCell) {
            if let Some(i) = self.table.selected_row() {
                let fields = self.table.row_fields(i);
                if let Some((_, v)) = fields.get(1) {
                    cx.copy(v.clone());
                }
            }
            return Handled::Yes;
        }
        Handled::No
    }

    fn table(&self) -> Option<&DataTable> {
        Some(&self.table)
    }

    fn table_mut(&mut self) -> Option<&mut DataTable> {
        Some(&mut self.table)
    }

    fn hints(&self) -> Vec<Action> {
        vec![Action::Back, Action::Open, Action::CopyCell]
    }
}
