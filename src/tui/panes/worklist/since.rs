//! What changed since the last session, in the Worklist: the marker column of new and
//! changed rows, the facet that shows only them, and the side panel's "since" lines.
//! The comparison itself is `domain::dunning::since` (the same as `tieout dunning
//! --since last`), run in the worklist job with the session's run history.

use std::collections::HashMap;

use super::*;
use crate::app::run_history::SessionResult;
use crate::domain::dunning::since::{ChangeKind, Changes, RunRecord, SinceOutcome};
use crate::report::dunning_since::short_counts;
use crate::tui::widgets::table::ColumnDef;
use crate::tui::widgets::text::truncate;

/// The worklist job's answer: the list and, with a run history, the comparison.
pub(super) struct Computed {
    pub(super) worklist: Worklist,
    pub(super) since: Option<SessionResult>,
    /// The cards that will fail before renewal (or why they were not checked).
    pub(super) cards: crate::report::expiring_cards::ExpiringSection,
}

/// The comparison as the pane shows it.
pub(super) struct SinceView {
    pub(super) baseline: Option<RunRecord>,
    pub(super) outcome: SinceOutcome,
    /// The rows on the list now with a change, and the first of their changes.
    pub(super) marked: HashMap<String, ChangeKind>,
}

impl SinceView {
    pub(super) fn new(r: SessionResult) -> Self {
        let marked = r
            .outcome
            .changes()
            .map(|c| {
                c.marked()
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect()
            })
            .unwrap_or_default();
        SinceView {
            baseline: r.baseline,
            outcome: r.outcome,
            marked,
        }
    }

    pub(super) fn changes(&self) -> Option<&Changes> {
        self.outcome.changes()
    }
}

/// The session's baseline, to compare the next load with the same earlier run.
pub(super) fn baseline(v: &Option<SinceView>) -> Option<RunRecord> {
    v.as_ref().and_then(|v| v.baseline.clone())
}

/// A worklist row with its marker, for the table when there is a comparison.
pub(super) struct Marked {
    pub(super) row: WorkRow,
    pub(super) mark: Option<ChangeKind>,
}

impl AsWorkRow for Marked {
    fn work(&self) -> &WorkRow {
        &self.row
    }
}

fn mark_text(k: ChangeKind) -> (&'static str, Role) {
    match k {
        ChangeKind::New => ("new", Role::Warning),
        ChangeKind::NoRetryLeft => ("no retry", Role::Failed),
        ChangeKind::ActionChanged => ("action", Role::Prompt),
        ChangeKind::AmountChanged => ("amount", Role::Prompt),
        // Departures are not rows of the list.
        _ => ("", Role::Muted),
    }
}

fn mark_cell(m: &Marked) -> Cell<'_> {
    match m.mark {
        Some(k) => {
            let (t, role) = mark_text(k);
            Cell::Tag(t.into(), role)
        }
        None => Cell::Empty,
    }
}

/// The table of `rows` with a "Since" column first.
pub(super) fn marked_source(rows: Vec<WorkRow>, v: &SinceView) -> RowsSource<Marked> {
    let rows: Vec<Marked> = rows
        .into_iter()
        .map(|row| Marked {
            mark: v.marked.get(&row.invoice_id).copied(),
            row,
        })
        .collect();
    let mut defs: Vec<ColumnDef<Marked>> = vec![col("Since", 8, mark_cell)];
    defs.extend(columns::<Marked>());
    RowsSource::new(rows, defs)
}

