//! The Query tab: SQL over the loaded account (the engine is `query` in the IO crate, the
//! same one as `tieout query`). An editor of one line or several rows with history
//! ([`editor`]: `i` to edit, Enter runs, Up/Down walk the history or the lines, Alt-Enter
//! starts a new line, Ctrl-O switches the shape, Esc leaves the editor: the keys of the
//! keymap's `[keys.input]` mode layer while editing), the saved queries (built-in plus
//! `queries/*.sql` in the config folder; `n` puts the next one in the editor), the result
//! in the shared virtualised table (sort, filter, copy, `e` exports the rows on screen),
//! and `E` streams the whole result to query-result.csv/.md/.json. Queries run off the UI
//! task as a job; Esc while one runs drops it.

pub mod editor;

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use polars::prelude::{AnyValue, DataFrame, DataType, TimeUnit};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

use crate::app::query::{self as uc, SavedQuery as Saved, SqlEngine as Engine, SqlPos as Pos};
use crate::model::AccountData;
use crate::tui::action::Action;
use crate::tui::keymap::{self, Input, Keymap};
use crate::tui::msg::{Job, JobOutput, RequestId};
use crate::tui::pane::{Cx, Handled, Pane, ViewCx};
use crate::tui::theme::Role;
use crate::tui::widgets::table::{Cell, Column, DataTable, RowsSource, TableSource};
use crate::tui::workspace::Workspace;
use editor::{Editor, Outcome};

/// The engine of the loaded account, built once (in the first query's job).
type SharedEngine = Arc<OnceLock<Result<Engine, String>>>;

/// What the pane shows under the editor.
enum Body {
    /// No query run yet: the saved queries.
    Empty,
    Running(String),
    Result {
        rows: usize,
    },
    Error(String),
}

/// The Query tab.
pub struct QueryPane {
    editor: Editor,
    editing: bool,
    saved: Vec<Saved>,
    saved_pos: Option<usize>,
    data: Option<Arc<AccountData>>,
    now: i64,
    tz: jiff::tz::TimeZone,
    engine: SharedEngine,
    running: Option<RequestId>,
    exporting: Option<RequestId>,
    result: Option<Arc<DataFrame>>,
    body: Body,
    table: DataTable,
    /// An engine given up front (tests): kept across loads.
    fixed_engine: bool,
    /// Where `E` writes the result files.
    export_dir: PathBuf,
}

/// The pane for the registry.
pub fn pane() -> Box<dyn Pane> {
    let (saved, _) = uc::saved_queries();
    Box::new(QueryPane::new(saved))
}

/// Why a query job gave no result: the message (with the SQL's line and a caret) and
/// where in the SQL it points.
type Failed = (String, Option<Pos>);

/// The outcome of a query job.
type Ran = Result<Arc<DataFrame>, Failed>;

impl QueryPane {
    pub fn new(saved: Vec<Saved>) -> Self {
        let empty: Arc<dyn TableSource> = Arc::new(RowsSource::<()>::new(Vec::new(), Vec::new()));
        Self {
            editor: Editor::default(),
            editing: false,
            saved,
            saved_pos: None,
            data: None,
            now: 0,
            tz: jiff::tz::TimeZone::UTC,
            engine: Arc::new(OnceLock::new()),
            running: None,
            exporting: None,
            result: None,
            body: Body::Empty,
            table: DataTable::new("Result", "The query returned no rows.", empty),
            fixed_engine: false,
            export_dir: PathBuf::from("."),
        }
    }

    /// A pane over a given engine (kept when the account loads) writing its exports into
    /// `export_dir`: for tests over synthetic tables.
    pub fn with_engine(saved: Vec<Saved>, engine: Engine, export_dir: PathBuf) -> Self {
        let mut p = Self::new(saved);
        let cell = OnceLock::new();
        let _ = cell.set(Ok(engine));
        p.engine = Arc::new(cell);
        p.fixed_engine = true;
        p.export_dir = export_dir;
        p
    }

