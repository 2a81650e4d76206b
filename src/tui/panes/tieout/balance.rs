//! The Tie-out tab's Balance view (`b`, `balance_view`): the Stripe balance as an asset
//! account for the month on screen (`[`/`]` change it as in the payouts view). One row per
//! currency, the rows of `balance-rollforward.csv` (`report::balance::ROLLFORWARD_FIELDS`):
//! opening, activity, payouts, closing, pending and available, and for the month that
//! holds the instant Stripe's balance was read, that balance and the difference (in the
//! warning colour when it is not zero, never hidden). Under the table the selected
//! currency's roll-forward reads as a statement, each figure with the way it was made
//! (the opening summed from the lines or derived back from `GET /v1/balance`), and the
//! header says when the snapshot does not hold every line (`meta.lines_complete`).
//!
//! Enter drills into the currency's activity by reporting category
//! ([`super::balance_screens::ActivityScreen`]), then a category's lines (the payouts
//! view's [`super::LinesScreen`]); Esc comes back up with the selection kept. `export`
//! writes the month's balance files, the same as `tieout balance`.
//!
//! The figures are [`crate::report::balance::build`], as for `tieout balance` and the
//! close packet: inline on a small account, else in a job (the latest request wins).

use std::path::PathBuf;
use std::sync::Arc;

use jiff::tz::TimeZone;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::balance_screens::ActivityScreen;
use crate::domain::balance::{OpeningSource, Rollforward, is_payout_category};
use crate::model::AccountData;
use crate::money::{Currency, Money, format_major_grouped, format_major_i128};
use crate::report::Formats;
use crate::report::balance::{self as export, BalanceReport, ROLLFORWARD_FIELDS, opening_how};
use crate::report::fields;
use crate::time::Month;
use crate::tui::action::Action;
use crate::tui::msg::{Effect, Job, JobOutput, RequestId};
use crate::tui::pane::{Cx, ViewCx};
use crate::tui::theme::Role;
use crate::tui::widgets::table::{Cell, ColumnDef, DataTable, RowsSource, cell_of};
use crate::tui::widgets::text::fit;

/// The table's columns, in order: a field of the roll-forward row's one declaration
/// (`report::balance::ROLLFORWARD_FIELDS`, the columns of `balance-rollforward.csv`) and
/// the most it is drawn wide. Stripe's balance and the difference come right after the
/// closing they check, so a 120-column screen shows the tie without scrolling.
pub(super) const SHOWN: &[(&str, u16)] = &[
    ("currency", 8),
    ("opening_balance", 18),
    ("activity", 18),
    ("payouts", 18),
    ("closing_balance", 18),
    ("stripe_balance", 18),
    ("difference", 16),
    ("closing_pending", 18),
    ("closing_available", 18),
    ("opening_source", 28),
    ("opening_difference", 18),
];

/// An amount in a currency's minor units, grouped for the screen (`-1,234.50`); a sum
/// beyond i64 (never seen) is written exactly, ungrouped.
pub(super) fn grouped(minor: i128, c: Currency) -> String {
    match i64::try_from(minor) {
        Ok(v) => format_major_grouped(v, c),
        Err(_) => format_major_i128(minor, c),
    }
}

/// An amount as a table cell: money (right-aligned, sorted as an amount) when it fits.
pub(super) fn amount_cell(minor: i128, c: Currency) -> Cell<'static> {
    match i64::try_from(minor) {
        Ok(v) => Cell::Money(Money::new(v, c)),
        Err(_) => Cell::owned(format!("{} {c}", format_major_i128(minor, c))),
    }
}

/// A difference: in the warning colour when not zero, blank where nothing was compared.
fn difference_cell(d: Option<i128>, c: Currency) -> Cell<'static> {
    match d {
        Some(0) => amount_cell(0, c),
        Some(d) => Cell::Tag(format!("{} {c}", grouped(d, c)).into(), Role::Warning),
        None => Cell::Empty,
    }
}