/// The side panel's block: `Since 2026-11-30T12:00:00Z`, then the counts and the amounts
/// recovered per currency.
pub(super) fn panel_lines(v: &SinceView, width: usize, cx: &ViewCx<'_>) -> Vec<Line<'static>> {
    let theme = cx.theme;
    let mut lines = Vec::new();
    match &v.outcome {
        SinceOutcome::Compared(c) => {
            lines.push(Line::styled("Since last time", theme.style(Role::Header)));
            let text = format!(
                "since {}: {}",
                crate::time::iso_utc(c.since),
                short_counts(c)
            );
            for chunk in wrap(&text, width) {
                lines.push(Line::styled(chunk, theme.style(Role::Text)));
            }
        }
        SinceOutcome::NoEarlierRun { .. } => {
            lines.push(Line::styled("Since last time", theme.style(Role::Header)));
            lines.push(Line::styled(
                fit("no earlier run recorded", width, false),
                theme.style(Role::Muted),
            ));
        }
    }
    lines
}

/// The summary line's part on a narrow terminal: ` · since 2026-11-30: 1 new, …`.
pub(super) fn narrow_span(v: &SinceView, cx: &ViewCx<'_>) -> Option<Span<'static>> {
    let c = v.changes()?;
    Some(Span::styled(
        format!(
            " · since {}: {}",
            crate::time::date_in(c.since, cx.tz),
            short_counts(c)
        ),
        cx.theme.style(Role::Prompt),
    ))
}

/// Words wrapped at `width` (a word longer than the line is cut).
pub(super) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let need = line.chars().count() + usize::from(!line.is_empty()) + word.chars().count();
        if !line.is_empty() && need > width {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push(line);
    }
    out.into_iter().map(|l| truncate(&l, width)).collect()
}

/// The facet's choices: any row, or only the new and changed ones.
pub(super) fn picker_options(v: &SinceView, total: usize) -> Vec<PickerOption> {
    if v.changes().is_none() {
        return Vec::new();
    }
    vec![
        PickerOption {
            value: Choice::AnyChange,
            label: "any".into(),
            count: total,
        },
        PickerOption {
            value: Choice::Changed,
            label: "new or changed since last time".into(),
            count: v.marked.len(),
        },
    ]
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::tests::account;
    use super::*;
    use crate::app::run_history::{NoLookup, RunHistory, Session, record};
    use crate::model::status::InvoiceStatus;
    use crate::tui::harness::{Harness, test_settings};
    use crate::tui::state::Startup;
    use crate::tui::workspace::Workspace;

    /// The sample account, with a run recorded a day earlier: one invoice of today's list
    /// was not on it, one paid invoice was, and one row still had a retry left.
    fn with_history() -> (tempfile::TempDir, Harness, String, String, String) {
        let dir = tempfile::tempdir().expect("tmp");
        let store = RunHistory::at(dir.path());
        let data = account();
        let now = crate::tui::sample::NOW;
        let today = dunning::build(&data, now).expect("worklist");
        let mut before = today.clone();
        before.now = now - 86_400;
        let new_id = before.rows.remove(0).invoice_id;
        let paid = data
            .invoices
            .iter()
            .find(|i| i.status == InvoiceStatus::Paid)
            .expect("a paid invoice")
            .clone();
        let mut paid_row = before.rows[0].clone();
        paid_row.invoice_id = paid.id.to_string();
        paid_row.amount_remaining = 12_345;
        paid_row.currency = paid.currency;
        before.rows.push(paid_row);
        let lost = today
            .rows
            .iter()
            .find(|r| !r.retries_left && r.invoice_id != new_id)
            .expect("a row without retry")
            .invoice_id
            .clone();
        for r in before.rows.iter_mut().filter(|r| r.invoice_id == lost) {
            r.retries_left = true;
        }
        record(&store, &data, &before, 35);
        let ws = Workspace::new(data, Vec::new()).with_history(Some(Session {
            store,
            lookup: Arc::new(NoLookup),
            keep_days: 35,
        }));
        let mut h = Harness::with_tabs(
            test_settings(Startup::Demo),
            vec![super::super::pane()],
            Box::new(move |_| Ok(ws.clone())),
            120,
            40,
        );
        h.start();
        (dir, h, new_id, lost, paid.id.to_string())
    }

    #[test]
    fn new_and_changed_rows_are_marked_and_the_panel_says_since_when() {
        let (dir, mut h, _new_id, _lost, paid) = with_history();
        let frame = h.frame();
        assert!(frame.contains("Since"), "{frame}");
        assert!(frame.contains("new "), "the marker column: {frame}");
        assert!(frame.contains("no retry"), "{frame}");
        let money = crate::money::Money::new(
            12_345,
            account()
                .invoices
                .iter()
                .find(|i| i.id == paid)
                .expect("paid")
                .currency,
        );
        let panel_text = format!(
            "since 2026-11-29T12:00:00Z: 1 new, 1 recovered ({}), 1 newly without retry",
            money.display()
        );
        // The panel wraps the line at its width: read its column back.
        let panel: String = frame
            .lines()
            .filter_map(|l| {
                l.rsplit_once("││")
                    .map(|(_, p)| p.trim_end_matches('│').trim())
            })
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            panel.contains(&panel_text),
            "{panel_text}\n{panel}\n{frame}"
        );
        insta::assert_snapshot!("worklist_since_120x40", frame);
        // Narrower than the side panel needs: the changes are on the summary line.
        h.resize(99, 30);
        let narrow = h.frame();
        assert!(narrow.contains("· since 2026-11-29: 1 new"), "{narrow}");
        // This load was recorded too.
        let data = account();
        let taken =
            RunHistory::at(dir.path()).taken(&data.meta.account_id, data.meta.mode.as_str());
        assert_eq!(taken.len(), 2, "{taken:?}");
    }

    #[test]
    fn the_facet_shows_only_the_new_and_changed_rows() {
        let (_dir, mut h, new_id, lost, _paid) = with_history();
        h.action(Action::Facets);
        h.action(Action::Bottom);
        h.action(Action::Open);
        h.action(Action::Back);
        let shown = h
            .state
            .focused()
            .and_then(|p| p.table())
            .map_or(0, |t| t.total());
        assert_eq!(shown, 2, "{}", h.frame());
        let frame = h.frame();
        assert!(frame.contains("new or changed"), "{frame}");
        // Only the two marked rows: the new one and the one that lost its retry.
        let marked: Vec<&str> = frame
            .lines()
            .filter(|l| l.starts_with("│new ") || l.starts_with("│no retry "))
            .collect();
        assert_eq!(marked.len(), 2, "{frame}");
        let data = account();
        let name_of = |id: &str| {
            let inv = data.invoices.iter().find(|i| i.id == id).expect("invoice");
            let cus = inv.customer.clone().unwrap_or_default();
            data.customers
                .iter()
                .find(|c| c.id == cus)
                .and_then(|c| c.name.clone())
                .unwrap_or_default()
        };
        for id in [&new_id, &lost] {
            let name = name_of(id);
            let short: String = name.chars().take(8).collect();
            assert!(marked.iter().any(|l| l.contains(&short)), "{name}\n{frame}");
        }
        // Clearing the facets shows every row again.
        h.action(Action::ClearFilter);
        let all = h
            .state
            .focused()
            .and_then(|p| p.table())
            .map_or(0, |t| t.total());
        assert_eq!(all, 8);
    }
}
