//! Drawing the frame from the state: tab line, the focused pane (or the loading / error
//! body), the status bar, the key-hint line (generated from the keymap), the prompt, the
//! help overlay and the command palette (`palette_view`). Below the minimum size, one
//! "terminal too small" line.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget, Wrap};

use super::action::{Action, Group};
use super::keymap::{self, chord_text};
use super::pane::ViewCx;
use super::state::{Mode, PromptKind, Rest, State};
use super::theme::{Role, Theme};
use super::widgets::text::{fit, width};
use super::workspace::LoadState;
use crate::model::{Mode as AccountMode, Origin};

/// The smallest terminal the workbench draws in.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 15;

/// Draws the whole frame.
pub fn render(state: &mut State, frame: &mut Frame<'_>) {
    let area = frame.area();
    draw(state, area, frame.buffer_mut());
}

/// Draws the whole frame into a buffer (tests and screenshots use this directly).
pub fn draw(state: &mut State, area: Rect, buf: &mut Buffer) {
    state.tab_hits.clear();
    let base = state.theme.style(Role::Text);
    buf.set_style(area, base);
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let msg = format!(
            "terminal too small (need {MIN_WIDTH}x{MIN_HEIGHT}, have {}x{})",
            area.width, area.height
        );
        let p = Paragraph::new(msg)
            .style(state.theme.style(Role::Warning))
            .wrap(Wrap { trim: true })
            .centered();
        let y = area.y + area.height / 2;
        p.render(
            Rect {
                y: y.saturating_sub(1).max(area.y),
                height: area.height.min(3),
                ..area
            },
            buf,
        );
        return;
    }
    let [tabs, body, status, hints] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    draw_tabs(state, tabs, buf);
    draw_body(state, body, buf);
    draw_status(state, status, buf);
    draw_hints(state, hints, buf);
    if state.mode == Mode::Help {
        draw_help(state, body, buf);
    }
    if let Mode::Palette(p) = &state.mode {
        super::palette_view::draw(state, p, body, buf);
    }
}

fn draw_tabs(state: &mut State, area: Rect, buf: &mut Buffer) {
    let theme = &state.theme;
    let mut x = area.x;
    let brand = " tieout ";
    buf.set_stringn(x, area.y, brand, width(brand), theme.style(Role::Title));
    x += u16::try_from(width(brand)).unwrap_or(0);
    for (i, tab) in state.tabs.iter().enumerate() {
        let label = format!(" {} {} ", i + 1, tab.title());
        let w = u16::try_from(width(&label)).unwrap_or(0);
        if x + w > area.x + area.width {
            break;
        }
        let role = if i == state.active {
            Role::TabActive
        } else {
            Role::TabInactive
        };
        buf.set_stringn(x, area.y, &label, usize::from(w), theme.style(role));
        state.tab_hits.push((
            Rect {
                x,
                y: area.y,
                width: w,
                height: 1,
            },
            i,
        ));
        x += w + 1;
    }
    // Breadcrumb of drill-down screens.
    let mut crumbs = String::new();
    for (_, s) in &state.screens {
        crumbs.push_str(" › ");
        crumbs.push_str(&s.title());
    }
    if !crumbs.is_empty() && x < area.x + area.width {
        let room = usize::from(area.x + area.width - x);
        buf.set_stringn(x, area.y, &crumbs, room, theme.style(Role::Muted));
    }
}

/// Draws `marks` (one each, wrapped between words under its text, at most a third of the
/// height) at the top of `area` and returns what is left below them.
fn draw_marks(marks: &[String], area: Rect, buf: &mut Buffer, theme: &Theme) -> Rect {
    if marks.is_empty() || area.height < 6 {
        return area;
    }
    let width = usize::from(area.width.max(1));
    let mut lines: Vec<String> = Vec::new();
    for m in marks {
        let text = format!("! {m}");
        let opts = textwrap::Options::new(width).subsequent_indent("  ");
        lines.extend(
            textwrap::wrap(&text, opts)
                .into_iter()
                .map(|l| l.into_owned()),
        );
    }
    let room = usize::from(area.height / 3).max(1);
    let shown = lines.len().min(room);
    for (i, l) in lines.iter().take(shown).enumerate() {
        let y = area.y + u16::try_from(i).unwrap_or(0);
        buf.set_stringn(area.x, y, l, width, theme.style(Role::Warning));
    }
    let used = u16::try_from(shown).unwrap_or(0);
    Rect {
        y: area.y + used,
        height: area.height - used,
        ..area
    }
}

