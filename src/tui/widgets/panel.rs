//! A titled side panel: the bordered box the panes draw their summaries in (the
//! Worklist's totals, the cards at risk).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::{Block, Widget};

use crate::tui::theme::{Role, Theme};

/// Draws a bordered panel titled `title` over `area` and returns the area inside it.
pub fn titled(title: &str, area: Rect, buf: &mut Buffer, theme: &Theme) -> Rect {
    let block = Block::bordered()
        .border_style(theme.style(Role::Border))
        .title(Span::styled(format!(" {title} "), theme.style(Role::Title)));
    let inner = block.inner(area);
    block.render(area, buf);
    inner
}
