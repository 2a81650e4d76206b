//! The whole UI state: the tabs, the stack of drill-down screens, the input mode (a
//! prompt, the help, the command palette), the account's load state, keymap and theme.
//! Changed only by `update::update`; read by `view::render`.

use jiff::tz::TimeZone;
use ratatui::layout::Rect;

use super::keymap::{self, Key, Keymap};
use super::msg::{Effect, Owner, RequestId, RestHold};
use super::palette::{Entry, Palette, Recent};
use super::pane::{Core, Cx, Pane};
use super::panes;
use super::theme::Theme;
use super::workspace::{LoadKind, LoadState};
use crate::app::settings::CopyFormat;

/// A started key sequence is dropped after this many spinner ticks (about a second).
pub const CHORD_TIMEOUT_TICKS: u32 = 12;

/// Where the account comes from for this run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Startup {
    /// The bundled demo account only.
    Demo,
    /// The cache at once (if any), then a fresh read in the background.
    CacheThenFresh,
}

pub use super::prompt::{Prompt, PromptKind};

/// The rest of a load shown from its first part (see `Msg::LoadedFirst`): until it
/// arrives, tabs that need it show that it is loading, or why it could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rest {
    Loading(RequestId),
    Failed(String),
}

/// What keys currently do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    Normal,
    /// The help overlay is open.
    Help,
    Prompt(Prompt),
    /// The command palette is open.
    Palette(Palette),
}

/// Settings the shell starts with.
#[derive(Debug, Clone)]
pub struct Settings {
    pub keymap: Keymap,
    pub theme: Theme,
    /// Themes `cycle_theme` goes through (the starting theme first if it is not built in).
    pub themes: Vec<Theme>,
    pub startup: Startup,
    pub mouse: bool,
    pub now: i64,
    /// Whether the wall clock runs on from `now` (no `--now`): a batch preview's time and
    /// expiry are then read from it ([`crate::tui::pane::Cx::wall_now`]).
    pub clock_runs: bool,
    pub tz: TimeZone,
    /// What `copy_row` and `copy_table` copy (`copy_format` in settings.toml).
    pub copy_format: CopyFormat,
    /// The palette's recent actions from the last session (the data folder's
    /// `palette-recent.txt`).
    pub recent: Recent,
    /// The saved views (`views.toml` in the config folder).
    pub views: Vec<crate::app::views::SavedView>,
    /// The view to open at start (`tieout --view NAME`).
    pub start_view: Option<crate::app::views::SavedView>,
}

/// The UI state.
pub struct State {
    /// What panes may reach while handling messages (clock, data, pending work).
    pub core: Core,
    pub tabs: Vec<Box<dyn Pane>>,
    /// Each tab's keymap layer (its pane registry key), by tab index.
    tab_contexts: Vec<Option<&'static str>>,
    pub active: usize,
    /// Drill-down screens above the active tab, innermost last, each with its id.
    pub screens: Vec<(u64, Box<dyn Pane>)>,
    next_screen: u64,
    pub mode: Mode,
    pub load: LoadState,
    /// The load whose data is shown (newer loads replace it; older ones are dropped).
    pub shown: Option<RequestId>,
    /// Set while the data shown is the first part of a load (see [`Rest`]).
    pub rest: Option<Rest>,
    /// Holds the rest of a staged load back until the first part's jobs are done (see
    /// [`RestHold`]); released by dropping it.
    pub rest_hold: RestHold,
    pub keymap: Keymap,
    pub theme: Theme,
    pub themes: Vec<Theme>,
    pub startup: Startup,
    pub mouse: bool,
    /// Keys typed so far of a longer binding (shown in the status bar).
    pub pending_keys: Vec<Key>,
    /// Spinner ticks since the last key of a pending sequence (it lapses after
    /// [`CHORD_TIMEOUT_TICKS`]).
    pub chord_ticks: u32,
    pub size: (u16, u16),
    pub spinner: usize,
    /// Something changed since the last draw.
    pub dirty: bool,
    pub quit: bool,
    /// Tab title positions from the last draw (mouse clicks on tabs).
    pub tab_hits: Vec<(Rect, usize)>,
    /// First line of the help overlay shown (it scrolls).
    pub help_scroll: u16,
    /// The actions run from the command palette lately, the latest first.
    pub recent: Recent,
    /// A snapshot in the cache newer than the data on screen (a `tieout sync` elsewhere
    /// wrote it): the status bar offers it and `refresh` loads it.
    pub newer: Option<crate::app::workbench::OnDisk>,
    /// The saved views (`open_view` lists them; a save brings the file's new list).
    pub views: Vec<crate::app::views::SavedView>,
}