fn draw_body(state: &mut State, area: Rect, buf: &mut Buffer) {
    let has_data = state.core.workspace.is_some();
    let rest = state.waiting_for_rest().cloned();
    if has_data && rest.is_none() {
        let State {
            tabs,
            screens,
            active,
            theme,
            keymap,
            core,
            load,
            ..
        } = state;
        let cx = ViewCx {
            theme,
            keymap,
            tz: &core.tz,
            now: core.now,
            load,
        };
        // The active tab's marks for what the key could not read, above its pane (and
        // above its drill-down screens, which read the same).
        let marks = match (tabs.get(*active), &core.workspace) {
            (Some(tab), Some(ws)) => tab.reads().marks(&ws.gaps),
            _ => Vec::new(),
        };
        let area = draw_marks(&marks, area, buf, theme);
        let pane = match screens.last_mut() {
            Some((_, p)) => Some(p),
            None => tabs.get_mut(*active),
        };
        if let Some(p) = pane {
            p.render(area, buf, &cx);
        }
        return;
    }
    let theme = &state.theme;
    let key = |a: Action| {
        state
            .keymap
            .key_for(a)
            .unwrap_or_else(|| a.name().to_string())
    };
    let block = Block::bordered().border_style(theme.style(Role::Border));
    let inner = block.inner(area);
    block.render(area, buf);
    let lines: Vec<Line<'_>> = match &state.load {
        LoadState::Idle => vec![],
        LoadState::Loading { progress, .. } => vec![Line::from(vec![
            Span::styled(
                format!("{} ", state.spinner_glyph()),
                theme.style(Role::Spinner),
            ),
            Span::styled(
                match progress {
                    Some(p) => format!("Loading the account: {p}"),
                    None => format!(
                        "Loading the account{}",
                        state
                            .busy_label()
                            .map(|l| format!(" ({l})"))
                            .unwrap_or_default()
                    ),
                },
                theme.style(Role::Text),
            ),
        ])],
        LoadState::Failed { message } => vec![
            Line::styled("Could not load the account.", theme.style(Role::Error)),
            Line::raw(""),
            Line::styled(message.clone(), theme.style(Role::Text)),
            Line::raw(""),
            Line::styled(
                format!(
                    "Press {} to retry, {} to quit. `tieout demo` opens the demo account.",
                    key(Action::Refresh),
                    key(Action::Quit)
                ),
                theme.style(Role::Muted),
            ),
        ],
        LoadState::Loaded => vec![],
    };
    let lines = match rest {
        Some(Rest::Loading(_)) => vec![Line::from(vec![
            Span::styled(
                format!("{} ", state.spinner_glyph()),
                theme.style(Role::Spinner),
            ),
            Span::styled("Loading the payouts…", theme.style(Role::Text)),
        ])],
        Some(Rest::Failed(message)) => vec![
            Line::styled("Could not load the payouts.", theme.style(Role::Error)),
            Line::raw(""),
            Line::styled(message, theme.style(Role::Text)),
            Line::raw(""),
            Line::styled(
                format!("Press {} to read the account again.", key(Action::Refresh)),
                theme.style(Role::Muted),
            ),
        ],
        None => lines,
    };
    let h = u16::try_from(lines.len()).unwrap_or(0) + 2;
    let y = inner.y + inner.height.saturating_sub(h) / 2;
    let margin = inner.width / 10;
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .centered()
        .render(
            Rect {
                x: inner.x + margin,
                y,
                width: inner.width.saturating_sub(2 * margin),
                height: inner.height.saturating_sub(y - inner.y),
            },
            buf,
        );
}

/// "3h", "2d": how old the data is.
pub fn age(secs: i64) -> String {
    let s = secs.max(0);
    if s < 60 {
        "<1m".into()
    } else if s < 3600 {
        format!("{}m", s / 60)
    } else if s < 86_400 {
        format!("{}h", s / 3600)
    } else {
        format!("{}d", s / 86_400)
    }
}

