//! The Recovery view of the Worklist (`v`, `recovery_view`): whether chasing works. Of the
//! invoices whose payment first failed in the last six months, how many came back, how (a
//! retry on the same payment method, a new method, paid outside Stripe), how fast, and
//! which ended written off, voided or are still open: the cohort table (one row per month
//! of the first failure, currency and first decline, the rows of `recovery.csv`), a bar
//! per month of recovered against not, and per currency the share of the failed amount
//! that came back. Enter drills into a cohort, its invoices, then an invoice's attempts
//! (`recovery_screens`).
//!
//! The picture is `domain::recovery` (the same computation as `tieout recovery`), built in
//! the worklist job from the same load.

use super::*;
use crate::domain::dunning::CurrencyOrder;
use crate::domain::recovery::cohorts::percent;
use crate::domain::recovery::{Cohort, Recovery, Via};
use crate::report::fields;
use crate::report::recovery::COHORT_FIELDS;
use crate::report::recovery_summary::{self, CurrencyRecovery};
use crate::time::Month;
use crate::tui::widgets::table::{ColumnDef, cell_of, field_col};

pub(super) use super::recovery_screens::CohortScreen;

impl WorklistPane {
    /// Builds the recovery picture of `ws`'s data on a worker (the view shows that it is
    /// being built meanwhile).
    pub(super) fn start_recovery(&mut self, ws: &Workspace, cx: &mut Cx<'_>) {
        let data = Arc::clone(&ws.data);
        let now = cx.now();
        let tz = cx.tz().clone();
        self.recovery_req = Some(cx.compute(Job::new(
            "building the recovery picture",
            move |_| {
                let window = crate::domain::recovery::Window::ending_at(now, MONTHS, &tz);
                crate::domain::recovery::build(&data, &window, &tz)
            },
        )));
    }

    /// The view in `area`, or that its picture is being built.
    pub(super) fn render_recovery(
        &mut self,
        order: &CurrencyOrder,
        area: Rect,
        buf: &mut Buffer,
        cx: &ViewCx<'_>,
    ) {
        let Some(r) = self.recovery.clone() else {
            Paragraph::new(Line::styled(
                "Building the recovery picture…",
                cx.theme.style(Role::Muted),
            ))
            .block(Block::bordered().border_style(cx.theme.style(Role::Border)))
            .render(area, buf);
            return;
        };
        let header = Rect { height: 1, ..area };
        Paragraph::new(view_line(&r, self.recovery_incomplete, cx)).render(header, buf);
        let body = Rect {
            y: area.y + 1,
            height: area.height.saturating_sub(1),
            ..area
        };
        let per = &self.recovery_currencies;
        render(&r, per, order, &mut self.recovery_table, body, buf, cx);
    }

    /// Keeps the recovery picture of a load and puts its cohorts in the view's table.
    pub(super) fn set_recovery(&mut self, r: Recovery, cx: &mut Cx<'_>) {
        // Summed once here, not on every frame: a large account has 100,000 invoices.
        self.recovery_currencies = recovery_summary::by_currency(&r.invoices);
        // The workspace is the one the picture was built from: a new one drops the job.
        self.recovery_incomplete = cx
            .workspace()
            .is_some_and(|ws| r.window.settled_gap(&ws.data.meta).is_some());
        self.recovery_table.set_empty_text(empty_text(&r));
        self.recovery_table.set_source(Arc::new(source(&r)), cx);
        self.recovery = Some(Arc::new(r));
    }

    /// An action in the Recovery view: Enter opens the cohort, `v` goes back to the
    /// invoices, `f` too (and opens the facets); the shell moves, filters and sorts.
    pub(super) fn recovery_action(&mut self, action: Action, cx: &mut Cx<'_>) -> Handled {
        match action {
            Action::RecoveryView => {
                self.recovery_view = false;
                Handled::Yes
            }
            Action::Facets => {
                self.recovery_view = false;
                self.handle(action, cx)
            }
            Action::Open => {
                let r = self.recovery.clone();
                let row = self.recovery_table.selected_row();
                if let (Some(r), Some(i)) = (r, row)
                    && let Some(c) = r.cohorts.get(i)
                {
                    let data = cx.workspace().map(|ws| Arc::clone(&ws.data));
                    cx.push(Box::new(CohortScreen::new(c, &r.invoices, data.as_deref())));
                }
                Handled::Yes
            }
            _ => Handled::No,
        }
    }
}

/// How many months of failures the view covers (as `tieout recovery` by default).
pub(super) const MONTHS: u32 = crate::app::recovery::DEFAULT_MONTHS;

/// The table title of the view.
pub(super) const TITLE: &str = "Recovery by cohort";