impl State {
    /// Drops the hold on a staged load's rest once no tab shown from the first part has
    /// a job pending: their frame is next (see [`RestHold`]). Loads (a refresh reading
    /// Stripe meanwhile) do not keep it.
    pub fn release_rest_when_first_part_done(&mut self) {
        let first_part_busy = self.core.pending.values().any(|(owner, _)| {
            matches!(owner, Owner::Tab(i) if self.tabs.get(*i).is_some_and(|t| t.shows_first_part()))
        });
        if !first_part_busy {
            self.rest_hold = RestHold::default();
        }
    }

    /// A state with the registered tabs and nothing loaded.
    pub fn new(settings: Settings) -> Self {
        Self::with_tabs(settings, panes::tabs())
    }

    /// A state with the given tabs (tests).
    pub fn with_tabs(settings: Settings, tabs: Vec<Box<dyn Pane>>) -> Self {
        let tab_contexts = tabs.iter().map(|p| panes::context_of(p.as_ref())).collect();
        let mut core = Core::new(settings.now, settings.tz);
        core.copy_format = settings.copy_format;
        core.clock_runs = settings.clock_runs;
        let start_view = settings.start_view;
        let mut state = State {
            core,
            tabs,
            tab_contexts,
            active: 0,
            screens: Vec::new(),
            next_screen: 1,
            mode: Mode::Normal,
            load: LoadState::Idle,
            shown: None,
            rest: None,
            rest_hold: RestHold::default(),
            keymap: settings.keymap,
            theme: settings.theme,
            themes: settings.themes,
            startup: settings.startup,
            mouse: settings.mouse,
            pending_keys: Vec::new(),
            chord_ticks: 0,
            size: (80, 24),
            spinner: 0,
            dirty: true,
            quit: false,
            tab_hits: Vec::new(),
            help_scroll: 0,
            recent: settings.recent,
            newer: None,
            views: settings.views,
        };
        if let Some(view) = start_view {
            // Checked by the command line (`tieout --view`), so it has a tab.
            if let Err(e) = state.show_view(&view) {
                state.core.toast = Some(super::pane::Toast {
                    text: format!("view not opened: {e}"),
                    error: true,
                });
            }
        }
        state
    }

    /// The first effects: load the account (demo, or cache then fresh).
    pub fn start(&mut self) -> Vec<Effect> {
        match self.startup {
            Startup::Demo => {
                let req = self.core.request(Owner::Shell, "loading the demo account");
                self.load = LoadState::Loading {
                    req,
                    progress: None,
                };
                self.core.effects.push(Effect::Load {
                    req,
                    kind: LoadKind::Demo,
                });
            }
            Startup::CacheThenFresh => {
                let cache = self.core.request(Owner::Shell, "opening the cache");
                let fresh = self.core.request(Owner::Shell, "reading from Stripe");
                self.load = LoadState::Loading {
                    req: fresh,
                    progress: None,
                };
                self.core.effects.push(Effect::Load {
                    req: cache,
                    kind: LoadKind::Cache,
                });
                self.core.effects.push(Effect::Load {
                    req: fresh,
                    kind: LoadKind::Fresh,
                });
            }
        }
        self.dirty = true;
        std::mem::take(&mut self.core.effects)
    }

    /// What the active tab shows instead of itself: the rest of the load it needs is
    /// still on its way (or failed).
    pub fn waiting_for_rest(&self) -> Option<&Rest> {
        let waits = self.screens.is_empty()
            && self
                .tabs
                .get(self.active)
                .is_some_and(|p| !p.shows_first_part());
        self.rest.as_ref().filter(|_| waits)
    }

