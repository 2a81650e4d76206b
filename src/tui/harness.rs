//! Driving the TUI without a terminal: scripted messages in, frames out (csvlens-style
//! step-and-draw). Effects are performed synchronously and deterministically: loads call
//! the given loader, jobs run inline, copies and writes are recorded instead of done.
//! Used by the snapshot tests, the panes' tests and the screenshot example.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::action::Action;
use super::keymap::{Keymap, parse_chord};
use super::msg::{CancelFlag, Effect, JobOutput, Msg, RequestId};
use super::pane::Pane;
use super::state::{Settings, Startup, State};
use super::theme::{Role, Theme};
use super::update::update;
use super::view;
use super::workspace::{LoadError, LoadKind, Workspace};

/// A loader for scripted runs.
pub type TestLoader = Box<dyn Fn(LoadKind) -> Result<Workspace, LoadError>>;

/// A pane's retry for scripted runs (`Effect::Retry`): the resources and the account on
/// screen in, what was read of them out.
pub type TestRetry =
    Box<dyn Fn(crate::model::Parts, &crate::model::AccountIdent) -> Result<Workspace, LoadError>>;

/// Settings for tests: default keys, the dark theme, the demo's clock, UTC.
pub fn test_settings(startup: Startup) -> Settings {
    let themes: Vec<Theme> = Theme::builtin_names()
        .into_iter()
        .filter_map(|n| Theme::builtin(n).ok())
        .collect();
    Settings {
        keymap: Keymap::default_keys(),
        theme: Theme::builtin("dark").unwrap_or_else(|_| Theme::mono()),
        themes,
        startup,
        mouse: true,
        now: super::sample::NOW,
        clock_runs: false,
        tz: jiff::tz::TimeZone::UTC,
        copy_format: Default::default(),
        recent: Default::default(),
        views: Vec::new(),
        start_view: None,
    }
}

/// A TUI under test.
pub struct Harness {
    pub state: State,
    pub width: u16,
    pub height: u16,
    loader: TestLoader,
    /// Answers `Effect::Retry` (none: the retry fails, saying so).
    retry: Option<TestRetry>,
    /// Effects performed so far that have no result message (copies, writes, cancels).
    pub log: Vec<Effect>,
    /// Load/compute effects not yet performed (when `auto` is off).
    pub queued: Vec<Effect>,
    /// Perform effects at once (default), or keep them queued until `settle`.
    pub auto: bool,
    /// Outputs of jobs cancelled before they ran or while they ran: dropped unseen, as
    /// the runtime drops them, kept here for tests to look at.
    pub dropped: Vec<JobOutput>,
    /// Requests whose cancel came before their job ran.
    cancelled: std::collections::HashSet<RequestId>,
}

impl Harness {
    /// A harness with the registered tabs.
    pub fn new(settings: Settings, loader: TestLoader, width: u16, height: u16) -> Self {
        Self::with_state(State::new(settings), loader, width, height)
    }

    /// A harness with given tabs (a pane's own tests).
    pub fn with_tabs(
        settings: Settings,
        tabs: Vec<Box<dyn Pane>>,
        loader: TestLoader,
        width: u16,
        height: u16,
    ) -> Self {
        Self::with_state(State::with_tabs(settings, tabs), loader, width, height)
    }

    fn with_state(mut state: State, loader: TestLoader, width: u16, height: u16) -> Self {
        state.size = (width, height);
        Harness {
            state,
            width,
            height,
            loader,
            retry: None,
            log: Vec::new(),
            queued: Vec::new(),
            auto: true,
            dropped: Vec::new(),
            cancelled: Default::default(),
        }
    }

    /// The same harness answering a pane's retry with `retry`.
    pub fn with_retry(mut self, retry: TestRetry) -> Self {
        self.retry = Some(retry);
        self
    }

    /// A harness over a fixed workspace, started and loaded.
    pub fn loaded(ws: Workspace, width: u16, height: u16) -> Self {
        let mut h = Self::new(
            test_settings(Startup::Demo),
            Box::new(move |_| Ok(ws.clone())),
            width,
            height,
        );
        h.start();
        h
    }

    /// Sends the startup effects.
    pub fn start(&mut self) {
        let effects = self.state.start();
        self.perform(effects);
    }

    /// Sends one message and performs what it asks for.
    pub fn step(&mut self, msg: Msg) {
        let effects = update(&mut self.state, msg);
        self.perform(effects);
    }