/// The cohort table's columns, in order: a field of the cohort row's one declaration
/// (`report::recovery::COHORT_FIELDS`, the columns of `recovery.csv`) and the most it is
/// drawn wide; `rate` is the view's own (recovered of failed, as a percent).
pub(super) const SHOWN: &[(&str, u16)] = &[
    ("cohort_month", 7),
    ("currency", 8),
    ("decline_code", 18),
    ("failed_count", 6),
    ("recovered_count", 9),
    ("rate", 5),
    ("recovered_amount", 16),
    ("failed_amount", 16),
    ("median_days_to_recover", 11),
    ("recovered_by_retry", 8),
    ("recovered_by_new_method", 13),
    ("recovered_out_of_band", 11),
    ("recovered_other", 9),
    ("written_off", 11),
    ("voided", 6),
    ("still_open", 10),
];

/// The cohort table: one row per (month of the first failure, currency, first decline),
/// in the picture's order (month, currency, decline).
pub(super) fn source(r: &Recovery) -> RowsSource<Cohort> {
    let columns = SHOWN
        .iter()
        .filter_map(|&(name, width)| {
            if name == "rate" {
                return Some(ColumnDef {
                    title: "Rate",
                    max_width: width,
                    get: cell_of(|c: &Cohort| rate_cell(c.recovered.count, c.failed.count)),
                });
            }
            let field = fields::field(COHORT_FIELDS, name)?;
            Some(match name {
                "currency" => ColumnDef {
                    title: field.pane_title(),
                    max_width: width,
                    get: cell_of(|c: &Cohort| Cell::owned(c.currency.upper())),
                },
                _ => field_col(*field, width, |c: &Cohort| c),
            })
        })
        .collect();
    RowsSource::new(r.cohorts.clone(), columns)
}

/// `62%`, coloured by how much came back (none: red; half or more: green).
pub(super) fn rate_cell(part: usize, whole: usize) -> Cell<'static> {
    match percent(part, whole) {
        Some(p) => Cell::Tag(
            format!("{p}%").into(),
            if p == 0 {
                Role::Failed
            } else if p >= 50 {
                Role::Matched
            } else {
                Role::Text
            },
        ),
        None => Cell::Empty,
    }
}

/// What the table says when it has no rows.
pub(super) fn empty_text(r: &Recovery) -> String {
    format!(
        "No invoice's payment failed from {} to {}.",
        r.window.first, r.window.last
    )
}

/// One month of the window: its failed invoices by how they stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct MonthBar {
    pub(super) month: Month,
    pub(super) failed: usize,
    pub(super) recovered: usize,
    pub(super) open: usize,
    /// Written off or voided: they will not come back.
    pub(super) lost: usize,
}

/// Every month of the window, oldest first, with its invoices counted (invoices, not
/// amounts: amounts in different currencies are never added).
pub(super) fn month_bars(r: &Recovery) -> Vec<MonthBar> {
    let mut out = Vec::new();
    let mut m = r.window.first;
    // A window is a few months; the bound only guards a window whose ends are reversed.
    for _ in 0..240 {
        if m > r.window.last {
            break;
        }
        let mut b = MonthBar {
            month: m,
            failed: 0,
            recovered: 0,
            open: 0,
            lost: 0,
        };
        for c in r.cohorts.iter().filter(|c| c.month == m) {
            b.failed += c.failed.count;
            b.recovered += c.recovered.count;
            b.open += c.still_open.count;
            b.lost += c.written_off.count + c.voided.count;
        }
        out.push(b);
        m = m.next();
    }
    out
}

/// The bar's characters: recovered, still open, written off or voided (different
/// characters as well as colours, so the mono theme reads the same).
const RECOVERED: char = '█';
const OPEN: char = '▒';
const LOST: char = '░';

