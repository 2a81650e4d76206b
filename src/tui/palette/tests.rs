//! The command palette through the harness: what it lists on each tab (from the action
//! registry and the keymap), typing, moving, running, the argument prompts, the recent
//! actions, and snapshots of the palette empty, filtered and at an argument prompt at
//! 80x24 and 120x40.

use super::*;
use crate::model::Origin;
use crate::time::Month;
use crate::tui::harness::{Harness, test_settings};
use crate::tui::msg::Effect;
use crate::tui::pane::Pane;
use crate::tui::panes::{self, query::QueryPane, tieout::TieOutPane};
use crate::tui::prompt::PromptKind;
use crate::tui::sample;
use crate::tui::state::{Mode, Settings, Startup};

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

/// The registered tabs, the Query tab with the built-in saved queries only (the user's
/// would make the frames depend on the machine).
fn tabs() -> Vec<Box<dyn Pane>> {
    panes::TABS
        .iter()
        .map(|t| {
            if t.name.key == "query" {
                Box::new(QueryPane::new(crate::app::query::builtin_queries())) as Box<dyn Pane>
            } else {
                (t.make)()
            }
        })
        .collect()
}

fn harness_with(settings: Settings, (w, h): (u16, u16)) -> Harness {
    let ws = sample::workspace(Origin::Demo);
    let mut h = Harness::with_tabs(settings, tabs(), Box::new(move |_| Ok(ws.clone())), w, h);
    h.start();
    h
}

fn harness(size: (u16, u16)) -> Harness {
    harness_with(test_settings(Startup::Demo), size)
}

fn palette(h: &Harness) -> &Palette {
    match &h.state.mode {
        Mode::Palette(p) => p,
        other => panic!("the palette is not open: {other:?}"),
    }
}

/// The actions the open palette lists, in order.
fn listed(h: &Harness) -> Vec<Action> {
    let query = palette(h).query.clone();
    h.state
        .palette_entries(&query)
        .into_iter()
        .map(|e| e.action)
        .collect()
}

/// The Tie-out's month as its table title says ("Payouts arriving in October 2026").
pub(crate) fn month_on_screen(h: &Harness) -> Option<Month> {
    let title = h.state.tabs.get(1)?.table()?.title().to_string();
    let text = title.strip_prefix("Payouts arriving in ")?;
    (1970..2100)
        .flat_map(|y| (1..=12).map(move |m| (y, m)))
        .find_map(|(y, m)| {
            let month: Month = format!("{y:04}-{m:02}").parse().ok()?;
            (month.title() == text).then_some(month)
        })
}

#[test]
fn it_lists_the_tab_s_actions_and_the_global_ones_with_their_keys_and_help_text() {
    let mut h = harness((120, 40));
    h.keys("2");
    h.keys(":");
    let on_tieout = listed(&h);
    for a in [
        Action::PrevMonth,
        Action::ExportPacket,
        Action::Quit,
        Action::Goto,
    ] {
        assert!(on_tieout.contains(&a), "{} on the Tie-out", a.name());
    }
    for a in [
        Action::Facets,
        Action::ApproveRefund,
        Action::Palette,
        Action::Submit,
    ] {
        assert!(!on_tieout.contains(&a), "{} not on the Tie-out", a.name());
    }
    // Nothing typed: the tab's own actions first, in help order.
    assert_eq!(
        on_tieout[..3],
        [Action::PrevMonth, Action::NextMonth, Action::ChooseMonth]
    );
    // The key and the description are the keymap's and the registry's (the help's).
    let entries = h.state.palette_entries("");
    let prev = entries
        .iter()
        .find(|e| e.action == Action::PrevMonth)
        .expect("listed");
    assert_eq!(prev.key.as_deref(), Some("["));
    let frame = h.frame();
    assert!(frame.contains(&*Action::PrevMonth.desc()), "{frame}");
    assert!(frame.contains("prev month"), "{frame}");
    h.keys("esc");
    assert_eq!(h.state.mode, Mode::Normal);
    // On the Worklist: its own actions, not the Tie-out's.
    h.keys("1 ctrl-p");
    let on_worklist = listed(&h);
    assert!(on_worklist.contains(&Action::Facets));
    assert!(!on_worklist.contains(&Action::PrevMonth));
    assert_eq!(palette(&h).query, "");
}

