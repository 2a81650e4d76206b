//! The Tie-out tab: the payouts arriving in a month (chosen with `prev_month` /
//! `next_month`), each with its amount, its lines' net, the difference and a mark (tied,
//! difference, not itemisable, in progress), and the month's totals per currency.
//!
//! `open` drills in: payout -> its lines by category -> the lines -> one balance
//! transaction with its source object ([`screens`]). `export` writes the same three files
//! as `tieout reconcile` for the month on screen. `export_packet` offers a folder
//! (`close-YYYY-MM`) in a prompt and asks the runtime for the month's close packet
//! (`Effect::ExportPacket`, the same code as `tieout close`); progress and the result show
//! in the status line. A packet already there is kept: the result says so, and only then
//! does `overwrite_packet` replace it (the second, explicit confirmation).
//! `export_journal` writes the month's journal for the books ([`journal`]).
//!
//! The tie-out is computed off the UI task ([`crate::domain::tieout::tie_out_month`] in a
//! job); the latest request wins. With a bank statement in the workspace (`TIEOUT_BANK`,
//! or the demo's own) a Bank column and summary line appear ([`bank`]).

mod bank;
#[cfg(test)]
mod bank_tests;
mod columns;
mod facts;
mod gaps;
mod journal;
mod screens;
#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::sync::Arc;

use jiff::tz::TimeZone;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use crate::domain::tieout::{MonthTieOut, Verdict, tie_out_month};
use crate::money::format_major_grouped;
use crate::report::Formats;
use crate::report::reconciliation::{ReportHeader, render};
use crate::source::AccountData;
use crate::time::Month;
use crate::tui::action::Action;
use crate::tui::msg::{Effect, Job, JobOutput, PacketInput, PacketResult, RequestId};
use crate::tui::pane::{Cx, Handled, Pane, Reads, ViewCx};
use crate::tui::state::PromptKind;
use crate::tui::theme::Role;
use crate::tui::widgets::table::{DataTable, RowsSource, TableSource};
use crate::tui::workspace::{Gap, Workspace};

pub use bank::BankScreen;
use columns::rows_source;
pub(crate) use columns::verdict_cell;
pub use screens::{LinesScreen, PayoutScreen, txn_fields};

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

