//! The Worklist tab: the dunning list billing staff work every morning. The columns they
//! need first (customer, amount, decline, attempts, next retry or "none", action), filters
//! (`f`: no automatic retry left, by decline code, by currency, by action; `/` still
//! filters the text), totals by currency and decline code in a side panel (a summary line
//! when the terminal is narrow), and Enter opens the invoice: its payment attempts with
//! each decline, the subscription it renews, what to do and what to tell the customer,
//! and the hosted invoice URL (Enter or `y` copies the selected line's value). The
//! picker's "View" switches the table to the cards that will fail before renewal; `v`
//! (`recovery_view`) to the recovery picture ([`recovery`]).
//!
//! The worklist itself is `domain::dunning` (the same computation as `tieout dunning`), run
//! as a background job on every load.

use std::sync::Arc;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

use crate::domain::declines::Action as Todo;
use crate::domain::dunning::{self, DeclineKey, DueBasis, Filter, WorkRow, Worklist};
use crate::domain::recovery::Recovery;
use crate::money::{Currency, Money, format_major_grouped};
use crate::report::expiring_cards::ExpiringSection;
use crate::tui::action::Action;
use crate::tui::msg::{Job, JobOutput, RequestId};
use crate::tui::pane::{Cx, Handled, Pane, Reads, Reveal, ViewCx};
use crate::tui::theme::Role;
use crate::tui::widgets::table::{Cell, DataTable, RowsSource, TableSource, col};
use crate::tui::widgets::text::fit;
use crate::tui::workspace::Workspace;

mod cards;
mod columns;
mod facets;
mod headless;
mod invoice;
mod picker;
mod recovery;
mod recovery_screens;
#[cfg(test)]
mod recovery_tests;
mod reveal;
mod since;
use facets::{facet_line, facet_summary, key_hint};
mod totals;
mod view_state;

use columns::*;
pub use headless::view_table;
pub use invoice::{InvoiceScreen, invoice_fields};
use picker::*;
use since::{Computed, SinceView};
use totals::{render_totals, summary_line};

/// Terminals at least this wide get the totals side panel.
const SIDE_PANEL_MIN_WIDTH: u16 = 100;
const SIDE_PANEL_WIDTH: u16 = 36;

pub fn pane() -> Box<dyn Pane> {
    Box::new(WorklistPane::new())
}

/// The Worklist tab.
pub struct WorklistPane {
    worklist: Option<Arc<Worklist>>,
    error: Option<String>,
    req: Option<RequestId>,
    filter: Filter,
    picker: Option<Picker>,
    /// Indices into the worklist's rows of the rows shown, in table order.
    shown: Vec<usize>,
    table: DataTable,
    /// What changed since the session's baseline run (with a run history).
    since: Option<SinceView>,
    /// The facet "only new or changed rows".
    changed_only: bool,
    /// The cards that will fail before renewal, from the last load.
    cards: Option<Arc<ExpiringSection>>,
    /// The table shows the cards instead of the invoices.
    cards_view: bool,
    /// The recovery picture of the last load, built the first time the view is opened
    /// after it (not in the worklist's job: most loads never open it).
    recovery: Option<Arc<Recovery>>,
    /// The picture's totals per currency (the side panel's), summed once per picture.
    recovery_currencies: Vec<crate::report::recovery_summary::CurrencyRecovery>,
    /// The picture's data cannot tell how failures ended (`Window::settled_gap`).
    recovery_incomplete: bool,
    /// The job building it.
    recovery_req: Option<RequestId>,
    /// The Recovery view is shown instead of the invoices (`recovery_view`).
    recovery_view: bool,
    /// The Recovery view's cohort table.
    recovery_table: DataTable,
    /// A place to show once the worklist being computed arrives ([`reveal`]).
    reveal: Option<crate::tui::pane::Place>,
}

const EMPTY_TEXT: &str = "No open invoice has a failed payment or is past due.";

fn empty_source() -> Arc<dyn TableSource> {
    Arc::new(RowsSource::<()>::new(Vec::new(), Vec::new()))
}

impl Default for WorklistPane {
    fn default() -> Self {
        Self::new()
    }
}