    /// Runs the editor's query off the UI task.
    fn run(&mut self, cx: &mut Cx<'_>) {
        // Only the end is trimmed: the error positions stay those of the editor's lines.
        let sql = self.editor.text().trim_end().to_string();
        if sql.trim().is_empty() {
            return;
        }
        self.editor.remember(&sql);
        self.editor.set_error_at(None);
        let Some(data) = self.data.clone() else {
            self.body = Body::Error("The account is not loaded yet.".into());
            return;
        };
        if let Some(r) = self.running.take() {
            cx.cancel(r);
        }
        let engine = self.engine.clone();
        let (now, tz) = (self.now, self.tz.clone());
        let job = Job::new("running the query", move |flag| -> Ran {
            let engine = engine.get_or_init(|| Engine::over(data, now, &tz).map_err(|f| f.message));
            let engine = engine.as_ref().map_err(|e| (e.clone(), None))?;
            // Esc cancels the job's flag: the engine stops polars' work at its next step.
            engine
                .run_until(&sql, &|| flag.is_cancelled())
                .map(Arc::new)
                .map_err(|e| (e.message, e.at))
        });
        self.running = Some(cx.compute(job));
        self.body = Body::Running(self.editor.text().trim().to_string());
    }

    /// Streams the whole result to query-result.csv/.md/.json off the UI task.
    fn export(&mut self, cx: &mut Cx<'_>) {
        let Some(df) = self.result.clone() else {
            cx.toast_error("run a query first");
            return;
        };
        let dir = self.export_dir.clone();
        let job = Job::new("exporting the result", move |_| -> Result<String, String> {
            let paths = uc::write_result_files(&df, &dir).map_err(|e| e.message)?;
            let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
            Ok(format!("{} rows -> {}", df.height(), names.join(", ")))
        });
        self.exporting = Some(cx.compute(job));
    }

    fn next_saved(&mut self, cx: &mut Cx<'_>) {
        if self.saved.is_empty() {
            return;
        }
        let i = self.saved_pos.map_or(0, |i| (i + 1) % self.saved.len());
        self.saved_pos = Some(i);
        let q = &self.saved[i];
        cx.toast(format!("saved query {}: {}", q.name, q.title));
        // The multi-line editor takes the query as written, the one-line one flattened.
        let sql = if self.editor.is_multiline() {
            q.sql.trim().to_string()
        } else {
            editor::one_line(&q.sql)
        };
        self.editor.set_text(sql);
    }
}

/// The editor's title while typing: its keys, from the keymap's input layer (the history
/// keys as arrows when they are the arrow keys). The multi-line editor names its new-line
/// key, and up/down move between its lines before they walk the history.
fn editor_title(keys: &Keymap, multiline: bool) -> String {
    let key = |a: Action| keys.key_in(Some(keymap::INPUT), a);
    let mut parts = vec!["SQL".to_string()];
    if let Some(k) = key(Action::Submit) {
        parts.push(format!("{k} run"));
    }
    if multiline && let Some(k) = key(Action::Newline) {
        parts.push(format!("{k} new line"));
    }
    let history = match (key(Action::PrevHistory), key(Action::NextHistory)) {
        (Some(p), Some(n)) if p == "up" && n == "down" => Some("↑↓".to_string()),
        (Some(p), Some(n)) => Some(format!("{p}/{n}")),
        (one, other) => one.or(other),
    };
    if let Some(h) = history {
        let what = if multiline { "lines" } else { "history" };
        parts.push(format!("{h} {what}"));
    }
    if let Some(k) = key(Action::ToggleMultiline) {
        let what = if multiline { "one line" } else { "expand" };
        parts.push(format!("{k} {what}"));
    }
    if let Some(k) = key(Action::Cancel) {
        parts.push(format!("{k} leave"));
    }
    format!(" {} ", parts.join(" · "))
}

impl Pane for QueryPane {
    fn title(&self) -> String {
        "Query".into()
    }

    fn on_data(&mut self, ws: &Workspace, cx: &mut Cx<'_>) -> bool {
        self.data = Some(ws.data.clone());
        self.now = cx.now();
        self.tz = cx.tz().clone();
        if !self.fixed_engine {
            self.engine = Arc::new(OnceLock::new());
        }
        true
    }

