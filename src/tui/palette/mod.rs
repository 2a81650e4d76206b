//! The command palette (`:` or `ctrl-p`): type a few letters of what you want and run it.
//! It lists every action of the tab on screen and the global ones, each with its key in
//! that tab and its one-line description, both from the registry the help overlay reads
//! ([`Action::all`], [`Action::desc`], the keymap): there is no second list. A tab's own
//! actions are those its default keymap layer binds ([`keymap::home_tab`]).
//!
//! The query matches the description and the action's name ([`fuzzy`]); the best match
//! comes first; among equals (and with nothing typed) the actions run lately, the latest
//! first ([`Recent`]), then the tab's own actions, then the others in help order. `submit`
//! runs the selected action as its key would: one that needs an argument (a row or id for
//! `goto`, a month for `choose_month`, a folder for `export_packet`) then opens its prompt.
//! The keys are the `[keys.input]` layer's: `prev_history` / `next_history` (up, down) move
//! in the list, `cancel` closes it.
//!
//! This module is vocabulary (it knows the registry and the keymap, not the shell): the
//! open palette is a [`Palette`] in `state::Mode::Palette`, its keys are handled in
//! `update::palette`, and `palette_view` draws it.

pub mod fuzzy;
#[cfg(test)]
pub(crate) mod tests;

use super::action::Action;
use super::keymap::{self, Keymap};

/// The open palette: what was typed and which line of the list is selected.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Palette {
    pub query: String,
    pub selected: usize,
}

/// Where the query matched an entry: in its description or its name (char positions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hits {
    Desc(Vec<usize>),
    Name(Vec<usize>),
}

/// One line of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub action: Action,
    /// The first key bound to it in the tab on screen, if any.
    pub key: Option<String>,
    /// Where the query matched (`None` with nothing typed).
    pub hits: Option<Hits>,
}

/// The actions run from the palette lately, the latest first (kept for the session, and
/// in the data folder between sessions when there is one: `palette-recent.txt`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Recent(Vec<Action>);

impl Recent {
    /// How many actions are remembered.
    pub const KEEP: usize = 8;

    /// From the action names of a saved list, one a line (unknown names are skipped: a
    /// renamed action is simply forgotten).
    pub fn parse(text: &str) -> Self {
        let mut r = Recent::default();
        for a in text
            .lines()
            .rev()
            .filter_map(|l| Action::from_name(l.trim()))
        {
            r.push(a);
        }
        r
    }

    /// The list as saved: the action names, one a line, the latest first.
    pub fn to_text(&self) -> String {
        self.0.iter().map(|a| format!("{}\n", a.name())).collect()
    }

    /// `action` was run: it goes first.
    pub fn push(&mut self, action: Action) {
        self.0.retain(|a| *a != action);
        self.0.insert(0, action);
        self.0.truncate(Self::KEEP);
    }

    /// The position of `action` in the list (0: the latest).
    pub fn rank(&self, action: Action) -> Option<usize> {
        self.0.iter().position(|a| *a == action)
    }

    pub fn actions(&self) -> &[Action] {
        &self.0
    }
}

/// A match scoring less than the best one divided by this is not listed.
const WEAK: i32 = 2;

/// Whether the palette offers `action` on the tab whose keymap layer is `context`: every
/// action but the typing ones and the palette itself, a tab's own actions only there.
pub fn offered(action: Action, context: Option<&str>) -> bool {
    !action.is_typing()
        && action != Action::Palette
        && keymap::home_tab(action).is_none_or(|home| Some(home) == context)
}

/// The name as the palette shows and matches it: `export packet`.
pub fn spoken_name(action: Action) -> String {
    action.name().replace('_', " ")
}

/// The list for `query` on the tab `context`: the matching actions, the best first; ties
/// (and everything, with nothing typed) go by `recent`, then the tab's own actions, then
/// help order.
pub fn entries(keymap: &Keymap, context: Option<&str>, recent: &Recent, query: &str) -> Vec<Entry> {
    let mut scored: Vec<(i32, usize, bool, usize, Entry)> = Vec::new();
    for (order, action) in Action::all().into_iter().enumerate() {
        if !offered(action, context) {
            continue;
        }
        let (score, hits) = if query.trim().is_empty() {
            (0, None)
        } else {
            let desc = fuzzy::score(query, &action.desc());
            let name = fuzzy::score(query, &spoken_name(action));
            match (desc, name) {
                (Some((d, dp)), Some((n, _))) if d >= n => (d, Some(Hits::Desc(dp))),
                (_, Some((n, np))) => (n, Some(Hits::Name(np))),
                (Some((d, dp)), None) => (d, Some(Hits::Desc(dp))),
                (None, None) => continue,
            }
        };
        let rank = recent.rank(action).unwrap_or(usize::MAX);
        let key = keymap.key_in(context, action);
        let shared = keymap::home_tab(action).is_none();
        scored.push((score, rank, shared, order, Entry { action, key, hits }));
    }
    // A strong match hides the far weaker ones (letters scattered over a long
    // description): "prev mon" lists prev_month, not every line holding p, r, e, v ...
    let best = scored.iter().map(|s| s.0).max().unwrap_or(0);
    scored.retain(|s| s.0.saturating_mul(WEAK) >= best);
    scored.sort_by(|a, b| {
        (b.0.cmp(&a.0))
            .then(a.1.cmp(&b.1))
            .then(a.2.cmp(&b.2))
            .then(a.3.cmp(&b.3))
    });
    scored.into_iter().map(|(_, _, _, _, e)| e).collect()
}
