//! The interactive workbench: tabs (Worklist, Tie-out, Refunds), drill-down screens, a
//! virtualised table widget, keymap, themes, and the runtime that does terminal IO.
//!
//! # Shape: functional core, imperative shell
//!
//! ```text
//!  terminal events ──► runtime::translate ──► Msg ──► update(&mut State, Msg) ──► Vec<Effect>
//!        ▲                                                  │                        │
//!        └──── view::render(&mut State) ◄── dirty? ─────────┘     runtime::effects ◄─┘
//!                                                          (threads) ──► Msg::{Loaded, Computed, ..}
//! ```
//!
//! - [`action::Action`]: the vocabulary keys map to (snake_case names in keymap files).
//! - [`msg`]: `Msg` (what changes state), `Effect` (what the runtime performs),
//!   `RequestId` (latest wins: a result whose request is no longer pending is dropped).
//! - [`update::update`]: the pure reducer. [`view`]: draws the frame from the state.
//! - [`pane::Pane`]: one tab or one drill-down screen. Panes own no channels, do no IO.
//! - [`widgets::table::DataTable`]: the table every pane uses.
//! - [`keymap`], [`theme`], [`config`]: keys, colours, and startup settings.
//! - [`palette`], [`palette_view`]: the command palette, over the same action registry as
//!   the help.
//! - [`runtime`]: the loop, the terminal, effects, clipboard, logging.
//! - [`harness`]: drive the TUI without a terminal (tests, screenshots).
//!
//! # How to add a pane (a tab)
//!
//! 1. Write `src/tui/panes/<name>.rs` with a struct that implements [`pane::Pane`]:
//!    - `title()`: the tab's name;
//!    - `on_data(&mut self, ws, cx)`: the account was (re)loaded; compute your view from
//!      `ws.data` (an `Arc<AccountData>`) and `ws.tickets`. For anything slow (more than a
//!      few milliseconds on a large account), clone the `Arc` into a
//!      [`msg::Job`] and call `cx.compute(job)`: the job runs on a worker thread and its
//!      output comes back to `on_computed(req, output, cx)`; downcast it with
//!      `output.downcast::<YourType>()`. Keep the returned `RequestId` and ignore outputs
//!      for other ids (or `cx.cancel(old)` when a newer request supersedes it);
//!    - `table()` / `table_mut()`: return your main [`widgets::table::DataTable`] and the
//!      shell handles moving, filter, sort, goto, copy, export, mouse and the status bar's
//!      row position for you. Build its rows with
//!      [`widgets::table::RowsSource::new`]`(rows, vec![col("Amount", 18, |r| Cell::Money(..)), ..])`
//!      and give them to the table with `table.set_source(Arc::new(source), cx)`;
//!    - `render(area, buf, cx)`: draw; usually `self.table.render(area, buf, cx)`, or split
//!      `area` with a summary above the table. Style with `cx.theme.style(Role::X)` only;
//!    - `handle(action, cx)`: the actions you give a meaning (usually `Action::Open`, to
//!      push a drill-down screen); return `Handled::No` for the rest;
//!    - `hints()`: the actions the hint line advertises while your pane has focus.
//!    - `key_mode()` / `input(input, cx)` (optional): while your pane reads typed text
//!      (the Query tab's SQL editor, the Refunds pane's typed refund confirmation),
//!      `key_mode` names a mode layer of the keymap (`keymap::INPUT`, `keymap::CONFIRM`);
//!      keys then resolve in that layer alone and come to `input` as a typing action
//!      (`Action::Submit`, `Action::Cancel`, ...) or as a character. No pane looks at
//!      key codes.
//! 2. Register it in [`panes::tabs`] (one line). The tab order there is the order of the
//!    `tab_1..tab_3` keys.
//! 3. Test it with [`harness::Harness::with_tabs`]: feed scripted actions, then
//!    `insta::assert_snapshot!(h.frame())` at 80x24 and 120x40 in the loading, empty,
//!    loaded and failed states (see `tests.rs` in this folder for the pattern).
//!
//! Money cells: use `Cell::Money(Money)`; the table right-aligns them, shows the currency
//! and colours them with the `amount_negative` / `amount_positive` / `amount_zero` roles.
//! Row meaning (overdue, difference, matched): `RowsSource::with_row_role` or
//! `Cell::Tag(text, Role::Overdue)`.
//!
//! # How to add a drill-down screen
//!
//! A screen is also a [`pane::Pane`]. From your pane's `handle(Action::Open, cx)`, build
//! it from the selected row (`self.table.selected_row()` is the index into your rows) and
//! call `cx.push(Box::new(screen))`; return `Handled::Yes`. The shell shows it above the
//! tab with a breadcrumb; `back` (Esc) closes it and cancels any work it started; a
//! screen can close itself with `cx.close()`. Screens get `on_data` on refresh: return
//! `false` to be closed when what they show may be gone. Screens can push further
//! screens (payout -> its lines by category -> one balance transaction -> its source).
//! Without a pane-specific `Open`, the shell opens [`panes::detail::RowDetail`]: every
//! column of the selected row.
//!
//! # Adding an action
//!
//! Add a line to the `actions!` list in [`action`] (name, help text, group), give it a
//! default key in `keymap/default.toml` (a test checks every action has one), and handle
//! it in your pane's `handle` or in `update::on_action`. A typing action (group
//! `Typing`) is bound in a mode layer instead: add it to that layer's actions in
//! `keymap/modes.rs` and handle it in the mode's `input`.

pub mod action;
pub mod config;
pub mod context;
// Test tooling: compiled for this crate's unit tests and, through the `harness` feature
// that only tieout-testkit turns on, for the integration tests, benches and examples.
// The product binary never contains it (scripts/check-floors.sh checks the feature is off
// in its normal dependency graph).
#[cfg(any(test, feature = "harness"))]
pub mod harness;
pub mod keymap;
pub mod msg;
pub mod palette;
pub mod palette_view;
pub mod pane;
pub mod panes;
pub mod prompt;
pub mod request;
pub mod runtime;
#[cfg(any(test, feature = "harness"))]
pub mod sample;
#[cfg(any(test, feature = "harness"))]
pub mod screenshots;
pub mod state;
#[cfg(any(test, feature = "harness"))]
pub mod svg;
pub mod tabs;
pub mod theme;
pub mod update;
pub mod view;
pub mod widgets;
pub mod workspace;

#[cfg(test)]
mod copy_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod views_tests;

pub use action::Action;
pub use msg::{Effect, Job, Msg, Owner, RequestId};
pub use pane::{Cx, Handled, Pane, ViewCx};
pub use state::{Settings, Startup, State};
pub use theme::{Role, Theme};
pub use widgets::table::{Cell, DataTable, RowsSource, col};
pub use workspace::{LoadError, LoadKind, Ticket, Workspace};
