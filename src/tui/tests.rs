//! Shell tests: the reducer (scripted messages, asserted effects and state) and insta
//! snapshots of the frame at 80x24 and 120x40 in the loading, empty, loaded and failed
//! states, plus a style-layer check.

use std::sync::Arc;

use super::action::Action;
use super::harness::{Harness, buffer_text, style_layer, test_settings};
use super::keymap::{Key, Keymap};
use super::msg::{Effect, Job, JobOutput, MouseInput, Msg, Owner, RequestId, RestHold};
use super::pane::{Cx, Handled, Pane, ViewCx};
use super::sample;
use super::state::{Mode, Startup};
use super::theme::Role;
use super::update::update;
use super::widgets::table::{Cell, DataTable, RowsSource, col};
use super::workspace::{LoadError, LoadKind, LoadState, Workspace};
use crate::model::{AccountData, Origin};

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

fn demo() -> Workspace {
    sample::workspace(Origin::Demo)
}

fn empty() -> Workspace {
    Workspace::new(AccountData::empty(sample::meta(Origin::Cache)), Vec::new())
}

/// The shell is tested on placeholder tabs (plain tables of the account's invoices,
/// payouts and tickets), so its tests and snapshots do not change when a job's own pane
/// (which snapshots itself) changes.
fn shell_tabs() -> Vec<Box<dyn Pane>> {
    vec![
        Box::new(super::panes::table_pane::TablePane::new(
            "Worklist",
            "Invoices",
            "No invoices in this account.",
            invoices_table,
        )),
        super::panes::tieout::pane(),
        super::panes::refunds::pane(),
    ]
}

fn invoices_table(ws: &Workspace) -> Arc<dyn super::widgets::table::TableSource> {
    use crate::model::rows::InvoiceRow;
    use crate::money::Money;
    use crate::stripe::models::InvoiceStatus;
    fn status(r: &InvoiceRow) -> Cell<'_> {
        let role = match r.status {
            InvoiceStatus::Open if r.attempt_count > 0 => Role::Failed,
            InvoiceStatus::Open => Role::Pending,
            InvoiceStatus::Paid => Role::Ok,
            InvoiceStatus::Uncollectible => Role::Error,
            _ => Role::Muted,
        };
        Cell::Tag(r.status.as_str().into(), role)
    }
    Arc::new(RowsSource::new(
        ws.data.invoices.clone(),
        vec![
            col("Invoice", 30, |r: &InvoiceRow| Cell::text(&r.id)),
            col("Number", 14, |r| Cell::opt(r.number.as_deref())),
            col("Customer", 26, |r| {
                Cell::opt(r.customer_name.as_deref().or(r.customer_email.as_deref()))
            }),
            col("Status", 14, status),
            col("Remaining", 18, |r| {
                Cell::Money(Money::new(r.amount_remaining, r.currency))
            }),
            col("Due", 18, |r| {
                Cell::Money(Money::new(r.amount_due, r.currency))
            }),
            col("Attempts", 9, |r| Cell::Int(r.attempt_count)),
            col("Next attempt", 17, |r| {
                Cell::DateTime(r.next_payment_attempt)
            }),
            col("Due date", 11, |r| Cell::Date(r.due_date)),
            col("Email", 30, |r| Cell::opt(r.customer_email.as_deref())),
            col("Subscription", 30, |r| Cell::opt(r.subscription.as_deref())),
            col("Created", 11, |r| Cell::Date(Some(r.created))),
        ],
    ))
}

/// A harness on the shell's placeholder tabs over a fixed workspace, started and loaded.
fn loaded(ws: Workspace, width: u16, height: u16) -> Harness {
    let mut h = Harness::with_tabs(
        test_settings(Startup::Demo),
        shell_tabs(),
        Box::new(move |_| Ok(ws.clone())),
        width,
        height,
    );
    h.start();
    h
}

// ---------------------------------------------------------------- reducer