fn draw_status(state: &State, area: Rect, buf: &mut Buffer) {
    let theme = &state.theme;
    let bar = theme.style(Role::StatusBar);
    buf.set_style(area, bar);
    let mut spans: Vec<Span<'_>> = Vec::new();
    match state.core.workspace.as_ref().map(|w| &w.data.meta) {
        Some(meta) => {
            let who = meta
                .account_name
                .clone()
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| meta.account_id.clone());
            spans.push(Span::styled(format!(" {who} "), bar));
            spans.push(match meta.mode {
                AccountMode::Test => Span::styled(" TEST MODE ", theme.style(Role::ModeTest)),
                AccountMode::Live => Span::styled(" LIVE ", theme.style(Role::ModeLive)),
            });
            let source = match meta.origin {
                Origin::Demo => "demo data".to_string(),
                Origin::Live => "live".to_string(),
                Origin::Cache => format!("cache, {} old", age(state.core.now - meta.fetched_at)),
            };
            // A narrow bar gives the age's room to the offer of newer data.
            if state.newer.is_none() || area.width >= 100 {
                spans.push(Span::styled(format!(" {source} "), bar));
            }
            if let Some(newer) = &state.newer {
                spans.push(Span::styled(
                    format!(" {} ", newer_banner(state, newer.fetched_at)),
                    theme.style(Role::Prompt).patch(bar),
                ));
            }
        }
        None => spans.push(Span::styled(" no account loaded ", bar)),
    }
    if let Some((sel, n)) = state
        .focused()
        .and_then(|p| p.table())
        .and_then(|t| t.position())
    {
        spans.push(Span::styled(format!("│ row {sel}/{n} "), bar));
    }
    if !state.pending_keys.is_empty() {
        spans.push(Span::styled(
            format!("│ {} … ", chord_text(&state.pending_keys)),
            theme.style(Role::Prompt).patch(bar),
        ));
    }
    if let Some(label) = state.busy_label() {
        spans.push(Span::styled(
            format!("│ {} ", state.spinner_glyph()),
            theme.style(Role::Spinner).patch(bar),
        ));
        spans.push(Span::styled(format!("{label}… "), bar));
    }
    let used = Line::from(spans);
    let used_w = used.width();
    buf.set_line(area.x, area.y, &used, area.width);
    if let Some(t) = &state.core.toast {
        let room = usize::from(area.width).saturating_sub(used_w + 1);
        if room > 4 {
            let text = fit(
                &format!(" {} ", t.text),
                room.min(width(&t.text) + 2),
                false,
            );
            let w = width(&text);
            let x = area.x + area.width - u16::try_from(w).unwrap_or(0);
            let role = if t.error { Role::Error } else { Role::Toast };
            buf.set_stringn(x, area.y, text, w, theme.style(role));
        }
    }
}

/// "newer data from 07:30 — r to load": what the live refresh offers, with the key.
fn newer_banner(state: &State, fetched_at: i64) -> String {
    let at = crate::time::clock_in(fetched_at, state.core.now, &state.core.tz);
    match state.keymap.key_for(Action::Refresh) {
        Some(key) => format!("newer data from {at} — {key} to load"),
        None => format!("newer data from {at}"),
    }
}

/// The keys of the input layer for `what` each does, as `enter run · esc close`.
fn typing_keys(state: &State, what: &[(Action, &str)]) -> String {
    let keys: Vec<String> = what
        .iter()
        .filter_map(|(a, what)| {
            let key = state.keymap.key_in(Some(keymap::INPUT), *a)?;
            Some(format!("{key} {what}"))
        })
        .collect();
    keys.join(" · ")
}

