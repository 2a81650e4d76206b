//! The Refunds tab's queue as a table: one row per ticket with its batch mark and how its
//! refund ended, the columns (each a declared field of the suggestion row, the suggestion
//! drawn as a coloured tag), and the suggestion as text to paste.

use crate::domain::refunds::{Assessment, Recommendation};
use crate::money::Money;
use crate::report::fields as report_fields;
use crate::report::refunds::fields as suggestion_fields;
use crate::tui::theme::Role;
use crate::tui::widgets::table::{Cell, ColumnDef, cell_of, field_col};

/// One queue row: the assessment and, once its refund ran, how that ended.
#[derive(Debug, Clone)]
pub struct QueueRow {
    pub a: Assessment,
    pub mark: Option<(&'static str, Role)>,
    /// Marked for a batch.
    pub marked: bool,
}

pub(super) fn rec_role(r: Recommendation) -> Role {
    match r {
        Recommendation::Approve => Role::Ok,
        Recommendation::Partial => Role::Pending,
        Recommendation::Decline => Role::Failed,
        Recommendation::Review => Role::Warning,
    }
}

fn suggest_cell(r: &QueueRow) -> Cell<'_> {
    match (r.mark, r.marked) {
        (Some((text, role)), _) => Cell::Tag(text.into(), role),
        (None, true) => Cell::Tag(
            format!("● {}", r.a.suggestion.recommendation.as_str()).into(),
            Role::Title,
        ),
        (None, false) => Cell::Tag(
            r.a.suggestion.recommendation.as_str().into(),
            rec_role(r.a.suggestion.recommendation),
        ),
    }
}

/// The queue's columns, in order: a field of the suggestion row's one declaration
/// (`report::refunds::fields`) and the most it is drawn wide.
const SHOWN: &[(&str, u16)] = &[
    ("ticket_id", 10),
    ("recommendation", 9),
    ("refund", 16),
    ("rule", 22),
    ("email", 30),
    ("order_id", 12),
    ("message", 60),
    ("reason", 200),
];

/// The queue's columns: each a declared field under its title; the suggestion drawn as a
/// tag coloured by what it says (or by what the approval did).
pub(super) fn columns() -> Vec<ColumnDef<QueueRow>> {
    let declared = suggestion_fields::<Assessment>();
    SHOWN
        .iter()
        .filter_map(|&(name, width)| {
            let field = *report_fields::field(&declared, name)?;
            Some(match name {
                "recommendation" => ColumnDef {
                    title: field.pane_title(),
                    max_width: width,
                    get: cell_of(suggest_cell),
                },
                _ => field_col(field, width, |r: &QueueRow| &r.a),
            })
        })
        .collect()
}

/// The suggestion as text to paste: recommendation and amount, reason, evidence.
pub fn paste_text(a: &Assessment) -> String {
    let s = &a.suggestion;
    let amount = s
        .currency
        .map(|c| format!(" {}", Money::new(s.amount, c).display()))
        .filter(|_| s.amount > 0)
        .unwrap_or_default();
    let mut out = format!(
        "{}: {}{amount} ({})\n{}",
        s.ticket_id.as_deref().unwrap_or("ticket"),
        s.recommendation.as_str(),
        s.rule,
        s.reason
    );
    if !s.evidence.is_empty() {
        out.push_str(&format!("\nEvidence: {}", s.evidence.join(" ")));
    }
    out
}