#[test]
fn demo_start_loads_once_and_shows_the_data() {
    let mut h = Harness::with_tabs(
        test_settings(Startup::Demo),
        shell_tabs(),
        Box::new(|_| Ok(demo())),
        80,
        24,
    );
    h.auto = false;
    h.start();
    assert_eq!(
        h.queued,
        vec![Effect::Load {
            req: RequestId(1),
            kind: LoadKind::Demo
        }]
    );
    assert!(matches!(h.state.load, LoadState::Loading { .. }));
    assert!(h.state.animating(), "spinner runs while loading");
    h.settle();
    assert_eq!(h.state.load, LoadState::Loaded);
    assert!(!h.state.animating());
    let t = h
        .state
        .focused()
        .and_then(|p| p.table())
        .expect("worklist table");
    assert_eq!(t.total(), 6);
    assert_eq!(t.position(), Some((1, 6)));
}

#[test]
fn cache_first_then_fresh_and_stale_results_are_dropped() {
    let mut state = super::state::State::new(test_settings(Startup::CacheThenFresh));
    let effects = state.start();
    assert_eq!(
        effects,
        vec![
            Effect::Load {
                req: RequestId(1),
                kind: LoadKind::Cache
            },
            Effect::Load {
                req: RequestId(2),
                kind: LoadKind::Fresh
            }
        ]
    );
    // The fresh read wins the race: the cache's later answer is stale.
    let mut fresh = sample::account(Origin::Live);
    fresh.invoices.truncate(2);
    update(
        &mut state,
        Msg::Loaded {
            req: RequestId(2),
            kind: LoadKind::Fresh,
            result: Ok(Workspace::new(fresh, Vec::new())),
        },
    );
    update(
        &mut state,
        Msg::Loaded {
            req: RequestId(1),
            kind: LoadKind::Cache,
            result: Ok(demo()),
        },
    );
    let ws = state.core.workspace.as_ref().expect("data");
    assert_eq!(
        ws.data.invoices.len(),
        2,
        "the older cache did not replace fresh data"
    );
    assert_eq!(ws.data.meta.origin, Origin::Live);
}

#[test]
fn a_missing_cache_is_quiet_while_the_fresh_read_runs_and_its_failure_shows() {
    let mut state = super::state::State::new(test_settings(Startup::CacheThenFresh));
    state.start();
    update(
        &mut state,
        Msg::Loaded {
            req: RequestId(1),
            kind: LoadKind::Cache,
            result: Err(LoadError {
                message: "no cache".into(),
                missing_cache: true,
            }),
        },
    );
    assert!(matches!(state.load, LoadState::Loading { .. }));
    update(
        &mut state,
        Msg::Loaded {
            req: RequestId(2),
            kind: LoadKind::Fresh,
            result: Err(LoadError::new("Stripe answered 401: the key was revoked")),
        },
    );
    assert_eq!(
        state.load,
        LoadState::Failed {
            message: "Stripe answered 401: the key was revoked".into()
        }
    );
    // Retry.
    let effects = update(&mut state, Msg::Action(Action::Refresh));
    assert_eq!(
        effects,
        vec![Effect::Load {
            req: RequestId(3),
            kind: LoadKind::Fresh
        }]
    );
    assert!(matches!(state.load, LoadState::Loading { .. }));
}

#[test]
fn a_failed_refresh_keeps_the_data_and_says_so() {
    let mut state = super::state::State::new(test_settings(Startup::CacheThenFresh));
    state.start();
    update(
        &mut state,
        Msg::Loaded {
            req: RequestId(1),
            kind: LoadKind::Cache,
            result: Ok(sample::workspace(Origin::Cache)),
        },
    );
    update(
        &mut state,
        Msg::Loaded {
            req: RequestId(2),
            kind: LoadKind::Fresh,
            result: Err(LoadError::new("network unreachable")),
        },
    );
    assert_eq!(state.load, LoadState::Loaded);
    let toast = state.core.toast.clone().expect("toast");
    assert!(
        toast.error && toast.text.contains("network unreachable"),
        "{toast:?}"
    );
}

#[test]
fn a_second_refresh_cancels_the_first() {
    let mut h = loaded(demo(), 80, 24);
    h.auto = false;
    h.action(Action::Refresh);
    h.action(Action::Refresh);
    assert_eq!(h.log, vec![Effect::Cancel(RequestId(2))]);
    assert_eq!(h.queued.len(), 2);
    h.settle();
    assert!(!h.state.animating());
}

