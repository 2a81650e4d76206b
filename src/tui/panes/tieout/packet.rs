//! The Tie-out tab's close packet: the folder prompt (`export_packet`), the refusal while
//! part of the account could not be read, the export as an effect (the same use case as
//! `tieout close`, `app::close`), the second, explicit confirmation before a packet
//! already there is replaced (`overwrite_packet`), and the result line under the month.

use std::path::PathBuf;

use super::{TieOutPane, default_packet_dir, gaps};
use crate::time::Month;
use crate::tui::msg::{Effect, PacketInput, PacketResult, RequestId};
use crate::tui::pane::Cx;
use crate::tui::prompt::PromptKind;
use crate::tui::theme::Role;

impl TieOutPane {
    /// Refuses the month's close packet while part of the account could not be read
    /// (said under the month selector and in the status line): true when refused.
    pub(super) fn packet_refused(&mut self, month: Month, cx: &mut Cx<'_>) -> bool {
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
    pub(super) fn ask_packet_dir(&mut self, cx: &mut Cx<'_>) {
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
    pub(super) fn export_packet(&mut self, dir: PathBuf, force: bool, cx: &mut Cx<'_>) {
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
    pub(super) fn overwrite_packet(&mut self, cx: &mut Cx<'_>) {
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
    pub(super) fn packet_done(&mut self, req: RequestId, result: PacketResult, cx: &mut Cx<'_>) {
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
}
