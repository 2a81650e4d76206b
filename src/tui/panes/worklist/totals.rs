//! The Worklist's totals: the summary line above the table on a narrow terminal and the
//! side panel on a wide one, per currency in the worklist's order. When a facet or the
//! text filter narrows the table, both say so and show the shown rows' totals next to
//! the whole list's.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::{facet_summary, key_hint, money};
use crate::domain::dunning::{self, Filter, Worklist};
use crate::money::Money;
use crate::tui::action::Action;
use crate::tui::pane::ViewCx;
use crate::tui::theme::Role;
use crate::tui::widgets::text::{fit, truncate};

fn join_money(ms: &[Money]) -> String {
    ms.iter().map(|m| money(*m)).collect::<Vec<_>>().join(", ")
}

pub(super) fn summary_line<'a>(
    w: &Worklist,
    f: &Filter,
    part: Option<&[usize]>,
    cx: &ViewCx<'_>,
) -> Line<'a> {
    let theme = cx.theme;
    let whole = join_money(&w.ordered(&w.outstanding()));
    let mut spans = match part {
        None => vec![
            Span::styled(
                format!(" {} to work: ", w.rows.len()),
                theme.style(Role::Title),
            ),
            Span::styled(
                if w.rows.is_empty() {
                    "nothing outstanding".to_string()
                } else {
                    whole
                },
                theme.style(Role::Text),
            ),
        ],
        // Filtered: the shown rows' totals, then the whole list's, each named.
        Some(rows) => {
            let shown = w.totals_of(rows.iter().filter_map(|i| w.rows.get(*i)));
            let label = if f.is_empty() {
                String::new()
            } else {
                format!(" ({})", facet_summary(f))
            };
            vec![
                Span::styled(
                    format!(" shown {} of {}{label}: ", rows.len(), w.rows.len()),
                    theme.style(Role::Prompt),
                ),
                Span::styled(
                    if shown.is_empty() {
                        "nothing".to_string()
                    } else {
                        join_money(&currency_totals(&shown))
                    },
                    theme.style(Role::Text),
                ),
                Span::styled(format!(" · whole list: {whole}"), theme.style(Role::Muted)),
            ]
        }
    };
    let nr = w.no_retry_count();
    if nr > 0 && part.is_none() {
        spans.push(Span::styled(
            format!(" · {nr} no retry left"),
            theme.style(Role::Failed),
        ));
    }
    spans.push(Span::styled(
        format!("  {} filters", key_hint(cx, Action::Facets)),
        theme.style(Role::Muted),
    ));
    Line::from(spans)
}

/// The outstanding amount of each currency total.
fn currency_totals(ts: &[dunning::CurrencyTotal]) -> Vec<Money> {
    ts.iter()
        .map(|t| Money::new(t.amount_remaining, t.currency))
        .collect()
}

// ---------------------------------------------------------------- side panel

pub(super) fn render_totals(
    w: &Worklist,
    part: Option<&[usize]>,
    area: Rect,
    buf: &mut Buffer,
    cx: &ViewCx<'_>,
) {
    let theme = cx.theme;
    let inner = crate::tui::widgets::panel::titled("Totals", area, buf, theme);
    let width = usize::from(inner.width);
    let pair = |left: &str, right: String, role: Role| -> Line<'static> {
        let rw = right.chars().count().min(width);
        let lw = width.saturating_sub(rw + 1);
        Line::from(vec![
            Span::styled(fit(left, lw, false), theme.style(Role::Text)),
            Span::raw(" "),
            Span::styled(truncate(&right, rw), theme.style(role)),
        ])
    };
    let mut lines: Vec<Line<'static>> = Vec::new();
    let outstanding = |lines: &mut Vec<Line<'static>>, totals: &[dunning::CurrencyTotal]| {
        if totals.is_empty() {
            lines.push(Line::styled("nothing", theme.style(Role::Muted)));
        }
        for t in totals {
            lines.push(pair(
                &format!("{} ({})", t.currency.upper(), t.count),
                money(Money::new(t.amount_remaining, t.currency)),
                Role::AmountPositive,
            ));
        }
    };
    // Filtered: what the shown rows total first, then the whole list, each named; the
    // sections below always cover the whole list.
    if let Some(rows) = part {
        lines.push(Line::styled(
            format!("Outstanding, shown ({} of {})", rows.len(), w.rows.len()),
            theme.style(Role::Prompt),
        ));
        outstanding(
            &mut lines,
            &w.totals_of(rows.iter().filter_map(|i| w.rows.get(*i))),
        );
        lines.push(Line::styled(
            format!("Outstanding, whole list ({})", w.rows.len()),
            theme.style(Role::Header),
        ));
    } else {
        lines.push(Line::styled("Outstanding", theme.style(Role::Header)));
    }
    outstanding(&mut lines, &w.totals_by_currency);
    lines.push(Line::styled(
        if part.is_some() {
            "No retry left (whole list)"
        } else {
            "No automatic retry left"
        },
        theme.style(Role::Header),
    ));
    let nr = w.no_retry_left();
    if nr.is_empty() {
        lines.push(Line::styled("none", theme.style(Role::Muted)));
    }
    for t in w.totals_by_currency.iter().filter(|t| t.no_retry_count > 0) {
        lines.push(pair(
            &format!("{} ({})", t.currency.upper(), t.no_retry_count),
            money(Money::new(t.no_retry_amount, t.currency)),
            Role::Failed,
        ));
    }
    lines.push(Line::styled(
        if part.is_some() {
            "By decline (whole list)"
        } else {
            "By decline"
        },
        theme.style(Role::Header),
    ));
    for t in &w.totals_by_decline_code {
        lines.push(pair(&t.key.label(), t.count.to_string(), Role::Text));
        for m in w.ordered(&t.amounts) {
            lines.push(Line::styled(
                fit(&money(m), width, true),
                theme.style(Role::Muted),
            ));
        }
    }
    if !w.uncollectible.is_empty() {
        lines.push(Line::styled(
            "Uncollectible (written off)",
            theme.style(Role::Header),
        ));
        for u in &w.uncollectible {
            lines.push(pair(
                &format!("{} ({})", u.currency.upper(), u.count),
                money(Money::new(u.amount_remaining, u.currency)),
                Role::Muted,
            ));
        }
    }
    Paragraph::new(lines).render(inner, buf);
}