#[test]
fn tabs_switch_by_key_number_and_mouse() {
    let mut h = loaded(demo(), 80, 24);
    h.keys("tab");
    assert_eq!(h.state.active, 1);
    h.keys("shift-tab shift-tab");
    assert_eq!(h.state.active, 2);
    h.keys("1");
    assert_eq!(h.state.active, 0);
    h.draw();
    let (rect, _) = h.state.tab_hits[1];
    h.step(Msg::Mouse(MouseInput::Click {
        col: rect.x + 1,
        row: rect.y,
    }));
    assert_eq!(h.state.active, 1);
}

#[test]
fn mouse_can_be_turned_off() {
    let mut h = loaded(demo(), 80, 24);
    h.state.mouse = false;
    h.draw();
    let (rect, _) = h.state.tab_hits[2];
    h.step(Msg::Mouse(MouseInput::Click {
        col: rect.x,
        row: rect.y,
    }));
    assert_eq!(h.state.active, 0);
}

#[test]
fn mouse_selects_and_scrolls_rows() {
    let mut h = loaded(demo(), 80, 24);
    h.draw();
    // Rows start below the tab line (1), the table border (1) and the header (1).
    h.step(Msg::Mouse(MouseInput::Click { col: 10, row: 6 }));
    let pos = h
        .state
        .focused()
        .and_then(|p| p.table())
        .and_then(|t| t.position());
    assert_eq!(pos, Some((4, 6)));
    h.step(Msg::Mouse(MouseInput::ScrollDown { col: 10, row: 6 }));
    let pos = h
        .state
        .focused()
        .and_then(|p| p.table())
        .and_then(|t| t.position());
    assert_eq!(pos, Some((6, 6)));
}

#[test]
fn chords_resolve_show_while_pending_and_recover_from_a_wrong_key() {
    let mut settings = test_settings(Startup::Demo);
    settings.keymap = Keymap::preset("vim").expect("vim");
    let ws = demo();
    let mut h = Harness::with_tabs(
        settings,
        shell_tabs(),
        Box::new(move |_| Ok(ws.clone())),
        80,
        24,
    );
    h.start();
    h.keys("G");
    let pos = |h: &Harness| {
        h.state
            .focused()
            .and_then(|p| p.table())
            .and_then(|t| t.position())
    };
    assert_eq!(pos(&h), Some((6, 6)));
    h.keys("g");
    assert_eq!(h.state.pending_keys, vec![Key::char('g')]);
    assert!(h.frame().contains("g …"), "pending chord in the status bar");
    h.keys("g");
    assert!(h.state.pending_keys.is_empty());
    assert_eq!(pos(&h), Some((1, 6)));
    // "g" then "j": not a binding; "j" still moves down.
    h.keys("g j");
    assert_eq!(pos(&h), Some((2, 6)));
    // "g t": next tab.
    h.keys("g t");
    assert_eq!(h.state.active, 1);
}

#[test]
fn filter_as_you_type_then_undo_or_keep() {
    let mut h = loaded(demo(), 80, 24);
    h.keys("/");
    assert!(matches!(h.state.mode, Mode::Prompt(_)));
    h.type_text("ADA");
    let visible = |h: &Harness| {
        h.state
            .focused()
            .and_then(|p| p.table())
            .map(|t| t.visible())
    };
    assert_eq!(visible(&h), Some(1));
    h.keys("esc");
    assert_eq!(h.state.mode, Mode::Normal);
    assert_eq!(visible(&h), Some(6), "esc undoes the filter typed");
    h.keys("/");
    h.type_text("eur");
    h.keys("enter");
    assert_eq!(visible(&h), Some(2));
    assert!(h.frame().contains("filter \"eur\""));
    // Esc in normal mode clears the filter.
    h.keys("esc");
    assert_eq!(visible(&h), Some(6));
}

#[test]
fn goto_row_number_and_id() {
    let mut h = loaded(demo(), 80, 24);
    h.keys("g");
    h.type_text("4");
    h.keys("enter");
    let sel = |h: &Harness| {
        h.state
            .focused()
            .and_then(|p| p.table())
            .and_then(|t| t.selected_row())
    };
    assert_eq!(sel(&h), Some(3));
    h.keys("g");
    h.type_text("in_1Sample0002");
    h.keys("enter");
    assert_eq!(sel(&h), Some(1));
    h.keys("g");
    h.type_text("999");
    h.keys("enter");
    assert!(h.state.core.toast.as_ref().is_some_and(|t| t.error));
}

