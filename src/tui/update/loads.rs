//! The account arriving: a whole load, or a cache opened in two parts (the Worklist's
//! tables first, the rest after), merged into the state the panes read.

use super::super::msg::Owner;
use super::super::pane::Toast;
use super::super::state::{Rest, State};
use super::super::workspace::{LoadKind, LoadState};

pub(super) fn on_loaded(
    state: &mut State,
    req: super::super::msg::RequestId,
    kind: LoadKind,
    result: Result<super::super::workspace::Workspace, super::super::workspace::LoadError>,
) -> bool {
    if state.core.pending.remove(&req).is_none() {
        return false; // cancelled or superseded
    }
    if let LoadKind::Retry(parts) = kind {
        return on_retried(state, req, parts, result);
    }
    let newer_shown = state.shown.is_some_and(|s| s > req);
    let other_load_pending = state.core.pending.values().any(|(o, _)| *o == Owner::Shell);
    match result {
        Ok(ws) => {
            if newer_shown {
                return false;
            }
            // What the key could not read keeps the older copy on screen, marked.
            let ws = match &state.core.workspace {
                Some(older) if !ws.gaps.is_empty() => ws.filled_from(older),
                _ => ws,
            };
            let place = place_on_screen(state);
            state.shown = Some(req);
            if state
                .newer
                .is_some_and(|n| n.fetched_at <= ws.data.meta.fetched_at)
            {
                state.newer = None;
            }
            state.core.workspace = Some(ws.clone());
            // A whole account replaces a first part shown before; its rest is not wanted.
            if let Some(Rest::Loading(r)) = state.rest.take() {
                state.core.cancel(r);
            }
            for i in 0..state.tabs.len() {
                state.with_owner(Owner::Tab(i), |pane, cx| pane.on_data(&ws, cx));
            }
            to_screens(state, &ws);
            keep_place(state, place);
            state.load = LoadState::Loaded;
            if kind == LoadKind::Newer {
                state.core.toast = Some(Toast {
                    text: format!(
                        "loaded the newer data, read from Stripe at {}",
                        crate::time::clock_in(
                            ws.data.meta.fetched_at,
                            state.core.now,
                            &state.core.tz
                        )
                    ),
                    error: false,
                });
            }
            if kind == LoadKind::Fresh {
                state.core.toast = Some(if ws.gaps.is_empty() {
                    Toast {
                        text: "refreshed from Stripe".into(),
                        error: false,
                    }
                } else {
                    let unread: Vec<&str> = ws.gaps.iter().map(|g| g.resource.label()).collect();
                    Toast {
                        text: format!(
                            "refreshed from Stripe, except {} (the panes that need them say why)",
                            unread.join(", ")
                        ),
                        error: true,
                    }
                });
            }
        }
        Err(e) => {
            if e.missing_cache && other_load_pending {
                return true; // no cache yet; the fresh read is on its way
            }
            if state.core.workspace.is_some() {
                state.core.toast = Some(Toast {
                    text: format!("refresh failed: {} (showing older data)", e.message),
                    error: true,
                });
            } else if !other_load_pending {
                state.load = LoadState::Failed { message: e.message };
            }
        }
    }
    true
}

/// New data for the drill-down screens: each keeps its place or, when its row is gone,
/// closes with the screens above it.
fn to_screens(state: &mut State, ws: &super::super::workspace::Workspace) {
    let ids: Vec<u64> = state.screens.iter().map(|(id, _)| *id).collect();
    for id in ids {
        let keep = state
            .with_owner(Owner::Screen(id), |pane, cx| pane.on_data(ws, cx))
            .unwrap_or(false);
        if !keep && let Some(pos) = state.screens.iter().position(|(s, _)| *s == id) {
            let closing: Vec<u64> = state.screens.drain(pos..).map(|(s, _)| s).collect();
            for s in closing {
                state.core.cancel_owned_by(Owner::Screen(s));
            }
        }
    }
}

