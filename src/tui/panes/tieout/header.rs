//! The Tie-out tab's header: the month selector, the counts, one line per currency and
//! the bank summary, fitted to the width.

use ratatui::text::{Line, Span};

use super::{TieOutPane, bank, gaps};
use crate::domain::tieout::Verdict;
use crate::money::format_major_grouped;
use crate::time::{Month, zone_name};
use crate::tui::action::Action;
use crate::tui::pane::ViewCx;
use crate::tui::theme::Role;

/// The month selector, `[ ◀ October 2026 ▶ ]  UTC`, with the keys as bound (the payouts
/// and the Balance view share it).
pub(super) fn selector(month: Month, cx: &ViewCx<'_>) -> Vec<Span<'static>> {
    let theme = cx.theme;
    let key = |a: Action| cx.keymap.key_for(a).unwrap_or_else(|| a.name().to_string());
    vec![
        Span::styled(
            format!("{} ", key(Action::PrevMonth)),
            theme.style(Role::Muted),
        ),
        Span::styled(format!("◀ {} ▶", month.title()), theme.style(Role::Title)),
        Span::styled(
            format!(" {}", key(Action::NextMonth)),
            theme.style(Role::Muted),
        ),
        Span::styled(format!("  {}", zone_name(cx.tz)), theme.style(Role::Muted)),
    ]
}

impl TieOutPane {
    /// The last close packet's and journal's outcome (both views show them: `P` and `J`
    /// work in either).
    pub(super) fn export_lines(&self, cx: &ViewCx<'_>, width: u16) -> Vec<Line<'static>> {
        let theme = cx.theme;
        let mut lines = Vec::new();
        if let Some((text, role)) = &self.packet_line {
            // Wrapped between words: a refusal says what is missing and what to do.
            for l in textwrap::wrap(text, usize::from(width.max(1))) {
                lines.push(Line::styled(l.into_owned(), theme.style(*role)));
            }
        }
        if let Some((text, role)) = &self.journal.line {
            lines.push(Line::styled(text.clone(), theme.style(*role)));
        }
        lines
    }

    /// The month selector, the counts and one line per currency, fitted to `width`.
    pub(super) fn header_lines(&self, cx: &ViewCx<'_>, width: u16) -> Vec<Line<'static>> {
        let theme = cx.theme;
        let Some(month) = self.month else {
            return vec![];
        };
        let selector = selector(month, cx);
        let mut counts: Vec<Span<'static>> = Vec::new();
        let mut lines = Vec::new();
        match &self.result {
            None => counts.push(Span::styled("tying out…", theme.style(Role::Pending))),
            Some(t) if t.is_empty() => {
                let gap = gaps::payouts(&self.gaps);
                let role = if gap.is_some() {
                    Role::Warning
                } else {
                    Role::Muted
                };
                counts.push(Span::styled(
                    gaps::empty_month(gap, &self.refresh_key),
                    theme.style(role),
                ))
            }
            Some(t) => {
                let c = &t.counts;
                let count = |v: Verdict| t.payouts.iter().filter(|p| p.verdict == v).count();
                counts.push(Span::styled(
                    format!("{} payouts: ", c.payouts),
                    theme.style(Role::Text),
                ));
                let parts = [
                    (c.tied, "tied", Role::Matched),
                    (c.differences, "difference", Role::Difference),
                    (c.not_itemisable, "not itemisable", Role::Muted),
                    (c.in_progress, "in progress", Role::Pending),
                    (count(Verdict::Failed), "failed", Role::Failed),
                    (count(Verdict::Canceled), "canceled", Role::Failed),
                    (count(Verdict::Reversed), "reversed", Role::Failed),
                ];
                // "0 failed" and "0 canceled" are noise: shown only when there is one.
                let parts = parts
                    .into_iter()
                    .filter(|(n, _, role)| *n > 0 || *role != Role::Failed);
                for (i, (n, label, role)) in parts.enumerate() {
                    if i > 0 {
                        counts.push(Span::styled(" · ", theme.style(Role::Muted)));
                    }
                    let role = if n == 0 { Role::Muted } else { role };
                    let plural = if n != 1 && label == "difference" {
                        "s"
                    } else {
                        ""
                    };
                    counts.push(Span::styled(
                        format!("{n} {label}{plural}"),
                        theme.style(role),
                    ));
                }
                const SHOWN: usize = 3;
                for x in t.totals.iter().take(SHOWN) {
                    let g = |v: i64| format_major_grouped(v, x.currency);
                    let mut spans = vec![
                        Span::styled(format!("{} ", x.currency), theme.style(Role::Title)),
                        Span::styled(
                            format!(
                                "{} payout{} {} · lines' net {} of {} itemised",
                                x.counts.payouts,
                                if x.counts.payouts == 1 { "" } else { "s" },
                                g(x.payouts_amount),
                                g(x.lines_net),
                                g(x.itemised_amount),
                            ),
                            theme.style(Role::Text),
                        ),
                    ];
                    if x.difference != 0 {
                        spans.push(Span::styled(
                            format!(" · difference {}", g(x.difference)),
                            theme.style(Role::Difference),
                        ));
                    }
                    spans.push(Span::styled(
                        format!(
                            " · fees {} · refunds {} · disputes {}",
                            g(x.fee),
                            g(x.refunds),
                            g(x.disputes)
                        ),
                        theme.style(Role::Muted),
                    ));
                    lines.push(Line::from(spans));
                }
                if t.totals.len() > SHOWN {
                    lines.push(Line::styled(
                        format!(
                            "and {} more currencies (see the export)",
                            t.totals.len() - SHOWN
                        ),
                        theme.style(Role::Muted),
                    ));
                }
            }
        }
        if let Some(m) = &self.bank {
            lines.push(bank::summary(m, theme));
        } else if self.bank_pending.is_some() {
            lines.push(Line::styled("Bank: matching…", theme.style(Role::Pending)));
        }
        lines.extend(self.export_lines(cx, width));
        let one = Line::from(selector.clone());
        let both = one.width() + 3 + Line::from(counts.clone()).width();
        if both <= usize::from(width) {
            let mut first = selector;
            first.push(Span::raw("   "));
            first.extend(counts);
            lines.insert(0, Line::from(first));
        } else {
            lines.insert(0, Line::from(counts));
            lines.insert(0, one);
        }
        lines
    }
}
