//! The Worklist's facets in words: the summary in the table's title and the line above it.

use ratatui::text::{Line, Span};

use crate::domain::dunning::Filter;
use crate::tui::action::Action;
use crate::tui::pane::ViewCx;
use crate::tui::theme::Role;

// ---------------------------------------------------------------- facets

pub(super) fn facet_summary(f: &Filter) -> String {
    let mut parts = Vec::new();
    if f.no_retry_left {
        parts.push("no retry left".to_string());
    }
    if let Some(k) = &f.decline {
        parts.push(k.label());
    }
    if let Some(c) = f.currency {
        parts.push(c.upper());
    }
    if let Some(a) = f.action {
        parts.push(a.label().to_string());
    }
    parts.join(" · ")
}

pub(super) fn key_hint(cx: &ViewCx<'_>, a: Action) -> String {
    cx.keymap.key_for(a).unwrap_or_else(|| a.name().to_string())
}

pub(super) fn facet_line<'a>(f: &Filter, shown: usize, total: usize, cx: &ViewCx<'_>) -> Line<'a> {
    let theme = cx.theme;
    let mut spans = vec![Span::styled(" Showing ", theme.style(Role::Muted))];
    if f.is_empty() {
        spans.push(Span::styled(
            format!("all {total} invoices"),
            theme.style(Role::Text),
        ));
    } else {
        spans.push(Span::styled(
            format!("{shown} of {total}: {}", facet_summary(f)),
            theme.style(Role::Prompt),
        ));
    }
    spans.push(Span::styled(
        format!(
            "  {} filter by retry, decline, currency, action",
            key_hint(cx, Action::Facets)
        ),
        theme.style(Role::Muted),
    ));
    Line::from(spans)
}