/// A retry of some resources came back (`Effect::Retry`): what was read replaces those
/// resources' tables on screen and their gaps go; what failed again keeps the data
/// shown with the new error. Only the tabs that read a retried resource (and the
/// screens above) are given the merged data: the others keep theirs, unread.
fn on_retried(
    state: &mut State,
    req: super::super::msg::RequestId,
    parts: crate::model::Parts,
    result: Result<super::super::workspace::Workspace, super::super::workspace::LoadError>,
) -> bool {
    let what: Vec<&str> = parts.resources().iter().map(|r| r.label()).collect();
    let what = what.join(", ");
    let Some(shown) = state.core.workspace.clone() else {
        return false;
    };
    let again = match result {
        Ok(again) => again,
        Err(e) => {
            state.core.toast = Some(Toast {
                text: format!("could not read {what} again: {}", e.message),
                error: true,
            });
            return true;
        }
    };
    let again = crate::app::pane_reads::PaneData {
        data: std::sync::Arc::try_unwrap(again.data).unwrap_or_else(|a| (*a).clone()),
        gaps: (*again.gaps).clone(),
    };
    let merged = crate::app::pane_reads::merge_again(&shown.data, &shown.gaps, again, parts);
    let still: Vec<&str> = merged
        .gaps
        .iter()
        .filter(|g| parts.has(g.resource))
        .map(|g| g.resource.label())
        .collect();
    let ws = super::super::workspace::Workspace {
        data: std::sync::Arc::new(merged.data),
        gaps: std::sync::Arc::new(merged.gaps),
        ..shown
    };
    state.shown = Some(req);
    state.core.workspace = Some(ws.clone());
    for i in 0..state.tabs.len() {
        let reads = state.tabs[i].reads();
        if parts.resources().into_iter().any(|r| reads.touches(r)) {
            state.with_owner(Owner::Tab(i), |pane, cx| pane.on_data(&ws, cx));
        }
    }
    to_screens(state, &ws);
    state.core.toast = Some(if still.is_empty() {
        Toast {
            text: format!("read {what} again from Stripe"),
            error: false,
        }
    } else {
        Toast {
            text: format!(
                "{} still could not be read (the pane says why)",
                still.join(", ")
            ),
            error: true,
        }
    });
    true
}

/// The first part of a load in two parts: the tabs that show from it get the data now;
/// the others show that the rest is loading (the request stays pending until it arrives).
pub(super) fn on_loaded_first(
    state: &mut State,
    req: super::super::msg::RequestId,
    ws: super::super::workspace::Workspace,
    hold: super::super::msg::RestHold,
) -> bool {
    if !state.core.pending.contains_key(&req) {
        return false; // cancelled or superseded
    }
    if state.shown.is_some_and(|s| s > req) {
        state.core.cancel(req); // newer data is shown: neither part is wanted
        return false;
    }
    state.shown = Some(req);
    state.core.workspace = Some(ws.clone());
    state.rest = Some(Rest::Loading(req));
    // Released once the first part's jobs are done (`update` checks after each message).
    state.rest_hold = hold;
    if let Some(entry) = state.core.pending.get_mut(&req) {
        entry.1 = "loading the payouts".into();
    }
    for i in 0..state.tabs.len() {
        if state.tabs[i].shows_first_part() {
            state.with_owner(Owner::Tab(i), |pane, cx| pane.on_data(&ws, cx));
        }
    }
    state.load = LoadState::Loaded;
    true
}

