//! The reducer: `update(&mut State, Msg) -> Vec<Effect>`. Pure: no IO, no clock, no
//! terminal; everything slow or outside comes back as an [`Effect`] for the runtime.
//!
//! Order of handling an action: global actions (quit, help, palette, tabs, theme,
//! refresh) first;
//! then the focused pane's `handle`; then the shell's defaults (back, prompts, open a row's
//! detail, export, and the table's own moves, sort and copy). While text is typed (a
//! prompt, a pane's editor or typed confirmation) keys resolve in the mode layer alone and
//! go to `update::typing` instead.

use std::path::PathBuf;

use super::action::Action;
use super::keymap::{Input, Key, Resolved};
use super::msg::{Effect, JobFailed, MouseInput, Msg, Owner};
use super::pane::{Handled, Toast};
use super::panes::detail::RowDetail;
use super::state::{CHORD_TIMEOUT_TICKS, Mode, Prompt, PromptKind, Rest, Startup, State};
use super::workspace::{LoadKind, LoadState};

mod jump;
mod loads;
mod palette;
mod typing;
mod views;
use loads::{on_loaded, on_loaded_first, on_loaded_rest};
use typing::on_input;

/// Shows tab `target` (closing the screens above the current one), if there is one.
fn switch_tab(state: &mut State, target: usize) {
    if target < state.tabs.len() {
        state.pop_all_screens();
        state.active = target;
    }
}

/// Applies one message; returns the effects to perform.
pub fn update(state: &mut State, msg: Msg) -> Vec<Effect> {
    let changed = match msg {
        Msg::Key(key) => on_key(state, key),
        Msg::Action(a) => {
            state.core.toast = None;
            on_action(state, a);
            true
        }
        Msg::Paste(text) => on_paste(state, &text),
        Msg::Mouse(m) => on_mouse(state, m),
        Msg::Resize(w, h) => {
            state.size = (w, h);
            true
        }
        Msg::SnapshotOnDisk(on_disk) => loads::on_disk(state, on_disk),
        Msg::Tick => {
            let mut changed = !state.core.pending.is_empty();
            if changed {
                state.spinner = state.spinner.wrapping_add(1);
            }
            if !state.pending_keys.is_empty() {
                state.chord_ticks += 1;
                if state.chord_ticks >= CHORD_TIMEOUT_TICKS {
                    state.pending_keys.clear();
                    changed = true;
                }
            }
            changed
        }
        Msg::Loaded { req, kind, result } => on_loaded(state, req, kind, result),
        Msg::LoadedFirst {
            req,
            kind: _,
            ws,
            hold,
        } => on_loaded_first(state, req, ws, hold),
        Msg::LoadedRest { req, result } => on_loaded_rest(state, req, result),
        Msg::Progress { req, text } => {
            if let Some(entry) = state.core.pending.get_mut(&req) {
                entry.1 = text.clone();
                if let LoadState::Loading { req: r, progress } = &mut state.load
                    && *r == req
                {
                    *progress = Some(text);
                }
                true
            } else {
                false
            }
        }
        Msg::Computed { req, output } => match state.core.pending.remove(&req) {
            // Not pending: cancelled or superseded. Latest wins.
            None => false,
            Some(_) if output.is::<JobFailed>() => {
                let text = output
                    .downcast::<JobFailed>()
                    .map(|f| f.0)
                    .unwrap_or_default();
                state.core.toast = Some(Toast { text, error: true });
                true
            }
            Some((owner, _)) => {
                state.with_owner(owner, |pane, cx| {
                    let rest = match pane.table_mut() {
                        Some(t) => t.take_result(req, output),
                        None => Some(output),
                    };
                    if let Some(out) = rest {
                        pane.on_computed(req, out, cx);
                    }
                });
                state.apply_navigation(owner);
                true
            }
        },
        Msg::Opened(r) => {
            state.core.toast = Some(match r {
                Ok(program) => Toast {
                    text: format!("opened in the browser ({program})"),
                    error: false,
                },
                Err(e) => Toast {
                    text: format!("not opened: {e}"),
                    error: true,
                },
            });
            true
        }
        Msg::Copied(r) => {
            state.core.toast = Some(match r {
                Ok(place) => Toast {
                    text: format!("copied to {place}"),
                    error: false,
                },
                Err(e) => Toast {
                    text: format!("copy failed: {e}"),
                    error: true,
                },
            });
            true
        }
        Msg::RefundExecuted { req, done } => on_refund_executed(state, req, done),
        Msg::BatchExecuted { req, done } => on_batch_executed(state, req, done),
        Msg::PacketExported { req, result } => on_packet_exported(state, req, result),
        Msg::ViewSaved(r) => {
            views::on_saved(state, r);
            true
        }
        Msg::Written(r) => {
            state.core.toast = Some(match r {
                Ok(path) => Toast {
                    text: format!("wrote {}", path.display()),
                    error: false,
                },
                Err(e) => Toast {
                    text: e,
                    error: true,
                },
            });
            true
        }
    };
    if changed {
        state.dirty = true;
    }
    state.release_rest_when_first_part_done();
    std::mem::take(&mut state.core.effects)
}