    fn handle(&mut self, action: Action, cx: &mut Cx<'_>) -> Handled {
        match action {
            Action::EditQuery => {
                self.editing = true;
                Handled::Yes
            }
            Action::SavedQuery => {
                self.next_saved(cx);
                self.editing = true;
                Handled::Yes
            }
            Action::ExportQuery => {
                self.export(cx);
                Handled::Yes
            }
            Action::Back if self.running.is_some() => {
                if let Some(r) = self.running.take() {
                    cx.cancel(r);
                }
                self.body = Body::Error("Query cancelled.".into());
                Handled::Yes
            }
            Action::Open if self.result.is_none() => {
                self.editing = true;
                Handled::Yes
            }
            _ => Handled::No,
        }
    }

    fn key_mode(&self) -> Option<&'static str> {
        self.editing.then_some(keymap::INPUT)
    }

    fn input(&mut self, input: Input, cx: &mut Cx<'_>) {
        match self.editor.input(input) {
            Outcome::Cancel => {
                self.editing = false;
                if let Some(r) = self.running.take() {
                    cx.cancel(r);
                    self.body = Body::Error("Query cancelled.".into());
                }
            }
            Outcome::Submit => {
                self.editing = false;
                self.run(cx);
            }
            Outcome::Edited => {}
        }
    }

    fn on_computed(&mut self, req: RequestId, output: JobOutput, cx: &mut Cx<'_>) {
        if Some(req) == self.exporting {
            self.exporting = None;
            match output.downcast::<Result<String, String>>().map(|b| *b) {
                Ok(Ok(text)) => cx.toast(text),
                Ok(Err(e)) => cx.toast_error(e),
                Err(_) => {}
            }
            return;
        }
        if Some(req) != self.running {
            return;
        }
        self.running = None;
        match output.downcast::<Ran>().map(|b| *b) {
            Ok(Ok(df)) => {
                self.body = Body::Result { rows: df.height() };
                self.table
                    .set_source(Arc::new(FrameSource::new(df.clone())), cx);
                self.result = Some(df);
            }
            Ok(Err((e, at))) => {
                self.editor.set_error_at(at);
                self.body = Body::Error(e);
            }
            Err(_) => self.body = Body::Error("the query job returned nothing".into()),
        }
    }

    fn table(&self) -> Option<&DataTable> {
        matches!(self.body, Body::Result { .. }).then_some(&self.table)
    }

    fn table_mut(&mut self) -> Option<&mut DataTable> {
        matches!(self.body, Body::Result { .. }).then_some(&mut self.table)
    }

    fn render(&mut self, area: Rect, buf: &mut Buffer, cx: &ViewCx<'_>) {
        // The multi-line editor takes at most half the pane.
        let height = self.editor.height().min((area.height / 2).max(3));
        let [edit, body] =
            Layout::vertical([Constraint::Length(height), Constraint::Min(0)]).areas(area);
        let border = if self.editing {
            Role::Prompt
        } else {
            Role::Border
        };
        let title = if self.editing {
            editor_title(cx.keymap, self.editor.is_multiline())
        } else {
            " SQL · i edit · n saved query · E export ".to_string()
        };
        let inner_w = usize::from(edit.width.saturating_sub(2)).max(1);
        let rows = usize::from(edit.height.saturating_sub(2)).max(1);
        let lines = self.editor.lines(inner_w, rows, self.editing, cx.theme);
        Paragraph::new(lines)
            .block(
                Block::bordered()
                    .border_style(cx.theme.style(border))
                    .title(Span::styled(title, cx.theme.style(Role::Title))),
            )
            .render(edit, buf);

        let block = Block::bordered().border_style(cx.theme.style(Role::Border));
        match &self.body {
            Body::Result { rows } => {
                let _ = rows;
                self.table.render(body, buf, cx);
            }
            Body::Running(sql) => {
                let mut lines = vec![Line::from(Span::styled(
                    "Running the query… (esc cancels)",
                    cx.theme.style(Role::Pending),
                ))];
                lines.extend(
                    sql.lines().map(|l| {
                        Line::from(Span::styled(l.to_string(), cx.theme.style(Role::Muted)))
                    }),
                );
                Paragraph::new(lines)
                    .wrap(Wrap { trim: false })
                    .block(block.title(Span::styled(" Result ", cx.theme.style(Role::Title))))
                    .render(body, buf);
            }
            Body::Error(e) => {
                let lines: Vec<Line> = e
                    .lines()
                    .map(|l| Line::from(Span::styled(l.to_string(), cx.theme.style(Role::Error))))
                    .collect();
                // Wrapped: a budget's message is longer than a line; the caret under the
                // SQL wraps with its line, so it stays under the same character.
                Paragraph::new(lines)
                    .wrap(Wrap { trim: false })
                    .block(block.title(Span::styled(" Error ", cx.theme.style(Role::Title))))
                    .render(body, buf);
            }
            Body::Empty => {
                let mut lines = vec![
                    Line::from(Span::styled(
                        uc::introduction(),
                        cx.theme.style(Role::Muted),
                    )),
                    Line::from(""),
                    Line::from(Span::styled(
                        "Saved queries (n):",
                        cx.theme.style(Role::Header),
                    )),
                ];
                for q in &self.saved {
                    lines.push(Line::from(vec![
                        Span::styled(format!("  {:<28}", q.name), cx.theme.style(Role::Text)),
                        Span::styled(q.title.clone(), cx.theme.style(Role::Muted)),
                    ]));
                }
                Paragraph::new(lines)
                    .wrap(Wrap { trim: false })
                    .block(block.title(Span::styled(" Query ", cx.theme.style(Role::Title))))
                    .render(body, buf);
            }
        }
    }

    fn hints(&self) -> Vec<Action> {
        if matches!(self.body, Body::Result { .. }) {
            vec![
                Action::EditQuery,
                Action::SavedQuery,
                Action::Filter,
                Action::Sort,
                Action::ExportQuery,
            ]
        } else {
            vec![Action::EditQuery, Action::SavedQuery]
        }
    }
}

