//! The facets picker: the view (the failed invoices, or the cards that will fail) and the
//! choices (action, decline, currency, no retry) the worklist can be narrowed by, with
//! their counts, and drawing the picker.

use super::*;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Choice {
    AnyRetry,
    NoRetryLeft,
    AnyDecline,
    Decline(DeclineKey),
    AnyCurrency,
    Currency(Currency),
    AnyAction,
    Action(Todo),
    /// Any row, or only the rows new or changed since the last session (the pane keeps
    /// this facet itself: the worklist's filter knows no history).
    AnyChange,
    Changed,
    /// The view: the failed invoices, or the cards that will fail before renewal (the
    /// pane keeps this itself).
    Invoices,
    ExpiringCards,
}

impl Choice {
    pub(super) fn group(&self) -> &'static str {
        match self {
            Choice::AnyRetry | Choice::NoRetryLeft => "Automatic retries",
            Choice::AnyDecline | Choice::Decline(_) => "Decline",
            Choice::AnyCurrency | Choice::Currency(_) => "Currency",
            Choice::AnyAction | Choice::Action(_) => "Action",
            Choice::AnyChange | Choice::Changed => "Since last time",
            Choice::Invoices | Choice::ExpiringCards => "View",
        }
    }

    pub(super) fn apply(&self, f: &mut Filter) {
        match self {
            Choice::AnyRetry => f.no_retry_left = false,
            Choice::NoRetryLeft => f.no_retry_left = true,
            Choice::AnyDecline => f.decline = None,
            Choice::Decline(k) => f.decline = Some(k.clone()),
            Choice::AnyCurrency => f.currency = None,
            Choice::Currency(c) => f.currency = Some(*c),
            Choice::AnyAction => f.action = None,
            Choice::Action(a) => f.action = Some(*a),
            Choice::AnyChange | Choice::Changed | Choice::Invoices | Choice::ExpiringCards => {}
        }
    }

    pub(super) fn chosen(&self, f: &Filter) -> bool {
        match self {
            Choice::AnyRetry => !f.no_retry_left,
            Choice::NoRetryLeft => f.no_retry_left,
            Choice::AnyDecline => f.decline.is_none(),
            Choice::Decline(k) => f.decline.as_ref() == Some(k),
            Choice::AnyCurrency => f.currency.is_none(),
            Choice::Currency(c) => f.currency == Some(*c),
            Choice::AnyAction => f.action.is_none(),
            Choice::Action(a) => f.action == Some(*a),
            // Decided by the picker's `changed_only` and `cards_view`.
            Choice::AnyChange | Choice::Changed | Choice::Invoices | Choice::ExpiringCards => false,
        }
    }
}

pub(super) struct PickerOption {
    pub(super) value: Choice,
    pub(super) label: String,
    pub(super) count: usize,
}

/// The facet picker: a list of choices grouped by facet; Enter picks one per group.
pub(super) struct Picker {
    pub(super) options: Vec<PickerOption>,
    pub(super) cursor: usize,
    /// What is chosen now (redrawn from the pane's filter on every pick).
    pub(super) filter: Filter,
    pub(super) offset: usize,
    /// The pane's "only new or changed" facet.
    pub(super) changed_only: bool,
    /// The pane shows the cards that will fail instead of the invoices.
    pub(super) cards_view: bool,
}

impl Picker {
    pub(super) fn new(w: &Worklist, f: &Filter) -> Self {
        let count = |pred: &dyn Fn(&WorkRow) -> bool| w.rows.iter().filter(|r| pred(r)).count();
        let n = w.rows.len();
        let mut options = vec![
            PickerOption {
                value: Choice::AnyRetry,
                label: "any".into(),
                count: n,
            },
            PickerOption {
                value: Choice::NoRetryLeft,
                label: "no automatic retry left".into(),
                count: w.no_retry_count(),
            },
            PickerOption {
                value: Choice::AnyDecline,
                label: "any".into(),
                count: n,
            },
        ];
        for t in &w.totals_by_decline_code {
            options.push(PickerOption {
                value: Choice::Decline(t.key.clone()),
                label: t.key.label(),
                count: t.count,
            });
        }
        options.push(PickerOption {
            value: Choice::AnyCurrency,
            label: "any".into(),
            count: n,
        });
        for t in &w.totals_by_currency {
            options.push(PickerOption {
                value: Choice::Currency(t.currency),
                label: t.currency.upper(),
                count: t.count,
            });
        }
        options.push(PickerOption {
            value: Choice::AnyAction,
            label: "any".into(),
            count: n,
        });
        for a in w.actions() {
            options.push(PickerOption {
                value: Choice::Action(a),
                label: a.label().into(),
                count: count(&|r| r.action() == a),
            });
        }
        Picker {
            options,
            cursor: 0,
            filter: f.clone(),
            offset: 0,
            changed_only: false,
            cards_view: false,
        }
    }

    pub(super) fn render(&mut self, area: Rect, buf: &mut Buffer, cx: &ViewCx<'_>) {
        let theme = cx.theme;
        let block = Block::bordered()
            .border_style(theme.style(Role::Border))
            .title(Line::from(vec![
                Span::styled(" Filter the worklist ", theme.style(Role::Title)),
                Span::styled(
                    format!(
                        "{} choose · {} done · {} clear ",
                        key_hint(cx, Action::Open),
                        key_hint(cx, Action::Back),
                        key_hint(cx, Action::ClearFilter)
                    ),
                    theme.style(Role::Muted),
                ),
            ]));
        let inner = block.inner(area);
        block.render(area, buf);
        // Lines: a header before each group, then its options.
        let mut lines: Vec<(Option<usize>, Line<'_>)> = Vec::new();
        let mut group = "";
        let width = usize::from(inner.width);
        for (i, o) in self.options.iter().enumerate() {
            if o.value.group() != group {
                group = o.value.group();
                lines.push((None, Line::styled(group, theme.style(Role::Header))));
            }
            let chosen = match o.value {
                Choice::AnyChange => !self.changed_only,
                Choice::Changed => self.changed_only,
                Choice::Invoices => !self.cards_view,
                Choice::ExpiringCards => self.cards_view,
                _ => o.value.chosen(&self.filter),
            };
            let mark = if chosen { "(•)" } else { "( )" };
            let pointer = if i == self.cursor { "›" } else { " " };
            let text = fit(
                &format!("{pointer} {mark} {} ({})", o.label, o.count),
                width,
                false,
            );
            let style = if i == self.cursor {
                theme.style(Role::Selection)
            } else {
                theme.style(Role::Text)
            };
            lines.push((Some(i), Line::styled(text, style)));
        }
        let h = usize::from(inner.height);
        let at = lines
            .iter()
            .position(|(i, _)| *i == Some(self.cursor))
            .unwrap_or(0);
        if at < self.offset {
            // Show the group header with the first option of a group.
            self.offset = at.saturating_sub(1);
        }
        if h > 0 && at >= self.offset + h {
            self.offset = at + 1 - h;
        }
        let visible: Vec<Line<'_>> = lines
            .into_iter()
            .skip(self.offset)
            .take(h)
            .map(|(_, l)| l)
            .collect();
        Paragraph::new(visible).render(inner, buf);
    }
}