/// The currency table: one row per currency, the rows of `balance-rollforward.csv`.
pub(super) fn source(r: &BalanceReport) -> RowsSource<Rollforward> {
    let columns = SHOWN
        .iter()
        .filter_map(|&(name, width)| {
            let field = fields::field(ROLLFORWARD_FIELDS, name)?;
            let amount =
                |f: fn(&Rollforward) -> i128| cell_of(move |r| amount_cell(f(r), r.currency));
            let get = match name {
                "currency" => cell_of(|r: &Rollforward| Cell::owned(r.currency.upper())),
                "opening_balance" => amount(|r| r.opening),
                "activity" => amount(|r| r.activity),
                "payouts" => amount(|r| r.payouts),
                "closing_balance" => amount(|r| r.closing),
                "closing_pending" => amount(|r| r.closing_pending),
                "closing_available" => amount(|r| r.closing_available),
                "stripe_balance" => cell_of(|r: &Rollforward| {
                    r.stripe_balance
                        .map_or(Cell::Empty, |b| amount_cell(b, r.currency))
                }),
                "difference" => {
                    cell_of(|r: &Rollforward| difference_cell(r.difference, r.currency))
                }
                "opening_difference" => {
                    cell_of(|r: &Rollforward| difference_cell(r.opening_difference, r.currency))
                }
                _ => {
                    cell_of(move |r: &Rollforward| crate::tui::widgets::table::field_cell(field, r))
                }
            };
            Some(ColumnDef {
                title: field.pane_title(),
                max_width: width,
                get,
            })
        })
        .collect();
    RowsSource::new(r.rollforward.clone(), columns)
        .with_row_role(|r| (!r.ties()).then_some(Role::Warning))
}

/// The view's state inside the Tie-out pane.
pub(super) struct BalanceView {
    /// The view is shown instead of the payouts.
    pub(super) on: bool,
    /// The figures of the month on screen, once built.
    report: Option<Arc<BalanceReport>>,
    /// The job building them, on a large account.
    req: Option<RequestId>,
    pub(super) table: DataTable,
}

impl Default for BalanceView {
    fn default() -> Self {
        BalanceView {
            on: false,
            report: None,
            req: None,
            table: DataTable::new(
                "Balance",
                "No balance transaction in or before this month, and no Stripe balance.",
                Arc::new(RowsSource::<()>::new(Vec::new(), Vec::new())),
            ),
        }
    }
}

impl BalanceView {
    /// Neither built nor being built (the view was off when the month or data changed).
    pub(super) fn needs_build(&self) -> bool {
        self.report.is_none() && self.req.is_none()
    }

    /// Drops the figures (new data or another month) and, while the view is shown,
    /// builds the month's: inline up to `sync_limit` lines, else as a job.
    pub(super) fn refresh(
        &mut self,
        data: Option<&Arc<AccountData>>,
        month: Option<Month>,
        sync_limit: usize,
        cx: &mut Cx<'_>,
    ) {
        self.report = None;
        if let Some(old) = self.req.take() {
            cx.cancel(old);
        }
        let (true, Some(data), Some(month)) = (self.on, data, month) else {
            return;
        };
        let tz = cx.tz().clone();
        if data.balance_transactions.len() <= sync_limit {
            let r = export::build(data, month, &tz);
            self.show(r, cx);
            return;
        }
        let data = Arc::clone(data);
        self.req = Some(cx.compute(Job::new(
            format!("rolling the balance forward to {month}"),
            move |_| export::build(&data, month, &tz),
        )));
    }

    /// Takes a job's output if it is this view's (the latest request only).
    pub(super) fn on_computed(
        &mut self,
        req: RequestId,
        output: JobOutput,
        cx: &mut Cx<'_>,
    ) -> Option<JobOutput> {
        if self.req != Some(req) {
            return Some(output);
        }
        self.req = None;
        if let Ok(r) = output.downcast::<BalanceReport>() {
            self.show(*r, cx);
        }
        None
    }

    fn show(&mut self, r: BalanceReport, cx: &mut Cx<'_>) {
        // Titled when the rows arrive: while a job runs, the rows on screen keep the
        // month they are of, and the line above says the new one is being built.
        self.table
            .set_title(format!("Stripe balance, {}", r.month.title()));
        // The same table keeps its selection, so the currency stays chosen across months.
        self.table.set_source(Arc::new(source(&r)), cx);
        self.report = Some(Arc::new(r));
    }

    /// Enter: the selected currency's activity by reporting category.
    pub(super) fn open(&self, data: Option<&Arc<AccountData>>, cx: &mut Cx<'_>) {
        let (Some(r), Some(data)) = (&self.report, data) else {
            return;
        };
        if let Some(f) = self.table.selected_row().and_then(|i| r.rollforward.get(i)) {
            cx.push(Box::new(ActivityScreen::new(f, r, Arc::clone(data))));
        }
    }

    /// `export`: the month's balance files (`tieout balance`'s, every format).
    pub(super) fn export(&self, cx: &mut Cx<'_>) {
        let Some(r) = &self.report else {
            cx.toast_error("nothing to export yet");
            return;
        };
        let all = Formats {
            md: true,
            csv: true,
            json: true,
        };
        for (name, bytes) in export::files(r, all) {
            cx.effect(Effect::Write {
                path: PathBuf::from(name),
                bytes,
            });
        }
    }

