//! Drawing the table: the frame and its title, the rows scrolled into view, the columns
//! laid out (the first frozen, the rest scrolled to keep the selected one visible), the
//! header, and the visible rows (only those are built).

use super::*;
use crate::tui::theme::Theme;

/// One visible row's cells as drawn: (text, role, right-aligned).
type DrawnRow = Vec<(String, Role, bool)>;

/// Where the columns go across the table.
struct Columns {
    /// (column, x, width) of each column drawn, the frozen first one first.
    layout: Vec<(usize, u16, usize)>,
    /// The x of the separator after the frozen column.
    sep_x: u16,
    more_left: bool,
    more_right: bool,
}

impl DataTable {
    /// Draws the table (with its frame and title) into `area`.
    pub fn render(&mut self, area: Rect, buf: &mut Buffer, cx: &ViewCx<'_>) {
        let theme = cx.theme;
        self.tz = cx.tz.clone();
        let block = Block::bordered()
            .border_style(theme.style(Role::Border))
            .title(self.title_line(theme));
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.height < 2 || inner.width < 4 {
            return;
        }
        let rows_area = Rect {
            y: inner.y + 1,
            height: inner.height - 1,
            ..inner
        };
        self.scroll_selection_into_view(rows_area);

        let ncols = self.source.columns().len();
        if ncols == 0 {
            return;
        }
        let n = self.view.len();
        let visible: Vec<usize> = self.view[self.offset..(self.offset + self.page).min(n)]
            .iter()
            .map(|r| *r as usize)
            .collect();
        let cells = self.drawn_rows(&visible, ncols, cx.tz);
        let widths = self.column_widths(&cells);
        let columns = self.lay_out_columns(&widths, &cells, inner);
        self.draw_header(buf, inner, &columns, &cells, theme);
        if n == 0 {
            self.draw_empty(buf, rows_area, theme);
            return;
        }
        self.draw_rows(buf, inner, rows_area, &visible, &cells, &columns, theme);
    }