#[test]
fn a_user_keymap_rebinds_the_prompt_keys_in_its_mode_layer() {
    let mut settings = test_settings(Startup::Demo);
    settings
        .keymap
        .apply_toml(
            "[keys.input]\n\"ctrl-g\" = \"cancel\"\n\"esc\" = \"none\"\n\"ctrl-h\" = \"delete_back\"\n",
            "keymap.toml",
        )
        .expect("a valid mode layer");
    let ws = demo();
    let mut h = Harness::with_tabs(
        settings,
        shell_tabs(),
        Box::new(move |_| Ok(ws.clone())),
        80,
        24,
    );
    h.start();
    let visible = |h: &Harness| {
        h.state
            .focused()
            .and_then(|p| p.table())
            .map(|t| t.visible())
    };
    h.keys("/");
    // Printable keys are text, the global ones included: q types, it does not quit.
    h.type_text("ADAq");
    assert!(!h.state.quit);
    assert_eq!(visible(&h), Some(0));
    h.keys("ctrl-h");
    assert_eq!(
        visible(&h),
        Some(1),
        "the rebound delete_back edits the filter"
    );
    // Esc is unbound in the layer now: the prompt stays open, and says ctrl-g undoes.
    h.keys("esc");
    assert!(matches!(h.state.mode, Mode::Prompt(_)));
    let frame = h.frame();
    assert!(
        frame.contains("filter: ADA█  enter keep · ctrl-g undo"),
        "{frame}"
    );
    h.keys("ctrl-g");
    assert_eq!(h.state.mode, Mode::Normal);
    assert_eq!(visible(&h), Some(6), "cancel undoes the filter typed");
    // Outside the prompt the global keys are untouched: esc is still back.
    h.keys("/");
    h.type_text("eur");
    h.keys("enter esc");
    assert_eq!(visible(&h), Some(6), "esc clears the filter kept");
}

#[test]
fn sort_copy_and_export_go_through_effects() {
    let mut h = loaded(demo(), 80, 24);
    // Remaining amount column (index 4), descending.
    h.keys("right right right right s s");
    let t = h.state.focused().and_then(|p| p.table()).expect("table");
    assert_eq!(t.sort(), Some((4, super::widgets::table::SortDir::Desc)));
    h.keys("home y");
    h.keys("e");
    assert!(matches!(&h.log[0], Effect::CopyDoc { ext: "tsv", .. }));
    assert!(
        matches!(&h.log[1], Effect::Write { path, .. } if path.to_string_lossy() == "tieout-invoices.csv"),
        "{:?}",
        h.log[1]
    );
    h.step(Msg::Copied(Ok("the clipboard".into())));
    assert!(h.frame().contains("copied to the clipboard"));
}

#[test]
fn theme_cycles_and_help_opens_and_closes() {
    let mut h = loaded(demo(), 80, 24);
    assert_eq!(h.state.theme.name, "dark");
    h.keys("t");
    assert_eq!(h.state.theme.name, "light");
    h.keys("t t t");
    assert_eq!(h.state.theme.name, "dark");
    h.keys("?");
    assert_eq!(h.state.mode, Mode::Help);
    h.keys("j");
    h.keys("esc");
    assert_eq!(h.state.mode, Mode::Normal);
    h.keys("q");
    assert!(h.state.quit);
}

/// A pane that computes something when opened, to test routing and cancellation.
struct Slow {
    table: DataTable,
    asked: Option<RequestId>,
    got: Vec<u32>,
}

impl Slow {
    fn new() -> Self {
        Slow {
            table: DataTable::new(
                "Slow",
                "none",
                Arc::new(RowsSource::new(
                    vec![1u32, 2, 3],
                    vec![col("n", 5, |n: &u32| Cell::Int(i64::from(*n)))],
                )),
            ),
            asked: None,
            got: Vec::new(),
        }
    }
}