    /// The view in `area`: the header lines, the currency table and the selected
    /// currency's statement under it. `lines` says whether the snapshot holds every line
    /// the month needs (`meta.lines_cover`) and what the view says when the lines could
    /// not be read.
    pub(super) fn render(
        &mut self,
        header: Vec<Line<'static>>,
        lines: (bool, Option<String>),
        area: Rect,
        buf: &mut Buffer,
        cx: &ViewCx<'_>,
    ) {
        let inset = Rect {
            x: area.x + 1,
            width: area.width.saturating_sub(2),
            ..area
        };
        let mut head = header;
        head.extend(self.status_lines(lines, inset.width, cx));
        let h = u16::try_from(head.len())
            .unwrap_or(0)
            .min(area.height.saturating_sub(4));
        Paragraph::new(head).render(Rect { height: h, ..inset }, buf);
        let body = Rect {
            y: area.y + h,
            height: area.height - h,
            ..area
        };
        // Inside the panel: its two borders and a column of margin.
        let statement = self.statement(usize::from(body.width.saturating_sub(3)), cx);
        let rows = u16::try_from(self.table.visible()).unwrap_or(u16::MAX);
        let want_side = u16::try_from(statement.len()).unwrap_or(u16::MAX) + 2;
        // The table is as tall as its rows (one at least) while the statement fits under
        // it; with many currencies it takes what the statement leaves.
        let table_h = if statement.is_empty() {
            body.height
        } else {
            let room = body.height.saturating_sub(want_side).max(4);
            rows.saturating_add(3).max(4).min(room).min(body.height)
        };
        self.table.render(
            Rect {
                height: table_h,
                ..body
            },
            buf,
            cx,
        );
        let rest = Rect {
            y: body.y + table_h,
            height: want_side.min(body.height - table_h),
            ..body
        };
        if rest.height > 2 && !statement.is_empty() {
            let title = self.statement_title();
            let inner = crate::tui::widgets::panel::titled(&title, rest, buf, cx.theme);
            Paragraph::new(statement).render(
                Rect {
                    x: inner.x + 1,
                    width: inner.width.saturating_sub(1),
                    ..inner
                },
                buf,
            );
        }
    }

    fn selected(&self) -> Option<(&BalanceReport, &Rollforward)> {
        let r = self.report.as_deref()?;
        let f = r.rollforward.get(self.table.selected_row()?)?;
        Some((r, f))
    }

    fn statement_title(&self) -> String {
        match self.selected() {
            Some((r, f)) => format!("{} roll-forward, {}", f.currency.upper(), r.month.title()),
            None => String::new(),
        }
    }