#[test]
fn typing_narrows_the_list_and_enter_runs_the_first_match() {
    let mut h = harness((80, 24));
    assert_eq!(h.state.active, 0);
    h.keys(":");
    h.type_text("tie tab");
    assert_eq!(listed(&h).first(), Some(&Action::Tab(1)));
    h.keys("enter");
    assert_eq!(h.state.mode, Mode::Normal);
    assert_eq!(h.state.active, 1, "the palette switched to the Tie-out tab");

    // A strong match hides letters scattered over a long description.
    h.keys(":");
    h.type_text("prev mon");
    let list = listed(&h);
    assert_eq!(list.first(), Some(&Action::PrevMonth));
    assert!(!list.contains(&Action::CopyTable), "{list:?}");
    h.keys("esc");
    // Next month, by a few letters of its name.
    let before = month_on_screen(&h).expect("a month");
    h.keys(":");
    h.type_text("nxt mon");
    assert_eq!(listed(&h).first(), Some(&Action::NextMonth));
    h.keys("enter");
    assert_eq!(month_on_screen(&h), Some(before.next()));
    // It is the first of the recent actions now, kept for the next session.
    assert_eq!(
        h.state.recent.actions()[..2],
        [Action::NextMonth, Action::Tab(1)]
    );
    assert!(
        h.log
            .contains(&Effect::SaveRecent("next_month\ntab_2\n".into()))
    );
    h.keys(":");
    assert_eq!(listed(&h)[..2], [Action::NextMonth, Action::Tab(1)]);
}

#[test]
fn up_and_down_move_backspace_widens_and_nothing_matching_runs_nothing() {
    let mut h = harness((80, 24));
    h.keys("2 :");
    h.type_text("month");
    let list = listed(&h);
    assert!(list.len() >= 3, "{list:?}");
    h.keys("down down");
    assert_eq!(palette(&h).selected, 2);
    h.keys("up");
    assert_eq!(palette(&h).selected, 1);
    for _ in 0..list.len() + 3 {
        h.keys("down");
    }
    assert_eq!(
        palette(&h).selected,
        list.len() - 1,
        "stays on the last line"
    );
    h.keys("backspace");
    assert_eq!(palette(&h).query, "mont");
    assert_eq!(palette(&h).selected, 0);
    h.keys("ctrl-u");
    h.type_text("zzzz");
    assert!(listed(&h).is_empty());
    h.keys("enter");
    assert!(matches!(h.state.mode, Mode::Palette(_)), "still open");
    assert!(h.frame().contains("no action matches"));
    // A click on another tab does not switch the tab under the palette.
    h.frame();
    let (hit, _) = h.state.tab_hits[0];
    h.step(crate::tui::msg::Msg::Mouse(
        crate::tui::msg::MouseInput::Click {
            col: hit.x,
            row: hit.y,
        },
    ));
    assert_eq!(h.state.active, 1);
    h.keys("esc");
    assert_eq!(h.state.mode, Mode::Normal);
    assert_eq!(h.state.active, 1);
}

