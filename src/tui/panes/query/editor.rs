//! The Query tab's SQL editor: the text and its cursor, shown one line high or several
//! rows tall (`toggle_multiline`), and the history of the queries run. It acts on the
//! typing actions of the keymap's `[keys.input]` layer, never on key codes: `newline`
//! starts a new line (and expands a one-line editor), `prev_history`/`next_history` move
//! between the lines of a multi-line query and walk the history from its first or last
//! line, `submit` runs. The history keeps a multi-line query's lines; recalling one
//! expands the editor. An error's line and column mark the character in the text.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::app::query::SqlPos as Pos;
use crate::tui::action::Action;
use crate::tui::keymap::Input;
use crate::tui::theme::{Role, Theme};

/// Rows of text in the multi-line editor (the box is two rows taller).
pub const MULTI_ROWS: u16 = 6;

/// What an input asks of the pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The text or the cursor changed, or nothing happened.
    Edited,
    /// Run the query.
    Submit,
    /// Leave the editor.
    Cancel,
}

/// The editor's text, cursor, shape and history.
#[derive(Debug, Default)]
pub struct Editor {
    text: String,
    /// Cursor position in characters over the whole text (a newline counts as one).
    cursor: usize,
    multiline: bool,
    history: Vec<String>,
    /// Position while walking the history (None: the text being typed).
    hist_pos: Option<usize>,
    /// Where the last run's error points (1-based line and column), until the next edit.
    error_at: Option<Pos>,
}

impl Editor {
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn is_multiline(&self) -> bool {
        self.multiline
    }

    /// Replaces the text, the cursor at its end. Text with several lines expands the editor.
    pub fn set_text(&mut self, text: String) {
        self.cursor = text.chars().count();
        if text.contains('\n') {
            self.multiline = true;
        }
        self.text = text;
        self.error_at = None;
    }

    /// Marks where the last run's error points (None: no mark).
    pub fn set_error_at(&mut self, at: Option<Pos>) {
        self.error_at = at;
    }

    /// Adds a query run to the history (not twice in a row) and leaves the history walk.
    pub fn remember(&mut self, sql: &str) {
        if self.history.last().map(String::as_str) != Some(sql) {
            self.history.push(sql.to_string());
        }
        self.hist_pos = None;
    }

    /// The box's height: one row of text, or [`MULTI_ROWS`], plus the borders.
    pub fn height(&self) -> u16 {
        if self.multiline { MULTI_ROWS + 2 } else { 3 }
    }

    /// Switches between the one-line and the multi-line editor. Collapsing a text of
    /// several lines joins them into one (comments dropped, as a saved query in one line).
    pub fn toggle(&mut self) {
        if !self.multiline {
            self.multiline = true;
            return;
        }
        if self.text.contains('\n') {
            let joined = one_line(&self.text);
            self.set_text(joined);
        }
        self.multiline = false;
    }

    /// Applies one typing action or character.
    pub fn input(&mut self, input: Input) -> Outcome {
        let len = self.text.chars().count();
        let (row, col) = self.row_col();
        match input {
            Input::Action(Action::Cancel) => return Outcome::Cancel,
            Input::Action(Action::Submit) => return Outcome::Submit,
            Input::Action(Action::DeleteBack) if self.cursor > 0 => {
                let at = self.byte_at(self.cursor - 1);
                self.text.remove(at);
                self.cursor -= 1;
            }
            Input::Action(Action::DeleteForward) if self.cursor < len => {
                let at = self.byte_at(self.cursor);
                self.text.remove(at);
            }
            Input::Action(Action::CursorLeft) => self.cursor = self.cursor.saturating_sub(1),
            Input::Action(Action::CursorRight) => self.cursor = (self.cursor + 1).min(len),
            Input::Action(Action::LineStart) => self.cursor = self.index_of(row, 0),
            Input::Action(Action::LineEnd) => self.cursor = self.index_of(row, usize::MAX),
            Input::Action(Action::PrevHistory) if self.multiline && row > 0 => {
                self.cursor = self.index_of(row - 1, col);
            }
            Input::Action(Action::NextHistory) if self.multiline && row + 1 < self.rows() => {
                self.cursor = self.index_of(row + 1, col);
            }
            Input::Action(Action::PrevHistory) => self.history_step(true),
            Input::Action(Action::NextHistory) => self.history_step(false),
            Input::Action(Action::ClearLine) => self.set_text(String::new()),
            Input::Action(Action::ToggleMultiline) => self.toggle(),
            Input::Action(Action::Newline) => {
                self.multiline = true;
                self.insert('\n');
            }
            Input::Char(c) => self.insert(c),
            Input::Action(_) | Input::Unbound => return Outcome::Edited,
        }
        self.error_at = None;
        Outcome::Edited
    }