use crate::time::zone_name;

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
        if let Some(old) = self.pending.take() {
            cx.cancel(old);
        }
        let tz = cx.tz().clone();
        self.table
            .set_title(format!("Payouts arriving in {}", month.title()));
        if data.payouts.len() + data.balance_transactions.len() <= self.sync_limit {
            let t = tie_out_month(&data.payouts, &data.balance_transactions, month, &tz);
            self.show(t.into_owned(), cx);
            return;
        }
        self.result = None;
        let job = Job::new(format!("tying out {month}"), move |_| {
            tie_out_month(&data.payouts, &data.balance_transactions, month, &tz).into_owned()
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
        // A new table, so a new month starts at its first row with its own empty text.
        let filter = self.table.filter().to_string();
        self.table = DataTable::new(title, empty, empty_source());
        self.table.set_source(source, cx);
        if !filter.is_empty() {
            self.table.set_filter(&filter, cx);
        }
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
        let run = move || crate::bank::match_month(&t, &data.payouts, &lines, now);
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

    fn export(&self, cx: &mut Cx<'_>) {
        let (Some(t), Some(data)) = (&self.result, &self.data) else {
            cx.toast_error("nothing to export yet");
            return;
        };
        if let Some(why) = gaps::refuse_reports(&self.gaps, &self.refresh_key) {
            cx.toast_error(why);
            return;
        }
        let header = ReportHeader::from_meta(&data.meta, &zone_name(cx.tz()));
        let all = Formats {
            md: true,
            csv: true,
            json: true,
        };
        let mut files = render(t, &header, all);
        if let Some(m) = &self.bank {
            crate::report::bank::add_bank_section(&mut files, m);
            files.push((
                crate::report::bank::BANK_MATCH_FILE,
                crate::report::bank::bank_match_csv(m),
            ));
        }
        for (name, bytes) in files {
            cx.effect(Effect::Write {
                path: PathBuf::from(name),
                bytes,
            });
        }
    }

    /// Refuses the month's close packet while part of the account could not be read
    /// (said under the month selector and in the status line): true when refused.
    fn packet_refused(&mut self, month: Month, cx: &mut Cx<'_>) -> bool {
        let Some(why) = gaps::refuse_packet(&self.gaps, &self.refresh_key) else {
            return false;
        };
        self.packet_line = Some((
            format!("Close packet {month} not written: {why}"),
            Role::Error,
        ));
        self.packet_refused_line = true;
        cx.toast_error(format!("close packet {month} not written: {why}"));
        true
    }

    /// `export_packet`: offers the month's packet folder in a prompt (Enter writes).
    fn ask_packet_dir(&mut self, cx: &mut Cx<'_>) {
        let (Some(month), Some(_)) = (self.month, &self.data) else {
            cx.toast_error("nothing to export yet: the account is still loading");
            return;
        };
        if self.packet_refused(month, cx) {
            return;
        }
        if let Some((_, m)) = self.packet {
            cx.toast_error(format!(
                "the close packet for {m} is still being written; wait for it to finish"
            ));
            return;
        }
        cx.prompt(PromptKind::PacketDir, default_packet_dir(month));
    }

    /// Asks the runtime to write the month's packet into `dir`.
    fn export_packet(&mut self, dir: PathBuf, force: bool, cx: &mut Cx<'_>) {
        let (Some(month), Some(data)) = (self.month, self.data.clone()) else {
            return;
        };
        if self.packet_refused(month, cx) {
            return;
        }
        let input = PacketInput {
            data,
            now: cx.now(),
            tz: cx.tz().clone(),
            bank: self.bank_lines.clone(),
        };
        let verb = if force { "replacing" } else { "writing" };
        let req = cx.request(format!("{verb} the close packet for {month}"));
        self.packet = Some((req, month));
        self.overwrite = None;
        self.packet_line = None;
        self.packet_refused_line = false;
        self.typed_dir = Some(dir.clone());
        cx.effect(Effect::ExportPacket {
            req,
            month,
            dir,
            force,
            input,
        });
    }

    /// `overwrite_packet`: only after an export of this month found a packet in place.
    fn overwrite_packet(&mut self, cx: &mut Cx<'_>) {
        match self.overwrite.take() {
            Some((m, dir)) if Some(m) == self.month && self.packet.is_none() => {
                self.export_packet(dir, true, cx)
            }
            Some(offer) => {
                self.overwrite = Some(offer);
                cx.toast_error(
                    "nothing to overwrite for the month on screen: export its close packet first",
                );
            }
            None => cx.toast_error(
                "nothing to overwrite: export the close packet first; an existing one is only replaced after that export finds it",
            ),
        }
    }

    /// The end of an export: the path and the manifest's count, or why not.
    fn packet_done(&mut self, req: RequestId, result: PacketResult, cx: &mut Cx<'_>) {
        let Some((_, month)) = self.packet.take_if(|(r, _)| *r == req) else {
            return;
        };
        match result {
            PacketResult::Written { dir, files } => {
                cx.toast(format!(
                    "wrote close packet {} ({files} files + manifest)",
                    dir.display()
                ));
                self.packet_line = Some((
                    format!(
                        "Close packet {month}: {} · {files} files listed in MANIFEST.json (check: tieout close --verify)",
                        dir.display()
                    ),
                    Role::Ok,
                ));
            }
            PacketResult::Exists(dir) => {
                let key = &self.overwrite_key;
                cx.toast_error(format!(
                    "a packet already exists; press {key} to overwrite {}",
                    dir.display()
                ));
                self.packet_line = Some((
                    format!(
                        "A close packet for {month} already exists at {}: nothing was changed. {key} overwrites it.",
                        dir.display()
                    ),
                    Role::Error,
                ));
                // Overwriting writes to the folder as typed (the same place).
                if let Some(typed) = self.typed_dir.take() {
                    self.overwrite = Some((month, typed));
                }
            }
            PacketResult::Failed(e) => {
                self.packet_line = Some((
                    format!("Close packet {month} not written: {e}"),
                    Role::Error,
                ));
                cx.toast_error(e);
            }
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

    /// The month selector, the counts and one line per currency, fitted to `width`.
    fn header_lines(&self, cx: &ViewCx<'_>, width: u16) -> Vec<Line<'static>> {
        let theme = cx.theme;
        let key = |a: Action| cx.keymap.key_for(a).unwrap_or_else(|| a.name().to_string());
        let Some(month) = self.month else {
            return vec![];
        };
        let selector = vec![
            Span::styled(
                format!("{} ", key(Action::PrevMonth)),
                theme.style(Role::Muted),
            ),
            Span::styled(format!("◀ {} ▶", month.title()), theme.style(Role::Title)),
            Span::styled(
                format!(" {}", key(Action::NextMonth)),
                theme.style(Role::Muted),
            ),
            Span::styled(format!("  {}", zone_name(cx.tz)), theme.style(Role::Muted)),
        ];
        let mut counts: Vec<Span<'static>> = Vec::new();
        let mut lines = Vec::new();
        match &self.result {
            None => counts.push(Span::styled("tying out…", theme.style(Role::Pending))),
            Some(t) if t.is_empty() => {
                let gap = gaps::payouts(&self.gaps);
                let role = if gap.is_some() {
                    Role::Warning
                } else {
                    Role::Muted
                };
                counts.push(Span::styled(
                    gaps::empty_month(gap, &self.refresh_key),
                    theme.style(role),
                ))
            }
            Some(t) => {
                let c = &t.counts;
                let count = |v: Verdict| t.payouts.iter().filter(|p| p.verdict == v).count();
                counts.push(Span::styled(
                    format!("{} payouts: ", c.payouts),
                    theme.style(Role::Text),
                ));
                let parts = [
                    (c.tied, "tied", Role::Matched),
                    (c.differences, "difference", Role::Difference),
                    (c.not_itemisable, "not itemisable", Role::Muted),
                    (c.in_progress, "in progress", Role::Pending),
                    (count(Verdict::Failed), "failed", Role::Failed),
                    (count(Verdict::Canceled), "canceled", Role::Failed),
                    (count(Verdict::Reversed), "reversed", Role::Failed),
                ];
                // "0 failed" and "0 canceled" are noise: shown only when there is one.
                let parts = parts
                    .into_iter()
                    .filter(|(n, _, role)| *n > 0 || *role != Role::Failed);
                for (i, (n, label, role)) in parts.enumerate() {
                    if i > 0 {
                        counts.push(Span::styled(" · ", theme.style(Role::Muted)));
                    }
                    let role = if n == 0 { Role::Muted } else { role };
                    let plural = if n != 1 && label == "difference" {
                        "s"
                    } else {
                        ""
                    };
                    counts.push(Span::styled(
                        format!("{n} {label}{plural}"),
                        theme.style(role),
                    ));
                }
                const SHOWN: usize = 3;
                for x in t.totals.iter().take(SHOWN) {
                    let g = |v: i64| format_major_grouped(v, x.currency);
                    let mut spans = vec![
                        Span::styled(format!("{} ", x.currency), theme.style(Role::Title)),
                        Span::styled(
                            format!(
                                "{} payout{} {} · lines' net {} of {} itemised",
                                x.counts.payouts,
                                if x.counts.payouts == 1 { "" } else { "s" },
                                g(x.payouts_amount),
                                g(x.lines_net),
                                g(x.itemised_amount),
                            ),
                            theme.style(Role::Text),
                        ),
                    ];
                    if x.difference != 0 {
                        spans.push(Span::styled(
                            format!(" · difference {}", g(x.difference)),
                            theme.style(Role::Difference),
                        ));
                    }
                    spans.push(Span::styled(
                        format!(
                            " · fees {} · refunds {} · disputes {}",
                            g(x.fee),
                            g(x.refunds),
                            g(x.disputes)
                        ),
                        theme.style(Role::Muted),
                    ));
                    lines.push(Line::from(spans));
                }
                if t.totals.len() > SHOWN {
                    lines.push(Line::styled(
                        format!(
                            "and {} more currencies (see the export)",
                            t.totals.len() - SHOWN
                        ),
                        theme.style(Role::Muted),
                    ));
                }
            }
        }
        if let Some(m) = &self.bank {
            lines.push(bank::summary(m, theme));
        } else if self.bank_pending.is_some() {
            lines.push(Line::styled("Bank: matching…", theme.style(Role::Pending)));
        }
        if let Some((text, role)) = &self.packet_line {
            // Wrapped between words: a refusal says what is missing and what to do.
            for l in textwrap::wrap(text, usize::from(width.max(1))) {
                lines.push(Line::styled(l.into_owned(), theme.style(*role)));
            }
        }
        if let Some((text, role)) = &self.journal.line {
            lines.push(Line::styled(text.clone(), theme.style(*role)));
        }
        let one = Line::from(selector.clone());
        let both = one.width() + 3 + Line::from(counts.clone()).width();
        if both <= usize::from(width) {
            let mut first = selector;
            first.push(Span::raw("   "));
            first.extend(counts);
            lines.insert(0, Line::from(first));
        } else {
            lines.insert(0, Line::from(counts));
            lines.insert(0, one);
        }
        lines
    }
}

impl Pane for TieOutPane {
    fn title(&self) -> String {
        "Tie-out".to_string()
    }

    fn reads(&self) -> Reads {
        use crate::source::sync::Resource as R;
        Reads {
            needs: &[R::Payouts],
            partly: &[
                (R::Charges, "the charge behind a line"),
                (R::Refunds, "the refund behind a line"),
                (R::Disputes, "the dispute behind a line"),
            ],
        }
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
            Action::PrevMonth => self.shift_month(false, cx),
            Action::NextMonth => self.shift_month(true, cx),
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

    fn on_prompt(&mut self, kind: PromptKind, text: &str, cx: &mut Cx<'_>) {
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
        Some(&self.table)
    }

    fn table_mut(&mut self) -> Option<&mut DataTable> {
        Some(&mut self.table)
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
