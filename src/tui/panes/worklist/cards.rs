//! Cards that will fail, in the Worklist: a view the facet picker switches to (`f`,
//! "View"), listing the active subscriptions whose card expires before their renewal
//! with the amount at risk per currency in the side panel, or, when the cards could not
//! be read, what is missing and what to do. The rule is `domain::dunning::expiring` (the
//! same as `tieout dunning`'s section), run in the worklist job.

use super::*;
use crate::domain::dunning::expiring::ExpiringCard;
use crate::report::expiring_cards::{ExpiringSection, FIELDS};
use crate::report::fields;
use crate::tui::widgets::table::{ColumnDef, cell_of, field_col};

/// The table title of the view.
pub(super) const TITLE: &str = "Cards that will fail before renewal";

/// The view's columns, in order: a field of the expiring card row's one declaration
/// (`report::expiring_cards::FIELDS`) and the most it is drawn wide.
const SHOWN: &[(&str, u16)] = &[
    ("customer", 18),
    ("card", 16),
    ("expires", 7),
    ("renews_at_utc", 10),
    ("amount_at_risk", 14),
    ("subscription_id", 30),
];

/// The amount at risk, or a muted `unknown` when tieout cannot tell it.
fn at_risk(r: &ExpiringCard) -> Cell<'_> {
    match r.amount {
        Some(a) => Cell::Money(Money::new(a, r.currency)),
        None => Cell::Tag("unknown".into(), Role::Muted),
    }
}

/// The view's table: one row per subscription, soonest renewal first.
pub(super) fn source(section: &ExpiringSection) -> RowsSource<ExpiringCard> {
    let rows = match section {
        ExpiringSection::Found(f) => f.rows.clone(),
        _ => Vec::new(),
    };
    let columns = SHOWN
        .iter()
        .filter_map(|&(name, width)| {
            let field = fields::field(FIELDS, name)?;
            Some(match name {
                "expires" => ColumnDef {
                    title: field.pane_title(),
                    max_width: width,
                    get: cell_of(move |r: &ExpiringCard| {
                        Cell::Tag(field.people_text(r).into(), Role::Warning)
                    }),
                },
                "amount_at_risk" => ColumnDef {
                    title: field.pane_title(),
                    max_width: width,
                    get: cell_of(at_risk),
                },
                _ => field_col(*field, width, |r: &ExpiringCard| r),
            })
        })
        .collect();
    RowsSource::new(rows, columns)
}

/// What the table says when it has no rows.
pub(super) fn empty_text(section: &ExpiringSection) -> String {
    section.not_checked().unwrap_or_else(|| {
        "No active subscription's card expires before its next renewal.".to_string()
    })
}

/// How many subscriptions the view lists (`None`: the cards were not checked).
pub(super) fn count(section: &ExpiringSection) -> Option<usize> {
    match section {
        ExpiringSection::Found(f) => Some(f.rows.len()),
        _ => None,
    }
}

/// Whether the picker offers the view: the data had a card read (done or refused); a
/// cache from before tieout read cards has nothing to show.
pub(super) fn offered(section: &ExpiringSection) -> bool {
    !matches!(section, ExpiringSection::NotRead)
}

/// The picker's "View" choices: the invoices, or the cards (with how many, or "not
/// checked").
pub(super) fn picker_options(section: &ExpiringSection, invoices: usize) -> Vec<PickerOption> {
    let (label, n) = match count(section) {
        Some(n) => ("cards that will fail before renewal".to_string(), n),
        None => (
            "cards that will fail before renewal: not checked".to_string(),
            0,
        ),
    };
    vec![
        PickerOption {
            value: Choice::Invoices,
            label: "failed invoices".into(),
            count: invoices,
        },
        PickerOption {
            value: Choice::ExpiringCards,
            label,
            count: n,
        },
    ]
}

/// The line above the table in the view.
pub(super) fn view_line<'a>(section: &ExpiringSection, cx: &ViewCx<'_>) -> Line<'a> {
    let theme = cx.theme;
    let mut spans = vec![Span::styled(" Showing ", theme.style(Role::Muted))];
    match section {
        ExpiringSection::Found(f) => spans.push(Span::styled(
            format!(
                "{} subscriptions whose card expires before renewal",
                f.rows.len()
            ),
            theme.style(Role::Prompt),
        )),
        _ => spans.push(Span::styled(
            "cards not checked",
            theme.style(Role::Warning),
        )),
    }
    spans.push(Span::styled(
        format!("  {} view: invoices or cards", key_hint(cx, Action::Facets)),
        theme.style(Role::Muted),
    ));
    Line::from(spans)
}

/// The side panel in the view: how many, and the amount at risk per currency (the
/// worklist's currency order).
pub(super) fn render_panel(
    section: &ExpiringSection,
    w: &Worklist,
    area: Rect,
    buf: &mut Buffer,
    cx: &ViewCx<'_>,
) {
    let theme = cx.theme;
    let inner = crate::tui::widgets::panel::titled("At risk", area, buf, theme);
    let width = usize::from(inner.width);
    let mut lines: Vec<Line<'static>> = Vec::new();
    match section {
        ExpiringSection::Found(f) => {
            lines.push(Line::styled(
                format!("{} subscriptions", f.rows.len()),
                theme.style(Role::Header),
            ));
            for m in w.ordered(&f.at_risk) {
                lines.push(Line::styled(
                    fit(&money(m), width, true),
                    theme.style(Role::Text),
                ));
            }
            if f.unknown_amount > 0 {
                lines.push(Line::styled(
                    format!("{} of unknown amount", f.unknown_amount),
                    theme.style(Role::Muted),
                ));
            }
            lines.push(Line::raw(""));
            for chunk in since::wrap(
                "The card is the subscription's default, else the customer's invoice default; it works through the end of its expiry month.",
                width,
            ) {
                lines.push(Line::styled(chunk, theme.style(Role::Muted)));
            }
        }
        other => {
            for chunk in since::wrap(&other.not_checked().unwrap_or_default(), width) {
                lines.push(Line::styled(chunk, theme.style(Role::Warning)));
            }
        }
    }
    Paragraph::new(lines).render(inner, buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_column_of_the_view_is_a_declared_field() {
        for (name, _) in SHOWN {
            assert!(fields::field(FIELDS, name).is_some(), "{name}");
        }
    }
}