    /// Sends an action.
    pub fn action(&mut self, a: Action) {
        self.step(Msg::Action(a));
    }

    /// Types keys as the keymap sees them: `"g g"`, `"ctrl-c"`, `"/"`.
    pub fn keys(&mut self, keys: &str) {
        for k in parse_chord(keys).unwrap_or_default() {
            self.step(Msg::Key(k));
        }
    }

    /// Types text character by character (e.g. into the filter prompt).
    pub fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            if let Some(k) = super::keymap::Key::parse(&c.to_string()) {
                self.step(Msg::Key(k));
            }
        }
    }

    /// Performs queued effects until none are left.
    pub fn settle(&mut self) {
        let auto = std::mem::replace(&mut self.auto, true);
        let q = std::mem::take(&mut self.queued);
        self.perform(q);
        self.auto = auto;
    }

    fn perform(&mut self, effects: Vec<Effect>) {
        for e in effects {
            if !self.auto
                && matches!(
                    e,
                    Effect::Load { .. } | Effect::Retry { .. } | Effect::Compute { .. }
                )
            {
                self.queued.push(e);
                continue;
            }
            match e {
                Effect::Load { req, kind } => {
                    let result = (self.loader)(kind);
                    self.step(Msg::Loaded { req, kind, result });
                }
                Effect::Retry {
                    req,
                    parts,
                    account,
                } => {
                    let result = match &self.retry {
                        Some(retry) => retry(parts, &account),
                        None => Err(LoadError::new("this harness cannot retry")),
                    };
                    let kind = LoadKind::Retry(parts);
                    self.step(Msg::Loaded { req, kind, result });
                }
                Effect::Compute { req, job } => {
                    // As the runtime: the job sees its request's cancel, and a cancelled
                    // job's output never reaches the panes.
                    let flag = CancelFlag::new();
                    if self.cancelled.contains(&req) {
                        flag.cancel();
                    }
                    let output = job.run(&flag);
                    if flag.is_cancelled() {
                        self.dropped.push(output);
                    } else {
                        self.step(Msg::Computed { req, output });
                    }
                }
                Effect::Cancel(req) => {
                    self.cancelled.insert(req);
                    self.log.push(Effect::Cancel(req));
                }
                Effect::SaveView(view) => {
                    // As the runtime with a views.toml holding the views on screen.
                    let mut file = crate::app::views::ViewsFile {
                        view: self.state.views.clone(),
                    };
                    let name = view.name.clone();
                    file.put(view.clone());
                    self.log.push(Effect::SaveView(view));
                    self.step(Msg::ViewSaved(Ok((name, file.view))));
                }
                other => self.log.push(other),
            }
        }
    }

    /// Resizes the terminal.
    pub fn resize(&mut self, width: u16, height: u16) {
        self.width = width;
        self.height = height;
        self.step(Msg::Resize(width, height));
    }

    /// Draws a frame into a buffer.
    pub fn draw(&mut self) -> Buffer {
        let area = Rect::new(0, 0, self.width, self.height);
        let mut buf = Buffer::empty(area);
        view::draw(&mut self.state, area, &mut buf);
        self.state.dirty = false;
        buf
    }

    /// Draws a frame as text, one line per row (trailing spaces trimmed).
    pub fn frame(&mut self) -> String {
        buffer_text(&self.draw())
    }
}

/// A buffer's text, one line per row, trailing spaces trimmed.
pub fn buffer_text(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in area.y..area.y + area.height {
        let mut line = String::new();
        let mut skip = 0;
        for x in area.x..area.x + area.width {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let sym = buf[(x, y)].symbol();
            line.push_str(sym);
            skip = super::widgets::text::width(sym).saturating_sub(1);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// A style layer: one character per cell, `mark` for cells whose style shows `role`
/// (its foreground and modifiers, as the theme defines them), `.` otherwise.
pub fn style_layer(buf: &Buffer, theme: &Theme, marks: &[(Role, char)]) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in area.y..area.y + area.height {
        for x in area.x..area.x + area.width {
            let cell = &buf[(x, y)];
            let style = cell.style();
            let mark = marks.iter().find(|(role, _)| {
                let want = theme.style(*role);
                want.fg.is_none_or(|fg| style.fg == Some(fg))
                    && style.add_modifier.contains(want.add_modifier)
                    && cell.symbol().trim() != ""
            });
            out.push(mark.map_or('.', |(_, c)| *c));
        }
        out.push('\n');
    }
    out
}
