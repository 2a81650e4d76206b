//! The live refresh through the harness: a newer snapshot in the cache is offered in the
//! status bar ("newer data from 11:50 — r to load"), `r` loads it whole from the cache,
//! and the place is kept (tab, month, drill-down, selection, filter). Snapshots of the
//! banner at 80x24 and 120x40.

use crate::app::workbench::OnDisk;
use crate::model::{AccountData, Origin};
use crate::tui::harness::{Harness, buffer_text, test_settings};
use crate::tui::msg::Msg;
use crate::tui::palette::tests::month_on_screen;
use crate::tui::sample::NOW;
use crate::tui::state::Startup;
use crate::tui::workspace::{LoadKind, Workspace};

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];
const TIEOUT: usize = 1;

/// The Tie-out's sample month as a cache read 3 hours before the clock.
fn cached() -> AccountData {
    let mut d = crate::tui::panes::tieout::tests::account();
    d.meta.origin = Origin::Cache;
    d
}

/// What a sync elsewhere wrote 10 minutes before the clock: one more payout.
fn newer() -> AccountData {
    let mut d = cached();
    d.meta.fetched_at = NOW - 600;
    let mut p = d.payouts[0].clone();
    p.id = "po_new".into();
    p.balance_transaction = None;
    d.payouts.push(p);
    d
}

fn harness((w, h): (u16, u16)) -> Harness {
    let loader = move |kind: LoadKind| {
        Ok(Workspace::new(
            if kind == LoadKind::Newer {
                newer()
            } else {
                cached()
            },
            Vec::new(),
        ))
    };
    let mut h = Harness::new(test_settings(Startup::Demo), Box::new(loader), w, h);
    h.start();
    h
}

fn on_disk(fetched_at: i64) -> Msg {
    Msg::SnapshotOnDisk(OnDisk {
        generation: 8,
        fetched_at,
    })
}

fn selected(h: &crate::tui::harness::Harness) -> Vec<String> {
    let t = h.state.focused().and_then(|p| p.table()).expect("a table");
    let row = t.selected_row().expect("a selected row");
    t.row_fields(row).into_iter().map(|(_, v)| v).collect()
}

#[test]
fn a_newer_snapshot_is_offered_and_loading_it_keeps_the_place() {
    for size in SIZES {
        let mut h = harness(size);
        h.action(crate::tui::action::Action::Tab(TIEOUT as u8));
        h.keys("/");
        h.type_text("paid");
        h.keys("enter");
        let tab_rows = |h: &Harness| {
            h.state.tabs[TIEOUT]
                .table()
                .map(|t| (t.visible(), t.total()))
        };
        let before = tab_rows(&h).expect("rows");
        h.keys("g");
        h.type_text("txn_r1");
        h.keys("enter");
        assert_eq!(h.state.screens.len(), 2);

        // The same snapshot, or an older one: nothing offered.
        h.step(on_disk(NOW - 3 * 3600));
        assert_eq!(h.state.newer, None);
        h.step(on_disk(NOW - 600));
        assert_eq!(h.state.newer.map(|n| n.generation), Some(8));
        let frame = buffer_text(&h.draw());
        assert!(
            frame.contains("newer data from 11:50 — r to load"),
            "{frame}"
        );
        let name = format!("refresh_banner_{}x{}", size.0, size.1);
        insta::assert_snapshot!(name, frame);

        h.keys("r");
        assert_eq!(h.state.newer, None);
        let shown = h.state.core.workspace.as_ref().expect("data");
        assert_eq!(shown.data.meta.fetched_at, NOW - 600);
        // The place: tab, month, drill-down, selection, the tab's filter.
        assert_eq!(h.state.active, TIEOUT);
        assert_eq!(month_on_screen(&h), Some("2026-10".parse().expect("month")));
        let titles: Vec<String> = h.state.screens.iter().map(|(_, s)| s.title()).collect();
        assert_eq!(titles, ["Payout po_tied", "refund"]);
        assert!(selected(&h).contains(&"txn_r1".to_string()));
        let tab = h.state.tabs[TIEOUT].table().expect("table");
        assert_eq!(tab.filter(), "paid");
        assert_eq!(
            tab_rows(&h),
            Some((before.0 + 1, before.1 + 1)),
            "po_new is shown"
        );
        let toast = h.state.core.toast.clone().expect("toast");
        assert_eq!(
            toast.text,
            "loaded the newer data, read from Stripe at 11:50"
        );
        assert!(!buffer_text(&h.draw()).contains("newer data from"));
    }
}

#[test]
fn the_demo_is_never_offered_a_snapshot() {
    let ws = crate::tui::sample::workspace(Origin::Demo);
    let mut h = Harness::loaded(ws, 80, 24);
    h.step(on_disk(NOW));
    assert_eq!(h.state.newer, None);
}