impl WorklistPane {
    pub fn new() -> Self {
        WorklistPane {
            worklist: None,
            error: None,
            req: None,
            filter: Filter::default(),
            picker: None,
            shown: Vec::new(),
            since: None,
            changed_only: false,
            cards: None,
            cards_view: false,
            recovery: None,
            recovery_currencies: Vec::new(),
            recovery_incomplete: false,
            recovery_req: None,
            recovery_view: false,
            recovery_table: DataTable::new(recovery::TITLE, "", empty_source()),
            reveal: None,
            table: DataTable::new("Failed payments", EMPTY_TEXT, empty_source()),
        }
    }

    fn rebuild(&mut self, cx: &mut Cx<'_>) {
        let Some(w) = self.worklist.clone() else {
            return;
        };
        if let Some(c) = self.cards.clone().filter(|_| self.cards_view) {
            self.shown.clear();
            self.table.set_title(cards::TITLE);
            self.table.set_empty_text(cards::empty_text(&c));
            self.table.set_source(Arc::new(cards::source(&c)), cx);
            return;
        }
        self.table.set_empty_text(EMPTY_TEXT);
        self.shown = self.filter.apply(&w);
        if let Some(v) = self.since.as_ref().filter(|_| self.changed_only) {
            self.shown
                .retain(|i| v.marked.contains_key(&w.rows[*i].invoice_id));
        }
        let rows: Vec<WorkRow> = self.shown.iter().map(|i| w.rows[*i].clone()).collect();
        let mut facets = facet_summary(&self.filter);
        if self.changed_only {
            facets = [facets, "new or changed".to_string()]
                .into_iter()
                .filter(|f| !f.is_empty())
                .collect::<Vec<_>>()
                .join(" · ");
        }
        self.table.set_title(if facets.is_empty() {
            "Failed payments".to_string()
        } else {
            format!("Failed payments ({facets})")
        });
        match self.since.as_ref().filter(|v| !v.marked.is_empty()) {
            Some(v) => self
                .table
                .set_source(Arc::new(since::marked_source(rows, v)), cx),
            None => self.table.set_source(Arc::new(source(rows)), cx),
        }
    }

    /// The "since" block at the top of the side panel, when there is a run history;
    /// returns the area left for the totals.
    fn render_since(&self, side: Rect, buf: &mut Buffer, cx: &ViewCx<'_>) -> Rect {
        let Some(v) = &self.since else {
            return side;
        };
        let block = Block::bordered().border_style(cx.theme.style(Role::Border));
        let inner_w = usize::from(side.width.saturating_sub(2));
        let lines = since::panel_lines(v, inner_w, cx);
        let h = (u16::try_from(lines.len()).unwrap_or(u16::MAX) + 2).min(side.height / 2);
        let top = Rect { height: h, ..side };
        let inner = block.inner(top);
        block.render(top, buf);
        Paragraph::new(lines).render(inner, buf);
        Rect {
            y: side.y + h,
            height: side.height - h,
            ..side
        }
    }

    /// The worklist rows the table shows (facets and the text filter applied), when
    /// anything filters them; `None` when the whole list is shown.
    fn filtered_rows(&self) -> Option<Vec<usize>> {
        if self.filter.is_empty() && self.table.filter().is_empty() {
            return None;
        }
        Some(
            self.table
                .view_rows()
                .iter()
                .filter_map(|v| self.shown.get(*v as usize).copied())
                .collect(),
        )
    }

    fn selected(&self) -> Option<&WorkRow> {
        if self.cards_view {
            return None;
        }
        let w = self.worklist.as_ref()?;
        let i = *self.shown.get(self.table.selected_row()?)?;
        w.rows.get(i)
    }

    fn picker_action(&mut self, action: Action, cx: &mut Cx<'_>) -> Handled {
        let Some(p) = self.picker.as_mut() else {
            return Handled::No;
        };
        let n = p.options.len();
        let mut changed = false;
        match action {
            Action::Up => p.cursor = p.cursor.saturating_sub(1),
            Action::Down => p.cursor = (p.cursor + 1).min(n.saturating_sub(1)),
            Action::PageUp | Action::HalfPageUp => p.cursor = p.cursor.saturating_sub(10),
            Action::PageDown | Action::HalfPageDown => {
                p.cursor = (p.cursor + 10).min(n.saturating_sub(1))
            }
            Action::Top => p.cursor = 0,
            Action::Bottom => p.cursor = n.saturating_sub(1),
            Action::Open => {
                if let Some(o) = p.options.get(p.cursor) {
                    match o.value {
                        Choice::AnyChange => self.changed_only = false,
                        Choice::Changed => self.changed_only = true,
                        Choice::Invoices => self.cards_view = false,
                        Choice::ExpiringCards => self.cards_view = true,
                        _ => o.value.apply(&mut self.filter),
                    }
                    p.filter = self.filter.clone();
                    p.changed_only = self.changed_only;
                    p.cards_view = self.cards_view;
                    changed = true;
                }
            }
            Action::ClearFilter => {
                self.filter = Filter::default();
                p.filter = Filter::default();
                self.changed_only = false;
                p.changed_only = false;
                self.cards_view = false;
                p.cards_view = false;
                changed = true;
            }
            Action::Back | Action::Facets => self.picker = None,
            _ => {}
        }
        if changed {
            self.rebuild(cx);
        }
        // Everything else waits until the picker is closed.
        Handled::Yes
    }
}