fn on_key(state: &mut State, key: Key) -> bool {
    state.core.toast = None;
    if let Some(mode) = state.typing_mode() {
        let input = state.keymap.input(mode, key);
        on_input(state, input);
        return true;
    }
    state.pending_keys.push(key);
    state.chord_ticks = 0;
    let keys = state.pending_keys.clone();
    match state.keymap.resolve_in(state.key_context(), &keys) {
        Resolved::Action(a) => {
            state.pending_keys.clear();
            on_action(state, a);
        }
        Resolved::Pending => {}
        Resolved::Unbound => {
            state.pending_keys.clear();
            // A broken sequence: the last key may still mean something on its own.
            if keys.len() > 1 {
                return on_key(state, key);
            }
        }
    }
    true
}

fn set_focused_filter(state: &mut State, text: &str) {
    state.with_focus(|pane, cx| {
        if let Some(t) = pane.table_mut() {
            t.set_filter(text, cx);
        }
    });
}

fn on_paste(state: &mut State, text: &str) -> bool {
    if let Mode::Palette(_) = state.mode {
        palette::on_paste(state, text);
        return true;
    }
    let Mode::Prompt(prompt) = &mut state.mode else {
        return false;
    };
    prompt.text.extend(text.chars().filter(|c| !c.is_control()));
    if prompt.kind == PromptKind::Filter {
        let t = prompt.text.clone();
        set_focused_filter(state, &t);
    }
    true
}

