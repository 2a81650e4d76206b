//! The Tie-out tab: the payouts arriving in a month (chosen with `prev_month` /
//! `next_month`, or typed after `choose_month`), each with its amount, its lines' net, the
//! difference and a mark (tied, difference, not itemisable, in progress), and the month's
//! totals per currency.
//!
//! `open` drills in: payout -> its lines by category -> the lines -> one balance
//! transaction with its source object ([`screens`]). `export` writes the same three files
//! as `tieout reconcile` for the month on screen. `export_packet` offers a folder
//! (`close-YYYY-MM`) in a prompt and asks the runtime for the month's close packet
//! (`Effect::ExportPacket`, the same code as `tieout close`); progress and the result show
//! in the status line. A packet already there is kept: the result says so, and only then
//! does `overwrite_packet` replace it (the second, explicit confirmation).
//! `export_journal` writes the month's journal for the books ([`journal`]).
//! `balance_view` switches to the Balance view ([`balance`]): the month's Stripe balance
//! roll-forward per currency, with its drill-down ([`balance_screens`]).
//!
//! The tie-out is computed off the UI task ([`crate::app::reconcile::tie_out`] in a
//! job); the latest request wins. With a bank statement in the workspace (`TIEOUT_BANK`,
//! or the demo's own) a Bank column and summary line appear ([`bank`]).

mod balance;
mod balance_screens;
#[cfg(test)]
mod balance_tests;
mod bank;
#[cfg(test)]
mod bank_tests;
mod columns;
mod gaps;
mod header;
mod headless;
mod journal;
mod packet;
mod reveal;
mod screens;
#[cfg(test)]
pub(crate) mod tests;
mod txn_fields;
mod view_state;

use std::path::PathBuf;
use std::sync::Arc;

use jiff::tz::TimeZone;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};

use crate::app::reconcile as uc;
use crate::domain::tieout::MonthTieOut;
use crate::model::AccountData;
use crate::report::Formats;
use crate::time::Month;
use crate::tui::action::Action;
use crate::tui::msg::{Effect, Job, JobOutput, PacketResult, RequestId};
use crate::tui::pane::{Cx, Handled, Pane, Reads, Reveal, ViewCx};
use crate::tui::prompt::PromptKind;
use crate::tui::theme::Role;
use crate::tui::widgets::table::{DataTable, RowsSource, TableSource};
use crate::tui::workspace::{Gap, Workspace};

pub use bank::BankScreen;
use columns::rows_source;
pub(crate) use columns::verdict_cell;
pub use headless::view_table;
pub use screens::{LinesScreen, PayoutScreen};
pub use txn_fields::txn_fields;

pub fn pane() -> Box<dyn Pane> {
    Box::new(TieOutPane::new())
}

fn empty_source() -> Arc<dyn TableSource> {
    Arc::new(RowsSource::<()>::new(Vec::new(), Vec::new()))
}

/// The month to open on: the latest month up to `now` in which a payout arrives, else
/// the month of `now`.
pub fn default_month(data: &AccountData, now: i64, tz: &TimeZone) -> Month {
    let current = Month::of(now, tz);
    data.payouts
        .iter()
        .map(|p| Month::of(p.arrival_date, tz))
        .filter(|m| *m <= current)
        .max()
        .unwrap_or(current)
}

/// Up to this many payouts plus balance transactions, a month is tied out inline; above
/// it, on a worker thread (with the spinner).
pub const SYNC_LIMIT: usize = 50_000;

/// The folder a close packet for `month` goes to unless the user types another one:
/// `close-YYYY-MM`, in the folder tieout was started from.
pub fn default_packet_dir(month: Month) -> String {
    format!("close-{month}")
}

/// The Tie-out tab.
pub struct TieOutPane {
    month: Option<Month>,
    data: Option<Arc<AccountData>>,
    result: Option<Arc<MonthTieOut<'static>>>,
    pending: Option<RequestId>,
    table: DataTable,
    sync_limit: usize,
    /// The close packet export in flight (its month).
    packet: Option<(RequestId, Month)>,
    /// An export found a packet already there: `overwrite_packet` may replace it (the
    /// month and the folder as typed).
    overwrite: Option<(Month, PathBuf)>,
    /// The key bound to `overwrite_packet` (read from the keymap when drawing).
    overwrite_key: String,
    /// The folder of the export in flight, as typed.
    typed_dir: Option<PathBuf>,
    /// The last export's outcome, shown under the month selector until the next one.
    packet_line: Option<(String, Role)>,
    /// The journal key's export and its outcome.
    journal: journal::JournalKey,
    /// The key bound to `overwrite_journal` (read from the keymap when drawing).
    journal_overwrite_key: String,
    /// The bank statements' lines (from the workspace), their match for the month on
    /// screen, and the matching job in flight.
    bank_lines: Option<Arc<Vec<crate::bank::BankLine>>>,
    bank: Option<Arc<crate::bank::BankMatch>>,
    bank_pending: Option<RequestId>,
    /// What the fresh read could not read ([`gaps`]): the empty month says so, and the
    /// reports refuse.
    gaps: Arc<Vec<Gap>>,
    /// The key bound to `refresh` (read from the keymap when drawing).
    refresh_key: String,
    /// `packet_line` says the packet was refused for a gap.
    packet_refused_line: bool,
    /// The Balance view (`balance_view`) and its figures for the month on screen.
    balance: balance::BalanceView,
    /// A jump's place waiting for its month's tie-out ([`reveal`]).
    reveal: Option<crate::tui::pane::Place>,
}