/// A query result as a table source: cells read from the frame on demand, so a million
/// rows cost nothing until they are on screen.
pub struct FrameSource {
    df: Arc<DataFrame>,
    columns: Vec<Column>,
}

impl FrameSource {
    pub fn new(df: Arc<DataFrame>) -> Self {
        let mut df = df;
        if df.columns().iter().any(|c| c.n_chunks() > 1) {
            let mut owned = (*df).clone();
            owned.rechunk_mut_par();
            df = Arc::new(owned);
        }
        let columns = df
            .columns()
            .iter()
            .map(|c| Column {
                title: c.name().to_string(),
                max_width: match c.dtype() {
                    DataType::String => 40,
                    _ => 20,
                },
            })
            .collect();
        Self { df, columns }
    }
}

impl TableSource for FrameSource {
    fn columns(&self) -> &[Column] {
        &self.columns
    }

    fn len(&self) -> usize {
        self.df.height()
    }

    fn cell(&self, row: usize, col: usize) -> Cell<'_> {
        let Some(c) = self.df.columns().get(col) else {
            return Cell::Empty;
        };
        match c.get(row) {
            Ok(AnyValue::Null) | Err(_) => Cell::Empty,
            Ok(AnyValue::Int64(v)) => Cell::Int(v),
            Ok(AnyValue::Int32(v)) => Cell::Int(i64::from(v)),
            Ok(AnyValue::UInt32(v)) => Cell::Int(i64::from(v)),
            Ok(AnyValue::Datetime(v, unit, _)) => {
                let per = match unit {
                    TimeUnit::Milliseconds => 1_000,
                    TimeUnit::Microseconds => 1_000_000,
                    TimeUnit::Nanoseconds => 1_000_000_000,
                };
                Cell::DateTime(Some(v.div_euclid(per)))
            }
            Ok(AnyValue::String(s)) => Cell::Text(Cow::Borrowed(s)),
            Ok(other) => Cell::Text(Cow::Owned(uc::cell_text(&other))),
        }
    }
}

#[cfg(test)]
mod tests;