impl Pane for Slow {
    fn title(&self) -> String {
        "Slow".into()
    }
    fn on_data(&mut self, _ws: &Workspace, _cx: &mut Cx<'_>) -> bool {
        true
    }
    fn handle(&mut self, action: Action, cx: &mut Cx<'_>) -> Handled {
        if action == Action::Open {
            let mut screen = Slow::new();
            screen.asked = Some(cx.compute(Job::new("thinking", |_| 42u32)));
            cx.push(Box::new(screen));
            return Handled::Yes;
        }
        Handled::No
    }
    fn on_computed(&mut self, req: RequestId, output: JobOutput, _cx: &mut Cx<'_>) {
        if Some(req) == self.asked
            && let Ok(v) = output.downcast::<u32>()
        {
            self.got.push(*v);
        }
    }
    fn table(&self) -> Option<&DataTable> {
        Some(&self.table)
    }
    fn table_mut(&mut self) -> Option<&mut DataTable> {
        Some(&mut self.table)
    }
    fn render(
        &mut self,
        area: ratatui::layout::Rect,
        buf: &mut ratatui::buffer::Buffer,
        cx: &ViewCx<'_>,
    ) {
        self.table.render(area, buf, cx);
    }
}

#[test]
fn drill_down_pushes_back_pops_and_closing_cancels_its_work() {
    let ws = demo();
    let mut h = Harness::with_tabs(
        test_settings(Startup::Demo),
        vec![Box::new(Slow::new())],
        Box::new(move |_| Ok(ws.clone())),
        80,
        24,
    );
    h.start();
    h.auto = false;
    h.keys("enter");
    assert_eq!(h.state.screens.len(), 1);
    // The job was asked by the tab (owner Tab(0)) before the push; its result goes there.
    let Some(Effect::Compute { req, .. }) = h.queued.first() else {
        panic!("expected a job, got {:?}", h.queued);
    };
    let req = *req;
    assert_eq!(
        h.state.core.pending.get(&req).map(|p| p.0),
        Some(Owner::Tab(0))
    );
    h.keys("esc");
    assert!(h.state.screens.is_empty());

    // A screen's own work is cancelled when it closes, and a late result is dropped.
    h.keys("enter");
    let (id, _) = h.state.screens[0];
    let job_req = {
        h.state
            .with_owner(Owner::Screen(id), |_, cx| {
                cx.compute(Job::new("screen work", |_| 7u32))
            })
            .expect("screen open")
    };
    h.keys("esc");
    assert!(h.log.contains(&Effect::Cancel(job_req)), "{:?}", h.log);
    let effects = update(
        &mut h.state,
        Msg::Computed {
            req: job_req,
            output: Box::new(7u32),
        },
    );
    assert!(effects.is_empty());
}

#[test]
fn default_open_shows_the_row_detail_and_esc_returns() {
    let mut h = loaded(demo(), 120, 40);
    h.keys("down enter");
    assert_eq!(h.state.screens.len(), 1);
    let frame = h.frame();
    assert!(frame.contains("Invoices › in_1Sample0002"), "{frame}");
    assert!(frame.contains("grace@example.com"), "{frame}");
    insta::assert_snapshot!("drill_row_detail_120x40", frame);
    h.keys("esc");
    assert!(h.state.screens.is_empty());
    // A tab switch closes drill-downs.
    h.keys("enter tab");
    assert!(h.state.screens.is_empty());
}

// ---------------------------------------------------------------- snapshots

fn name(what: &str, (w, hgt): (u16, u16)) -> String {
    format!("{what}_{w}x{hgt}")
}

#[test]
fn snapshot_loading() {
    for size in SIZES {
        let mut h = Harness::with_tabs(
            test_settings(Startup::Demo),
            shell_tabs(),
            Box::new(|_| Ok(demo())),
            size.0,
            size.1,
        );
        h.auto = false;
        h.start();
        insta::assert_snapshot!(name("loading", size), h.frame());
    }
}

#[test]
fn snapshot_failed() {
    for size in SIZES {
        let mut h = Harness::with_tabs(
            test_settings(Startup::CacheThenFresh),
            shell_tabs(),
            Box::new(|kind| match kind {
                LoadKind::Cache => Err(LoadError {
                    message: "no cache".into(),
                    missing_cache: true,
                }),
                _ => Err(LoadError::new(
                    "Stripe refused the key (401). Run `tieout login` to store a new restricted key.",
                )),
            }),
            size.0,
            size.1,
        );
        h.start();
        insta::assert_snapshot!(name("failed", size), h.frame());
    }
}