fn draw_hints(state: &State, area: Rect, buf: &mut Buffer) {
    let theme = &state.theme;
    if let Mode::Palette(_) = &state.mode {
        let mut keys = typing_keys(state, &[(Action::Submit, "run"), (Action::Cancel, "close")]);
        let moves = [Action::PrevHistory, Action::NextHistory]
            .map(|a| state.keymap.key_in(Some(keymap::INPUT), a));
        if let [Some(up), Some(down)] = moves {
            keys.push_str(&format!(" · {up}/{down} move"));
        }
        let line = Line::from(vec![
            Span::styled(" command palette: ", theme.style(Role::Prompt)),
            Span::styled("type to narrow  ", theme.style(Role::Text)),
            Span::styled(keys, theme.style(Role::Muted)),
        ]);
        buf.set_line(area.x, area.y, &line, area.width);
        return;
    }
    if let Mode::Prompt(p) = &state.mode {
        let (label, submit, cancel) = match p.kind {
            PromptKind::Filter => ("filter: ", "keep", "undo"),
            PromptKind::Goto => ("go to row or id: ", "jump", "cancel"),
            PromptKind::PacketDir => ("close packet folder: ", "write", "cancel"),
            PromptKind::Month => ("month (YYYY-MM): ", "show", "cancel"),
            PromptKind::Approver => ("approved by (name): ", "preview", "cancel"),
            PromptKind::SaveView => ("save view as: ", "save", "cancel"),
            PromptKind::OpenView => ("open view: ", "open", "cancel"),
        };
        // The prompt's keys, from its mode layer.
        let help = typing_keys(state, &[(Action::Submit, submit), (Action::Cancel, cancel)]);
        let mut help = if help.is_empty() {
            String::new()
        } else {
            format!("  {help}")
        };
        if p.kind == PromptKind::OpenView {
            help.push_str(&format!("  saved: {}", state.view_names()));
        }
        let line = Line::from(vec![
            Span::styled(label, theme.style(Role::Prompt)),
            Span::styled(format!("{}█", p.text), theme.style(Role::Text)),
            Span::styled(help, theme.style(Role::Muted)),
        ]);
        buf.set_line(area.x, area.y, &line, area.width);
        return;
    }
    let mut actions: Vec<Action> = match state.mode {
        Mode::Help => vec![Action::Back, Action::Quit],
        _ => {
            let mut a = state.focused().map(|p| p.hints()).unwrap_or_default();
            if !state.screens.is_empty() {
                a.insert(0, Action::Back);
            }
            if state.core.workspace.is_none() {
                a = vec![Action::Refresh];
            }
            // A pane reading raw keys (a typed confirmation) advertises only its own.
            if !state.focused().is_some_and(|p| p.captures_keys()) {
                a.extend([Action::NextTab, Action::Help, Action::Quit]);
            }
            a
        }
    };
    let mut seen = Vec::new();
    actions.retain(|a| {
        let new = !seen.contains(a);
        seen.push(*a);
        new
    });
    let mut spans = Vec::new();
    let mut used = 0usize;
    // While a pane reads typed text, its mode layer's keys first.
    let typing = state.typing_mode();
    for a in actions {
        let key = typing
            .and_then(|m| state.keymap.key_in(Some(m), a))
            .or_else(|| state.keymap.key_in(state.key_context(), a));
        let Some(key) = key else {
            continue;
        };
        let piece = width(&key) + width(a.hint()).max(5) + 3;
        if used + piece > usize::from(area.width) {
            break;
        }
        spans.push(Span::styled(
            format!(" {key}"),
            theme.style(Role::KeyHintKey),
        ));
        let label = match (&state.mode, a) {
            (Mode::Help, Action::Back | Action::Help) => "close",
            _ => a.hint(),
        };
        spans.push(Span::styled(
            format!(" {label} "),
            theme.style(Role::KeyHintDesc),
        ));
        used += piece;
    }
    buf.set_line(area.x, area.y, &Line::from(spans), area.width);
}

/// The help text: every action with its keys, by group, then the typing actions once per
/// mode layer with that layer's keys, those it binds (generated from the keymap).
pub fn help_lines(state: &State) -> Vec<Line<'static>> {
    let theme = &state.theme;
    let mut lines = Vec::new();
    let mut section = |title: &str, rows: Vec<(String, Action)>| {
        if !lines.is_empty() {
            lines.push(Line::raw(""));
        }
        lines.push(Line::styled(title.to_string(), theme.style(Role::Title)));
        for (keys, a) in rows {
            lines.push(Line::from(vec![
                Span::styled(fit(&keys, 18, false), theme.style(Role::KeyHintKey)),
                Span::styled(format!(" {}", a.desc()), theme.style(Role::Text)),
            ]));
        }
    };
    for g in Group::ALL.into_iter().filter(|g| *g != Group::Typing) {
        let rows = Action::all()
            .into_iter()
            .filter(|a| a.group() == g)
            .map(|a| (state.keymap.keys_for(a).join(", "), a))
            .collect();
        section(g.title(), rows);
    }
    for m in keymap::MODES {
        let rows = m
            .actions
            .iter()
            .map(|a| (state.keymap.keys_in(Some(m.name), *a).join(", "), *a))
            .filter(|(keys, _)| !keys.is_empty())
            .collect();
        section(m.title, rows);
    }
    lines
}

fn draw_help(state: &mut State, area: Rect, buf: &mut Buffer) {
    let lines = help_lines(state);
    let total = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    let w = area.width.saturating_sub(4).min(72);
    let h = area.height.saturating_sub(2).min(total + 2);
    let rect = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    };
    let max_scroll = (total + 2).saturating_sub(h);
    state.help_scroll = state.help_scroll.min(max_scroll);
    Clear.render(rect, buf);
    let theme = &state.theme;
    let title = if max_scroll > 0 {
        format!(" Keys ({}/{}) ", state.help_scroll + 1, max_scroll + 1)
    } else {
        " Keys ".to_string()
    };
    let block = Block::bordered()
        .title(Span::styled(title, theme.style(Role::Title)))
        .border_style(theme.style(Role::Title))
        .style(theme.style(Role::Text));
    Paragraph::new(lines)
        .block(block)
        .scroll((state.help_scroll, 0))
        .render(rect, buf);
}