impl Default for TieOutPane {
    fn default() -> Self {
        Self::new()
    }
}

impl TieOutPane {
    pub fn new() -> Self {
        TieOutPane {
            month: None,
            data: None,
            result: None,
            pending: None,
            table: DataTable::new("Payouts", "No payouts loaded.", empty_source()),
            sync_limit: SYNC_LIMIT,
            packet: None,
            overwrite: None,
            overwrite_key: "F".to_string(),
            packet_line: None,
            typed_dir: None,
            journal: journal::JournalKey::default(),
            journal_overwrite_key: "O".to_string(),
            bank_lines: None,
            bank: None,
            bank_pending: None,
            gaps: Arc::new(Vec::new()),
            refresh_key: "r".to_string(),
            packet_refused_line: false,
            balance: balance::BalanceView::default(),
            reveal: None,
        }
    }

    /// Sets the size above which the tie-out runs in the background (tests).
    pub fn with_sync_limit(mut self, limit: usize) -> Self {
        self.sync_limit = limit;
        self
    }

    /// Sets the folder the journal key writes `journal-YYYY-MM` into (tests; default:
    /// the current folder).
    pub fn with_journal_dir(mut self, base: PathBuf) -> Self {
        self.journal.base = Some(base);
        self
    }

    /// The month on screen.
    pub fn month(&self) -> Option<Month> {
        self.month
    }

    /// The tie-out on screen (once computed).
    pub fn result(&self) -> Option<&MonthTieOut<'static>> {
        self.result.as_deref()
    }

    /// Asks for the month's tie-out; a newer request supersedes an older one.
    fn recompute(&mut self, cx: &mut Cx<'_>) {
        let (Some(data), Some(month)) = (self.data.clone(), self.month) else {
            return;
        };
        self.balance
            .refresh(Some(&data), Some(month), self.sync_limit, cx);
        if let Some(old) = self.pending.take() {
            cx.cancel(old);
        }
        let tz = cx.tz().clone();
        self.table
            .set_title(format!("Payouts arriving in {}", month.title()));
        if data.payouts.len() + data.balance_transactions.len() <= self.sync_limit {
            let t = uc::tie_out(&data, month, &tz).into_owned();
            self.show(t, cx);
            return;
        }
        self.result = None;
        let job = Job::new(format!("tying out {month}"), move |_| {
            uc::tie_out(&data, month, &tz).into_owned()
        });
        self.pending = Some(cx.compute(job));
    }

    /// Puts a computed tie-out on screen.
    fn show(&mut self, t: MonthTieOut<'static>, cx: &mut Cx<'_>) {
        let t = Arc::new(t);
        let empty = if t.is_empty() {
            gaps::empty_month(gaps::payouts(&self.gaps), &self.refresh_key)
        } else {
            String::new()
        };
        self.match_bank(&t, cx);
        let source = rows_source(&t, self.bank.as_deref());
        self.result = Some(t);
        let title = self.table.title().to_string();
        // A new table, so a new month starts at its first row with its own empty text;
        // the filter, sort and columns stay.
        let view = self.table.table_view();
        self.table = DataTable::new(title, empty, empty_source());
        self.table.set_source(source, cx);
        self.table.apply_table_view(&view, cx);
        self.finish_reveal(cx);
    }

    /// Matches the month to the statements, if any: inline when small, else as a job.
    fn match_bank(&mut self, t: &Arc<MonthTieOut<'static>>, cx: &mut Cx<'_>) {
        self.bank = None;
        if let Some(old) = self.bank_pending.take() {
            cx.cancel(old);
        }
        let (Some(lines), Some(data)) = (self.bank_lines.clone(), self.data.clone()) else {
            return;
        };
        // The passes compare lines with payouts: small products run inline.
        let small = lines.len().saturating_mul(t.payouts.len() + 1) <= self.sync_limit * 10;
        let (now, t) = (cx.now(), Arc::clone(t));
        let run = move || uc::match_bank(&t, &data.payouts, &lines, now);
        if small {
            self.bank = Some(Arc::new(run()));
        } else {
            self.bank_pending =
                Some(cx.compute(Job::new("matching the bank statement", move |_| run())));
        }
    }

    fn shift_month(&mut self, forward: bool, cx: &mut Cx<'_>) {
        if let Some(m) = self.month {
            self.month = Some(if forward { m.next() } else { m.prev() });
            self.recompute(cx);
        }
    }

    /// `choose_month`'s answer: the month typed as `YYYY-MM`, or why not.
    fn choose_month(&mut self, text: &str, cx: &mut Cx<'_>) {
        match text.trim().parse::<Month>() {
            Ok(m) if self.data.is_some() => {
                self.month = Some(m);
                self.recompute(cx);
            }
            Ok(_) => cx.toast_error("no month yet: the account is still loading"),
            Err(_) => cx.toast_error(format!(
                "not a month: {} (type it as YYYY-MM, e.g. 2026-10)",
                text.trim()
            )),
        }
    }

    fn export(&self, cx: &mut Cx<'_>) {
        let (Some(t), Some(data)) = (&self.result, &self.data) else {
            cx.toast_error("nothing to export yet");
            return;
        };
        if let Some(why) = gaps::refuse_reports(&self.gaps, &self.refresh_key) {
            cx.toast_error(why);
            return;
        }
        let all = Formats {
            md: true,
            csv: true,
            json: true,
        };
        let files = uc::files(t, data, cx.tz(), all, self.bank.as_deref());
        for (name, bytes) in files {
            cx.effect(Effect::Write {
                path: PathBuf::from(name),
                bytes,
            });
        }
    }

    fn open(&mut self, cx: &mut Cx<'_>) {
        let (Some(t), Some(data)) = (&self.result, &self.data) else {
            return;
        };
        let on_bank = (self.table.source().columns().get(self.table.selected_col()))
            .is_some_and(|c| c.title == bank::BANK_COLUMN);
        let row = self.table.selected_row();
        let matched = self.bank.as_ref().zip(row.and_then(|r| t.payouts.get(r)));
        match matched.and_then(|(m, p)| m.payouts.iter().find(|b| b.payout.id == p.payout.id)) {
            Some(b) if on_bank => cx.push(Box::new(BankScreen::new(b.clone()))),
            _ => {
                if let Some(p) = row.and_then(|r| t.payouts.get(r)) {
                    cx.push(Box::new(PayoutScreen::new(p.clone(), Arc::clone(data))));
                }
            }
        }
    }
}

