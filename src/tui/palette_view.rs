//! Drawing the command palette (`tui::palette`): a box at the top of the body with the
//! query on its first line and the list under it, one action a line: its key in the tab on
//! screen, its description (the help's) and its name, the letters the query matched picked
//! out. The box title names the tab whose actions are listed and counts the matches.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Widget};

use super::palette::{Entry, Hits, Palette, spoken_name};
use super::state::State;
use super::theme::{Role, Theme};
use super::widgets::text::{fit, truncate, width};

/// The widest the box grows.
const MAX_WIDTH: u16 = 100;
/// The widest the key column grows.
const MAX_KEY: usize = 10;
/// Below this inner width the name column is left out.
const NAME_FROM: usize = 64;

/// Draws the open palette over `area` (the body).
pub fn draw(state: &State, palette: &Palette, area: Rect, buf: &mut Buffer) {
    let entries = state.palette_entries(&palette.query);
    let theme = &state.theme;
    let w = area.width.saturating_sub(4).min(MAX_WIDTH);
    let list_room = usize::from(area.height.saturating_sub(4)).max(1);
    let rows = entries.len().clamp(1, list_room);
    let h = u16::try_from(rows + 3)
        .unwrap_or(area.height)
        .min(area.height);
    let rect = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + u16::from(area.height > h + 1),
        width: w,
        height: h,
    };
    Clear.render(rect, buf);
    let tab = state
        .tabs
        .get(state.active)
        .map(|t| t.title())
        .unwrap_or_default();
    let count = format!(" {}/{} ", entries.len(), all_count(state));
    let block = Block::bordered()
        .title(Span::styled(
            format!(" Commands · {tab} "),
            theme.style(Role::Title),
        ))
        .title_top(Line::styled(count, theme.style(Role::Muted)).right_aligned())
        .border_style(theme.style(Role::Title))
        .style(theme.style(Role::Text));
    let inner = block.inner(rect);
    block.render(rect, buf);
    if inner.height == 0 {
        return;
    }
    let query = Line::from(vec![
        Span::styled("> ", theme.style(Role::Prompt)),
        Span::styled(format!("{}█", palette.query), theme.style(Role::Text)),
    ]);
    buf.set_line(inner.x, inner.y, &query, inner.width);
    let list = Rect {
        y: inner.y + 1,
        height: inner.height - 1,
        ..inner
    };
    if entries.is_empty() {
        let line = Line::styled(" no action matches", theme.style(Role::Muted));
        buf.set_line(list.x, list.y, &line, list.width);
        return;
    }
    let shown = usize::from(list.height);
    let offset = palette.selected.saturating_sub(shown.saturating_sub(1));
    let key_w = entries
        .iter()
        .filter_map(|e| e.key.as_deref().map(width))
        .max()
        .unwrap_or(0)
        .clamp(3, MAX_KEY);
    for (i, entry) in entries.iter().enumerate().skip(offset).take(shown) {
        let y = list.y + u16::try_from(i - offset).unwrap_or(0);
        let line = entry_line(entry, key_w, usize::from(list.width), theme);
        buf.set_line(list.x, y, &line, list.width);
        if i == palette.selected {
            buf.set_style(
                Rect {
                    y,
                    height: 1,
                    ..list
                },
                theme.style(Role::Selection),
            );
        }
    }
}

/// How many actions the tab offers (the count's denominator).
fn all_count(state: &State) -> usize {
    state.palette_entries("").len()
}

/// One line: ` key  description ... name `.
fn entry_line(entry: &Entry, key_w: usize, room: usize, theme: &Theme) -> Line<'static> {
    let name = spoken_name(entry.action);
    let name_w = if room >= NAME_FROM {
        width(&name).min(24)
    } else {
        0
    };
    let desc_w = room.saturating_sub(key_w + 3 + if name_w > 0 { name_w + 2 } else { 0 });
    let key = entry.key.clone().unwrap_or_default();
    let mut spans = vec![Span::styled(
        format!(" {}  ", fit(&key, key_w, false)),
        theme.style(Role::KeyHintKey),
    )];
    let desc = entry.action.desc();
    let (desc_hits, name_hits) = match &entry.hits {
        Some(Hits::Desc(p)) => (p.as_slice(), &[][..]),
        Some(Hits::Name(p)) => (&[][..], p.as_slice()),
        None => (&[][..], &[][..]),
    };
    spans.extend(marked(
        &truncate(&desc, desc_w),
        desc_hits,
        Role::Text,
        theme,
    ));
    let used = width(&truncate(&desc, desc_w));
    if name_w > 0 {
        spans.push(Span::raw(" ".repeat(desc_w - used + 2)));
        spans.extend(marked(
            &truncate(&name, name_w),
            name_hits,
            Role::Muted,
            theme,
        ));
    }
    Line::from(spans)
}

/// `text` in `role`, the characters at `hits` picked out (bold, the prompt's colour).
fn marked(text: &str, hits: &[usize], role: Role, theme: &Theme) -> Vec<Span<'static>> {
    let hit_style = theme.style(Role::Prompt).add_modifier(Modifier::BOLD);
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut run = String::new();
    let mut run_hit = false;
    for (i, c) in text.chars().enumerate() {
        let hit = hits.contains(&i);
        if hit != run_hit && !run.is_empty() {
            let style = if run_hit {
                hit_style
            } else {
                theme.style(role)
            };
            spans.push(Span::styled(std::mem::take(&mut run), style));
        }
        run_hit = hit;
        run.push(c);
    }
    if !run.is_empty() {
        let style = if run_hit {
            hit_style
        } else {
            theme.style(role)
        };
        spans.push(Span::styled(run, style));
    }
    spans
}