/// Applies an action (from a key, the mouse or a script).
pub fn on_action(state: &mut State, action: Action) {
    if action.is_typing() {
        // Typing actions mean something only while text is typed (a script's, here).
        if state.typing_mode().is_some() {
            on_input(state, Input::Action(action));
        }
        return;
    }
    if let Mode::Palette(_) = state.mode {
        // An action from a script or the mouse while the palette is open: it closes.
        if matches!(action, Action::Palette | Action::Back) {
            state.mode = Mode::Normal;
        }
        return;
    }
    if state.mode == Mode::Help {
        match action {
            Action::Help | Action::Back => state.mode = Mode::Normal,
            Action::Quit => state.quit = true,
            Action::Down => state.help_scroll = state.help_scroll.saturating_add(1),
            Action::Up => state.help_scroll = state.help_scroll.saturating_sub(1),
            Action::PageDown | Action::HalfPageDown => {
                state.help_scroll = state.help_scroll.saturating_add(10)
            }
            Action::PageUp | Action::HalfPageUp => {
                state.help_scroll = state.help_scroll.saturating_sub(10)
            }
            Action::Top => state.help_scroll = 0,
            _ => {}
        }
        return;
    }
    // Global actions.
    match action {
        Action::Quit => {
            state.quit = true;
            return;
        }
        Action::Help => {
            state.mode = Mode::Help;
            state.help_scroll = 0;
            return;
        }
        Action::Palette => {
            palette::open(state);
            return;
        }
        Action::NextTab => {
            let n = state.tabs.len().max(1);
            switch_tab(state, (state.active + 1) % n);
            return;
        }
        Action::PrevTab => {
            let n = state.tabs.len().max(1);
            switch_tab(state, (state.active + n - 1) % n);
            return;
        }
        Action::Tab(i) => {
            switch_tab(state, usize::from(i));
            return;
        }
        Action::CycleTheme => {
            if !state.themes.is_empty() {
                let i = state
                    .themes
                    .iter()
                    .position(|t| t.name == state.theme.name)
                    .map_or(0, |i| (i + 1) % state.themes.len());
                state.theme = state.themes[i].clone();
                state.core.toast = Some(Toast {
                    text: format!("theme: {}", state.theme.name),
                    error: false,
                });
            }
            return;
        }
        Action::Refresh => {
            refresh(state);
            return;
        }
        Action::SaveView => {
            views::ask_save(state);
            return;
        }
        Action::OpenView => {
            views::ask_open(state);
            return;
        }
        _ => {}
    }
    // The focused pane first.
    let owner = state.focus_owner();
    let handled = state.with_focus(|pane, cx| pane.handle(action, cx));
    state.apply_navigation(owner);
    if let Some(prompt) = state.core.prompt.take() {
        state.mode = Mode::Prompt(prompt);
    }
    if handled == Some(Handled::Yes) {
        return;
    }
    // The shell's defaults.
    match action {
        Action::Back => {
            if !state.pop_screen() {
                let had_filter = state
                    .focused()
                    .and_then(|p| p.table())
                    .is_some_and(|t| !t.filter().is_empty());
                if had_filter {
                    set_focused_filter(state, "");
                    state.core.toast = Some(Toast {
                        text: "filter cleared".into(),
                        error: false,
                    });
                }
            }
        }
        Action::Filter | Action::Goto => {
            let before = state
                .focused()
                .and_then(|p| p.table())
                .map(|t| t.filter().to_string());
            if let Some(before) = before {
                let kind = if action == Action::Filter {
                    PromptKind::Filter
                } else {
                    PromptKind::Goto
                };
                let text = if kind == PromptKind::Filter {
                    before.clone()
                } else {
                    String::new()
                };
                state.mode = Mode::Prompt(Prompt { kind, text, before });
            }
        }
        Action::Open => {
            let detail = state.focused().and_then(|p| {
                let t = p.table()?;
                let row = t.selected_row()?;
                let fields = t.row_fields(row);
                let id = fields.first().map(|f| f.1.clone()).unwrap_or_default();
                Some(RowDetail::new(format!("{} › {}", t.title(), id), fields))
            });
            if let Some(d) = detail {
                state.core.pushed.push(Box::new(d));
                state.apply_navigation(owner);
            }
        }
        Action::Export => {
            let out = state.focused().and_then(|p| {
                let t = p.table()?;
                let name = format!(
                    "tieout-{}.csv",
                    t.title()
                        .to_lowercase()
                        .chars()
                        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                        .collect::<String>()
                        .split('-')
                        .filter(|s| !s.is_empty())
                        .collect::<Vec<_>>()
                        .join("-")
                );
                Some((PathBuf::from(name), t.to_csv()))
            });
            if let Some((path, bytes)) = out {
                state.core.effects.push(Effect::Write { path, bytes });
            }
        }
        other => {
            state.with_focus(|pane, cx| pane.table_mut().map(|t| t.handle(other, cx)));
        }
    }
}

/// Reloads the account: the demo again, or fresh from Stripe (data stays on screen).
fn refresh(state: &mut State) {
    if loads::load_newer(state) {
        return;
    }
    // A newer refresh supersedes an older one.
    // Except the rest of the load on screen: the tabs waiting for it would wait for
    // Stripe instead (the refresh replaces it anyway when it arrives).
    let rest = match &state.rest {
        Some(Rest::Loading(r)) => Some(*r),
        _ => None,
    };
    let old: Vec<_> = state
        .core
        .pending
        .iter()
        .filter(|(r, (o, _))| *o == Owner::Shell && Some(**r) != rest)
        .map(|(r, _)| *r)
        .collect();
    for r in old {
        state.core.cancel(r);
    }
    // A tab marked for a resource that failed reads that resource again, alone.
    if let Some((parts, account)) = retry_target(state) {
        let what: Vec<&str> = parts.resources().iter().map(|r| r.label()).collect();
        let req = state
            .core
            .request(Owner::Shell, format!("reading {} again", what.join(", ")));
        state.core.effects.push(Effect::Retry {
            req,
            parts,
            account,
        });
        return;
    }
    let (kind, label) = match state.startup {
        Startup::Demo => (LoadKind::Demo, "loading the demo account"),
        Startup::CacheThenFresh => (LoadKind::Fresh, "refreshing from Stripe"),
    };
    let req = state.core.request(Owner::Shell, label);
    if state.core.workspace.is_none() {
        state.load = LoadState::Loading {
            req,
            progress: None,
        };
    }
    state.core.effects.push(Effect::Load { req, kind });
}

