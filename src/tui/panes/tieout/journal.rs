//! The Tie-out tab's journal key: `export_journal` writes the month on screen as journal
//! entries for the books (the formats and style of the account map's `[close]` section,
//! as in the close packet) into `journal-YYYY-MM` in the folder tieout was started from.
//! The work runs as a [`Job`] off the UI task (the same use case as `tieout journal`);
//! the status line says what was written and where. A different file already there is
//! kept: the result says so, and only then does `overwrite_journal` replace it (the
//! second, explicit confirmation), as the close packet export does.

use std::path::PathBuf;
use std::sync::Arc;

use crate::app::journal::{JournalExport, default_dir, export_month};
use crate::model::AccountData;
use crate::time::Month;
use crate::tui::msg::{Job, RequestId};
use crate::tui::pane::Cx;
use crate::tui::theme::Role;

/// The journal export's state in the Tie-out tab.
#[derive(Debug, Default)]
pub struct JournalKey {
    /// The export in flight (its month).
    pending: Option<(RequestId, Month)>,
    /// An export found different files there: `overwrite_journal` may replace them.
    overwrite: Option<(Month, PathBuf)>,
    /// The last export's outcome, shown under the month selector until the next one.
    pub line: Option<(String, Role)>,
    /// The folder `journal-YYYY-MM` goes into (default: the current folder).
    pub base: Option<PathBuf>,
}

impl JournalKey {
    /// `export_journal` (or, with `force`, the overwrite): asks for the month's journal.
    pub fn start(
        &mut self,
        month: Option<Month>,
        data: Option<&Arc<AccountData>>,
        cx: &mut Cx<'_>,
    ) {
        let (Some(month), Some(data)) = (month, data) else {
            cx.toast_error("nothing to export yet: the account is still loading");
            return;
        };
        let dir = match &self.base {
            Some(base) => base.join(default_dir(month)),
            None => default_dir(month),
        };
        self.run(month, Arc::clone(data), dir, false, cx);
    }

    /// `overwrite_journal`: only after an export of this month found files in place.
    pub fn overwrite(
        &mut self,
        month: Option<Month>,
        data: Option<&Arc<AccountData>>,
        cx: &mut Cx<'_>,
    ) {
        match (self.overwrite.take(), data) {
            (Some((m, dir)), Some(data)) if Some(m) == month && self.pending.is_none() => {
                self.run(m, Arc::clone(data), dir, true, cx)
            }
            (Some(offer), _) => {
                self.overwrite = Some(offer);
                cx.toast_error(
                    "nothing to overwrite for the month on screen: export its journal first",
                );
            }
            (None, _) => cx.toast_error(
                "nothing to overwrite: export the journal first; files already there are only replaced after that export finds them",
            ),
        }
    }

    fn run(
        &mut self,
        month: Month,
        data: Arc<AccountData>,
        dir: PathBuf,
        force: bool,
        cx: &mut Cx<'_>,
    ) {
        if let Some((_, m)) = self.pending {
            cx.toast_error(format!(
                "the journal of {m} is still being written; wait for it to finish"
            ));
            return;
        }
        let tz = cx.tz().clone();
        let verb = if force { "replacing" } else { "writing" };
        let job = Job::new(format!("{verb} the journal of {month}"), move |_| {
            export_month(&data, month, &tz, &dir, force)
        });
        self.pending = Some((cx.compute(job), month));
        self.overwrite = None;
        self.line = None;
    }

    /// The end of an export: what was written and where, or why not (a result that does
    /// not answer the export in flight is dropped).
    pub fn done(
        &mut self,
        req: RequestId,
        result: JournalExport,
        overwrite_key: &str,
        cx: &mut Cx<'_>,
    ) {
        let Some((_, month)) = self.pending.take_if(|(r, _)| *r == req) else {
            return;
        };
        match result {
            JournalExport::Written {
                dir,
                files,
                entries,
                flagged,
                suspense,
            } => {
                let changed = files.iter().filter(|(_, c)| *c).count();
                cx.toast(format!(
                    "wrote the journal of {month} into {} ({} files)",
                    dir.display(),
                    files.len()
                ));
                let verdict = if suspense > 0 {
                    format!(
                        " written, does NOT tie out ({suspense} amount{} to suspense)",
                        if suspense == 1 { "" } else { "s" }
                    )
                } else {
                    String::new()
                };
                let text = format!(
                    "Journal {month}{verdict}: {} · {} files ({changed} new or changed) · {entries} entries, {flagged} flagged for review",
                    dir.display(),
                    files.len(),
                );
                let role = if suspense > 0 {
                    Role::Difference
                } else {
                    Role::Ok
                };
                self.line = Some((text, role));
            }
            JournalExport::Exists(dir) => {
                cx.toast_error(format!(
                    "journal files already exist; press {overwrite_key} to overwrite {}",
                    dir.display()
                ));
                self.line = Some((
                    format!(
                        "Journal {month} not written: {overwrite_key} overwrites the different files already in {} (nothing was changed)",
                        dir.display()
                    ),
                    Role::Error,
                ));
                self.overwrite = Some((month, dir));
            }
            JournalExport::Failed(e) => {
                self.line = Some((format!("Journal {month} not written: {e}"), Role::Error));
                cx.toast_error(e);
            }
        }
    }
}