/// The rest of a load in two parts: merged into the first part on screen (its tables are
/// moved, not copied, unless a job still holds the first part), then given to the tabs
/// that were waiting for it. The tabs and screens showing the first part keep it: their
/// tables are the same.
pub(super) fn on_loaded_rest(
    state: &mut State,
    req: super::super::msg::RequestId,
    result: Result<Box<crate::model::AccountData>, super::super::workspace::LoadError>,
) -> bool {
    if state.core.pending.remove(&req).is_none() || state.rest != Some(Rest::Loading(req)) {
        return false; // cancelled, or newer data replaced the first part
    }
    let (rest, shown) = match (result, state.core.workspace.take()) {
        (Ok(rest), Some(shown)) => (rest, shown),
        (Err(e), shown) => {
            state.core.workspace = shown;
            state.rest = Some(Rest::Failed(e.message));
            return true;
        }
        (Ok(_), None) => {
            state.rest = None;
            return true;
        }
    };
    let mut data =
        std::sync::Arc::try_unwrap(shown.data).unwrap_or_else(|shared| (*shared).clone());
    crate::app::load::merge_rest(&mut data, *rest);
    let ws = super::super::workspace::Workspace {
        data: std::sync::Arc::new(data),
        tickets: shown.tickets,
        gaps: shown.gaps,
        history: shown.history,
        bank: shown.bank,
        connected: shown.connected,
        gate_policy: shown.gate_policy,
    };
    state.core.workspace = Some(ws.clone());
    state.rest = None;
    for i in 0..state.tabs.len() {
        if !state.tabs[i].shows_first_part() {
            state.with_owner(Owner::Tab(i), |pane, cx| pane.on_data(&ws, cx));
        }
    }
    true
}

/// The runtime saw the cache's snapshot: newer than the data on screen (read from Stripe
/// later), it is offered in the status bar until loaded.
pub(super) fn on_disk(state: &mut State, on_disk: crate::app::workbench::OnDisk) -> bool {
    let shown = state.core.workspace.as_ref().map(|w| &w.data.meta);
    let newer = shown
        .filter(|m| m.origin != crate::model::Origin::Demo)
        .is_some_and(|m| on_disk.fetched_at > m.fetched_at);
    let offer = newer.then_some(on_disk);
    let changed = state.newer != offer;
    state.newer = offer;
    changed
}

/// `refresh` while a newer snapshot is offered: load it from the cache, whole (the
/// place on screen is kept, see [`keep_place`]). Returns whether it did.
pub(super) fn load_newer(state: &mut State) -> bool {
    let Some(newer) = state.newer.take() else {
        return false;
    };
    let old: Vec<_> = (state.core.pending.iter())
        .filter(|(_, (o, _))| *o == Owner::Shell)
        .map(|(r, _)| *r)
        .collect();
    for r in old {
        state.core.cancel(r);
    }
    let req = state
        .core
        .request(Owner::Shell, "loading the newer snapshot");
    tracing::info!(generation = newer.generation, "loading the newer snapshot");
    state.core.effects.push(super::super::msg::Effect::Load {
        req,
        kind: LoadKind::Newer,
    });
    true
}

/// Where the user is, as a place a tab can show again after new data: the innermost
/// screen's that has one (a payout's lines, its categories), else the active tab's
/// selected row.
fn place_on_screen(state: &State) -> Option<crate::tui::pane::Place> {
    let screens = state.screens.iter().rev().map(|(_, s)| s.place());
    let tab = state.tabs.get(state.active).map(|t| t.place());
    screens.chain(tab).flatten().next()
}

/// After new data: shows `place` again on the active tab (its row selected, the screens
/// above it opened again), so a refresh keeps the tab, the month, the drill-down, the
/// selection and the filter.
fn keep_place(state: &mut State, place: Option<crate::tui::pane::Place>) {
    let Some(place) = place else {
        return;
    };
    let tab = state.active;
    let shown = state
        .with_owner(Owner::Tab(tab), |pane, cx| pane.reveal(&place, cx))
        .unwrap_or(crate::tui::pane::Reveal::No);
    if shown == crate::tui::pane::Reveal::No {
        state.core.pushed.clear();
        return;
    }
    let opened = std::mem::take(&mut state.core.pushed);
    if !opened.is_empty() {
        state.pop_all_screens();
        state.core.pushed = opened;
        state.apply_navigation(Owner::Tab(tab));
    }
}

#[cfg(test)]
#[path = "refresh_tests.rs"]
mod refresh_tests;