    fn insert(&mut self, c: char) {
        let at = self.byte_at(self.cursor);
        self.text.insert(at, c);
        self.cursor += 1;
    }

    fn byte_at(&self, chars: usize) -> usize {
        self.text
            .char_indices()
            .nth(chars)
            .map_or(self.text.len(), |(i, _)| i)
    }

    fn rows(&self) -> usize {
        self.text.split('\n').count()
    }

    /// The cursor's line and column (0-based, in characters).
    fn row_col(&self) -> (usize, usize) {
        let mut row = 0;
        let mut col = 0;
        for c in self.text.chars().take(self.cursor) {
            if c == '\n' {
                row += 1;
                col = 0;
            } else {
                col += 1;
            }
        }
        (row, col)
    }

    /// The character index of line `row`, column `col` (clamped to the line's end).
    fn index_of(&self, row: usize, col: usize) -> usize {
        let mut start = 0;
        for (i, line) in self.text.split('\n').enumerate() {
            let n = line.chars().count();
            if i == row {
                return start + col.min(n);
            }
            start += n + 1;
        }
        self.text.chars().count()
    }

    fn history_step(&mut self, back: bool) {
        if self.history.is_empty() {
            return;
        }
        let last = self.history.len() - 1;
        let pos = match (self.hist_pos, back) {
            (None, true) => Some(last),
            (None, false) => None,
            (Some(p), true) => Some(p.saturating_sub(1)),
            (Some(p), false) if p < last => Some(p + 1),
            (Some(_), false) => None,
        };
        self.hist_pos = pos;
        let text = pos.map(|p| self.history[p].clone()).unwrap_or_default();
        self.set_text(text);
    }

    /// The text's rows as drawn in a box `width` wide and `rows` high: scrolled so the
    /// cursor (while `editing`) or else the error's mark is in view; the cursor drawn
    /// while editing, the error's character marked, and in the multi-line editor each
    /// row led by its line number (the error's in the error colour).
    pub fn lines(&self, width: usize, rows: usize, editing: bool, theme: &Theme) -> Vec<Line<'_>> {
        let text = theme.style(Role::Text);
        if self.text.is_empty() && !editing {
            return vec![Line::from(Span::styled(
                "SELECT … FROM payouts (press i to type, n for a saved query)",
                theme.style(Role::Muted),
            ))];
        }
        let (crow, ccol) = self.row_col();
        let error = self.error_at.map(|p| {
            (
                p.line.saturating_sub(1) as usize,
                p.column.saturating_sub(1) as usize,
            )
        });
        let (frow, fcol) = match error {
            Some(at) if !editing => at,
            _ => (crow, ccol),
        };
        let all: Vec<&str> = self.text.split('\n').collect();
        let gutter = if self.multiline {
            all.len().to_string().len().max(2) + 1
        } else {
            0
        };
        let width = width.saturating_sub(gutter).max(1);
        let rows = rows.max(1);
        let top = frow.saturating_sub(rows - 1);
        let left = fcol.saturating_sub(width - 1);
        let mut out = Vec::new();
        for (r, line) in all.iter().enumerate().skip(top).take(rows) {
            let mut spans = Vec::new();
            if self.multiline {
                let role = match error {
                    Some((er, _)) if er == r => Role::Error,
                    _ => Role::Muted,
                };
                spans.push(Span::styled(
                    format!("{:>w$} ", r + 1, w = gutter - 1),
                    theme.style(role),
                ));
            }
            let chars: Vec<char> = line.chars().collect();
            // One cell past the end holds the cursor or an "end of text" error's mark.
            for c in left..(chars.len() + 1).min(left + width) {
                let style = if editing && (r, c) == (crow, ccol) {
                    theme.style(Role::Selection)
                } else if error == Some((r, c)) {
                    theme.style(Role::Error).add_modifier(Modifier::UNDERLINED)
                } else {
                    text
                };
                let ch = chars.get(c).copied().unwrap_or(' ');
                if c == chars.len() && style == text {
                    continue;
                }
                push(&mut spans, ch, style);
            }
            out.push(Line::from(spans));
        }
        out
    }
}

