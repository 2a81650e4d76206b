//! The evidence screens: every object a suggestion rests on (customer, charges, refunds,
//! disputes, subscription), one per row with all its fields.

use super::*;
use crate::model::dashboard::DashboardLinks;
use crate::tui::msg::Effect;
use crate::tui::widgets::table::col;

/// One evidence object: what it is, its id, a one-line summary and all its fields.
#[derive(Debug, Clone)]
pub struct EvidenceRow {
    pub kind: &'static str,
    pub id: String,
    pub summary: String,
    pub fields: Vec<(String, String)>,
    /// Where the object opens in the Stripe Dashboard (none for an id without a page).
    pub url: Option<String>,
}

pub(super) fn fields_of<T: Serialize>(row: &T) -> Vec<(String, String)> {
    match serde_json::to_value(row) {
        Ok(serde_json::Value::Object(map)) => map
            .into_iter()
            .map(|(k, v)| {
                let is_time = matches!(
                    k.as_str(),
                    "created"
                        | "current_period_start"
                        | "current_period_end"
                        | "due_date"
                        | "next_payment_attempt"
                );
                let text = match v {
                    serde_json::Value::Null => String::new(),
                    serde_json::Value::String(s) => s,
                    serde_json::Value::Number(n) if is_time => match n.as_i64() {
                        Some(ts) => format!("{} ({ts})", crate::time::iso_utc(ts)),
                        None => n.to_string(),
                    },
                    other => other.to_string(),
                };
                (k, text)
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Finds an evidence id in the account and describes it; `links` says where it opens in
/// the Dashboard (the account's mode and connected account, as the suggestion's
/// `evidence_urls`: one rule, `Facts::dashboard`).
pub fn evidence_row(
    id: &str,
    data: &AccountData,
    links: &DashboardLinks,
    tz: &TimeZone,
) -> EvidenceRow {
    let url = links.url(id);
    let row = |kind, summary: String, fields| EvidenceRow {
        kind,
        id: id.to_string(),
        summary,
        fields,
        url: url.clone(),
    };
    if let Some(c) = data.customers.iter().find(|c| c.id == id) {
        return row(
            "customer",
            format!(
                "{} {} · since {}",
                c.name.as_deref().unwrap_or(""),
                c.email.as_deref().unwrap_or(""),
                date_in(c.created, tz)
            )
            .trim()
            .to_string(),
            fields_of(c),
        );
    }
    if let Some(c) = data.charges.iter().find(|c| c.id == id) {
        return row(
            "charge",
            format!(
                "{} {} · {} · refunded {}",
                format_major(c.amount_captured, c.currency),
                c.currency,
                date_in(c.created, tz),
                format_major(c.amount_refunded, c.currency)
            ),
            fields_of(c),
        );
    }
    if let Some(r) = data.refunds.iter().find(|r| r.id == id) {
        return row(
            "refund",
            format!(
                "{} · {} · {}",
                money(r.amount, r.currency),
                r.status,
                date_in(r.created, tz)
            ),
            fields_of(r),
        );
    }
    if let Some(d) = data.disputes.iter().find(|d| d.id == id) {
        return row(
            "dispute",
            format!(
                "{} · {} · {}",
                money(d.amount, d.currency),
                d.status,
                d.reason.as_deref().unwrap_or("")
            ),
            fields_of(d),
        );
    }
    if let Some(s) = data.subscriptions.iter().find(|s| s.id == id) {
        let period = match (s.current_period_start, s.current_period_end) {
            (Some(a), Some(b)) => format!("{} → {}", date_in(a, tz), date_in(b, tz)),
            _ => String::new(),
        };
        return row(
            "subscription",
            format!(
                "{} · {} · {period}",
                s.interval.as_deref().unwrap_or("?"),
                s.status
            ),
            fields_of(s),
        );
    }
    if let Some(i) = data.invoices.iter().find(|i| i.id == id) {
        return row(
            "invoice",
            format!(
                "{} · {} · paid {}",
                i.number.as_deref().unwrap_or(""),
                i.status,
                money(i.amount_paid, i.currency)
            ),
            fields_of(i),
        );
    }
    if let Some(p) = data.invoice_payments.iter().find(|p| p.invoice == id) {
        return row(
            "invoice",
            format!(
                "paid by {} ({})",
                p.charge
                    .as_deref()
                    .or(p.payment_intent.as_deref())
                    .unwrap_or("?"),
                p.status
            ),
            fields_of(p),
        );
    }
    row("unknown", "not in the loaded data".to_string(), Vec::new())
}

/// A ticket's evidence: one row per id the suggestion relied on.
pub struct EvidenceScreen {
    title: String,
    table: DataTable,
    pub(super) rows: Vec<EvidenceRow>,
}

impl EvidenceScreen {
    pub fn new(
        a: &Assessment,
        data: Arc<AccountData>,
        links: &DashboardLinks,
        tz: &TimeZone,
    ) -> Self {
        let rows: Vec<EvidenceRow> = a
            .suggestion
            .evidence
            .iter()
            .map(|id| evidence_row(id, &data, links, tz))
            .collect();
        let title = format!(
            "{} evidence",
            a.suggestion.ticket_id.as_deref().unwrap_or("ticket")
        );
        let source = RowsSource::new(
            rows.clone(),
            vec![
                col("Kind", 13, |r: &EvidenceRow| Cell::text(r.kind)),
                col("Id", 34, |r| Cell::text(&r.id)),
                col("Summary", 120, |r| Cell::text(&r.summary)),
            ],
        );
        EvidenceScreen {
            table: DataTable::new(title.clone(), "No evidence.", Arc::new(source)),
            title,
            rows,
        }
    }
}

impl Pane for EvidenceScreen {
    fn title(&self) -> String {
        self.title.clone()
    }

    fn on_data(&mut self, _ws: &Workspace, _cx: &mut Cx<'_>) -> bool {
        // Built from one load's data: close rather than show stale objects.
        false
    }

    fn handle(&mut self, action: Action, cx: &mut Cx<'_>) -> Handled {
        let selected = self.table.selected_row().and_then(|i| self.rows.get(i));
        match action {
            Action::Open => {
                if let Some(r) = selected {
                    cx.push(Box::new(RowDetail::new(
                        format!("{} {}", r.kind, r.id),
                        r.fields.clone(),
                    )));
                }
            }
            // The update only asks: the runtime copies or opens (or says why not).
            Action::CopyUrl | Action::OpenUrl => match selected.map(|r| (r, r.url.clone())) {
                Some((_, Some(url))) if action == Action::CopyUrl => cx.copy(url),
                Some((_, Some(url))) => cx.effect(Effect::OpenUrl(url)),
                Some((r, None)) => cx.toast_error(format!("{} has no Stripe Dashboard page", r.id)),
                None => cx.toast_error("no evidence selected"),
            },
            _ => return Handled::No,
        }
        Handled::Yes
    }

    fn table(&self) -> Option<&DataTable> {
        Some(&self.table)
    }

    fn table_mut(&mut self) -> Option<&mut DataTable> {
        Some(&mut self.table)
    }

    fn hints(&self) -> Vec<Action> {
        vec![
            Action::Open,
            Action::Back,
            Action::CopyCell,
            // `copy_url` is in the help (?): the hint line has room for one more.
            Action::OpenUrl,
        ]
    }
}