impl Pane for WorklistPane {
    fn title(&self) -> String {
        "Worklist".to_string()
    }

    fn shows_first_part(&self) -> bool {
        true // it reads what `source::load::FIRST_PART` (Need::Dunning) reads
    }

    fn reads(&self) -> Reads {
        use crate::model::Resource as R;
        Reads {
            needs: &[R::Invoices],
            partly: &[
                (R::Customers, "customer names and emails"),
                (R::Subscriptions, "the subscription each invoice renews"),
                (R::PaymentMethods, "cards that will fail before renewal"),
                (
                    R::Charges,
                    "the recovery view's payments and the payment methods they were made on",
                ),
            ],
        }
    }

    fn on_data(&mut self, ws: &Workspace, cx: &mut Cx<'_>) -> bool {
        if let Some(old) = self.req.take() {
            cx.cancel(old);
        }
        let data = Arc::clone(&ws.data);
        let now = cx.now();
        let history = ws.history.clone();
        let baseline = since::baseline(&self.since);
        self.req = Some(cx.compute(Job::new("building the worklist", move |_| {
            let worklist = dunning::build(&data, now).map_err(|e| e.to_string())?;
            let cards = ExpiringSection::of(&data, now).map_err(|e| e.to_string())?;
            let since = history.map(|h| h.compare_and_record(&data, &worklist, baseline.as_ref()));
            Ok::<_, String>(Computed {
                worklist,
                since,
                cards,
            })
        })));
        // The picture of the old data is dropped; an open view builds the new one.
        self.recovery = None;
        self.recovery_currencies.clear();
        if let Some(old) = self.recovery_req.take() {
            cx.cancel(old);
        }
        if self.recovery_view {
            self.start_recovery(ws, cx);
        }
        true
    }

    fn on_computed(&mut self, req: RequestId, output: JobOutput, cx: &mut Cx<'_>) {
        if self.recovery_req == Some(req) {
            self.recovery_req = None;
            if let Ok(r) = output.downcast::<Recovery>() {
                self.set_recovery(*r, cx);
            }
            return;
        }
        if self.req != Some(req) {
            return;
        }
        self.req = None;
        match output.downcast::<Result<Computed, String>>() {
            Ok(result) => match *result {
                Ok(Computed {
                    worklist: w,
                    since,
                    cards,
                }) => {
                    self.since = since.map(SinceView::new);
                    self.cards = Some(Arc::new(cards));
                    if self.since.as_ref().is_none_or(|v| v.changes().is_none()) {
                        self.changed_only = false;
                    }
                    self.error = None;
                    // Keep the facets that still mean something on the new data.
                    if let Some(k) = &self.filter.decline
                        && !w.decline_keys().contains(k)
                    {
                        self.filter.decline = None;
                    }
                    if let Some(c) = self.filter.currency
                        && !w.currencies().contains(&c)
                    {
                        self.filter.currency = None;
                    }
                    self.worklist = Some(Arc::new(w));
                    self.picker = None;
                    self.rebuild(cx);
                    if let Some(place) = self.reveal.take() {
                        self.reveal_place(&place, cx);
                    }
                }
                Err(e) => {
                    self.error = Some(format!("The worklist could not be computed: {e}"));
                }
            },
            Err(_) => {
                self.error = Some("The worklist job returned something unexpected.".into());
            }
        }
    }

