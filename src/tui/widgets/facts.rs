//! The facts above a drill-down's table (a payout's, a bank match's, a recovery cohort's):
//! wrapped to the screen's width, in as many rows as they take, with the table in the rest.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget, Wrap};

use crate::tui::context::ViewCx;
use crate::tui::widgets::table::DataTable;

/// The width the facts above a drill-down's table wrap in (the area less a column each side).
pub fn facts_width(area: Rect) -> u16 {
    area.width.saturating_sub(2)
}

/// A drill-down screen's body: `lines` of facts, wrapped, in at most `height` rows (and
/// always leaving four rows for the table), with the table below them.
pub fn render_facts_over_table(
    lines: Vec<Line<'_>>,
    height: u16,
    table: &mut DataTable,
    area: Rect,
    buf: &mut Buffer,
    cx: &ViewCx<'_>,
) {
    let inset = Rect {
        x: area.x + 1,
        width: facts_width(area),
        ..area
    };
    let h = height.min(area.height.saturating_sub(4));
    Paragraph::new(lines)
        .wrap(Wrap { trim: true })
        .render(Rect { height: h, ..inset }, buf);
    table.render(
        Rect {
            y: area.y + h,
            height: area.height - h,
            ..area
        },
        buf,
        cx,
    );
}

/// Rows `lines` take when wrapped at `width` (one spare row when a line wraps, since words
/// do not break exactly at the edge).
pub fn wrapped_height(lines: &[Line<'_>], width: u16) -> u16 {
    let w = usize::from(width.max(1));
    let mut rows = 0usize;
    let mut wrapped = false;
    for l in lines {
        let n = l.width().div_ceil(w).max(1);
        wrapped |= n > 1;
        rows += n;
    }
    u16::try_from(rows + usize::from(wrapped)).unwrap_or(u16::MAX)
}