    /// The lines under the selector: whether it ties, whether the lines are complete and
    /// when Stripe's balance was read.
    fn status_lines(
        &self,
        (complete, gap): (bool, Option<String>),
        width: u16,
        cx: &ViewCx<'_>,
    ) -> Vec<Line<'static>> {
        let theme = cx.theme;
        let key = |a: Action| cx.keymap.key_for(a).unwrap_or_else(|| a.name().to_string());
        let Some(r) = &self.report else {
            return vec![Line::styled(
                "rolling the balance forward…",
                theme.style(Role::Pending),
            )];
        };
        let n = r.rollforward.len();
        let (verdict, role) = if !r.complete {
            ("not compared", Role::Warning)
        } else if r.ties() {
            ("ties", Role::Matched)
        } else {
            ("does not tie", Role::Warning)
        };
        let mut lines = vec![Line::from(vec![
            Span::styled(
                format!(
                    "Roll-forward: {n} {} · ",
                    if n == 1 { "currency" } else { "currencies" }
                ),
                theme.style(Role::Text),
            ),
            Span::styled(verdict, theme.style(role)),
            Span::styled(
                format!(
                    "   {} by category   {} payouts",
                    key(Action::Open),
                    key(Action::BalanceView)
                ),
                theme.style(Role::Muted),
            ),
        ])];
        let incomplete = (!complete).then_some(
            "Lines incomplete: this snapshot holds only the lines of its payouts, not every \
line since the month's start (a cache from before tieout listed them), so the opening counts \
only what was read and is not compared with Stripe's balance; the next `tieout sync` lists \
them.",
        );
        for text in gap.as_deref().into_iter().chain(incomplete) {
            for l in textwrap::wrap(text, usize::from(width.max(1))) {
                lines.push(Line::styled(l.into_owned(), theme.style(Role::Warning)));
            }
        }
        lines
    }

    /// The selected currency's roll-forward, one figure a line with how it was made.
    fn statement(&self, width: usize, cx: &ViewCx<'_>) -> Vec<Line<'static>> {
        let Some((r, f)) = self.selected() else {
            return Vec::new();
        };
        let theme = cx.theme;
        let c = f.currency;
        const LABEL: usize = 20;
        const AMOUNT: usize = 18;
        let note_w = width.saturating_sub(LABEL + AMOUNT + 2);
        let row = |label: &str, amount: Option<i128>, note: String, role: Role| {
            let amount = amount.map_or_else(String::new, |a| format!("{} {c}", grouped(a, c)));
            Line::from(vec![
                Span::styled(fit(label, LABEL, false), theme.style(Role::Text)),
                Span::styled(fit(&amount, AMOUNT, true), theme.style(role)),
                Span::styled(
                    format!("  {}", fit(&note, note_w, false)),
                    theme.style(if role == Role::Warning {
                        Role::Warning
                    } else {
                        Role::Muted
                    }),
                ),
            ])
        };
        let lines_in = |payouts: bool| -> u64 {
            r.activity
                .iter()
                .filter(|a| a.currency == c && is_payout_category(&a.reporting_category) == payouts)
                .map(|a| a.count)
                .sum()
        };
        let (opening_note, opening_role) = opening_words(f);
        let mut out = vec![
            row(
                "  Opening balance",
                Some(f.opening),
                opening_note,
                opening_role,
            ),
            row(
                "+ Activity",
                Some(f.activity),
                format!("{} lines by reporting category", lines_in(false)),
                Role::Text,
            ),
            row(
                "+ Payouts",
                Some(f.payouts),
                format!("{} payout and payout_reversal lines", lines_in(true)),
                Role::Text,
            ),
            row(
                "= Closing balance",
                Some(f.closing),
                "opening + activity + payouts".into(),
                Role::Title,
            ),
            row(
                "    pending",
                Some(f.closing_pending),
                if f.stripe_balance.is_some() {
                    "created by now, available later".into()
                } else {
                    "available only after the month".into()
                },
                Role::Text,
            ),
            row(
                "    available",
                Some(f.closing_available),
                "closing − pending".into(),
                Role::Text,
            ),
        ];
        match (f.stripe_balance, f.difference, r.balance_read_at) {
            (Some(sb), Some(d), at) => {
                let when = at.map_or_else(String::new, |t| format!(" read {}", datetime(t, cx.tz)));
                out.push(row(
                    "  Stripe's balance",
                    Some(sb),
                    format!("/v1/balance{when}"),
                    Role::Text,
                ));
                out.push(if d == 0 {
                    row("  Difference", Some(0), "ties".into(), Role::Matched)
                } else {
                    row(
                        "  Difference",
                        Some(d),
                        "closing − Stripe's: does not tie".into(),
                        Role::Warning,
                    )
                });
            }
            (_, _, Some(_)) if !r.complete => out.push(row(
                "  Stripe's balance",
                None,
                "not compared: lines incomplete".into(),
                Role::Warning,
            )),
            (_, _, Some(t)) => out.push(row(
                "  Stripe's balance",
                None,
                format!("compared for {} only", Month::of(t, cx.tz).title()),
                Role::Text,
            )),
            (_, _, None) => out.push(row(
                "  Stripe's balance",
                None,
                "not read: no month is compared".into(),
                Role::Text,
            )),
        }
        if let Some(d) = f.opening_difference {
            out.push(row(
                "  Opening difference",
                Some(d),
                "summed − derived back: they differ".into(),
                Role::Warning,
            ));
        }
        out
    }
}

/// How the opening was made, in words, and the colour they take: the report's
/// `opening_source` (`summed`, `derived_from_stripe_balance`, `summed_and_derived`).
pub(super) fn opening_words(f: &Rollforward) -> (String, Role) {
    let how = opening_how(f.opening_source);
    match (f.opening_source, f.opening_summed, f.opening_difference) {
        (OpeningSource::Summed, None, _) => (
            format!("{how} from the lines read: incomplete"),
            Role::Warning,
        ),
        (OpeningSource::Summed, Some(_), _) => {
            (format!("{how} from every earlier line"), Role::Text)
        }
        (OpeningSource::Derived, _, _) => ("derived back from Stripe's balance".into(), Role::Text),
        (OpeningSource::Both, _, None) => {
            ("summed, and derived back: they agree".into(), Role::Text)
        }
        (OpeningSource::Both, _, Some(_)) => (
            "summed, and derived back: they differ".into(),
            Role::Warning,
        ),
    }
}

/// `2026-11-30 12:00 UTC` in the display time zone.
pub(super) fn datetime(ts: i64, tz: &TimeZone) -> String {
    jiff::Timestamp::from_second(ts)
        .map(|t| {
            t.to_zoned(tz.clone())
                .strftime("%Y-%m-%d %H:%M %Z")
                .to_string()
        })
        .unwrap_or_default()
}