    fn handle(&mut self, action: Action, cx: &mut Cx<'_>) -> Handled {
        if self.picker.is_some() {
            return self.picker_action(action, cx);
        }
        if self.recovery_view {
            return self.recovery_action(action, cx);
        }
        match action {
            Action::RecoveryView => {
                if self.worklist.is_some() {
                    self.recovery_view = true;
                    if self.recovery.is_none()
                        && self.recovery_req.is_none()
                        && let Some(ws) = cx.workspace()
                    {
                        let ws = ws.clone();
                        self.start_recovery(&ws, cx);
                    }
                }
                Handled::Yes
            }
            Action::Facets => {
                if let Some(w) = &self.worklist {
                    let mut p = Picker::new(w, &self.filter);
                    if let Some(v) = &self.since {
                        p.options.extend(since::picker_options(v, w.rows.len()));
                    }
                    if let Some(c) = self.cards.as_ref().filter(|c| cards::offered(c)) {
                        p.options.extend(cards::picker_options(c, w.rows.len()));
                    }
                    p.changed_only = self.changed_only;
                    p.cards_view = self.cards_view;
                    self.picker = Some(p);
                }
                Handled::Yes
            }
            Action::ClearFilter => {
                if !self.filter.is_empty() || self.changed_only || self.cards_view {
                    self.filter = Filter::default();
                    self.changed_only = false;
                    self.cards_view = false;
                    self.rebuild(cx);
                }
                // The shell clears the text filter too.
                Handled::No
            }
            Action::Open => {
                if let Some(r) = self.selected() {
                    cx.push(Box::new(InvoiceScreen::new(r, cx.now())));
                }
                Handled::Yes
            }
            _ => Handled::No,
        }
    }

    fn reveal(&mut self, place: &crate::tui::pane::Place, cx: &mut Cx<'_>) -> Reveal {
        self.reveal_place(place, cx)
    }

    fn view_state(&self) -> Result<crate::app::views::SavedView, String> {
        view_state::save(self)
    }

    fn apply_view(
        &mut self,
        view: &crate::app::views::SavedView,
        cx: &mut Cx<'_>,
    ) -> Result<(), String> {
        view_state::apply(self, view, cx)
    }

    fn place(&self) -> Option<crate::tui::pane::Place> {
        let invoice = self.selected()?.invoice_id.clone();
        (!self.recovery_view).then_some(crate::tui::pane::Place::Invoice { invoice })
    }

    fn table(&self) -> Option<&DataTable> {
        Some(if self.recovery_view {
            &self.recovery_table
        } else {
            &self.table
        })
    }

    fn table_mut(&mut self) -> Option<&mut DataTable> {
        Some(if self.recovery_view {
            &mut self.recovery_table
        } else {
            &mut self.table
        })
    }

    fn render(&mut self, area: Rect, buf: &mut Buffer, cx: &ViewCx<'_>) {
        let theme = cx.theme;
        if let Some(e) = &self.error {
            Paragraph::new(Line::styled(e.clone(), theme.style(Role::Error)))
                .block(Block::bordered().border_style(theme.style(Role::Border)))
                .render(area, buf);
            return;
        }
        let Some(w) = self.worklist.clone() else {
            Paragraph::new(Line::styled(
                "Building the worklist…",
                theme.style(Role::Muted),
            ))
            .block(Block::bordered().border_style(theme.style(Role::Border)))
            .render(area, buf);
            return;
        };
        if self.recovery_view {
            self.render_recovery(&w.order, area, buf, cx);
            return;
        }
        let wide = area.width >= SIDE_PANEL_MIN_WIDTH;
        let (main, side) = if wide {
            let side_w = SIDE_PANEL_WIDTH.min(area.width / 3);
            (
                Rect {
                    width: area.width - side_w,
                    ..area
                },
                Some(Rect {
                    x: area.x + area.width - side_w,
                    width: side_w,
                    ..area
                }),
            )
        } else {
            (area, None)
        };
        // One summary line above the table: the totals (narrow) or the facets (wide).
        let header = Rect { height: 1, ..main };
        let body = Rect {
            y: main.y + 1,
            height: main.height.saturating_sub(1),
            ..main
        };
        let part = self.filtered_rows();
        let cards = self.cards.clone().filter(|_| self.cards_view);
        let mut line = if let Some(c) = &cards {
            cards::view_line(c, cx)
        } else if wide {
            facet_line(&self.filter, self.shown.len(), w.rows.len(), cx)
        } else {
            summary_line(&w, &self.filter, part.as_deref(), cx)
        };
        if !wide && let Some(span) = self.since.as_ref().and_then(|v| since::narrow_span(v, cx)) {
            // No side panel: the changes go on the summary line, before the key hint.
            let at = line.spans.len().saturating_sub(1);
            line.spans.insert(at, span);
        }
        Paragraph::new(line).render(header, buf);
        match &mut self.picker {
            Some(p) => p.render(body, buf, cx),
            None => self.table.render(body, buf, cx),
        }
        if let Some(side) = side {
            let side = self.render_since(side, buf, cx);
            match &cards {
                Some(c) => cards::render_panel(c, &w, side, buf, cx),
                None => render_totals(&w, part.as_deref(), side, buf, cx),
            }
        }
    }

