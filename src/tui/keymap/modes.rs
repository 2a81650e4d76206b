//! The mode layers: the keys of the modes that read typed text. While one is in force it
//! stands alone: the global and tab layers do not apply (`q` is a letter in a filter, not
//! quit), a key it binds is a typing action ([`Group::Typing`](crate::tui::action::Group)),
//! and any other printable key is text. Each layer takes only the actions its modes
//! act on, and binds single keys only (typed text cannot wait for a sequence).
//!
//! - `[keys.input]`: the one-line inputs, the command palette, the filter / go to /
//!   month / folder prompts and the Query tab's SQL editor (the prompts have no cursor,
//!   history or lines and ignore those; the palette moves in its list with
//!   `prev_history` / `next_history`; `newline` and `toggle_multiline` are the SQL
//!   editor's alone).
//! - `[keys.confirm]`: the Refunds tab's typed confirmation, which sends only once
//!   `yes` is typed before `submit` (a single key, a wrong word or `submit` alone sends
//!   nothing, whatever the keys).

use crate::tui::action::Action;

/// The layer of the prompts and the SQL editor.
pub const INPUT: &str = "input";

/// The layer of the refund's typed confirmation.
pub const CONFIRM: &str = "confirm";

/// One mode layer: its `[keys.<name>]` table, its help section, and the actions it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModeLayer {
    pub name: &'static str,
    /// The help overlay's section title.
    pub title: &'static str,
    pub actions: &'static [Action],
}

/// Every mode layer, in help order.
pub const MODES: &[ModeLayer] = &[
    ModeLayer {
        name: INPUT,
        title: "Typing in the palette, a prompt or the SQL editor [keys.input]",
        actions: &[
            Action::Submit,
            Action::Cancel,
            Action::DeleteBack,
            Action::DeleteForward,
            Action::CursorLeft,
            Action::CursorRight,
            Action::LineStart,
            Action::LineEnd,
            Action::PrevHistory,
            Action::NextHistory,
            Action::ClearLine,
            Action::Newline,
            Action::ToggleMultiline,
        ],
    },
    ModeLayer {
        name: CONFIRM,
        title: "Typing the refund confirmation [keys.confirm]",
        actions: &[
            Action::Submit,
            Action::Cancel,
            Action::DeleteBack,
            Action::ClearLine,
        ],
    },
];

/// The mode layer named `name`, if it is one.
pub fn mode(name: &str) -> Option<&'static ModeLayer> {
    MODES.iter().find(|m| m.name == name)
}

impl ModeLayer {
    /// The action named `name`, if this layer takes it.
    pub fn action(&self, name: &str) -> Option<Action> {
        self.actions.iter().copied().find(|a| a.name() == name)
    }

    /// The names of the actions it takes, comma-separated, for error messages.
    pub fn valid_names(&self) -> String {
        self.actions
            .iter()
            .map(|a| a.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The mode layers as `[keys.input] or [keys.confirm]`, for error messages.
pub fn tables() -> String {
    let names: Vec<String> = MODES.iter().map(|m| format!("[keys.{}]", m.name)).collect();
    names.join(" or ")
}

/// What a key means while a mode layer is in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// A typing action the layer binds to the key.
    Action(Action),
    /// A printable character the layer leaves alone: text.
    Char(char),
    /// Neither (an unbound named key, a ctrl- or alt- combination): nothing.
    Unbound,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_typing_action_is_in_a_mode_layer_and_the_layers_take_only_those() {
        for a in Action::all().into_iter().filter(|a| a.is_typing()) {
            assert!(
                MODES.iter().any(|m| m.actions.contains(&a)),
                "{} is in no mode layer: it could never be bound",
                a.name()
            );
        }
        for m in MODES {
            assert!(m.actions.iter().all(|a| a.is_typing()), "{}", m.name);
            assert_eq!(mode(m.name), Some(m));
        }
        assert_eq!(tables(), "[keys.input] or [keys.confirm]");
    }
}
