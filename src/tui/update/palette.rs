//! The command palette's keys (see `tui::palette`): typing narrows the list, `prev_history`
//! / `next_history` move in it, `submit` runs the selected action as its key would (an
//! action that needs an argument opens its prompt next), `cancel` closes it. The action
//! run goes first in the recent list, which the runtime keeps in the data folder.

use super::super::action::Action;
use super::super::keymap::Input;
use super::super::msg::Effect;
use super::super::palette::Palette;
use super::super::state::{Mode, State};
use super::on_action;

/// Opens the palette, empty.
pub(super) fn open(state: &mut State) {
    state.pending_keys.clear();
    state.mode = Mode::Palette(Palette::default());
}

/// A typing action or a character while the palette is open.
pub(super) fn on_input(state: &mut State, input: Input) {
    let Mode::Palette(p) = &mut state.mode else {
        return;
    };
    match input {
        Input::Char(c) => {
            p.query.push(c);
            p.selected = 0;
        }
        Input::Action(Action::DeleteBack) => {
            p.query.pop();
            p.selected = 0;
        }
        Input::Action(Action::ClearLine) => {
            p.query.clear();
            p.selected = 0;
        }
        Input::Action(Action::PrevHistory) => p.selected = p.selected.saturating_sub(1),
        Input::Action(Action::NextHistory) => p.selected += 1,
        Input::Action(Action::Cancel) => state.mode = Mode::Normal,
        Input::Action(Action::Submit) => submit(state),
        _ => {}
    }
    clamp(state);
}

/// Text pasted while the palette is open is typed into its query.
pub(super) fn on_paste(state: &mut State, text: &str) {
    if let Mode::Palette(p) = &mut state.mode {
        p.query.extend(text.chars().filter(|c| !c.is_control()));
        p.selected = 0;
    }
}

/// Keeps the selection on a line of the list.
fn clamp(state: &mut State) {
    let Mode::Palette(p) = &state.mode else {
        return;
    };
    let n = state.palette_entries(&p.query).len();
    if let Mode::Palette(p) = &mut state.mode {
        p.selected = p.selected.min(n.saturating_sub(1));
    }
}

/// Runs the selected action, if the list has one.
fn submit(state: &mut State) {
    let Mode::Palette(p) = &state.mode else {
        return;
    };
    let chosen = state
        .palette_entries(&p.query)
        .get(p.selected)
        .map(|e| e.action);
    let Some(action) = chosen else {
        state.core.toast = Some(super::Toast {
            text: "no action matches what was typed".into(),
            error: true,
        });
        return;
    };
    state.mode = Mode::Normal;
    state.recent.push(action);
    state
        .core
        .effects
        .push(Effect::SaveRecent(state.recent.to_text()));
    on_action(state, action);
}
