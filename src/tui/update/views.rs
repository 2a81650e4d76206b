//! Saved views in the workbench (`app::views` is the file): `save_view` asks for a name
//! and saves what the tab on screen shows (each pane says what that is through
//! `Pane::view_state`), `open_view` asks for a name and shows that view on its tab
//! (`State::show_view`, asking `Pane::apply_view`). Saving is an effect
//! (the runtime rewrites `views.toml`, keeping the other views) answered by
//! `Msg::ViewSaved`.

use super::super::msg::Effect;
use super::super::pane::Toast;
use super::super::prompt::{Prompt, PromptKind};
use super::super::state::{Mode, State};
use super::super::tabs;
use crate::app::views::SavedView;

fn toast(state: &mut State, text: String, error: bool) {
    state.core.toast = Some(Toast { text, error });
}

/// `save_view`: asks for the name (the tab on screen must be able to say its view).
pub(super) fn ask_save(state: &mut State) {
    if !state.screens.is_empty() {
        return toast(state, "go back to the tab to save its view".into(), true);
    }
    match state.tabs.get(state.active).map(|p| p.view_state()) {
        Some(Ok(_)) => {
            state.mode = Mode::Prompt(Prompt {
                kind: PromptKind::SaveView,
                text: String::new(),
                before: String::new(),
            })
        }
        Some(Err(why)) => toast(state, format!("not saved: {why}"), true),
        None => {}
    }
}

/// `open_view`: asks for the name, when there are views to open.
pub(super) fn ask_open(state: &mut State) {
    if state.views.is_empty() {
        return toast(
            state,
            "no saved views yet: save_view saves what a tab shows".into(),
            true,
        );
    }
    state.mode = Mode::Prompt(Prompt {
        kind: PromptKind::OpenView,
        text: String::new(),
        before: String::new(),
    });
}

/// The saved views' names, for the open prompt.
fn names(state: &State) -> String {
    state.view_names()
}

/// The save prompt's answer: the tab's view under `name`, sent to the runtime to write.
pub(super) fn save(state: &mut State, name: &str) {
    let name = name.trim();
    if name.is_empty() {
        return toast(state, "not saved: a view needs a name".into(), true);
    }
    let Some(pane) = state.tabs.get(state.active) else {
        return;
    };
    match pane.view_state() {
        Ok(mut view) => {
            view.name = name.to_string();
            view.pane = tabs::ALL
                .get(state.active)
                .map_or_else(String::new, |t| t.key.to_string());
            state.core.effects.push(Effect::SaveView(view));
        }
        Err(why) => toast(state, format!("not saved: {why}"), true),
    }
}

/// The view `text` names: by its name, else the one name that starts with it.
fn find<'a>(views: &'a [SavedView], text: &str) -> Option<&'a SavedView> {
    let text = text.trim();
    views.iter().find(|v| v.name == text).or_else(|| {
        let mut starts = views.iter().filter(|v| v.name.starts_with(text));
        match (starts.next(), starts.next()) {
            (Some(v), None) if !text.is_empty() => Some(v),
            _ => None,
        }
    })
}

/// The open prompt's answer: shows the view named, on its tab.
pub(super) fn open(state: &mut State, text: &str) {
    let Some(view) = find(&state.views, text).cloned() else {
        let names = names(state);
        return toast(
            state,
            format!("no saved view \"{}\" (saved: {names})", text.trim()),
            true,
        );
    };
    match state.show_view(&view) {
        Ok(()) => toast(state, format!("view {}", view.name), false),
        Err(e) => toast(state, format!("view not opened: {e}"), true),
    }
}

/// The runtime's answer to a save: the views now in the file, or why it was not written.
pub(super) fn on_saved(state: &mut State, result: Result<(String, Vec<SavedView>), String>) {
    match result {
        Ok((name, views)) => {
            state.views = views;
            toast(state, format!("saved view {name} in views.toml"), false);
        }
        Err(e) => toast(state, format!("view not saved: {e}"), true),
    }
}