    /// The keymap layer in force: the help overlay's while it is open, else the active
    /// tab's (its pane registry key; drill-down screens use their tab's).
    pub fn key_context(&self) -> Option<&'static str> {
        if self.mode == Mode::Help {
            return Some(super::keymap::HELP);
        }
        self.tab_contexts.get(self.active).copied().flatten()
    }

    /// The command palette's list for `query` on the tab on screen (see `tui::palette`).
    pub fn palette_entries(&self, query: &str) -> Vec<Entry> {
        super::palette::entries(&self.keymap, self.key_context(), &self.recent, query)
    }

    /// The mode layer in force while text is typed: the prompt's ([`keymap::INPUT`]), or
    /// the focused pane's while it reads typed text ([`Pane::key_mode`]). `None`: keys
    /// are actions of the layers of [`State::key_context`].
    pub fn typing_mode(&self) -> Option<&'static str> {
        match self.mode {
            Mode::Prompt(_) | Mode::Palette(_) => Some(keymap::INPUT),
            Mode::Normal => self.focused().and_then(|p| p.key_mode()),
            Mode::Help => None,
        }
    }

    /// Who has focus: the innermost screen, else the active tab.
    pub fn focus_owner(&self) -> Owner {
        match self.screens.last() {
            Some((id, _)) => Owner::Screen(*id),
            None => Owner::Tab(self.active),
        }
    }

    /// The focused pane.
    pub fn focused(&self) -> Option<&dyn Pane> {
        match self.screens.last() {
            Some((_, p)) => Some(p.as_ref()),
            None => self.tabs.get(self.active).map(|p| p.as_ref()),
        }
    }

    /// Runs `f` on the focused pane with a context owned by it.
    pub fn with_focus<R>(&mut self, f: impl FnOnce(&mut dyn Pane, &mut Cx<'_>) -> R) -> Option<R> {
        let owner = self.focus_owner();
        let State {
            core,
            tabs,
            screens,
            active,
            ..
        } = self;
        let pane: &mut dyn Pane = match screens.last_mut() {
            Some((_, p)) => p.as_mut(),
            None => tabs.get_mut(*active)?.as_mut(),
        };
        let mut cx = Cx::new(core, owner);
        Some(f(pane, &mut cx))
    }

    /// Runs `f` on the pane that owns `owner`'s requests, if it is still open.
    pub fn with_owner<R>(
        &mut self,
        owner: Owner,
        f: impl FnOnce(&mut dyn Pane, &mut Cx<'_>) -> R,
    ) -> Option<R> {
        let State {
            core,
            tabs,
            screens,
            ..
        } = self;
        let pane: &mut dyn Pane = match owner {
            Owner::Shell => return None,
            Owner::Tab(i) => tabs.get_mut(i)?.as_mut(),
            Owner::Screen(id) => screens.iter_mut().find(|(s, _)| *s == id)?.1.as_mut(),
        };
        let mut cx = Cx::new(core, owner);
        Some(f(pane, &mut cx))
    }

    /// Pushes the screens panes asked for and closes the focused one if it asked to.
    pub(crate) fn apply_navigation(&mut self, acting: Owner) {
        if std::mem::take(&mut self.core.close_self)
            && let Owner::Screen(id) = acting
            && let Some(pos) = self.screens.iter().position(|(s, _)| *s == id)
        {
            let closing: Vec<u64> = self.screens.drain(pos..).map(|(s, _)| s).collect();
            for s in closing {
                self.core.cancel_owned_by(Owner::Screen(s));
            }
        }
        for screen in std::mem::take(&mut self.core.pushed) {
            let id = self.next_screen;
            self.next_screen += 1;
            self.screens.push((id, screen));
        }
    }

    /// Closes the innermost screen and cancels its work.
    pub fn pop_screen(&mut self) -> bool {
        match self.screens.pop() {
            Some((id, _)) => {
                self.core.cancel_owned_by(Owner::Screen(id));
                true
            }
            None => false,
        }
    }

    /// Closes every screen (e.g. on a tab switch).
    pub fn pop_all_screens(&mut self) {
        while self.pop_screen() {}
    }

    /// Shows a saved view on its tab, closing the screens above the one on screen (the
    /// tab's `Pane::apply_view`); `Err`: why not.
    pub fn show_view(&mut self, view: &crate::app::views::SavedView) -> Result<(), String> {
        let tab = super::tabs::ALL
            .iter()
            .position(|t| t.key == view.pane)
            .filter(|i| *i < self.tabs.len())
            .ok_or_else(|| {
                let keys: Vec<&str> = super::tabs::ALL.iter().map(|t| t.key).collect();
                format!(
                    "view \"{}\": pane = \"{}\" is not a tab (one of {})",
                    view.name,
                    view.pane,
                    keys.join(", ")
                )
            })?;
        self.pop_all_screens();
        self.active = tab;
        let owner = Owner::Tab(tab);
        let r = self
            .with_owner(owner, |pane, cx| pane.apply_view(view, cx))
            .unwrap_or(Ok(()));
        self.apply_navigation(owner);
        r
    }

    /// The saved views' names, comma-separated (the open prompt lists them).
    pub fn view_names(&self) -> String {
        self.views
            .iter()
            .map(|v| v.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Whether the clock should tick: work is pending (spinner) or a key sequence is
    /// waiting for its next key (it lapses).
    pub fn animating(&self) -> bool {
        !self.core.pending.is_empty() || !self.pending_keys.is_empty()
    }

    /// What runs, for the status bar (the newest piece of work).
    pub fn busy_label(&self) -> Option<&str> {
        self.core
            .pending
            .iter()
            .next_back()
            .map(|(_, (_, label))| label.as_str())
    }

    /// The spinner glyph for the current tick.
    pub fn spinner_glyph(&self) -> char {
        const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
        FRAMES[self.spinner % FRAMES.len()]
    }
}