#[test]
fn snapshot_empty_tabs() {
    for size in SIZES {
        let mut h = loaded(empty(), size.0, size.1);
        for (i, tab) in (0u8..).zip(["worklist", "tieout", "refunds"]) {
            h.action(Action::Tab(i));
            insta::assert_snapshot!(name(&format!("empty_{tab}"), size), h.frame());
        }
    }
}

#[test]
fn snapshot_loaded_tabs() {
    for size in SIZES {
        let mut h = loaded(demo(), size.0, size.1);
        for (i, tab) in (0u8..).zip(["worklist", "tieout", "refunds"]) {
            h.action(Action::Tab(i));
            insta::assert_snapshot!(name(&format!("loaded_{tab}"), size), h.frame());
        }
    }
}

#[test]
fn snapshot_help_filter_sorted_and_too_small() {
    let mut h = loaded(demo(), 80, 24);
    h.keys("?");
    insta::assert_snapshot!("help_80x24", h.frame());
    h.keys("esc / e u r");
    insta::assert_snapshot!("filter_prompt_80x24", h.frame());
    h.keys("enter right right right right s");
    insta::assert_snapshot!("filtered_sorted_80x24", h.frame());
    h.resize(59, 14);
    insta::assert_snapshot!("too_small_59x14", h.frame());
}

#[test]
fn wide_tables_scroll_horizontally_with_a_frozen_first_column() {
    let mut h = loaded(demo(), 80, 24);
    h.keys("end");
    for _ in 0..11 {
        h.keys("right");
    }
    let frame = h.frame();
    assert!(
        frame.contains("in_1Sample0006"),
        "first column stays: {frame}"
    );
    assert!(
        frame.contains("Created"),
        "last column scrolled in: {frame}"
    );
    assert!(
        !frame.contains("Number"),
        "early columns scrolled out: {frame}"
    );
    insta::assert_snapshot!("scrolled_right_80x24", frame);
}

#[test]
fn negative_amounts_use_the_amount_negative_role() {
    // The style marks under the first occurrence of `needle` on screen.
    fn marks(h: &mut Harness, needle: &str) -> String {
        let buf = h.draw();
        let text = buffer_text(&buf);
        let layer = style_layer(
            &buf,
            &h.state.theme,
            &[(Role::AmountNegative, 'N'), (Role::AmountPositive, 'P')],
        );
        let (y, line) = text
            .lines()
            .enumerate()
            .find(|(_, l)| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle} shown: {text}"));
        let x = line[..line.find(needle).expect("amount")].chars().count();
        layer
            .lines()
            .nth(y)
            .expect("row")
            .chars()
            .skip(x)
            .take(needle.chars().count())
            .collect()
    }
    let mut h = loaded(demo(), 120, 40);
    h.action(Action::Tab(1));
    // The Tie-out tab opens on the latest month with payouts (November).
    assert_eq!(marks(&mut h, "9,876.50 USD"), "PPPPPPPP.PPP");
    // The selected row stays readable without colour: REVERSED.
    let buf = h.draw();
    let sel_y = buffer_text(&buf)
        .lines()
        .position(|l| l.contains("po_1Sample0004"))
        .expect("first row (earliest arrival)");
    let cell = &buf[(2, u16::try_from(sel_y).expect("y"))];
    assert!(
        cell.style()
            .add_modifier
            .contains(ratatui::style::Modifier::REVERSED)
    );
    // The negative payout arrived in October.
    h.action(Action::PrevMonth);
    assert_eq!(
        marks(&mut h, "-15.00 USD"),
        "NNNNNN.NNN",
        "every glyph of -15.00 USD (not the space)"
    );
}

#[test]
fn widening_the_terminal_scrolls_columns_back_into_view() {
    // The Worklist tab: scrolled right at 80 columns, the early columns are out of view.
    let mut h = Harness::loaded(demo(), 80, 24);
    for _ in 0..11 {
        h.keys("right");
    }
    let narrow = h.frame();
    assert!(
        !narrow.contains("Att.") && narrow.contains("Invoice"),
        "{narrow}"
    );
    h.resize(200, 40);
    let frame = h.frame();
    assert!(
        frame.contains("Att.") && frame.contains("Decline") && frame.contains("Advice"),
        "{frame}"
    );
}