#[test]
fn an_action_that_needs_an_argument_asks_for_it_after_it_is_chosen() {
    let mut h = harness((80, 24));
    h.keys("2 :");
    h.type_text("choose month");
    h.keys("enter");
    let Mode::Prompt(p) = &h.state.mode else {
        panic!("no prompt: {:?}", h.state.mode);
    };
    assert_eq!(p.kind, PromptKind::Month);
    let shown = month_on_screen(&h).expect("month");
    assert_eq!(p.text, shown.to_string(), "the month on screen to edit");
    h.keys("ctrl-u");
    h.type_text("2026-09");
    h.keys("enter");
    assert_eq!(month_on_screen(&h), Some("2026-09".parse().expect("month")));
    // A month that is not one says how to type it and keeps the month.
    h.keys("m ctrl-u");
    h.type_text("Sept");
    h.keys("enter");
    assert_eq!(month_on_screen(&h), Some("2026-09".parse().expect("month")));
    let toast = h.state.core.toast.clone().expect("toast");
    assert!(toast.error && toast.text.contains("YYYY-MM"), "{toast:?}");

    // Goto asks for the row or id; the packet export for its folder.
    h.keys(":");
    h.type_text("goto");
    h.keys("enter");
    assert!(matches!(&h.state.mode, Mode::Prompt(p) if p.kind == PromptKind::Goto));
    h.keys("esc");
    h.keys(":");
    h.type_text("export packet");
    h.keys("enter");
    assert!(
        matches!(&h.state.mode, Mode::Prompt(p) if p.kind == PromptKind::PacketDir && p.text.starts_with("close-")),
        "{:?}",
        h.state.mode
    );
}

#[test]
fn the_vim_keys_open_it_with_colon_and_go_to_with_g_o() {
    let mut settings = test_settings(Startup::Demo);
    settings.keymap = crate::tui::keymap::Keymap::preset("vim").expect("vim");
    let mut h = harness_with(settings, (80, 24));
    h.keys(":");
    assert!(matches!(h.state.mode, Mode::Palette(_)));
    h.keys("esc g o");
    assert!(matches!(&h.state.mode, Mode::Prompt(p) if p.kind == PromptKind::Goto));
    h.keys("esc g g");
    assert_eq!(h.state.mode, Mode::Normal);
    let entries = h.state.palette_entries("goto");
    assert_eq!(entries.first().and_then(|e| e.key.as_deref()), Some("g o"));
}

#[test]
fn recent_actions_round_trip_as_names_and_forget_unknown_ones() {
    let mut r = Recent::parse("next_month\nlaunch_rockets\ntab_2\n");
    assert_eq!(r.actions(), [Action::NextMonth, Action::Tab(1)]);
    r.push(Action::Tab(1));
    assert_eq!(r.to_text(), "tab_2\nnext_month\n");
    for a in Action::all().into_iter().take(Recent::KEEP + 2) {
        r.push(a);
    }
    assert_eq!(r.actions().len(), Recent::KEEP);
}

#[test]
fn every_offered_action_has_a_description_and_the_typing_ones_are_never_offered() {
    for tab in crate::tui::tabs::ALL {
        for a in Action::all() {
            if offered(a, Some(tab.key)) {
                assert!(!a.desc().is_empty(), "{}", a.name());
            }
        }
    }
    assert!(!offered(Action::Submit, None));
    assert!(!offered(Action::Palette, None));
    assert!(offered(Action::Quit, Some("tieout")));
    assert!(!offered(Action::Facets, Some("tieout")));
}

fn name(what: &str, (w, h): (u16, u16)) -> String {
    format!("palette_{what}_{w}x{h}")
}

#[test]
fn snapshot_palette_empty_filtered_and_argument_prompt() {
    for size in SIZES {
        let mut h = harness(size);
        h.keys("2 :");
        insta::assert_snapshot!(name("empty", size), h.frame());
        h.type_text("exp");
        insta::assert_snapshot!(name("filtered", size), h.frame());
        h.keys("ctrl-u");
        h.type_text("choose month");
        h.keys("enter");
        insta::assert_snapshot!(name("argument_prompt", size), h.frame());
    }
}

#[test]
fn the_tieout_pane_alone_takes_a_typed_month() {
    // The pane's prompt answer, without the palette: `m` then a month.
    let ws = sample::workspace(Origin::Demo);
    let mut h = Harness::with_tabs(
        test_settings(Startup::Demo),
        vec![Box::new(TieOutPane::new())],
        Box::new(move |_| Ok(ws.clone())),
        80,
        24,
    );
    h.start();
    h.keys("m ctrl-u");
    h.type_text("2026-08");
    h.keys("enter");
    let title = h.state.tabs[0].table().map(|t| t.title().to_string());
    assert_eq!(title.as_deref(), Some("Payouts arriving in August 2026"));
}