impl Pane for TieOutPane {
    fn title(&self) -> String {
        "Tie-out".to_string()
    }

    fn reads(&self) -> Reads {
        use crate::model::Resource as R;
        Reads {
            needs: &[R::Payouts],
            partly: &[
                (R::Charges, "the charge behind a line"),
                (R::Refunds, "the refund behind a line"),
                (R::Disputes, "the dispute behind a line"),
            ],
        }
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

    fn on_data(&mut self, ws: &Workspace, cx: &mut Cx<'_>) -> bool {
        self.data = Some(Arc::clone(&ws.data));
        // A refusal for gaps that a retry has since read goes with them.
        if self.packet_refused_line && gaps::refuse_packet(&ws.gaps, "").is_none() {
            self.packet_line = None;
            self.packet_refused_line = false;
        }
        self.gaps = Arc::clone(&ws.gaps);
        self.bank_lines = ws.bank.clone();
        if self.month.is_none() {
            self.month = Some(default_month(&ws.data, cx.now(), cx.tz()));
        }
        self.recompute(cx);
        true
    }

    fn on_computed(&mut self, req: RequestId, output: JobOutput, cx: &mut Cx<'_>) {
        let Some(output) = self.balance.on_computed(req, output, cx) else {
            return;
        };
        let output = match output.downcast::<PacketResult>() {
            Ok(result) => return self.packet_done(req, *result, cx),
            Err(other) => other,
        };
        if self.bank_pending.is_some_and(|p| p == req) {
            self.bank_pending = None;
            if let (Ok(m), Some(t)) = (output.downcast::<crate::bank::BankMatch>(), &self.result) {
                self.bank = Some(Arc::new(*m));
                let source = rows_source(t, self.bank.as_deref());
                self.table.set_source(source, cx);
            }
            return;
        }
        let output = match output.downcast::<crate::app::journal::JournalExport>() {
            Ok(result) => {
                let key = self.journal_overwrite_key.clone();
                return self.journal.done(req, *result, &key, cx);
            }
            Err(other) => other,
        };
        if self.pending != Some(req) {
            return;
        }
        self.pending = None;
        if let Ok(t) = output.downcast::<MonthTieOut<'static>>() {
            self.show(*t, cx);
        }
    }

