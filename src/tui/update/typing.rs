//! Typed text: while a mode layer is in force (`State::typing_mode`), a key is a typing
//! action of that layer or a character ([`Input`]). The line prompt (filter, go to, a
//! pane's month or folder) is the shell's own and is handled here, the command palette
//! in `update::palette`; a pane reading typed text (the
//! SQL editor, the refund confirmation) gets the input through `Pane::input`.

use super::super::action::Action;
use super::super::keymap::Input;
use super::super::pane::Toast;
use super::super::state::{Mode, PromptKind, State};
use super::set_focused_filter;

/// A typing action or a character: to the prompt if one is open, else to the focused pane
/// reading typed text.
pub(super) fn on_input(state: &mut State, input: Input) {
    if let Mode::Palette(_) = state.mode {
        super::palette::on_input(state, input);
        return;
    }
    if let Mode::Prompt(_) = state.mode {
        on_prompt_input(state, input);
        return;
    }
    let owner = state.focus_owner();
    state.pending_keys.clear();
    state.with_focus(|pane, cx| pane.input(input, cx));
    state.apply_navigation(owner);
}

/// The prompt: `submit` answers it, `cancel` closes it (undoing a filter typed), the text
/// is edited at its end (it has no cursor or history).
fn on_prompt_input(state: &mut State, input: Input) {
    let Mode::Prompt(prompt) = &mut state.mode else {
        return;
    };
    match input {
        Input::Action(Action::Submit) => {
            let prompt = prompt.clone();
            state.mode = Mode::Normal;
            match prompt.kind {
                PromptKind::Goto => goto(state, &prompt.text),
                PromptKind::SaveView => super::views::save(state, &prompt.text),
                PromptKind::OpenView => super::views::open(state, &prompt.text),
                _ => {}
            }
            if !matches!(
                prompt.kind,
                PromptKind::Filter | PromptKind::Goto | PromptKind::SaveView | PromptKind::OpenView
            ) {
                // A pane's own prompt (a folder, a month): the pane answers it.
                let owner = state.focus_owner();
                state.with_focus(|pane, cx| pane.on_prompt(prompt.kind, &prompt.text, cx));
                state.apply_navigation(owner);
            }
            return;
        }
        Input::Action(Action::Cancel) => {
            let prompt = prompt.clone();
            state.mode = Mode::Normal;
            if prompt.kind == PromptKind::Filter {
                set_focused_filter(state, &prompt.before);
            }
            return;
        }
        _ => {}
    }
    let edited = match input {
        Input::Action(Action::DeleteBack) => {
            prompt.text.pop();
            true
        }
        Input::Action(Action::ClearLine) => {
            prompt.text.clear();
            true
        }
        Input::Char(c) => {
            prompt.text.push(c);
            true
        }
        _ => false,
    };
    if edited && prompt.kind == PromptKind::Filter {
        let text = prompt.text.clone();
        set_focused_filter(state, &text);
    }
}

/// `goto`'s answer: a row number of the table on screen, or a row with a cell equal to
/// the text; else an id (or the start of one) of any table, shown where a tab shows it
/// ([`super::jump`]); else the first row of the table on screen holding the text.
fn goto(state: &mut State, text: &str) {
    let number = text.trim().parse::<usize>().is_ok();
    // A cell of the table on screen first: the id may be right here, in context.
    let here = state
        .with_focus(|pane, _| pane.table_mut().is_some_and(|t| t.goto_exact(text)))
        .unwrap_or(false);
    if here || (!number && super::jump::jump(state, text)) {
        return;
    }
    let found = state
        .with_focus(|pane, _| pane.table_mut().map(|t| t.goto(text)))
        .flatten();
    if found == Some(false) {
        state.core.toast = Some(Toast {
            text: if number {
                format!("no row {}", text.trim())
            } else {
                format!("no row or id {}", text.trim())
            },
            error: true,
        });
    }
}