/// Appends `c` to the last span when it has the same style, else as a new span.
fn push(spans: &mut Vec<Span<'static>>, c: char, style: Style) {
    if let Some(last) = spans.last_mut()
        && last.style == style
    {
        last.content.to_mut().push(c);
        return;
    }
    spans.push(Span::styled(c.to_string(), style));
}

/// A query on one line: comments dropped, whitespace runs collapsed.
pub fn one_line(sql: &str) -> String {
    sql.lines()
        .map(|l| l.split("--").next().unwrap_or_default().trim())
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn act(e: &mut Editor, a: Action) -> Outcome {
        e.input(Input::Action(a))
    }

    fn typed(e: &mut Editor, s: &str) {
        for c in s.chars() {
            e.input(Input::Char(c));
        }
    }

    #[test]
    fn newline_expands_and_up_down_move_between_lines_then_walk_the_history() {
        let mut e = Editor::default();
        typed(&mut e, "SELECT 1");
        e.remember("SELECT 1");
        e.set_text(String::new());
        typed(&mut e, "SELECT id,");
        assert!(!e.is_multiline());
        act(&mut e, Action::Newline);
        assert!(e.is_multiline(), "a new line expands the editor");
        typed(&mut e, "  amount");
        act(&mut e, Action::Newline);
        typed(&mut e, "FROM payouts");
        assert_eq!(e.text(), "SELECT id,\n  amount\nFROM payouts");
        assert_eq!(e.row_col(), (2, 12));
        act(&mut e, Action::PrevHistory);
        assert_eq!(
            e.row_col(),
            (1, 8),
            "up keeps the column, clamped to the line"
        );
        act(&mut e, Action::LineStart);
        assert_eq!(e.row_col(), (1, 0));
        act(&mut e, Action::PrevHistory);
        act(&mut e, Action::LineEnd);
        assert_eq!(e.row_col(), (0, 10));
        act(&mut e, Action::NextHistory);
        assert_eq!(e.row_col(), (1, 8));
        act(&mut e, Action::NextHistory);
        assert_eq!(e.row_col(), (2, 8));
        // From the first line, up walks the history.
        for _ in 0..2 {
            act(&mut e, Action::PrevHistory);
        }
        act(&mut e, Action::PrevHistory);
        assert_eq!(e.text(), "SELECT 1");
    }

    #[test]
    fn the_history_keeps_a_multi_line_query_and_recalling_it_expands_the_editor() {
        let mut e = Editor::default();
        let sql = "SELECT currency,\n  COUNT(*) AS n\nFROM payouts\nGROUP BY currency";
        e.remember(sql);
        e.remember("SELECT 2");
        e.toggle();
        assert!(e.is_multiline());
        e.toggle();
        assert!(!e.is_multiline());
        act(&mut e, Action::PrevHistory);
        assert_eq!(e.text(), "SELECT 2");
        act(&mut e, Action::PrevHistory);
        assert_eq!(e.text(), sql, "the lines are intact");
        assert!(e.is_multiline());
        assert_eq!(e.row_col(), (3, 17));
        // Down from the last line walks forward again.
        act(&mut e, Action::NextHistory);
        assert_eq!(e.text(), "SELECT 2");
    }

    #[test]
    fn collapsing_joins_the_lines_without_their_comments() {
        let mut e = Editor::default();
        e.set_text("-- fees\nSELECT fee\nFROM balance_transactions -- all".into());
        assert!(e.is_multiline());
        assert_eq!(act(&mut e, Action::ToggleMultiline), Outcome::Edited);
        assert!(!e.is_multiline());
        assert_eq!(e.text(), "SELECT fee FROM balance_transactions");
    }

    #[test]
    fn editing_clears_the_error_mark_and_submit_and_cancel_are_outcomes() {
        let mut e = Editor::default();
        e.set_text("SELECT x".into());
        e.set_error_at(Some(Pos { line: 1, column: 8 }));
        assert!(e.error_at.is_some());
        act(&mut e, Action::CursorLeft);
        assert_eq!(e.error_at, None);
        assert_eq!(act(&mut e, Action::Submit), Outcome::Submit);
        assert_eq!(act(&mut e, Action::Cancel), Outcome::Cancel);
        act(&mut e, Action::DeleteForward);
        act(&mut e, Action::DeleteBack);
        assert_eq!(e.text(), "SELECT");
    }
}
