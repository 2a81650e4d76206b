//! Saved views through the keys: save what a tab shows, change it, open the view again
//! and find the same state (filter, facets, sort, columns, month) and the same frame;
//! a view opened at start (`tieout --view`) before the account is loaded.

use super::harness::{Harness, test_settings};
use super::msg::Effect;
use super::sample;
use super::state::Startup;
use super::widgets::table::SortDir;
use crate::app::views::{Direction, Facets, SavedView, Sort};
use crate::model::Origin;

fn loaded(w: u16, h: u16) -> Harness {
    Harness::loaded(sample::workspace(Origin::Demo), w, h)
}

fn worklist(h: &Harness) -> &dyn super::pane::Pane {
    h.state.tabs[0].as_ref()
}

/// The table of the tab on screen: filter, sort (by title), hidden columns, rows.
fn table_state(h: &Harness) -> (String, Option<(String, SortDir)>, Vec<String>, usize) {
    let t = h.state.focused().and_then(|p| p.table()).expect("a table");
    let v = t.table_view();
    (v.filter, v.sort, t.hidden_columns().to_vec(), t.visible())
}

/// Sorts the Worklist by Amount descending, hides Decline, filters "usd" and saves it
/// as `name` through the keys.
fn save_a_worklist_view(h: &mut Harness, name: &str) {
    h.keys("1 right s s right - /");
    h.type_text("usd");
    h.keys("enter S");
    h.type_text(name);
    h.keys("enter");
}

#[test]
fn a_saved_view_is_saved_from_the_keys_and_reopened_with_the_same_state() {
    let mut h = loaded(120, 40);
    save_a_worklist_view(&mut h, "morning");
    let saved = h.state.views.first().cloned().expect("one view saved");
    assert_eq!(saved.name, "morning");
    assert_eq!(saved.pane, "worklist");
    assert_eq!(saved.filter, "usd");
    assert_eq!(
        saved.sort,
        Some(Sort {
            column: "Amount".into(),
            direction: Direction::Desc
        })
    );
    assert!(!saved.columns.contains(&"Decline".to_string()), "{saved:?}");
    assert!(saved.columns.contains(&"Customer".to_string()), "{saved:?}");
    assert!(
        h.log
            .iter()
            .any(|e| matches!(e, Effect::SaveView(v) if v.name == "morning"))
    );
    let want = table_state(&h);

    // Undo it all and go elsewhere, then open the view from its key.
    h.keys("ctrl-l + s 2");
    assert_eq!(h.state.active, 1);
    h.keys("V");
    h.type_text("morn");
    h.keys("enter");
    assert_eq!(h.state.active, 0, "the view's tab");
    assert_eq!(table_state(&h), want);
    let (filter, sort, hidden, rows) = want;
    assert_eq!(filter, "usd");
    assert_eq!(sort, Some(("Amount".to_string(), SortDir::Desc)));
    assert_eq!(hidden, vec!["Decline".to_string()]);
    assert!(rows > 0);
    let toast = h.state.core.toast.clone().expect("a toast");
    assert_eq!(toast.text, "view morning");
}

#[test]
fn a_view_opened_from_the_palette_sets_the_facets() {
    let mut h = loaded(120, 40);
    h.state.views = vec![SavedView {
        name: "eur-stuck".into(),
        pane: "worklist".into(),
        facets: Facets {
            currency: Some("eur".into()),
            ..Facets::default()
        },
        ..SavedView::default()
    }];
    h.keys("2 :");
    h.type_text("open view");
    h.keys("enter");
    h.type_text("eur-stuck");
    h.keys("enter");
    assert_eq!(h.state.active, 0);
    let w = worklist(&h);
    let t = w.table().expect("table");
    assert!(t.visible() > 0);
    assert_eq!(
        w.view_state().expect("a view").facets.currency.as_deref(),
        Some("eur")
    );
    let frame = h.frame();
    assert!(frame.contains("EUR"), "{frame}");
    assert!(!frame.contains(" USD "), "only euro invoices: {frame}");
    // An unknown name says which views there are.
    h.keys("V");
    h.type_text("nope");
    h.keys("enter");
    let toast = h.state.core.toast.clone().expect("a toast");
    assert!(toast.error && toast.text.contains("eur-stuck"), "{toast:?}");
}

#[test]
fn the_tieout_view_keeps_its_month() {
    let mut h = loaded(120, 40);
    h.keys("2 [ [");
    let month = |h: &Harness| h.state.tabs[1].view_state().expect("a view").month;
    let saved_month = month(&h);
    h.keys("S");
    h.type_text("two-back");
    h.keys("enter ] ] ]");
    assert_ne!(month(&h), saved_month);
    h.keys("V");
    h.type_text("two-back");
    h.keys("enter");
    assert_eq!(month(&h), saved_month);
    assert_eq!(h.state.views[0].month, saved_month);
}

#[test]
fn a_view_opened_at_start_shows_once_the_account_is_loaded() {
    let view = SavedView {
        name: "by-amount".into(),
        pane: "worklist".into(),
        filter: "usd".into(),
        sort: Some(Sort {
            column: "Amount".into(),
            direction: Direction::Desc,
        }),
        columns: vec!["Customer".into(), "Amount".into(), "Action".into()],
        ..SavedView::default()
    };
    let mut settings = test_settings(Startup::Demo);
    settings.views = vec![view.clone()];
    settings.start_view = Some(view);
    let ws = sample::workspace(Origin::Demo);
    let mut h = Harness::new(settings, Box::new(move |_| Ok(ws.clone())), 80, 24);
    h.start();
    let (filter, sort, hidden, _) = table_state(&h);
    assert_eq!(filter, "usd");
    assert_eq!(sort, Some(("Amount".to_string(), SortDir::Desc)));
    assert!(hidden.contains(&"Decline".to_string()), "{hidden:?}");
    let t = worklist(&h).table().expect("table");
    let titles: Vec<String> = t
        .source()
        .columns()
        .iter()
        .map(|c| c.title.clone())
        .collect();
    assert_eq!(titles, vec!["Customer", "Amount", "Action"]);
}

#[test]
fn a_saved_view_reopened_snapshots() {
    for (w, hgt) in [(80, 24), (120, 40)] {
        let mut h = loaded(w, hgt);
        save_a_worklist_view(&mut h, "morning");
        h.keys("ctrl-l + 3 V");
        h.type_text("morning");
        h.keys("enter");
        insta::assert_snapshot!(format!("saved_view_reopened_{w}x{hgt}"), h.frame());
    }
}

#[test]
fn a_tab_view_that_cannot_be_saved_says_why() {
    let mut h = loaded(120, 40);
    h.keys("1 v S");
    let toast = h.state.core.toast.clone().expect("a toast");
    assert!(toast.error && toast.text.contains("recovery"), "{toast:?}");
    assert!(h.state.views.is_empty());
    h.keys("v V");
    let toast = h.state.core.toast.clone().expect("a toast");
    assert!(toast.text.contains("no saved views"), "{toast:?}");
}