/// One month's bar in `width` cells: `2026-10 ████▒▒░░  6/10 60%`, its length scaled to
/// the busiest month (`most` failed invoices), split into recovered, open and lost.
pub(super) fn bar_line(b: &MonthBar, most: usize, width: usize, cx: &ViewCx<'_>) -> Line<'static> {
    let theme = cx.theme;
    let label = format!("{} ", b.month);
    let tail = match percent(b.recovered, b.failed) {
        Some(p) => format!(" {}/{} {p}%", b.recovered, b.failed),
        None => " none failed".to_string(),
    };
    // The tail is given room for three-digit counts so the bars start and end aligned.
    let room = width.saturating_sub(label.len() + tail.len().max(13));
    // The bar is the month's failures scaled to the busiest month's, rounded, and shared
    // between the parts (recovered, open, lost) in proportion, largest remainders first;
    // a part there is keeps one cell at least, taken from the longest, so a recovery in a
    // quiet month is not rounded away next to a busy one (the numbers after the bar are
    // exact).
    let most = most.max(1);
    let cells = |n: usize| (2 * n * room + most) / (2 * most);
    let parts = [b.recovered, b.open, b.lost];
    let shown = parts.iter().filter(|p| **p > 0).count();
    let want = cells(b.failed).max(shown).min(room);
    let total = parts.iter().sum::<usize>().max(1);
    let mut len = parts.map(|p| p * want / total);
    let mut rest: Vec<(usize, usize)> = (0..3).map(|i| (parts[i] * want % total, i)).collect();
    rest.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let left = want.saturating_sub(len.iter().sum::<usize>());
    for (_, i) in rest.iter().take(left) {
        len[*i] += 1;
    }
    for i in 0..3 {
        if parts[i] > 0 && len[i] == 0 {
            let longest = (0..3).max_by_key(|j| (len[*j], 3 - j)).unwrap_or(i);
            if len[longest] > 1 {
                len[longest] -= 1;
                len[i] = 1;
            }
        }
    }
    let [r, o, l] = len;
    let all = r + o + l;
    let seg = |c: char, n: usize| c.to_string().repeat(n);
    Line::from(vec![
        Span::styled(label, theme.style(Role::Text)),
        Span::styled(seg(RECOVERED, r), theme.style(Role::Matched)),
        Span::styled(seg(OPEN, o), theme.style(Role::Pending)),
        Span::styled(seg(LOST, l), theme.style(Role::Failed)),
        Span::styled(
            " ".repeat(room.saturating_sub(all)),
            theme.style(Role::Text),
        ),
        Span::styled(tail, theme.style(Role::Muted)),
    ])
}

/// What the bar's characters mean: one line, or two when `width` is too narrow.
pub(super) fn legend(width: usize, cx: &ViewCx<'_>) -> Vec<Line<'static>> {
    let theme = cx.theme;
    let rec = Span::styled(
        format!("{RECOVERED} recovered  "),
        theme.style(Role::Matched),
    );
    let open = Span::styled(format!("{OPEN} still open  "), theme.style(Role::Pending));
    let lost = Span::styled(
        format!("{LOST} written off or voided"),
        theme.style(Role::Failed),
    );
    let one = Line::from(vec![rec.clone(), open.clone(), lost.clone()]);
    if one.width() <= width {
        vec![one]
    } else {
        vec![Line::from(vec![rec, open]), Line::from(lost)]
    }
}

/// The bars of every month, the legend last.
pub(super) fn bar_lines(r: &Recovery, width: usize, cx: &ViewCx<'_>) -> Vec<Line<'static>> {
    let bars = month_bars(r);
    let most = bars.iter().map(|b| b.failed).max().unwrap_or(0);
    let mut lines: Vec<Line<'static>> = bars.iter().map(|b| bar_line(b, most, width, cx)).collect();
    lines.extend(legend(width, cx));
    lines
}

/// The line above the table: the window, how many failed and how many came back, and
/// first, when the data cannot tell how the failures ended, that the picture is not to be
/// trusted (the counts come from the cohorts, not a scan of every invoice per frame).
pub(super) fn view_line<'a>(r: &Recovery, incomplete: bool, cx: &ViewCx<'_>) -> Line<'a> {
    let theme = cx.theme;
    let failed: usize = r.cohorts.iter().map(|c| c.failed.count).sum();
    let recovered: usize = r.cohorts.iter().map(|c| c.recovered.count).sum();
    let mut spans = Vec::new();
    if incomplete {
        spans.push(Span::styled(
            " Incomplete: the data lacks how failures ended; run `tieout sync` ·",
            theme.style(Role::Error),
        ));
    }
    spans.push(Span::styled(
        format!(" {} to {}: ", r.window.first, r.window.last),
        theme.style(Role::Muted),
    ));
    spans.push(Span::styled(
        match percent(recovered, failed) {
            Some(p) => format!("{failed} invoices failed, {recovered} recovered ({p}%)"),
            None => "no invoice failed".to_string(),
        },
        theme.style(Role::Prompt),
    ));
    spans.push(Span::styled(
        format!("  {} invoices", key_hint(cx, Action::RecoveryView)),
        theme.style(Role::Muted),
    ));
    Line::from(spans)
}

/// Per currency over the window, in the worklist's currency order: the share of the
/// failed amount that came back, the amounts, the median days and the split by way.
pub(super) fn currency_lines(
    r: &Recovery,
    per: &[CurrencyRecovery],
    order: &CurrencyOrder,
    width: usize,
    cx: &ViewCx<'_>,
) -> Vec<Line<'static>> {
    let theme = cx.theme;
    let mut lines = Vec::new();
    let mut per = per.to_vec();
    order.sort(&mut per, |c| c.currency);
    for c in per {
        let pct = c.percent().map_or_else(String::new, |p| format!(" {p}%"));
        lines.push(Line::from(vec![
            Span::styled(c.currency.upper(), theme.style(Role::Header)),
            Span::styled(
                format!("{pct} of the failed amount"),
                theme.style(Role::Text),
            ),
        ]));
        lines.push(Line::styled(
            fit(&amounts(&c), width, true),
            theme.style(Role::Text),
        ));
        if c.recovered_count == 0 {
            continue;
        }
        if let Some(m) = c.median_days {
            lines.push(Line::styled(
                fit(&format!("median {m} days to recover"), width, true),
                theme.style(Role::Muted),
            ));
        }
        let ways: Vec<String> = Via::ALL
            .iter()
            .filter_map(|v| {
                // From the cohorts (a few hundred rows), not the invoices, on every frame.
                let n: usize = r
                    .cohorts
                    .iter()
                    .filter(|k| k.currency == c.currency)
                    .map(|k| k.via(*v).count)
                    .sum();
                shows_way(*v, n).then(|| format!("{} {n}", way_short(*v)))
            })
            .collect();
        lines.push(Line::styled(
            fit(&ways.join(" · "), width, true),
            theme.style(Role::Muted),
        ));
    }
    lines
}