/// What `refresh` reads again on the active tab: the resources it is marked for that
/// failed (not those the key lacks), of the account on screen; `None`: a whole refresh.
fn retry_target(state: &State) -> Option<(crate::model::Parts, crate::model::AccountIdent)> {
    if state.startup != Startup::CacheThenFresh {
        return None;
    }
    let ws = state.core.workspace.as_ref()?;
    let parts = state.tabs.get(state.active)?.reads().retryable(&ws.gaps);
    if parts.resources().is_empty() {
        return None;
    }
    Some((parts, crate::app::pane_reads::account_of(&ws.data.meta)))
}

/// A close packet export finished: its owner (the Tie-out tab) shows the result; if the
/// owner is gone, the shell says where the packet went.
fn on_packet_exported(
    state: &mut State,
    req: super::msg::RequestId,
    result: super::msg::PacketResult,
) -> bool {
    let Some((owner, _)) = state.core.pending.remove(&req) else {
        return false;
    };
    let shown = state.with_owner(owner, |pane, cx| {
        pane.on_computed(req, Box::new(result.clone()), cx)
    });
    if shown.is_none() {
        state.core.toast = Some(match result {
            super::msg::PacketResult::Written { dir, files } => Toast {
                text: format!("wrote close packet {} ({files} files)", dir.display()),
                error: false,
            },
            super::msg::PacketResult::Exists(dir) => Toast {
                text: format!("a close packet already exists at {}", dir.display()),
                error: true,
            },
            super::msg::PacketResult::Failed(e) => Toast {
                text: e,
                error: true,
            },
        });
    }
    true
}

fn on_mouse(state: &mut State, m: MouseInput) -> bool {
    // The palette takes keys only: a click cannot switch the tab under it.
    if !state.mouse || matches!(state.mode, Mode::Palette(_)) {
        return false;
    }
    match m {
        MouseInput::ScrollUp { col, row } | MouseInput::ScrollDown { col, row } => {
            if state.mode == Mode::Help {
                let a = if matches!(m, MouseInput::ScrollUp { .. }) {
                    Action::Up
                } else {
                    Action::Down
                };
                on_action(state, a);
                return true;
            }
            let delta: isize = if matches!(m, MouseInput::ScrollUp { .. }) {
                -3
            } else {
                3
            };
            state
                .with_focus(|pane, _| {
                    pane.table_mut().map(|t| {
                        if t.contains(col, row) {
                            t.scroll(delta);
                        }
                    })
                })
                .is_some()
        }
        MouseInput::Click { col, row } => {
            if let Some((_, tab)) = state
                .tab_hits
                .iter()
                .find(|(r, _)| {
                    col >= r.x && col < r.x + r.width && row >= r.y && row < r.y + r.height
                })
                .copied()
            {
                state.pop_all_screens();
                state.active = tab;
                return true;
            }
            state
                .with_focus(|pane, _| pane.table_mut().map(|t| t.click(col, row)))
                .flatten()
                .unwrap_or(false)
        }
    }
}

/// A batch's report goes to the pane that asked; if that pane is gone, the status line
/// still says how it ended.
fn on_batch_executed(
    state: &mut State,
    req: super::msg::RequestId,
    done: super::msg::BatchDone,
) -> bool {
    let (text, error) = match &done.outcome {
        Ok(r) => (
            r.lines().first().cloned().unwrap_or_default(),
            !r.complete(),
        ),
        Err(e) => (format!("batch not sent: {e}"), true),
    };
    deliver_or_say(state, req, Box::new(done), Toast { text, error })
}

/// A refund's outcome goes to the pane that asked; if that pane is gone, the status line
/// still says what happened (a refund's result is never silently dropped).
fn on_refund_executed(
    state: &mut State,
    req: super::msg::RequestId,
    done: super::msg::RefundDone,
) -> bool {
    let (text, error) = match &done.outcome {
        Ok(o) => (format!("{}: {}", done.ticket, o.summary()), false),
        Err(e) => (format!("{}: not sent: {e}", done.ticket), true),
    };
    deliver_or_say(state, req, Box::new(done), Toast { text, error })
}

/// Gives a write's outcome to the pane that asked for it, or, when that pane is gone,
/// puts `orphaned` on the status line.
fn deliver_or_say(
    state: &mut State,
    req: super::msg::RequestId,
    output: super::msg::JobOutput,
    orphaned: Toast,
) -> bool {
    match state.core.pending.remove(&req) {
        Some((owner, _)) => {
            state.with_owner(owner, |pane, cx| pane.on_computed(req, output, cx));
            state.apply_navigation(owner);
        }
        None => state.core.toast = Some(orphaned),
    }
    true
}