#[test]
fn a_failed_job_is_reported_and_stops_the_spinner() {
    let mut h = Harness::loaded(demo(), 80, 24);
    let req = h
        .state
        .with_owner(Owner::Tab(0), |_, cx| {
            cx.compute(Job::new("tying out", |_| 1u8))
        })
        .expect("tab");
    assert!(h.state.animating());
    h.step(Msg::Computed {
        req,
        output: Box::new(super::msg::JobFailed(
            "tying out failed: internal error".into(),
        )),
    });
    assert!(!h.state.animating());
    assert!(h.frame().contains("tying out failed"));
}

#[test]
fn a_started_key_sequence_lapses_after_about_a_second() {
    let mut settings = test_settings(Startup::Demo);
    settings.keymap = Keymap::preset("vim").expect("vim");
    let ws = demo();
    let mut h = Harness::new(settings, Box::new(move |_| Ok(ws.clone())), 80, 24);
    h.start();
    h.keys("g");
    assert!(h.state.animating(), "the clock runs while a sequence waits");
    for _ in 0..super::state::CHORD_TIMEOUT_TICKS - 1 {
        h.step(Msg::Tick);
    }
    assert_eq!(h.state.pending_keys.len(), 1);
    h.step(Msg::Tick);
    assert!(h.state.pending_keys.is_empty());
    assert!(!h.state.animating());
}

/// A workspace split as a load in two parts splits it (see `app::load::rest_reads`): the
/// Worklist's tables first, then the payouts, their lines, refunds and disputes, and again
/// the tables the first part read only in part (whole in both here).
fn in_parts(ws: &Workspace) -> (Workspace, AccountData) {
    use crate::app::load::{FIRST_PART, rest_reads};
    use crate::model::Table;
    let mut first = (*ws.data).clone();
    let mut rest = AccountData::empty(first.meta.clone());
    let mut copy = (*ws.data).clone();
    for table in Table::ALL.into_iter().filter(|t| rest_reads(*t)) {
        rest.take_table(table, &mut copy);
        if !FIRST_PART.reads(table) {
            first.take_table(table, &mut AccountData::empty(first.meta.clone()));
        }
    }
    let first = Workspace {
        data: Arc::new(first),
        tickets: Arc::clone(&ws.tickets),
        gaps: Arc::clone(&ws.gaps),
        history: ws.history.clone(),
        bank: ws.bank.clone(),
        connected: ws.connected.clone(),
        gate_policy: Arc::clone(&ws.gate_policy),
    };
    (first, rest)
}

/// The body of a frame: without the status and hint lines (the spinner of a pending
/// refresh shows there).
fn body(frame: &str) -> String {
    let lines: Vec<&str> = frame.lines().collect();
    lines[..lines.len() - 2].join("\n")
}

#[test]
fn a_cache_loaded_in_parts_shows_the_worklist_first_and_the_rest_when_it_arrives() {
    let whole = sample::workspace(Origin::Cache);
    let (first, rest) = in_parts(&whole);
    // The same account loaded in one go, for comparison.
    let mut one = Harness::loaded(whole.clone(), 120, 40);
    let worklist = one.frame();
    one.action(Action::Tab(1));
    let tieout = one.frame();
    one.action(Action::Tab(2));
    let refunds = one.frame();

    let mut h = Harness::new(
        test_settings(Startup::CacheThenFresh),
        Box::new(|_| Err(LoadError::new("not asked: the test sends the loads"))),
        120,
        40,
    );
    h.auto = false;
    h.start();
    h.queued.clear(); // the cache (1) and the refresh (2): answered below, or not at all
    h.auto = true;
    h.step(Msg::LoadedFirst {
        req: RequestId(1),
        kind: LoadKind::Cache,
        ws: first,
        hold: RestHold::default(),
    });
    assert_eq!(h.state.load, LoadState::Loaded);
    assert!(h.state.animating(), "the spinner runs while the rest loads");
    assert_eq!(
        body(&h.frame()),
        body(&worklist),
        "the Worklist is whole at once"
    );
    for tab in [Action::Tab(1), Action::Tab(2)] {
        h.action(tab);
        let frame = h.frame();
        assert!(frame.contains("Loading the payouts…"), "{frame}");
        assert!(frame.contains(h.state.spinner_glyph()), "{frame}");
    }
    // A refresh meanwhile does not cancel the rest (only older refreshes).
    h.auto = false;
    h.action(Action::Refresh);
    assert_eq!(h.log, vec![Effect::Cancel(RequestId(2))]);
    h.queued.clear();
    h.auto = true;

    h.step(Msg::LoadedRest {
        req: RequestId(1),
        result: Ok(Box::new(rest)),
    });
    assert_eq!(
        h.state.core.workspace.as_ref().map(|w| &*w.data),
        Some(&*whole.data),
        "the account ends as the one-shot load's"
    );
    assert_eq!(h.state.rest, None);
    assert_eq!(body(&h.frame()), body(&refunds));
    h.action(Action::Tab(1));
    assert_eq!(body(&h.frame()), body(&tieout));
    h.action(Action::Tab(0));
    assert_eq!(body(&h.frame()), body(&worklist));
}