/// `4,120.00 of 6,630.00 USD`.
fn amounts(c: &CurrencyRecovery) -> String {
    format!(
        "{} of {}",
        format_major_grouped(c.recovered_amount, c.currency),
        money(Money::new(c.failed_amount, c.currency))
    )
}

/// The short word for a way of recovery.
pub(super) fn way_word(v: Via) -> &'static str {
    match v {
        Via::Retry => "retry",
        Via::NewMethod => "new method",
        Via::OutOfBand => "outside Stripe",
        Via::Other => "other way",
    }
}

/// Whether a way's count is shown: the three ways always, the rare other way (no paying
/// charge in view) only when it happened, so the line keeps its room.
pub(super) fn shows_way(v: Via, count: usize) -> bool {
    v != Via::Other || count > 0
}

/// The shorter word the side panel has room for.
fn way_short(v: Via) -> &'static str {
    match v {
        Via::OutOfBand => "outside",
        Via::Other => "other",
        other => way_word(other),
    }
}

/// The side panel (wide terminals): the bars, then the currencies.
pub(super) fn render_panel(
    r: &Recovery,
    per: &[CurrencyRecovery],
    order: &CurrencyOrder,
    area: Rect,
    buf: &mut Buffer,
    cx: &ViewCx<'_>,
) {
    let theme = cx.theme;
    let inner = crate::tui::widgets::panel::titled("Recovered, by month", area, buf, theme);
    let width = usize::from(inner.width);
    let mut lines = bar_lines(r, width, cx);
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "Recovered, per currency",
        theme.style(Role::Title),
    ));
    lines.extend(currency_lines(r, per, order, width, cx));
    Paragraph::new(lines).render(inner, buf);
}

/// The view's body in `body` (below the line [`view_line`] draws): the table with the
/// side panel (wide) or the bars above the table (narrow).
pub(super) fn render(
    r: &Recovery,
    per: &[CurrencyRecovery],
    order: &CurrencyOrder,
    table: &mut DataTable,
    body: Rect,
    buf: &mut Buffer,
    cx: &ViewCx<'_>,
) {
    let wide = body.width >= SIDE_PANEL_MIN_WIDTH;
    if wide {
        let side_w = SIDE_PANEL_WIDTH.min(body.width / 3);
        let main = Rect {
            width: body.width - side_w,
            ..body
        };
        let side = Rect {
            x: body.x + body.width - side_w,
            width: side_w,
            ..body
        };
        table.render(main, buf, cx);
        render_panel(r, per, order, side, buf, cx);
        return;
    }
    // Narrow: the bars (and the legend) over the table, leaving the table most rows.
    let lines = bar_lines(r, usize::from(body.width.saturating_sub(1)), cx);
    let want = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    let h = want.min(body.height / 2);
    let inset = Rect {
        x: body.x + 1,
        width: body.width.saturating_sub(1),
        height: h,
        ..body
    };
    Paragraph::new(lines).render(inset, buf);
    table.render(
        Rect {
            y: body.y + h,
            height: body.height - h,
            ..body
        },
        buf,
        cx,
    );
}