    /// The frame's title: the table's name, the row count (of how many, when filtered),
    /// the filter and the sort.
    fn title_line(&self, theme: &Theme) -> Line<'static> {
        let mut title = vec![
            Span::styled(format!(" {} ", self.title), theme.style(Role::Title)),
            Span::styled(
                if self.filter.is_empty() {
                    format!("{} rows ", self.source.len())
                } else {
                    format!("{} of {} rows ", self.view.len(), self.source.len())
                },
                theme.style(Role::Muted),
            ),
        ];
        if !self.filter.is_empty() {
            title.push(Span::styled(
                format!("filter \"{}\" ", self.filter),
                theme.style(Role::Prompt),
            ));
        }
        if let Some((c, dir)) = self.sort {
            title.push(Span::styled(
                format!(
                    "sorted by {} {} ",
                    self.column_title(c),
                    if dir == SortDir::Asc { "↑" } else { "↓" }
                ),
                theme.style(Role::Muted),
            ));
        }
        if !self.hidden.is_empty() {
            title.push(Span::styled(
                format!("{} hidden ", self.hidden.len()),
                theme.style(Role::Muted),
            ));
        }
        Line::from(title)
    }

    /// Remembers the rows' area and page height, and scrolls so the selected row shows.
    fn scroll_selection_into_view(&mut self, rows_area: Rect) {
        self.rows_area = rows_area;
        self.page = usize::from(rows_area.height);
        let n = self.view.len();
        self.selected = self.selected.min(n.saturating_sub(1));
        if self.selected < self.offset {
            self.offset = self.selected;
        }
        if self.selected >= self.offset + self.page {
            self.offset = self.selected + 1 - self.page;
        }
        self.offset = self.offset.min(n.saturating_sub(self.page));
    }

    /// Builds only the visible rows' cells.
    fn drawn_rows(&self, visible: &[usize], ncols: usize, tz: &TimeZone) -> Vec<DrawnRow> {
        visible
            .iter()
            .map(|r| {
                (0..ncols)
                    .map(|c| {
                        let cell = self.source.cell(*r, c);
                        (
                            cell.display(tz).into_owned(),
                            cell.role(),
                            cell.right_aligned(),
                        )
                    })
                    .collect()
            })
            .collect()
    }

    /// Each column's width: its title or its widest visible cell, within its maximum.
    fn column_widths(&self, cells: &[DrawnRow]) -> Vec<usize> {
        self.source
            .columns()
            .iter()
            .enumerate()
            .map(|(c, col)| {
                let data = cells.iter().map(|row| width(&row[c].0)).max().unwrap_or(0);
                (width(&col.title) + 2)
                    .max(data)
                    .min(usize::from(col.max_width.max(3)))
                    .max(3)
            })
            .collect()
    }

    /// Horizontal layout: column 0 is frozen; the rest scroll to keep `col` visible.
    fn lay_out_columns(&mut self, widths: &[usize], cells: &[DrawnRow], inner: Rect) -> Columns {
        let ncols = widths.len();
        let total_w = usize::from(inner.width);
        let frozen_w = widths[0].min(total_w.saturating_sub(2));
        let avail = total_w.saturating_sub(frozen_w + 3);
        self.col_offset = self.col_offset.clamp(1, ncols.max(2) - 1);
        if self.col >= 1 {
            if self.col < self.col_offset {
                self.col_offset = self.col;
            }
            while self.col_offset < self.col
                && widths[self.col_offset..=self.col]
                    .iter()
                    .map(|w| w + 1)
                    .sum::<usize>()
                    > avail
            {
                self.col_offset += 1;
            }
        }
        // Scroll back when the columns from an earlier offset to the end all fit (after a
        // resize to a wider terminal), so no room is left empty on the right.
        while self.col_offset > 1
            && (self.col == 0 || self.col >= self.col_offset - 1)
            && widths[self.col_offset - 1..]
                .iter()
                .map(|w| w + 1)
                .sum::<usize>()
                <= avail
        {
            self.col_offset -= 1;
        }
        let mut layout: Vec<(usize, u16, usize)> = vec![(0, inner.x, frozen_w)];
        let mut x = usize::from(inner.x) + frozen_w + 3;
        let right_edge = usize::from(inner.x) + total_w;
        let mut more_right = false;
        for (c, w) in widths.iter().enumerate().skip(self.col_offset) {
            if x >= right_edge {
                more_right = true;
                break;
            }
            // A column that does not fit whole is cut only if it is text with room to
            // read (numbers and amounts are never cut), or if it is the only one shown.
            let room = right_edge - x;
            let text_col = !cells.first().is_some_and(|r| r[c].2);
            let cut_ok = (text_col && room >= 16) || layout.len() == 1;
            if *w > room && (!cut_ok || room < 3) {
                more_right = true;
                break;
            }
            let w = (*w).min(room);
            layout.push((c, u16::try_from(x).unwrap_or(u16::MAX), w));
            x += w + 1;
        }
        Columns {
            layout,
            sep_x: inner.x + u16::try_from(frozen_w + 1).unwrap_or(0),
            more_left: self.col_offset > 1,
            more_right,
        }
    }

    /// The header row: each column's title with its sort arrow, and the scroll marks.
    fn draw_header(
        &self,
        buf: &mut Buffer,
        inner: Rect,
        columns: &Columns,
        cells: &[DrawnRow],
        theme: &Theme,
    ) {
        let hy = inner.y;
        let header_style = theme.style(Role::Header);
        for (c, x, w) in &columns.layout {
            let col = &self.source.columns()[*c];
            let arrow = match self.sort {
                Some((sc, SortDir::Asc)) if sc == *c => " ↑",
                Some((sc, SortDir::Desc)) if sc == *c => " ↓",
                _ => "",
            };
            let right = cells.first().is_some_and(|r| r[*c].2);
            let text = fit(&format!("{}{}", col.title, arrow), *w, right);
            // Style only the title's glyphs, so an underline does not run into the padding.
            let lead = text.len() - text.trim_start().len();
            let body = text.trim();
            let bx = *x + u16::try_from(width(&text[..lead])).unwrap_or(0);
            buf.set_stringn(bx, hy, body, w.saturating_sub(lead), header_style);
        }
        let border = theme.style(Role::Border);
        let left_mark = if columns.more_left { "‹" } else { "│" };
        buf.set_stringn(columns.sep_x, hy, left_mark, 1, border);
        if columns.more_right {
            buf.set_stringn(inner.x + inner.width - 1, hy, "›", 1, border);
        }
    }

    /// The centred line shown when there is no row (or none matches the filter).
    fn draw_empty(&self, buf: &mut Buffer, rows_area: Rect, theme: &Theme) {
        let msg = if self.filter.is_empty() {
            self.empty_text.clone()
        } else {
            format!("No rows match \"{}\".", self.filter)
        };
        let w = width(&msg).min(usize::from(rows_area.width));
        let mx = rows_area.x + u16::try_from((usize::from(rows_area.width) - w) / 2).unwrap_or(0);
        let my = rows_area.y + rows_area.height / 2;
        buf.set_stringn(mx, my, msg, w, theme.style(Role::Muted));
    }

    /// The visible rows, the selected one highlighted (and its selected cell more so).
    #[allow(clippy::too_many_arguments)]
    fn draw_rows(
        &self,
        buf: &mut Buffer,
        inner: Rect,
        rows_area: Rect,
        visible: &[usize],
        cells: &[DrawnRow],
        columns: &Columns,
        theme: &Theme,
    ) {
        let border = theme.style(Role::Border);
        for (i, (r, row)) in visible.iter().zip(cells).enumerate() {
            let y = rows_area.y + u16::try_from(i).unwrap_or(0);
            let is_sel = self.offset + i == self.selected;
            let row_role = self.source.row_role(*r);
            let line_style = if is_sel {
                theme.selected(row_role.unwrap_or(Role::Text))
            } else {
                theme.style(row_role.unwrap_or(Role::Text))
            };
            buf.set_style(
                Rect {
                    x: inner.x,
                    y,
                    width: inner.width,
                    height: 1,
                },
                line_style,
            );
            for (c, x, w) in &columns.layout {
                let (text, role, right) = &row[*c];
                let role = if *role == Role::Text {
                    row_role.unwrap_or(Role::Text)
                } else {
                    *role
                };
                let mut style: Style = if is_sel {
                    theme.selected(role)
                } else {
                    theme.style(role)
                };
                if is_sel && *c == self.col {
                    style = style.patch(theme.style(Role::SelectionCell));
                }
                buf.set_stringn(*x, y, fit(text, *w, *right), *w, style);
            }
            let sep_style = if is_sel { line_style } else { border };
            buf.set_stringn(columns.sep_x, y, "│", 1, sep_style);
        }
    }
}