#[test]
fn the_rest_of_a_load_in_parts_is_dropped_after_newer_data_and_its_failure_shows() {
    let whole = sample::workspace(Origin::Cache);
    let (first, rest) = in_parts(&whole);
    let mut state = super::state::State::new(test_settings(Startup::CacheThenFresh));
    state.start();
    update(
        &mut state,
        Msg::LoadedFirst {
            req: RequestId(1),
            kind: LoadKind::Cache,
            ws: first.clone(),
            hold: RestHold::default(),
        },
    );
    // The refresh arrives first: it replaces the first part and the rest is not wanted.
    let mut fresh = sample::account(Origin::Live);
    fresh.invoices.truncate(2);
    let effects = update(
        &mut state,
        Msg::Loaded {
            req: RequestId(2),
            kind: LoadKind::Fresh,
            result: Ok(Workspace::new(fresh.clone(), Vec::new())),
        },
    );
    assert!(
        effects.contains(&Effect::Cancel(RequestId(1))),
        "{effects:?}"
    );
    assert_eq!(state.rest, None);
    update(
        &mut state,
        Msg::LoadedRest {
            req: RequestId(1),
            result: Ok(Box::new(rest)),
        },
    );
    let ws = state.core.workspace.as_ref().expect("data");
    assert_eq!(*ws.data, fresh);

    // A rest that cannot be read: the tabs that need it say so; the Worklist stays.
    let mut h = Harness::new(
        test_settings(Startup::CacheThenFresh),
        Box::new(|_| Err(LoadError::new("not asked"))),
        80,
        24,
    );
    h.auto = false;
    h.start();
    h.queued.clear();
    h.auto = true;
    h.step(Msg::LoadedFirst {
        req: RequestId(1),
        kind: LoadKind::Cache,
        ws: first,
        hold: RestHold::default(),
    });
    h.step(Msg::LoadedRest {
        req: RequestId(1),
        result: Err(LoadError::new("payouts.parquet: unexpected end of file")),
    });
    assert!(h.frame().contains("Worklist"));
    h.action(Action::Tab(1));
    let frame = h.frame();
    assert!(
        frame.contains("Could not load the payouts.") && frame.contains("unexpected end of file"),
        "{frame}"
    );
}

#[test]
fn the_rest_of_a_load_in_parts_waits_for_the_worklists_job_and_a_refresh_does_not_keep_it() {
    let whole = sample::workspace(Origin::Cache);
    let (first, _rest) = in_parts(&whole);
    let mut h = Harness::new(
        test_settings(Startup::CacheThenFresh),
        Box::new(|_| Err(LoadError::new("not asked: the test sends the loads"))),
        120,
        40,
    );
    h.auto = false;
    h.start();
    // The cache (1) and the refresh (2) stay pending: the refresh reads Stripe meanwhile.
    h.queued.clear();
    let (hold, wait) = RestHold::new();
    h.step(Msg::LoadedFirst {
        req: RequestId(1),
        kind: LoadKind::Cache,
        ws: first,
        hold,
    });
    let zero = std::time::Duration::ZERO;
    assert!(
        h.queued.iter().any(|e| matches!(e, Effect::Compute { .. })),
        "the Worklist's job is queued"
    );
    assert!(!wait.wait_at_most(zero), "held while the Worklist builds");
    h.settle();
    assert!(
        h.frame().contains("Failed payments 4 rows"),
        "{}",
        h.frame()
    );
    assert!(
        wait.wait_at_most(zero),
        "released once the Worklist's job is done, though the refresh is still pending"
    );
}