    fn hints(&self) -> Vec<Action> {
        if self.picker.is_some() {
            vec![Action::Open, Action::Back, Action::ClearFilter]
        } else if self.recovery_view {
            vec![
                Action::Open,
                Action::RecoveryView,
                Action::Filter,
                Action::Sort,
            ]
        } else if self.cards_view {
            // A card row opens nothing; `f` goes back to the invoices.
            vec![Action::Facets, Action::RecoveryView, Action::Filter]
        } else {
            // `y` (copy) is in the help; the hint line keeps room for quit at 80 columns.
            vec![
                Action::Open,
                Action::Facets,
                Action::RecoveryView,
                Action::Filter,
            ]
        }
    }
}

// ---------------------------------------------------------------- the table

fn money(m: Money) -> String {
    format!(
        "{} {}",
        format_major_grouped(m.minor, m.currency),
        m.currency
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::dunning::testdata::*;
    use crate::model::rows::SubscriptionRow;
    use crate::model::{AccountData, Origin};
    use crate::stripe::models::{InvoiceStatus, SubscriptionStatus};
    use crate::tui::harness::{Harness, test_settings};
    use crate::tui::msg::Effect;
    use crate::tui::state::Startup;

    const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

    /// A small account whose worklist shows every kind of row: soft and hard declines, a
    /// hidden reason, a Stripe block behind generic_decline, no decline code, a
    /// send_invoice past due, three currencies, and uncollectible invoices apart.
    pub(super) fn account() -> AccountData {
        let mut d = data(vec![]);
        d.meta = crate::tui::sample::meta(Origin::Demo);
        // The account's default currency comes first, although USD has more invoices.
        d.meta.default_currency = Some(Currency::EUR);
        failed(&mut d, "in_1Funds", 129_900, "insufficient_funds");
        failed(&mut d, "in_2Expired", 4_900, "expired_card");
        failed(&mut d, "in_3Stolen", 250_000, "stolen_card");
        failed(&mut d, "in_4Blocked", 19_900, "generic_decline");
        failed(&mut d, "in_5Auth", 9_900, "authentication_required");
        failed(&mut d, "in_6NoCode", 3_000, "x");
        failed(&mut d, "in_7Yen", 12_000, "insufficient_funds");
        let blocked = d.charges.iter_mut().find(|c| c.id == "ch_in_4Blocked");
        if let Some(c) = blocked {
            c.outcome_reason = Some("previously_declined_do_not_retry".into());
            c.outcome_type = Some("blocked".into());
        }
        for p in d
            .payment_intents
            .iter_mut()
            .filter(|p| p.id == "pi_in_6NoCode")
        {
            p.error_decline_code = None;
        }
        for c in d.charges.iter_mut().filter(|c| c.id == "ch_in_6NoCode") {
            c.outcome_reason = None;
        }
        for i in d.invoices.iter_mut() {
            match i.id.as_str() {
                "in_3Stolen" => i.currency = Currency::EUR,
                "in_7Yen" => i.currency = Currency::JPY,
                "in_2Expired" => {
                    i.attempt_count = 4;
                    i.next_payment_attempt = None;
                }
                "in_1Funds" => i.subscription = Some("sub_1Funds".into()),
                _ => {}
            }
        }
        let names = [
            ("in_1Funds", "Ada Lovelace"),
            ("in_2Expired", "Grace Hopper"),
            ("in_3Stolen", "Émilie du Châtelet"),
            ("in_4Blocked", "Alan Turing"),
            ("in_5Auth", "Hedy Lamarr"),
            ("in_6NoCode", "Katherine Johnson"),
            ("in_7Yen", "Sakura Kobayashi"),
        ];
        for (id, name) in names {
            if let Some(i) = d.invoices.iter_mut().find(|i| i.id == id) {
                i.customer = Some(format!("cus_{id}").into());
                i.customer_name = Some(name.into());
                i.customer_email = Some(format!("{}@example.com", id.to_lowercase()).into());
            }
        }
        let mut late = invoice("in_8Late", InvoiceStatus::Open, 45_000);
        late.customer = None;
        late.customer_name = Some("Mary Somerville".into());
        late.collection_method = Some("send_invoice".into());
        late.due_date = Some(NOW - 17 * DAY);
        d.invoices.push(late);
        d.invoices.push(attempted(
            invoice("in_9Gone", InvoiceStatus::Uncollectible, 7_500),
            4,
            None,
        ));
        d.invoices
            .push(invoice("in_10Paid", InvoiceStatus::Paid, 0));
        d.subscriptions.push(SubscriptionRow {
            id: "sub_1Funds".into(),
            customer: Some("cus_1".into()),
            status: SubscriptionStatus::PastDue,
            current_period_start: Some(NOW - 20 * DAY),
            current_period_end: Some(NOW + 10 * DAY),
            interval: Some("month".into()),
            interval_count: 1,
            latest_invoice: Some("in_1Funds".into()),
            created: NOW - 400 * DAY,
            cancel_at_period_end: false,
            currency: Currency::USD,
            unit_amount: Some(129_900),
            default_payment_method: None,
            default_source: None,
        });
        d
    }

    pub(super) fn harness(d: AccountData, (w, h): (u16, u16)) -> Harness {
        let ws = Workspace::new(d, Vec::new());
        let mut h = Harness::with_tabs(
            test_settings(Startup::Demo),
            vec![pane()],
            Box::new(move |_| Ok(ws.clone())),
            w,
            h,
        );
        h.start();
        h
    }

    fn name(what: &str, (w, h): (u16, u16)) -> String {
        format!("worklist_{what}_{w}x{h}")
    }

    fn table_total(h: &Harness) -> usize {
        h.state
            .focused()
            .and_then(|p| p.table())
            .map_or(0, DataTable::total)
    }

    #[test]
    fn snapshot_loaded() {
        for size in SIZES {
            let mut h = harness(account(), size);
            let frame = h.frame();
            assert!(frame.contains("Émilie") || frame.contains("Ada"), "{frame}");
            insta::assert_snapshot!(name("loaded", size), frame);
        }
    }

    #[test]
    fn snapshot_empty() {
        for size in SIZES {
            let mut h = harness(
                AccountData::empty(crate::tui::sample::meta(Origin::Cache)),
                size,
            );
            let frame = h.frame();
            assert!(
                frame.contains("No open invoice has a failed payment"),
                "{frame}"
            );
            insta::assert_snapshot!(name("empty", size), frame);
        }
    }

    #[test]
    fn snapshot_building() {
        let ws = Workspace::new(account(), Vec::new());
        let mut h = Harness::with_tabs(
            test_settings(Startup::Demo),
            vec![pane()],
            Box::new(move |_| Ok(ws.clone())),
            80,
            24,
        );
        h.auto = false;
        h.start();
        // The account loaded; the worklist job has not run yet.
        let load = h.queued.remove(0);
        h.queued.clear();
        h.auto = true;
        if let Effect::Load { req, kind } = load {
            let ws = Workspace::new(account(), Vec::new());
            h.auto = false;
            h.step(crate::tui::msg::Msg::Loaded {
                req,
                kind,
                result: Ok(ws),
            });
        }
        let frame = h.frame();
        assert!(frame.contains("Building the worklist"), "{frame}");
        insta::assert_snapshot!("worklist_building_80x24", frame);
        h.settle();
        assert!(h.frame().contains("in_3Stolen") || table_total(&h) == 8);
    }

    #[test]
    fn the_list_is_the_commands_worklist() {
        let h = harness(account(), (120, 40));
        assert_eq!(
            table_total(&h),
            8,
            "7 failed + 1 past due; paid and uncollectible out"
        );
    }

    #[test]
    fn facets_filter_no_retry_then_by_currency_and_clear() {
        let mut h = harness(account(), (80, 24));
        h.keys("f");
        insta::assert_snapshot!("worklist_picker_80x24", h.frame());
        // "no automatic retry left" is the second option.
        h.keys("down enter");
        // expired (retries exhausted), stolen, blocked, auth, late send_invoice.
        assert_eq!(table_total(&h), 5);
        h.keys("esc");
        assert!(h.state.screens.is_empty());
        let frame = h.frame();
        assert!(frame.contains("5 of 8 (no retry left)"), "{frame}");
        insta::assert_snapshot!("worklist_no_retry_80x24", frame);
        // And EUR on top: nothing left but the stolen card.
        choose(&mut h, "EUR (1)");
        assert_eq!(table_total(&h), 1);
        h.keys("f ctrl-l");
        assert_eq!(table_total(&h), 8, "clear in the picker resets every facet");
        h.keys("esc ctrl-l");
        assert_eq!(table_total(&h), 8);
    }

    #[test]
    fn filtered_totals_say_what_they_cover_and_show_the_whole_list_too() {
        let mut h = harness(account(), (120, 40));
        let frame = h.frame();
        assert!(
            frame.contains("Outstanding") && !frame.contains("whole list"),
            "{frame}"
        );
        // Narrow: the summary line shows both, each named.
        h.resize(80, 24);
        choose(&mut h, "EUR (1)");
        let frame = h.frame();
        assert!(
            frame.contains("shown 1 of 8 (EUR): 2,500.00 EUR"),
            "{frame}"
        );
        assert!(frame.contains("whole list: "), "{frame}");
        insta::assert_snapshot!("worklist_totals_faceted_80x24", frame);
        // Wide: the side panel names the shown rows' totals and the whole list's.
        h.resize(120, 40);
        let frame = h.frame();
        assert!(frame.contains("Outstanding, shown (1 of 8)"), "{frame}");
        assert!(frame.contains("Outstanding, whole list (8)"), "{frame}");
        insta::assert_snapshot!("worklist_totals_faceted_120x40", frame);
        // The text filter alone counts too.
        h.keys("f ctrl-l esc");
        assert!(!h.frame().contains("whole list"), "{}", h.frame());
        h.keys("/");
        h.type_text("Funds");
        h.keys("enter");
        let frame = h.frame();
        // in_1Funds and the other insufficient_funds decline (JPY).
        assert!(frame.contains("Outstanding, shown (2 of 8)"), "{frame}");
        assert!(frame.contains("JPY (1)"), "{frame}");
        insta::assert_snapshot!("worklist_totals_text_filtered_120x40", frame);
    }

    /// Opens the picker, walks to the option whose line contains `label`, picks it and
    /// closes the picker. The picker opens with its cursor on the first option.
    fn renewal(
        sub: &str,
        name: &str,
        renews: i64,
        amount: Option<i64>,
        currency: Currency,
        (brand, last4, month, year): (&str, &str, i64, i64),
    ) -> crate::model::rows::RenewalMethodRow {
        crate::model::rows::RenewalMethodRow {
            subscription: sub.into(),
            customer: Some(format!("cus_{sub}")),
            customer_email: None,
            customer_name: Some(name.into()),
            status: SubscriptionStatus::Active,
            cancel_at_period_end: false,
            current_period_end: Some(renews),
            currency,
            amount,
            method_source: Some("subscription_default".into()),
            payment_method: Some(format!("pm_{sub}")),
            method_type: Some("card".into()),
            card_brand: Some(brand.into()),
            card_last4: Some(last4.into()),
            card_exp_month: Some(month),
            card_exp_year: Some(year),
        }
    }

    /// The demo-like account with a card read: two cards fail before renewal (one in
    /// yen), one is good for years.
    fn with_cards() -> AccountData {
        let mut d = account();
        d.meta.payment_methods = crate::model::MethodsRead::Read;
        d.renewal_methods = vec![
            renewal(
                "sub_Expiring",
                "Ada Lovelace",
                NOW + 8 * DAY,
                Some(9_800),
                Currency::USD,
                ("visa", "4242", 11, 2026),
            ),
            renewal(
                "sub_YenCard",
                "Sakura Kobayashi",
                NOW + 35 * DAY,
                Some(3_300),
                Currency::JPY,
                ("jcb", "0005", 12, 2026),
            ),
            renewal(
                "sub_Fine",
                "Grace Hopper",
                NOW + 8 * DAY,
                Some(1_900),
                Currency::USD,
                ("visa", "1881", 9, 2028),
            ),
        ];
        d
    }

    #[test]
    fn the_cards_view_lists_the_cards_that_will_fail_and_goes_back() {
        for size in SIZES {
            let mut h = harness(with_cards(), size);
            choose(&mut h, "cards that will fail before renewal (2)");
            let frame = h.frame();
            assert!(
                frame.contains("Cards that will fail before renewal"),
                "{frame}"
            );
            assert!(
                frame.contains("Ada Lovelace") && frame.contains("11/2026"),
                "{frame}"
            );
            assert!(frame.contains("Sakura Kobayashi"), "{frame}");
            assert!(
                !frame.contains("Grace Hopper"),
                "a card good for years: {frame}"
            );
            assert_eq!(table_total(&h), 2);
            insta::assert_snapshot!(name("cards", size), frame);
            choose(&mut h, "failed invoices");
            assert_eq!(table_total(&h), 8, "back to the invoices");
            assert!(h.frame().contains("Failed payments"));
        }
        // Clearing the facets also leaves the view.
        let mut h = harness(with_cards(), (120, 40));
        choose(&mut h, "cards that will fail before renewal");
        h.keys("ctrl-l");
        assert_eq!(table_total(&h), 8);
    }

    #[test]
    fn without_the_permission_the_cards_view_says_what_to_add() {
        let mut d = with_cards();
        d.meta.payment_methods = crate::model::MethodsRead::Refused {
            permission: "rak_payment_method_read".into(),
        };
        let mut h = harness(d, (120, 40));
        choose(&mut h, "cards that will fail before renewal: not checked");
        let frame = h.frame();
        assert!(frame.contains("rak_payment_method_read"), "{frame}");
        assert_eq!(table_total(&h), 0);
        insta::assert_snapshot!("worklist_cards_refused_120x40", frame);
    }

    #[test]
    fn a_cache_without_a_card_read_offers_no_cards_view() {
        let mut h = harness(account(), (120, 40));
        h.resize(120, 80);
        h.keys("f");
        assert!(!h.frame().contains("cards that will fail"), "{}", h.frame());
    }

    fn choose(h: &mut Harness, label: &str) {
        let (w, hh) = (h.width, h.height);
        h.resize(w, 80);
        h.keys("f");
        let frame = h.frame();
        let target = frame
            .lines()
            .filter(|l| l.contains("( )") || l.contains("(•)"))
            .position(|l| l.contains(label))
            .unwrap_or_else(|| panic!("no option {label}: {frame}"));
        for _ in 0..target {
            h.keys("down");
        }
        h.keys("enter esc");
        h.resize(w, hh);
    }

    #[test]
    fn facets_by_action_and_decline() {
        let mut h = harness(account(), (120, 40));
        h.keys("f");
        let frame = h.frame();
        assert!(frame.contains("stolen_card (1)"), "{frame}");
        assert!(
            frame.contains("card_declined (no decline code returned) (1)"),
            "{frame}"
        );
        h.keys("esc");
        choose(&mut h, "do not retry");
        assert_eq!(table_total(&h), 2, "stolen and the excessive-retry block");
        let frame = h.frame();
        insta::assert_snapshot!("worklist_do_not_retry_120x40", frame);
        choose(&mut h, "insufficient_funds");
        assert_eq!(
            table_total(&h),
            0,
            "facets combine: no insufficient_funds row is do-not-retry"
        );
        h.keys("ctrl-l");
        assert_eq!(table_total(&h), 8, "clear-filter resets the facets too");
        assert!(h.frame().contains("Showing all 8 invoices"));
    }

    #[test]
    fn enter_opens_the_invoice_and_copies_the_url() {
        let mut h = harness(account(), (120, 40));
        // The first row: the largest amount of the default currency (EUR 2,500.00).
        h.keys("enter");
        assert_eq!(h.state.screens.len(), 1);
        let frame = h.frame();
        assert!(frame.contains("Worklist › in_3Stolen"), "{frame}");
        assert!(frame.contains("stolen_card"), "{frame}");
        assert!(frame.contains("Reason disclosed"), "{frame}");
        assert!(frame.contains("Attempt 1"), "{frame}");
        insta::assert_snapshot!("worklist_invoice_120x40", frame);
        h.keys("esc");
        // The renewal with its subscription.
        h.keys("down enter");
        let frame = h.frame();
        assert!(
            frame.contains("renews sub_1Funds (status past_due)"),
            "{frame}"
        );
        // Go to the URL line and copy it.
        h.keys("g");
        h.type_text("Hosted invoice URL");
        h.keys("enter enter");
        assert!(
            h.log
                .iter()
                .any(|e| *e == Effect::Copy("https://invoice.stripe.com/i/in_1Funds".into())),
            "{:?}",
            h.log
        );
    }
}