    fn handle(&mut self, action: Action, cx: &mut Cx<'_>) -> Handled {
        match action {
            Action::BalanceView => {
                self.balance.on = !self.balance.on;
                if self.balance.on && self.balance.needs_build() {
                    let data = self.data.clone();
                    self.balance
                        .refresh(data.as_ref(), self.month, self.sync_limit, cx);
                }
            }
            Action::Open if self.balance.on => self.balance.open(self.data.as_ref(), cx),
            Action::Export if self.balance.on => {
                match gaps::refuse_reports(&self.gaps, &self.refresh_key) {
                    Some(why) => cx.toast_error(why),
                    None => self.balance.export(cx),
                }
            }
            Action::PrevMonth => self.shift_month(false, cx),
            Action::NextMonth => self.shift_month(true, cx),
            Action::ChooseMonth => match self.month {
                Some(m) => cx.prompt(PromptKind::Month, m.to_string()),
                None => cx.toast_error("no month yet: the account is still loading"),
            },
            Action::Export => self.export(cx),
            Action::ExportPacket => self.ask_packet_dir(cx),
            Action::OverwritePacket => self.overwrite_packet(cx),
            Action::ExportJournal => match gaps::refuse_reports(&self.gaps, &self.refresh_key) {
                Some(why) => cx.toast_error(why),
                None => self.journal.start(self.month, self.data.as_ref(), cx),
            },
            Action::OverwriteJournal => self.journal.overwrite(self.month, self.data.as_ref(), cx),
            Action::Open => self.open(cx),
            _ => return Handled::No,
        }
        Handled::Yes
    }

    fn reveal(&mut self, place: &crate::tui::pane::Place, cx: &mut Cx<'_>) -> Reveal {
        self.reveal_place(place, cx)
    }

    fn place(&self) -> Option<crate::tui::pane::Place> {
        self.place_on_screen()
    }

    fn on_prompt(&mut self, kind: PromptKind, text: &str, cx: &mut Cx<'_>) {
        if kind == PromptKind::Month {
            return self.choose_month(text, cx);
        }
        if kind != PromptKind::PacketDir {
            return;
        }
        let dir = text.trim();
        if dir.is_empty() {
            cx.toast_error("no folder given: nothing was written");
            return;
        }
        self.export_packet(PathBuf::from(dir), false, cx);
    }

    fn table(&self) -> Option<&DataTable> {
        Some(if self.balance.on {
            &self.balance.table
        } else {
            &self.table
        })
    }

    fn table_mut(&mut self) -> Option<&mut DataTable> {
        Some(if self.balance.on {
            &mut self.balance.table
        } else {
            &mut self.table
        })
    }

    fn render(&mut self, area: Rect, buf: &mut Buffer, cx: &ViewCx<'_>) {
        if let Some(k) = cx.keymap.key_for(Action::OverwritePacket) {
            self.overwrite_key = k;
        }
        if let Some(k) = cx.keymap.key_for(Action::OverwriteJournal) {
            self.journal_overwrite_key = k;
        }
        if let Some(k) = cx.keymap.key_for(Action::Refresh) {
            self.refresh_key = k;
        }
        if self.balance.on {
            let selector = self.month.map(|m| Line::from(header::selector(m, cx)));
            // Every line the month's figures need: from the account's first, or every line
            // since the month's start (a sync lists the window's lines by `created`).
            let complete = self.data.as_ref().is_none_or(|d| match self.month {
                Some(m) => d.meta.lines_cover(m.range(cx.tz).0),
                None => d.meta.lines_complete,
            });
            let gap = gaps::balance_note(gaps::payouts(&self.gaps), &self.refresh_key);
            let mut header: Vec<Line<'static>> = selector.into_iter().collect();
            header.extend(self.export_lines(cx, area.width.saturating_sub(2)));
            return self.balance.render(header, (complete, gap), area, buf, cx);
        }
        let inset = Rect {
            x: area.x + 1,
            width: area.width.saturating_sub(2),
            ..area
        };
        let lines = self.header_lines(cx, inset.width);
        let h = u16::try_from(lines.len())
            .unwrap_or(0)
            .min(area.height.saturating_sub(4));
        Paragraph::new(lines).render(Rect { height: h, ..inset }, buf);
        self.table.render(
            Rect {
                y: area.y + h,
                height: area.height - h,
                ..area
            },
            buf,
            cx,
        );
    }

    fn hints(&self) -> Vec<Action> {
        if self.balance.on {
            return vec![
                Action::Open,
                Action::PrevMonth,
                Action::NextMonth,
                Action::BalanceView,
                Action::Export,
            ];
        }
        vec![
            Action::Open,
            Action::PrevMonth,
            Action::NextMonth,
            Action::Export,
            // Filter is in the help overlay; the line keeps room for tab, help and quit.
            Action::ExportPacket,
        ]
    }
}
